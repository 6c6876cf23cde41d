"""``goldtable serve``: start the companion web page."""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import click

from webui.commands._common import BadInput, friendly_errors


def self_signed_certificate(folder: Path, host: str) -> tuple[Path, Path]:
    """Write a self-signed certificate and key for ``host`` into ``folder`` with ``openssl``.

    Raises
    ------
    BadInput
        When the ``openssl`` command is missing or fails.
    """
    openssl = shutil.which("openssl")
    if openssl is None:
        raise BadInput("--https needs the 'openssl' command (apt-get install openssl)")
    cert, key = folder / "cert.pem", folder / "key.pem"
    names = ["DNS:localhost", "IP:127.0.0.1"]
    if host not in ("localhost", "127.0.0.1", "0.0.0.0", "::"):
        names.append(f"IP:{host}" if host.replace(".", "").isdigit() or ":" in host else f"DNS:{host}")
    cmd = [openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "30",
           "-subj", "/CN=goldtable", "-addext", "subjectAltName=" + ",".join(names),
           "-keyout", str(key), "-out", str(cert)]
    result = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise BadInput(f"openssl could not make a certificate: {result.stderr.strip()[:300]}")
    return cert, key


def check_port_free(host: str, port: int) -> None:
    """Raise ``OSError`` when ``host:port`` cannot be bound (the web server would otherwise print
    its own message and exit with a different code)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind((host, port))


def choose_source(camera: int | None, video: str | None, url: str | None, demo: bool,
                  probe_s: float, demo_seed: int = 0) -> tuple[str | int, bool, str]:
    """The source spec, whether it is the demo fallback, and a line saying what was chosen."""
    from webui.capture import probe_source

    given = [x for x in (camera is not None, video is not None, url is not None, demo) if x]
    if len(given) > 1:
        raise BadInput("give at most one of --camera, --video, --url and --demo")
    table = f"demo:{demo_seed}"
    if demo:
        return table, False, "source: the demo table"
    if video is not None:
        if not Path(video).is_file():
            raise BadInput(f"--video {video}: no such file")
        return video, False, f"source: video {video}"
    if url is not None:
        return url, False, f"source: stream {url}"
    index = 0 if camera is None else camera
    problem = probe_source(index, probe_s)
    if problem is None:
        return index, False, f"source: camera {index}"
    if camera is not None:
        # An explicit camera keeps being retried (it may be plugged in later).
        return index, False, f"source: camera {index} (not answering yet: {problem}; retrying)"
    return table, True, f"no camera found ({problem}); showing the demo table"


@click.command()
@click.option("--camera", type=click.IntRange(0, 63), default=None, help="Camera index (default: try 0).")
@click.option("--video", type=str, default=None, help="Play a video file as the table.")
@click.option("--url", type=str, default=None, help="An http(s)/rtsp stream of the table.")
@click.option("--demo", is_flag=True, help="Show the generated demo table.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on; 0.0.0.0 lets phones on the same network connect.")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True)
@click.option("--profile", type=str, default=None, help="Calibration profile name or file.")
@click.option("--https", "use_https", is_flag=True,
              help="Serve over https with a self-signed certificate (needed for phone cameras).")
@click.option("--db", type=click.Path(dir_okay=False), default=None,
              help="SQLite file for games (default: $XDG_DATA_HOME/goldtable/goldtable.db).")
@click.option("--game", type=click.Choice(["auto", "silver-gold", "splendor-duel"]), default="auto",
              show_default=True, help="Which live readers run.")
@friendly_errors
def serve(camera: int | None, video: str | None, url: str | None, demo: bool, host: str, port: int,
          profile: str | None, use_https: bool, db: str | None, game: str) -> None:
    """Start the companion web page and print the address to open.

    With no source it tries camera 0 and falls back to the demo table (the page says so).
    """
    from werkzeug.serving import make_server

    from webui import InvalidField, load_settings
    from webui.app import create_app

    settings = load_settings()
    spec, fallback, chosen = choose_source(camera, video, url, demo, settings.camera_probe_s,
                                           settings.demo_seed)
    config: dict[str, Any] = {"SOURCE": spec, "DEMO_FALLBACK": fallback, "PROFILE": profile, "GAME": game}
    if db is not None:
        config["DATABASE"] = db
    try:
        app = create_app(config)
    except InvalidField as exc:
        raise BadInput(str(exc)) from exc
    ssl_context: tuple[str, str] | None = None
    workdir: tempfile.TemporaryDirectory[str] | None = None
    if use_https:
        workdir = tempfile.TemporaryDirectory(prefix="goldtable-tls-")
        cert, key = self_signed_certificate(Path(workdir.name), host)
        ssl_context = (str(cert), str(key))
    scheme = "https" if use_https else "http"
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    try:
        check_port_free(host, port)
        server = make_server(host, port, app, threaded=True, ssl_context=ssl_context)
    except OSError as exc:
        app.extensions["goldtable.capture"].stop()
        raise BadInput(f"cannot listen on {host}:{port}: {exc.strerror or exc} "
                       "(is goldtable already running? try --port)") from exc
    click.echo(chosen)
    click.echo(f"games are saved in {app.config['DATABASE']}")
    click.echo(f"goldtable is running: open {scheme}://{shown}:{port}/  (Ctrl+C stops it)", nl=True)
    if host in ("0.0.0.0", "::"):
        click.echo("(other devices on this network: use this computer's address instead of 127.0.0.1)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        click.echo("goldtable stopped; games are saved.")
    finally:
        server.server_close()
        app.extensions["goldtable.capture"].stop()
        if workdir is not None:
            workdir.cleanup()
