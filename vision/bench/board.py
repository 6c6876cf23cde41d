"""Accuracy and speed of the board reader on seeded generated scenes.

Per tier: the per-spot error (a wrong letter on a visible spot, a guess on a covered spot, or
"unknown" on a visible spot), the confusion matrix (with the white/pearl and gold/empty cells
called out), whole-board exact reads, and milliseconds per image (median, p95) on one core.
Nothing here asserts a time; the numbers are for the README.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision.bench.common import bench_rng, single_thread, timing_stats
from vision.board import read
from vision.profile import ProfileLike
from vision.synth.board import BoardScene, BoardStyle, render_board_scene
from vision.synth.camera import Conditions, sample_conditions

LABELS = "WUGRKPY.?"
TIERS: tuple[str, ...] = ("easy", "typical", "hard")


@dataclass(frozen=True)
class BoardBenchRow:
    """One tier's results.

    ``confusion[i][j]`` counts spots of true label ``LABELS[i]`` read as ``LABELS[j]`` (true
    ``?`` = covered by a hand). ``errors`` counts spot errors over ``spots`` scored spots;
    ``abstained`` counts visible spots read as unknown (part of ``errors``); ``missed`` counts
    scenes where no board was found (their 25 spots count as errors).
    """

    tier: str
    label: str
    scenes: int
    spots: int
    errors: int
    abstained: int
    exact: int
    missed: int
    confusion: tuple[tuple[int, ...], ...]
    ms: tuple[float, ...] = field(repr=False)

    @property
    def spot_error(self) -> float:
        return self.errors / self.spots if self.spots else 0.0

    @property
    def exact_rate(self) -> float:
        return self.exact / self.scenes if self.scenes else 0.0

    def pair(self, a: str, b: str) -> int:
        """Spots of true ``a`` read as ``b`` plus true ``b`` read as ``a``."""
        i, j = LABELS.index(a), LABELS.index(b)
        return self.confusion[i][j] + self.confusion[j][i]

    def to_json(self) -> dict[str, Any]:
        ms = timing_stats(self.ms)
        return {
            "tier": self.tier,
            "label": self.label,
            "scenes": self.scenes,
            "spots": self.spots,
            "spot_error": round(self.spot_error, 5),
            "errors": self.errors,
            "abstained": self.abstained,
            "exact": round(self.exact_rate, 4),
            "missed": self.missed,
            "W/P": self.pair("W", "P"),
            "Y/.": self.pair("Y", "."),
            "ms_median": None if ms is None else round(ms.median, 1),
            "ms_p95": None if ms is None else round(ms.p95, 1),
            "labels": LABELS,
            "confusion": [list(r) for r in self.confusion],
        }


def score_reading(truth: BoardScene, cells: Sequence[str] | None) -> tuple[int, int, list[tuple[str, str]]]:
    """Compare a reading with a scene's truth.

    Returns
    -------
    errors, abstained, pairs
        ``pairs`` lists (true, read) labels of the scored spots; spots only partly covered by the
        hand are not scored when read correctly or as unknown.
    """
    errors = abstained = 0
    pairs: list[tuple[str, str]] = []
    partly = set(truth.partly_occluded)
    for r in range(5):
        for c in range(5):
            t = truth.cells[r][c]
            got = "?" if cells is None else cells[r][c]
            if (r, c) in partly and got in (t, "?"):
                continue
            pairs.append((t, got))
            if got != t:
                errors += 1
                if got == "?":
                    abstained += 1
    return errors, abstained, pairs


def scene_conditions(rng: np.random.Generator, tier: str, size: tuple[int, int],
                     cast: tuple[float, float, float] | None) -> Conditions:
    """Sampled conditions of ``tier``, with the light's cast replaced by ``cast`` when given."""
    cond = sample_conditions(rng, tier, size)
    return cond if cast is None else dataclasses.replace(cond, cast=tuple(float(v) for v in cast))


