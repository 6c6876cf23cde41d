"""Frame sources on real ``cv2.VideoCapture`` files, the source parser, and reconnection."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.errors import SourceError
from vision.sources import (
    CameraSource,
    Frame,
    FrameSource,
    ImageSource,
    ReconnectingSource,
    UrlSource,
    VideoFileSource,
    open_source,
)

W, H, FPS, N = 96, 64, 10.0, 12


def _write_video(path: Path, rng: np.random.Generator) -> list[float]:
    """Write N MJPG frames whose mean brightness encodes the frame number; return the means."""
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), FPS, (W, H))
    assert writer.isOpened()
    means = []
    for i in range(N):
        level = 20 + 18 * i
        frame = np.full((H, W, 3), level, np.uint8)
        frame[:8, :8] = rng.integers(0, 255, (8, 8, 3), dtype=np.uint8)
        writer.write(frame)
        means.append(float(level))
    writer.release()
    return means


@pytest.fixture
def video(tmp_path: Path, rng: np.random.Generator) -> tuple[Path, list[float]]:
    path = tmp_path / "clip.avi"
    return path, _write_video(path, rng)


def _centre_mean(frame: Frame) -> float:
    return float(frame.image[16:, 16:].mean())


def test_video_file_delivers_every_frame_in_order_and_ends(video: tuple[Path, list[float]]) -> None:
    path, means = video
    with VideoFileSource(path) as source:
        frames = list(source.frames())
    assert [f.index for f in frames] == list(range(N))
    assert all(f.image.shape == (H, W, 3) and f.image.dtype == np.uint8 for f in frames)
    assert [_centre_mean(f) for f in frames] == pytest.approx(means, abs=4)
    assert frames[3].timestamp == pytest.approx(3 / FPS)


def test_video_file_loops(video: tuple[Path, list[float]]) -> None:
    path, means = video
    with VideoFileSource(path, loop=True) as source:
        frames = [f for f, _ in zip(source.frames(), range(N + 3), strict=False)]
    assert _centre_mean(frames[N]) == pytest.approx(means[0], abs=4)
    assert frames[N + 1].timestamp > frames[N - 1].timestamp


def test_open_source_classifies_specifications(video: tuple[Path, list[float]], tmp_path: Path) -> None:
    path, _ = video
    src = open_source(str(path), realtime=False, loop=False)
    assert isinstance(src, VideoFileSource)
    src.close()
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), np.full((30, 40, 3), 99, np.uint8))
    still = open_source(str(photo), realtime=False)
    assert isinstance(still, ImageSource)
    first = [f for f, _ in zip(still.frames(), range(3), strict=False)]
    assert [f.index for f in first] == [0, 1, 2] and first[2].image.shape == (30, 40, 3)
    with pytest.raises(SourceError, match="no such file"):
        open_source(str(tmp_path / "missing.avi"))
    notes = tmp_path / "notes.txt"
    notes.write_text("hello")
    with pytest.raises(SourceError, match="unknown file type"):
        open_source(str(notes))
    with pytest.raises(SourceError, match="folder"):
        open_source(str(tmp_path))
    with pytest.raises(SourceError, match="seed"):
        open_source("demo:abc")


def test_corrupt_video_and_photo_raise_source_error(tmp_path: Path) -> None:
    bad = tmp_path / "broken.avi"
    bad.write_bytes(b"RIFF not really a video")
    with pytest.raises(SourceError, match=r"broken\.avi"):
        VideoFileSource(bad)
    bad_photo = tmp_path / "broken.jpg"
    bad_photo.write_bytes(b"\xff\xd8 nope")
    with pytest.raises(SourceError, match=r"broken\.jpg"):
        ImageSource([bad_photo])
    with pytest.raises(SourceError, match="no photos"):
        ImageSource([])


def test_missing_camera_fails_fast() -> None:
    t0 = time.monotonic()
    with pytest.raises(SourceError, match="camera 63"):
        CameraSource(63)
    assert time.monotonic() - t0 < 30  # a hang would block here; the fast path returns at once
    with pytest.raises(SourceError, match="camera index"):
        CameraSource(-1)
    with pytest.raises(SourceError, match="camera 63"):
        open_source("63")


def test_url_source_rejects_unsupported_schemes() -> None:
    with pytest.raises(SourceError, match="ftp://"):
        UrlSource("ftp://example.invalid/stream")
    with pytest.raises(SourceError, match="expected one of"):
        UrlSource("http://")


class _Mjpeg(BaseHTTPRequestHandler):
    """A tiny MJPEG camera over HTTP: 15 frames whose brightness counts up, then the stream ends."""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "multipart/x-mixed-replace; boundary=frame")
        self.end_headers()
        for i in range(15):
            ok, buf = cv2.imencode(".jpg", np.full((48, 64, 3), 10 + 15 * i, np.uint8))
            assert ok
            head = b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n" % len(buf)
            try:
                self.wfile.write(head + buf.tobytes() + b"\r\n")
            except (BrokenPipeError, ConnectionResetError):
                return
            time.sleep(0.005)

    def log_message(self, *args: object) -> None:
        pass


def test_url_source_reads_an_mjpeg_stream_and_reports_its_end() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Mjpeg)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        source = UrlSource(f"http://127.0.0.1:{server.server_address[1]}/video.mjpg")
        frames = []
        with pytest.raises(SourceError, match="stopped delivering"):
            for frame in source.frames():
                frames.append(frame)
        source.close()
    finally:
        server.shutdown()
        server.server_close()
    assert len(frames) >= 10 and frames[0].image.shape == (48, 64, 3)
    levels = [float(f.image.mean()) for f in frames]
    assert levels == sorted(levels) and levels[-1] - levels[0] > 100
    assert [f.index for f in frames] == list(range(len(frames)))


def test_url_source_that_refuses_fails_fast() -> None:
    with socket.socket() as probe:  # a port with nobody listening
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(SourceError, match="cannot open"):
        UrlSource(f"http://127.0.0.1:{port}/video.mjpg")


class _Flaky(FrameSource):
    """Fails to open on some attempts, and dies after a few frames on others."""

    def __init__(self, plan: list[str], opened: list[int]) -> None:
        step = plan.pop(0)
        opened.append(1)
        if step == "fail":
            raise SourceError("camera 0: cannot open the device")
        self.name = "flaky"
        self._step = step

    def frames(self) -> Iterator[Frame]:
        img = np.zeros((4, 4, 3), np.uint8)
        for i in range(2):
            yield Frame(img, float(i), i)
        if self._step == "die":
            raise SourceError("flaky stopped delivering frames")


def test_reconnecting_source_retries_with_backoff_and_ends() -> None:
    plan = ["fail", "fail", "die", "fail", "end"]
    opened: list[int] = []
    source = ReconnectingSource(lambda: _Flaky(plan, opened), backoff=(0.01, 2.0, 0.02))
    assert [source.delay(n) for n in (1, 2, 3, 4)] == [0.01, 0.02, 0.02, 0.02]
    statuses = []
    frames = []
    for frame in source.frames():
        frames.append(frame)
        statuses.append(source.status.state)
    assert [f.index for f in frames] == [0, 1, 2, 3]
    assert len(opened) == 5 and not plan
    assert set(statuses) == {"connected"}
    assert source.status.state == "ended"


def test_reconnecting_source_reports_retry_and_stops_on_close() -> None:
    def never() -> FrameSource:
        raise SourceError("camera 0: no such device")

    source = ReconnectingSource(never, backoff=(5.0, 2.0, 60.0))
    done = threading.Event()
    thread = threading.Thread(target=lambda: (list(source.frames()), done.set()), daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while source.status.state != "retrying" and time.monotonic() < deadline:
        time.sleep(0.01)
    status = source.status
    assert status.state == "retrying" and status.attempts == 1
    assert "retrying in 5 s" in status.describe(now=status.retry_at - 5.0)
    assert "no such device" in status.to_json()["text"]
    source.close()
    assert done.wait(5), "close() must end frames() without waiting for the backoff"
    assert source.status.state == "closed"


def test_reconnecting_source_rejects_bad_backoff() -> None:
    with pytest.raises(SourceError, match="backoff"):
        ReconnectingSource(lambda: ImageSource([]), backoff=(0.0, 2.0, 1.0))
