"""Ranks and tie-break explanations shared by the final-score engines.

Players are ordered by total, then by each tie-break criterion in turn. Players equal on the total
and on every criterion share a rank (1, 1, 3, …). For every group of players tied on the total, a
player-readable explanation says which criterion separated them, e.g. "Ann ranks ahead of Bo on the
second-highest site, 3 to 2".
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Criterion", "Entry", "Standings", "TieNote", "rank"]

Value = int | float | None


@dataclass(frozen=True)
class Criterion:
    """One tie-break criterion: ``label`` as shown to players ("completed grey cards"); higher values
    win unless ``higher_is_better`` is false. ``None`` values always lose."""

    label: str
    higher_is_better: bool = True


@dataclass(frozen=True)
class Entry:
    """A player's total and tie-break values (one per criterion, in criterion order)."""

    name: str
    total: int | float
    keys: tuple[Value, ...] = ()


@dataclass(frozen=True)
class TieNote:
    """How a group of players tied on ``total`` was separated (or not)."""

    players: tuple[str, ...]
    total: int | float
    text: str

    def to_json(self) -> dict[str, Any]:
        return {"players": list(self.players), "total": self.total, "text": self.text}


@dataclass(frozen=True)
class Standings:
    """``ranks[i]`` is the rank of entry ``i`` (1 = best); ``winners`` hold rank 1."""

    ranks: tuple[int, ...]
    winners: tuple[str, ...]
    tiebreak: tuple[TieNote, ...]

    def to_json(self) -> dict[str, Any]:
        """The ``winners`` and ``tiebreak`` fields of a score answer."""
        return {"winners": list(self.winners), "tiebreak": [note.to_json() for note in self.tiebreak]}


def _sort_key(value: Value, criterion: Criterion) -> tuple[int, float]:
    if value is None:
        return (1, 0.0)
    return (0, -float(value) if criterion.higher_is_better else float(value))


def _show(value: Value) -> str:
    return "none" if value is None else str(value)


def rank(entries: Sequence[Entry], criteria: Sequence[Criterion] = (), *,
         shared: str = "share rank {rank}") -> Standings:
    """Rank ``entries`` by total (higher first), then by each criterion.

    Parameters
    ----------
    entries : sequence of Entry
        One per player; ``keys`` must have one value per criterion.
    criteria : sequence of Criterion
        The tie-break order.
    shared : str
        How a tie left after every criterion is worded; ``{rank}`` is replaced by the shared rank.
    """
    def key(e: Entry) -> tuple[Any, ...]:
        return (-e.total, *(_sort_key(v, c) for v, c in zip(e.keys, criteria, strict=True)))

    order = sorted(range(len(entries)), key=lambda i: key(entries[i]))
    ranks = [0] * len(entries)
    for pos, i in enumerate(order):
        if pos and key(entries[order[pos - 1]]) == key(entries[i]):
            ranks[i] = ranks[order[pos - 1]]
        else:
            ranks[i] = pos + 1
    winners = tuple(entries[i].name for i in order if ranks[i] == 1)

    notes: list[TieNote] = []
    pos = 0
    while pos < len(order):
        group = [order[pos]]
        total = entries[group[0]].total
        while pos + len(group) < len(order) and entries[order[pos + len(group)]].total == total:
            group.append(order[pos + len(group)])
        pos += len(group)
        if len(group) < 2:
            continue
        parts: list[str] = []
        for a, b in itertools.pairwise(group):
            ea, eb = entries[a], entries[b]
            for j, crit in enumerate(criteria):
                if _sort_key(ea.keys[j], crit) != _sort_key(eb.keys[j], crit):
                    verb = "wins the tie over" if ranks[a] == 1 else "ranks ahead of"
                    parts.append(f"{ea.name} {verb} {eb.name} on {crit.label}, "
                                 f"{_show(ea.keys[j])} to {_show(eb.keys[j])}")
                    break
            else:
                parts.append(f"{ea.name} and {eb.name} are still tied after every tie-break and "
                             + shared.format(rank=ranks[a]))
        names = tuple(entries[i].name for i in group)
        notes.append(TieNote(names, entries[group[0]].total, "; ".join(parts)))
    return Standings(tuple(ranks), winners, tuple(notes))
