"""The Silver & Gold card tables: treasure-map cards, expedition shapes and the rule numbers.

The built-in tables are package data (``data/treasure_maps.json``, ``data/expedition_cards.json``,
``data/rules.json``) read with :mod:`importlib.resources`. A user's own catalog document in the same
format is validated by :func:`catalog_from_json` and overrides built-in cards with the same id.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property
from importlib import resources
from typing import Any, NamedTuple

from scoring.errors import InvalidInput
from scoring.silver_gold.shapes import Cell, Shape, normalise, rotate_rows

__all__ = [
    "SYMBOLS",
    "Badge",
    "Card",
    "Catalog",
    "Rules",
    "catalog_from_json",
    "load_catalog",
    "load_rules",
]

#: grid letter -> symbol name; ``.`` is water (no cell).
SYMBOLS: Mapping[str, str] = {"#": "plain", "X": "cross", "C": "coin", "P": "palm"}
WATER = "."


class Badge(NamedTuple):
    """A badge printed in a card's top-right corner: ``value`` points per completed card of ``colour``."""

    colour: str
    value: int


@dataclass(frozen=True)
class Card:
    """One treasure-map card.

    Attributes
    ----------
    id : str
        ``"t1"`` … ``"t47"`` for the built-in cards.
    colour : str
        ``"purple"``, ``"orange"``, ``"green"`` or ``"grey"``.
    points : int
        Points for completing the card.
    badge : Badge or None
        The corner badge, if any.
    rows : tuple of str
        One string per grid row, top first, over ``#`` plain, ``X`` cross, ``C`` coin, ``P`` palm,
        ``.`` water.
    note : str
        Source remarks (e.g. where transcriptions disagree), empty when none.
    """

    id: str
    colour: str
    points: int
    badge: Badge | None
    rows: tuple[str, ...]
    note: str = ""

    @property
    def size(self) -> tuple[int, int]:
        """``(height, width)`` of the grid."""
        return len(self.rows), len(self.rows[0])

    @cached_property
    def cells(self) -> frozenset[Cell]:
        """Every cell of the card (water excluded)."""
        return frozenset(
            (r, c) for r, row in enumerate(self.rows) for c, ch in enumerate(row) if ch != WATER
        )

    def symbol_at(self, cell: Cell) -> str | None:
        """``'plain'``, ``'cross'``, ``'coin'`` or ``'palm'``; ``None`` for water or outside the grid."""
        r, c = cell
        if not (0 <= r < len(self.rows) and 0 <= c < len(self.rows[r])):
            return None
        return SYMBOLS.get(self.rows[r][c])

    def cells_with(self, symbol: str) -> frozenset[Cell]:
        """The cells carrying ``symbol`` (``'cross'``, ``'coin'``, ``'palm'`` or ``'plain'``)."""
        return frozenset(cell for cell in self.cells if self.symbol_at(cell) == symbol)

    @property
    def palm_count(self) -> int:
        return len(self.cells_with("palm"))

    def in_grid(self, cell: Cell) -> bool:
        height, width = self.size
        return 0 <= cell[0] < height and 0 <= cell[1] < width

    def rotated(self, k: int) -> Card:
        """The same card with its grid turned ``k`` quarter turns clockwise (same id)."""
        return Card(self.id, self.colour, self.points, self.badge, rotate_rows(self.rows, k), self.note)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "colour": self.colour,
            "points": self.points,
            "badge": None if self.badge is None else {"colour": self.badge.colour, "value": self.badge.value},
            "rows": list(self.rows),
        }
        if self.note:
            out["note"] = self.note
        return out


@dataclass(frozen=True)
class Rules:
    """The rule numbers of Silver & Gold (``data/rules.json``)."""

    coin_boxes: int
    coins_per_row: int
    palm_boxes: int
    trophy_track: tuple[int, ...]
    rounds: int
    turns_per_round: int
    display_size: int
    active_cards: int
    colours: tuple[str, ...]
    tiebreak_colours: tuple[str, ...]
    badge_values: tuple[int, ...]
    max_grid: int

    @property
    def coin_rows(self) -> int:
        return self.coin_boxes // self.coins_per_row


