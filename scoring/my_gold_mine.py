"""My Gold Mine scoring over its three rounds, including the 2-player two-dwarf variant.

Rounds 1 and 2: only dwarves that reached the exit count: their mining-card nuggets plus 3 per
"extra gold" escape card. The best three take 3, 2 and 1 real nuggets; equal counts go to the dwarf
higher at the exit (position 1 = top). A caught dwarf (or one still in the mine when the dragon
reaches the exit) scores nothing that round.

Round 3: each player's total is the real nuggets from rounds 1 and 2 plus the round-3 count of their
exited dwarves, 1:1. Ties go to the higher exit position (a player with no exited dwarf ranks after
one with); players still level share the rank.

Input (``exit_position`` only for exited dwarves)::

    {"game": "my-gold-mine",
     "rounds": [{"players": [{"name": "Ann", "status": "exited", "exit_position": 1,
                              "nuggets": 7, "extra_gold": 0},
                             {"name": "Ben", "status": "caught"}]}, ...]}

2-player variant: each player gives ``"dwarves": [{"status", "exit_position", "nuggets",
"extra_gold"}, {...}]`` (two dwarves) instead of the single-dwarf fields; each dwarf's banked supply
is placed on its own, so one player can take several real-nugget prizes in a round.
The output gives totals and ranks after the last round given (1 to 3 rounds).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scoring import fields
from scoring.errors import InvalidInput
from scoring.standings import Criterion, Entry, rank

__all__ = ["Dwarf", "RoundResult", "place_round", "score", "template"]

GAME = "my-gold-mine"
ROUNDS = 3
PRIZES: tuple[int, ...] = (3, 2, 1)  # real nuggets for places 1, 2, 3 in rounds 1 and 2
EXTRA_GOLD = 3
PLAYERS = (2, 6)
VARIANT_DWARVES = 2
STATUSES = ("exited", "caught")


@dataclass(frozen=True)
class Dwarf:
    """One dwarf at the end of a round; ``exit_position`` is ``None`` unless it exited."""

    player: str
    exited: bool
    exit_position: int | None
    nuggets: int
    extra_gold: int

    @property
    def count(self) -> int:
        """Nuggets this dwarf brings to the round's scoring (0 when caught)."""
        return self.nuggets + EXTRA_GOLD * self.extra_gold if self.exited else 0


@dataclass(frozen=True)
class RoundResult:
    """Places of a round: ``places[i]`` is dwarf ``i``'s place (``None`` when caught) and
    ``prizes[i]`` the real nuggets it earned."""

    dwarves: tuple[Dwarf, ...]
    places: tuple[int | None, ...]
    prizes: tuple[int, ...]


def place_round(dwarves: Sequence[Dwarf]) -> RoundResult:
    """Rank a round-1/2 result: exited dwarves by count, then by exit position (1 = top)."""
    exited = sorted((i for i, d in enumerate(dwarves) if d.exited),
                    key=lambda i: (-dwarves[i].count, dwarves[i].exit_position))
    places: list[int | None] = [None] * len(dwarves)
    prizes = [0] * len(dwarves)
    for place, i in enumerate(exited, start=1):
        places[i] = place
        prizes[i] = PRIZES[place - 1] if place <= len(PRIZES) else 0
    return RoundResult(tuple(dwarves), tuple(places), tuple(prizes))


def _dwarf(item: Mapping[str, Any], where: str, player: str) -> Dwarf:
    status = item.get("status")
    if status not in STATUSES:
        raise InvalidInput(f"{where}.status", f"{status!r}; expected \"exited\" or \"caught\"")
    exited = status == "exited"
    position = item.get("exit_position")
    if exited:
        position = fields.integer(position, f"{where}.exit_position", low=1)
    elif position is not None:
        raise InvalidInput(f"{where}.exit_position", "a caught dwarf has no exit position")
    nuggets = fields.integer(item.get("nuggets", 0), f"{where}.nuggets", low=0)
    extra = fields.integer(item.get("extra_gold", 0), f"{where}.extra_gold", low=0)
    return Dwarf(player, exited, position, nuggets, extra)


def _round(value: Any, where: str, names: list[str] | None) -> list[Dwarf]:
    rnd = fields.mapping(value, where)
    players = fields.player_list(rnd, *PLAYERS)
    these = [p["name"].strip() for p in players]
    if names is not None and sorted(these) != sorted(names):
        missing = sorted(set(names) - set(these))
        extra = sorted(set(these) - set(names))
        problem = (f"player {missing[0]!r} is missing" if missing
                   else f"player {extra[0]!r} is not in round 1")
        raise InvalidInput(f"{where}.players", f"{problem}; every round lists the same players")
    variant = any("dwarves" in p for p in players)
    dwarves: list[Dwarf] = []
    for i, p in enumerate(players):
        w = f"{where}.players[{i}]"
        name = these[i]
        if variant:
            if len(players) != 2:
                raise InvalidInput(f"{w}.dwarves", "the two-dwarf variant is for exactly 2 players")
            if "dwarves" not in p:
                raise InvalidInput(f"{w}.dwarves",
                                   "missing: in the two-dwarf variant every player lists 2 dwarves")
            items = fields.sequence(p["dwarves"], f"{w}.dwarves")
            if len(items) != VARIANT_DWARVES:
                raise InvalidInput(f"{w}.dwarves", f"{len(items)} dwarves; the variant gives each player 2")
            dwarves.extend(_dwarf(fields.mapping(d, f"{w}.dwarves[{j}]"), f"{w}.dwarves[{j}]", name)
                           for j, d in enumerate(items))
        else:
            dwarves.append(_dwarf(p, w, name))
    positions = [d.exit_position for d in dwarves if d.exit_position is not None]
    for pos in positions:
        if positions.count(pos) > 1:
            raise InvalidInput(f"{where}.players", f"two dwarves hold exit position {pos}")
        if pos > len(dwarves):
            raise InvalidInput(f"{where}.players",
                               f"exit position {pos} but only {len(dwarves)} dwarves play")
    return dwarves


