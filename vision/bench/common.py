"""Helpers shared by the benchmarks: seeded generators, rates, timing statistics, text tables.

Nothing here knows about a particular reader, so the card, board and live benchmarks all use it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "TimingStats",
    "bench_rng",
    "fmt_ms",
    "fmt_rate",
    "format_table",
    "parse_size",
    "rate",
    "single_thread",
    "stage_stats",
    "timed",
    "timing_stats",
]


def bench_rng(seed: int, *keys: int) -> np.random.Generator:
    """A generator for one benchmark item, independent of how many items run before it.

    ``bench_rng(seed, tier_index, i)`` gives scene ``i`` of a tier the same content whatever
    ``--n`` is.
    """
    return np.random.default_rng([int(seed), *(int(k) for k in keys)])


def parse_size(text: str) -> tuple[int, int]:
    """``"1920x1080"`` -> ``(1920, 1080)``.

    Raises
    ------
    ValueError
        When the text is not ``WIDTHxHEIGHT`` with both sides between 16 and 10000.
    """
    parts = text.lower().replace("*", "x").split("x")
    try:
        w, h = (int(p) for p in parts)
    except ValueError:
        raise ValueError(f"size {text!r} is not WIDTHxHEIGHT, e.g. 1920x1080") from None
    if not (16 <= w <= 10000 and 16 <= h <= 10000):
        raise ValueError(f"size {text!r}: each side must be between 16 and 10000 pixels")
    return w, h


def rate(part: float, whole: float) -> float | None:
    """``part / whole``, or ``None`` when there is nothing to count."""
    return None if whole <= 0 else float(part) / float(whole)


@dataclass(frozen=True)
class TimingStats:
    """Milliseconds over ``n`` runs."""

    n: int
    median: float
    p95: float
    mean: float
    max: float

    def to_json(self) -> dict[str, Any]:
        return {"n": self.n, "median": round(self.median, 2), "p95": round(self.p95, 2),
                "mean": round(self.mean, 2), "max": round(self.max, 2)}


def timing_stats(values_ms: Sequence[float]) -> TimingStats | None:
    """Median, 95th percentile (linear interpolation), mean and max; ``None`` for no values."""
    if len(values_ms) == 0:
        return None
    a = np.asarray(values_ms, np.float64)
    median, p95 = float(np.median(a)), float(np.percentile(a, 95))
    return TimingStats(len(a), median, p95, float(a.mean()), float(a.max()))


def stage_stats(samples: Sequence[Mapping[str, float]]) -> dict[str, TimingStats]:
    """Per-stage :class:`TimingStats` from one ``{stage: ms}`` mapping per run.

    A stage missing from a run is left out of that stage's statistics.
    """
    names: list[str] = []
    for s in samples:
        names.extend(k for k in s if k not in names)
    out: dict[str, TimingStats] = {}
    for name in names:
        st = timing_stats([s[name] for s in samples if name in s])
        if st is not None:
            out[name] = st
    return out


@contextmanager
def timed(into: dict[str, float], name: str) -> Iterator[None]:
    """Add the wall time of the ``with`` block, in milliseconds, to ``into[name]``."""
    t0 = time.perf_counter()
    try:
        yield
    finally:
        into[name] = into.get(name, 0.0) + (time.perf_counter() - t0) * 1000.0


@contextmanager
def single_thread() -> Iterator[None]:
    """Run OpenCV on one thread inside the block (``cv2.setNumThreads(1)``), then restore."""
    import cv2

    before = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        yield
    finally:
        cv2.setNumThreads(before)


def fmt_rate(value: float | None, digits: int = 1) -> str:
    """A rate as a percentage, ``-`` for nothing counted."""
    return "-" if value is None else f"{100.0 * value:.{digits}f}%"


def fmt_ms(stats: TimingStats | None) -> str:
    """``median/p95`` milliseconds, ``-`` when absent."""
    return "-" if stats is None else f"{stats.median:.0f}/{stats.p95:.0f}"


def format_table(headers: Sequence[str], rows: Sequence[Sequence[Any]],
                 align: str | None = None, fmt: Callable[[Any], str] = str) -> str:
    """A plain-text table with a header rule; ``align`` holds one ``l`` or ``r`` per column
    (text left, everything else right by default)."""
    cells = [[fmt(v) for v in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in cells:
        if len(row) != len(headers):
            raise ValueError("every row needs one value per header")
        widths = [max(w, len(v)) for w, v in zip(widths, row, strict=True)]
    if align is None:
        align = "".join("l" if i == 0 else "r" for i in range(len(headers)))

    def line(values: Sequence[str]) -> str:
        cols = zip(values, widths, align, strict=True)
        parts = [v.ljust(w) if a == "l" else v.rjust(w) for v, w, a in cols]
        return "  ".join(parts).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(headers), rule, *(line(r) for r in cells)])
