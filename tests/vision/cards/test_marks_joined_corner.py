"""Marks in two diagonal neighbours joined across the corner of the cell between them (a blurred
stroke smeared over it): their centre of mass lies in that cell, which holds little of the joined
ink and off to one side; the ink there is theirs, not a mark of its own."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.cards.grid import Grid
from vision.cards.marks import cell_ink, read_marks

S = 48  # cell size in face pixels
PEN = (150, 60, 20)  # blue dry-erase ink, BGR
PAPER = (235, 235, 235)


def _face(marked_between: bool) -> tuple[np.ndarray, Grid]:
    """Two rows of three outlined plain cells; (1, 0) and (0, 1) crossed through and joined by a
    thick stroke bowing into the top-left of (1, 1); (1, 1) crossed through too when
    ``marked_between``."""
    face = np.full((2 * S, 3 * S, 3), PAPER, np.uint8)
    for k in range(4):
        x = min(k * S, 3 * S - 1)
        cv2.line(face, (x, 0), (x, 2 * S - 1), (40, 40, 40), 1)
    for k in range(3):
        y = min(k * S, 2 * S - 1)
        cv2.line(face, (0, y), (3 * S - 1, y), (40, 40, 40), 1)
    grid = Grid(np.arange(4) * float(S), np.arange(3) * float(S), np.ones((2, 3)),
                np.array(PAPER, np.float64))
    for x0, y0 in [(0, S), (S, 0)] + ([(S, S)] if marked_between else []):
        cv2.line(face, (x0 + 8, y0 + 8), (x0 + S - 9, y0 + S - 9), PEN, 3)
        cv2.line(face, (x0 + S - 9, y0 + 8), (x0 + 8, y0 + S - 9), PEN, 3)
    cv2.ellipse(face, (S, S), (20, 20), 0, -90, 180, PEN, 9)
    return face, grid


@pytest.mark.parametrize("marked_between", [False, True])
def test_marks_joined_across_a_cells_corner_leave_it_as_it_is(marked_between: bool) -> None:
    face, grid = _face(marked_between)
    plain = np.full((2, 3), "#")
    ink = cell_ink(face, grid, plain)
    if marked_between:
        # a mark drawn in the cell itself, joined to its neighbours', is its own
        assert ink.centre[1, 1] > 0.2
    else:
        # the joined strokes' ink leaves the cell between them (it lay off to one side)
        assert ink.centre[1, 1] == 0.0 and ink.sectors[1, 1] == 0.0
    assert read_marks(face, grid, plain, ink=ink).state.tolist() == [[0, 1, 0], [1, int(marked_between), 0]]
