"""Tunable numbers as data.

Every stage keeps its thresholds in a frozen dataclass whose defaults are read from
``vision/data/config/<name>.json``. A caller may pass its own instance to any stage.
"""

from __future__ import annotations

import dataclasses
import json
from functools import cache
from importlib import resources
from typing import Any, TypeVar

T = TypeVar("T")


@cache
def _raw(name: str) -> dict[str, Any]:
    text = resources.files("vision").joinpath("data", "config", f"{name}.json").read_text("utf-8")
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError(f"vision/data/config/{name}.json: expected an object")
    return data


def from_mapping(cls: type[T], data: dict[str, Any], where: str) -> T:
    """Build the dataclass ``cls`` from ``data``.

    Keys starting with ``_`` are comments; lists become tuples. ``where`` names the source in
    the error message.

    Raises
    ------
    ValueError
        For a key ``cls`` does not have, so a typo in the data cannot silently fall back to a
        default.
    """
    fields = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    values: dict[str, Any] = {}
    for key, value in data.items():
        if key.startswith("_"):
            continue
        if key not in fields:
            raise ValueError(f"{where}: unknown key {key!r}")
        values[key] = tuple(value) if isinstance(value, list) else value
    return cls(**values)


def load_config(name: str, cls: type[T], section: str | None = None) -> T:
    """Build ``cls`` (a dataclass) from ``data/config/<name>.json``; see :func:`from_mapping`.

    ``section`` selects a nested object.
    """
    data = _raw(name)
    if section is not None:
        data = data[section]
    return from_mapping(cls, data, f"vision/data/config/{name}.json")
