"""The 5x5 token board: parsing, the spiral refill order and the take rule."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache

from scoring.errors import InvalidInput
from scoring.splendor_duel.rules import load_json, rules
from scoring.splendor_duel.tokens import EMPTY, TOKEN_ORDER, UNKNOWN, Token, Tokens

__all__ = [
    "DIRECTIONS",
    "Board",
    "Cell",
    "TakeVerdict",
    "check_take",
    "line_cells",
    "spiral",
    "take_lines",
]

Cell = tuple[int, int]
"""A board cell ``(row, col)``, row 0 = top row of the reading, col 0 = left."""

DIRECTIONS: tuple[Cell, ...] = ((0, 1), (1, 0), (1, 1), (1, -1))
"""Line directions: along a row, down a column, and both diagonals."""


@cache
def spiral() -> tuple[Cell, ...]:
    """The 25 cells in refill order, starting at the centre (package data ``board_spiral.json``)."""
    data = load_json("board_spiral.json")
    cells = tuple((int(r), int(c)) for r, c in data["spiral"])
    n = rules().board_size
    if sorted(cells) != [(r, c) for r in range(n) for c in range(n)]:
        raise ValueError("board_spiral.json: the spiral must visit every cell once")
    return cells


@dataclass(frozen=True)
class Board:
    """A board state or a camera reading of one.

    Attributes
    ----------
    rows
        Five strings of five letters: W U G R K P Y for tokens, ``.`` for an empty cell and,
        in readings only, ``?`` for a cell that could not be read.
    """

    rows: tuple[str, ...]

    @classmethod
    def parse(cls, rows: object, field: str = "board", *, allow_unknown: bool = False) -> Board:
        """Validate and build a board from five strings (or one string of 25 letters).

        Raises
        ------
        InvalidInput
            On a wrong row count or length, an unknown letter, or more tokens of a kind than
            the game has (4 of each gem, 2 pearls, 3 gold), naming ``field``.
        """
        n = rules().board_size
        if isinstance(rows, str):
            if len(rows) != n * n:
                raise InvalidInput(field, f"{len(rows)} letters, expected {n * n} or {n} rows")
            rows = [rows[i * n:(i + 1) * n] for i in range(n)]
        if not isinstance(rows, Sequence) or isinstance(rows, str | bytes):
            raise InvalidInput(field, f"expected a list of {n} strings")
        if len(rows) != n:
            raise InvalidInput(field, f"{len(rows)} rows, expected {n}")
        allowed = {t.value for t in TOKEN_ORDER} | {EMPTY} | ({UNKNOWN} if allow_unknown else set())
        for i, row in enumerate(rows):
            if not isinstance(row, str):
                raise InvalidInput(f"{field}[{i}]", f"expected a string of {n} letters")
            if len(row) != n:
                raise InvalidInput(f"{field}[{i}]", f"{len(row)} letters, expected {n}")
            for j, ch in enumerate(row):
                if ch not in allowed:
                    hint = "W U G R K P Y or ." + (" or ?" if allow_unknown else "")
                    raise InvalidInput(f"{field}[{i}]", f"letter {ch!r} at column {j}; expected {hint}")
        board = cls(tuple(rows))
        counts = board.counts()
        for token, have, most in zip(TOKEN_ORDER, counts.counts, rules().token_supply, strict=True):
            if have > most:
                raise InvalidInput(field, f"{have} {token.colour_name} tokens; the game has only {most}")
        return board

    @classmethod
    def empty(cls) -> Board:
        """A board with no tokens."""
        n = rules().board_size
        return cls(tuple(EMPTY * n for _ in range(n)))

    @property
    def size(self) -> int:
        return len(self.rows)

    def at(self, cell: Cell) -> str:
        """The letter at ``cell``."""
        return self.rows[cell[0]][cell[1]]

    def token(self, cell: Cell) -> Token | None:
        """The token at ``cell``; None when empty or unknown."""
        ch = self.at(cell)
        return None if ch in (EMPTY, UNKNOWN) else Token(ch)

    def inside(self, cell: Cell) -> bool:
        return 0 <= cell[0] < self.size and 0 <= cell[1] < self.size

    def cells(self) -> Iterator[Cell]:
        """All cells, row by row."""
        for r in range(self.size):
            for c in range(self.size):
                yield (r, c)

    def cells_with(self, letter: str) -> tuple[Cell, ...]:
        """Cells holding ``letter`` (a token letter, ``.`` or ``?``)."""
        return tuple(cell for cell in self.cells() if self.at(cell) == letter)

    def replace(self, changes: Iterable[tuple[Cell, str]]) -> Board:
        """A copy with some cells set to new letters."""
        grid = [list(row) for row in self.rows]
        for (r, c), ch in changes:
            grid[r][c] = ch
        return Board(tuple("".join(row) for row in grid))

    def counts(self) -> Tokens:
        """The tokens on the board (unknown cells not counted)."""
        text = "".join(self.rows)
        return Tokens(tuple(text.count(t.value) for t in TOKEN_ORDER))  # type: ignore[arg-type]

    def empty_in_spiral_order(self) -> tuple[Cell, ...]:
        """Empty cells in refill order."""
        return tuple(cell for cell in spiral() if self.at(cell) == EMPTY)

    def refill(self, order: Sequence[Token]) -> Board:
        """Place ``order`` (bag tokens in drawing order) into the empty cells in spiral order.

        Raises
        ------
        ValueError
            When there are more tokens than empty cells.
        """
        empties = self.empty_in_spiral_order()
        if len(order) > len(empties):
            raise ValueError(f"{len(order)} tokens to place but only {len(empties)} empty cells")
        return self.replace((cell, Token(t).value) for cell, t in zip(empties, order, strict=False))

    def to_json(self) -> list[str]:
        return list(self.rows)


def line_cells(cells: Sequence[Cell]) -> tuple[Cell, ...] | None:
    """Sort ``cells`` along their line when they lie adjacent in one unbroken straight line
    (row, column or diagonal, no gap); otherwise None. A single cell is a line."""
    if len(set(cells)) != len(cells) or not cells:
        return None
    ordered = sorted(cells)
    if len(ordered) == 1:
        return tuple(ordered)
    dr, dc = ordered[1][0] - ordered[0][0], ordered[1][1] - ordered[0][1]
    if (dr, dc) not in DIRECTIONS:
        return None
    for a, b in itertools.pairwise(ordered):
        if (b[0] - a[0], b[1] - a[1]) != (dr, dc):
            return None
    return tuple(ordered)


@dataclass(frozen=True)
class TakeVerdict:
    """Whether a "take up to 3 tokens" action is legal.

    Attributes
    ----------
    legal
        True when the take is allowed.
    reason
        The broken rule, or a short description of the legal take.
    privilege_to_opponent
        True when the legal take gives the opponent a privilege (3 tokens of one colour, or
        both pearls).
    """

    legal: bool
    reason: str
    privilege_to_opponent: bool = False


def _fmt(cell: Cell) -> str:
    return f"({cell[0]},{cell[1]})"


def check_take(board: Board, cells: Sequence[Cell]) -> TakeVerdict:
    """Check the mandatory action "take up to 3 tokens" on ``board``.

    The cells must be 1 to 3 distinct cells inside the board, adjacent in one unbroken straight
    line (row, column or diagonal), each holding a gem or a pearl: no empty cell and no gold.
    The order the cells are given in does not matter.
    """
    most = rules().max_take
    cells = [(int(r), int(c)) for r, c in cells]
    if not 1 <= len(cells) <= most:
        return TakeVerdict(False, f"take 1 to {most} tokens, not {len(cells)}")
    seen: set[Cell] = set()
    for cell in cells:
        if not board.inside(cell):
            return TakeVerdict(False, f"cell {_fmt(cell)} is outside the board")
        if cell in seen:
            return TakeVerdict(False, f"cell {_fmt(cell)} is listed twice")
        seen.add(cell)
    for cell in cells:
        ch = board.at(cell)
        if ch == EMPTY:
            return TakeVerdict(False, f"cell {_fmt(cell)} is empty")
        if ch == UNKNOWN:
            return TakeVerdict(False, f"cell {_fmt(cell)} could not be read")
        if ch == Token.GOLD:
            return TakeVerdict(False, f"cell {_fmt(cell)} holds gold, which is only taken with a reservation")
    if line_cells(cells) is None:
        listed = ", ".join(_fmt(c) for c in sorted(cells))
        return TakeVerdict(False, f"cells {listed} are not adjacent in one straight line")
    letters = [board.at(c) for c in cells]
    bonus = (len(letters) == 3 and len(set(letters)) == 1) or letters.count(Token.PEARL) == 2
    what = "".join(sorted(letters))
    if bonus:
        why = "both pearls" if letters.count(Token.PEARL) == 2 else "3 tokens of one colour"
        return TakeVerdict(True, f"takes {what}; {why}: the opponent takes a privilege", True)
    return TakeVerdict(True, f"takes {what}")


def take_lines(board: Board) -> Iterator[tuple[Cell, ...]]:
    """Every legal take on ``board`` as sorted cell tuples, each once."""
    most = rules().max_take
    takeable = {cell for cell in board.cells() if board.at(cell) not in (EMPTY, UNKNOWN, Token.GOLD)}
    for cell in sorted(takeable):
        yield (cell,)
    for dr, dc in DIRECTIONS:
        for start in sorted(takeable):
            line = [start]
            for k in range(1, most):
                nxt = (start[0] + k * dr, start[1] + k * dc)
                if nxt not in takeable:
                    break
                line.append(nxt)
                yield tuple(sorted(line))
