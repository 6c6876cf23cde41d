"""Splendor Duel board: parsing, the spiral refill order and the take rule."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.errors import InvalidInput
from scoring.splendor_duel.board import Board, check_take, line_cells, spiral, take_lines
from scoring.splendor_duel.tokens import Token, Tokens

BOARD = Board.parse(["WUGRK",
                     "KPPYW",
                     "..Y..",
                     "UUU.R",
                     "GRKW."])


def test_parse_round_trips_and_counts() -> None:
    assert BOARD.to_json() == ["WUGRK", "KPPYW", "..Y..", "UUU.R", "GRKW."]
    assert BOARD.counts() == Tokens.of("WUGRKKPPYWYUUURGRKW")
    assert Board.parse("WUGRKKPPYW..Y..UUU.RGRKW.") == BOARD


@pytest.mark.parametrize(("rows", "field", "words"), [
    (["WUGRK", "KPPYW", ".....", "UUU..", "GRKW"], "board[4]", "4 letters, expected 5"),
    (["WUGRKW", "KPPYW", ".....", "UUU..", "GRKW."], "board[0]", "6 letters, expected 5"),
    (["WUGRK", "KPPYW", "....."], "board", "3 rows, expected 5"),
    (["WUGRK", "KPPYW", "..X..", "UUU..", "GRKW."], "board[2]", "letter 'X'"),
    (["WUGRK", "KPPYW", "..?..", "UUU..", "GRKW."], "board[2]", "letter '?'"),
    (["PPP..", ".....", ".....", ".....", "....."], "board", "3 pearl tokens; the game has only 2"),
    (["YYYY.", ".....", ".....", ".....", "....."], "board", "4 gold tokens; the game has only 3"),
    (["UUUUU", ".....", ".....", ".....", "....."], "board", "5 blue tokens; the game has only 4"),
    ("WUGRK", "board", "5 letters, expected 25"),
    (42, "board", "expected a list of 5 strings"),
])
def test_parse_rejects_bad_boards(rows: object, field: str, words: str) -> None:
    with pytest.raises(InvalidInput) as err:
        Board.parse(rows)
    assert err.value.field == field
    assert words in err.value.problem


def test_readings_may_hold_unknown_cells() -> None:
    reading = Board.parse(["?....", ".....", ".....", ".....", "....?"], allow_unknown=True)
    assert reading.token((0, 0)) is None
    assert reading.counts().total() == 0


def test_spiral_starts_at_the_centre_and_visits_every_cell_once() -> None:
    order = spiral()
    assert order[0] == (2, 2)
    assert len(set(order)) == 25
    for a, b in itertools.pairwise(order):
        assert abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1  # each step to a neighbouring cell


def test_refill_fills_empty_cells_in_spiral_order() -> None:
    board = Board.parse(["W....", ".....", ".....", ".....", "....."])
    filled = board.refill([Token.RED, Token.BLUE, Token.GOLD])
    assert filled.at((2, 2)) == "R"
    assert filled.at((3, 2)) == "U"
    assert filled.at((3, 1)) == "Y"
    assert filled.at((0, 0)) == "W"
    assert filled.counts().total() == 4


@pytest.mark.parametrize(("cells", "legal", "bonus"), [
    ([(3, 0), (3, 1), (3, 2)], True, True),          # 3 blue in a row: opponent takes a privilege
    ([(1, 1), (1, 2)], True, True),                  # both pearls
    ([(0, 0)], True, False),                         # one token
    ([(0, 0), (1, 0)], True, False),                 # column
    ([(0, 0), (1, 1)], True, False),                 # diagonal
    ([(0, 4), (1, 3)], False, False),                # anti-diagonal through gold (1,3) is Y
    ([(0, 2), (1, 1), (2, 0)], False, False),        # anti-diagonal ends on an empty cell
    ([(0, 0), (0, 2)], False, False),                # a gap
    ([(0, 0), (0, 1), (0, 2), (0, 3)], False, False),  # 4 tokens
    ([], False, False),
    ([(1, 3)], False, False),                        # gold is never taken this way
    ([(2, 0)], False, False),                        # empty cell
    ([(0, 0), (0, 0)], False, False),                # the same cell twice
    ([(0, 0), (1, 2)], False, False),                # knight's move
    ([(3, 2), (3, 3), (3, 4)], False, False),        # empty cell inside the line
    ([(5, 0)], False, False),                        # outside
])
def test_take_rule(cells: list[tuple[int, int]], legal: bool, bonus: bool) -> None:
    verdict = check_take(BOARD, cells)
    assert verdict.legal is legal, verdict.reason
    assert verdict.privilege_to_opponent is bonus
    assert verdict.reason


def test_take_reasons_name_the_rule() -> None:
    assert "gold" in check_take(BOARD, [(1, 3)]).reason
    assert "(2,0) is empty" in check_take(BOARD, [(2, 0)]).reason
    assert "one straight line" in check_take(BOARD, [(0, 0), (0, 2)]).reason
    assert "1 to 3" in check_take(BOARD, [(0, 0), (0, 1), (0, 2), (0, 3)]).reason
    assert "listed twice" in check_take(BOARD, [(0, 0), (0, 0)]).reason


def test_two_pearls_and_a_gem_still_give_a_privilege() -> None:
    board = Board.parse(["PPW..", ".....", ".....", ".....", "....."])
    assert check_take(board, [(0, 0), (0, 1), (0, 2)]).privilege_to_opponent
    assert not check_take(board, [(0, 1), (0, 2)]).privilege_to_opponent


def test_take_lines_are_exactly_the_legal_takes() -> None:
    lines = set(take_lines(BOARD))
    cells = list(BOARD.cells())
    for n in (1, 2, 3):
        for combo in itertools.combinations(cells, n):
            assert (combo in lines) == check_take(BOARD, combo).legal


def test_line_cells_orders_along_the_line() -> None:
    assert line_cells([(2, 0), (0, 2), (1, 1)]) == ((0, 2), (1, 1), (2, 0))
    assert line_cells([(0, 0), (2, 2)]) is None


letters = st.sampled_from(list("WUGRKPY."))


@st.composite
def boards_and_takes(draw: st.DrawFn) -> tuple[Board, list[tuple[int, int]]]:
    grid = draw(st.lists(letters, min_size=25, max_size=25))
    board = Board(tuple("".join(grid[r * 5:(r + 1) * 5]) for r in range(5)))
    if draw(st.booleans()):  # a straight run of cells, often a legal take
        r, c = draw(st.integers(0, 4)), draw(st.integers(0, 4))
        dr, dc = draw(st.sampled_from([(0, 1), (1, 0), (1, 1), (1, -1), (0, -1), (-1, -1)]))
        n = draw(st.integers(1, 3))
        cells = [(r + k * dr, c + k * dc) for k in range(n)]
    else:
        cells = draw(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=0, max_size=4))
    return board, cells


@settings(max_examples=300, deadline=None, derandomize=True)
@given(boards_and_takes())
def test_a_take_is_legal_iff_the_same_cells_in_any_order_are(
        case: tuple[Board, list[tuple[int, int]]]) -> None:
    board, cells = case
    verdict = check_take(board, cells)
    for perm in itertools.islice(itertools.permutations(cells), 24):
        other = check_take(board, list(perm))
        assert other.legal == verdict.legal
        assert other.privilege_to_opponent == verdict.privilege_to_opponent


def test_token_letters_and_order() -> None:
    from scoring.splendor_duel.tokens import GEMS, TOKEN_ORDER, parse_colour

    assert "".join(TOKEN_ORDER) == "WUGRKPY"
    assert TOKEN_ORDER[:5] == GEMS  # the purchase arithmetic relies on gems coming first
    assert parse_colour("blue", "f") == parse_colour("U", "f") == Token.BLUE
    with pytest.raises(InvalidInput):
        parse_colour("pearl", "f")
