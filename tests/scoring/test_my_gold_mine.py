"""My Gold Mine scoring over rounds, with the two-dwarf variant."""

from __future__ import annotations

from typing import Any

import pytest

from scoring.errors import InvalidInput
from scoring.my_gold_mine import score, template


def out_(name: str, pos: int, nuggets: int, extra: int = 0) -> dict[str, Any]:
    return {"name": name, "status": "exited", "exit_position": pos, "nuggets": nuggets, "extra_gold": extra}


def caught(name: str, nuggets: int = 0) -> dict[str, Any]:
    return {"name": name, "status": "caught", "nuggets": nuggets}


def game(*rounds: list[dict[str, Any]]) -> dict[str, Any]:
    return {"game": "my-gold-mine", "rounds": [{"players": r} for r in rounds]}


def totals(result: dict[str, Any]) -> dict[str, int]:
    return {p["name"]: p["total"] for p in result["players"]}


def test_round_one_prizes_extra_gold_and_the_exit_tie_break() -> None:
    # Ben 6 + 3 (extra gold) ties Ann's 9 but exited higher; Dan is 4th and gets nothing; Cas was caught
    r1 = [out_("Ann", 2, 9), out_("Ben", 1, 6, 1), caught("Cas", 20), out_("Dan", 4, 1), out_("Eve", 3, 5)]
    result = score(game(r1))
    assert totals(result) == {"Ann": 2, "Ben": 3, "Cas": 0, "Dan": 0, "Eve": 1}
    assert result["final"] is False and result["rounds_scored"] == 1
    ben = next(p for p in result["players"] if p["name"] == "Ben")
    assert ben["rounds"][0]["dwarves"][0] == {"status": "exited", "exit_position": 1, "count": 9, "place": 1}
    assert [p["rank"] for p in result["players"]] == [2, 1, 4, 4, 3]  # no tie-break before round 3


def test_round_three_counts_nuggets_one_to_one_and_a_caught_player_keeps_real_nuggets() -> None:
    r1 = [out_("Ann", 1, 9), out_("Ben", 2, 5), out_("Cas", 3, 1)]
    r2 = [out_("Ann", 1, 2), out_("Ben", 2, 7), caught("Cas")]
    r3 = [caught("Ann", 30), out_("Ben", 1, 4, 1), out_("Cas", 2, 3)]
    result = score(game(r1, r2, r3))
    assert totals(result) == {"Ann": 3 + 2, "Ben": 2 + 3 + 4 + 3, "Cas": 1 + 0 + 3}
    assert result["final"] is True and result["winners"] == ["Ben"]
    ann = next(p for p in result["players"] if p["name"] == "Ann")
    assert ann["breakdown"] == {"round_1": 3, "round_2": 2, "round_3": 0}


def test_final_tie_goes_to_the_higher_exit_position() -> None:
    result = score(template())
    assert totals(result) == {"Ann": 8, "Ben": 8, "Cas": 7}
    assert result["winners"] == ["Ben"]
    assert result["tiebreak"][0]["text"] == (
        "Ben wins the tie over Ann on exit position in round 3 (1 = top), 1 to 3")
    # a player caught in round 3 loses a tie to one who exited
    r = [out_("A", 1, 3), out_("B", 2, 3)]
    result = score(game(r, r, [caught("A"), out_("B", 1, 2)]))
    assert totals(result) == {"A": 6, "B": 6}
    assert result["winners"] == ["B"] and "1 to none" in result["tiebreak"][0]["text"]
    result = score(game([out_("A", 1, 3), out_("B", 2, 2)], [out_("A", 2, 2), out_("B", 1, 3)],
                        [caught("A"), caught("B")]))
    assert totals(result) == {"A": 5, "B": 5} and result["winners"] == ["A", "B"]


def test_two_dwarf_variant_each_banked_supply_places_on_its_own() -> None:
    ann = {"name": "Ann", "dwarves": [out_("", 1, 8), out_("", 3, 4)]}
    ben = {"name": "Ben", "dwarves": [out_("", 2, 6), caught("")]}
    result = score(game([ann, ben]))
    assert totals(result) == {"Ann": 3 + 1, "Ben": 2}
    r3 = [{"name": "Ann", "dwarves": [out_("", 2, 1), caught("")]},
          {"name": "Ben", "dwarves": [out_("", 1, 3), out_("", 3, 2, 1)]}]
    result = score(game([ann, ben], [ann, ben], r3))
    assert totals(result) == {"Ann": 8 + 1, "Ben": 4 + 3 + 2 + 3}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (game([out_("A", 1, 3), out_("B", 1, 2)]), r"rounds\[0\]\.players: two dwarves hold exit position 1"),
        (game([out_("A", 3, 3), out_("B", 1, 2)]), r"exit position 3 but only 2 dwarves play"),
        (game([{**caught("A"), "exit_position": 1}, out_("B", 1, 2)]),
         r"rounds\[0\]\.players\[0\]\.exit_position: a caught dwarf has no exit position"),
        (game([{"name": "A", "status": "home"}, out_("B", 1, 2)]), r"players\[0\]\.status: 'home'"),
        (game([{"name": "A", "status": "exited"}, out_("B", 1, 2)]),
         r"players\[0\]\.exit_position: expected"),
        (game([out_("A", 1, 3), out_("B", 2, 2)], [out_("A", 1, 3), out_("C", 2, 2)]),
         r"rounds\[1\]\.players: player 'B' is missing"),
        (game(*[[out_("A", 1, 3), out_("B", 2, 2)]] * 4), "rounds: 4 items but at most 3"),
        (game([out_("A", 1, 3)]), "players: 1 players; at least 2 needed"),
        (game([{"name": "A", "dwarves": [out_("", 1, 1)]}, out_("B", 2, 2)]),
         r"players\[0\]\.dwarves: 1 dwarves; the variant gives each player 2"),
        (game([{"name": "A", "dwarves": []}, out_("B", 2, 2), out_("C", 3, 1)]),
         "the two-dwarf variant is for exactly 2 players"),
        ({"game": "my-gold-mine"}, "rounds: missing"),
        ({"game": "my-gold-mine", "rounds": []}, "rounds: no rounds given"),
        (game([out_("A", 1, -3), out_("B", 2, 2)]), r"nuggets: -3 is less than 0"),
    ],
)
def test_bad_input_names_the_field(data: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        score(data)
