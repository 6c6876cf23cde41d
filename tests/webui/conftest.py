"""Fixtures of the web-layer tests: an app on a temporary database, small generated images and
a frame source that needs no camera."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from flask import Flask
from flask.testing import FlaskClient

from webui.app import create_app


def png_bytes(rng: np.random.Generator, size: tuple[int, int] = (96, 72)) -> bytes:
    """A small noisy PNG made from ``rng``."""
    w, h = size
    image = rng.integers(0, 256, size=(h, w, 3), dtype=np.uint8)
    ok, buf = cv2.imencode(".png", image)
    assert ok
    return buf.tobytes()


class FakeSource:
    """A frame source delivering ``count`` small generated frames, then failing or ending."""

    def __init__(self, rng: np.random.Generator, count: int = 1000, fail: bool = False,
                 interval: float = 0.01) -> None:
        from vision.sources import Frame

        self.name = "fake table"
        self._frame = Frame
        self._image = rng.integers(0, 256, size=(48, 64, 3), dtype=np.uint8)
        self.count = count
        self.fail = fail
        self.interval = interval
        self.closed = threading.Event()

    def frames(self) -> Iterator[Any]:
        for i in range(self.count):
            if self.closed.is_set():
                return
            yield self._frame(self._image, i * self.interval, i)
            time.sleep(self.interval)
        if self.fail:
            from vision.errors import SourceError

            raise SourceError("fake table: unplugged")

    def close(self) -> None:
        self.closed.set()


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    application = create_app({"DATABASE": str(tmp_path / "games.db"), "TESTING": True})
    yield application
    application.extensions["goldtable.capture"].stop()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def make_session(client: FlaskClient, game: str = "silver-gold",
                 names: tuple[str, ...] = ("Ann", "Ben")) -> dict[str, Any]:
    players = [{"name": n, "seat": i + 1, "start_player": i == 0} for i, n in enumerate(names)]
    res = client.post("/api/sessions", json={"game": game, "players": players})
    assert res.status_code == 201, res.json
    data: dict[str, Any] = res.json
    return data


@pytest.fixture
def helpers() -> Any:
    """The helper functions above, for test modules (importlib mode cannot import conftest)."""

    class Helpers:
        png = staticmethod(png_bytes)
        source = FakeSource
        session = staticmethod(make_session)

    return Helpers
