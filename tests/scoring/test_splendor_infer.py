"""infer_board_change: what happened between two board readings."""

from __future__ import annotations

import numpy as np
import pytest

from scoring.errors import InvalidInput
from scoring.splendor_duel.board import Board
from scoring.splendor_duel.game import Refill, State, apply, legal_actions, new_game, random_refill
from scoring.splendor_duel.infer import infer_board_change
from scoring.splendor_duel.tokens import Tokens

BEFORE = ["WUGRK",
          "KPPYW",
          "GRUUU",
          "GWKGR",
          "RKW.Y"]


def change(before: list[str], after: list[str], **kwargs: object):  # type: ignore[no-untyped-def]
    return infer_board_change(Board.parse(before, allow_unknown=True), Board.parse(after, allow_unknown=True),
                              **kwargs)  # type: ignore[arg-type]


def test_no_change() -> None:
    result = change(BEFORE, BEFORE)
    assert (result.action, result.legal, result.cells) == ("none", True, ())


def test_a_take_in_a_line() -> None:
    after = ["WUGRK", "KPPYW", "GR...", "GWKGR", "RKW.Y"]
    result = change(BEFORE, after)
    assert result.action == "take" and result.legal
    assert result.cells == ((2, 2), (2, 3), (2, 4))
    assert result.privilege_to_opponent and result.privileges_to_opponent == 1


def test_both_pearls_give_the_opponent_a_privilege() -> None:
    after = ["WUGRK", "K..YW", "GRUUU", "GWKGR", "RKW.Y"]
    result = change(BEFORE, after)
    assert result.action == "take" and result.privilege_to_opponent


def test_gold_taken_alone_is_a_reservation() -> None:
    after = ["WUGRK", "KPP.W", "GRUUU", "GWKGR", "RKW.Y"]
    result = change(BEFORE, after)
    assert (result.action, result.legal, result.cells) == ("reserve_gold", True, ((1, 3),))


def test_two_gold_tokens_in_one_turn_are_illegal() -> None:
    after = ["WUGRK", "KPP.W", "GRUUU", "GWKGR", "RKW.."]
    result = change(BEFORE, after)
    assert not result.legal and "2 gold" in result.reason


def test_gold_in_a_line_with_gems_is_not_a_take() -> None:
    after = ["WUGRK", "KP..W", "GRUUU", "GWKGR", "RKW.Y"]  # P and Y side by side
    result = change(BEFORE, after, privileges=0)
    assert not result.legal
    assert "privilege" in result.reason


def test_scattered_tokens_need_privileges() -> None:
    after = [".UGRK", "KPPYW", "GRUUU", "GWKGR", "RK..Y"]  # (0,0) and (4,2): not one line
    with_privilege = change(BEFORE, after)
    assert with_privilege.legal and with_privilege.action == "privilege+take"
    assert len(with_privilege.privilege_cells) == 1 and len(with_privilege.take_cells) == 1
    without = change(BEFORE, after, privileges=0)
    assert not without.legal and "not adjacent in one straight line" in without.reason


def test_privileges_with_a_reservation() -> None:
    after = [".UGRK", "KPP.W", "GRUUU", "GWKGR", "RKW.Y"]
    result = change(BEFORE, after, privileges=1)
    assert result.legal and result.action == "privilege+reserve_gold"
    assert result.privilege_cells == ((0, 0),)
    assert not change(BEFORE, after, privileges=0).legal


def test_too_many_tokens_for_one_turn() -> None:
    after = [".....", ".....", "GRUUU", "GWKGR", "RKW.Y"]
    result = change(BEFORE, after)
    assert not result.legal


SPARSE = [".....",
          ".....",
          ".....",
          ".W...",
          "....."]


def test_a_refill_in_spiral_order() -> None:
    # spiral: (2,2) (3,2) (3,1)=W (2,1) (1,1) ...
    after = [".....", ".UR..", ".GK..", ".WR..", "....."]
    result = change(SPARSE, after)
    assert result.action == "refill" and result.legal
    assert result.refill_cells == ((2, 2), (3, 2), (2, 1), (1, 1), (1, 2))
    assert result.privileges_to_opponent == 1


