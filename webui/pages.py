"""HTML pages and the MJPEG live view. The pages are plain HTML whose scripts talk to :mod:`webui.api`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Response, abort, current_app, redirect, render_template, url_for
from werkzeug.wrappers import Response as BaseResponse

from webui import NotFound
from webui.capture import Capture
from webui.store import Store

bp = Blueprint("pages", __name__)

PADS: dict[str, str] = {"fools-gold": "Fool's Gold", "valdora": "Valdora", "my-gold-mine": "My Gold Mine"}
GAME_PAGES: dict[str, str] = {"silver-gold": "pages.silver_gold", "splendor-duel": "pages.splendor_duel",
                              **dict.fromkeys(PADS, "pages.pad")}


def _capture() -> Capture:
    c: Capture = current_app.extensions["goldtable.capture"]
    return c


def _store() -> Store:
    s: Store = current_app.extensions["goldtable.store"]
    return s


def _session(session_id: int, game: str | None = None) -> dict[str, Any]:
    try:
        s = _store().get_session(session_id)
    except NotFound:
        abort(404, description=f"no session {session_id}")
    if game is not None and s["game"] != game:
        abort(404, description=f"session {session_id} is a {s['game']} game")
    return s


def _page(template: str, **context: Any) -> str:
    cap = _capture()
    return render_template(template, status=cap.status(), has_source=cap.spec is not None, pads=PADS,
                           **context)


@bp.get("/")
def index() -> str:
    """The live table: camera view with overlays, what was recognised, the running score."""
    return _page("index.html", active="live")


@bp.get("/silver-gold")
@bp.get("/silver-gold/<int:session_id>")
def silver_gold(session_id: int | None = None) -> str:
    session = _session(session_id, "silver-gold") if session_id is not None else None
    return _page("silver_gold.html", active="silver-gold", session=session)


@bp.get("/splendor-duel")
@bp.get("/splendor-duel/<int:session_id>")
def splendor_duel(session_id: int | None = None) -> str:
    session = _session(session_id, "splendor-duel") if session_id is not None else None
    return _page("splendor_duel.html", active="splendor-duel", session=session)


@bp.get("/pads")
def pads() -> BaseResponse:
    return redirect(url_for("pages.pad", game="fools-gold"))


@bp.get("/pads/<game>")
def pad(game: str) -> str:
    if game not in PADS:
        abort(404, description=f"no score pad for {game!r}; pads exist for {', '.join(PADS)}")
    return _page("pad.html", active="pads", game=game, game_name=PADS[game])


@bp.get("/history")
def history() -> str:
    return _page("history.html", active="history", sessions=_store().list_sessions(
        current_app.extensions["goldtable.settings"].history_page_size))


@bp.get("/history/<int:session_id>")
def session_page(session_id: int) -> str:
    session = _session(session_id)
    return _page("session.html", active="history", session=session, game_page=GAME_PAGES[session["game"]])


@bp.get("/video.mjpg")
def video() -> Response:
    """The live view as ``multipart/x-mixed-replace`` JPEG frames with the overlays drawn in."""
    cap = _capture()
    if cap.spec is None:
        abort(404, description="this server has no camera; use the browser camera or upload a photo")

    def stream() -> Iterator[bytes]:
        for jpeg in cap.frames():
            yield b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: " + str(len(jpeg)).encode() + \
                b"\r\n\r\n" + jpeg + b"\r\n"

    return Response(stream(), mimetype="multipart/x-mixed-replace; boundary=frame",
                    headers={"Cache-Control": "no-cache, no-store"})


@bp.get("/snapshot.jpg")
def snapshot() -> Response:
    """The latest live frame as one JPEG (503 while the camera is starting)."""
    cap = _capture()
    if cap.spec is None:
        abort(404, description="this server has no camera")
    _, jpeg = cap.wait_frame(0, current_app.extensions["goldtable.settings"].frame_wait_s)
    if jpeg is None:
        abort(503, description=f"no frame yet: {cap.status()['text']}")
    return Response(jpeg, mimetype="image/jpeg", headers={"Cache-Control": "no-cache, no-store"})
