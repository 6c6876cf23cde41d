"""One capture thread per frame source, fanned out to every client.

The thread reads frames through :class:`vision.sources.ReconnectingSource` (which retries an
unplugged camera or a dropped stream with backoff and reports its status), runs the live reader
(:class:`vision.track.LiveReader` and :class:`vision.track.Tracker`), draws the overlays and keeps
the latest JPEG. MJPEG clients wait for the next frame on a condition variable (the
flask-video-streaming pattern); server-sent-event clients get the tracker's events through
:class:`EventHub`. The thread starts on the first client and stops when nobody has watched for
``idle_timeout_s``. Nothing here raises into a request: failures become status.

The :class:`Capture` object lives in ``app.extensions["goldtable.capture"]``; there is no module
state.
"""

from __future__ import annotations

import contextlib
import dataclasses
import queue
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from webui import Settings

__all__ = ["DEMO_BANNER", "Capture", "EventHub", "FrameProfile", "LiveReading", "ReaderLike", "probe_source",
           "scaled_profile"]

DEMO_BANNER = "Demo table — no camera found"


def _jsonable(value: Any) -> Any:
    """JSON form of a reading/state/event: ``to_json()`` when offered, else dataclass fields."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    to_json = getattr(value, "to_json", None)
    if callable(to_json):
        return to_json()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return str(value)


@dataclass(frozen=True)
class LiveReading:
    """What the live reader made of the latest frames.

    ``state`` is the stable table state in JSON form (the shape of ``goldtable analyze``);
    ``events`` the changes accepted with this frame; ``scene`` the raw reading used for overlays.
    """

    state: Mapping[str, Any] | None
    events: tuple[Mapping[str, Any], ...] = ()
    scene: Any = None


class ReaderLike(Protocol):
    """A live reader: fed every frame (BGR ``uint8`` ``(H, W, 3)``) with its timestamp in seconds."""

    def update(self, image: NDArray[np.uint8], timestamp: float) -> LiveReading: ...


class _TrackReader:
    """Adapter over :class:`vision.track.LiveReader` (cheap change detection, full reading on
    settled changes, :class:`vision.track.Tracker` for stability and events)."""

    def __init__(self, reader: Any) -> None:
        self._reader = reader

    def update(self, image: NDArray[np.uint8], timestamp: float) -> LiveReading:
        from vision.sources import Frame

        out = self._reader.process(Frame(image, timestamp, 0))
        events = tuple(_jsonable(e) for e in out.events)
        return LiveReading(_jsonable(out.state), events, self._reader.last_reading)


SeatOf = Callable[[tuple[float, float]], "str | None"]


def scaled_profile(profile: Any, size: tuple[int, int]) -> Any:
    """``profile`` for images of ``size`` (width, height): :meth:`calibration.profile.Profile.scaled_to`
    when the profile offers it (its homography and seat zones refer to the calibration photo's
    pixels), else the profile unchanged."""
    scaled_to = getattr(profile, "scaled_to", None)
    if profile is None or not callable(scaled_to):
        return profile
    return scaled_to((int(size[0]), int(size[1])))


class FrameProfile:
    """The calibration profile scaled to the frames being read: frames of another size than the
    calibration photo (a lower stream resolution, a resized upload) get the profile's homography
    and seat zones scaled to them. Scaled copies are kept per frame size.
    """

    def __init__(self, profile: Any) -> None:
        self.profile = profile
        self._scaled: dict[tuple[int, int], Any] = {}
        self._current = profile

    def for_image(self, image: NDArray[np.uint8]) -> Any:
        """The profile for a BGR ``uint8`` ``(H, W, 3)`` image (it becomes the current one)."""
        size = (int(image.shape[1]), int(image.shape[0]))
        if size not in self._scaled:
            self._scaled[size] = scaled_profile(self.profile, size)
        self._current = self._scaled[size]
        return self._current

    def seat_of(self, point: tuple[float, float]) -> str | None:
        """The seat zone holding ``point`` (pixels of the last image given to :meth:`for_image`)."""
        seat_of = getattr(self._current, "seat_of", None)
        return seat_of(point) if callable(seat_of) else None


def seat_function(spec: str | int | None, profile: Any) -> SeatOf | None:
    """Who sits where: the profile's seat zones, else the demo table's halves, else nobody."""
    if isinstance(profile, FrameProfile):
        if callable(getattr(profile.profile, "seat_of", None)):
            return profile.seat_of
    elif callable(getattr(profile, "seat_of", None)):
        return profile.seat_of  # type: ignore[no-any-return]
    text = str(spec).strip().lower() if spec is not None else ""
    if text == "demo" or text.startswith("demo:"):
        seed = text[5:] if text.startswith("demo:") else "0"
        if seed.isdigit():
            try:
                from vision.synth.demo import DemoTable
            except ImportError:
                return None
            table_seat: SeatOf = DemoTable(int(seed)).seat_of
            return table_seat
    return None


def default_reader(game: str, profile: Any, settings: Settings, seat_of: SeatOf | None = None) -> ReaderLike:
    """The live reader: :class:`vision.track.LiveReader` (full reading on settled changes) feeding a
    :class:`vision.track.Tracker`; ``seat_of(point)`` tells the tracker whose card is whose.

    ``profile`` may be a :class:`FrameProfile`: each frame is then read with the profile scaled to
    its size.
    """
    from vision.analyze import analyze
    from vision.track import LiveReader, Tracker

    def analyze_fn(image: NDArray[np.uint8]) -> Any:
        used = profile.for_image(image) if isinstance(profile, FrameProfile) else profile
        return analyze(image, game, None, used)

    return _TrackReader(LiveReader(analyze_fn, Tracker(seat_of=seat_of)))


def draw_overlays(image: NDArray[np.uint8], scene: Any) -> NDArray[np.uint8]:
    """Draw what was recognised onto a copy of ``image`` (BGR ``uint8`` ``(H, W, 3)``).

    Uses :func:`vision.cards.draw.draw_cards` and :func:`vision.board.draw.draw_board` when the
    scene carries cards/a board and those modules are installed; returns the image unchanged
    otherwise.
    """
    out = image
    cards = getattr(scene, "cards", None)
    if cards:
        try:
            from vision.cards.draw import draw_cards

            out = draw_cards(out, cards)
        except ImportError:
            pass
    board = getattr(scene, "board", None)
    if board is not None:
        try:
            from vision.board.draw import draw_board

            out = draw_board(out, board)
        except ImportError:
            pass
    return out


class EventHub:
    """Fan-out of JSON events to server-sent-event clients; a slow client loses its oldest events."""

    def __init__(self, queue_size: int = 64) -> None:
        self._queue_size = queue_size
        self._lock = threading.Lock()
        self._subscribers: list[queue.Queue[dict[str, Any]]] = []

    def subscribe(self) -> queue.Queue[dict[str, Any]]:
        q: queue.Queue[dict[str, Any]] = queue.Queue(self._queue_size)
        with self._lock:
            self._subscribers.append(q)
        return q

    def unsubscribe(self, q: queue.Queue[dict[str, Any]]) -> None:
        with self._lock, contextlib.suppress(ValueError):
            self._subscribers.remove(q)

    @property
    def listeners(self) -> int:
        with self._lock:
            return len(self._subscribers)

    def publish(self, event: Mapping[str, Any]) -> None:
        item = dict(event)
        with self._lock:
            targets = list(self._subscribers)
        for q in targets:
            while True:
                try:
                    q.put_nowait(item)
                    break
                except queue.Full:
                    with contextlib.suppress(queue.Empty):
                        q.get_nowait()


def probe_source(spec: str | int, timeout_s: float) -> str | None:
    """Try to open ``spec`` and read one frame within ``timeout_s``.

    Returns
    -------
    str or None
        ``None`` when a frame arrived, else the reason it did not.
    """
    result: dict[str, str | None] = {"error": "no frame within the time limit"}

    def attempt() -> None:
        try:
            from vision.sources import open_source

            with open_source(spec, realtime=False) as src:
                for _ in src.frames():
                    result["error"] = None
                    return
                result["error"] = "the source delivered no frame"
        except Exception as exc:  # any failure means: not usable
            result["error"] = str(exc) or type(exc).__name__

    t = threading.Thread(target=attempt, name="goldtable-probe", daemon=True)
    t.start()
    t.join(timeout_s)
    return result["error"]


class Capture:
    """The capture thread for one source and its clients.

    Parameters
    ----------
    spec : str or int or None
        A :func:`vision.sources.open_source` specification (camera index, file, URL, ``demo``);
        ``None`` for no server-side source (browser camera and uploads only).
    settings : Settings
        Timeouts, backoff and JPEG settings.
    game : str
        Which readers to run: ``auto``, ``silver-gold`` or ``splendor-duel``.
    profile : ProfileLike, optional
        Calibrated table passed to the readers.
    demo_fallback : bool
        The source is the demo table because no camera was found (the page shows a banner).
    source_factory : callable, optional
        Builds a fresh :class:`vision.sources.FrameSource`; defaults to ``open_source(spec)``.
    reader_factory : callable, optional
        Builds a fresh :class:`ReaderLike` for each run of the thread.
    hub : EventHub, optional
        Where the tracker's events go.
    """

    def __init__(
        self,
        spec: str | int | None,
        settings: Settings,
        *,
        game: str = "auto",
        profile: Any = None,
        demo_fallback: bool = False,
        source_factory: Callable[[], Any] | None = None,
        reader_factory: Callable[[], ReaderLike] | None = None,
        hub: EventHub | None = None,
    ) -> None:
        self.spec = spec
        self.settings = settings
        self.game = game
        self.profile = profile
        self.demo_fallback = demo_fallback
        self.hub = hub or EventHub(settings.sse_queue_size)
        self._source_factory = source_factory
        self._reader_factory = reader_factory or self._default_reader
        self._cond = threading.Condition()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._source: Any = None
        self._jpeg: bytes | None = None
        self._seq = 0
        self._last_access = 0.0
        self._reading: LiveReading = LiveReading(None)
        self._frames = 0
        self._state = "idle" if spec is not None else "none"
        self._message = "starts when a page is opened" if spec is not None else "no server-side camera"
        self._source_status: dict[str, Any] | None = None
        self._judge = self._new_judge()

    def _new_judge(self) -> Any:
        from webui.live_judge import LiveJudge

        return LiveJudge(self.settings.live_verdicts_kept, self.settings.live_new_board_fraction)

    def _default_reader(self) -> ReaderLike:
        frames = FrameProfile(self.profile)
        return default_reader(self.game, frames, self.settings, seat_function(self.spec, frames))

    # -- clients ----------------------------------------------------------------------------------

    def touch(self) -> None:
        """Mark that a client is watching; start the thread when it is not running."""
        self._last_access = time.monotonic()
        if self.spec is None:
            return
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._stop.clear()
                self._thread = threading.Thread(target=self._run, name="goldtable-capture", daemon=True)
                self._thread.start()

    def wait_frame(self, after: int, timeout: float) -> tuple[int, bytes | None]:
        """Block until a frame newer than ``after`` is ready (or ``timeout``); returns (seq, jpeg)."""
        self.touch()
        with self._cond:
            self._cond.wait_for(lambda: self._seq > after or self._stop.is_set(), timeout)
            return self._seq, self._jpeg

    def frames(self) -> Iterator[bytes]:
        """JPEG frames for one client, each new one once, paced to ``mjpeg_max_fps``."""
        seq = 0
        min_gap = 1.0 / max(0.1, self.settings.mjpeg_max_fps)
        last = 0.0
        while not self._stop.is_set():
            seq, jpeg = self.wait_frame(seq, self.settings.frame_wait_s)
            if jpeg is None:
                if self.spec is None:
                    return
                continue
            wait = min_gap - (time.monotonic() - last)
            if wait > 0:
                time.sleep(wait)
            last = time.monotonic()
            yield jpeg

    def latest_jpeg(self) -> bytes | None:
        self.touch()
        return self._jpeg

    def reading(self) -> dict[str, Any]:
        """The latest stable table state, the recent live verdicts (oldest first, see
        :class:`webui.live_judge.LiveJudge`) and the capture status, as JSON."""
        self.touch()
        return {"state": self._reading.state, "verdicts": list(self._judge.recent), "status": self.status()}

    def status(self) -> dict[str, Any]:
        src = self._source
        source_status = _jsonable(getattr(src, "status", None)) if src is not None else self._source_status
        text = self._message
        if isinstance(source_status, Mapping) and source_status.get("text") and self._state != "idle":
            text = str(source_status["text"])
        state = self._state
        retrying = isinstance(source_status, Mapping) and source_status.get("state") == "retrying"
        if retrying and state in ("live", "starting"):
            state = "retrying"
        return {
            "source": "none" if self.spec is None else str(self.spec),
            "state": state,
            "text": text or state,
            "demo": self.demo_fallback or str(self.spec).lower().startswith("demo"),
            "banner": DEMO_BANNER if self.demo_fallback else None,
            "frames": self._frames,
            "listeners": self.hub.listeners,
        }

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the thread (used at shutdown and by tests)."""
        self._stop.set()
        src = self._source
        if src is not None:
            with contextlib.suppress(Exception):
                src.close()
        with self._cond:
            self._cond.notify_all()
        t = self._thread
        if t is not None:
            t.join(timeout)

    # -- the thread -------------------------------------------------------------------------------

    def _open(self) -> Any:
        if self._source_factory is not None:
            return self._source_factory()
        from vision.sources import ReconnectingSource, open_source

        s = self.settings
        spec = self.spec
        assert spec is not None
        return ReconnectingSource(lambda: open_source(spec, realtime=True, loop=True),
                                  backoff=(s.backoff_initial_s, s.backoff_factor, s.backoff_max_s))

    def _idle(self) -> bool:
        if self.hub.listeners > 0:
            self._last_access = time.monotonic()
        return time.monotonic() - self._last_access > self.settings.idle_timeout_s

    def _run(self) -> None:
        """The capture loop. Never raises: every failure becomes status and a backoff wait."""
        delay = self.settings.backoff_initial_s
        while not self._stop.is_set() and not self._idle():
            self._state, self._message = "starting", "opening the source"
            try:
                reader = self._reader_factory()
                self._judge = self._new_judge()
                self._source = self._open()
                for frame in self._source.frames():
                    self._handle(frame, reader)
                    delay = self.settings.backoff_initial_s
                    if self._stop.is_set() or self._idle():
                        break
                else:
                    if not self._stop.is_set() and not self._idle():
                        self._state, self._message = "ended", "the source has no more frames"
                        self._release()
                        self._stop.wait(self.settings.backoff_max_s)
                        continue
            except Exception as exc:  # a broken source or reader must never end the server
                self._state, self._message = "retrying", f"{type(exc).__name__}: {exc}"
                self._release()
                self._stop.wait(delay)
                delay = min(self.settings.backoff_max_s, delay * self.settings.backoff_factor)
                continue
            self._release()
        self._state = "idle" if not self._stop.is_set() else "stopped"
        self._message = "paused: nobody is watching" if self._state == "idle" else "stopped"
        with self._cond:
            self._cond.notify_all()

    def _release(self) -> None:
        src, self._source = self._source, None
        if src is not None:
            status = getattr(src, "status", None)
            self._source_status = _jsonable(status) if status is not None else None
            with contextlib.suppress(Exception):
                src.close()

    def _handle(self, frame: Any, reader: ReaderLike) -> None:
        image = getattr(frame, "image", frame)
        timestamp = float(getattr(frame, "timestamp", time.monotonic()))
        try:
            live = reader.update(image, timestamp)
        except Exception as exc:  # a reader failure on one frame must not stop the live view
            live = LiveReading(None)
            self._message = f"reader unavailable: {type(exc).__name__}: {exc}"
        if live.state is not None or live.scene is not None:
            self._reading = live
        for event in live.events:
            self.hub.publish({"type": "table", "event": event})
        try:
            verdicts = self._judge.feed(live.events, live.state) if live.state is not None else []
        except Exception as exc:  # a judging bug must not stop the live view
            verdicts = []
            self._message = f"judge unavailable: {type(exc).__name__}: {exc}"
        for verdict in verdicts:
            self.hub.publish({"type": "verdict", "verdict": verdict})
        try:
            shown = draw_overlays(image, self._reading.scene)
        except Exception:  # a drawing bug must not stop the live view
            shown = image
        jpeg = encode_jpeg(shown, self.settings.mjpeg_max_side, self.settings.mjpeg_quality)
        self._frames += 1
        self._state = "live"
        if not self._message.startswith("reader unavailable"):
            self._message = ""
        with self._cond:
            self._jpeg = jpeg
            self._seq += 1
            self._cond.notify_all()


def encode_jpeg(image: NDArray[np.uint8], max_side: int, quality: int) -> bytes:
    """JPEG bytes of a BGR ``uint8`` ``(H, W, 3)`` image, shrunk so its longer side is ``max_side``."""
    import cv2

    h, w = image.shape[:2]
    if max(h, w) > max_side:
        f = max_side / max(h, w)
        image = cv2.resize(image, (max(1, round(w * f)), max(1, round(h * f))), interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise ValueError("JPEG encoding failed")
    return buf.tobytes()
