"""Readings serialise to strict JSON: browsers reject NaN and Infinity."""

from __future__ import annotations

import json

import cv2
import numpy as np

from vision.analyze import analyze
from vision.synth.demo import DemoTable
from vision.types import BoardReading, CardReading

QUAD = ((0.0, 0.0), (10.0, 0.0), (10.0, 10.0), (0.0, 10.0))


def test_non_finite_confidences_become_zero() -> None:
    card = CardReading(None, None, float("nan"), QUAD, (), (), False, False)
    board = BoardReading(
        QUAD, tuple("....." for _ in range(5)),
        tuple(tuple([float("inf"), 0.5, float("nan"), 1.0, 0.25]) for _ in range(5)))
    text = json.dumps({"card": card.to_json(), "board": board.to_json()}, allow_nan=False)
    doc = json.loads(text)
    assert doc["card"]["confidence"] == 0.0
    assert doc["board"]["confidence"][0] == [0.0, 0.5, 0.0, 1.0, 0.25]
    assert "spots" not in doc["board"]  # a reading without measured spot centres


def test_board_spots_serialise_row_by_row() -> None:
    spots = tuple(tuple((1.04 + c, 2.0 + 10 * r) for c in range(5)) for r in range(5))
    board = BoardReading(QUAD, ("WUGRK",) * 5, ((1.0,) * 5,) * 5, spots=spots)
    doc = json.loads(json.dumps(board.to_json(), allow_nan=False))
    assert doc["spots"][0][0] == [1.0, 2.0] and doc["spots"][4][1] == [2.0, 42.0]


def test_demo_frames_read_to_strict_json() -> None:
    """Frames of the demo table (as the browser-camera test sends them) give strict JSON."""
    table = DemoTable(3, size=(960, 540))
    for i, frame in enumerate(table.frames(fps=5, realtime=False)):
        if i == 5:
            break
        ok, buf = cv2.imencode(".jpg", frame.image, [cv2.IMWRITE_JPEG_QUALITY, 85])
        assert ok
        image = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        reading = analyze(np.ascontiguousarray(image), "auto")
        json.dumps(reading.to_json("auto"), allow_nan=False)
