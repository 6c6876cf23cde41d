"""Live benchmark: a generated demo-game video played through :class:`~vision.track.LiveReader` and
:class:`~vision.track.Tracker`.

It reports frames per second over decoding plus processing on one core (OpenCV's worker threads
off), the mean milliseconds per frame of each stage, the time of one full reading, and the event
latency: for every visible change of the scripted table, the time from the change to the
tracker's matching event. Events that match no change are counted as spurious.
"""

from __future__ import annotations

import functools
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision.bench.common import TimingStats, single_thread, timing_stats
from vision.sources import VideoFileSource
from vision.synth.demo import DemoTable, TruthChange
from vision.track import LiveReader, Tracker, TrackEvent
from vision.types import SceneReading

__all__ = ["READERS", "LiveBenchResult", "match_events", "run_live_bench"]

READERS: tuple[str, ...] = ("full", "truth")
# tracker events that follow from another event and have no change of their own in the truth
_DERIVED = frozenset({"card_completed", "card_identified"})
_PER_KEY = frozenset({"cells_marked", "card_appeared", "card_removed"})


@dataclass(frozen=True)
class Match:
    """A truth change and the event that reported it (``None`` when missed)."""

    change: TruthChange
    event: TrackEvent | None

    @property
    def latency(self) -> float | None:
        return None if self.event is None else self.event.t - self.change.t


@dataclass(frozen=True)
class LiveBenchResult:
    """The numbers of one run; ``stage_ms`` are mean milliseconds per frame, ``reading_ms`` the
    statistics of one full reading."""

    seed: int
    seconds: float
    size: tuple[int, int]
    video_fps: float
    reader: str
    every_k: int
    frames: int
    analysed: int
    wall_s: float
    stage_ms: dict[str, float]
    matches: tuple[Match, ...]
    spurious: tuple[TrackEvent, ...]
    reading_ms: TimingStats | None = None
    events: tuple[TrackEvent, ...] = field(repr=False, default=())

    @property
    def fps(self) -> float:
        return self.frames / self.wall_s if self.wall_s > 0 else float("inf")

    def latencies(self, kind: str | None = None) -> list[float]:
        return [m.latency for m in self.matches
                if m.latency is not None and (kind is None or m.change.kind == kind)]

    @property
    def missed(self) -> int:
        return sum(m.event is None for m in self.matches)

    def latency_table(self) -> dict[str, dict[str, Any]]:
        """Per change kind: changes, detected, mean / 90th percentile / max latency (seconds)."""
        out: dict[str, dict[str, Any]] = {}
        for kind in sorted({m.change.kind for m in self.matches}):
            lat = self.latencies(kind)
            out[kind] = {
                "changes": sum(m.change.kind == kind for m in self.matches),
                "detected": len(lat),
                "mean_s": round(float(np.mean(lat)), 3) if lat else None,
                "p90_s": round(float(np.percentile(lat, 90)), 3) if lat else None,
                "max_s": round(float(np.max(lat)), 3) if lat else None,
            }
        return out

    def to_json(self) -> dict[str, Any]:
        lat = self.latencies()
        return {
            "seed": self.seed,
            "seconds": self.seconds,
            "size": list(self.size),
            "video_fps": self.video_fps,
            "reader": self.reader,
            "every_k": self.every_k,
            "frames": self.frames,
            "analysed_frames": self.analysed,
            "fps": round(self.fps, 1),
            "stage_ms": {k: round(v, 3) for k, v in sorted(self.stage_ms.items())},
            "full_reading_ms": self.reading_ms.to_json() if self.reading_ms is not None else None,
            "changes": len(self.matches),
            "detected": len(lat),
            "missed": self.missed,
            "spurious": len(self.spurious),
            "latency_s": {
                "mean": round(float(np.mean(lat)), 3) if lat else None,
                "p90": round(float(np.percentile(lat, 90)), 3) if lat else None,
                "max": round(float(np.max(lat)), 3) if lat else None,
            },
            "latency_by_kind": self.latency_table(),
            "spurious_events": [e.message for e in self.spurious],
        }


def _key(event: TrackEvent) -> str:
    if event.kind in _PER_KEY:
        return str(event.data.get("id") or event.data.get("card"))
    return "expedition" if event.kind == "expedition_changed" else "board"


def match_events(changes: list[TruthChange], events: list[TrackEvent], window_s: float = 6.0,
                 same: Callable[[TrackEvent, TruthChange], bool] | None = None,
                 ) -> tuple[tuple[Match, ...], tuple[TrackEvent, ...]]:
    """Pair each truth change with the first later event of the same kind and key.

    An event may answer one change only; it must come within ``window_s`` seconds. ``same``
    decides whether an event's card is the change's card (default: the same id). Events of
    derived kinds (``card_completed``, ``card_identified``) are ignored; the other unpaired
    events are returned as spurious.
    """
    same = same or (lambda e, c: _key(e) == c.key)
    pool = [e for e in events if e.kind not in _DERIVED]
    used: set[int] = set()
    matches = []
    for change in sorted(changes, key=lambda c: c.t):
        found = None
        for i, e in enumerate(pool):
            if i in used or e.kind != change.kind or not same(e, change):
                continue
            if change.t - 1e-6 <= e.t <= change.t + window_s:
                found = i
                break
        if found is not None:
            used.add(found)
        matches.append(Match(change, pool[found] if found is not None else None))
    spurious = tuple(e for i, e in enumerate(pool) if i not in used)
    return tuple(matches), spurious


