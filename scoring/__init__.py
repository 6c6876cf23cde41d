"""Pure rules engines for the games goldtable knows.

Each game lives in its own subpackage or module and exposes the same three entry points
through :data:`GAMES`:

``score(data) -> dict``
    Final scoring of a JSON-like ``{"game": G, "players": [...]}`` document.
``check(data) -> dict``
    A legality verdict for one move (games with a rules checker only).
``template() -> dict``
    A filled example input for ``score``.

Nothing here performs I/O; card tables are package data read with :mod:`importlib.resources`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from scoring.errors import InvalidInput, ScoringError

__all__ = ["GAMES", "GameEntry", "InvalidInput", "ScoringError", "game_entry"]


@dataclass(frozen=True)
class GameEntry:
    """Where a game's JSON entry points live: ``module`` must define ``score`` and ``template``,
    and ``check`` when ``has_check`` is true."""

    name: str
    module: str
    has_check: bool

    def load(self) -> ModuleType:
        return importlib.import_module(self.module)

    def score(self, data: Mapping[str, Any]) -> dict[str, Any]:
        fn: Callable[[Mapping[str, Any]], dict[str, Any]] = self.load().score
        return fn(data)

    def check(self, data: Mapping[str, Any]) -> dict[str, Any]:
        if not self.has_check:
            raise InvalidInput("game", f"{self.name!r} has no move checker")
        fn: Callable[[Mapping[str, Any]], dict[str, Any]] = self.load().check
        return fn(data)

    def template(self) -> dict[str, Any]:
        fn: Callable[[], dict[str, Any]] = self.load().template
        return fn()


GAMES: Mapping[str, GameEntry] = {
    "silver-gold": GameEntry("silver-gold", "scoring.silver_gold.api", True),
    "splendor-duel": GameEntry("splendor-duel", "scoring.splendor_duel.api", True),
    "fools-gold": GameEntry("fools-gold", "scoring.fools_gold", False),
    "valdora": GameEntry("valdora", "scoring.valdora", False),
    "my-gold-mine": GameEntry("my-gold-mine", "scoring.my_gold_mine", False),
}


def game_entry(data: Any) -> GameEntry:
    """Return the registry entry named by ``data["game"]``.

    Raises
    ------
    InvalidInput
        When ``data`` is not an object or names no known game.
    """
    if not isinstance(data, Mapping):
        raise InvalidInput("(document)", "expected a JSON object")
    name = data.get("game")
    if name not in GAMES:
        known = ", ".join(GAMES)
        raise InvalidInput("game", f"unknown game {name!r}; expected one of {known}")
    return GAMES[name]
