"""HTML pages, the MJPEG stream and the live state through the Flask test client."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from flask.testing import FlaskClient

from webui.app import create_app


@pytest.mark.parametrize(("url", "marker"), [
    ("/", b'id="live-reading"'),
    ("/silver-gold", b'id="setup-form"'),
    ("/splendor-duel", b'data-game="splendor-duel"'),
    ("/pads/fools-gold", b"Fool&#39;s Gold score pad"),
    ("/pads/valdora", b'data-game="valdora"'),
    ("/pads/my-gold-mine", b'id="pad-add-round"'),
    ("/history", b"No games yet."),
])
def test_pages_render_with_upload_form(client: FlaskClient, url: str, marker: bytes) -> None:
    res = client.get(url)
    assert res.status_code == 200
    body = res.data
    assert marker in body
    assert b'id="upload-form"' in body
    assert b"http://" not in body and b"https://" not in body  # nothing from the network


def test_static_assets_are_served(client: FlaskClient) -> None:
    names = ("app.css", "common.js", "live.js", "setup.js", "silver_gold.js", "splendor_duel.js", "pad.js")
    for name in names:
        assert client.get(f"/static/{name}").status_code == 200, name


def test_game_pages_embed_their_session(client: FlaskClient, helpers: Any) -> None:
    sg = helpers.session(client)
    sd = helpers.session(client, "splendor-duel")
    assert b'id="session-data"' in client.get(f"/silver-gold/{sg['id']}").data
    assert client.get(f"/splendor-duel/{sd['id']}").status_code == 200
    assert client.get(f"/silver-gold/{sd['id']}").status_code == 404
    assert client.get("/silver-gold/999").status_code == 404
    page = client.get(f"/history/{sg['id']}")
    assert page.status_code == 200 and b"Resume this game" in page.data
    assert b"Ann" in client.get("/history").data
    assert client.get("/history/999").status_code == 404
    assert client.get("/pads/chess").status_code == 404
    assert client.get("/pads").status_code == 302


def test_no_camera_means_no_video(client: FlaskClient) -> None:
    assert client.get("/video.mjpg").status_code == 404
    assert client.get("/snapshot.jpg").status_code == 404
    live = client.get("/api/live").json
    assert live["state"] is None and live["status"]["state"] == "none"


def test_live_view_streams_jpeg_frames(tmp_path: Path, helpers: Any, rng: np.random.Generator) -> None:
    app = create_app({"DATABASE": str(tmp_path / "g.db"), "TESTING": True, "SOURCE": "fake",
                      "DEMO_FALLBACK": True, "SOURCE_FACTORY": lambda: helpers.source(rng)})
    try:
        client = app.test_client()
        page = client.get("/")
        assert "Demo table — no camera found".encode() in page.data
        assert b'src="/video.mjpg"' in page.data
        res = client.get("/video.mjpg")
        assert res.mimetype == "multipart/x-mixed-replace"
        chunk = next(iter(res.response))
        assert chunk.startswith(b"--frame\r\nContent-Type: image/jpeg")
        assert b"\xff\xd8" in chunk  # a JPEG starts here
        res.close()
        snap = client.get("/snapshot.jpg")
        assert snap.status_code == 200 and snap.data[:2] == b"\xff\xd8"
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            live = client.get("/api/live").json
            if live["status"]["frames"] > 2:
                break
            time.sleep(0.05)
        assert live["status"]["state"] == "live"
        assert live["status"]["banner"] == "Demo table — no camera found"
    finally:
        app.extensions["goldtable.capture"].stop()


def test_unplugged_camera_is_reported_and_the_page_still_works(tmp_path: Path) -> None:
    def broken() -> Any:
        raise OSError("camera 0: no such device")

    fast = {"backoff_initial_s": 0.05, "backoff_max_s": 0.1}
    app = create_app({"DATABASE": str(tmp_path / "g.db"), "TESTING": True, "SOURCE": 0,
                      "SOURCE_FACTORY": broken, "SETTINGS": fast})
    try:
        client = app.test_client()
        client.get("/api/live")
        deadline = time.monotonic() + 10
        status: dict[str, Any] = {}
        while time.monotonic() < deadline:
            status = client.get("/api/health").json["source"]
            if status["state"] == "retrying":
                break
            time.sleep(0.05)
        assert status["state"] == "retrying"
        assert "no such device" in status["text"]
        assert status["banner"] is None
        assert client.get("/").status_code == 200
        assert client.get("/snapshot.jpg").status_code == 503
    finally:
        app.extensions["goldtable.capture"].stop()
