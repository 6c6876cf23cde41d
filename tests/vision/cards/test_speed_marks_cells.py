"""The per-cell measures' shortcuts read exactly what the plain computations read."""

from __future__ import annotations

import numpy as np
import pytest

from vision.cards.marks import _SECTOR_BITS, _spread, _spread_table, _zones, default_config


def test_spread_table_is_spread(rng: np.random.Generator) -> None:
    rows = rng.random((300, 8)) < rng.random((300, 1))
    rows[:3] = [np.zeros(8, bool), np.ones(8, bool), np.eye(8, dtype=bool)[5]]
    codes = rows @ np.array(_SECTOR_BITS)
    np.testing.assert_array_equal(_spread_table()[codes], [_spread(row) for row in rows])


@pytest.mark.parametrize("shape", [(9, 9), (14, 17), (22, 20), (3, 4)])
def test_corner_columns_count_each_corner(rng: np.random.Generator, shape: tuple[int, int]) -> None:
    """The share of the four corners holding ink above ``sector_on``, from the corner columns, is
    the plain mean over each corner's pixels."""
    cfg = default_config()
    z = _zones(shape, cfg)
    ink = rng.random((40, *shape)) < rng.random((40, 1, 1))
    plain = np.stack([ink[:, k].mean(axis=1) > cfg.sector_on for k in z.corners]).mean(axis=0)
    counts = ink.reshape(len(ink), -1).astype(np.float64) @ z.corner_cols
    np.testing.assert_array_equal((counts / z.corner_sizes > cfg.sector_on).mean(axis=1), plain)
    np.testing.assert_array_equal(z.corner_sizes, [k.sum() for k in z.corners])
