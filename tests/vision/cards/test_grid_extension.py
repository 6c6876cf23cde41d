"""A lattice that stopped a line short is grown by one row or column only where a cell lies."""

from __future__ import annotations

import numpy as np

from vision.cards.grid import Grid, default_config, extended_grids

from .conftest import blank_face, outline_cell, with_noise

PPM = 4.0
PITCH = 48  # 12 mm cells at 4 px/mm


def _face(rng: np.random.Generator) -> tuple[np.ndarray, list[int], list[int]]:
    """A 63x88 mm face: a 3x3 lattice of outlined cells and, below it, one faint cell in column 0.

    Returns the face (352, 252, 3) uint8 and the true line positions (xs, ys of all four rows)."""
    face = blank_face((40, 140, 220))
    xs = [40 + PITCH * i for i in range(4)]
    ys = [70 + PITCH * i for i in range(5)]
    for r in range(4):
        for c in range(3):
            if r == 3 and c != 0:
                continue
            ink = (120, 120, 120) if r == 3 else (50, 50, 50)
            outline_cell(face, xs[c], ys[r], xs[c + 1], ys[r + 1], ink=ink)
    return with_noise(face, rng), xs, ys


def test_grid_grows_only_towards_a_cell(rng: np.random.Generator) -> None:
    face, xs, ys = _face(rng)
    short = Grid(np.array(xs, float), np.array(ys[:4], float), np.ones((3, 3)),
                 np.array([235.0, 235.0, 235.0]))
    variants = extended_grids(face, short, PPM, default_config())
    # only the row below holds a cell; above the lattice and beside it lies bare card
    assert len(variants) == 1
    grown = variants[0]
    assert grown.shape == (4, 3)
    assert np.allclose(grown.ys, ys, atol=1.0)
    assert grown.presence[3, 0] >= 0.5
    assert grown.presence[3, 1] < 0.5 and grown.presence[3, 2] < 0.5
    assert np.all(grown.presence[:3] >= 0.5)


def test_full_lattice_is_not_grown(rng: np.random.Generator) -> None:
    face = _face(rng)[0]
    cfg = default_config()
    lines = np.array([40.0 + PITCH * i for i in range(cfg.max_lines)])
    full = Grid(lines, lines + 30.0, np.ones((len(lines) - 1, len(lines) - 1)),
                np.array([235.0, 235.0, 235.0]))
    assert extended_grids(face, full, PPM, cfg) == []