@cache
def load_rules() -> Rules:
    """The built-in rule numbers (read once; the result is immutable)."""
    raw = json.loads(resources.files("scoring.silver_gold").joinpath("data/rules.json").read_text("utf-8"))
    return Rules(
        coin_boxes=int(raw["coin_boxes"]),
        coins_per_row=int(raw["coins_per_row"]),
        palm_boxes=int(raw["palm_boxes"]),
        trophy_track=tuple(int(v) for v in raw["trophy_track"]),
        rounds=int(raw["rounds"]),
        turns_per_round=int(raw["turns_per_round"]),
        display_size=int(raw["display_size"]),
        active_cards=int(raw["active_cards"]),
        colours=tuple(raw["colours"]),
        tiebreak_colours=tuple(raw["tiebreak_colours"]),
        badge_values=tuple(int(v) for v in raw["badge_values"]),
        max_grid=int(raw["max_grid"]),
    )


@dataclass(frozen=True)
class Catalog:
    """The treasure-map cards and expedition shapes in play.

    Attributes
    ----------
    cards : tuple of Card
        Map cards, ids unique.
    expeditions : tuple of Shape
        Expedition cards ``e1`` … ``e8``.
    about : str
        Where the tables come from.
    """

    cards: tuple[Card, ...]
    expeditions: tuple[Shape, ...] = ()
    about: str = ""
    _index: Mapping[str, Card] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_index", {card.id: card for card in self.cards})

    def __contains__(self, card_id: object) -> bool:
        return card_id in self._index

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(card.id for card in self.cards)

    def get(self, card_id: str) -> Card | None:
        """The card ``card_id``, or ``None``."""
        return self._index.get(card_id)

    def card(self, card_id: Any, field_name: str = "card") -> Card:
        """The card ``card_id``.

        Raises
        ------
        InvalidInput
            Naming ``field_name`` when no card has that id.
        """
        card = self._index.get(card_id) if isinstance(card_id, str) else None
        if card is None:
            raise InvalidInput(field_name, f"unknown card id {card_id!r}")
        return card

    def expedition(self, shape_id: Any, field_name: str = "shape") -> Shape:
        """The expedition card ``shape_id`` (``"e1"`` … ``"e8"``).

        Raises
        ------
        InvalidInput
            Naming ``field_name`` when no expedition card has that id.
        """
        for shape in self.expeditions:
            if shape.id == shape_id:
                return shape
        known = ", ".join(s.id for s in self.expeditions)
        raise InvalidInput(field_name, f"unknown expedition card {shape_id!r}; expected one of {known}")

    def merged(self, other: Catalog) -> Catalog:
        """This catalog with ``other``'s cards and expeditions added; ``other`` wins on equal ids."""
        cards = dict(self._index)
        cards.update({card.id: card for card in other.cards})
        shapes = {s.id: s for s in self.expeditions}
        shapes.update({s.id: s for s in other.expeditions})
        about = "; ".join(a for a in (self.about, other.about) if a)
        return Catalog(tuple(cards.values()), tuple(shapes.values()), about)

    def max_palm_score(self, display_size: int) -> int:
        """The largest score one palm can give: 1 plus the palms on the ``display_size`` cards with
        the most palms."""
        counts = sorted((card.palm_count for card in self.cards), reverse=True)
        return 1 + sum(counts[:display_size])

    def to_json(self) -> dict[str, Any]:
        """The catalog as a document :func:`catalog_from_json` reads back."""
        return {
            "about": self.about,
            "cards": [card.to_json() for card in self.cards],
            "expeditions": [shape.to_json() for shape in self.expeditions],
        }


