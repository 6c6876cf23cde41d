"""``goldtable bench live`` and the live benchmark behind it, on small generated videos."""

from __future__ import annotations

import functools
import json
from typing import Any

import pytest
from click.testing import CliRunner

from vision.bench import live as live_bench
from vision.synth.demo import TruthChange
from vision.track import TrackEvent
from webui.cli import main

SMALL = (320, 180)


@pytest.fixture(scope="module")
def truth_run() -> live_bench.LiveBenchResult:
    return live_bench.run_live_bench(seconds=12.0, seed=5, fps=10.0, reader="truth", size=SMALL)


def test_truth_reader_finds_every_change_with_bounded_latency(truth_run: live_bench.LiveBenchResult) -> None:
    r = truth_run
    assert r.frames == 120 and 0 < r.analysed < r.frames / 2
    assert len(r.matches) >= 5 and r.missed == 0 and not r.spurious
    lat = r.latencies()
    # an event needs at least the stability time and, with the confirmation readings, not much more
    assert min(lat) >= 0.5 and max(lat) <= 1.6
    assert {"decode", "thumb", "analyze", "track"} <= set(r.stage_ms)
    data = r.to_json()
    json.dumps(data)
    assert data["detected"] == len(r.matches)
    assert data["latency_s"]["max"] == pytest.approx(max(lat), abs=1e-3)
    assert set(data["latency_by_kind"]) >= {"cells_marked", "card_appeared"}


def test_match_events_counts_missed_and_spurious() -> None:
    changes = [TruthChange(1.0, "cells_marked", "t5"), TruthChange(2.0, "tokens_taken", "board"),
               TruthChange(3.0, "cells_marked", "t9")]
    events = [
        TrackEvent("cells_marked", 1.6, {"card": "t5", "id": "t5"}, ""),
        TrackEvent("card_completed", 1.6, {"card": "t5", "id": "t5"}, ""),
        TrackEvent("tokens_taken", 1.5, {}, ""),  # before its change: cannot answer it
        TrackEvent("cells_marked", 3.7, {"card": "t2", "id": "t2"}, ""),
    ]
    matches, spurious = live_bench.match_events(changes, events)
    assert [m.latency for m in matches] == [pytest.approx(0.6), None, None]
    assert [e.t for e in spurious] == [1.5, 3.7]


def _small(monkeypatch: pytest.MonkeyPatch) -> None:
    small = functools.partial(live_bench.run_live_bench, size=SMALL)
    monkeypatch.setattr(live_bench, "run_live_bench", small)


def test_cli_json(monkeypatch: pytest.MonkeyPatch) -> None:
    _small(monkeypatch)
    result = CliRunner().invoke(main, ["bench", "live", "--seconds", "5", "--fps", "8", "--reader", "truth",
                                       "--seed", "2", "--every-k", "3", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["frames"] == 40 and data["every_k"] == 3 and data["reader"] == "truth"
    assert data["fps"] > 0 and data["changes"] >= 1


def test_cli_table(monkeypatch: pytest.MonkeyPatch) -> None:
    _small(monkeypatch)
    result = CliRunner().invoke(main, ["bench", "live", "--seconds", "4", "--fps", "8", "--reader", "truth"])
    assert result.exit_code == 0, result.output
    assert "fps" in result.stdout and "event latency" in result.stdout and "ms per frame" in result.stdout


def test_cli_bad_input_exits_2(monkeypatch: pytest.MonkeyPatch) -> None:
    runner = CliRunner()
    bad = runner.invoke(main, ["bench", "live", "--seconds", "0"])
    assert bad.exit_code == 2 and "--seconds" in bad.output

    def broken(**_: Any) -> None:
        raise ImportError("no module named vision.board.read")

    monkeypatch.setattr(live_bench, "run_live_bench", broken)
    result = runner.invoke(main, ["bench", "live", "--seconds", "4"])
    assert result.exit_code == 2
    assert "--reader truth" in result.output and "Traceback" not in result.output


def test_the_full_readers_run_through_the_live_reader() -> None:
    r = live_bench.run_live_bench(seconds=4.0, seed=2, fps=10.0, reader="full", size=(640, 360))
    assert r.frames == 40 and 1 <= r.analysed < r.frames
    assert r.reader == "full" and r.stage_ms["analyze"] > 0
    assert any(k.startswith("analyze.") for k in r.stage_ms)
