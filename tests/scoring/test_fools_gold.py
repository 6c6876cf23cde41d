"""Fool's Gold final scoring."""

from __future__ import annotations

from typing import Any

import pytest

from scoring.errors import InvalidInput
from scoring.fools_gold import score, score_player, template


def game(*players: dict[str, Any]) -> dict[str, Any]:
    return {"game": "fools-gold", "players": list(players)}


def test_the_rules_worked_example_scores_17() -> None:
    # no river gold: -5; mountains (9) is fool's gold; 16 nuggets left; 3 gem types: 6
    ann = {"name": "Ann", "gold": {"hills": [3, 2], "forest": [4], "mountains": [5, 4], "lake": [3, 4]},
           "gems": ["ruby", "emerald", "topaz"]}
    out = score(game(ann))["players"][0]
    assert out["total"] == 17
    assert out["breakdown"] == {"missing_sites": -5, "nuggets": 16, "gems": 6}
    assert out["fools_gold"] == {"sites": ["mountains"], "nuggets": 9}
    assert score(template())["players"][0]["total"] == 17


@pytest.mark.parametrize(("types", "points"), [(0, 0), (1, 1), (2, 3), (3, 6), (4, 10), (5, 15)])
def test_gem_sets(types: int, points: int) -> None:
    gold = {s: (1,) for s in ("hills", "forest", "mountains", "river", "lake")}
    assert score_player(gold, tuple(f"g{i}" for i in range(types))).gems == points


def test_equal_highest_sites_discard_only_one() -> None:
    r = score_player({"hills": (5,), "forest": (5,), "mountains": (1,), "river": (1,), "lake": (1,)}, ())
    assert r.fools_gold_sites == ("hills", "forest") and r.nuggets == 8 and r.total == 8


def test_no_gold_at_all() -> None:
    r = score_player({}, ("ruby",))
    assert r.penalty == -25 and r.nuggets == 0 and r.total == -24


def test_tie_break_goes_down_the_sites() -> None:
    # both 13; second-highest 6 vs 5 decides
    ben = {"name": "Ben", "gold": {"hills": [2], "forest": [3, 3], "mountains": [1], "river": [5],
                                   "lake": [2, 2]}, "gems": ["ruby"]}
    cas = {"name": "Cas", "gold": {"hills": [6], "forest": [1], "mountains": [2], "river": [4, 3],
                                   "lake": [1]}, "gems": ["diamond", "topaz"]}
    out = score(game(ben, cas))
    assert [p["total"] for p in out["players"]] == [13, 13]
    assert out["winners"] == ["Cas"]
    assert out["tiebreak"][0]["text"] == "Cas wins the tie over Ben on the second-highest site, 6 to 5"
    # equal second-highest: the third-highest decides
    a = {"name": "A", "gold": {"hills": [9], "forest": [5], "mountains": [4], "river": [1], "lake": [1]}}
    b = {"name": "B", "gold": {"hills": [9], "forest": [5], "mountains": [3], "river": [2], "lake": [1]}}
    out = score(game(a, b))
    assert out["winners"] == ["A"] and "third-highest site, 4 to 3" in out["tiebreak"][0]["text"]
    out = score(game(a, {**a, "name": "C"}))
    assert out["winners"] == ["A", "C"] and [p["rank"] for p in out["players"]] == [1, 1]


@pytest.mark.parametrize(
    ("player", "message"),
    [
        ({"gems": ["ruby", "Ruby"]}, r"players\[0\]\.gems\[1\]: gem type 'ruby' is listed twice"),
        ({"gems": ["a", "b", "c", "d", "e", "f"]}, r"gems: 6 gem types but the game has only 5"),
        ({"gold": {"desert": [1]}}, r"players\[0\]\.gold\.desert: unknown site"),
        ({"gold": {"lake": [0]}}, r"players\[0\]\.gold\.lake\[0\]: 0 is less than 1"),
        ({"gold": {"lake": 3}}, r"players\[0\]\.gold\.lake: expected a list"),
        ({"gems": [""]}, r"players\[0\]\.gems\[0\]: expected a non-empty text"),
    ],
)
def test_bad_input_names_the_field(player: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        score(game({"name": "A", **player}))
