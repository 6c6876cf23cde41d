"""The map-card overlay: outlines, verdicts per cell, and a doubtful card's label."""

from __future__ import annotations

import dataclasses

import numpy as np

from vision.cards.draw import draw_cards
from vision.types import CardReading

CARD = ((40.0, 40.0), (200.0, 40.0), (200.0, 260.0), (40.0, 260.0))
GRID = ((60.0, 100.0), (180.0, 100.0), (180.0, 220.0), (60.0, 220.0))  # 4x4 cells of 30 px


def _reading(**kw: object) -> CardReading:
    base = CardReading(id="t4", colour="green", confidence=0.9, corners=CARD, marked=((0, 0),),
                       uncertain=((3, 3),), complete=False, partial=False, grid_rotation=0,
                       grid_shape=(4, 4), grid_corners=GRID)
    return dataclasses.replace(base, **kw)  # type: ignore[arg-type]


def _red(out: np.ndarray, x0: int, y0: int, x1: int, y1: int) -> int:
    p = out[y0:y1, x0:x1].astype(int)
    return int(((p[..., 2] > 180) & (p[..., 1] < 90) & (p[..., 0] < 90)).sum())


def _yellow(out: np.ndarray, x0: int, y0: int, x1: int, y1: int) -> int:
    p = out[y0:y1, x0:x1].astype(int)
    return int(((p[..., 2] > 200) & (p[..., 1] > 180) & (p[..., 0] < 80)).sum())


def test_cells_are_drawn_where_the_grid_has_them() -> None:
    image = np.full((300, 260, 3), 120, np.uint8)
    out = draw_cards(image, [_reading()])
    assert (image == 120).all(), "drawn on a copy"
    # the marked cell (0, 0) is crossed in red, the uncertain cell (3, 3) boxed in yellow
    assert _red(out, 62, 102, 88, 128) > 20 and _red(out, 152, 192, 178, 218) == 0
    assert _yellow(out, 148, 188, 182, 222) > 20 and _yellow(out, 58, 98, 92, 132) == 0
    # the outline is green for a named card
    edge = out[40, 60:180].astype(int)
    assert ((edge[:, 1] > 150) & (edge[:, 2] < 120)).sum() > 100


def test_a_doubtful_card_asks_for_a_check() -> None:
    image = np.full((300, 260, 3), 120, np.uint8)
    sure = draw_cards(image, [_reading()])
    doubtful = draw_cards(image, [_reading(doubtful=True, confidence=0.05)])
    # only the id above the card changes (the card's outline runs at y = 40)
    ys, xs = np.nonzero(np.any(sure != doubtful, axis=2))
    assert len(ys) > 50 and ys.max() < 38
    # ... into a longer label ("t4 check") reaching further right than "t4"
    _, sure_xs = np.nonzero(np.any(sure[:36] != 120, axis=2))
    assert xs.max() > sure_xs.max() + 30
