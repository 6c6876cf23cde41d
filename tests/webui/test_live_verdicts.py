"""Live verdicts on the demo table: with a perfect reader every move the page is told about is
legal (the demo plays only legal moves), and the judge keeps marks with their expedition card."""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from webui import load_settings
from webui.capture import Capture, LiveReading
from webui.live_judge import LiveJudge

FPS = 10.0


class TruthReader:
    """The live pipeline's tracker fed with the demo's truth at each frame's time."""

    def __init__(self, demo: Any) -> None:
        from vision.track import Tracker

        self.demo = demo
        self.tracker = Tracker(seat_of=demo.seat_of)

    def update(self, image: NDArray[np.uint8], timestamp: float) -> LiveReading:
        out = self.tracker.update(self.demo.reading_at(timestamp), timestamp)
        return LiveReading(out.state.to_json(), tuple(e.to_json() for e in out.events))


class TimedSource:
    """Tiny frames stamped at ``FPS`` up to ``seconds`` of demo time, as fast as they are taken."""

    def __init__(self, seconds: float, done: threading.Event) -> None:
        self.seconds = seconds
        self.done = done
        self.image = np.zeros((24, 32, 3), np.uint8)

    def frames(self) -> Iterator[Any]:
        from vision.sources import Frame

        for i in range(int(self.seconds * FPS)):
            yield Frame(self.image, i / FPS, i)
        self.done.set()

    def close(self) -> None:
        pass


