"""Silver & Gold game state: applying turns, trophies in turn order, palms, replacements, rounds.

Cards used (row 0 first)::

    t4  .C#.   t44 .##.   t40 X#.   t39 ###   t11 ####   t23 .C#.
        P###       C##X       ###       #.#       #.X#       ####
        ####       #..#       ###       ###       #X.#       ####
        C##X                                      P###       P..X
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from scoring.errors import InvalidInput
from scoring.silver_gold import (
    DECK,
    ActiveCard,
    GameState,
    IllegalTurn,
    PlayerMove,
    ScoreSheet,
    apply_turn,
    claim_trophies,
    final_standings,
    legal_placements,
    load_catalog,
    new_game,
    state_from_json,
    state_to_json,
)
from scoring.silver_gold.api import play
from scoring.silver_gold.api import start as start_api
from scoring.silver_gold.shapes import Cell

CAT = load_catalog()
E1, E8 = CAT.expedition("e1"), CAT.expedition("e8")
NONE: frozenset[Cell] = frozenset()


def start(deck: tuple[str, ...] = ("t30", "t31", "t32"), start_player: int = 0) -> GameState:
    return new_game(CAT, ["Ann", "Ben"], [["t4", "t40"], ["t44", "t39"]], ["t11", "t23", "t20", "t21"],
                    deck, start_player=start_player)


def one(cell: Cell, slot: int = 0, take: tuple[str, ...] = ()) -> PlayerMove:
    marks = [NONE, NONE]
    marks[slot] = frozenset({cell})
    return PlayerMove(tuple(marks), take)


def with_sheet(state: GameState, index: int, sheet: ScoreSheet) -> GameState:
    players = list(state.players)
    players[index] = replace(players[index], sheet=sheet)
    return replace(state, players=tuple(players))


def test_new_game_checks_its_cards() -> None:
    s = start()
    assert s.display_palms == 2 and s.trophies_left == (6, 5, 4, 3, 2, 1)
    assert (s.round, s.turn, s.finished) == (1, 1, False)
    with pytest.raises(InvalidInput, match=r"display\[0\]: card 't4' is used twice"):
        new_game(CAT, ["A"], [["t4", "t40"]], ["t4"], [])
    with pytest.raises(InvalidInput, match=r"active\[0\]: 1 cards; a player keeps 2"):
        new_game(CAT, ["A"], [["t4"]], [], [])


def test_coins_and_palms_are_scored_when_marked() -> None:
    s = apply_turn(start(), E1, [one((1, 0)), one((1, 0), slot=0)])  # Ann: palm; Ben: coin of t44
    ann, ben = s.players
    assert ann.sheet.palms == (3,)  # 1 + two palms on the display
    assert ben.sheet.coins == 1
    assert ann.active[0].marked == {(1, 0)}
    assert "Ann scores 3 for a palm" in s.events


def test_only_the_first_four_palm_scorings_count() -> None:
    s = with_sheet(start(), 0, ScoreSheet(palms=(1, 1, 1, 1)))
    s = apply_turn(s, E1, [one((1, 0)), one((0, 1))])
    assert s.players[0].sheet.palms == (1, 1, 1, 1)


def test_trophies_are_claimed_in_turn_order_from_the_start_player() -> None:
    for first, expected in ((0, {"Ann": (6,), "Ben": (5,)}), (1, {"Ann": (5,), "Ben": (6,)})):
        s = start(start_player=first)
        s = with_sheet(with_sheet(s, 0, ScoreSheet(coins=3)), 1, ScoreSheet(coins=3))
        s = apply_turn(s, E1, [one((0, 1)), one((1, 0))])  # both cross their 4th coin
        assert {p.name: p.sheet.trophies for p in s.players} == expected
        assert s.trophies_left == (4, 3, 2, 1)
        assert s.start_player == 1 - first


def test_claim_trophies_in_the_order_given() -> None:
    claims = claim_trophies([4, 6, 5], [0, 1, 0], [8, 4, 3])
    assert claims.trophies == ((6, 5), (), ())
    assert claims.rows_scored == (2, 1, 0) and claims.unrewarded == (0, 0, 0)
    assert claims.trophies_left == (4,)
    claims = claim_trophies([2], [0, 0], [4, 4])
    assert claims.trophies == ((2,), ()) and claims.unrewarded == (0, 1) and claims.trophies_left == ()
    assert claim_trophies([3], [1], [2]).rows_scored == (1,)  # rows already scored stay scored
    with pytest.raises(InvalidInput, match="coins"):
        claim_trophies([6], [0], [13])
    with pytest.raises(InvalidInput, match="rows_scored"):
        claim_trophies([6], [0, 0], [4])


def test_a_row_completed_after_the_trophies_ran_out_earns_nothing() -> None:
    s = replace(with_sheet(start(), 0, ScoreSheet(coins=3)), trophies_left=())
    s = apply_turn(s, E1, [one((0, 1)), one((0, 1))])
    assert s.players[0].sheet.trophies == () and s.players[0].sheet.rows_scored == 1
    assert "Ann completes a coin row; no trophy is left" in s.events


def test_completed_card_goes_to_the_pile_and_is_replaced_then_the_display_refills() -> None:
    s = start()
    ann = s.players[0]
    almost = ActiveCard(ann.active[1].card, ann.active[1].card.cells - {(2, 2)})
    s = replace(s, players=(replace(ann, active=(ann.active[0], almost)), s.players[1]))
    s = apply_turn(s, E8, [one((2, 2), slot=1, take=("t20",)), one((0, 1))])
    ann = s.players[0]
    assert [c.id for c in ann.completed] == ["t40"]
    assert [a.card.id for a in ann.active] == ["t4", "t20"]
    assert [c.id for c in s.display] == ["t11", "t23", "t21", "t30"]
    assert [c.id for c in s.deck] == ["t31", "t32"]
    assert "Ann completes t40 (8 points)" in s.events


def test_replacement_from_the_deck_and_a_shrinking_display() -> None:
    s = start(deck=())
    ann = s.players[0]
    almost = ActiveCard(ann.active[1].card, ann.active[1].card.cells - {(2, 2)})
    s = replace(s, players=(replace(ann, active=(ann.active[0], almost)), s.players[1]))
    with pytest.raises(InvalidInput, match=r"moves\[0\]\.take\[0\]: the deck is empty"):
        apply_turn(s, E8, [one((2, 2), slot=1, take=(DECK,)), one((0, 1))])
    with pytest.raises(InvalidInput, match=r"moves\[0\]\.take: Ann completed 1 cards but chose 0"):
        apply_turn(s, E8, [one((2, 2), slot=1), one((0, 1))])
    after = apply_turn(s, E8, [one((2, 2), slot=1, take=("t23",)), one((0, 1))])
    assert len(after.display) == 3


def test_an_illegal_turn_raises_with_the_reason() -> None:
    with pytest.raises(IllegalTurn, match=r"moves\[1\]: Ben: cell \(0,0\) of t44 is water"):
        apply_turn(start(), E1, [one((2, 2)), one((0, 0))])
    with pytest.raises(InvalidInput, match="moves: 1 moves for 2 players"):
        apply_turn(start(), E1, [one((2, 2))])


def test_a_random_game_runs_four_rounds_and_scores() -> None:
    rng = random.Random(20261129)
    ids = list(CAT.ids)
    rng.shuffle(ids)
    s = new_game(CAT, ["Ann", "Ben", "Cas"], [ids[0:2], ids[2:4], ids[4:6]], ids[6:10], ids[10:])
    shapes = list(CAT.expeditions)
    for _ in range(4 * 7):
        shape = rng.choice(shapes)
        moves = []
        for p in s.players:
            options = [(slot, cells) for slot, a in enumerate(p.active)
                       for cells in legal_placements(a.card, a.marked, shape)]
            if not options:
                options = [(slot, frozenset({c})) for slot, a in enumerate(p.active)
                           for c in a.card.cells - a.marked]
            slot, cells = rng.choice(options)
            marks = tuple(cells if k == slot else NONE for k in range(len(p.active)))
            done = sum(1 for k, a in enumerate(p.active) if a.card.cells <= a.marked | marks[k])
            moves.append(PlayerMove(marks, (DECK,) * done))
        s = apply_turn(s, shape, moves)
        everything = [c.id for p in s.players for c in p.completed] + [a.card.id for p in s.players
                                                                       for a in p.active]
        everything += [c.id for c in (*s.display, *s.deck)]
        assert sorted(everything) == sorted(CAT.ids)  # no card lost or duplicated
        assert all(p.sheet.coins <= 12 and len(p.sheet.palms) <= 4 for p in s.players)
    assert s.finished and s.round == 5
    assert sum(len(p.sheet.trophies) for p in s.players) + len(s.trophies_left) == 6
    breakdowns, standings = final_standings(s.final_sheets())
    assert len(standings.ranks) == 3 and min(standings.ranks) == 1
    assert all(b.total >= 0 for b in breakdowns)
    with pytest.raises(InvalidInput, match="the game is over"):
        apply_turn(s, E1, [])


def test_state_documents_round_trip_and_play_a_turn() -> None:
    doc = start_doc()
    state = state_from_json(doc, CAT)
    assert state_to_json(state) == doc
    nxt = play({"state": doc, "shape": "e1",
                "moves": [{"marks": [[[1, 0]], []]}, {"marks": [[[1, 0], [2, 0]], []]}]})
    assert nxt["players"][0]["palms"] == [3]
    assert nxt["players"][1]["coins"] == 1
    assert nxt["turn"] == 2 and nxt["start_player"] == 1
    assert "Ben crosses 1 coin box" in nxt["events"]
    assert state_to_json(state_from_json(nxt, CAT)) == nxt


def start_doc() -> dict[str, object]:
    return start_api({"game": "silver-gold",
                      "players": [{"name": "Ann", "active": ["t4", "t40"]},
                                  {"name": "Ben", "active": ["t44", "t39"]}],
                      "display": ["t11", "t23", "t20", "t21"], "deck": ["t30", "t31"]})


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"moves": [{"marks": [[[0, 0]], []]}, {"marks": [[], []]}]},
         r"moves\[0\]: Ann: cell \(0,0\) of t4 is water"),
        ({"shape": "e0"}, "shape: unknown expedition card"),
        ({"state": {"players": [{"name": "A", "coins": 14}]}},
         r"state\.players\[0\]\.coins: 14 is more than 12"),
        ({"state": {"players": [{"name": "A", "active": [{"id": "t4", "marked": [[0, 0]]}]}]}},
         r"state\.players\[0\]\.active\[0\]\.marked: cell \(0,0\) is not a cell of t4"),
        ({"state": {"players": [{"name": "A", "completed": ["t4"]}], "display": ["t4"]}},
         r"state\.display\[0\]: card 't4' appears twice in the game"),
    ],
)
def test_play_rejects_bad_documents(change: dict[str, object], message: str) -> None:
    moves = [{"marks": [[[2, 2]], []]}, {"marks": [[[2, 0]], []]}]
    data = {"state": start_doc(), "shape": "e1", "moves": moves}
    with pytest.raises(InvalidInput, match=message):
        play({**data, **change})
