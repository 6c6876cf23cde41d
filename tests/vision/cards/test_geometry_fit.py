"""The outline fit judges a lattice with a known cell layout by the outlines around it."""

from __future__ import annotations

import numpy as np

from vision.cards.grid import Grid, default_config, face_lines, layout_fits, outline_fit

from .conftest import blank_face, outline_cell, with_noise

PPM = 4.0
PITCH = 48
X0, Y0 = 30, 90


def _face(rng: np.random.Generator, cells: np.ndarray) -> np.ndarray:
    """A 63x88 mm face (352, 252, 3) uint8 with outlined cells where ``cells`` is true."""
    face = blank_face((60, 150, 210))
    for r, c in zip(*np.nonzero(cells), strict=True):
        x, y = X0 + PITCH * int(c), Y0 + PITCH * int(r)
        outline_cell(face, x, y, x + PITCH, y + PITCH, fill=(225, 235, 235))
    return with_noise(face, rng)


def _grid(rows: int, cols: int, r0: int = 0, c0: int = 0) -> Grid:
    xs = X0 + PITCH * (c0 + np.arange(cols + 1, dtype=float))
    ys = Y0 + PITCH * (r0 + np.arange(rows + 1, dtype=float))
    return Grid(xs, ys, np.ones((rows, cols)), np.array([235.0, 235.0, 235.0]))


def test_true_lattice_and_layout_fit_best(rng: np.random.Generator) -> None:
    cells = np.array([[1, 1, 1, 0], [0, 1, 1, 1], [1, 1, 0, 1]], bool)
    maps = face_lines(_face(rng, cells), PPM, default_config())
    true = outline_fit(maps, _grid(3, 4), cells)
    assert true > 0.8
    # a lattice one column short: no 3x3 layout explains the outlines of the lost column
    every_3x3 = np.array([[(k >> i) & 1 for i in range(9)] for k in range(1, 512)], bool).reshape(-1, 3, 3)
    short = layout_fits(maps, _grid(3, 3), every_3x3)
    assert short.shape == (511,)
    assert true > float(short.max()) + default_config().fit_gain
    # one row too many expects outlines where there are none: it never wins over the true lattice
    grown = np.vstack([cells, [[1, 0, 0, 0]]])
    assert outline_fit(maps, _grid(4, 4), grown) < true + default_config().fit_gain
    assert outline_fit(maps, _grid(4, 4), grown) < true
    # a water position taken for a cell is worse than the true layout
    wrong = cells.copy()
    wrong[0, 3] = True
    assert true > outline_fit(maps, _grid(3, 4), wrong)


def test_fit_refuses_another_shape(rng: np.random.Generator) -> None:
    cells = np.ones((3, 3), bool)
    maps = face_lines(_face(rng, cells), PPM, default_config())
    assert outline_fit(maps, _grid(3, 4), cells) == -1.0
    assert layout_fits(maps, _grid(3, 3), np.zeros((0, 3, 3), bool)).shape == (0,)


def test_blank_face_has_no_fit(rng: np.random.Generator) -> None:
    maps = face_lines(_face(rng, np.zeros((3, 3), bool)), PPM, default_config())
    assert outline_fit(maps, _grid(3, 3), np.ones((3, 3), bool)) < 0.5
