"""The line profiles' means, from exact 8-bit sums, are exactly numpy's float32 means of the maps."""

from __future__ import annotations

import numpy as np
import pytest

from vision.cards.grid import _line_means


@pytest.mark.parametrize("shape", [(1, 1), (5, 3), (37, 61), (352, 252), (252, 352)])
def test_line_means_are_numpys_float32_means(shape: tuple[int, int]) -> None:
    rng = np.random.default_rng(sum(shape))
    for m8 in (rng.integers(0, 256, shape, dtype=np.uint8), np.full(shape, 255, np.uint8),
               (rng.integers(0, 256, shape) * (rng.random(shape) < 0.05)).astype(np.uint8)):
        for axis in (0, 1):
            want = m8.astype(np.float32).mean(axis=axis).astype(np.float64)
            got = _line_means(m8, axis)
            assert got.dtype == np.float64 and got.shape == want.shape
            assert got.tobytes() == want.tobytes()
