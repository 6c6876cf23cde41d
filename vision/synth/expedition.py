"""Expedition card faces: 2-4 squares in the pattern of one of the six shapes, in two styles."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.synth.cards import STYLES, face_geometry, jitter_bgr, rounded_alpha

__all__ = ["ExpeditionCard", "expedition_card", "expedition_cards", "render_expedition_face"]

Cell = tuple[int, int]
_SHIFT = 4
_ONE = 1 << _SHIFT


def _pt(x: float, y: float) -> tuple[int, int]:
    return (round(x * _ONE), round(y * _ONE))

# style -> (background, frame, square fill, square outline), BGR
_LOOKS: Mapping[str, tuple[tuple[int, int, int], ...]] = {
    "classic": ((70, 50, 35), (40, 110, 170), (150, 200, 225), (30, 40, 60)),
    "modern": ((225, 235, 240), (60, 60, 60), (40, 140, 230), (40, 60, 90)),
    "stamped": ((185, 200, 210), (70, 60, 110), (60, 95, 150), (40, 35, 35)),
}


@dataclass(frozen=True)
class ExpeditionCard:
    """An expedition card: its id, the shape's name and its cells ``(row, col)``."""

    id: str
    name: str
    cells: tuple[Cell, ...]


@cache
def expedition_cards() -> tuple[ExpeditionCard, ...]:
    """The 8 expedition cards, from the rules package's catalog."""
    from scoring.silver_gold import load_catalog

    return tuple(ExpeditionCard(s.id, s.name, tuple(sorted(s.cells))) for s in load_catalog().expeditions)


def expedition_card(card_id: str) -> ExpeditionCard:
    """The expedition card ``card_id``; ``KeyError`` when there is none."""
    for card in expedition_cards():
        if card.id == card_id:
            return card
    raise KeyError(f"no expedition card {card_id!r}")


def render_expedition_face(
    card: ExpeditionCard, rng: np.random.Generator, style: str | None = None
) -> NDArray[np.uint8]:
    """Draw the face of an expedition card.

    Parameters
    ----------
    card : ExpeditionCard
    rng : numpy.random.Generator
    style : {"classic", "modern", "stamped"}, optional
        Random among :data:`vision.synth.cards.STYLES` when ``None``.

    Returns
    -------
    (h, w, 4) uint8 array
        BGRA, portrait, with rounded corners cut by the alpha channel.
    """
    style_name = style if style is not None else STYLES[int(rng.integers(len(STYLES)))]
    if style_name not in _LOOKS:
        raise ValueError(f"unknown expedition style {style_name!r}")
    back, frame_c, fill, edge = (jitter_bgr(rng, c, 12) for c in _LOOKS[style_name])
    geo = face_geometry()
    px = geo.px_per_mm
    w, h = round(geo.expedition_mm[0] * px), round(geo.expedition_mm[1] * px)
    img = np.empty((h, w, 3), np.uint8)
    img[:] = frame_c
    frame = (rng.uniform(3.0, 5.0) if style_name == "classic" else rng.uniform(1.5, 2.5)) * px
    cv2.rectangle(img, _pt(frame, frame), _pt(w - frame, h - frame), back, -1, cv2.LINE_AA, _SHIFT)
    if style_name == "classic":
        # a compass rose in a corner
        c = (w - frame - 8 * px, h - frame - 8 * px)
        for k in range(8):
            ang = k * np.pi / 4
            r = (6.0 if k % 2 == 0 else 3.5) * px
            cv2.line(img, _pt(*c), _pt(c[0] + np.cos(ang) * r, c[1] + np.sin(ang) * r), frame_c,
                     max(1, round(px * 0.4)), cv2.LINE_AA, _SHIFT)
    else:
        band = (_pt(frame + 2 * px, frame + 2 * px), _pt(w - frame - 2 * px, frame + 9 * px))
        cv2.rectangle(img, band[0], band[1], fill, -1, cv2.LINE_AA, _SHIFT)

    cells = np.asarray(card.cells, np.float64)
    rows = int(cells[:, 0].max()) + 1
    cols = int(cells[:, 1].max()) + 1
    side = float(rng.uniform(*((11.0, 13.5) if style_name == "classic" else (12.5, 15.0)))) * px
    gap = (rng.uniform(0.0, 0.6) if style_name == "classic" else rng.uniform(0.8, 1.6)) * px
    pitch = side + gap
    x0 = w / 2 - (cols * pitch - gap) / 2
    y0 = h * rng.uniform(0.5, 0.56) - (rows * pitch - gap) / 2
    line = max(1, round(px * (0.6 if style_name == "classic" else 0.35)))
    for r, c in card.cells:
        a = (x0 + c * pitch, y0 + r * pitch)
        b = (a[0] + side, a[1] + side)
        cv2.rectangle(img, _pt(*a), _pt(*b), fill, -1, cv2.LINE_AA, _SHIFT)
        cv2.rectangle(img, _pt(*a), _pt(*b), edge, line, cv2.LINE_AA, _SHIFT)
    alpha = rounded_alpha(w, h, rng.uniform(2.5, 4.0) * px)
    face = cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)
    face[:, :, 3] = alpha
    return face
