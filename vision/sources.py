"""Frame sources: a webcam, a video file, a network stream, still photos or the demo table.

Every source is opened when it is built (so a missing camera fails at once with a
:class:`~vision.errors.SourceError`) and delivers frames through a ``frames()`` generator, in the
style of the classic Flask video-streaming camera classes::

    with open_source("0") as source:
        for frame in source.frames():
            ...

A live source that stops delivering (an unplugged camera, a dropped stream) raises
:class:`SourceError` from ``frames()``. A finite source (a video file without ``loop``) simply ends.
:class:`ReconnectingSource` wraps a source factory for the web capture thread: it retries with
exponential backoff, exposes its :class:`SourceStatus`, and never raises out of ``frames()``.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Literal
from urllib.parse import urlparse

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.config import load_config
from vision.errors import ImageError, SourceError
from vision.imageio import read_image

__all__ = [
    "CameraSource",
    "DemoSource",
    "Frame",
    "FrameSource",
    "ImageSource",
    "ReconnectingSource",
    "SourceStatus",
    "SourcesConfig",
    "UrlSource",
    "VideoFileSource",
    "open_source",
]


@dataclass(frozen=True)
class SourcesConfig:
    """Tunable numbers of the frame sources (``vision/data/config/sources.json``).

    Attributes
    ----------
    camera_size : (width, height)
        Resolution asked of a webcam (best effort).
    camera_fourcc : str
        Pixel format asked of a webcam (``"MJPG"``), or ``""`` for the camera's default.
    open_timeout_ms, read_timeout_ms : int
        Passed to OpenCV for network streams, so a dead URL fails instead of hanging.
    max_failed_reads : int
        Consecutive failed reads after which a live source counts as stopped.
    failed_read_pause_s : float
        Pause between two failed reads.
    image_fps, demo_fps : float
        Frame rate of still photos repeated as a stream, and of the demo table.
    backoff_initial_s, backoff_factor, backoff_max_s : float
        Reconnect delays: ``initial * factor**n``, capped at ``max``.
    image_extensions, video_extensions, url_schemes : tuple of str
        How :func:`open_source` classifies a specification.
    """

    camera_size: tuple[int, int] = (1280, 720)
    camera_fourcc: str = "MJPG"
    open_timeout_ms: int = 5000
    read_timeout_ms: int = 5000
    max_failed_reads: int = 25
    failed_read_pause_s: float = 0.02
    image_fps: float = 5.0
    demo_fps: float = 15.0
    backoff_initial_s: float = 0.5
    backoff_factor: float = 2.0
    backoff_max_s: float = 30.0
    image_extensions: tuple[str, ...] = (".jpg", ".jpeg", ".png")
    video_extensions: tuple[str, ...] = (".avi", ".mp4")
    url_schemes: tuple[str, ...] = ("http", "https", "rtsp")


def default_config() -> SourcesConfig:
    """The configuration from ``vision/data/config/sources.json``."""
    return load_config("sources", SourcesConfig)


@dataclass(frozen=True)
class Frame:
    """One frame.

    Attributes
    ----------
    image : (H, W, 3) uint8 array
        BGR pixels.
    timestamp : float
        Seconds: media time for files and the demo, time since the source opened for live sources.
    index : int
        0 for the first frame delivered by the source, then counting up.
    """

    image: NDArray[np.uint8]
    timestamp: float
    index: int


def _as_bgr(image: NDArray[np.uint8]) -> NDArray[np.uint8]:
    if image.ndim == 2:
        return np.ascontiguousarray(cv2.cvtColor(image, cv2.COLOR_GRAY2BGR))
    if image.shape[2] == 4:
        return np.ascontiguousarray(cv2.cvtColor(image, cv2.COLOR_BGRA2BGR))
    return image


class FrameSource:
    """Base class: a named source with ``frames()``, ``close()`` and context-manager support."""

    name: str = "source"

    def frames(self) -> Iterator[Frame]:  # pragma: no cover - abstract
        raise NotImplementedError

    def close(self) -> None:
        """Release the device or file; ``frames()`` ends soon after."""

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


class _CaptureSource(FrameSource):
    """Shared reading loop of the sources built on ``cv2.VideoCapture``."""

    def __init__(self, capture: cv2.VideoCapture, name: str, live: bool, config: SourcesConfig) -> None:
        self.name = name
        self._cap = capture
        self._live = live
        self._cfg = config
        self._closed = threading.Event()
        self._lock = threading.Lock()

    @property
    def fps(self) -> float:
        """The frame rate the device or file reports (0 when unknown)."""
        with self._lock:
            value = float(self._cap.get(cv2.CAP_PROP_FPS)) if self._cap is not None else 0.0
        return value if np.isfinite(value) and value > 0 else 0.0

    def _read(self) -> NDArray[np.uint8] | None:
        with self._lock:
            if self._closed.is_set():
                return None
            ok, image = self._cap.read()
        if not ok or image is None or image.size == 0:
            return None
        return _as_bgr(np.asarray(image, dtype=np.uint8))

    def _media_time(self, index: int) -> float:
        return index / (self.fps or 25.0)

    def frames(self) -> Iterator[Frame]:
        start = time.monotonic()
        index = 0
        failures = 0
        since_restart = 0
        while not self._closed.is_set():
            image = self._read()
            if image is None:
                if self._closed.is_set():
                    return
                if not self._live:
                    if since_restart > 0 and self._restart():
                        since_restart = 0
                        continue
                    return
                failures += 1
                if failures >= self._cfg.max_failed_reads:
                    raise SourceError(f"{self.name} stopped delivering frames (unplugged or stream ended)")
                time.sleep(self._cfg.failed_read_pause_s)
                continue
            failures = 0
            since_restart += 1
            stamp = time.monotonic() - start if self._live else self._stamp(index)
            yield Frame(image, stamp, index)
            index += 1

    def _stamp(self, index: int) -> float:
        return self._media_time(index)

    def _restart(self) -> bool:
        """A finite source that reached its end: start again (``True``) or end (``False``)."""
        return False

    def close(self) -> None:
        self._closed.set()
        with self._lock:
            self._cap.release()


class CameraSource(_CaptureSource):
    """A webcam by index (``0`` is the first camera).

    Raises
    ------
    SourceError
        When there is no such camera or it cannot be opened.
    """

    def __init__(self, index: int = 0, config: SourcesConfig | None = None) -> None:
        cfg = config or default_config()
        if isinstance(index, bool) or not isinstance(index, int) or index < 0:
            raise SourceError(f"camera index must be a whole number >= 0, not {index!r}")
        if sys.platform.startswith("linux") and not Path(f"/dev/video{index}").exists():
            # Fast path: OpenCV would probe every backend before saying no.
            raise SourceError(f"camera {index}: no such device (/dev/video{index} does not exist)")
        cap = cv2.VideoCapture(index)
        if not cap.isOpened():
            cap.release()
            raise SourceError(f"camera {index}: cannot open the device (in use or unplugged?)")
        # best effort: a camera that cannot do these keeps its own settings
        if len(cfg.camera_fourcc) == 4:
            cap.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter.fourcc(*cfg.camera_fourcc))
        cap.set(cv2.CAP_PROP_FRAME_WIDTH, float(cfg.camera_size[0]))
        cap.set(cv2.CAP_PROP_FRAME_HEIGHT, float(cfg.camera_size[1]))
        super().__init__(cap, f"camera {index}", live=True, config=cfg)
        self.index = index


class UrlSource(_CaptureSource):
    """A network stream (MJPEG over HTTP, RTSP ...) through OpenCV's FFmpeg backend.

    Raises
    ------
    SourceError
        For an unsupported scheme or a stream that cannot be opened in time.
    """

    def __init__(self, url: str, config: SourcesConfig | None = None) -> None:
        cfg = config or default_config()
        parsed = urlparse(url)
        if parsed.scheme.lower() not in cfg.url_schemes or not parsed.netloc:
            raise SourceError(f"url {url!r}: expected one of {', '.join(cfg.url_schemes)}://host/...")
        params = [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, int(cfg.open_timeout_ms),
                  cv2.CAP_PROP_READ_TIMEOUT_MSEC, int(cfg.read_timeout_ms)]
        try:
            cap = cv2.VideoCapture(url, cv2.CAP_FFMPEG, params)
        except cv2.error as exc:
            raise SourceError(f"url {url!r}: cannot open the stream ({exc})") from exc
        if not cap.isOpened():
            cap.release()
            raise SourceError(f"url {url!r}: cannot open the stream (unreachable or not a video)")
        super().__init__(cap, f"url {url}", live=True, config=cfg)
        self.url = url


class VideoFileSource(_CaptureSource):
    """A video file, read once or looped.

    Parameters
    ----------
    path : str or Path
        The video file.
    loop : bool
        Start again at the end instead of ending.
    realtime : bool
        Pace the frames at the file's frame rate (for the live page); otherwise as fast as read.

    Raises
    ------
    SourceError
        When the file is missing or cannot be decoded.
    """

    def __init__(self, path: str | Path, loop: bool = False, realtime: bool = False,
                 config: SourcesConfig | None = None) -> None:
        cfg = config or default_config()
        p = Path(path)
        if not p.is_file():
            raise SourceError(f"{p}: no such video file")
        cap = cv2.VideoCapture(str(p))
        if not cap.isOpened():
            cap.release()
            raise SourceError(f"{p}: cannot open the video (unsupported or corrupt file)")
        ok, first = cap.read()
        if not ok or first is None:
            cap.release()
            raise SourceError(f"{p}: the video has no readable frames")
        cap.set(cv2.CAP_PROP_POS_FRAMES, 0)
        super().__init__(cap, str(p), live=False, config=cfg)
        self.path = p
        self.loop = loop
        self.realtime = realtime
        self._start: float | None = None

    def _stamp(self, index: int) -> float:
        stamp = self._media_time(index)
        if self.realtime:
            now = time.monotonic()
            if self._start is None:
                self._start = now - stamp
            delay = self._start + stamp - now
            if delay > 0:
                self._closed.wait(delay)
        return stamp

    def _restart(self) -> bool:
        if not self.loop:
            return False
        with self._lock:
            ok = self._cap.set(cv2.CAP_PROP_POS_FRAMES, 0)
        return bool(ok)


class ImageSource(FrameSource):
    """Still photos delivered as an endless stream, cycling through ``paths``.

    Raises
    ------
    SourceError
        When there are no paths or a photo cannot be read (the message names the file).
    """

    def __init__(self, paths: Sequence[str | Path], fps: float | None = None, realtime: bool = False,
                 config: SourcesConfig | None = None) -> None:
        cfg = config or default_config()
        if not paths:
            raise SourceError("no photos given")
        images: list[NDArray[np.uint8]] = []
        for path in paths:
            try:
                images.append(read_image(path).image)
            except ImageError as exc:
                raise SourceError(str(exc)) from exc
        self.name = str(paths[0]) if len(paths) == 1 else f"{len(paths)} photos"
        self._images = images
        self._fps = float(fps or cfg.image_fps)
        self.realtime = realtime
        self._closed = threading.Event()

    def frames(self) -> Iterator[Frame]:
        index = 0
        start = time.monotonic()
        while not self._closed.is_set():
            stamp = index / self._fps
            if self.realtime:
                delay = start + stamp - time.monotonic()
                if delay > 0 and self._closed.wait(delay):
                    return
            yield Frame(self._images[index % len(self._images)], stamp, index)
            index += 1

    def close(self) -> None:
        self._closed.set()


class DemoSource(FrameSource):
    """The built-in demo table (:class:`vision.synth.demo.DemoTable`) as a frame source."""

    def __init__(self, seed: int = 0, size: tuple[int, int] = (1280, 720), fps: float | None = None,
                 realtime: bool = True, config: SourcesConfig | None = None) -> None:
        from vision.synth.demo import DemoTable

        cfg = config or default_config()
        self.name = f"demo table (seed {seed})"
        self.table = DemoTable(seed, size=size)
        self._fps = float(fps or cfg.demo_fps)
        self.realtime = realtime
        self._closed = threading.Event()

    def frames(self) -> Iterator[Frame]:
        for frame in self.table.frames(fps=self._fps, realtime=self.realtime, stop=self._closed):
            if self._closed.is_set():
                return
            yield frame

    def close(self) -> None:
        self._closed.set()


def open_source(spec: str | int, *, realtime: bool = True, loop: bool = True,
                config: SourcesConfig | None = None) -> FrameSource:
    """Open a source from a command-line style specification.

    Parameters
    ----------
    spec : str or int
        ``0`` / ``"0"`` (a camera index); ``"demo"`` or ``"demo:SEED"``; an ``http(s)://`` or
        ``rtsp://`` URL; or the path of an existing video file or photo (classified by extension).
    realtime : bool
        Pace files, photos and the demo at their frame rate.
    loop : bool
        Loop video files.

    Raises
    ------
    SourceError
        When the specification names nothing usable or the source cannot be opened.
    """
    cfg = config or default_config()
    if isinstance(spec, bool):
        raise SourceError(f"source {spec!r}: expected a camera index, file, URL or 'demo'")
    if isinstance(spec, int):
        return CameraSource(spec, config=cfg)
    text = str(spec).strip()
    if not text:
        raise SourceError("source: empty specification")
    if text.isdigit():
        return CameraSource(int(text), config=cfg)
    lowered = text.lower()
    if lowered == "demo" or lowered.startswith("demo:"):
        seed_text = text[5:] if ":" in text else "0"
        if not seed_text.isdigit():
            raise SourceError(f"source {text!r}: the demo seed must be a whole number")
        return DemoSource(int(seed_text), realtime=realtime, config=cfg)
    scheme = urlparse(text).scheme.lower()
    if scheme in cfg.url_schemes:
        return UrlSource(text, config=cfg)
    path = Path(text)
    if not path.exists():
        raise SourceError(f"source {text!r}: no such file, and not a camera index, URL or 'demo'")
    if path.is_dir():
        raise SourceError(f"source {text!r}: is a folder; give a video file or a photo")
    suffix = path.suffix.lower()
    if suffix in cfg.image_extensions:
        return ImageSource([path], realtime=realtime, config=cfg)
    if suffix in cfg.video_extensions:
        return VideoFileSource(path, loop=loop, realtime=realtime, config=cfg)
    raise SourceError(f"source {text!r}: unknown file type {suffix or '(none)'}; expected a video or a photo")


State = Literal["connecting", "connected", "retrying", "ended", "closed"]


@dataclass(frozen=True)
class SourceStatus:
    """What a :class:`ReconnectingSource` is doing.

    Attributes
    ----------
    state : {"connecting", "connected", "retrying", "ended", "closed"}
    name : str
        The source's name once it opened, else ``""``.
    message : str
        The last error, for ``retrying``.
    retry_at : float or None
        ``time.monotonic()`` of the next attempt, for ``retrying``.
    attempts : int
        Failed attempts since the last frame.
    """

    state: State
    name: str = ""
    message: str = ""
    retry_at: float | None = None
    attempts: int = 0

    def retry_in(self, now: float | None = None) -> float | None:
        """Seconds until the next attempt, or ``None``."""
        if self.retry_at is None:
            return None
        return max(0.0, self.retry_at - (time.monotonic() if now is None else now))

    def describe(self, now: float | None = None) -> str:
        """One line for the page: ``connected``, ``retrying in 4 s (camera 0: ...)``, ``ended``."""
        if self.state == "retrying":
            wait = self.retry_in(now) or 0.0
            text = f"retrying in {wait:.0f} s"
            return f"{text} ({self.message})" if self.message else text
        if self.state == "connected" and self.name:
            return f"connected to {self.name}"
        return self.state

    def to_json(self) -> dict[str, object]:
        wait = self.retry_in()
        return {"state": self.state, "name": self.name, "message": self.message,
                "retry_in": None if wait is None else round(wait, 1), "attempts": self.attempts,
                "text": self.describe()}


class ReconnectingSource(FrameSource):
    """Keeps a source alive: reopens it with exponential backoff whenever it fails.

    Parameters
    ----------
    factory : callable
        Builds (and opens) a fresh source; may raise :class:`SourceError` or any other error.
    backoff : (initial, factor, max) seconds, optional
        Defaults from ``sources.json``. The delay resets after each delivered frame.

    ``frames()`` never raises: a failing source is retried, a finite source that ends sets the
    status to ``ended`` and ``frames()`` returns, and ``close()`` (from any thread) makes it return.
    Frame indices count on across reconnections.
    """

    def __init__(self, factory: Callable[[], FrameSource],
                 backoff: tuple[float, float, float] | None = None,
                 config: SourcesConfig | None = None) -> None:
        cfg = config or default_config()
        self._factory = factory
        self.backoff = backoff or (cfg.backoff_initial_s, cfg.backoff_factor, cfg.backoff_max_s)
        initial, factor, most = self.backoff
        if initial <= 0 or factor < 1 or most < initial:
            raise SourceError(f"backoff {self.backoff!r}: need initial > 0, factor >= 1, max >= initial")
        self.name = "reconnecting source"
        self._closed = threading.Event()
        self._current: FrameSource | None = None
        self._lock = threading.Lock()
        self.status = SourceStatus("connecting")

    def delay(self, attempts: int) -> float:
        """The wait before attempt ``attempts + 1`` (``attempts >= 1``)."""
        initial, factor, most = self.backoff
        return float(min(most, initial * factor ** max(0, attempts - 1)))

    def frames(self) -> Iterator[Frame]:
        attempts = 0
        index = 0
        while not self._closed.is_set():
            try:
                source = self._factory()
                with self._lock:
                    if self._closed.is_set():
                        source.close()
                        break
                    self._current = source
                self.name = source.name
                self.status = SourceStatus("connected", name=source.name)
                for frame in source.frames():
                    attempts = 0
                    yield Frame(frame.image, frame.timestamp, index)
                    index += 1
                    if self._closed.is_set():
                        break
                else:
                    if not self._closed.is_set():
                        self.status = SourceStatus("ended", name=source.name)
                        self._drop_current()
                        return
            except Exception as exc:  # any failure of a device or stream means: try again later
                attempts += 1
                self._drop_current()
                wait = self.delay(attempts)
                self.status = SourceStatus("retrying", name="", message=str(exc) or type(exc).__name__,
                                           retry_at=time.monotonic() + wait, attempts=attempts)
                self._closed.wait(wait)
        self._drop_current()
        self.status = SourceStatus("closed")

    def _drop_current(self) -> None:
        with self._lock:
            current, self._current = self._current, None
        if current is not None:
            # closing a broken device must not break the retry loop
            with contextlib.suppress(Exception):
                current.close()

    def close(self) -> None:
        self._closed.set()
        self._drop_current()
        self.status = SourceStatus("closed")
