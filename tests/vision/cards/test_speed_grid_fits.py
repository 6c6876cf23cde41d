"""The layouts' outline fits, from each side's strength where expected and the rest where quiet, are
exactly those of the plain masked sums, on and off the face."""

from __future__ import annotations

import numpy as np

from vision.cards.grid import FaceLines, Grid, default_config, layout_fits

from .test_speed_read_layouts import _fits_whole


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
        want = _fits_whole(lines, grid, layouts, default_config())
        assert got.dtype == np.float64 and got.tobytes() == want.tobytes()
        off += bool(xs[0] - step < 0 or ys[0] - step < 0 or xs[-1] + step > w or ys[-1] + step > h)
    assert 20 <= off <= 130  # lattices whose grown sides run off the face and lattices well inside
