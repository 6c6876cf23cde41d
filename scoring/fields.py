"""Validation of JSON-like input fields for the score engines.

Every helper raises :class:`scoring.errors.InvalidInput` naming the field path (e.g.
``players[1].coins``) and the problem in words a player understands.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from scoring.errors import InvalidInput

__all__ = ["integer", "integer_list", "mapping", "player_list", "sequence", "string"]


def integer(value: Any, where: str, low: int | None = None, high: int | None = None) -> int:
    """An integer (not a bool) within ``[low, high]``."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise InvalidInput(where, f"expected a whole number, got {value!r}")
    if low is not None and value < low:
        raise InvalidInput(where, f"{value} is less than {low}")
    if high is not None and value > high:
        raise InvalidInput(where, f"{value} is more than {high}")
    return value


def mapping(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise InvalidInput(where, "expected an object")
    return value


def sequence(value: Any, where: str, max_len: int | None = None) -> Sequence[Any]:
    """A JSON list (not a string), at most ``max_len`` items long."""
    if not isinstance(value, Sequence) or isinstance(value, str | bytes):
        raise InvalidInput(where, f"expected a list, got {value!r}")
    if max_len is not None and len(value) > max_len:
        raise InvalidInput(where, f"{len(value)} items but at most {max_len} are possible")
    return value


def string(value: Any, where: str) -> str:
    """A non-empty string, stripped."""
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(where, f"expected a non-empty text, got {value!r}")
    return value.strip()


def integer_list(value: Any, where: str, low: int | None = None, high: int | None = None,
                 max_len: int | None = None) -> tuple[int, ...]:
    """A list of integers, each within ``[low, high]``."""
    items = sequence(value, where, max_len)
    return tuple(integer(v, f"{where}[{i}]", low, high) for i, v in enumerate(items))


def player_list(data: Mapping[str, Any], low: int = 1, high: int | None = None,
                key: str = "players") -> Sequence[Mapping[str, Any]]:
    """``data[key]``: a list of player objects with distinct ``name`` fields."""
    if key not in data:
        raise InvalidInput(key, "missing")
    players = sequence(data[key], key)
    if len(players) < low:
        raise InvalidInput(key, f"{len(players)} players; at least {low} needed")
    if high is not None and len(players) > high:
        raise InvalidInput(key, f"{len(players)} players; the game takes at most {high}")
    seen: set[str] = set()
    for i, p in enumerate(players):
        mapping(p, f"{key}[{i}]")
        name = string(p.get("name"), f"{key}[{i}].name")
        if name in seen:
            raise InvalidInput(f"{key}[{i}].name", f"{name!r} is used by two players")
        seen.add(name)
    return players
