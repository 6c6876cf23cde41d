"""The layouts' outline fits, from each side's strength where expected and the rest where quiet, are
exactly those of the plain masked sums, on and off the face."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from vision.cards.grid import FaceLines, Grid, _side_strengths, default_config, layout_edges, layout_fits


def _plain(lines: FaceLines, grid: Grid, layouts: NDArray[np.bool_]) -> NDArray[np.float64]:
    """The fit of each layout with every mask and product spelled out."""
    sx = float(grid.xs[-1] - grid.xs[0]) / (len(grid.xs) - 1)
    sy = float(grid.ys[-1] - grid.ys[0]) / (len(grid.ys) - 1)
    xs = np.concatenate([[grid.xs[0] - sx], grid.xs, [grid.xs[-1] + sx]])
    ys = np.concatenate([[grid.ys[0] - sy], grid.ys, [grid.ys[-1] + sy]])
    horiz, vert, ok_h, ok_v = _side_strengths(lines.hsum, lines.vsum, xs, ys, default_config().side_trim)
    near_h, near_v = layout_edges(layouts)
    expect_h, expect_v = near_h & ok_h[None], near_v & ok_v[None]
    quiet_h, quiet_v = ~near_h & ok_h[None], ~near_v & ok_v[None]
    n_on = expect_h.sum(axis=(1, 2)) + expect_v.sum(axis=(1, 2))
    n_off = quiet_h.sum(axis=(1, 2)) + quiet_v.sum(axis=(1, 2))
    s_on = (expect_h * horiz[None]).sum(axis=(1, 2)) + (expect_v * vert[None]).sum(axis=(1, 2))
    s_off = (quiet_h * horiz[None]).sum(axis=(1, 2)) + (quiet_v * vert[None]).sum(axis=(1, 2))
    m_on = s_on / np.maximum(n_on, 1)
    m_off = np.where(n_off > 0, s_off / np.maximum(n_off, 1), 0.0)
    total = m_on + m_off
    fit = np.where(total > 0, (m_on - m_off) / np.where(total > 0, total, 1.0), -1.0)
    return np.where(n_on > 0, fit, -1.0)


def test_layout_fits_match_the_masked_sums() -> None:
    rng = np.random.default_rng(5)
    h, w = 120, 100
    hmap = rng.integers(0, 256, (h, w)) * (rng.random((h, w)) < 0.3)
    vmap = rng.integers(0, 256, (h, w)) * (rng.random((h, w)) < 0.3)
    hsum = np.concatenate([np.zeros((h, 1)), np.cumsum(hmap, axis=1)], axis=1).astype(np.float64)
    vsum = np.concatenate([np.zeros((1, w)), np.cumsum(vmap, axis=0)], axis=0).astype(np.float64)
    empty = np.zeros((h, w), np.float32)
    lines = FaceLines(empty, empty, hsum, vsum, np.zeros((h, w, 3), np.uint8), 6.0)
    off = 0
    for _ in range(150):
        rows, cols = (int(v) for v in rng.integers(2, 5, 2))
        step = rng.uniform(5.0, 12.0)
        xs = rng.uniform(-10.0, w - cols * step + 10.0) + step * np.arange(cols + 1)
        ys = rng.uniform(-10.0, h - rows * step + 10.0) + step * np.arange(rows + 1)
        grid = Grid(xs, ys, np.zeros((rows, cols)), np.zeros(3))
        layouts = rng.random((int(rng.integers(1, 12)), rows, cols)) < 0.7
        layouts[0] = False  # an empty layout fits nothing
        got = layout_fits(lines, grid, layouts)
        assert got.dtype == np.float64 and got.tobytes() == _plain(lines, grid, layouts).tobytes()
        off += bool(xs[0] - step < 0 or ys[0] - step < 0 or xs[-1] + step > w or ys[-1] + step > h)
    assert 20 <= off <= 130  # lattices whose grown sides run off the face and lattices well inside