def _same_card(demo: DemoTable, event: TrackEvent, change: TruthChange) -> bool:
    """Same id, or (for a card the reader did not identify) the event's card lies where the
    change's card lay."""
    if _key(event) == change.key:
        return True
    centre = event.data.get("centre")
    if event.kind not in _PER_KEY or event.data.get("id") is not None or not centre:
        return False
    before = demo.truth_at(max(0.0, change.t - 1e-3)) if change.kind == "card_removed" else \
        demo.truth_at(change.t)
    quad = before.card_quads.get(change.key)
    if quad is None:
        return False
    q = np.asarray(quad, np.float64)
    radius = 0.5 * float(np.linalg.norm(q[2] - q[0]))
    return float(np.linalg.norm(q.mean(axis=0) - np.asarray(centre, np.float64))) <= radius


class _TruthReader:
    """A perfect reader: the demo's truth at the time of the frame being processed."""

    def __init__(self, demo: DemoTable) -> None:
        self.demo = demo
        self.t = 0.0

    def __call__(self, image: NDArray[np.uint8]) -> SceneReading:
        return self.demo.reading_at(self.t)


def run_live_bench(
    seconds: float = 30.0,
    seed: int = 0,
    every_k: int | None = None,
    fps: float = 15.0,
    reader: str = "full",
    size: tuple[int, int] = (1280, 720),
    analyze_fn: Callable[[NDArray[np.uint8]], SceneReading] | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    workdir: str | Path | None = None,
) -> LiveBenchResult:
    """Write a demo-game video, play it through the live reader, and measure.

    Parameters
    ----------
    seconds, seed, fps, size
        The generated video.
    every_k : int, optional
        The live reader's ``every_k`` (its configured default when ``None``).
    reader : {"full", "truth"}
        ``full`` runs :func:`vision.analyze.analyze`; ``truth`` answers with the script's truth,
        which measures the tracker and the scheduling alone.
    analyze_fn : callable, optional
        Overrides ``reader`` with any ``image -> SceneReading`` function.
    progress : callable, optional
        ``progress(phase, done, total)`` with phase ``"render"`` then ``"play"``.
    workdir : path, optional
        Where the video is written (a temporary folder when ``None``).
    """
    if reader not in READERS:
        raise ValueError(f"unknown reader {reader!r}; expected one of {', '.join(READERS)}")
    demo = DemoTable(seed, size=size)
    truth_reader = _TruthReader(demo)
    label = reader if analyze_fn is None else "custom"
    if analyze_fn is None:
        if reader == "truth":
            analyze_fn = truth_reader
        else:
            from vision.analyze import analyze

            analyze_fn = functools.partial(analyze, game="auto")
    total = max(1, round(seconds * fps))
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        path = Path(tmp) / "demo.avi"
        demo.write_video(path, seconds, fps,
                         progress=(lambda i: progress("render", i + 1, total)) if progress else None)
        reading_ms: list[float] = []
        inner = analyze_fn

        def timed_reader(image: NDArray[np.uint8]) -> SceneReading:
            t0 = time.perf_counter()
            out = inner(image)
            reading_ms.append((time.perf_counter() - t0) * 1000.0)
            return out

        tracker = Tracker(seat_of=demo.seat_of)
        live = LiveReader(timed_reader, tracker, every_k=every_k)
        events: list[TrackEvent] = []
        decode_ms = 0.0
        frames = 0
        # one core: OpenCV's own worker threads off while playing
        with single_thread(), VideoFileSource(path) as source:
            stream = source.frames()
            wall0 = time.perf_counter()
            while True:
                t0 = time.perf_counter()
                frame = next(stream, None)
                decode_ms += (time.perf_counter() - t0) * 1000.0
                if frame is None:
                    break
                truth_reader.t = frame.timestamp
                events.extend(live.process(frame).events)
                frames += 1
                if progress is not None:
                    progress("play", frames, total)
            wall = time.perf_counter() - wall0
    stats = live.stats()
    stage_ms = {"decode": decode_ms / max(1, frames), **stats.mean_ms()}
    # changes in the last moments cannot have become stable yet: leave them out
    horizon = seconds - 2.0 * tracker.config.min_seconds - 0.5
    changes = [c for c in demo.changes(seconds) if c.t <= horizon]
    judged = [e for e in events if float(e.data.get("since", e.t)) <= horizon]
    matches, spurious = match_events(changes, judged, same=functools.partial(_same_card, demo))
    return LiveBenchResult(
        seed=seed, seconds=seconds, size=size, video_fps=fps, reader=label, every_k=live.every_k,
        frames=frames, analysed=stats.analysed, wall_s=wall, stage_ms=stage_ms, matches=matches,
        spurious=spurious, reading_ms=timing_stats(reading_ms), events=tuple(events))
