"""Shared pieces of the command line: reading JSON input and turning typed errors into a
one-line message with exit code 2."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

from calibration.errors import CalibrationError
from scoring.errors import ScoringError
from vision.errors import VisionError

F = TypeVar("F", bound=Callable[..., Any])


class BadInput(click.ClickException):
    """Bad input: printed as one line, exit code 2."""

    exit_code = 2

    def show(self, file: Any = None) -> None:
        click.echo(f"goldtable: {self.format_message()}", err=True)


def friendly_errors(fn: F) -> F:
    """Turn the packages' typed errors into :class:`BadInput` (exit 2, no traceback)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except (ScoringError, VisionError, CalibrationError) as exc:
            raise BadInput(str(exc)) from exc

    return wrapper  # type: ignore[return-value]


def read_json(path: str) -> Any:
    """Read a JSON document from ``path`` or, for ``-``, standard input."""
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
    except OSError as exc:
        raise BadInput(f"{path}: cannot read the file ({exc.strerror or exc})") from exc
    except UnicodeDecodeError as exc:
        raise BadInput(f"{path}: not UTF-8 text") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadInput(f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from exc


def echo_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


def parse_cast(text: str | None) -> tuple[str, tuple[float, float, float] | None]:
    """Parse a benchmark's ``--cast`` value: ``none``, ``strong`` or three ``B,G,R`` gains.

    Returns the kind (``"none"``, ``"strong"`` or ``"gains"``) and the gains when given.
    """
    if text is None or text == "none":
        return "none", None
    if text == "strong":
        return "strong", None
    try:
        gains = tuple(float(p) for p in text.split(","))
    except ValueError:
        gains = ()
    if len(gains) != 3 or not all(0.05 <= g <= 5.0 for g in gains):
        raise BadInput(f"--cast {text!r}: expected none, strong, or three B,G,R gains between 0.05 and 5")
    return "gains", (gains[0], gains[1], gains[2])
