"""Per-cell verdicts on a face whose cells are lit unequally: a glare washes some cells out
while a colour cast tints the others (the lightest cells are then not the common fill)."""

from __future__ import annotations

import cv2
import numpy as np

from vision.cards.grid import Grid
from vision.cards.marks import cell_ink, read_marks

from .conftest import row_face

S = 48  # cell size in face pixels
TINT = (185, 225, 185)  # BGR: cells under a green cast
GLARE = (250, 250, 250)  # BGR: cells washed out by a glare
BLUE = (150, 60, 20)


def _face(glared: int, n: int = 5) -> tuple[np.ndarray, Grid]:
    """``n`` plain cells in a row, the last ``glared`` of them under a glare, the others tinted."""
    face, grid = row_face(n, S, paper=TINT)
    for k in range(n - glared, n):
        cv2.rectangle(face, (k * S + 1, 1), ((k + 1) * S - 2, S - 2), GLARE, -1)
    return face, grid


def test_cells_tinted_by_a_cast_beside_a_glare_are_unmarked() -> None:
    plain = np.array([["#"] * 5])
    face, grid = _face(glared=2)
    ink = cell_ink(face, grid, plain)
    # the glare holds the lightest pixels, yet the cast-tinted cells are the cells' common fill
    assert float(ink.centre.max()) == 0.0 and float(ink.ring.max()) == 0.0
    assert read_marks(face, grid, plain, ink=ink).state.tolist() == [[0, 0, 0, 0, 0]]


def test_pen_on_a_tinted_cell_beside_a_glare_is_a_mark() -> None:
    plain = np.array([["#"] * 5])
    face, grid = _face(glared=2)
    cv2.line(face, (10, 10), (S - 10, S - 10), BLUE, 3)
    cv2.line(face, (10, S - 10), (S - 10, 10), BLUE, 3)
    cv2.circle(face, (3 * S + S // 2, S // 2), 5, BLUE, -1)  # a dot under the glare
    state = read_marks(face, grid, plain).state
    assert state.tolist() == [[1, 0, 0, 1, 0]]


def test_a_cell_mostly_covered_by_pen_keeps_the_common_fill() -> None:
    # a dense hatch leaves paper between its strokes: its lightest pixels are tinted by the pen
    # yet darker than the paper, so the cell is compared with the common fill and stays marked
    plain = np.array([["#"] * 5])
    face, grid = _face(glared=0)
    for x in range(-S, S, 6):
        cv2.line(face, (x + 4, S - 4), (x + S - 4, 4), (120, 200, 120), 4)
    face[:, S:] = _face(glared=0)[0][:, S:]
    assert read_marks(face, grid, plain).state[0, 0] == 1
