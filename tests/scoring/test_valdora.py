"""Valdora final scoring."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.errors import InvalidInput
from scoring.valdora import score, template


def game(*players: dict[str, Any]) -> dict[str, Any]:
    return {"game": "valdora", "players": list(players)}


def test_every_source_of_points() -> None:
    p = {"name": "Ann", "contracts": [5, 8], "craftsman_colours": ["red", "Blue", "red"],
         "workshops": [12, 9], "processing_cards": 2, "stones": 3, "silver": 4}
    out = score(game(p))["players"][0]
    assert out["breakdown"] == {"contracts": 13, "craftsmen": 20, "workshops": 21, "processing": 20,
                                "stones": 3}
    assert out["total"] == 77
    assert out["craftsman_colours"] == ["red", "blue"]


def test_tie_on_points_goes_to_silver_then_the_game_is_shared() -> None:
    out = score(template())
    assert [p["total"] for p in out["players"]] == [64, 64]
    assert out["winners"] == ["Ann"]
    assert out["tiebreak"][0]["text"] == "Ann wins the tie over Ben on silver coins, 4 to 2"
    a = {"name": "A", "stones": 5, "silver": 3}
    out = score(game(a, {**a, "name": "B"}, {"name": "C", "stones": 1}))
    assert out["winners"] == ["A", "B"] and [p["rank"] for p in out["players"]] == [1, 1, 3]
    assert "the game is shared" in out["tiebreak"][0]["text"]


@pytest.mark.parametrize(
    ("player", "message"),
    [
        ({"craftsman_colours": ["orange"]}, r"craftsman_colours\[0\]: 'orange' is not a craftsman colour"),
        ({"contracts": [-1]}, r"contracts\[0\]: -1 is less than 0"),
        ({"processing_cards": 1.5}, r"processing_cards: expected a whole number"),
        ({"silver": -2}, r"silver: -2 is less than 0"),
        ({"workshops": "12"}, r"workshops: expected a list"),
    ],
)
def test_bad_input_names_the_field(player: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        score(game({"name": "A", **player}))


def test_players_are_required() -> None:
    with pytest.raises(InvalidInput, match="players: missing"):
        score({"game": "valdora"})


@settings(max_examples=40, deadline=None)
@given(stones=st.lists(st.integers(0, 3), min_size=2, max_size=5),
       silver=st.lists(st.integers(0, 2), min_size=5, max_size=5), seed=st.integers(0, 2**16))
def test_ranks_do_not_depend_on_the_order_players_are_listed(stones: list[int], silver: list[int],
                                                            seed: int) -> None:
    players = [{"name": f"P{i}", "stones": s, "silver": silver[i]} for i, s in enumerate(stones)]
    shuffled = players[:]
    random.Random(seed).shuffle(shuffled)
    ranks = {p["name"]: p["rank"] for p in score(game(*players))["players"]}
    assert ranks == {p["name"]: p["rank"] for p in score(game(*shuffled))["players"]}
    for p in players:  # rank = 1 + players strictly ahead on (points, silver)
        ahead = sum(1 for q in players if (q["stones"], q["silver"]) > (p["stones"], p["silver"]))
        assert ranks[p["name"]] == 1 + ahead
