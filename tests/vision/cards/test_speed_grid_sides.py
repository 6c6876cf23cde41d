"""The sides' outline strengths of a lattice, worked out on Python numbers, are exactly those of the
plain array computation, on and off the face and on rounding ties."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from vision.cards.grid import _side_strengths

_Sides = tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_]]


def _plain(hsum: NDArray[np.float64], vsum: NDArray[np.float64], xs: NDArray[np.float64],
           ys: NDArray[np.float64], trim: float) -> _Sides:
    """Each side's mean running-sum difference over its trimmed span, in array arithmetic."""
    h, w = hsum.shape[0], vsum.shape[1]
    out = []
    for lines, spans, sums, size, across in ((ys, xs, hsum, w, h), (xs, ys, vsum.T, h, w)):
        f = np.round(lines).astype(int)
        lo = np.clip(np.round(spans[:-1] + trim * np.diff(spans)).astype(int), 0, size)
        hi = np.clip(np.round(spans[1:] - trim * np.diff(spans)).astype(int), 0, size)
        ok = ((f >= 0) & (f < across))[:, None] & (hi > lo)[None, :]
        fr = np.clip(f, 0, across - 1)
        total = sums[fr[:, None], hi[None, :]] - sums[fr[:, None], lo[None, :]]
        out.append((np.where(ok, total / np.maximum(hi - lo, 1)[None, :], 0.0), ok))
    (horiz, ok_h), (vert, ok_v) = out
    return horiz, vert.T, ok_h, ok_v.T


def test_side_strengths_match_the_array_computation() -> None:
    rng = np.random.default_rng(3)
    h, w = 60, 45
    hmap = rng.integers(0, 256, (h, w)).astype(np.float64)
    vmap = rng.integers(0, 256, (h, w)).astype(np.float64)
    hsum = np.concatenate([np.zeros((h, 1)), np.cumsum(hmap, axis=1)], axis=1)  # (h, w + 1)
    vsum = np.concatenate([np.zeros((1, w)), np.cumsum(vmap, axis=0)], axis=0)  # (h + 1, w)
    off = 0
    for i in range(400):
        xs = np.sort(rng.uniform(-2.0, w + 1.0, int(rng.integers(2, 7))))
        ys = np.sort(rng.uniform(-2.0, h + 1.0, int(rng.integers(2, 7))))
        if i % 3 == 0:  # on half pixels: every rounding is a tie
            xs, ys = np.round(2 * xs) / 2, np.round(2 * ys) / 2
        if i % 5 == 0:  # falling lines: empty spans
            xs = xs[::-1].copy()
        got = _side_strengths(hsum, vsum, xs, ys, 0.2)
        want = _plain(hsum, vsum, xs, ys, 0.2)
        for g, e in zip(got, want, strict=True):
            assert g.dtype == e.dtype and g.shape == e.shape
            assert g.tobytes() == e.tobytes()
        off += not (want[2].all() and want[3].all())
    assert 50 <= off <= 350  # both the lattices on the face and those partly off it are checked