def _int(value: Any, where: str, low: int | None = None, high: int | None = None) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise InvalidInput(where, f"expected an integer, got {value!r}")
    if low is not None and value < low:
        raise InvalidInput(where, f"{value} is less than {low}")
    if high is not None and value > high:
        raise InvalidInput(where, f"{value} is more than {high}")
    return value


def _card_from_json(item: Any, where: str, rules: Rules) -> Card:
    if not isinstance(item, Mapping):
        raise InvalidInput(where, "expected an object")
    cid = item.get("id")
    if not isinstance(cid, str) or not cid.strip():
        raise InvalidInput(f"{where}.id", "expected a non-empty string")
    colour = item.get("colour")
    if colour not in rules.colours:
        raise InvalidInput(f"{where}.colour", f"{colour!r} is not one of {', '.join(rules.colours)}")
    rows_raw = item.get("rows")
    if not isinstance(rows_raw, Sequence) or isinstance(rows_raw, str) or not rows_raw:
        raise InvalidInput(f"{where}.rows", "expected a list of strings")
    if len(rows_raw) > rules.max_grid:
        raise InvalidInput(f"{where}.rows", f"{len(rows_raw)} rows; a card has at most {rules.max_grid}")
    width = None
    for i, row in enumerate(rows_raw):
        if not isinstance(row, str):
            raise InvalidInput(f"{where}.rows[{i}]", f"expected a string, got {row!r}")
        if not 1 <= len(row) <= rules.max_grid:
            raise InvalidInput(f"{where}.rows[{i}]", f"{len(row)} letters; a row has 1 to {rules.max_grid}")
        if width is not None and len(row) != width:
            raise InvalidInput(f"{where}.rows[{i}]", f"{len(row)} letters but row 0 has {width}")
        width = len(row)
        bad = sorted({ch for ch in row if ch not in SYMBOLS and ch != WATER})
        if bad:
            raise InvalidInput(f"{where}.rows[{i}]", f"unknown symbol {bad[0]!r}; use # X C P or .")
    rows = tuple(rows_raw)
    if not any(ch != WATER for row in rows for ch in row):
        raise InvalidInput(f"{where}.rows", "the card has no cells")
    points = _int(item.get("points"), f"{where}.points", low=1)
    badge_raw = item.get("badge")
    badge = None
    if badge_raw is not None:
        if not isinstance(badge_raw, Mapping):
            raise InvalidInput(f"{where}.badge", "expected null or {\"colour\", \"value\"}")
        b_colour = badge_raw.get("colour")
        if b_colour not in rules.colours:
            raise InvalidInput(f"{where}.badge.colour",
                               f"{b_colour!r} is not one of {', '.join(rules.colours)}")
        value = _int(badge_raw.get("value"), f"{where}.badge.value")
        if value not in rules.badge_values:
            raise InvalidInput(f"{where}.badge.value", f"{value} is not a badge value ({rules.badge_values})")
        badge = Badge(b_colour, value)
    note = item.get("note", "")
    if not isinstance(note, str):
        raise InvalidInput(f"{where}.note", "expected a string")
    return Card(cid, colour, points, badge, rows, note)


def _shape_from_json(item: Any, where: str) -> Shape:
    if not isinstance(item, Mapping):
        raise InvalidInput(where, "expected an object")
    sid = item.get("id")
    if not isinstance(sid, str) or not sid:
        raise InvalidInput(f"{where}.id", "expected a non-empty string")
    name = item.get("name", sid)
    cells = cells_from_json(item.get("cells"), f"{where}.cells")
    if not cells:
        raise InvalidInput(f"{where}.cells", "the shape has no cells")
    return Shape(sid, str(name), normalise(cells))


