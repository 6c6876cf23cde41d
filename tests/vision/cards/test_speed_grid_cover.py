"""An 8-bit lattice's coverage, its lines compared in 8 bits with the whole part of the threshold,
is exactly that of comparing them with the threshold itself."""

from __future__ import annotations

import numpy as np

from vision.cards.grid import _lattice_cover, default_config


def test_cover_of_8bit_maps_matches_the_float_threshold() -> None:
    rng = np.random.default_rng(13)
    cfg = default_config()
    h, w = 120, 90
    checked = 0
    for _ in range(80):
        hm = (rng.integers(0, 256, (h, w)) * (rng.random((h, w)) < rng.uniform(0.2, 0.9))).astype(np.uint8)
        vm = (rng.integers(0, 256, (h, w)) * (rng.random((h, w)) < rng.uniform(0.2, 0.9))).astype(np.uint8)
        step = rng.uniform(12.0, 25.0)
        xs = rng.uniform(1.0, w - 3 * step - 2.0) + step * np.arange(4)
        ys = rng.uniform(1.0, h - 4 * step - 2.0) + step * np.arange(5)
        got, on = _lattice_cover(hm, vm, xs, ys, cfg)
        # the plain computation: the same lines compared with the threshold as a float
        ix, iy = xs.round().astype(int), ys.round().astype(int)
        horiz, vert = hm[iy, ix[0]:ix[-1]], vm[iy[0]:iy[-1], ix].T
        both = np.concatenate([horiz.ravel(), vert.ravel()])
        level = float(np.partition(both, (3 * len(both)) // 4)[(3 * len(both)) // 4])
        on_h, on_v = horiz > cfg.line_on * level, vert > cfg.line_on * level
        want = np.concatenate([on_h.sum(axis=1) / on_h.shape[1], on_v.sum(axis=1) / on_v.shape[1]])
        assert got.tobytes() == want.tobytes()
        assert on is not None and np.array_equal(on[0], on_h) and np.array_equal(on[1], on_v)
        checked += bool(cfg.line_on * level != int(cfg.line_on * level))
    assert checked >= 40  # thresholds between two levels
