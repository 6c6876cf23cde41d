"""``goldtable serve``: bad options, the self-signed certificate, and a server killed mid-game."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from webui.cli import main

GOLDTABLE = str(Path(sys.executable).with_name("goldtable"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def request(url: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as res:
        return json.loads(res.read())


def start(port: int, db: Path) -> subprocess.Popen[str]:
    env = dict(os.environ, XDG_DATA_HOME=str(db.parent / "xdg"))
    proc = subprocess.Popen([GOLDTABLE, "serve", "--demo", "--port", str(port), "--db", str(db)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"the server exited: {proc.stdout.read() if proc.stdout else ''}")
        try:
            if request(f"http://127.0.0.1:{port}/api/health")["status"] == "ok":
                return proc
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.2)
    proc.kill()
    raise AssertionError("the server did not answer within 60 s")


def test_killed_server_resumes_the_game(tmp_path: Path) -> None:
    db = tmp_path / "games.db"
    port = free_port()
    proc = start(port, db)
    base = f"http://127.0.0.1:{port}/api"
    try:
        first_line = proc.stdout.readline() if proc.stdout else ""
        assert first_line.strip() == "source: the demo table"
        duel = [{"name": "Ann", "start_player": True}, {"name": "Ben"}]
        session = request(f"{base}/sessions", {"game": "splendor-duel", "players": duel})
        sid = session["id"]
        board = ["WUGRK", "PYWUG", "RKWUG", "RKPYW", "UGRK."]
        request(f"{base}/sessions/{sid}/events", {"kind": "note", "payload": {"board": board}})
        after = ["WUGRK", "PYWUG", "RK.UG", "RK.YW", "UG.K."]
        move = request(f"{base}/sessions/{sid}/turns",
                       {"check": {"game": "splendor-duel", "before": board, "after": after}, "seat": 1})
        assert move["verdict"]["legal"] is True, move
        request(f"{base}/sessions/{sid}/events", {"kind": "correction", "payload": {"privileges": {"2": 2}}})
        before_kill = request(f"{base}/sessions/{sid}")
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        if proc.stdout:
            proc.stdout.close()
    assert len(before_kill["events"]) == 4
    proc = start(port, db)
    try:
        assert request(f"{base}/sessions/{sid}") == before_kill
        request(f"{base}/sessions/{sid}/events", {"kind": "note", "payload": {"turn": 2}})
        assert len(request(f"{base}/sessions/{sid}")["events"]) == 5
    finally:
        proc.terminate()
        proc.wait(10)
        if proc.stdout:
            proc.stdout.close()


@pytest.mark.parametrize(("args", "message"), [
    (["--camera", "1", "--demo"], "at most one of"),
    (["--video", "no-such-file.mp4"], "no such file"),
])
def test_bad_options_exit_2_with_one_line(args: list[str], message: str) -> None:
    result = CliRunner().invoke(main, ["serve", *args])
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


def test_unusable_database_path_exits_2(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    result = CliRunner().invoke(main, ["serve", "--demo", "--db", str(blocker / "games.db")])
    assert result.exit_code == 2
    assert "DATABASE" in result.output


def test_port_in_use_exits_2_with_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = CliRunner().invoke(main, ["serve", "--demo", "--port", str(port),
                                           "--db", str(tmp_path / "games.db")])
    assert result.exit_code == 2, result.output
    assert f"cannot listen on 127.0.0.1:{port}" in result.output
    assert "Traceback" not in result.output


def test_self_signed_certificate(tmp_path: Path) -> None:
    from webui.commands.serve import self_signed_certificate

    cert, key = self_signed_certificate(tmp_path, "192.168.1.20")
    text = subprocess.run(["openssl", "x509", "-in", str(cert), "-noout", "-text"], capture_output=True,
                          text=True, check=True).stdout
    assert "IP Address:192.168.1.20" in text and "DNS:localhost" in text
    assert key.read_text().startswith("-----BEGIN PRIVATE KEY-----")


def test_no_camera_falls_back_to_the_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    from webui.commands import serve

    monkeypatch.setattr("webui.capture.probe_source", lambda spec, timeout: "camera 0: cannot open")
    assert serve.choose_source(None, None, None, False, 0.1) == (
        "demo:0", True, "no camera found (camera 0: cannot open); showing the demo table")
    spec, fallback, _ = serve.choose_source(3, None, None, False, 0.1)
    assert (spec, fallback) == (3, False)
    monkeypatch.setattr("webui.capture.probe_source", lambda spec, timeout: None)
    assert serve.choose_source(None, None, None, False, 0.1)[:2] == (0, False)
