"""Splendor Duel token-board vision: find the board, read its 5x5 spots, learn token colours.

``read(image, profile=None, config=None) -> BoardReading | None`` is the entry point;
``learn_tokens(image, layout) -> TokenModel`` enrols token colours for a profile.
"""

from __future__ import annotations

from vision.board.config import BoardConfig, default_config
from vision.board.learn import TokenModel, TokenModelError, default_layout, default_model, learn_tokens
from vision.board.read import locate, read

__all__ = [
    "BoardConfig",
    "TokenModel",
    "TokenModelError",
    "default_config",
    "default_layout",
    "default_model",
    "learn_tokens",
    "locate",
    "read",
]