def score(data: Mapping[str, Any]) -> dict[str, Any]:
    """Totals and ranks after the last round given (format in the module docstring).

    Returns
    -------
    dict
        ``{"game", "rounds_scored", "final", "players": [{"name", "total", "rank", "breakdown":
        {"round_1", "round_2", "round_3"}, "rounds": [{"round", "dwarves": [{"status",
        "exit_position", "count", "place"}], "points"}]}], "winners", "tiebreak"}``. ``round_1`` and
        ``round_2`` are real nuggets won; ``round_3`` is the round-3 count. Ties after round 3 go to the
        higher exit position; after rounds 1 or 2 tied players share the rank.
    """
    if "rounds" not in data:
        raise InvalidInput("rounds", "missing (a list of 1 to 3 rounds)")
    raw_rounds = fields.sequence(data["rounds"], "rounds", ROUNDS)
    if not raw_rounds:
        raise InvalidInput("rounds", "no rounds given")
    rounds: list[list[Dwarf]] = []
    names: list[str] | None = None
    for k, raw in enumerate(raw_rounds):
        dwarves = _round(raw, f"rounds[{k}]", names)
        if names is None:
            names = list(dict.fromkeys(d.player for d in dwarves))
        rounds.append(dwarves)
    assert names is not None
    points = {n: [0] * ROUNDS for n in names}
    details: dict[str, list[dict[str, Any]]] = {n: [] for n in names}
    for k, dwarves in enumerate(rounds):
        final_round = k == ROUNDS - 1
        placed = place_round(dwarves)
        for n in names:
            mine = [i for i, d in enumerate(dwarves) if d.player == n]
            got = (sum(dwarves[i].count for i in mine) if final_round
                   else sum(placed.prizes[i] for i in mine))
            points[n][k] = got
            details[n].append({
                "round": k + 1,
                "dwarves": [{"status": "exited" if dwarves[i].exited else "caught",
                             "exit_position": dwarves[i].exit_position, "count": dwarves[i].count,
                             "place": None if final_round else placed.places[i]} for i in mine],
                "points": got,
            })
    finished = len(rounds) == ROUNDS
    entries = []
    for n in names:
        keys: tuple[int | None, ...] = ()
        if finished:
            positions = [d.exit_position for d in rounds[-1] if d.player == n and d.exit_position is not None]
            keys = (min(positions) if positions else None,)
        entries.append(Entry(n, sum(points[n]), keys))
    criteria = [Criterion("exit position in round 3 (1 = top)", higher_is_better=False)] if finished else []
    standings = rank(entries, criteria)
    players = [{"name": n, "total": e.total, "rank": rnk,
                "breakdown": {f"round_{k + 1}": points[n][k] for k in range(len(rounds))},
                "rounds": details[n]}
               for n, e, rnk in zip(names, entries, standings.ranks, strict=True)]
    return {"game": GAME, "rounds_scored": len(rounds), "final": finished, "players": players,
            **standings.to_json()}


def template() -> dict[str, Any]:
    """A filled three-round example for three players."""
    return {
        "game": GAME,
        "rounds": [
            {"players": [
                {"name": "Ann", "status": "exited", "exit_position": 2, "nuggets": 9, "extra_gold": 0},
                {"name": "Ben", "status": "exited", "exit_position": 1, "nuggets": 6, "extra_gold": 1},
                {"name": "Cas", "status": "caught"},
            ]},
            {"players": [
                {"name": "Ann", "status": "caught"},
                {"name": "Ben", "status": "exited", "exit_position": 1, "nuggets": 4, "extra_gold": 0},
                {"name": "Cas", "status": "exited", "exit_position": 2, "nuggets": 8, "extra_gold": 0},
            ]},
            {"players": [
                {"name": "Ann", "status": "exited", "exit_position": 3, "nuggets": 6, "extra_gold": 0},
                {"name": "Ben", "status": "exited", "exit_position": 1, "nuggets": 3, "extra_gold": 0},
                {"name": "Cas", "status": "exited", "exit_position": 2, "nuggets": 4, "extra_gold": 0},
            ]},
        ],
    }
