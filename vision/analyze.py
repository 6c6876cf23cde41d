"""One call that reads everything goldtable knows how to read in one image."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from vision.profile import ProfileLike
from vision.types import BoardReading, CardReading, ExpeditionReading, SceneReading

Game = Literal["auto", "silver-gold", "splendor-duel"]
GAMES: tuple[str, ...] = ("auto", "silver-gold", "splendor-duel")


def _timed(stage_ms: dict[str, float], name: str, fn: Callable[[], Any]) -> Any:
    t0 = time.perf_counter()
    out = fn()
    stage_ms[name] = (time.perf_counter() - t0) * 1000.0
    return out


def analyze(
    image: NDArray[np.uint8],
    game: str = "auto",
    catalog: Any | None = None,
    profile: ProfileLike | None = None,
) -> SceneReading:
    """Read the map cards, the expedition card and/or the token board in ``image``.

    Parameters
    ----------
    image : (H, W, 3) uint8 array
        A BGR photo or frame.
    game : {"auto", "silver-gold", "splendor-duel"}
        Which readers to run; ``auto`` runs both.
    catalog : vision.cards.Catalog, optional
        The card catalog; the built-in one when ``None``.
    profile : ProfileLike, optional
        A calibrated table; applied before reading.
    """
    from vision import board, cards

    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}")
    t0 = time.perf_counter()
    stage_ms: dict[str, float] = {}
    prepared = image if profile is None else _timed(stage_ms, "profile", lambda: profile.prepare(image))
    found: tuple[CardReading, ...] = ()
    expedition: ExpeditionReading | None = None
    found_board: BoardReading | None = None
    if game in ("auto", "silver-gold"):
        found = tuple(_timed(stage_ms, "cards", lambda: cards.read(prepared, catalog=catalog)))
        expedition = _timed(stage_ms, "expedition", lambda: cards.read_expedition(prepared))
    if game in ("auto", "splendor-duel"):
        found_board = _timed(stage_ms, "board", lambda: board.read(prepared, profile=profile))
    h, w = image.shape[:2]
    return SceneReading(
        width=w,
        height=h,
        cards=found,
        expedition=expedition,
        board=found_board,
        elapsed_ms=(time.perf_counter() - t0) * 1000.0,
        stage_ms=stage_ms,
    )
