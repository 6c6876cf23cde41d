"""Silver & Gold final scoring through the JSON entry points (``score``, ``check``)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from scoring.errors import InvalidInput
from scoring.silver_gold import Badge, CompletedCard, FinalSheet, score_sheet
from scoring.silver_gold.api import check, check_template, score, template


def game(*players: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"game": "silver-gold", "players": list(players), **extra}


def test_the_rules_worked_example_scores_95() -> None:
    # Sarah: 6 completed cards worth 64 (t1 purple with an orange +2 badge, t27 green with a grey +1
    # badge, two orange, two grey); 9 coins and trophies 5+3 make 17; palms 8.
    sarah = {"name": "Sarah", "completed": ["t1", "t16", "t17", "t27", "t40", "t41"],
             "coins": 9, "trophies": [5, 3], "palms": [3, 2, 2, 1]}
    out = score(game(sarah))["players"][0]
    assert out["total"] == 95
    assert out["breakdown"] == {"cards": 64, "badges": 6, "coins": 9, "trophies": 8, "palms": 8}
    assert out["completed_by_colour"] == {"purple": 1, "orange": 2, "green": 1, "grey": 2}
    assert score(template())["players"][0]["total"] == 95


def test_each_badge_scores_separately_and_unmatched_badges_score_nothing() -> None:
    grey_badge = CompletedCard("orange", 12, Badge("grey", 1))
    grey = CompletedCard("grey", 8)
    sheet = FinalSheet("A", (grey_badge, grey_badge, grey, grey, grey,
                             CompletedCard("green", 10, Badge("purple", 2))))
    assert score_sheet(sheet).badges == 2 * 3  # two grey badges, three grey cards; no purple card
    assert score_sheet(FinalSheet("B")).total == 0


def test_inline_cards_and_a_custom_trophy_track() -> None:
    inline = {"colour": "grey", "points": 8, "badge": {"colour": "grey", "value": 1}}
    p = {"name": "A", "completed": [inline], "coins": 4, "trophies": [9]}
    out = score(game(p, trophy_track=[9, 7]))["players"][0]
    assert out["breakdown"] == {"cards": 8, "badges": 1, "coins": 4, "trophies": 9, "palms": 0}


def test_tie_break_on_grey_then_green_cards() -> None:
    # Ann: green t25 + grey t37, t38 = 26 (their purple/orange badges match no card)
    a = {"name": "Ann", "completed": ["t25", "t37", "t38"], "coins": 0}
    # Ben: green t28 + grey t40 + 8 coins = 26
    b = {"name": "Ben", "completed": ["t28", "t40"], "coins": 8}
    out = score(game(a, b))
    assert [p["total"] for p in out["players"]] == [26, 26]
    assert out["winners"] == ["Ann"]
    assert [p["rank"] for p in out["players"]] == [1, 2]
    assert out["tiebreak"] == [{"players": ["Ann", "Ben"], "total": 26,
                                "text": "Ann wins the tie over Ben on completed grey cards, 2 to 1"}]


def test_players_tied_on_everything_share_the_rank() -> None:
    a = {"name": "Ann", "completed": ["t40"], "coins": 1}
    b = {"name": "Ben", "completed": ["t41"], "coins": 1}
    c = {"name": "Cas", "completed": [], "coins": 2}
    out = score(game(a, b, c))
    assert [p["rank"] for p in out["players"]] == [1, 1, 3]
    assert out["winners"] == ["Ann", "Ben"]
    assert "share rank 1" in out["tiebreak"][0]["text"]


@pytest.mark.parametrize(
    ("player", "extra", "message"),
    [
        ({"coins": 13}, {}, r"players\[0\]\.coins: 13 is more than 12"),
        ({"coins": -1}, {}, r"players\[0\]\.coins: -1 is less than 0"),
        ({"completed": ["t99"]}, {}, r"players\[0\]\.completed\[0\]: unknown card id 't99'"),
        ({"completed": ["t9", "t9"]}, {}, r"completed\[1\]: card 't9' is already in this pile"),
        ({"coins": 5, "trophies": [6, 5]}, {}, r"trophies: 2 trophies but only 1 coin row is complete"),
        ({"coins": 4, "trophies": [7]}, {}, r"trophies\[0\]: trophy 7 is claimed 1 times but the track"),
        ({"palms": [1, 1, 1, 1, 1]}, {}, r"palms: 5 items but at most 4"),
        ({"palms": [6]}, {}, r"palms\[0\]: 6 is more than 5"),
        ({"palms": [0]}, {}, r"palms\[0\]: 0 is less than 1"),
        ({"completed": [{"colour": "pink", "points": 8}]}, {}, r"completed\[0\]\.colour: 'pink'"),
        ({"coins": "9"}, {}, r"coins: expected a whole number"),
        ({}, {"catalog": {"cards": [{"id": "x"}]}}, r"catalog\.cards\[0\]\.colour"),
    ],
)
def test_bad_input_names_the_field(player: dict[str, Any], extra: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        score(game({"name": "A", **player}, **extra))


def test_cross_player_errors() -> None:
    with pytest.raises(InvalidInput, match=r"players\[1\]\.completed\[0\]: card 't9' is already in A's pile"):
        score(game({"name": "A", "completed": ["t9"]}, {"name": "B", "completed": ["t9"]}))
    with pytest.raises(InvalidInput, match=r"players\[1\]\.trophies\[0\]: trophy 6 is claimed 2 times"):
        score(game({"name": "A", "coins": 4, "trophies": [6]}, {"name": "B", "coins": 4, "trophies": [6]}))
    with pytest.raises(InvalidInput, match=r"players\[1\]\.name: 'A' is used by two players"):
        score(game({"name": "A"}, {"name": "A"}))
    with pytest.raises(InvalidInput, match="players: 5 players; the game takes at most 4"):
        score(game(*({"name": str(i)} for i in range(5))))


def test_check_answers_legal_and_illegal_turns() -> None:
    ok = check(check_template())
    assert ok["legal"] is True and ok["shape_card"] == "t4"
    assert ok["bonus_cells"] == [{"card": "t4", "cell": [1, 0]}] and ok["palms"] == [2]
    bad = copy.deepcopy(check_template())
    bad["cards"][1]["after"] = [[1, 1], [2, 2]]
    out = check(bad)
    assert out["legal"] is False and out["reason"] == "3 extra cells but only 1 X was marked"
    cells = {"game": "silver-gold", "shape": [[0, 0], [0, 1]],
             "cards": [{"id": "t40", "before": [], "marked": [[1, 0], [1, 1]]}]}
    assert check(cells)["legal"] is True


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"shape": "e9"}, "shape: unknown expedition card 'e9'"),
        ({"shape": []}, "shape: the pattern has no cells"),
        ({"cards": [{"id": "t99", "before": [], "after": []}]}, r"cards\[0\]\.id: unknown card id 't99'"),
        ({"cards": [{"id": "t4", "before": [], "after": [[4, 0]]}]},
         r"cards\[0\]\.after\[0\]: cell \(4,0\) is outside the 4x4 grid of t4"),
        ({"cards": [{"id": "t4", "before": [[0, 0]], "after": [[0, 0]]}]},
         r"cards\[0\]\.before\[0\]: cell \(0,0\) of t4 is water"),
        ({"cards": [{"id": "t4", "before": []}]}, r"cards\[0\]\.after: missing"),
        ({"cards": [{"id": "t4", "after": []}, {"id": "t4", "after": []}]},
         r"cards\[1\]\.id: card 't4' is given twice"),
        ({"cards": [{"id": "t4", "after": [[1, "2"]]}]}, r"cards\[0\]\.after\[0\]: expected \[row, col\]"),
        ({"display_palms": 9}, "display_palms: 9 is more than 4"),
        ({"coins": 13}, "coins: 13 is more than 12"),
    ],
)
def test_check_rejects_bad_input(change: dict[str, Any], message: str) -> None:
    data = {**check_template(), **change}
    with pytest.raises(InvalidInput, match=message):
        check(data)


def test_check_lists_hints_on_request() -> None:
    data = {"game": "silver-gold", "shape": "e8", "hints": True,
            "cards": [{"id": "t4", "before": [[2, 2]], "after": [[2, 2]]},
                      {"id": "t40", "before": [], "after": []}]}
    out = check(data)
    assert out["legal"] is False
    hints = {h["card"]: h["placements"] for h in out["hints"]}
    assert len(hints["t4"]) == 3 and len(hints["t40"]) == 3
    assert [[1, 0], [1, 1], [2, 0], [2, 1]] in hints["t40"]
    assert "hints" not in check({**data, "hints": False})


def test_check_reports_water_in_new_marks_as_an_illegal_turn() -> None:
    data = {"game": "silver-gold", "shape": "e1", "cards": [{"id": "t4", "before": [], "after": [[0, 3]]}]}
    assert check(data) == {**check(data), "legal": False, "reason": "cell (0,3) of t4 is water"}
