"""The equally spaced runs of peaks, each peak's place on the lattice worked out on Python numbers,
are exactly those of the plain array computation."""

from __future__ import annotations

import bisect

import numpy as np
from numpy.typing import NDArray

from vision.cards.grid import GridConfig, _runs, default_config

_Run = tuple[int, float, float, NDArray[np.float64]]


def _plain(pos: NDArray[np.float64], height: NDArray[np.float64], lo: float, hi: float,
           cfg: GridConfig) -> list[_Run]:
    """The runs, each fitted on an array of the peaks' places and a column-stacked design matrix."""
    out: list[_Run] = []
    seen: set[tuple[int, ...]] = set()
    n = len(pos)
    at = [float(v) for v in pos]

    def nearest(target: float) -> tuple[int, float]:
        k = bisect.bisect_left(at, target)
        if k == n:
            return n - 1, abs(at[n - 1] - target)
        if k == 0:
            return 0, abs(at[0] - target)
        below, above = abs(at[k - 1] - target), abs(at[k] - target)
        return (k - 1, below) if below <= above else (k, above)

    for i in range(n):
        for j in range(i + 1, n):
            d = at[j] - at[i]
            if d < lo or d > hi:
                continue
            members = [i]
            for direction in (1, -1):
                k = 1
                while True:
                    m, dist = nearest(at[i] + direction * k * d)
                    if dist > cfg.spacing_tol * d:
                        break
                    members.append(m)
                    k += 1
            key = tuple(sorted(set(members)))
            if key in seen or len(key) < cfg.min_lines - 1:
                continue
            seen.add(key)
            sel = np.array(key)
            order = np.round((pos[sel] - pos[sel].min()) / d).astype(int)
            a = np.vstack([np.ones_like(order), order]).T.astype(float)
            (x0, step), *_ = np.linalg.lstsq(a, pos[sel], rcond=None)
            full = x0 + step * np.arange(-1, order.max() + 2)
            out.append((len(full), float(height[sel].sum()), float(step), full))
    return out


def test_runs_match_the_array_computation() -> None:
    rng = np.random.default_rng(11)
    cfg = default_config()
    found = 0
    for i in range(150):
        n = int(rng.integers(2, 14))
        if i % 2:  # a jittered lattice among stray peaks
            step = rng.uniform(30.0, 60.0)
            lattice = rng.uniform(0.0, 5.0) + step * np.arange(n // 2 + 2) + rng.normal(0.0, 1.5, n // 2 + 2)
            pos = np.sort(np.concatenate([lattice, rng.uniform(0.0, 300.0, n // 2)]))
            pos = pos[np.concatenate([[True], np.diff(pos) > 1.0])]
        else:
            pos = np.cumsum(rng.uniform(2.0, 40.0, n))
        height = rng.uniform(0.0, 10.0, len(pos))
        got = _runs(pos, height, 30.0, 68.0, cfg)
        want = _plain(pos, height, 30.0, 68.0, cfg)
        assert len(got) == len(want)
        for g, e in zip(got, want, strict=True):
            assert g[:3] == e[:3] and g[3].tobytes() == e[3].tobytes()
        found += len(want)
    assert found >= 100
