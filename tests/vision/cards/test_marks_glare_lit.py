"""A glare over one cell of a grey card: its light falls off across the cell. Against one fill
lightness for the cell (or the paper's), the glare's dimmer part looks like ink; the paper's
lightness followed pixel by pixel under the glare (``glare_lift``) leaves the clean cell unmarked
and still shows a faint dot in it."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.cards.grid import Grid
from vision.cards.marks import default_config, read_marks

from .conftest import draw_square_lattice, photographed, square_lattice_grid

CELL = 48
MARGIN = 16
FILL = np.array((170, 170, 170), np.float64)  # BGR grey paper
GLARED = (2, 2)
CROSSED = (0, 0)
PRINTED = np.full((3, 3), "#")


def _face(rng: np.random.Generator, dot: bool) -> NDArray[np.uint8]:
    """3 x 3 plain cells, a dark cross in ``CROSSED`` (the card's contrast), a glare centred near
    the far corner of ``GLARED`` and, when ``dot``, a faint red dot in that cell's dimmer part."""
    size = 2 * MARGIN + 3 * CELL
    img = np.empty((size, size, 3), np.float64)
    img[:] = FILL
    draw_square_lattice(img, 3, CELL, MARGIN)
    a, b = MARGIN + 10, MARGIN + CELL - 10
    cv2.line(img, (a, a), (b, b), (40, 30, 30), 4)
    cv2.line(img, (b, a), (a, b), (40, 30, 30), 4)
    yy, xx = np.mgrid[0:size, 0:size]
    corner = MARGIN + 3 * CELL - 6
    glare = np.exp(-((xx - corner) ** 2 + (yy - corner) ** 2) / (2 * (0.6 * CELL) ** 2))
    img += 0.6 * glare[..., None] * (255.0 - img)
    if dot:
        centre = MARGIN + GLARED[1] * CELL + CELL // 2 - 4
        over = img.copy()
        cv2.circle(over, (centre, centre), 6, (60, 50, 200), -1)
        img = 0.3 * over + 0.7 * img
    return photographed(img, rng)


def _grid() -> Grid:
    return square_lattice_grid(3, CELL, MARGIN, FILL)


def test_a_clean_cell_under_a_glare_is_unmarked(rng: np.random.Generator) -> None:
    state = read_marks(_face(rng, dot=False), _grid(), PRINTED).state
    assert state[CROSSED] == 1
    assert np.count_nonzero(state) == 1


def test_a_faint_dot_under_a_glare_is_a_mark(rng: np.random.Generator) -> None:
    state = read_marks(_face(rng, dot=True), _grid(), PRINTED).state
    assert state[GLARED] == 1
    assert np.count_nonzero(state) == 2


def test_against_one_fill_lightness_the_glare_itself_reads_as_ink(rng: np.random.Generator) -> None:
    # the premise: without following the glare, the clean glared cell is taken for a marked one
    cfg = dataclasses.replace(default_config(), glare_lift=1e9)
    assert read_marks(_face(rng, dot=False), _grid(), PRINTED, config=cfg).state[GLARED] == 1
