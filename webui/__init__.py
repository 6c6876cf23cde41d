"""The web layer and command line: a thin shell over vision, calibration and scoring.

This module stays light (no Flask import): the ``goldtable`` command line imports it for every
subcommand. :func:`create_app` loads :mod:`webui.app` on first use.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flask import Flask

__all__ = ["InvalidField", "NotFound", "Settings", "WebUIError", "create_app", "load_settings"]


class WebUIError(Exception):
    """Base class of every error raised by :mod:`webui`."""


class InvalidField(WebUIError):
    """A request field that cannot be accepted; ``field`` names it, ``problem`` says why."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field
        self.problem = problem


class NotFound(WebUIError):
    """A session (or other record) that does not exist."""


@dataclass(frozen=True)
class Settings:
    """Tunable numbers of the web layer, read from ``webui/data/config.json``.

    Times are seconds and sizes bytes; see the JSON file for what each one governs.
    """

    max_content_length: int
    max_json_bytes: int
    max_players: int
    max_name_length: int
    max_event_payload_bytes: int
    idle_timeout_s: float
    frame_wait_s: float
    backoff_initial_s: float
    backoff_max_s: float
    backoff_factor: float
    sse_keepalive_s: float
    sse_queue_size: int
    mjpeg_quality: int
    mjpeg_max_fps: float
    mjpeg_max_side: int
    history_page_size: int
    camera_probe_s: float
    demo_seed: int
    live_verdicts_kept: int
    live_new_board_fraction: float
    bgg_ids: Mapping[str, int | None] = field(default_factory=dict)
    game_names: Mapping[str, str] = field(default_factory=dict)


def load_settings(overrides: Mapping[str, Any] | None = None) -> Settings:
    """Read the packaged defaults and apply ``overrides`` (keys as in the JSON file).

    Raises
    ------
    InvalidField
        For an unknown key, naming it.
    """
    text = resources.files("webui").joinpath("data", "config.json").read_text("utf-8")
    raw: dict[str, Any] = json.loads(text)
    known = {f.name for f in dataclasses.fields(Settings)}
    values: dict[str, Any] = {}
    for source in (raw, dict(overrides or {})):
        for key, value in source.items():
            if key.startswith("_"):
                continue
            if key not in known:
                raise InvalidField(key, "unknown setting in webui/data/config.json")
            if isinstance(value, dict):
                value = {k: v for k, v in value.items() if not k.startswith("_")}
            elif isinstance(value, list):
                value = tuple(value)
            values[key] = value
    return Settings(**values)


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Build the Flask application; see :func:`webui.app.create_app`."""
    from webui.app import create_app as _create_app

    return _create_app(config)
