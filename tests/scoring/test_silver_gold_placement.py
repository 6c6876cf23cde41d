"""The Silver & Gold placement check: shapes, the single-cell option, X bonus chains, reasons,
effects and hints.

Grids used below (row 0 first; # plain, X cross, C coin, P palm, . water)::

    t4  .C#.     t40  X#.
        P###          ###
        ####          ###
        C##X
"""

from __future__ import annotations

from collections.abc import Iterable

from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.silver_gold import (
    CardTurn,
    Shape,
    check_turn,
    legal_placements,
    load_catalog,
    rotate_cell,
    transform_cells,
)
from scoring.silver_gold.shapes import Cell

CAT = load_catalog()
T4, T40 = CAT.card("t4"), CAT.card("t40")


def turns(t4_new: Iterable[Cell] = (), t40_new: Iterable[Cell] = (), t4_before: Iterable[Cell] = (),
          t40_before: Iterable[Cell] = ()) -> list[CardTurn]:
    return [CardTurn(T4, frozenset(t4_before), frozenset(t4_new)),
            CardTurn(T40, frozenset(t40_before), frozenset(t40_new))]


def test_square_on_unmarked_cells_is_legal() -> None:
    v = check_turn(CAT.expedition("e8"), turns([(1, 1), (1, 2), (2, 1), (2, 2)]))
    assert v.legal and v.reason == ""
    assert v.shape_card == "t4" and v.shape_cells == ((1, 1), (1, 2), (2, 1), (2, 2))
    assert not v.single_cell and v.bonus_cells == ()


def test_turned_and_mirrored_l_is_legal() -> None:
    # e7 is (0,0)(1,0)(2,0)(2,1); this is it turned a quarter and mirrored
    v = check_turn(CAT.expedition("e7"), turns([(1, 1), (1, 2), (1, 3), (2, 1)]))
    assert v.legal and v.shape_card == "t4"


def test_shape_on_the_second_card() -> None:
    v = check_turn(CAT.expedition("e2"), turns(t40_new=[(0, 1), (1, 1), (2, 1)]))
    assert v.legal and v.shape_card == "t40"


def test_single_cell_instead_of_the_shape() -> None:
    v = check_turn(CAT.expedition("e8"), turns([(2, 2)]))
    assert v.legal and v.single_cell and v.shape_cells == ((2, 2),)


def test_cell_on_water_is_illegal() -> None:
    v = check_turn(CAT.expedition("e8"), turns([(0, 3)]))
    assert not v.legal and v.reason == "cell (0,3) of t4 is water"


def test_cell_marked_twice_is_illegal() -> None:
    v = check_turn(CAT.expedition("e8"), turns([(2, 2)], t4_before=[(2, 2)]))
    assert not v.legal and v.reason == "cell (2,2) of t4 was already marked"


def test_marks_never_disappear() -> None:
    v = check_turn(CAT.expedition("e1"), [CardTurn.from_after(T4, [(2, 2), (2, 3)], [(2, 3), (3, 3)])])
    assert not v.legal and v.reason.startswith("cell (2,2) of t4 was marked before but is not marked now")


def test_passing_is_illegal() -> None:
    v = check_turn(CAT.expedition("e1"), turns())
    assert not v.legal and "passing is not allowed" in v.reason


def test_x_in_the_shape_allows_a_bonus_cell_on_the_other_card() -> None:
    # the T covers the X at (3,3)
    v = check_turn(CAT.expedition("e6"), turns([(3, 1), (3, 2), (3, 3), (2, 2)], [(1, 1)]))
    assert v.legal and v.shape_card == "t4"
    assert v.bonus_cells == (("t40", (1, 1)),)


def test_bonus_x_chains() -> None:
    # single cell: the X of t40; its bonus is the X of t4, whose bonus is (2,2) of t4
    v = check_turn(CAT.expedition("e8"), turns([(3, 3), (2, 2)], [(0, 0)]))
    assert v.legal and v.single_cell
    primary = (v.shape_card, v.shape_cells[0])
    assert primary in {("t40", (0, 0)), ("t4", (3, 3))}
    assert {primary, *v.bonus_cells} == {("t40", (0, 0)), ("t4", (3, 3)), ("t4", (2, 2))}
    # two X allow two cells after the first, not three
    over = check_turn(CAT.expedition("e8"), turns([(3, 3), (2, 2), (2, 1)], [(0, 0)]))
    assert not over.legal and over.reason.endswith("3 extra cells but only 2 X were marked")


