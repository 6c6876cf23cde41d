"""The demo table: a deterministic, legal scripted game, truth that matches the pictures, and the
video writers."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.sources import DemoSource, VideoFileSource, open_source
from vision.synth import cards as synth_cards
from vision.synth.demo import DemoTable, _shape_cells
from vision.track import Tracker

SMALL = (320, 180)


@pytest.fixture(scope="module")
def demo() -> DemoTable:
    return DemoTable(7, size=SMALL)


def _orientations(cells: tuple[tuple[int, int], ...]) -> set[frozenset[tuple[int, int]]]:
    out = set()
    pts = list(cells)
    for mirror in (False, True):
        cur = [(r, -c) if mirror else (r, c) for r, c in pts]
        for _ in range(4):
            cur = [(c, -r) for r, c in cur]
            r0, c0 = min(r for r, _ in cur), min(c for _, c in cur)
            out.add(frozenset((r - r0, c - c0) for r, c in cur))
    return out


def _normal(cells: frozenset[tuple[int, int]]) -> frozenset[tuple[int, int]]:
    r0, c0 = min(r for r, _ in cells), min(c for _, c in cells)
    return frozenset((r - r0, c - c0) for r, c in cells)


def test_the_script_is_deterministic_and_legal(demo: DemoTable) -> None:
    other = DemoTable(7, size=SMALL)
    horizon = 240.0
    assert demo.changes(horizon) == other.changes(horizon)
    assert DemoTable(8, size=SMALL).changes(60.0) != demo.changes(60.0)
    cells = {c.id: frozenset(c.cells) for c in synth_cards.map_cards()}
    prev = demo.state_at(0.0)
    marks = takes = refills = hands = 0
    t = 0.0
    while t < horizon:
        state = demo.state_at(t)
        if state.hand is not None:
            hands += 1
            t += 0.1
            continue
        if state is not prev:
            before = {c.id: c for c in prev.cards}
            for c in state.cards:
                assert c.marked <= cells[c.id], f"{c.id}: marks outside the card"
                old = before.get(c.id)
                if old is not None and c.marked != old.marked:
                    placed = c.marked - old.marked
                    assert old.marked <= c.marked
                    shapes = _orientations(_shape_cells(state.expedition))
                    assert len(placed) == 1 or _normal(placed) in shapes, (c.id, placed, state.expedition)
                    marks += 1
            taken = [(r, col) for r in range(5) for col in range(5)
                     if prev.board[r][col] != "." and state.board[r][col] == "."]
            if taken:
                takes += 1
                assert len(taken) <= 3 and all(prev.board[r][col] != "Y" for r, col in taken)
            if any(prev.board[r][col] == "." and state.board[r][col] != "."
                   for r in range(5) for col in range(5)):
                refills += 1
            prev = state
        t += 0.1
    assert marks >= 20 and takes >= 8 and refills >= 1 and hands >= 5


def test_frames_are_deterministic_and_cached(demo: DemoTable) -> None:
    other = DemoTable(7, size=SMALL)
    a = [f for f, _ in zip(demo.frames(fps=10), range(4), strict=False)]
    b = [f for f, _ in zip(other.frames(fps=10), range(4), strict=False)]
    for fa, fb in zip(a, b, strict=True):
        assert fa.image.shape == (SMALL[1], SMALL[0], 3) and fa.image.dtype == np.uint8
        assert np.array_equal(fa.image, fb.image)
        assert fa.timestamp == pytest.approx(fa.index / 10)
    # the same state, different noise: close but not identical
    diff = cv2.absdiff(a[0].image, a[1].image)
    assert 0 < diff.mean() < 6


def test_truth_matches_the_picture(demo: DemoTable) -> None:
    truth = demo.truth_at(1.0)
    image = demo.image_at(1.0, noisy=False)
    assert truth.covered is None and len(truth.card_quads) == 4
    for quad in truth.card_quads.values():
        cx = sum(p[0] for p in quad) / 4
        cy = sum(p[1] for p in quad) / 4
        assert 0 < cx < SMALL[0] and 0 < cy < SMALL[1]
    # each truth quad outlines a card: its inside differs clearly from a ring of table around it
    for quad in (*truth.card_quads.values(), truth.board_quad):
        inside = np.zeros(image.shape[:2], np.uint8)
        cv2.fillConvexPoly(inside, np.round(np.array(quad)).astype(np.int32), 255)
        grown = cv2.dilate(inside, np.ones((9, 9), np.uint8))
        ring = (grown > 0) & (cv2.dilate(inside, np.ones((3, 3), np.uint8)) == 0)
        core = cv2.erode(inside, np.ones((5, 5), np.uint8)) > 0
        gap = np.abs(image[core].mean(axis=0) - image[ring].mean(axis=0)).max()
        assert gap > 25, (quad, gap)
    seat_top = demo.seat_of((SMALL[0] * 0.1, SMALL[1] * 0.1))
    seat_bottom = demo.seat_of((SMALL[0] * 0.1, SMALL[1] * 0.9))
    assert (seat_top, seat_bottom) == ("2", "1")
    for cid, quad in truth.card_quads.items():
        centre = (sum(p[0] for p in quad) / 4, sum(p[1] for p in quad) / 4)
        assert demo.seat_of(centre) == truth.state.card(cid).seat


def test_a_hand_changes_the_picture_and_is_reported_as_cover(demo: DemoTable) -> None:
    t = 0.0
    while demo.truth_at(t).covered is None:
        t += 0.05
        assert t < 120
    truth = demo.truth_at(t)
    reading = demo.reading_at(t)
    if truth.covered == "board":
        assert reading.board is not None and reading.board.unknown
    else:
        assert any(c.partial for c in reading.cards if c.id == truth.covered)
    # the hand really is in the picture: the frame differs from the moment before the hand came
    before = t
    while demo.truth_at(before).state.hand is not None:
        before -= 0.05
    diff = cv2.absdiff(demo.image_at(t, noisy=False), demo.image_at(before, noisy=False))
    assert (diff.max(axis=2) > 40).mean() > 0.01


def test_the_tracker_follows_the_demo_truth(demo: DemoTable) -> None:
    tracker = Tracker(seat_of=demo.seat_of)
    events = []
    t = 0.0
    while t < 60.0:
        events += tracker.update(demo.reading_at(t), t).events
        t += 1 / 15
    truth = demo.changes(58.0)
    events = [e for e in events if e.data["since"] <= 58.0]
    marked = [e for e in events if e.kind == "cells_marked"]
    truth_marks = [c.t for c in truth if c.kind == "cells_marked"]
    assert [e.data["since"] for e in marked] == pytest.approx(truth_marks, abs=0.07)
    assert len(marked) == sum(c.kind == "cells_marked" for c in truth)
    assert all(e.data["seat"] in ("1", "2") for e in marked)
    assert sum(e.kind == "tokens_taken" for e in events) == sum(c.kind == "tokens_taken" for c in truth)
    assert not any(e.kind in ("card_removed", "board_removed") for e in events if e.t < 20)


def test_video_and_y4m_writers(demo: DemoTable, tmp_path: Path) -> None:
    avi = tmp_path / "demo.avi"
    seen: list[int] = []
    n = demo.write_video(avi, seconds=1.0, fps=5, progress=seen.append)
    assert n == 5 and seen == [0, 1, 2, 3, 4]
    with VideoFileSource(avi) as source:
        frames = list(source.frames())
    assert len(frames) == 5 and frames[0].image.shape == (SMALL[1], SMALL[0], 3)
    ref = demo.image_at(0.0, noisy=False)
    assert cv2.absdiff(frames[0].image, ref).mean() < 8
    y4m = tmp_path / "demo.y4m"
    n = demo.write_y4m(y4m, seconds=0.4, fps=5, size=(160, 90))
    data = y4m.read_bytes()
    header, _, rest = data.partition(b"\n")
    assert header == b"YUV4MPEG2 W160 H90 F5:1 Ip A1:1 C420jpeg"
    frame_bytes = 160 * 90 * 3 // 2
    assert n == 2 and len(rest) == n * (len(b"FRAME\n") + frame_bytes)
    assert rest.startswith(b"FRAME\n")
    with pytest.raises(ValueError, match="even"):
        demo.write_y4m(tmp_path / "odd.y4m", seconds=0.2, fps=5, size=(161, 90))


def test_demo_source_and_spec() -> None:
    source = open_source("demo:3", realtime=False)
    assert isinstance(source, DemoSource)
    frames = [f for f, _ in zip(source.frames(), range(2), strict=False)]
    assert [f.index for f in frames] == [0, 1] and frames[0].image.shape == (720, 1280, 3)
    source.close()
    assert list(source.frames()) == []


def test_realtime_frames_keep_the_clock_pace_for_a_slow_consumer(demo: DemoTable) -> None:
    import time

    seen = []
    for frame in demo.frames(fps=50, realtime=True):
        seen.append(frame)
        time.sleep(0.05)  # a consumer slower than 50 fps
        if len(seen) == 5:
            break
    idx = [f.index for f in seen]
    assert idx == sorted(set(idx)) and idx[-1] >= 8
    assert all(f.timestamp == pytest.approx(f.index / 50) for f in seen)


def test_seat_two_faces_its_cards_and_hands_float_above_the_table(demo: DemoTable) -> None:
    import dataclasses

    truth = demo.truth_at(1.0)
    for cid, quad in truth.card_quads.items():
        tl, _, br, _ = quad
        turned = truth.state.card(cid).seat == "2"
        # a card turned to face seat 2 (at the top edge) has its top-left corner at the bottom right
        assert (tl[1] > br[1] and tl[0] > br[0]) == turned, (cid, quad)
    t = 0.0
    while demo.truth_at(t).covered is None:
        t += 0.05
    flat = DemoTable(7, size=SMALL, config=dataclasses.replace(demo.config, hand_height_mm=0.0))
    lifted, lying = demo.image_at(t, noisy=False), flat.image_at(t, noisy=False)
    assert demo.config.hand_height_mm > 0
    assert cv2.absdiff(lifted, lying).max() > 20  # the shadow moves away from the hand
