"""The rule numbers of Splendor Duel, read from ``data/rules.json``."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from scoring.errors import ScoringError

__all__ = ["Rules", "load_json", "rules"]


@dataclass(frozen=True)
class Rules:
    """Fixed numbers of the game.

    Attributes
    ----------
    token_supply
        Tokens in the box, in :data:`~scoring.splendor_duel.tokens.TOKEN_ORDER` order (W U G R K P Y).
    board_size
        Rows and columns of the board (5).
    privileges
        Privilege scrolls in the game (3).
    max_take
        Most tokens one "take" action may take (3).
    max_reserved
        Most reserved cards a player may hold (3).
    hand_limit
        Most tokens a player may hold at the end of a turn (10).
    pyramid
        Face-up cards per level, level 1 first (5, 4, 3).
    crown_thresholds
        Crown counts that each give one royal card (3 and 6).
    victory_points, victory_crowns, victory_colour_points
        The three victory conditions.
    start_privileges_second_player
        Privileges the player who does not start receives at set-up.
    """

    token_supply: tuple[int, ...]
    board_size: int
    privileges: int
    max_take: int
    max_reserved: int
    hand_limit: int
    pyramid: tuple[int, ...]
    crown_thresholds: tuple[int, ...]
    victory_points: int
    victory_crowns: int
    victory_colour_points: int
    start_privileges_second_player: int


@cache
def load_json(name: str) -> Any:
    """Parse ``scoring/splendor_duel/data/<name>`` (package data).

    Raises
    ------
    ScoringError
        When the package data file is missing or not valid JSON.
    """
    try:
        text = resources.files("scoring.splendor_duel").joinpath("data", name).read_text("utf-8")
        return json.loads(text)
    except (OSError, json.JSONDecodeError) as exc:
        raise ScoringError(f"scoring/splendor_duel/data/{name}: cannot load ({exc})") from exc


@cache
def rules() -> Rules:
    """The game's rule numbers (cached; the returned object is immutable)."""
    data = load_json("rules.json")
    supply = data["token_supply"]
    return Rules(
        token_supply=tuple(int(supply[k]) for k in "WUGRKPY"),
        board_size=int(data["board_size"]),
        privileges=int(data["privileges"]),
        max_take=int(data["max_take"]),
        max_reserved=int(data["max_reserved"]),
        hand_limit=int(data["hand_limit"]),
        pyramid=tuple(int(n) for n in data["pyramid"]),
        crown_thresholds=tuple(int(n) for n in data["crown_thresholds"]),
        victory_points=int(data["victory_points"]),
        victory_crowns=int(data["victory_crowns"]),
        victory_colour_points=int(data["victory_colour_points"]),
        start_privileges_second_player=int(data["start_privileges_second_player"]),
    )
