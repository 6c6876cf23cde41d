"""What happened on the board between two camera readings.

:func:`infer_board_change` explains the difference between two 5x5 readings as one player's
turn (or part of it), in the order the rules allow: privileges used (each takes one gem or
pearl from anywhere), then a refill (the bag's tokens fill the empty cells in spiral order),
then the mandatory action's effect on the board: a take (1-3 tokens in a line), one gold taken
with a reservation, or nothing (a purchase; a purchase's "matching token" ability removes one
token, which reads like a one-token take).

How ambiguity is settled:

* A cell read as ``?`` in either reading is "can't tell": it is never a change, and it is
  skipped when following the spiral.
* Every reading of the change that the rules allow is tried; the verdict is legal when one
  is. The reported reading uses the fewest privileges (a line of tokens is a take, not three
  privileges), then the fewest tokens that were placed by the refill and taken again.
* Without ``privileges``, the player may have held up to 3; pass the count when it is known
  so that scattered tokens are not waved through as privilege use.
* Without ``held`` (the tokens both players hold), the bag's size is unknown: the refill is
  only checked to fill empty cells in spiral order with no gap. With ``held`` and a fully read
  ``before`` board, the refill must also empty the bag and place only tokens that were in it.
* A cell emptied by a privilege and refilled with the same kind of token reads as unchanged;
  with ``held`` given, a refill that seems to leave tokens in the bag is accepted when the
  player's remaining privileges can account for such cells (the reason says so).
* A cell emptied by a privilege, refilled and emptied again by the take reads like a plain
  take; that reading is tried too, but costs a privilege, so it is reported only when
  nothing simpler explains the change.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from scoring.errors import InvalidInput
from scoring.splendor_duel.board import DIRECTIONS, Board, Cell, check_take, spiral
from scoring.splendor_duel.rules import rules
from scoring.splendor_duel.tokens import EMPTY, TOKEN_ORDER, UNKNOWN, Token, Tokens

__all__ = ["BoardChange", "infer_board_change"]


@dataclass(frozen=True)
class BoardChange:
    """The explained difference between two board readings.

    Attributes
    ----------
    action
        ``"none"``, ``"unknown"`` or the parts that happened joined by ``+`` in turn order:
        ``"privilege"``, ``"refill"``, then ``"take"`` or ``"reserve_gold"`` (e.g. ``"take"``,
        ``"refill+take"``, ``"privilege+reserve_gold"``).
    cells
        Cells whose token left the board (privilege and take cells); for a refill alone, the
        cells it filled.
    legal
        Whether the change is a legal (part of a) turn.
    reason
        A description of the legal reading, or the rule that was broken.
    privilege_to_opponent
        True when the change gives the opponent at least one privilege.
    privileges_to_opponent
        How many: one for a refill, one for taking 3 tokens of a colour or both pearls.
    take_cells, privilege_cells, refill_cells
        The parts of the reading; refill cells in spiral order.
    unknown_cells
        Cells unreadable in either reading.
    """

    action: str
    cells: tuple[Cell, ...]
    legal: bool
    reason: str
    privilege_to_opponent: bool = False
    privileges_to_opponent: int = 0
    take_cells: tuple[Cell, ...] = ()
    privilege_cells: tuple[Cell, ...] = ()
    refill_cells: tuple[Cell, ...] = ()
    unknown_cells: tuple[Cell, ...] = ()

    def to_json(self) -> dict[str, object]:
        """The change as JSON-ready data (cells as ``[row, col]`` lists)."""

        def cells(seq: tuple[Cell, ...]) -> list[list[int]]:
            return [[r, c] for r, c in seq]

        return {
            "action": self.action, "cells": cells(self.cells), "legal": self.legal, "reason": self.reason,
            "privilege_to_opponent": self.privilege_to_opponent,
            "privileges_to_opponent": self.privileges_to_opponent,
            "take_cells": cells(self.take_cells), "privilege_cells": cells(self.privilege_cells),
            "refill_cells": cells(self.refill_cells), "unknown_cells": cells(self.unknown_cells),
        }


def _fmt(cells: tuple[Cell, ...] | list[Cell]) -> str:
    return ", ".join(f"({r},{c})" for r, c in cells)


def _candidate_takes(allowed: set[Cell]) -> list[tuple[Cell, ...]]:
    """No take, and every straight line of 1-3 cells lying inside ``allowed``."""
    out: list[tuple[Cell, ...]] = [()]
    out += [(cell,) for cell in sorted(allowed)]
    for dr, dc in DIRECTIONS:
        for start in sorted(allowed):
            line = [start]
            for k in range(1, rules().max_take):
                nxt = (start[0] + k * dr, start[1] + k * dc)
                if nxt not in allowed:
                    break
                line.append(nxt)
                out.append(tuple(sorted(line)))
    return out


@dataclass(frozen=True)
class _Reading:
    take: tuple[Cell, ...]
    privileged: tuple[Cell, ...]
    filled: tuple[Cell, ...]
    reserve: bool
    bonus: bool
    invisible: int


def _try(before: Board, after: Board, take: tuple[Cell, ...], reused: tuple[Cell, ...], removed: set[Cell],
         placed: set[Cell], bag: Tokens | None, bag_exact: bool, most_privileges: int) -> _Reading | None:
    """Check one hypothesis: ``take`` is the mandatory action's cells; every other removed
    token went by privilege, and so did the ``reused`` take cells' first tokens (the refill
    then filled them again); any placed tokens came from one refill."""
    take_set = set(take)
    swapped = {c for c in placed if before.at(c) != EMPTY}
    privileged = tuple(sorted((removed - take_set) | swapped | set(reused)))
    if len(privileged) > most_privileges:
        return None
    if any(before.at(c) == Token.GOLD for c in privileged):
        return None
    middle = before.replace((c, EMPTY) for c in privileged)
    empties = [c for c in spiral() if middle.at(c) == EMPTY]
    if bag_exact and bag is not None and placed:
        k = bag.total()
    elif placed:
        k = max(empties.index(c) for c in placed) + 1 if placed <= set(empties) else len(empties) + 1
    else:
        k = 0
    if k > len(empties):
        return None
    filled = tuple(empties[:k])
    filled_set = set(filled)
    if not placed <= filled_set:
        return None
    # a filled cell read empty afterwards was taken again; a take cell empty at take time is impossible
    for c in filled:
        if c not in placed and c not in take_set and after.at(c) != UNKNOWN:
            return None
    for c in take:
        if middle.at(c) == EMPTY and c not in filled_set:
            return None
    if bag is not None and not Tokens.of(after.at(c) for c in placed) <= bag:
        return None
    letters = [middle.at(c) if middle.at(c) != EMPTY else UNKNOWN for c in take]
    reserve = False
    bonus = False
    if Token.GOLD in letters:
        if len(take) != 1:
            return None
        reserve = True
    elif take:
        known = [ch for ch in letters if ch != UNKNOWN]
        bonus = len(known) == len(letters) and check_take(before.replace(
            (c, ch) for c, ch in zip(take, letters, strict=True)), take).privilege_to_opponent
    invisible = sum(1 for c in take if middle.at(c) == EMPTY)
    return _Reading(take, privileged, filled, reserve, bonus, invisible)


def _diagnose(before: Board, after: Board, removed: set[Cell], placed: set[Cell], bag: Tokens | None,
              most_privileges: int) -> tuple[str, str]:
    """The action guess and the broken rule when no reading is legal."""
    gold = sorted(c for c in removed if before.at(c) == Token.GOLD)
    gems = sorted(c for c in removed if before.at(c) != Token.GOLD)
    parts = []
    if placed:
        parts.append("refill")
    if gold:
        parts.append("reserve_gold")
    if gems:
        parts.append("take")
    action = "+".join(parts) or "unknown"
    swapped_gold = sorted(c for c in placed if before.at(c) == Token.GOLD)
    if swapped_gold:
        return action, (f"the gold at {_fmt(swapped_gold)} was replaced; gold is only taken with a "
                        "reservation, after any refill")
    if len(gold) > 1:
        return "unknown", (f"{len(gold)} gold tokens taken at {_fmt(gold)}; one turn takes at most one, "
                           "with a reservation")
    if placed:
        if bag is not None:
            new = Tokens.of(after.at(c) for c in placed)
            if not new <= bag:
                extra = (new - bag).to_json()
                over = ", ".join(f"{n} {Token(k).colour_name}" for k, n in extra.items() if n > 0)
                return action, f"the refill placed more tokens than the bag held ({over} too many)"
        swapped = sorted(c for c in placed if before.at(c) != EMPTY)
        empties = [c for c in spiral() if before.at(c) == EMPTY or c in swapped]
        last = max(empties.index(c) for c in placed if c in empties)
        skipped = [c for c in empties[:last] if c not in placed and after.at(c) == EMPTY]
        if skipped:
            return action, (f"the refill skipped empty cell {_fmt(skipped[:1])}: tokens fill the empty "
                            "cells in spiral order from the centre")
        if bag is not None:
            return action, (f"the refill must empty the bag ({bag.total()} tokens) into the empty cells "
                            "in spiral order")
    if gold and gems:
        return action, (f"with a reservation the other {len(gems)} token(s) at {_fmt(gems)} must come from "
                        f"privileges, at most {most_privileges}")
    if gems:
        verdict = check_take(before, gems) if len(gems) <= rules().max_take else None
        if verdict is not None and not verdict.legal:
            why = verdict.reason
        else:
            why = f"{len(gems)} tokens taken at {_fmt(gems)} are more than one take of {rules().max_take}"
        return action, f"{why}; at most {most_privileges} privilege(s) cannot explain the rest"
    return action, "the change cannot be read as one turn"


def _best_reading(before: Board, after: Board, allowed: set[Cell], removed: set[Cell], placed: set[Cell],
                  bag: Tokens | None, bag_exact: bool, most_privileges: int) -> _Reading | None:
    """The legal reading with the fewest privileges, then the fewest refilled-and-taken tokens."""
    best: _Reading | None = None
    best_key: tuple[int, int, int] | None = None
    for take in _candidate_takes(allowed):
        again = [c for c in take if c in removed and before.at(c) != Token.GOLD] if placed else []
        for n in range(len(again) + 1):
            for reused in itertools.combinations(again, n):
                reading = _try(before, after, take, reused, removed, placed, bag, bag_exact, most_privileges)
                if reading is None:
                    continue
                key = (len(reading.privileged), reading.invisible, -len(reading.take))
                if best_key is None or key < best_key:
                    best, best_key = reading, key
    return best


def infer_board_change(before: Board, after: Board, *, held: Tokens | None = None,
                       privileges: int | None = None) -> BoardChange:
    """Explain what happened between two board readings, and whether it was legal.

    Parameters
    ----------
    before, after
        Readings (letters W U G R K P Y, ``.`` empty, ``?`` unreadable), e.g. from
        ``Board.parse(rows, allow_unknown=True)``.
    held
        Tokens held by both players together before the change, when known; the bag then
        holds the 25-token supply minus the board minus ``held``.
    privileges
        Privileges the moving player held before the change, when known (else up to 3).

    Raises
    ------
    InvalidInput
        When ``held`` and ``before`` together hold more tokens of a kind than the game has.
    """
    r = rules()
    supply = Tokens(r.token_supply)  # type: ignore[arg-type]
    most_privileges = r.privileges if privileges is None else max(0, min(privileges, r.privileges))
    unknown = tuple(c for c in before.cells() if UNKNOWN in (before.at(c), after.at(c)))
    known = [c for c in before.cells() if c not in unknown]
    removed = {c for c in known if before.at(c) != EMPTY and after.at(c) == EMPTY}
    placed = {c for c in known if after.at(c) != EMPTY and before.at(c) != after.at(c)}
    bag: Tokens | None = None
    bag_exact = False
    if held is not None:
        bag = supply - before.counts() - held
        if not bag.is_valid():
            over = ", ".join(t.colour_name for t in TOKEN_ORDER if bag[t] < 0)
            raise InvalidInput("held", f"the board and the held tokens exceed the game's supply of {over}")
        bag_exact = not before.cells_with(UNKNOWN)
    if not removed and not placed:
        note = f" ({len(unknown)} cell(s) unreadable)" if unknown else ""
        return BoardChange("none", (), True, f"no change{note}", unknown_cells=unknown)
    allowed = {c for c in known if after.at(c) == EMPTY}
    best = _best_reading(before, after, allowed, removed, placed, bag, bag_exact, most_privileges)
    hidden = 0
    if best is None and bag_exact and bag is not None and placed:
        # A privilege's cell refilled with the same kind of token reads as unchanged: accept a
        # short refill when privileges left over can account for the cells that look unchanged.
        loose = _best_reading(before, after, allowed, removed, placed, bag, False, most_privileges)
        if loose is not None:
            hidden = bag.total() - len(loose.filled)
            if 0 < hidden <= most_privileges - len(loose.privileged):
                best = loose
            else:
                hidden = 0
    if best is None:
        action, reason = _diagnose(before, after, removed, placed, bag, most_privileges)
        cells = tuple(sorted(removed)) or tuple(sorted(placed))
        return BoardChange(action, cells, False, reason, unknown_cells=unknown)
    parts = []
    notes = []
    if best.privileged:
        parts.append("privilege")
        notes.append(f"{len(best.privileged)} privilege(s) took {_fmt(best.privileged)}")
    if best.filled:
        parts.append("refill")
        notes.append(f"the refill filled {len(best.filled)} cell(s) in spiral order; the opponent takes a "
                     "privilege")
    if best.take:
        if best.reserve:
            parts.append("reserve_gold")
            notes.append(f"gold taken at {_fmt(best.take)} with a reservation")
        else:
            parts.append("take")
            notes.append(f"took {_fmt(best.take)} in a line")
            if best.bonus:
                notes.append("3 of one colour or both pearls: the opponent takes a privilege")
    if hidden:
        notes.append(f"{hidden} more cell(s) must have been taken by privilege and refilled with the "
                     "same kind of token")
    given = int(bool(best.filled)) + int(best.bonus)
    cells = tuple(sorted(set(best.take) | set(best.privileged))) or best.filled
    return BoardChange(
        "+".join(parts), cells, True, "; ".join(notes), privilege_to_opponent=given > 0,
        privileges_to_opponent=given, take_cells=best.take, privilege_cells=best.privileged,
        refill_cells=best.filled, unknown_cells=unknown)


