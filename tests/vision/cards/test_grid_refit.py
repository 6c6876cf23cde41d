"""A lattice with a wrong origin or spacing is refit to the outlines of a proposed card's known cells."""

from __future__ import annotations

import cv2
import numpy as np

from vision.cards.grid import Grid, default_config, refit_grid

from .conftest import blank_face, outline_cell, with_noise

PPM = 4.0
PITCH_X, PITCH_Y = 48, 52  # the printed cells need not come out square on the face


def _face(rng: np.random.Generator, cells: np.ndarray) -> tuple[np.ndarray, list[int], list[int]]:
    """A 63x88 mm face with outlined cells where ``cells`` (3, 3) bool is true, water elsewhere.

    Returns the face (352, 252, 3) uint8 and the true line positions xs, ys."""
    face = blank_face((40, 140, 220))
    xs = [50 + PITCH_X * i for i in range(4)]
    ys = [80 + PITCH_Y * i for i in range(4)]
    for r in range(3):
        for c in range(3):
            if cells[r, c]:
                outline_cell(face, xs[c], ys[r], xs[c + 1], ys[r + 1])
    # heavy hatching over one cell hides much of its outline
    for k in range(-60, 60, 5):
        cv2.line(face, (xs[1] + k, ys[1]), (xs[1] + k + 48, ys[2]), (200, 60, 30), 2)
    return with_noise(face, rng), xs, ys


def test_refit_recovers_origin_and_spacing(rng: np.random.Generator) -> None:
    cells = np.array([[1, 1, 0], [1, 1, 1], [0, 1, 1]], bool)
    face, xs, ys = _face(rng, cells)
    # a lattice off by a third of a cell, with square cells of the wrong size
    guess = Grid(66.0 + 50.0 * np.arange(4), 65.0 + 50.0 * np.arange(4), np.ones((3, 3)),
                 np.array([235.0, 235.0, 235.0]))
    fit = refit_grid(face, guess, cells, PPM, default_config())
    assert fit is not None
    assert np.allclose(fit.xs, xs, atol=2.5)
    assert np.allclose(fit.ys, ys, atol=2.5)
    assert np.all(fit.presence[cells] >= 0.5)
    assert np.all(fit.presence[~cells] < 0.5)


def test_refit_refuses_another_shape(rng: np.random.Generator) -> None:
    cells = np.ones((3, 3), bool)
    face = _face(rng, cells)[0]
    guess = Grid(50.0 + 48 * np.arange(5), 80.0 + 52 * np.arange(4), np.ones((3, 4)),
                 np.array([235.0, 235.0, 235.0]))
    assert refit_grid(face, guess, cells, PPM, default_config()) is None
