"""The JSON API (``/api/...``): analysis, scoring, move checks, sessions, live events.

Every handler validates its input and answers a typed error as JSON
``{"error": message, "field": name}`` with status 400 (bad input), 404 (no such session),
413 (upload over the cap) or 503 (a reader that is not installed). No request value is ever used
as a file name: session ids are integers, images are decoded from memory.
"""

from __future__ import annotations

import json
import queue
import re
import time
from collections.abc import Iterator, Mapping
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request, stream_with_context

from scoring.errors import InvalidInput, ScoringError
from vision.errors import ImageError, VisionError
from webui import InvalidField, NotFound, Settings, WebUIError
from webui.capture import Capture, scaled_profile
from webui.store import Store

bp = Blueprint("api", __name__, url_prefix="/api")

READ_GAMES: tuple[str, ...] = ("auto", "silver-gold", "splendor-duel")
TURN_KIND: Mapping[str, str] = {"silver-gold": "turn", "splendor-duel": "move"}


# -- helpers ----------------------------------------------------------------------------------------

def settings() -> Settings:
    s: Settings = current_app.extensions["goldtable.settings"]
    return s


def store() -> Store:
    st: Store = current_app.extensions["goldtable.store"]
    return st


def capture() -> Capture:
    c: Capture = current_app.extensions["goldtable.capture"]
    return c


def error(message: str, status: int, field: str | None = None) -> tuple[Response, int]:
    body: dict[str, Any] = {"error": message}
    if field is not None:
        body["field"] = field
    return jsonify(body), status


def json_body() -> Any:
    """The request's JSON document.

    Raises
    ------
    InvalidField
        For a wrong content type, an oversized body or malformed JSON.
    """
    if request.mimetype != "application/json":
        raise InvalidField("(body)", f"expected application/json, got {request.mimetype or 'nothing'}")
    limit = settings().max_json_bytes
    if request.content_length is not None and request.content_length > limit:
        raise InvalidField("(body)", f"larger than {limit} bytes")
    raw = request.get_data(cache=True)
    if len(raw) > limit:
        raise InvalidField("(body)", f"larger than {limit} bytes")
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise InvalidField("(body)", "not UTF-8 text") from exc
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}"
        raise InvalidField("(body)", f"not valid JSON ({where}: {exc.msg})") from exc


def object_body() -> dict[str, Any]:
    data = json_body()
    if not isinstance(data, dict):
        raise InvalidField("(body)", "expected a JSON object")
    return data


def read_game(value: Any) -> str:
    game = "auto" if value in (None, "") else value
    if game not in READ_GAMES:
        raise InvalidField("game", f"unknown game {game!r}; expected one of {', '.join(READ_GAMES)}")
    return str(game)


def uploaded_image() -> bytes:
    """The bytes of the ``image`` field of a multipart upload, or a raw ``image/*`` body."""
    mimetype = request.mimetype or ""
    if mimetype == "multipart/form-data":
        f = request.files.get("image")
        if f is None:
            raise InvalidField("image", "missing: send the photo in a multipart field named 'image'")
        return f.read()
    if mimetype.startswith("image/"):
        return request.get_data(cache=False)
    got = mimetype or "nothing"
    raise InvalidField("image", f"expected multipart/form-data with an 'image' field, got {got}")


def run_analysis(data: bytes, game: str) -> dict[str, Any]:
    """Decode and read one image; the JSON of ``goldtable analyze`` (positions in the pixels of
    the uploaded photo, also when it was decoded at a reduced size)."""
    from vision.analyze import analyze, scale_reading
    from vision.imageio import decode_image

    decoded = decode_image(data)
    height, width = decoded.image.shape[:2]
    scene = analyze(decoded.image, game, None, scaled_profile(capture().profile, (width, height)))
    out: dict[str, Any] = scale_reading(scene, decoded.scale, decoded.original_size).to_json(game)
    return out


