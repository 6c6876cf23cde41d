"""The Silver & Gold catalog: built-in tables, user catalogs and grid geometry."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring.errors import InvalidInput
from scoring.silver_gold import (
    Badge,
    Shape,
    catalog_from_json,
    load_catalog,
    mirror_rows,
    rotate_cell,
    rotate_rows,
    symmetries,
    unrotate_cell,
)


def test_builtin_catalog_has_every_card_with_consistent_points() -> None:
    cat = load_catalog()
    assert cat.ids == tuple(f"t{i}" for i in range(1, 48))
    assert Counter(c.colour for c in cat.cards) == {"purple": 12, "orange": 12, "green": 12, "grey": 11}
    points = {"purple": 14, "orange": 12, "green": 10, "grey": 8}
    for card in cat.cards:
        assert card.points == points[card.colour] == len(card.cells), card.id
    badges = [c for c in cat.cards if c.badge is not None]
    assert len(badges) == 12
    assert all(b.badge.colour != b.colour for b in badges)
    assert [s.id for s in cat.expeditions] == [f"e{i}" for i in range(1, 9)]
    assert "Not official" in cat.about
    assert "disagree" in cat.card("t15").note


def test_symbols_water_and_outside() -> None:
    t4 = load_catalog().card("t4")
    assert t4.rows == (".C#.", "P###", "####", "C##X")
    assert t4.badge is None
    assert t4.symbol_at((0, 0)) is None  # water
    assert t4.symbol_at((0, 1)) == "coin"
    assert t4.symbol_at((1, 0)) == "palm"
    assert t4.symbol_at((3, 3)) == "cross"
    assert t4.symbol_at((2, 2)) == "plain"
    assert t4.symbol_at((4, 0)) is None
    assert t4.symbol_at((0, -1)) is None
    t1 = load_catalog().card("t1")
    assert t1.badge == Badge("orange", 2) and t1.badge == ("orange", 2)


def test_unknown_ids_name_the_field() -> None:
    cat = load_catalog()
    with pytest.raises(InvalidInput, match=r"players\[0\]: unknown card id 't48'"):
        cat.card("t48", "players[0]")
    with pytest.raises(InvalidInput, match="unknown expedition card 'e9'"):
        cat.expedition("e9")


def test_rotate_rows_quarter_turns() -> None:
    assert rotate_rows(("ab", "cd", "ef"), 1) == ("eca", "fdb")
    assert rotate_rows(("ab", "cd", "ef"), 2) == ("fe", "dc", "ba")
    assert rotate_rows(("ab", "cd", "ef"), -1) == rotate_rows(("ab", "cd", "ef"), 3) == ("bdf", "ace")
    assert mirror_rows(("ab", "cd")) == ("ba", "dc")


@given(card_index=st.integers(0, 46), k=st.integers(-4, 7))
def test_rotated_card_keeps_every_symbol_where_rotate_cell_says(card_index: int, k: int) -> None:
    card = load_catalog().cards[card_index]
    turned = card.rotated(k)
    assert len(turned.cells) == len(card.cells)
    for cell in card.cells:
        moved = rotate_cell(cell, k, card.size)
        assert turned.symbol_at(moved) == card.symbol_at(cell)
        assert unrotate_cell(moved, k, card.size) == cell
    assert turned.rotated(-k).rows == card.rows


def test_symmetries_of_the_expedition_shapes() -> None:
    sizes = {s.id: len(s.orientations) for s in load_catalog().expeditions}
    assert sizes == {"e1": 2, "e2": 2, "e3": 2, "e4": 4, "e5": 4, "e6": 4, "e7": 8, "e8": 1}
    assert len(symmetries([(0, 0)])) == 1
    assert Shape.from_cells([(5, 5), (5, 6)]).cells == frozenset({(0, 0), (0, 1)})


def _doc(**card: object) -> dict[str, object]:
    base = {"id": "u1", "colour": "grey", "points": 8, "badge": None, "rows": ["###", "#X#", "##C"]}
    base.update(card)
    return {"cards": [base]}


def test_user_catalog_overrides_and_extends_the_builtin() -> None:
    doc = {"cards": [
        {"id": "t15", "colour": "orange", "points": 12, "badge": {"colour": "grey", "value": 1},
         "rows": ["##.#", "#C.C", "####", "..##"]},
        {"id": "mine", "colour": "grey", "points": 8, "badge": None, "rows": ["###", "#X#", "##."]},
    ]}
    merged = catalog_from_json(doc)
    assert merged.card("t15").symbol_at((1, 1)) == "coin"
    assert load_catalog().card("t15").symbol_at((1, 1)) == "cross"
    assert merged.card("mine").cells_with("cross") == {(1, 1)}
    assert len(merged.cards) == 48
    alone = catalog_from_json(doc, merge_builtin=False)
    assert alone.ids == ("t15", "mine")
    assert catalog_from_json(merged.to_json(), merge_builtin=False).cards == merged.cards


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        (_doc(colour="pink"), r"cards\[0\]\.colour: 'pink' is not one of"),
        (_doc(rows=["###", "##"]), r"cards\[0\]\.rows\[1\]: 2 letters but row 0 has 3"),
        (_doc(rows=["#Z#"]), r"cards\[0\]\.rows\[0\]: unknown symbol 'Z'"),
        (_doc(rows=["#####"]), r"cards\[0\]\.rows\[0\]: 5 letters"),
        (_doc(rows=["...", "..."]), r"cards\[0\]\.rows: the card has no cells"),
        (_doc(points="8"), r"cards\[0\]\.points: expected an integer"),
        (_doc(badge={"colour": "grey", "value": 3}), r"cards\[0\]\.badge\.value: 3 is not a badge value"),
        (_doc(id=""), r"cards\[0\]\.id: expected a non-empty string"),
        ({"cards": "t1"}, "cards: expected a list"),
        ({"cards": [_doc()["cards"][0], _doc()["cards"][0]]}, r"cards\[1\]\.id: 'u1' appears twice"),
        ({"symbols": {"#": "plain", "X": "coin"}}, "symbols: only the standard letters"),
        ({"expeditions": [{"id": "e9", "cells": [[0, -1]]}]}, r"expeditions\[0\]\.cells\[0\]"),
    ],
)
def test_bad_user_catalogs_name_the_field(doc: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        catalog_from_json(doc)


def test_max_palm_score_follows_the_catalog() -> None:
    cat = load_catalog()
    assert max(c.palm_count for c in cat.cards) == 1
    assert cat.max_palm_score(4) == 5
