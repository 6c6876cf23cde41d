"""The JSON entry points of Splendor Duel: score, check and template."""

from __future__ import annotations

from typing import Any

import pytest

from scoring import GAMES
from scoring.errors import InvalidInput
from scoring.splendor_duel import api

BOARD = ["WUGRK", "KPPYW", ".....", "UUU..", "GRKW."]


def score(*players: dict[str, Any]) -> dict[str, Any]:
    return api.score({"game": "splendor-duel", "players": list(players)})


def test_template_scores_and_names_the_winner() -> None:
    result = api.score(api.template())
    ann, bo = result["players"]
    assert ann["points_by_colour"]["blue"] == 10 and ann["victory"] == ["colour:blue"]
    assert ann["crowns"] == 3 and ann["breakdown"] == {"cards": 10, "royals": 2} and ann["total"] == 12
    assert (ann["rank"], bo["rank"]) == (1, 2)
    assert result["winners"] == ["Ann"] and result["finished"]


def test_registry_dispatches_to_this_module() -> None:
    assert GAMES["splendor-duel"].score(api.template()) == api.score(api.template())


def test_victory_beats_more_points() -> None:
    jokers = [{"id": "L3-12", "colour": "white"}, {"id": "L2-22", "colour": "blue"}]
    crowns = {"name": "Cy", "cards": ["L3-01", "L3-03", "L1-02", *jokers]}  # 10 crowns
    rich = {"name": "Di", "cards": ["L3-13", "L2-24", "L1-28"]}  # 14 points, no victory
    result = score(crowns, rich)
    cy, di = result["players"]
    assert "crowns" in cy["victory"] and cy["crowns"] >= 10
    assert di["points"] > cy["points"]
    assert (cy["rank"], di["rank"]) == (1, 2) and result["winners"] == ["Cy"]


def test_twenty_points_wins() -> None:
    result = score({"name": "Ed", "cards": ["L3-13", "L2-24", "L3-02", "L3-04", "L1-28"], "royals": []})
    assert result["players"][0]["victory"] == ["points"] and result["players"][0]["points"] == 22


def test_no_victory_means_no_winner_yet() -> None:
    result = score({"name": "Ann", "cards": ["L1-05"]}, {"name": "Bo", "cards": ["L1-10"]})
    assert result["winners"] == [] and not result["finished"]
    assert [p["rank"] for p in result["players"]] == [1, 1]  # equal points share a rank


def test_a_joker_counts_in_the_colour_it_joined() -> None:
    cards = ["L3-02", "L3-01", "L2-04", {"id": "L2-21", "colour": "W"}]
    result = score({"name": "Fay", "cards": cards})
    assert result["players"][0]["points_by_colour"]["white"] == 10
    assert result["players"][0]["bonuses"]["white"] == 5


@pytest.mark.parametrize(("player", "field", "words"), [
    ({"name": "A", "cards": ["L9-99"]}, "players[0].cards[0]", "unknown jewel card id 'L9-99'"),
    ({"name": "A", "cards": ["R1"]}, "players[0].cards[0]", "list it under royals"),
    ({"name": "A", "cards": ["L1-01", "L1-01"]}, "players[0].cards[1]", "also listed at players[0].cards[0]"),
    ({"name": "A", "cards": ["L1-26"]}, "players[0].cards[0]", "is a joker"),
    ({"name": "A", "cards": [{"id": "L1-26", "colour": "blue"}]}, "players[0].cards[0].colour",
     "no blue card with a bonus"),
    ({"name": "A", "cards": ["L1-06", {"id": "L1-26", "colour": "pink"}]}, "players[0].cards[1].colour",
     "unknown colour 'pink'"),
    ({"name": "A", "cards": [{"id": "L1-06", "colour": "red"}]}, "players[0].cards[0].colour", "not a joker"),
    ({"name": "A", "cards": ["L1-02"], "royals": ["R1"]}, "players[0].royals", "need 3 crowns"),
    ({"name": "A", "cards": ["L1-02"], "royals": ["R1", "R1"]}, "players[0].royals[1]",
     "also listed"),
    ({"name": "A", "cards": [], "royals": ["R9"]}, "players[0].royals[0]", "unknown royal card id"),
    ({"name": "A", "cards": "L1-01"}, "players[0].cards", "expected a list"),
])
def test_bad_score_input_names_the_field(player: dict[str, Any], field: str, words: str) -> None:
    with pytest.raises(InvalidInput) as err:
        score(player)
    assert err.value.field == field
    assert words in err.value.problem


def test_a_card_in_two_players_hands_is_bad_input() -> None:
    with pytest.raises(InvalidInput) as err:
        score({"name": "A", "cards": ["L1-01"]}, {"name": "B", "cards": ["L1-01"]})
    assert err.value.field == "players[1].cards[0]"


def test_three_players_are_bad_input() -> None:
    with pytest.raises(InvalidInput) as err:
        score({"name": "A"}, {"name": "B"}, {"name": "C"})
    assert err.value.field == "players"


def test_check_take_form() -> None:
    legal = api.check({"game": "splendor-duel", "board": BOARD, "take": [[3, 2], [3, 0], [3, 1]]})
    assert legal["legal"] and legal["privilege_to_opponent"]
    gap = api.check({"game": "splendor-duel", "board": BOARD, "take": [[0, 0], [0, 2]]})
    assert not gap["legal"] and "straight line" in gap["reason"] and not gap["privilege_to_opponent"]


def test_check_change_form() -> None:
    after = ["WUGRK", "KPP.W", ".....", "UUU..", "GRKW."]
    result = api.check({"game": "splendor-duel", "before": BOARD, "after": after})
    assert result["action"] == "reserve_gold" and result["cells"] == [[1, 3]] and result["legal"]
    scattered = ["WUGRK", "KPPYW", ".....", ".UU..", "GRK.."]
    strict = api.check({"game": "splendor-duel", "before": BOARD, "after": scattered, "privileges": 0,
                        "held": "WY"})
    assert not strict["legal"]
    loose = api.check({"game": "splendor-duel", "before": BOARD, "after": scattered,
                       "held": {"white": 1, "Y": 1}})
    assert loose["legal"] and loose["action"] == "privilege+take"


@pytest.mark.parametrize(("data", "field", "words"), [
    ({"board": ["WUGRK", "KPPYW", ".....", "UUU..", "GRKW.."], "take": [[0, 0]]}, "board[4]",
     "6 letters, expected 5"),
    ({"board": BOARD, "take": [[0, 5]]}, "take[0]", "outside the board"),
    ({"board": BOARD, "take": [[0]]}, "take[0]", "expected [row, col]"),
    ({"board": BOARD, "take": "a1"}, "take", "expected a list"),
    ({"before": BOARD}, "after", "expected a list of 5 strings"),
    ({"before": BOARD, "after": BOARD, "privileges": 4}, "privileges", "more than 3"),
    ({"before": BOARD, "after": BOARD, "held": "WX"}, "held", "letter 'X'"),
    ({"before": BOARD, "after": BOARD, "held": "WWWW"}, "held", "exceed the game's supply of white"),
    ({"board": BOARD}, "take", "missing"),
])
def test_bad_check_input_names_the_field(data: dict[str, Any], field: str, words: str) -> None:
    with pytest.raises(InvalidInput) as err:
        api.check({"game": "splendor-duel", **data})
    assert err.value.field == field
    assert words in err.value.problem
