"""Fool's Gold final score.

Per player: -5 for each of the 5 sites without a gold card; the site with the highest nugget total
is fool's gold and is discarded (on a tie the player picks, which does not change the score); every
other nugget scores 1; distinct gem types score 1, 3, 6, 10, 15 for 1 to 5 types. Tie-break: the
second-highest site total, then the next, and so on.

Input::

    {"game": "fools-gold",
     "players": [{"name": "Ann",
                  "gold": {"hills": [3, 1], "forest": [2], "mountains": [4, 5], "river": [], "lake": [6]},
                  "gems": ["ruby", "emerald", "topaz"]}]}

A site left out of ``gold`` has no cards. Gem types are free names; the same type twice is an error.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scoring import fields
from scoring.errors import InvalidInput
from scoring.standings import Criterion, Entry, rank

__all__ = ["SITES", "Result", "score", "score_player", "template"]

GAME = "fools-gold"
SITES: tuple[str, ...] = ("hills", "forest", "mountains", "river", "lake")
MISSING_SITE_PENALTY = -5
GEM_POINTS: tuple[int, ...] = (0, 1, 3, 6, 10, 15)  # by number of distinct gem types
PLAYERS = (1, 5)
ORDINALS = ("highest", "second-highest", "third-highest", "fourth-highest", "fifth-highest")


@dataclass(frozen=True)
class Result:
    """One player's Fool's Gold score."""

    penalty: int
    fools_gold_sites: tuple[str, ...]  # the sites tied for the highest total; one of them is discarded
    fools_gold_nuggets: int
    nuggets: int
    gems: int
    site_totals: Mapping[str, int]

    @property
    def total(self) -> int:
        return self.penalty + self.nuggets + self.gems

    @property
    def tiebreak_keys(self) -> tuple[int, ...]:
        """Site totals from the second-highest down."""
        return tuple(sorted(self.site_totals.values(), reverse=True)[1:])


def score_player(gold: Mapping[str, tuple[int, ...]], gems: tuple[str, ...]) -> Result:
    """Score one player from nuggets per gold card by site and the distinct gem types held."""
    totals = {site: sum(gold.get(site, ())) for site in SITES}
    missing = sum(1 for site in SITES if not gold.get(site))
    highest = max(totals.values())
    fools = tuple(site for site in SITES if totals[site] == highest)
    return Result(
        penalty=MISSING_SITE_PENALTY * missing,
        fools_gold_sites=fools,
        fools_gold_nuggets=highest,
        nuggets=sum(totals.values()) - highest,
        gems=GEM_POINTS[len(gems)],
        site_totals=totals,
    )


def _parse_player(p: Mapping[str, Any], where: str) -> tuple[dict[str, tuple[int, ...]], tuple[str, ...]]:
    gold_raw = fields.mapping(p.get("gold", {}), f"{where}.gold")
    for site in gold_raw:
        if site not in SITES:
            raise InvalidInput(f"{where}.gold.{site}", f"unknown site; the sites are {', '.join(SITES)}")
    gold = {site: fields.integer_list(gold_raw.get(site, []), f"{where}.gold.{site}", low=1)
            for site in SITES}
    gems: list[str] = []
    for j, gem in enumerate(fields.sequence(p.get("gems", []), f"{where}.gems")):
        name = fields.string(gem, f"{where}.gems[{j}]").lower()
        if name in gems:
            raise InvalidInput(f"{where}.gems[{j}]", f"gem type {name!r} is listed twice "
                                                    "(a player keeps only one card of each type)")
        gems.append(name)
    if len(gems) > len(GEM_POINTS) - 1:
        raise InvalidInput(f"{where}.gems",
                           f"{len(gems)} gem types but the game has only {len(GEM_POINTS) - 1}")
    return gold, tuple(gems)


def score(data: Mapping[str, Any]) -> dict[str, Any]:
    """Final score of a Fool's Gold game (format in the module docstring).

    Returns
    -------
    dict
        ``{"game", "players": [{"name", "total", "rank", "breakdown": {"missing_sites", "nuggets",
        "gems"}, "fools_gold": {"sites", "nuggets"}, "site_totals"}], "winners", "tiebreak"}``.
    """
    players = fields.player_list(data, *PLAYERS)
    results = []
    for i, p in enumerate(players):
        gold, gems = _parse_player(p, f"players[{i}]")
        results.append((p["name"].strip(), score_player(gold, gems)))
    criteria = [Criterion(f"the {ORDINALS[k]} site") for k in range(1, len(SITES))]
    standings = rank([Entry(name, r.total, r.tiebreak_keys) for name, r in results], criteria)
    out = []
    for (name, r), rnk in zip(results, standings.ranks, strict=True):
        out.append({
            "name": name, "total": r.total, "rank": rnk,
            "breakdown": {"missing_sites": r.penalty, "nuggets": r.nuggets, "gems": r.gems},
            "fools_gold": {"sites": list(r.fools_gold_sites), "nuggets": r.fools_gold_nuggets},
            "site_totals": dict(r.site_totals),
        })
    return {"game": GAME, "players": out, **standings.to_json()}


def template() -> dict[str, Any]:
    """A filled example: the rules' worked example (17 points) and two more players."""
    return {
        "game": GAME,
        "players": [
            {"name": "Ann", "gold": {"hills": [3, 2], "forest": [4], "mountains": [5, 4], "river": [],
                                     "lake": [3, 4]},
             "gems": ["ruby", "emerald", "topaz"]},
            {"name": "Ben", "gold": {"hills": [2], "forest": [3, 3], "mountains": [1], "river": [5],
                                     "lake": [2, 2]},
             "gems": ["ruby"]},
            {"name": "Cas", "gold": {"hills": [6], "forest": [1], "mountains": [2], "river": [4, 3],
                                     "lake": [1]},
             "gems": ["diamond", "topaz"]},
        ],
    }