_ID = re.compile(r"^[A-Za-z0-9-]{0,12}$")
_BOARD = re.compile(r"^[WUGRKPY.?]{5}$")
_SET_KEYS = ("cards", "completed", "coins", "palms", "trophies")


def _int(value: Any, field: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidField(field, f"expected a whole number from {low} to {high}")
    return value


def _seat(value: Any, field: str, seats: set[int]) -> int:
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    if isinstance(value, bool) or value not in seats:
        raise InvalidField(field, f"no player sits at seat {value!r}")
    return int(value)


def _id(value: Any, field: str) -> str:
    if not isinstance(value, str) or not _ID.match(value):
        raise InvalidField(field, "expected a card id such as t12 or e6")
    return value


def _int_list(value: Any, field: str, high: int, most: int) -> None:
    if not isinstance(value, list) or len(value) > most:
        raise InvalidField(field, f"expected a list of at most {most} numbers")
    for i, v in enumerate(value):
        _int(v, f"{field}[{i}]", 0, high)


def validate_payload(kind: str, payload: Any, seats: set[int]) -> dict[str, Any]:
    """Check the fields of a correction/note/reading payload (the pages' bookkeeping).

    Known keys: ``seat``, ``turn``, ``board`` (5 strings of 5 letters ``WUGRKPY.?``), ``privileges``
    ({seat: 0-3}), ``expedition`` (an id), ``set`` ({cards, completed, coins, palms, trophies}),
    ``source`` and ``text`` (short strings), ``reading`` (an object). Anything else is refused.
    """
    if not isinstance(payload, dict):
        raise InvalidField("payload", "expected a JSON object")
    for key, value in payload.items():
        where = f"payload.{key}"
        if key in ("seat", "turn"):
            _seat(value, where, seats)
        elif key == "board":
            if not isinstance(value, list) or len(value) != 5 or not all(
                    isinstance(r, str) and _BOARD.match(r) for r in value):
                raise InvalidField(where, "expected 5 rows of 5 letters from WUGRKPY. (? for unreadable)")
        elif key == "privileges":
            if not isinstance(value, dict):
                raise InvalidField(where, "expected {seat: count}")
            for seat, count in value.items():
                _seat(seat, f"{where}.{seat}", seats)
                _int(count, f"{where}.{seat}", 0, 3)
        elif key == "expedition":
            _id(value, where)
        elif key in ("source", "text"):
            if not isinstance(value, str) or len(value) > 500:
                raise InvalidField(where, "expected a text of at most 500 characters")
        elif key == "reading":
            if not isinstance(value, dict):
                raise InvalidField(where, "expected an object")
        elif key == "set":
            _validate_set(value, where)
        else:
            raise InvalidField(where, "unknown field")
    if "set" in payload and "seat" not in payload:
        raise InvalidField("payload.seat", "missing: whose values are being set")
    return payload


def _validate_set(value: Any, where: str) -> None:
    if not isinstance(value, dict):
        raise InvalidField(where, "expected an object")
    for key, v in value.items():
        field = f"{where}.{key}"
        if key == "cards":
            if not isinstance(v, list) or len(v) > 2:
                raise InvalidField(field, "expected at most 2 active cards")
            for i, card in enumerate(v):
                if not isinstance(card, dict) or set(card) - {"id", "marks"}:
                    raise InvalidField(f"{field}[{i}]", "expected {id, marks}")
                _id(card.get("id", ""), f"{field}[{i}].id")
                marks = card.get("marks", [])
                if not isinstance(marks, list) or len(marks) > 16:
                    raise InvalidField(f"{field}[{i}].marks", "expected a list of [row, col] cells")
                for j, cell in enumerate(marks):
                    if not isinstance(cell, list) or len(cell) != 2:
                        raise InvalidField(f"{field}[{i}].marks[{j}]", "expected [row, col]")
                    _int(cell[0], f"{field}[{i}].marks[{j}]", 0, 9)
                    _int(cell[1], f"{field}[{i}].marks[{j}]", 0, 9)
        elif key == "completed":
            if not isinstance(v, list) or len(v) > 60:
                raise InvalidField(field, "expected a list of card ids")
            for i, cid in enumerate(v):
                _id(cid, f"{field}[{i}]")
        elif key == "coins":
            _int(v, field, 0, 99)
        elif key in ("palms", "trophies"):
            _int_list(v, field, 99, 12)
        else:
            raise InvalidField(field, f"unknown field; expected one of {', '.join(_SET_KEYS)}")


def publish_session_event(session_id: int, event: Mapping[str, Any]) -> None:
    capture().hub.publish({"type": "session", "session": session_id, "event": dict(event)})


# -- errors -----------------------------------------------------------------------------------------

@bp.errorhandler(InvalidField)
def _invalid_field(exc: InvalidField) -> tuple[Response, int]:
    return error(str(exc), 400, exc.field)


@bp.errorhandler(InvalidInput)
def _invalid_input(exc: InvalidInput) -> tuple[Response, int]:
    return error(str(exc), 400, exc.field)


@bp.errorhandler(ScoringError)
def _scoring_error(exc: ScoringError) -> tuple[Response, int]:
    return error(str(exc), 400)


@bp.errorhandler(NotFound)
def _not_found(exc: NotFound) -> tuple[Response, int]:
    return error(str(exc), 404)


@bp.errorhandler(WebUIError)
def _webui_error(exc: WebUIError) -> tuple[Response, int]:
    return error(str(exc), 400)


@bp.errorhandler(ImageError)
def _image_error(exc: ImageError) -> tuple[Response, int]:
    return error(f"image: {exc}", 400, "image")


@bp.errorhandler(VisionError)
def _vision_error(exc: VisionError) -> tuple[Response, int]:
    return error(str(exc), 400)


@bp.errorhandler(ImportError)
def _missing_reader(exc: ImportError) -> tuple[Response, int]:
    return error(f"this reader is not available in this installation ({exc.name or exc})", 503)


# -- routes -----------------------------------------------------------------------------------------

@bp.get("/health")
def health() -> Response:
    """Liveness and what the server is connected to."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        ver = version("goldtable")
    except PackageNotFoundError:
        ver = "unknown"
    from scoring import GAMES

    return jsonify({"status": "ok", "version": ver, "games": list(GAMES), "source": capture().status()})


@bp.get("/games")
def games() -> Response:
    """Each game with its display name and whether it has a move checker and a camera reader."""
    from scoring import GAMES

    names = settings().game_names
    return jsonify([
        {"game": g, "name": names.get(g, g), "check": e.has_check, "camera": g in READ_GAMES}
        for g, e in GAMES.items()
    ])


@bp.get("/template/<game>")
def template(game: str) -> Response:
    """A filled example ``score`` document for ``game``."""
    from scoring import game_entry

    return jsonify(game_entry({"game": game}).template())


@bp.get("/catalog/silver-gold")
def silver_gold_catalog() -> Response:
    """The built-in Silver & Gold card table (ids, colours, points, badges, grid rows) and the
    expedition shapes, for drawing the cards on the game page."""
    from scoring.silver_gold.catalog import load_catalog

    return jsonify(load_catalog().to_json())


@bp.post("/analyze")
def analyze() -> Response:
    """Read the cards and/or board in an uploaded photo (multipart ``image``, optional ``game``)."""
    data = uploaded_image()
    game = read_game(request.form.get("game") if request.mimetype == "multipart/form-data"
                     else request.args.get("game"))
    return jsonify(run_analysis(data, game))


@bp.post("/frame")
def frame() -> Response:
    """One frame from the browser camera (``image/jpeg`` body or multipart ``image``).

    Answers the reading of that frame and publishes it to ``/api/events`` as ``browser-reading``.
    """
    data = uploaded_image()
    game = read_game(request.args.get("game") or (request.form.get("game") if request.form else None))
    reading = run_analysis(data, game)
    capture().hub.publish({"type": "browser-reading", "reading": reading})
    return jsonify({"reading": reading, "received_at": time.time()})


@bp.get("/live")
def live() -> Response:
    """The live reader's latest stable state and the capture status."""
    return jsonify(capture().reading())


@bp.post("/score")
def score() -> Response:
    """Final scoring; the same input and output as ``goldtable score``."""
    from scoring import game_entry

    data = json_body()
    return jsonify(game_entry(data).score(data))


@bp.post("/check")
def check() -> Response:
    """One move's legality; the same input and output as ``goldtable check``."""
    from scoring import game_entry

    data = json_body()
    return jsonify(game_entry(data).check(data))


@bp.get("/sessions")
def sessions() -> Response:
    """Sessions, newest first (``?limit=&offset=``)."""
    def int_arg(name: str, default: int, most: int) -> int:
        raw = request.args.get(name, str(default))
        if not raw.isdigit() or int(raw) > most:
            raise InvalidField(name, f"expected a whole number from 0 to {most}")
        return int(raw)

    page = settings().history_page_size
    return jsonify(store().list_sessions(int_arg("limit", page, 1000), int_arg("offset", 0, 10**9)))


@bp.post("/sessions")
def create_session() -> tuple[Response, int]:
    """Start a game: ``{"game", "players": [{"name", "seat"?, "start_player"?}], "state"?}``.

    With ``"score"`` (a ``goldtable score`` document) the game is recorded as finished at once, in
    the same transaction (a score pad saved to the history).
    """
    from scoring import game_entry

    data = object_body()
    game = data.get("game", "")
    final = None
    doc = data.get("score")
    if doc is not None:
        if not isinstance(doc, Mapping) or doc.get("game") != game:
            raise InvalidField("score", f"expected a 'goldtable score' JSON object for {game!r}")
        final = (game_entry(doc).score(doc), doc)
    created = store().create_session(game, data.get("players"), data.get("state"), final)
    publish_session_event(created["id"], created["events"][-1])
    return jsonify(created), 201


@bp.get("/sessions/<int:session_id>")
def get_session(session_id: int) -> Response:
    return jsonify(store().get_session(session_id))


@bp.get("/sessions/<int:session_id>/sheets")
def session_sheets(session_id: int) -> Response:
    """Silver & Gold: each player's coins, palms and trophies replayed from the recorded verdicts and
    corrections, trophies claimed by the rules in turn order (see :mod:`webui.sheets`)."""
    from webui.sheets import silver_gold_sheets

    session = store().get_session(session_id)
    if session["game"] != "silver-gold":
        raise InvalidField("game", f"session {session_id} plays {session['game']!r}: no score sheets")
    return jsonify(silver_gold_sheets(session))


def _state_field(data: Mapping[str, Any]) -> Mapping[str, Any] | None:
    state = data.get("state")
    if state is not None and not isinstance(state, Mapping):
        raise InvalidField("state", "expected a JSON object")
    return state


@bp.post("/sessions/<int:session_id>/turns")
def record_turn(session_id: int) -> Response:
    """Check one turn with the rules and record it with its verdict, in one transaction.

    Body: ``{"check": <goldtable check document>, "seat"?: n, "state"?: {...}}``. An illegal turn
    is recorded too (the verdict says why); the reply is ``{"event", "verdict"}``.
    """
    from scoring import game_entry

    data = object_body()
    session = store().get_session(session_id)
    doc = data.get("check")
    if not isinstance(doc, Mapping):
        raise InvalidField("check", "expected the move as a 'goldtable check' JSON object")
    if doc.get("game") != session["game"]:
        raise InvalidField("check.game", f"this session plays {session['game']!r}")
    kind = TURN_KIND.get(session["game"])
    if kind is None:
        raise InvalidField("game", f"{session['game']!r} has no move checker")
    seat = data.get("seat")
    seats = {p["seat"] for p in session["players"]}
    if seat is not None and seat not in seats:
        raise InvalidField("seat", f"no player sits at seat {seat!r}")
    verdict = game_entry(doc).check(doc)
    event = store().add_event(session_id, kind, {"seat": seat, "input": dict(doc), "verdict": verdict},
                              _state_field(data))
    publish_session_event(session_id, event)
    return jsonify({"event": event, "verdict": verdict})


@bp.post("/sessions/<int:session_id>/events")
def record_event(session_id: int) -> Response:
    """Record a correction, a note or a reading: ``{"kind", "payload": {...}, "state"?: {...}}``."""
    data = object_body()
    session = store().get_session(session_id)
    kind = data.get("kind")
    if kind not in ("correction", "note", "reading"):
        raise InvalidField("kind", "expected correction, note or reading")
    payload = validate_payload(kind, data.get("payload", {}), {p["seat"] for p in session["players"]})
    event = store().add_event(session_id, kind, payload, _state_field(data))
    publish_session_event(session_id, event)
    return jsonify(event)


@bp.post("/sessions/<int:session_id>/finish")
def finish(session_id: int) -> Response:
    """Score the game with the rules and store the results: ``{"score": <goldtable score document>}``."""
    from scoring import game_entry

    data = object_body()
    session = store().get_session(session_id)
    doc = data.get("score")
    if not isinstance(doc, Mapping):
        raise InvalidField("score", "expected the final position as a 'goldtable score' JSON object")
    if doc.get("game") != session["game"]:
        raise InvalidField("score.game", f"this session plays {session['game']!r}")
    scored = game_entry(doc).score(doc)
    done = store().finish(session_id, scored, doc)
    publish_session_event(session_id, done["events"][-1])
    return jsonify(done)


@bp.get("/sessions/<int:session_id>/export.csv")
def export_session_csv(session_id: int) -> Response:
    store().get_session(session_id)
    return Response(store().export_csv([session_id]), mimetype="text/csv",
                    headers={"Content-Disposition": f"attachment; filename=goldtable-{session_id}.csv"})


@bp.get("/export.csv")
def export_csv() -> Response:
    return Response(store().export_csv(), mimetype="text/csv",
                    headers={"Content-Disposition": "attachment; filename=goldtable-history.csv"})


@bp.get("/sessions/<int:session_id>/bgstats.json")
def export_bgstats(session_id: int) -> Response:
    s = settings()
    doc = store().export_bgstats(session_id, s.bgg_ids, s.game_names)
    body = json.dumps(doc, indent=2, ensure_ascii=False)
    return Response(body, mimetype="application/json",
                    headers={"Content-Disposition": f"attachment; filename=goldtable-{session_id}.bgsplay"})


@bp.get("/events")
def events() -> Response:
    """Server-sent events: ``table`` (tracker events), ``session`` (recorded turns), ``browser-reading``.

    A comment line is sent every ``sse_keepalive_s`` so proxies and browsers keep the stream open.
    """
    cap = capture()
    keepalive = settings().sse_keepalive_s
    q = cap.hub.subscribe()
    cap.touch()

    def stream() -> Iterator[str]:
        try:
            yield "retry: 3000\n: connected\n\n"
            while True:
                try:
                    item = q.get(timeout=keepalive)
                except queue.Empty:
                    cap.touch()
                    yield ": keepalive\n\n"
                    continue
                data = json.dumps(item, ensure_ascii=False)
                yield f"event: {item.get('type', 'message')}\ndata: {data}\n\n"
        finally:
            cap.hub.unsubscribe(q)

    return Response(stream_with_context(stream()), mimetype="text/event-stream",
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
