"""The capture thread: fan-out, events, failures become status, idle stop."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from webui import load_settings
from webui.capture import Capture, EventHub, LiveReading, encode_jpeg


def wait_for(cond: Callable[[], bool], seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.02)
    return False


class CountingReader:
    """A stand-in live reader: reports one event on its third frame; can be told to fail."""

    def __init__(self, fail: bool = False) -> None:
        self.n = 0
        self.fail = fail

    def update(self, image: NDArray[np.uint8], timestamp: float) -> LiveReading:
        self.n += 1
        if self.fail:
            raise RuntimeError("reader broke")
        event = {"kind": "cells_marked", "message": "cells marked on card t12 by seat 2"}
        events = (event,) if self.n == 3 else ()
        return LiveReading({"cards": [], "n": self.n}, events)


def make(helpers: Any, rng: np.random.Generator, reader: Any = None, **kw: Any) -> Capture:
    settings = load_settings({"idle_timeout_s": kw.pop("idle", 5.0), "backoff_initial_s": 0.05,
                              "backoff_max_s": 0.2, "mjpeg_max_fps": 100.0})
    factory = kw.pop("factory", lambda: helpers.source(rng))
    return Capture("fake", settings, source_factory=factory,
                   reader_factory=lambda: reader or CountingReader(), **kw)


def test_frames_are_shared_and_events_published(helpers: Any, rng: np.random.Generator) -> None:
    cap = make(helpers, rng)
    q = cap.hub.subscribe()
    try:
        a, b = cap.frames(), cap.frames()
        first_a, first_b = next(a), next(b)
        assert first_a[:2] == first_b[:2] == b"\xff\xd8"
        assert cap._thread is not None
        threads = [cap._thread]
        next(a)
        assert cap._thread is threads[0]  # one thread for every client
        event = q.get(timeout=10)
        assert event == {"type": "table", "event": {"kind": "cells_marked",
                                                    "message": "cells marked on card t12 by seat 2"}}
        assert cap.reading()["state"]["cards"] == []
        assert cap.status()["state"] == "live"
    finally:
        cap.stop()


def test_unplugged_source_is_retried_and_reported(helpers: Any, rng: np.random.Generator) -> None:
    opened: list[int] = []

    def factory() -> Any:
        opened.append(1)
        if len(opened) == 1:
            return helpers.source(rng, count=3, fail=True)
        if len(opened) == 2:
            raise OSError("no such device")
        return helpers.source(rng)

    cap = make(helpers, rng, factory=factory)
    seen: set[str] = set()
    try:
        cap.touch()
        assert wait_for(lambda: (seen.add(cap.status()["state"]) or len(opened) >= 3)
                        and cap.status()["state"] == "live")
        assert "retrying" in seen or len(opened) >= 3
        assert cap.status()["frames"] > 3
    finally:
        cap.stop()


def test_a_broken_reader_does_not_stop_the_live_view(helpers: Any, rng: np.random.Generator) -> None:
    cap = make(helpers, rng, reader=CountingReader(fail=True))
    try:
        seq, jpeg = cap.wait_frame(0, 10)
        assert jpeg is not None and seq >= 1
        assert wait_for(lambda: "reader unavailable" in cap.status()["text"] or cap.status()["frames"] > 5)
        assert cap.reading()["state"] is None
    finally:
        cap.stop()


def test_capture_stops_when_nobody_watches(helpers: Any, rng: np.random.Generator) -> None:
    cap = make(helpers, rng, idle=0.3)
    try:
        cap.touch()
        assert wait_for(lambda: cap.status()["state"] == "live")
        assert wait_for(lambda: cap._thread is not None and not cap._thread.is_alive())
        assert cap.status()["state"] == "idle"
        cap.touch()
        assert wait_for(lambda: cap.status()["state"] == "live")
    finally:
        cap.stop()


def test_hub_drops_the_oldest_event_for_slow_clients() -> None:
    hub = EventHub(queue_size=2)
    q = hub.subscribe()
    for i in range(5):
        hub.publish({"i": i})
    assert [q.get_nowait()["i"], q.get_nowait()["i"]] == [3, 4]
    hub.unsubscribe(q)
    hub.unsubscribe(q)
    assert hub.listeners == 0


def test_encode_jpeg_shrinks_large_frames(rng: np.random.Generator) -> None:
    import cv2

    image = rng.integers(0, 256, size=(300, 400, 3), dtype=np.uint8)
    decoded = cv2.imdecode(np.frombuffer(encode_jpeg(image, 200, 70), np.uint8), cv2.IMREAD_COLOR)
    assert decoded.shape == (150, 200, 3)


def test_unknown_setting_is_named() -> None:
    from webui import InvalidField

    with pytest.raises(InvalidField) as err:
        load_settings({"idle_timeout": 3})
    assert err.value.field == "idle_timeout"


def test_a_reconnecting_source_reports_its_retries(helpers: Any, rng: np.random.Generator) -> None:
    from vision.sources import ReconnectingSource

    def broken() -> Any:
        raise OSError("camera 0: no such device")

    cap = make(helpers, rng, factory=lambda: ReconnectingSource(broken, backoff=(0.05, 2.0, 0.1)))
    try:
        cap.touch()
        assert wait_for(lambda: cap.status()["state"] == "retrying")
        assert "no such device" in cap.status()["text"]
    finally:
        cap.stop()


def test_a_calibrated_profile_is_scaled_to_the_frame_size(helpers: Any, rng: np.random.Generator,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import vision.analyze
    from calibration.profile import Profile
    from calibration.zones import SeatZones
    from vision.types import SceneReading
    from webui.capture import FrameProfile

    # calibrated on 128x96 photos; the fake source sends 64x48 frames
    seats = SeatZones.from_json({"Ann": [[0, 0], [64, 0], [64, 96], [0, 96]],
                                 "Bob": [[64, 0], [128, 0], [128, 96], [64, 96]]})
    profile = Profile(name="kitchen", image_size=(128, 96),
                      image_to_table=((2.0, 0.0, 0.0), (0.0, 2.0, 0.0), (0.0, 0.0, 1.0)), seats=seats)
    used: list[Any] = []

    def fake_analyze(image: NDArray[np.uint8], game: str, catalog: Any, prof: Any) -> SceneReading:
        used.append(prof)
        return SceneReading(width=image.shape[1], height=image.shape[0])

    monkeypatch.setattr(vision.analyze, "analyze", fake_analyze)
    settings = load_settings({"idle_timeout_s": 5.0, "backoff_initial_s": 0.05, "backoff_max_s": 0.2})
    cap = Capture("fake", settings, profile=profile, source_factory=lambda: helpers.source(rng))
    try:
        cap.touch()
        assert wait_for(lambda: bool(used))
    finally:
        cap.stop()
    assert used[0].image_size == (64, 48)
    assert np.allclose(used[0].to_table([[32.0, 24.0]]), profile.to_table([[64.0, 48.0]]))
    frames = FrameProfile(profile)
    frames.for_image(np.zeros((48, 64, 3), np.uint8))
    assert frames.seat_of((40.0, 10.0)) == "Bob" and profile.seat_of((40.0, 10.0)) == "Ann"
    assert frames.for_image(np.zeros((96, 128, 3), np.uint8)) is profile
    assert FrameProfile(None).for_image(np.zeros((4, 4, 3), np.uint8)) is None
