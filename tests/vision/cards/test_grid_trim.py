"""A lattice with an outer row or column that holds no cell is tried without it."""

from __future__ import annotations

import numpy as np

from vision.cards.grid import Grid, default_config, trimmed_grids


def _grid(presence: np.ndarray) -> Grid:
    rows, cols = presence.shape
    xs = 40.0 + 48.0 * np.arange(cols + 1)
    ys = 70.0 + 48.0 * np.arange(rows + 1)
    return Grid(xs, ys, presence, np.array([235.0, 235.0, 235.0]))


def test_an_empty_outer_row_is_dropped(rng: np.random.Generator) -> None:
    cfg = default_config()
    presence = rng.uniform(0.8, 1.0, (4, 4))
    presence[0] = rng.uniform(0.0, 0.3, 4)  # a line of the card's art above the printed grid
    variants = trimmed_grids(_grid(presence), cfg)
    assert len(variants) == 1
    (g,) = variants
    assert g.shape == (3, 4)
    np.testing.assert_array_equal(g.ys, 70.0 + 48.0 * np.arange(1, 5))
    np.testing.assert_array_equal(g.presence, presence[1:])


def test_an_empty_outer_column_is_dropped_on_either_side(rng: np.random.Generator) -> None:
    cfg = default_config()
    presence = rng.uniform(0.8, 1.0, (4, 4))
    presence[:, -1] = rng.uniform(0.0, 0.3, 4)
    (g,) = trimmed_grids(_grid(presence), cfg)
    assert g.shape == (4, 3)
    np.testing.assert_array_equal(g.xs, 40.0 + 48.0 * np.arange(4))


def test_outer_lines_holding_a_cell_are_kept(rng: np.random.Generator) -> None:
    cfg = default_config()
    presence = rng.uniform(0.0, 0.3, (4, 4))
    # one cell in each outer row and column is enough: catalog grids are cropped to their cells
    presence[0, 1] = presence[3, 2] = presence[2, 0] = presence[1, 3] = 0.9
    assert trimmed_grids(_grid(presence), cfg) == []


def test_a_lattice_is_never_trimmed_below_the_smallest_grid(rng: np.random.Generator) -> None:
    cfg = default_config()
    presence = rng.uniform(0.8, 1.0, (3, 3))
    presence[0] = 0.1
    presence[:, 0] = 0.1
    assert cfg.min_lines == 4
    assert trimmed_grids(_grid(presence), cfg) == []