def test_a_refill_that_skips_a_cell_is_illegal() -> None:
    after = [".....", "..RU.", ".GK..", ".W...", "....."]  # (3,2) and (1,1) left empty, not in a line
    result = change(SPARSE, after, privileges=0)
    assert not result.legal
    assert "skipped empty cell (3,2)" in result.reason


def test_a_refill_then_a_take_of_refilled_tokens() -> None:
    # the refill filled 5 cells; the player then took (3,2) again: it reads empty
    after = [".....", ".UR..", ".GK..", ".W...", "....."]
    result = change(SPARSE, after)
    assert result.legal and result.action == "refill+take"
    assert result.take_cells == ((3, 2),)


def test_refill_is_checked_against_the_bag() -> None:
    held = Tokens.of("WWUUUUGGGRRRKKKPPYYY")  # with the board's W, the bag holds W G R K
    # 3 of the 4 bag tokens placed and the W at (3,1) taken: (1,1) is not explained by that take
    short = change(SPARSE, [".....", ".....", ".GK..", "..R..", "....."], held=held, privileges=0)
    assert not short.legal and "empty the bag" in short.reason
    # with one privilege the same reading has a legal explanation
    assert change(SPARSE, [".....", ".....", ".GK..", "..R..", "....."], held=held, privileges=1).legal
    full = [".....", ".....", "WGK..", ".WR..", "....."]
    assert not change(SPARSE, full, held=held, privileges=0).legal  # W went to (2,0), not (2,1)
    good = [".....", ".W...", ".GK..", ".WR..", "....."]  # (2,2) K (3,2) R (2,1) G (1,1) W
    assert change(SPARSE, good, held=held).legal
    wrong = [".....", ".P...", ".GK..", ".WR..", "....."]  # a pearl that was not in the bag
    result = change(SPARSE, wrong, held=held)
    assert not result.legal and "more tokens than the bag held" in result.reason


def test_unknown_cells_are_never_a_change() -> None:
    after = ["WUGRK", "KPPYW", "GR?..", "GWKGR", "RKW.?"]
    result = change(BEFORE, after)
    assert result.action == "take" and result.cells == ((2, 3), (2, 4))
    assert result.unknown_cells == ((2, 2), (4, 4))
    blurred = change(BEFORE, ["?????"] * 5)
    assert blurred.action == "none" and blurred.legal


def test_an_unreadable_cell_inside_a_refill_is_not_a_skip() -> None:
    after = [".....", ".UR..", ".GK..", ".W?..", "....."]  # (3,2) could not be read
    result = change(SPARSE, after, privileges=0)
    assert result.legal and result.action == "refill"
    assert result.unknown_cells == ((3, 2),)


def test_held_tokens_beyond_the_supply_are_bad_input() -> None:
    with pytest.raises(InvalidInput) as err:
        change(BEFORE, BEFORE, held=Tokens.of("WWW"))
    assert err.value.field == "held"


def _turn_changes(seed: int) -> list[tuple[State, State]]:
    rng = np.random.default_rng(seed)
    state = new_game(rng)
    start = state
    pairs = []
    while state.phase != "over":
        options = list(legal_actions(state))
        action = options[int(rng.integers(len(options)))]
        if isinstance(action, Refill):
            action = random_refill(state, rng)
        after = apply(state, action)
        if after.turn != state.turn:
            pairs.append((start, after))
            start = after
        state = after
    return pairs


def test_every_real_turn_reads_as_legal() -> None:
    seen: set[str] = set()
    for seed in range(12):
        for start, end in _turn_changes(seed):
            held = start.players[0].tokens + start.players[1].tokens
            result = infer_board_change(start.board, end.board, held=held,
                                        privileges=start.player.privileges)
            assert result.legal, (start.board.rows, end.board.rows, result.reason)
            seen.add(result.action)
    assert {"take", "reserve_gold", "refill+take", "none"} <= seen
