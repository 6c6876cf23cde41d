"""A plain cell covered all over by light pen (a scribble or hatching with no paper left between
its strokes) against a cell in shade. Both are darker all over than the paper, but shade does not
tint a cell: the covered cell is marked, the shaded one is not."""

from __future__ import annotations

import dataclasses

import numpy as np
from numpy.typing import NDArray

from vision.cards.grid import Grid
from vision.cards.marks import default_config, read_marks

from .conftest import draw_square_lattice, photographed, square_lattice_grid

CELL = 48
MARGIN = 16
FILL = np.array((180, 218, 240), np.float64)  # BGR cream
PEN = np.array((110, 160, 120), np.float64)  # BGR muted green
PRINTED = np.full((3, 3), "#")
COVERED = (1, 1)
SHADED = (2, 0)


def _face(rng: np.random.Generator, pen_share: float = 0.5, shade: float = 0.85) -> NDArray[np.uint8]:
    """3 x 3 plain cells; the ``COVERED`` cell's inside is ``pen_share`` pen over the paper, the
    ``SHADED`` cell's inside the paper at ``shade`` of its light."""
    size = 2 * MARGIN + 3 * CELL
    img = np.empty((size, size, 3), np.float64)
    img[:] = FILL
    for (r, c), tone in ((COVERED, (1 - pen_share) * FILL + pen_share * PEN), (SHADED, shade * FILL)):
        img[MARGIN + r * CELL:MARGIN + (r + 1) * CELL, MARGIN + c * CELL:MARGIN + (c + 1) * CELL] = tone
    draw_square_lattice(img, 3, CELL, MARGIN)
    return photographed(img, rng)


def _grid() -> Grid:
    return square_lattice_grid(3, CELL, MARGIN, FILL)


def test_a_cell_covered_by_light_pen_is_marked_and_a_shaded_one_not(rng: np.random.Generator) -> None:
    state = read_marks(_face(rng), _grid(), PRINTED).state
    assert state[COVERED] == 1
    assert state[SHADED] == 0
    assert np.count_nonzero(state == 1) == 1


def test_without_the_tint_rule_the_covered_cell_passes_for_shade(rng: np.random.Generator) -> None:
    # the premise: the covered cell is light enough for shade (min_shade), so only its tint tells
    cfg = dataclasses.replace(default_config(), shade_tint=1e9)
    assert read_marks(_face(rng), _grid(), PRINTED, config=cfg).state[COVERED] == 0