def cells_from_json(value: Any, where: str) -> tuple[Cell, ...]:
    """Validate a JSON list of ``[row, col]`` pairs (non-negative integers)."""
    if not isinstance(value, Sequence) or isinstance(value, str):
        raise InvalidInput(where, "expected a list of [row, col] pairs")
    out: list[Cell] = []
    for i, pair in enumerate(value):
        if (not isinstance(pair, Sequence) or isinstance(pair, str) or len(pair) != 2
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in pair)):
            raise InvalidInput(f"{where}[{i}]", f"expected [row, col] integers, got {pair!r}")
        if pair[0] < 0 or pair[1] < 0:
            raise InvalidInput(f"{where}[{i}]", f"cell {tuple(pair)} has a negative coordinate")
        out.append((pair[0], pair[1]))
    return tuple(out)


def _unique_ids(items: Iterable[Any], where: str) -> None:
    seen: set[str] = set()
    for i, item in enumerate(items):
        if item.id in seen:
            raise InvalidInput(f"{where}[{i}].id", f"{item.id!r} appears twice")
        seen.add(item.id)


def catalog_from_json(data: Mapping[str, Any], *, merge_builtin: bool = True) -> Catalog:
    """Validate a catalog document and return it merged over the built-in catalog.

    The document has the format of ``data/treasure_maps.json``: ``{"cards": [{"id", "colour",
    "points", "badge": null | {"colour", "value"}, "rows": [...]}, ...]}``, optionally with
    ``"expeditions": [{"id", "name", "cells": [[r, c], ...]}]`` and an ``"about"`` text.

    Parameters
    ----------
    data : Mapping
        The parsed JSON document.
    merge_builtin : bool
        When true (default) the result is the built-in catalog with the document's cards added or
        overriding those with the same id; when false, only the document's cards.

    Raises
    ------
    InvalidInput
        Naming the field path (e.g. ``cards[3].rows[1]``) and the problem.
    """
    rules = load_rules()
    if not isinstance(data, Mapping):
        raise InvalidInput("(catalog)", "expected a JSON object with a 'cards' list")
    symbols = data.get("symbols")
    if symbols is not None and (not isinstance(symbols, Mapping)
                                or any(symbols.get(k) != v for k, v in SYMBOLS.items())):
        raise InvalidInput("symbols",
                           "only the standard letters are supported: # plain, X cross, C coin, P palm")
    raw_cards = data.get("cards", [])
    if not isinstance(raw_cards, Sequence) or isinstance(raw_cards, str):
        raise InvalidInput("cards", "expected a list of card objects")
    cards = tuple(_card_from_json(item, f"cards[{i}]", rules) for i, item in enumerate(raw_cards))
    _unique_ids(cards, "cards")
    raw_shapes = data.get("expeditions", [])
    if not isinstance(raw_shapes, Sequence) or isinstance(raw_shapes, str):
        raise InvalidInput("expeditions", "expected a list of shape objects")
    shapes = tuple(_shape_from_json(item, f"expeditions[{i}]") for i, item in enumerate(raw_shapes))
    _unique_ids(shapes, "expeditions")
    about = data.get("about", "")
    user = Catalog(cards, shapes, about if isinstance(about, str) else "")
    return load_catalog().merged(user) if merge_builtin else user


def _read_data(name: str) -> Any:
    return json.loads(resources.files("scoring.silver_gold").joinpath(f"data/{name}").read_text("utf-8"))


@cache
def load_catalog() -> Catalog:
    """The built-in catalog: 47 map cards ``t1`` … ``t47`` and 8 expedition cards ``e1`` … ``e8``.

    Read once from package data; the result is immutable.
    """
    maps = _read_data("treasure_maps.json")
    expeditions = _read_data("expedition_cards.json")
    rules = load_rules()
    cards = tuple(_card_from_json(item, f"treasure_maps.json: cards[{i}]", rules)
                  for i, item in enumerate(maps["cards"]))
    shapes = tuple(_shape_from_json(item, f"expedition_cards.json: cards[{i}]")
                   for i, item in enumerate(expeditions["cards"]))
    about = f"{maps['about']} Source: {maps['source']}"
    return Catalog(cards, shapes, about)
