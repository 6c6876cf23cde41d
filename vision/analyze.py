"""One call that reads everything goldtable knows how to read in one image."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from vision.profile import ProfileLike, card_view_of
from vision.types import BoardReading, CardReading, ExpeditionReading, Quad, SceneReading

__all__ = ["GAMES", "Game", "analyze", "scale_reading"]

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
        A calibrated table; applied before reading. The card readers read the profile's
        ``prepare_cards`` view when it has one (see :func:`vision.profile.card_view_of`), the
        board reader its ``prepare`` view.
    """
    from vision import board, cards
    from vision.cards.detect import detect as detect_cards
    from vision.cards.read import expedition_of

    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}")
    t0 = time.perf_counter()
    stage_ms: dict[str, float] = {}
    reads_cards = game in ("auto", "silver-gold")
    # each view is made only when a reader that runs needs it
    prepared: NDArray[np.uint8] | None = image if profile is None else None
    if profile is not None and game in ("auto", "splendor-duel"):
        prepared = _timed(stage_ms, "profile", lambda: profile.prepare(image))
    card_view = image
    if profile is not None and reads_cards:
        card_view = _timed(stage_ms, "profile_cards", lambda: card_view_of(profile, image, prepared))
    found: tuple[CardReading, ...] = ()
    expedition: ExpeditionReading | None = None
    found_board: BoardReading | None = None
    if reads_cards:
        # one card detection serves the map cards and the expedition card
        quads = _timed(stage_ms, "detect", lambda: detect_cards(card_view))
        seen: dict[bytes, ExpeditionReading | None] = {}  # quads the card reader searched for it
        found = tuple(_timed(stage_ms, "cards", lambda: cards.read(card_view, catalog=catalog, quads=quads,
                                                                   expedition_seen=seen)))
        # a card identified as a treasure map is not the expedition card
        maps = [np.mean(c.corners, axis=0) for c in found if c.id is not None]
        rest = tuple(q for q in quads
                     if not any(float(np.linalg.norm(q.corners.mean(axis=0) - m)) < 1.0 for m in maps))
        # the quads the card reader already searched for the expedition card are not read again
        expedition = _timed(stage_ms, "expedition",
                            lambda: expedition_of(card_view, rest, seen, reader=cards.read_expedition))
    if game in ("auto", "splendor-duel"):
        board_view = image if prepared is None else prepared
        found_board = _timed(stage_ms, "board", lambda: board.read(board_view, profile=profile))
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


def _scale_point(point: tuple[float, float], scale: float) -> tuple[float, float]:
    """A pixel position of the reduced image in the original's, pixel centre to pixel centre."""
    x, y = point
    return ((x + 0.5) * scale - 0.5, (y + 0.5) * scale - 0.5)


def _scale_quad(quad: Quad, scale: float) -> Quad:
    a, b, c, d = (_scale_point(p, scale) for p in quad)
    return (a, b, c, d)


def scale_reading(reading: SceneReading, scale: float, original_size: tuple[int, int]) -> SceneReading:
    """The reading with every position in the pixels of the original image.

    Use it when the image was read at a reduced size (:func:`vision.imageio.decode_image` decodes
    large photos downscaled): corners of the cards, their printed grids, the expedition card and
    the board, and the board's spot centres, are mapped pixel centre to pixel centre.

    Parameters
    ----------
    reading : SceneReading
        A reading of the reduced image.
    scale : float
        Original pixels per reduced pixel (``DecodedImage.scale``; 1 for no change).
    original_size : (width, height)
        The original image's size, which becomes the reading's ``width`` and ``height``.

    Raises
    ------
    ValueError
        For a scale or size that is not positive.
    """
    if not scale > 0 or original_size[0] <= 0 or original_size[1] <= 0:
        raise ValueError(f"scale_reading: scale {scale!r} and size {original_size!r} must be positive")
    cards = tuple(dataclasses.replace(c, corners=_scale_quad(c.corners, scale),
                                      grid_corners=None if c.grid_corners is None
                                      else _scale_quad(c.grid_corners, scale))
                  for c in reading.cards)
    exp = reading.expedition
    if exp is not None:
        exp = dataclasses.replace(exp, corners=_scale_quad(exp.corners, scale))
    board = reading.board
    if board is not None:
        spots = None if board.spots is None else tuple(
            tuple(_scale_point(p, scale) for p in row) for row in board.spots)
        board = dataclasses.replace(board, corners=_scale_quad(board.corners, scale), spots=spots)
    return dataclasses.replace(reading, width=int(original_size[0]), height=int(original_size[1]),
                               cards=cards, expedition=exp, board=board)
