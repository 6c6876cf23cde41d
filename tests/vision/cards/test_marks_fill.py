"""A card marked through: pen covers most of its cells, so the median colour of the cells (the grid's
``paper``) is the pen's. The face is white-balanced on the lightest part of the cells' fill instead,
so the print keeps its hue and a clean symbol cell is not read as marked."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.cards.grid import Grid
from vision.cards.marks import _cell_geometry, _pen_fill, cell_ink, default_config, read_marks

CELL = 48
MARGIN = 16
FILL = (180, 218, 240)  # BGR cream
PEN = (45, 45, 200)  # BGR red
GOLD = (40, 175, 225)  # BGR gold coin
PRINTED = np.array([["#", "C", "#"], ["#", "#", "C"], ["C", "#", "#"]])
HATCHED = {(0, 0), (0, 2), (1, 0), (1, 1), (2, 1), (2, 2)}


def _face(rng: np.random.Generator) -> NDArray[np.uint8]:
    """3 x 3 cells, a gold coin in three of them, red hatching over every plain cell (the paper
    showing between the strokes) and over none of the coins."""
    size = 2 * MARGIN + 3 * CELL
    img = np.empty((size, size, 3), np.uint8)
    img[:] = FILL
    for (r, c), sym in np.ndenumerate(PRINTED):
        x0, y0 = MARGIN + c * CELL, MARGIN + r * CELL
        if sym == "C":
            cv2.circle(img, (x0 + CELL // 2, y0 + CELL // 2), CELL // 4, GOLD, -1, cv2.LINE_AA)
        if (r, c) in HATCHED:
            cell = img[y0:y0 + CELL, x0:x0 + CELL].copy()
            for k in range(-CELL, CELL, 9):
                cv2.line(cell, (k, CELL), (k + CELL, 0), PEN, 6, cv2.LINE_AA)
            img[y0:y0 + CELL, x0:x0 + CELL] = cell
    for p in (MARGIN + k * CELL for k in range(4)):
        cv2.line(img, (p, MARGIN), (p, MARGIN + 3 * CELL), (40, 50, 60), 3)
        cv2.line(img, (MARGIN, p), (MARGIN + 3 * CELL, p), (40, 50, 60), 3)
    img = cv2.GaussianBlur(img, (0, 0), 0.8)
    return np.clip(img + rng.normal(0.0, 2.0, img.shape), 0, 255).astype(np.uint8)


def _grid(paper: NDArray[np.float64]) -> Grid:
    at = np.array([MARGIN + k * CELL for k in range(4)], float)
    return Grid(at, at, np.ones((3, 3)), paper)


def _median_fill(face: NDArray[np.uint8]) -> NDArray[np.float64]:
    """The plain median colour of the cells' insides: what a median over the rings gives."""
    inner = [face[MARGIN + r * CELL + 6:MARGIN + (r + 1) * CELL - 6,
                  MARGIN + c * CELL + 6:MARGIN + (c + 1) * CELL - 6].reshape(-1, 3)
             for r in range(3) for c in range(3)]
    return np.median(np.concatenate(inner), axis=0).astype(np.float64)


def test_the_pen_fill_is_the_paper_between_the_strokes(rng: np.random.Generator) -> None:
    face = _face(rng)
    polluted = _median_fill(face)
    # the premise: the median over the cells is pulled well off the paper towards the red pen
    assert np.linalg.norm(polluted - np.array(FILL)) > 25
    geo, window = _cell_geometry(_grid(polluted), PRINTED, face.shape[:2], default_config())
    fill = _pen_fill(face[window], geo, polluted, default_config())
    assert np.abs(fill - np.array(FILL)).max() < 12


def test_a_clean_coin_on_a_card_marked_through_is_unmarked(rng: np.random.Generator) -> None:
    face = _face(rng)
    grid = _grid(_median_fill(face))
    ink = cell_ink(face, grid, PRINTED)
    coins = [(0, 1), (1, 2), (2, 0)]
    # the coins keep their hue: their print is not residual ink
    assert max(float(ink.centre_res[rc]) for rc in coins) < 0.1
    state = read_marks(face, grid, PRINTED, ink=ink).state
    assert all(state[rc] == 0 for rc in coins)
    assert all(state[rc] == 1 for rc in HATCHED)
