"""The Flask application factory.

Configuration keys (all optional):

``DATABASE``
    Path of the SQLite file; default :func:`webui.store.default_db_path`.
``MAX_CONTENT_LENGTH``
    Upload cap in bytes; default ``max_content_length`` of ``webui/data/config.json`` (20 MB).
``SOURCE``
    A :func:`vision.sources.open_source` specification (``0``, ``demo``, a file, a URL), or
    ``None`` for no server-side camera (uploads and the browser camera still work).
``DEMO_FALLBACK``
    True when ``SOURCE`` is the demo table because no camera was found: the page says so.
``PROFILE``
    A calibration profile name or path, loaded with :func:`calibration.profile.load_profile`.
``GAME``
    Which live readers run: ``auto`` (default), ``silver-gold`` or ``splendor-duel``.
``SETTINGS``
    Overrides of ``webui/data/config.json`` keys.
``SOURCE_FACTORY``
    A callable building a frame source (tests use it to inject frames).
``TESTING``
    Flask's testing flag.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Flask, Response, jsonify, request
from werkzeug.exceptions import HTTPException

from webui import InvalidField, load_settings
from webui.capture import Capture, EventHub
from webui.store import Store, StoreLimits, default_db_path

__all__ = ["create_app"]


def _load_profile(name: str | None) -> Any:
    if not name:
        return None
    from calibration.profile import load_profile

    return load_profile(name)


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Build the companion application.

    Parameters
    ----------
    config : mapping, optional
        Keys as listed in this module's docstring.

    Raises
    ------
    InvalidField
        For an unusable database path or unknown settings.
    calibration.errors.CalibrationError
        When ``PROFILE`` cannot be loaded.
    """
    cfg = dict(config or {})
    settings = load_settings(cfg.pop("SETTINGS", None))
    app = Flask(__name__)
    app.config.update(
        MAX_CONTENT_LENGTH=settings.max_content_length,
        DATABASE=str(default_db_path()),
        SOURCE=None,
        DEMO_FALLBACK=False,
        PROFILE=None,
        GAME="auto",
        JSON_SORT_KEYS=False,
    )
    app.config.update(cfg)
    if app.config["GAME"] not in ("auto", "silver-gold", "splendor-duel"):
        raise InvalidField("GAME", f"unknown game {app.config['GAME']!r}")
    store = Store(app.config["DATABASE"], StoreLimits(settings.max_players, settings.max_name_length,
                                                      settings.max_event_payload_bytes))
    profile = _load_profile(app.config["PROFILE"])
    capture = Capture(
        app.config["SOURCE"],
        settings,
        game=app.config["GAME"],
        profile=profile,
        demo_fallback=bool(app.config["DEMO_FALLBACK"]),
        source_factory=app.config.get("SOURCE_FACTORY"),
        hub=EventHub(settings.sse_queue_size),
    )
    app.extensions["goldtable.settings"] = settings
    app.extensions["goldtable.store"] = store
    app.extensions["goldtable.capture"] = capture

    from webui import api, pages

    app.register_blueprint(api.bp)
    app.register_blueprint(pages.bp)

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException) -> Any:
        code = exc.code or 500
        if code == 413:
            cap = app.config["MAX_CONTENT_LENGTH"]
            message = f"upload too large: the limit is {cap / 1e6:.0f} MB"
        else:
            message = exc.description or exc.name
        if request.path.startswith("/api/"):
            return jsonify({"error": message}), code
        return Response(f"{code} {exc.name}: {message}\n", status=code, mimetype="text/plain")

    return app
