"""The lattices of square cells that keep one axis of a lattice whose cells are not square."""

from __future__ import annotations

import numpy as np

from vision.cards.grid import Grid, default_config, squared_lattices

PPM = 4.0
SHAPE = (352, 252, 3)  # a 63x88 mm face at 4 px/mm


def _grid(xs: list[float], ys: list[float]) -> Grid:
    return Grid(np.array(xs), np.array(ys), np.ones((len(ys) - 1, len(xs) - 1)), np.full(3, 235.0))


def _key(xs: np.ndarray, ys: np.ndarray) -> tuple[tuple[float, ...], tuple[float, ...]]:
    return tuple(np.round(xs)), tuple(np.round(ys))


def test_square_cells_keeping_one_axis() -> None:
    cfg = default_config()
    margin = cfg.extend_margin_mm * PPM
    # columns 40 px apart (the grid's), rows 32 px apart (a blur took the art for rows)
    g = _grid([37.0 + 40.0 * i for i in range(4)], [175.0 + 32.0 * i for i in range(4)])
    found = squared_lattices(SHAPE, g, PPM, cfg)
    assert found
    keys = set()
    for xs, ys in found:
        step = float(np.diff(xs).mean())
        assert np.allclose(np.diff(xs), step) and np.allclose(np.diff(ys), step)  # square cells
        assert step in (40.0, 32.0)
        for lines, size in ((xs, SHAPE[1]), (ys, SHAPE[0])):
            assert cfg.min_lines <= len(lines) <= cfg.max_lines
            assert lines[0] >= margin and lines[-1] <= size - 1 - margin
        # the axis of the same step keeps the found lattice's phase; the other takes the phase
        # of one of its own lines
        kept, other, own = (xs, ys, g.ys) if step == 40.0 else (ys, xs, g.xs)
        was = g.xs if step == 40.0 else g.ys
        assert np.allclose((kept - was[0]) / step, np.round((kept - was[0]) / step))
        # the kept axis ends within a cell of where the lattice found ends
        reach = (1.0 + cfg.spacing_tol) * step
        assert abs(kept[0] - was[0]) <= reach and abs(kept[-1] - was[-1]) <= reach
        assert any(np.allclose((other - a) / step, np.round((other - a) / step)) for a in own)
        keys.add(_key(xs, ys))
    assert len(keys) == len(found)  # distinct
    # the grid of 40 px cells through the found lattice's first row line is there, 3 rows of 4
    assert _key(np.array([37.0, 77.0, 117.0, 157.0, 197.0]),
                np.array([175.0, 215.0, 255.0, 295.0])) in keys


def test_a_square_lattice_gives_its_own_windows() -> None:
    cfg = default_config()
    g = _grid([40.0 + 48.0 * i for i in range(4)], [70.0 + 48.0 * i for i in range(4)])
    found = {_key(xs, ys) for xs, ys in squared_lattices(SHAPE, g, PPM, cfg)}
    assert _key(g.xs, g.ys) in found
    for xs, ys in found:
        assert np.allclose(np.diff(xs), 48.0) and np.allclose(np.diff(ys), 48.0)
