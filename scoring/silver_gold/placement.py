"""Is one player's marking for one expedition card a legal Silver & Gold turn?

A turn marks, on ONE of the player's cards, the expedition shape (any rotation or mirror image) over
unmarked cells, or a single cell instead; plus optional bonus cells: each X marked in the turn allows
one more empty cell on either card, and a bonus X chains. Marks never disappear.

:func:`check_turn` finds an interpretation of the new marks that obeys these rules (any legal one
makes the turn legal) and reports its effects; :func:`legal_placements` lists the hints.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from scoring.silver_gold.catalog import Card, Rules, load_rules
from scoring.silver_gold.shapes import Cell, Shape

__all__ = ["CardTurn", "Verdict", "check_turn", "legal_placements"]


def _fmt(cell: Cell) -> str:
    return f"({cell[0]},{cell[1]})"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


@dataclass(frozen=True)
class CardTurn:
    """One of the player's cards in a turn.

    Attributes
    ----------
    card : Card
        The map card.
    before : frozenset of Cell
        Cells marked before the turn (trusted: on the card, not water).
    marked : frozenset of Cell
        Cells the player marked during the turn.
    erased : frozenset of Cell
        Cells marked before but no longer marked (always illegal).
    """

    card: Card
    before: frozenset[Cell]
    marked: frozenset[Cell]
    erased: frozenset[Cell] = frozenset()

    @classmethod
    def from_after(cls, card: Card, before: Iterable[Cell], after: Iterable[Cell]) -> CardTurn:
        """Build the turn from the marks before and after it."""
        b, a = frozenset(before), frozenset(after)
        return cls(card, b, a - b, b - a)

    @property
    def free(self) -> frozenset[Cell]:
        return self.card.cells - self.before


@dataclass(frozen=True)
class Verdict:
    """The answer for one turn.

    Attributes
    ----------
    legal : bool
    reason : str
        Why the turn is illegal (player-readable); empty when legal.
    shape_card : str or None
        Id of the card carrying the shape (or the single cell); ``None`` when no interpretation applies.
    shape_cells : tuple of Cell
        The cells read as the shape (one cell when the single-cell option was used).
    single_cell : bool
        True when the single-cell option was used instead of the shape.
    bonus_cells : tuple of (str, Cell)
        ``(card id, cell)`` of each bonus mark allowed by an X.
    coins : int
        Coin boxes crossed by this turn (coin cells marked, up to the empty boxes left).
    palms : tuple of int
        The palm scores written by this turn (1 + palms on the display each, up to the palm boxes left).
    """

    legal: bool
    reason: str
    shape_card: str | None
    shape_cells: tuple[Cell, ...]
    single_cell: bool
    bonus_cells: tuple[tuple[str, Cell], ...]
    coins: int
    palms: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "legal": self.legal,
            "reason": self.reason,
            "shape_card": self.shape_card,
            "shape_cells": [list(c) for c in self.shape_cells],
            "single_cell": self.single_cell,
            "bonus_cells": [{"card": cid, "cell": list(c)} for cid, c in self.bonus_cells],
            "coins": self.coins,
            "palms": list(self.palms),
        }


def legal_placements(card: Card, marked: Iterable[Cell], shape: Shape) -> tuple[frozenset[Cell], ...]:
    """Every placement of ``shape`` (any rotation or mirror image) on the unmarked cells of ``card``."""
    return shape.placements(card.cells - frozenset(marked))


@dataclass(frozen=True)
class _Reading:
    """One interpretation: ``primary`` cells on card ``index``; the rest of the new marks are bonus."""

    index: int
    primary: frozenset[Cell]
    single: bool
    extra: int  # bonus cells
    allowed: int  # bonus cells the X marks allow
    crosses: int  # X cells among all new marks
    crosses_in_primary: int

    @property
    def legal(self) -> bool:
        return self.extra <= self.allowed

    @property
    def deficit(self) -> int:
        return self.extra - self.allowed


def _read(turns: Sequence[CardTurn], index: int, primary: frozenset[Cell], single: bool) -> _Reading:
    crosses = sum(len(t.marked & t.card.cells_with("cross")) for t in turns)
    x_primary = len(primary & turns[index].card.cells_with("cross"))
    total = sum(len(t.marked) for t in turns)
    extra = total - len(primary)
    x_bonus = crosses - x_primary
    # Bonus X cells can only be reached once the chain has started from an X of the shape/single cell;
    # each X (shape or bonus) then allows one more cell.
    allowed = x_primary + x_bonus if x_primary > 0 else 0
    return _Reading(index, primary, single, extra, allowed, crosses, x_primary)


def _excess_reason(r: _Reading) -> str:
    extra = _plural(r.extra, "extra cell")
    if r.crosses == 0:
        return f"{extra} but no X was marked"
    if r.crosses_in_primary == 0:
        return (f"{extra} but no X is among the {'single cell' if r.single else 'shape cells'}, "
                "so the bonus chain never starts")
    verb = "was" if r.allowed == 1 else "were"
    return f"{extra} but only {r.allowed} X {verb} marked"


def _effects(turns: Sequence[CardTurn], display_palms: int, coins_before: int, palm_boxes_used: int,
             coin_boxes: int, palm_boxes: int) -> tuple[int, tuple[int, ...]]:
    coin_cells = sum(len(t.marked & t.card.cells_with("coin")) for t in turns)
    palm_cells = sum(len(t.marked & t.card.cells_with("palm")) for t in turns)
    coins = max(0, min(coin_cells, coin_boxes - coins_before))
    n_palms = max(0, min(palm_cells, palm_boxes - palm_boxes_used))
    return coins, (1 + display_palms,) * n_palms


def check_turn(
    shape: Shape,
    turns: Sequence[CardTurn],
    *,
    display_palms: int = 0,
    coins_before: int = 0,
    palm_boxes_used: int = 0,
    rules: Rules | None = None,
) -> Verdict:
    """Judge one player's marks for one expedition card.

    Parameters
    ----------
    shape : Shape
        The turned-up expedition pattern.
    turns : sequence of CardTurn
        The player's active cards (normally two) with their marks.
    display_palms : int
        Palm trees on the face-up display cards (a palm scores 1 + this).
    coins_before, palm_boxes_used : int
        Coin boxes crossed and palm boxes filled before the turn (effects stop at the sheet's end).
    rules : Rules, optional
        The rule numbers (score-sheet size); the built-in ones by default.

    Returns
    -------
    Verdict
        Legal with an interpretation, or illegal with a reason. The effects count every new mark.
    """
    rules = rules or load_rules()
    coins, palms = _effects(turns, display_palms, coins_before, palm_boxes_used, rules.coin_boxes,
                            rules.palm_boxes)

    def illegal(reason: str, reading: _Reading | None = None) -> Verdict:
        if reading is None:
            return Verdict(False, reason, None, (), False, (), coins, palms)
        return _verdict(turns, reading, False, reason, coins, palms)

    for t in turns:
        if t.erased:
            cell = min(t.erased)
            return illegal(f"cell {_fmt(cell)} of {t.card.id} was marked before but is not marked now "
                           "(marks never disappear)")
    for t in turns:
        water = sorted(c for c in t.marked if c not in t.card.cells)
        if water:
            where = "is water" if t.card.in_grid(water[0]) else "is outside the card"
            return illegal(f"cell {_fmt(water[0])} of {t.card.id} {where}")
    for t in turns:
        again = sorted(t.marked & t.before)
        if again:
            return illegal(f"cell {_fmt(again[0])} of {t.card.id} was already marked")
    if not any(t.marked for t in turns):
        return illegal("no new cell was marked (passing is not allowed)")

    shaped = [_read(turns, i, p, False) for i, t in enumerate(turns) for p in shape.placements(t.marked)]
    singles = [_read(turns, i, frozenset({c}), True) for i, t in enumerate(turns) for c in sorted(t.marked)]
    for reading in (*shaped, *singles):
        if reading.legal:
            return _verdict(turns, reading, True, "", coins, palms)
    if shaped:
        best = min(shaped, key=lambda r: r.deficit)
        return illegal(_excess_reason(best), best)
    best = min(singles, key=lambda r: r.deficit)
    return illegal(f"the new marks hold no {shape.name} ({shape.id}) in any rotation or mirror image, "
                   f"and read as a single cell: {_excess_reason(best)}", best)


def _verdict(turns: Sequence[CardTurn], reading: _Reading, legal: bool, reason: str, coins: int,
             palms: tuple[int, ...]) -> Verdict:
    bonus: list[tuple[str, Cell]] = []
    for i, t in enumerate(turns):
        rest = t.marked - reading.primary if i == reading.index else t.marked
        bonus.extend((t.card.id, c) for c in sorted(rest))
    return Verdict(legal, reason, turns[reading.index].card.id, tuple(sorted(reading.primary)),
                   reading.single, tuple(bonus), coins, palms)
