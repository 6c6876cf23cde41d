"""``goldtable bench live``: the live reader and tracker on a generated demo-game video."""

from __future__ import annotations

import sys
from typing import Any

import click

from webui.commands._common import BadInput, echo_json, friendly_errors


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f} s"


def _report(data: dict[str, Any]) -> str:
    from vision.bench.common import format_table

    reading = data["full_reading_ms"]
    per_reading = (f"   one full reading: median {reading['median']:.0f} ms, p95 {reading['p95']:.0f} ms"
                   if reading else "")
    lat = data["latency_s"]
    stages = format_table(["stage", "ms per frame"],
                          [(name, f"{ms:.2f}") for name, ms in data["stage_ms"].items()])
    kinds = format_table(
        ["change kind", "changes", "detected", "mean", "p90", "max"],
        [(kind, row["changes"], row["detected"], _fmt(row["mean_s"]), _fmt(row["p90_s"]), _fmt(row["max_s"]))
         for kind, row in data["latency_by_kind"].items()])
    lines = [
        f"demo game: seed {data['seed']}, {data['seconds']:g} s at {data['video_fps']:g} fps, "
        f"{data['size'][0]}x{data['size'][1]}; reader {data['reader']}, every_k {data['every_k']}",
        f"frames: {data['frames']} ({data['analysed_frames']} read in full)   speed: {data['fps']:.1f} fps "
        f"on one core{per_reading}",
        "",
        stages,
        "",
        f"changes: {data['changes']}   detected: {data['detected']}   missed: {data['missed']}   "
        f"spurious events: {data['spurious']}",
        f"event latency: mean {_fmt(lat['mean'])}, p90 {_fmt(lat['p90'])}, max {_fmt(lat['max'])}",
        "",
        kinds,
    ]
    lines += [f"spurious: {message}" for message in data["spurious_events"]]
    return "\n".join(lines)


@click.command("live")
@click.option("--seconds", type=click.FloatRange(3.0, 300.0), default=30.0, show_default=True,
              help="Length of the generated game video (written to a temporary file, ~0.1 MB a frame).")
@click.option("--seed", type=click.IntRange(0, 2**31 - 1), default=0, show_default=True,
              help="Seed of the demo game.")
@click.option("--every-k", type=click.IntRange(1, 1000), default=None,
              help="Run the full reader at most every k-th frame (default from track.json).")
@click.option("--fps", type=click.FloatRange(1.0, 60.0), default=15.0, show_default=True,
              help="Frame rate of the video.")
@click.option("--reader", type=click.Choice(["full", "truth"]), default="full", show_default=True,
              help="full: the real readers; truth: the script's truth (tracker and scheduling only).")
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
@friendly_errors
def bench_live(seconds: float, seed: int, every_k: int | None, fps: float, reader: str,
               as_json: bool) -> None:
    """Play a generated 1280x720 demo-game video through the live reader and the tracker.

    Reports frames per second (decoding included), milliseconds per stage, and the latency from
    each change on the table to its event.
    """
    from vision.bench.live import run_live_bench

    total = max(1, round(seconds * fps))
    err = sys.stderr
    bars: dict[str, Any] = {}

    def progress(phase: str, done: int, _total: int) -> None:
        bar = bars.get(phase)
        if bar is None:
            for old in bars.values():
                old.render_finish()
            label = "rendering the game video" if phase == "render" else "playing it through the tracker"
            bar = click.progressbar(length=total, label=label, file=err)
            bars[phase] = bar
        bar.update(done - bar.pos)

    try:
        result = run_live_bench(seconds=seconds, seed=seed, every_k=every_k, fps=fps, reader=reader,
                                progress=progress)
    except (ImportError, AttributeError, NotImplementedError) as exc:
        raise BadInput(f"the full reader is not available ({exc}); try --reader truth") from exc
    finally:
        for bar in bars.values():
            bar.render_finish()
        if bars:
            err.flush()
    data = result.to_json()
    if as_json:
        echo_json(data)
    else:
        click.echo(_report(data))
    sys.stdout.flush()