def test_too_many_extra_cells_for_the_crosses() -> None:
    v = check_turn(CAT.expedition("e6"), turns([(3, 1), (3, 2), (3, 3), (2, 2)], [(1, 0), (1, 1), (1, 2)]))
    assert not v.legal
    assert v.reason == "3 extra cells but only 1 X was marked"
    assert v.shape_card == "t4" and len(v.bonus_cells) == 3


def test_extra_cell_without_any_cross() -> None:
    v = check_turn(CAT.expedition("e8"), turns([(1, 1), (1, 2), (2, 1), (2, 2), (3, 1)]))
    assert not v.legal and v.reason == "1 extra cell but no X was marked"


def test_bonus_chain_must_start_in_the_shape() -> None:
    v = check_turn(CAT.expedition("e8"), turns([(1, 1), (1, 2), (2, 1), (2, 2)], [(0, 0), (1, 1)]))
    assert not v.legal
    assert v.reason == "2 extra cells but no X is among the shape cells, so the bonus chain never starts"


def test_wrong_shape_reads_as_single_cell_and_says_so() -> None:
    v = check_turn(CAT.expedition("e8"), turns([(1, 1), (1, 2), (1, 3), (2, 1)]))
    assert not v.legal
    assert v.reason.startswith("the new marks hold no O-tetromino (Square) (e8) in any rotation")
    assert "3 extra cells but no X was marked" in v.reason


def test_coins_and_palms_with_the_display_and_the_sheet_limits() -> None:
    bent = CAT.expedition("e4")
    marks = turns([(0, 1), (1, 1), (1, 0)])  # coin, plain, palm
    v = check_turn(bent, marks, display_palms=2)
    assert v.legal and v.coins == 1 and v.palms == (3,)
    full = check_turn(bent, marks, display_palms=2, coins_before=12, palm_boxes_used=4)
    assert full.legal and full.coins == 0 and full.palms == ()
    assert check_turn(bent, marks).palms == (1,)


def test_hints_list_every_placement() -> None:
    square = CAT.expedition("e8")
    assert len(legal_placements(T4, (), square)) == 7
    left = legal_placements(T4, [(2, 2)], square)
    assert len(left) == 3
    for cells in left:
        assert check_turn(square, turns(cells, t4_before=[(2, 2)])).legal
    assert legal_placements(T40, T40.cells, square) == ()


@st.composite
def turn_case(draw: st.DrawFn) -> tuple[Shape, list[CardTurn]]:
    cards = CAT.cards
    first = draw(st.sampled_from(cards))
    second = draw(st.sampled_from([c for c in cards if c.id != first.id]))
    shape = draw(st.sampled_from(CAT.expeditions))
    out = []
    for card in (first, second):
        cells = sorted(card.cells)
        before = frozenset(draw(st.lists(st.sampled_from(cells), max_size=6)))
        out.append([card, before])
    chosen = draw(st.integers(0, 1))
    card, before = out[chosen]
    options = legal_placements(card, before, shape)
    placed = draw(st.sampled_from(options)) if options and draw(st.booleans()) else frozenset()
    result = []
    for i, (card, before) in enumerate(out):
        free = sorted(card.cells - before)
        extra = frozenset(draw(st.lists(st.sampled_from(free), max_size=3))) if free else frozenset()
        new = (placed if i == chosen else frozenset()) | extra
        result.append(CardTurn(card, before, new))
    return shape, result


@settings(max_examples=80, deadline=None)
@given(case=turn_case(), k=st.integers(0, 3), mirror=st.booleans())
def test_verdict_does_not_change_under_the_shapes_symmetries(case: tuple[Shape, list[CardTurn]], k: int,
                                                              mirror: bool) -> None:
    shape, card_turns = case
    image = Shape.from_cells(transform_cells(shape.cells, k, mirror), shape.id, shape.name)
    a, b = check_turn(shape, card_turns), check_turn(image, card_turns)
    assert (a.legal, a.reason, a.coins, a.palms) == (b.legal, b.reason, b.coins, b.palms)


@settings(max_examples=40, deadline=None)
@given(case=turn_case(), k=st.integers(1, 3))
def test_verdict_does_not_change_when_the_cards_are_turned(case: tuple[Shape, list[CardTurn]],
                                                            k: int) -> None:
    shape, card_turns = case
    turned = [CardTurn(t.card.rotated(k), frozenset(rotate_cell(c, k, t.card.size) for c in t.before),
                       frozenset(rotate_cell(c, k, t.card.size) for c in t.marked)) for t in card_turns]
    assert check_turn(shape, card_turns).legal == check_turn(shape, turned).legal