def run_demo(seed: int, seconds: float) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every verdict published while the demo plays for ``seconds``, and those ``/api/live`` keeps."""
    from vision.synth.demo import DemoTable

    demo = DemoTable(seed, size=(320, 180))
    done = threading.Event()
    settings = load_settings({"sse_queue_size": 100000, "backoff_max_s": 30.0})
    cap = Capture("demo", settings, source_factory=lambda: TimedSource(seconds, done),
                  reader_factory=lambda: TruthReader(demo))
    q = cap.hub.subscribe()
    try:
        cap.touch()
        assert done.wait(120.0)
        kept = cap.reading()["verdicts"]
    finally:
        cap.stop()
    verdicts = []
    while True:
        try:
            item = q.get_nowait()
        except queue.Empty:
            break
        if item["type"] == "verdict":
            verdicts.append(item["verdict"])
    return verdicts, kept


@pytest.mark.parametrize("seed", [0, 3])
def test_every_live_verdict_on_the_demo_table_is_legal(seed: int) -> None:
    from vision.synth.demo import DemoTable

    end = DemoTable(seed, size=(320, 180))._game_at(0.0).end
    verdicts, kept = run_demo(seed, end + 10.0)  # one whole game and the start of the next
    assert kept == verdicts[-load_settings().live_verdicts_kept:]
    games = {v["game"] for v in verdicts}
    assert games == {"silver-gold", "splendor-duel"}
    setups = [v for v in verdicts if v["verdict"].get("action") == "setup"]
    assert len(setups) == 1 and setups[0]["t"] > end and setups[0]["verdict"]["legal"] is None
    bad = [(v["who"], v["t"], v["verdict"].get("reason"), v["input"]) for v in verdicts
           if v["verdict"].get("legal") is not True and v not in setups]
    assert not bad
    assert not [v for v in verdicts if v["revises"] is not None]
    marks = [v for v in verdicts if v["game"] == "silver-gold"]
    assert {v["seat"] for v in marks} == {"1", "2"} and len(marks) >= 20


def ev(kind: str, t: float, since: float | None = None, **data: Any) -> dict[str, Any]:
    return {"kind": kind, "t": t, "data": {**data, "since": t if since is None else since}, "message": kind}


STATE: dict[str, Any] = {"cards": [], "board": None, "expedition": None, "t": 0.0}


def test_marks_stay_with_the_expedition_card_they_were_made_for() -> None:
    judge = LiveJudge()
    judge.feed([ev("card_appeared", 1.0, card="t4", id="t4", marked=[], seat="1"),
                ev("expedition_changed", 1.0, id="e2", previous=None, cells=[])], STATE)
    # the straight 3 marked at 5 s and the next card (a domino) turned up at 6 s, confirmed together
    straight = [[2, 0], [2, 1], [2, 2]]
    out = judge.feed([ev("expedition_changed", 7.0, 6.0, id="e1", previous="e2", cells=[]),
                      ev("cells_marked", 7.0, 5.0, card="t4", id="t4", seat="1", cells=straight)], STATE)
    assert [(v["input"]["shape"], v["verdict"]["legal"]) for v in out] == [("e2", True)]
    out = judge.feed([ev("cells_marked", 9.0, card="t4", id="t4", seat="1", cells=[[1, 1], [1, 2]])], STATE)
    assert out[0]["input"]["shape"] == "e1" and out[0]["verdict"]["legal"] is True
    assert out[0]["input"]["cards"][0]["before"] == [[2, 0], [2, 1], [2, 2]]


def test_marks_confirmed_in_pieces_are_judged_as_one_turn() -> None:
    judge = LiveJudge()
    judge.feed([ev("card_appeared", 1.0, card="t4", id="t4", marked=[], seat="2"),
                ev("card_appeared", 1.0, card="t40", id="t40", marked=[], seat="2"),
                ev("expedition_changed", 1.0, id="e2", previous=None, cells=[])], STATE)
    first = judge.feed([ev("cells_marked", 3.0, card="t4", id="t4", seat="2", cells=[[2, 0], [2, 1]])], STATE)
    assert first[0]["verdict"]["legal"] is False
    second = judge.feed([ev("cells_marked", 4.0, card="t4", id="t4", seat="2", cells=[[2, 2]])], STATE)
    assert second[0]["verdict"]["legal"] is True and second[0]["revises"] == first[0]["seq"]
    assert second[0]["key"] == first[0]["key"]
    assert second[0]["input"]["cards"][0] == {"id": "t4", "before": [], "after": [[2, 0], [2, 1], [2, 2]]}
    assert [c["id"] for c in second[0]["input"]["cards"]] == ["t4", "t40"]  # bonus cells may use either card


def test_the_same_expedition_card_twice_in_a_row() -> None:
    judge = LiveJudge()
    judge.feed([ev("card_appeared", 1.0, card="t4", id="t4", marked=[], seat="1"),
                ev("expedition_changed", 1.0, id="e1", previous=None, cells=[])], STATE)
    a = judge.feed([ev("cells_marked", 3.0, card="t4", id="t4", seat="1", cells=[[2, 0], [2, 1]])], STATE)
    # the next expedition card is e1 again: the camera sees no change, the seat marks a second domino
    b = judge.feed([ev("cells_marked", 9.0, card="t4", id="t4", seat="1", cells=[[3, 1], [3, 2]])], STATE)
    assert a[0]["verdict"]["legal"] is True and b[0]["verdict"]["legal"] is True
    assert b[0]["key"] != a[0]["key"] and b[0]["revises"] is None
    assert b[0]["input"]["cards"][0]["before"] == [[2, 0], [2, 1]]
    # an illegal second turn is still reported as illegal
    c = judge.feed([ev("cells_marked", 12.0, card="t4", id="t4", seat="1", cells=[[0, 2], [2, 3]])], STATE)
    assert c[0]["verdict"]["legal"] is False


def test_board_changes_are_explained_and_a_new_setup_is_not_a_move() -> None:
    judge = LiveJudge()
    full = ["WUGRK", "WUGRK", "WUYRK", "WUGRK", "PYGPY"]
    assert judge.feed([], {**STATE, "board": full}) == []
    taken = ["WU.RK", "WU.RK", "WUYRK", "WUGRK", "PYGPY"]
    out = judge.feed([], {**STATE, "board": taken})
    assert out[0]["game"] == "splendor-duel" and out[0]["verdict"]["legal"] is True, out
    out = judge.feed([], {**STATE, "board": ["WU.RK", "WU.RK", "WUY.K", "WUG.K", "PYGPY"]})
    assert out[0]["verdict"]["legal"] is True
    fresh = ["KWUGR", "KWUGR", "KWUYR", "KWUGR", "YPYGP"]
    out = judge.feed([], {**STATE, "board": fresh})
    assert out[0]["verdict"]["legal"] is None and "set up anew" in out[0]["verdict"]["reason"]
    assert [v["seq"] for v in judge.recent] == [1, 2, 3]