def run_tier(
    tier: str,
    n: int,
    seed: int,
    size: tuple[int, int] = (1920, 1080),
    cast: tuple[float, float, float] | None = None,
    profiles: Sequence[tuple[str, ProfileLike | None]] = (("default", None),),
    progress: Callable[[int], None] | None = None,
    style: BoardStyle | str | None = None,
) -> list[BoardBenchRow]:
    """Render ``n`` scenes of ``tier`` and read each with every profile.

    Parameters
    ----------
    tier : {"easy", "typical", "hard"}
    n : number of scenes
    seed : scene ``i`` is drawn from ``bench_rng(seed, tier index, i)``
    size : (width, height)
    cast : BGR gains of the light for every scene, or None for the tier's own casts
    profiles : (label, profile) pairs; one row per pair, on the same scenes
    progress : called with the number of scenes done
    style : the board of every scene (a table has one board: pass the board a profile's tokens
        were enrolled on), or None for a random board per scene

    Returns
    -------
    list of BoardBenchRow, one per profile
    """
    k = len(LABELS)
    conf = [np.zeros((k, k), np.int64) for _ in profiles]
    errors = [0] * len(profiles)
    abst = [0] * len(profiles)
    exact = [0] * len(profiles)
    missed = [0] * len(profiles)
    spots = [0] * len(profiles)
    times: list[list[float]] = [[] for _ in profiles]
    tier_index = TIERS.index(tier) if tier in TIERS else len(TIERS)
    for i in range(n):
        rng = bench_rng(seed, tier_index, i)
        cond = scene_conditions(rng, tier, size, cast)
        scene = render_board_scene(rng, tier, size, style=style, conditions=cond)
        for j, (_, profile) in enumerate(profiles):
            image: NDArray[np.uint8] = scene.image
            with single_thread():
                t0 = time.perf_counter()
                if profile is not None:
                    image = profile.prepare(image)
                reading = read(image, profile=profile)
                times[j].append((time.perf_counter() - t0) * 1000.0)
            cells = None if reading is None else reading.cells
            e, a, pairs = score_reading(scene, cells)
            errors[j] += e
            abst[j] += a
            exact[j] += int(e == 0)
            missed[j] += int(reading is None)
            spots[j] += len(pairs)
            for t, g in pairs:
                conf[j][LABELS.index(t), LABELS.index(g)] += 1
        if progress is not None:
            progress(i + 1)
    return [
        BoardBenchRow(tier, label, n, spots[j], errors[j], abst[j], exact[j], missed[j],
                      tuple(tuple(int(v) for v in row) for row in conf[j]), tuple(times[j]))
        for j, (label, _) in enumerate(profiles)
    ]


def format_rows(rows: Sequence[BoardBenchRow]) -> str:
    """A plain-text table of the rows, then each row's confusion matrix."""
    head = (f"{'tier':<8} {'profile':<10} {'scenes':>6} {'spot err':>9} {'unknown':>8} {'W/P':>4} {'Y/.':>4} "
            f"{'exact':>7} {'missed':>6} {'ms med':>7} {'ms p95':>7}")
    lines = [head, "-" * len(head)]
    for r in rows:
        ms = np.asarray(r.ms) if r.ms else np.zeros(1)
        lines.append(
            f"{r.tier:<8} {r.label:<10} {r.scenes:>6} {100 * r.spot_error:>8.2f}% {r.abstained:>8} "
            f"{r.pair('W', 'P'):>4} {r.pair('Y', '.'):>4} {100 * r.exact_rate:>6.1f}% {r.missed:>6} "
            f"{np.median(ms):>7.1f} {np.percentile(ms, 95):>7.1f}")
    for r in rows:
        lines.append("")
        lines.append(f"confusion, {r.tier} / {r.label} (rows: truth, columns: read; ? = covered / unknown)")
        lines.append("     " + " ".join(f"{c:>5}" for c in LABELS))
        for lab, row in zip(LABELS, r.confusion, strict=True):
            lines.append(f"{lab:>4} " + " ".join(f"{v:>5}" for v in row))
    return "\n".join(lines)
