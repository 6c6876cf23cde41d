"""linear_percentile and partition_median must give numpy's percentile and median bit for bit on
the data the readers give them."""

from __future__ import annotations

import numpy as np
import pytest

from vision.cards.marks import default_config, linear_percentile, partition_median

# the readers' own percentiles, and ones that put the virtual index on and near whole places
QS = [0, 100, 90, 97.0, 65.0, 50, 33.3, 12.5, 99.9, 0.1, 75, 100.0 * (1.0 - default_config().paper_share),
      default_config().fill_percentile]


def _samples(rng: np.random.Generator, n: int) -> list[np.ndarray]:
    """Whole Lab levels, continuous distances and a few repeated values, all float32."""
    return [rng.integers(0, 256, n).astype(np.float32), rng.normal(0.0, 30.0, n).astype(np.float32),
            rng.choice(np.array([1.0, 2.0, 5.0, 200.0], np.float32), n)]


@pytest.mark.parametrize("n", [1, 2, 3, 7, 10, 41, 100, 101, 257, 1100])
def test_one_axis_is_numpy_percentile(rng: np.random.Generator, n: int) -> None:
    for x in _samples(rng, n):
        for q in QS:
            want = np.percentile(x, q)
            got = linear_percentile(x, q)
            assert got.dtype == want.dtype
            assert np.array_equal(got, want), (n, q)


@pytest.mark.parametrize("n", [1, 2, 9, 64, 300])
def test_along_rows_is_numpy_percentile(rng: np.random.Generator, n: int) -> None:
    """The fill's lightness: the ``fill_percentile`` percentile of each cell's inside, cells stacked
    in rows."""
    rows = rng.integers(0, 256, (5, n)).astype(np.float32)
    for q in (default_config().fill_percentile, 90, 50, 97.0, 0, 100):
        want = np.percentile(rows, q, axis=1)
        got = linear_percentile(rows, q, axis=1)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("n", [1, 2, 3, 8, 41, 100, 257])
def test_median_is_numpy_median(rng: np.random.Generator, n: int) -> None:
    """Flat (the print's lightness), along the first axis of Lab pixels (the paper, float32) and of
    fill colours (float64)."""
    for x in _samples(rng, n):
        want, got = np.median(x), partition_median(x)
        assert got.dtype == want.dtype
        assert np.array_equal(got, want)
    lab = rng.integers(0, 256, (n, 3)).astype(np.float32)
    for x in (rng.normal(0.0, 30.0, (n, 3)).astype(np.float32), lab, rng.normal(0.0, 30.0, (n, 2)),
              rng.random((n, 2)) * 1e-3 + 1e3):
        want, got = np.median(x, axis=0), partition_median(x, axis=0)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
