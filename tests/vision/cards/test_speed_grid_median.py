"""The median of a lattice's side strengths, from one partition, is exactly numpy's median, and the
cells' relative sides are those made with it."""

from __future__ import annotations

import numpy as np

from vision.cards.grid import _median, _relative_sides


def test_median_is_numpys() -> None:
    rng = np.random.default_rng(9)
    for n in range(1, 40):
        for values in (rng.uniform(0.0, 100.0, n), rng.integers(0, 4, n).astype(np.float64),
                       np.round(rng.normal(50.0, 30.0, n), 1), np.zeros(n)):
            assert _median(values) == float(np.median(values))
            assert np.float64(_median(values)).tobytes() == np.float64(np.median(values)).tobytes()


def test_relative_sides_match_numpys_median() -> None:
    rng = np.random.default_rng(10)
    for rows, cols in ((1, 1), (2, 3), (3, 3), (4, 4), (5, 3)):
        horiz = rng.uniform(0.0, 60.0, (rows + 1, cols)) * (rng.random((rows + 1, cols)) < 0.8)
        vert = rng.uniform(0.0, 60.0, (rows, cols + 1)) * (rng.random((rows, cols + 1)) < 0.8)
        top, bottom, left, right = horiz[:-1], horiz[1:], vert[:, :-1], vert[:, 1:]
        lh = float(np.median(np.concatenate([top.ravel(), bottom.ravel()]))) or 1.0
        lv = float(np.median(np.concatenate([left.ravel(), right.ravel()]))) or 1.0
        want = np.stack([top / lh, bottom / lh, left / lv, right / lv], axis=2)
        got = _relative_sides(horiz, vert)
        assert got.shape == want.shape and got.tobytes() == want.tobytes()
