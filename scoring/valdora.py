"""Valdora final score.

Per player: the points of each fulfilled contract; 10 per craftsman colour held (however many cards
of that colour); the points of each workshop; 10 per processing card; 1 per raw stone left. Tie-break:
most silver coins; then the game is shared.

Input::

    {"game": "valdora",
     "players": [{"name": "Ann", "contracts": [5, 8], "craftsman_colours": ["red", "blue"],
                  "workshops": [12], "processing_cards": 1, "stones": 3, "silver": 4}]}

``craftsman_colours`` names the colours of the player's craftsman cards (purple, red, blue, green,
black, yellow, white); a colour named more than once still scores once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scoring import fields
from scoring.errors import InvalidInput
from scoring.standings import Criterion, Entry, rank

__all__ = ["CRAFTSMAN_COLOURS", "Result", "score", "score_player", "template"]

GAME = "valdora"
CRAFTSMAN_COLOURS: tuple[str, ...] = ("purple", "red", "blue", "green", "black", "yellow", "white")
POINTS_PER_COLOUR = 10
POINTS_PER_PROCESSING_CARD = 10
POINTS_PER_STONE = 1
PLAYERS = (1, 5)


@dataclass(frozen=True)
class Result:
    """One player's Valdora score by source."""

    contracts: int
    craftsmen: int
    workshops: int
    processing: int
    stones: int
    colours: tuple[str, ...]

    @property
    def total(self) -> int:
        return self.contracts + self.craftsmen + self.workshops + self.processing + self.stones

    def to_json(self) -> dict[str, int]:
        return {"contracts": self.contracts, "craftsmen": self.craftsmen, "workshops": self.workshops,
                "processing": self.processing, "stones": self.stones}


def score_player(contracts: tuple[int, ...], colours: tuple[str, ...], workshops: tuple[int, ...],
                 processing_cards: int, stones: int) -> Result:
    """Score one player (``colours`` may repeat a colour; each distinct colour scores once)."""
    distinct = tuple(c for c in CRAFTSMAN_COLOURS if c in set(colours))
    return Result(
        contracts=sum(contracts),
        craftsmen=POINTS_PER_COLOUR * len(distinct),
        workshops=sum(workshops),
        processing=POINTS_PER_PROCESSING_CARD * processing_cards,
        stones=POINTS_PER_STONE * stones,
        colours=distinct,
    )


def _colours(value: Any, where: str) -> tuple[str, ...]:
    out = []
    for j, item in enumerate(fields.sequence(value, where)):
        name = fields.string(item, f"{where}[{j}]").lower()
        if name not in CRAFTSMAN_COLOURS:
            raise InvalidInput(f"{where}[{j}]", f"{name!r} is not a craftsman colour "
                                                f"({', '.join(CRAFTSMAN_COLOURS)})")
        out.append(name)
    return tuple(out)


def score(data: Mapping[str, Any]) -> dict[str, Any]:
    """Final score of a Valdora game (format in the module docstring).

    Returns
    -------
    dict
        ``{"game", "players": [{"name", "total", "rank", "breakdown": {"contracts", "craftsmen",
        "workshops", "processing", "stones"}, "craftsman_colours", "silver"}], "winners", "tiebreak"}``;
        players still tied on silver share the rank (and the win).
    """
    players = fields.player_list(data, *PLAYERS)
    rows = []
    for i, p in enumerate(players):
        w = f"players[{i}]"
        result = score_player(
            fields.integer_list(p.get("contracts", []), f"{w}.contracts", low=0),
            _colours(p.get("craftsman_colours", []), f"{w}.craftsman_colours"),
            fields.integer_list(p.get("workshops", []), f"{w}.workshops", low=0),
            fields.integer(p.get("processing_cards", 0), f"{w}.processing_cards", low=0),
            fields.integer(p.get("stones", 0), f"{w}.stones", low=0),
        )
        silver = fields.integer(p.get("silver", 0), f"{w}.silver", low=0)
        rows.append((p["name"].strip(), result, silver))
    standings = rank([Entry(n, r.total, (s,)) for n, r, s in rows], [Criterion("silver coins")],
                     shared="share rank {rank} (the game is shared)")
    out = [{"name": n, "total": r.total, "rank": rnk, "breakdown": r.to_json(),
            "craftsman_colours": list(r.colours), "silver": s}
           for (n, r, s), rnk in zip(rows, standings.ranks, strict=True)]
    return {"game": GAME, "players": out, **standings.to_json()}


def template() -> dict[str, Any]:
    """A filled example with a tie on points decided by silver."""
    return {
        "game": GAME,
        "players": [
            {"name": "Ann", "contracts": [5, 8, 6], "craftsman_colours": ["red", "blue", "blue"],
             "workshops": [12], "processing_cards": 1, "stones": 3, "silver": 4},
            {"name": "Ben", "contracts": [7, 4], "craftsman_colours": ["green", "black", "white"],
             "workshops": [], "processing_cards": 0, "stones": 23, "silver": 2},
        ],
    }
