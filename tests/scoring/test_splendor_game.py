"""Splendor Duel game rules: one edge case per rule, on hand-built positions."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from scoring.splendor_duel.board import Board
from scoring.splendor_duel.cards import catalog
from scoring.splendor_duel.final import OwnedCard, tally
from scoring.splendor_duel.game import (
    Buy,
    ChooseRoyal,
    Discard,
    IllegalAction,
    Pass,
    PlayerState,
    Refill,
    Reserve,
    State,
    Steal,
    Take,
    TakeMatching,
    UsePrivilege,
    apply,
    effective_cost,
    legal_actions,
    new_game,
    validate,
)
from scoring.splendor_duel.tokens import Token, Tokens

SUPPLY = Tokens.of("WWWWUUUUGGGGRRRRKKKKPPYYY")
FULL = ["WUGRK", "WUGRK", "WUYGR", "KWUGR", "KPPYY"]
SPARSE = ["W....", ".....", "..Y..", ".....", "....."]


def owned(*ids: str, colour: Token | None = None) -> tuple[OwnedCard, ...]:
    table = catalog().jewels
    return tuple(OwnedCard(i, colour if table[i].joker else table[i].colour) for i in ids)


def make_state(rows: list[str], me: PlayerState | None = None, other: PlayerState | None = None,
               supply_privileges: int | None = None, pyramid: tuple[tuple[str, ...], ...] | None = None,
               **kwargs: object) -> State:
    """A position whose bag holds every token not on the board or held (25 conserved)."""
    me = me or PlayerState()
    other = other or PlayerState()
    board = Board.parse(rows)
    bag = SUPPLY - board.counts() - me.tokens - other.tokens
    assert bag.is_valid()
    if supply_privileges is None:
        supply_privileges = 3 - me.privileges - other.privileges
    pyramid = pyramid or (("L1-01", "L1-06", "L1-11", "L1-16", "L1-21"), ("L2-01", "L2-05", "L2-09", "L2-13"),
                          ("L3-01", "L3-03", "L3-05"))
    used = {c for row in pyramid for c in row} | {c.id for c in me.cards + other.cards}
    used |= set(me.reserved) | set(other.reserved)
    decks = tuple(tuple(c for c in catalog().level(lv) if c not in used) for lv in (1, 2, 3))
    state = State(board=board, bag=bag, players=(me, other), privilege_supply=supply_privileges,
                  pyramid=pyramid, decks=decks, royals=("R1", "R2", "R3", "R4"))
    return replace(state, **kwargs)  # type: ignore[arg-type]


# --- set-up -------------------------------------------------------------------------------

def test_new_game_sets_up_pyramid_board_and_privileges() -> None:
    state = new_game(np.random.default_rng(7))
    assert [len(row) for row in state.pyramid] == [5, 4, 3]
    assert [len(d) for d in state.decks] == [25, 20, 10]
    assert state.board.counts() == SUPPLY and state.bag.total() == 0
    assert state.players[1].privileges == 1 and state.privilege_supply == 2
    assert state.current == 0 and state.phase == "main"
    again = new_game(np.random.default_rng(7))
    assert again == state
    assert new_game(np.random.default_rng(8)).board != state.board


# --- privileges ---------------------------------------------------------------------------

def test_privilege_takes_any_gem_but_never_gold() -> None:
    state = make_state(FULL, me=PlayerState(privileges=1))
    assert validate(state, UsePrivilege((4, 4))) == "a privilege never takes gold"
    after = apply(state, UsePrivilege((0, 0)))
    assert after.player.tokens == Tokens.of("W") and after.player.privileges == 0
    assert after.privilege_supply == 3 and after.board.at((0, 0)) == "."
    assert validate(after, UsePrivilege((0, 1))) == "the player holds no privilege"


def test_privileges_cannot_follow_a_refill() -> None:
    rows = ["WUGRK", "WUGRK", "WUYGR", "KWUGR", "K...."]
    state = make_state(rows, me=PlayerState(privileges=1))
    state = apply(state, Refill(tuple(Tokens.of(state.bag.letters()).letters())))  # type: ignore[arg-type]
    assert state.phase == "mandatory"
    assert "before refilling" in (validate(state, UsePrivilege((0, 0))) or "")


def test_refill_gives_the_opponent_a_privilege_from_the_supply() -> None:
    rows = ["WUGRK", "WUGRK", "WUYGR", "KWUGR", "K...."]
    state = make_state(rows)
    order = tuple(Token(ch) for ch in state.bag.letters())
    after = apply(state, Refill(order))
    assert after.board.counts() == SUPPLY
    assert after.players[1].privileges == 1 and after.privilege_supply == 2


def test_privilege_comes_from_the_opponent_when_the_supply_is_empty() -> None:
    rows = ["WUGRK", "WUGRK", "WUYGR", "KWUGR", "K...."]
    state = make_state(rows, me=PlayerState(privileges=2), other=PlayerState(privileges=1))
    assert state.privilege_supply == 0
    after = apply(state, Refill(tuple(Token(ch) for ch in state.bag.letters())))
    assert after.players[1].privileges == 2 and after.players[0].privileges == 1
    assert after.privilege_total() == 3


def test_a_player_holding_three_privileges_gets_nothing() -> None:
    rows = ["WUGRK", "WUGRK", "WUYGR", "KWUGR", "K...."]
    state = make_state(rows, other=PlayerState(privileges=3))
    after = apply(state, Refill(tuple(Token(ch) for ch in state.bag.letters())))
    assert after.players[1].privileges == 3 and after.privilege_supply == 0


def test_refill_must_place_the_whole_bag_and_needs_tokens_in_it() -> None:
    rows = ["WUGRK", "WUGRK", "WUYGR", "KWUGR", "K...."]
    state = make_state(rows)
    assert "every token of the bag" in (validate(state, Refill((Token.PEARL,))) or "")
    full = make_state(FULL)
    assert "bag is empty" in (validate(full, Refill(())) or "")


# --- take ---------------------------------------------------------------------------------

def test_taking_three_of_a_colour_gives_the_opponent_a_privilege() -> None:
    state = make_state(FULL)
    after = apply(state, Take(((0, 0), (1, 0), (2, 0))))
    assert after.players[0].tokens == Tokens.of("WWW")
    assert after.players[1].privileges == 1
    assert after.current == 1 and after.phase == "main"


def test_illegal_take_is_refused_with_the_rule() -> None:
    state = make_state(FULL)
    assert "gold" in (validate(state, Take(((2, 2),))) or "")
    with pytest.raises(IllegalAction, match="one straight line"):
        apply(state, Take(((0, 0), (0, 2))))


# --- reserve ------------------------------------------------------------------------------

def test_reserve_takes_gold_and_refills_the_pyramid() -> None:
    state = make_state(FULL)
    after = apply(state, Reserve((2, 2), card="L2-05"))
    assert after.players[0].reserved == ("L2-05",)
    assert after.players[0].tokens == Tokens.of("Y")
    assert "L2-05" not in after.pyramid[1] and len(after.pyramid[1]) == 4
    assert after.decks[1] == state.decks[1][1:]


def test_blind_reserve_takes_the_top_of_a_deck() -> None:
    state = make_state(FULL)
    after = apply(state, Reserve((4, 4), level=3))
    assert after.players[0].reserved == (state.decks[2][0],)
    assert after.pyramid == state.pyramid


def test_reserving_needs_gold_on_the_board() -> None:
    rows = ["WUGRK", "WUGRK", "WU.GR", "KWUGR", "KPP.."]
    state = make_state(rows)
    assert "no" in (validate(state, Reserve((2, 2), card="L1-01")) or "")
    assert not any(isinstance(a, Reserve) for a in legal_actions(state))


def test_at_most_three_reserved_cards() -> None:
    me = PlayerState(reserved=("L1-02", "L1-03", "L1-04"))
    state = make_state(FULL, me=me)
    assert "3 reserved" in (validate(state, Reserve((2, 2), card="L1-01")) or "")
    assert not any(isinstance(a, Reserve) for a in legal_actions(state))


# --- buy ----------------------------------------------------------------------------------

def test_bonuses_reduce_gems_but_never_pearls() -> None:
    card = catalog().jewels["L1-03"]  # white: 2 blue, 2 green, 1 pearl
    bonuses = Tokens.of("UUUG")
    need = effective_cost(card, bonuses)
    assert need == Tokens.of("GP")


def test_gold_is_wild_and_must_cover_the_exact_shortfall() -> None:
    # L1-03 costs UUGGP; the player holds U G G Y Y
    me = PlayerState(tokens=Tokens.of("UGGYY"))
    state = make_state(SPARSE, me=me, pyramid=(("L1-03",), (), ()))
    assert validate(state, Buy("L1-03", Tokens.of("UGGYY"))) is None
    assert "gold must cover" in (validate(state, Buy("L1-03", Tokens.of("UGGY"))) or "")
    assert "more than the player holds" in (validate(state, Buy("L1-03", Tokens.of("UUGGP"))) or "")
    after = apply(state, Buy("L1-03", Tokens.of("UGGYY")))
    assert after.players[0].tokens.total() == 0
    assert after.bag[Token.GOLD] == state.bag[Token.GOLD] + 2
    buys = [a for a in legal_actions(state) if isinstance(a, Buy)]
    assert buys == [Buy("L1-03", Tokens.of("UGGYY"))]


def test_a_joker_needs_a_card_with_a_bonus_and_takes_its_colour() -> None:
    # L1-27: joker costing WWWWP
    rich = Tokens.of("WWWWP")
    bare = make_state(["U....", ".....", ".....", ".....", "....."], me=PlayerState(tokens=rich),
                      pyramid=(("L1-27",), (), ()))
    assert "needs a card with a bonus" in (validate(bare, Buy("L1-27", rich)) or "")
    assert not any(isinstance(a, Buy) for a in legal_actions(bare))
    points_only = replace(bare, players=(replace(bare.players[0], cards=owned("L1-28")), bare.players[1]))
    assert "has none" in (validate(points_only, Buy("L1-27", rich)) or "")
    me = PlayerState(tokens=rich, cards=owned("L1-06"))  # a blue card
    state = make_state(["U....", ".....", ".....", ".....", "....."], me=me, pyramid=(("L1-27",), (), ()))
    assert "no green card" in (validate(state, Buy("L1-27", rich, Token.GREEN)) or "")
    assert {a.colour for a in legal_actions(state) if isinstance(a, Buy)} == {Token.BLUE}
    after = apply(state, Buy("L1-27", rich, Token.BLUE))
    assert after.players[0].tally().bonuses[Token.BLUE] == 2


def test_cannot_buy_a_card_not_on_offer() -> None:
    me = PlayerState(tokens=Tokens.of("UGRK"))
    state = make_state(SPARSE, me=me, pyramid=(("L1-06",), (), ()))
    assert "neither face up" in (validate(state, Buy("L1-01", Tokens.of("UGRK"))) or "")


def test_buying_a_reserved_card_removes_it_from_the_reserve() -> None:
    me = PlayerState(tokens=Tokens.of("UUU"), reserved=("L1-02",))
    state = make_state(SPARSE, me=me)
    after = apply(state, Buy("L1-02", Tokens.of("UUU")))
    assert after.players[0].reserved == ()
    assert [c.id for c in after.players[0].cards] == ["L1-02"]
    assert after.pyramid == state.pyramid


# --- abilities ----------------------------------------------------------------------------

def test_extra_turn_keeps_the_same_player() -> None:
    me = PlayerState(tokens=Tokens.of("UUGGP"))  # L1-03: white, extra turn
    state = make_state(SPARSE, me=me, pyramid=(("L1-03",), (), ()))
    after = apply(state, Buy("L1-03", Tokens.of("UUGGP")))
    assert after.current == 0 and after.phase == "main" and not after.extra_turn


def test_matching_token_ability_takes_a_token_of_the_card_colour() -> None:
    me = PlayerState(tokens=Tokens.of("RRKK"))  # L1-04: white, take a matching token
    state = make_state(["W.W..", ".....", "..Y..", ".....", "....."], me=me, pyramid=(("L1-04",), (), ()))
    after = apply(state, Buy("L1-04", Tokens.of("RRKK")))
    assert after.phase == "ability"
    choices = set(legal_actions(after))
    assert choices == {TakeMatching(c) for c in after.board.cells_with("W")}
    assert "no white" in (validate(after, TakeMatching((0, 1))) or "")
    done = apply(after, TakeMatching((0, 0)))
    assert done.players[0].tokens == Tokens.of("W") and done.current == 1


def test_matching_token_ability_is_skipped_when_the_board_has_none() -> None:
    rows = ["U....", ".....", "..Y..", ".....", "....."]
    me = PlayerState(tokens=Tokens.of("RRKK"))
    state = make_state(rows, me=me, pyramid=(("L1-04",), (), ()))
    after = apply(state, Buy("L1-04", Tokens.of("RRKK")))
    assert after.current == 1 and after.phase == "main"


def test_privilege_ability_takes_from_the_opponent_when_the_supply_is_empty() -> None:
    # L2-03: white, 2 points, take a privilege; costs UUUUPP? use its real cost
    card = catalog().jewels["L2-03"]
    me = PlayerState(tokens=card.cost, privileges=1)
    state = make_state(["U....", ".....", "..Y..", ".....", "....."], me=me, other=PlayerState(privileges=2),
                       pyramid=(("L1-01",), ("L2-03",), ()))
    after = apply(state, Buy("L2-03", card.cost))
    assert after.players[0].privileges == 2 and after.players[1].privileges == 1


def test_steal_takes_a_non_gold_token_only() -> None:
    card = catalog().jewels["L2-02"]  # white, steal
    me = PlayerState(tokens=card.cost)
    other = PlayerState(tokens=Tokens.of("YYR"))
    state = make_state(SPARSE, me=me, other=other, pyramid=((), ("L2-02",), ()))
    after = apply(state, Buy("L2-02", card.cost))
    assert after.phase == "ability"
    assert list(legal_actions(after)) == [Steal(Token.RED)]
    assert validate(after, Steal(Token.GOLD)) == "gold cannot be stolen"
    done = apply(after, Steal(Token.RED))
    assert done.players[0].tokens == Tokens.of("R") and done.players[1].tokens == Tokens.of("YY")


def test_steal_is_skipped_when_the_opponent_has_only_gold() -> None:
    card = catalog().jewels["L2-02"]
    me = PlayerState(tokens=card.cost)
    state = make_state(SPARSE, me=me, other=PlayerState(tokens=Tokens.of("YY")), pyramid=((), ("L2-02",), ()))
    after = apply(state, Buy("L2-02", card.cost))
    assert after.current == 1 and after.phase == "main"


# --- crowns and royal cards ---------------------------------------------------------------

def test_reaching_three_crowns_gives_a_royal_card_with_its_ability() -> None:
    card = catalog().jewels["L1-02"]  # white, 1 crown, costs UUU
    me = PlayerState(tokens=Tokens.of("UUU"), cards=owned("L1-12", "L1-17"))  # 2 crowns
    state = make_state(SPARSE, me=me, other=PlayerState(tokens=Tokens.of("R")), pyramid=(("L1-02",), (), ()))
    assert card.crowns == 1
    after = apply(state, Buy("L1-02", Tokens.of("UUU")))
    assert after.phase == "ability" and set(legal_actions(after)) == {ChooseRoyal(r) for r in after.royals}
    stolen = apply(after, ChooseRoyal("R1"))  # R1: steal
    assert list(legal_actions(stolen)) == [Steal(Token.RED)]
    done = apply(stolen, Steal(Token.RED))
    assert done.players[0].royals == ("R1",) and "R1" not in done.royals and done.current == 1
    assert done.players[0].crown_claims == 1


def test_six_crowns_gives_a_second_royal_but_three_again_does_not() -> None:
    me = PlayerState(tokens=Tokens.of("UUU"), cards=owned("L1-22", "L1-12", "L1-17"), royals=("R4",),
                     crown_claims=1)  # 3 crowns, first royal already taken
    state = make_state(SPARSE, me=me, pyramid=(("L1-02",), (), ()))
    after = apply(state, Buy("L1-02", Tokens.of("UUU")))  # 4 crowns: nothing
    assert after.current == 1 and after.players[0].royals == ("R4",)
    me6 = replace(me, cards=owned("L3-01", "L1-22", "L1-12", "L1-17"))  # 5 crowns
    state6 = make_state(SPARSE, me=me6, pyramid=(("L1-02",), (), ()))
    after6 = apply(state6, Buy("L1-02", Tokens.of("UUU")))
    assert after6.phase == "ability" and after6.pending == ("royal",)
    done = apply(after6, ChooseRoyal("R2"))  # extra turn
    assert done.current == 0 and done.players[0].royals == ("R4", "R2")


# --- end of turn --------------------------------------------------------------------------

def test_discard_down_to_ten_at_the_end_of_the_turn() -> None:
    me = PlayerState(tokens=Tokens.of("WWWUUUGGG"))  # 9
    state = make_state(["K....", "K....", "K.Y..", ".....", "....."], me=me)
    after = apply(state, Take(((0, 0), (1, 0), (2, 0))))  # 12 tokens
    assert after.phase == "discard" and after.current == 0
    assert validate(after, Take(((0, 0),))) is not None
    assert set(legal_actions(after)) == {Discard(t) for t in after.player.tokens.kinds()}
    one = apply(after, Discard(Token.BLACK))
    assert one.phase == "discard"
    two = apply(one, Discard(Token.WHITE))
    assert two.phase == "main" and two.current == 1 and two.players[0].tokens.total() == 10
    assert two.token_total() == SUPPLY


def test_forced_refill_when_no_mandatory_action_is_possible() -> None:
    rows = [".....", ".....", ".....", ".....", "....."]
    state = make_state(rows, me=PlayerState(reserved=("L1-02", "L1-03", "L1-04")))
    actions = list(legal_actions(state))
    assert len(actions) == 1 and isinstance(actions[0], Refill)
    assert "refilled first" in (validate(state, Take(((0, 0),))) or "")
    assert "must be refilled" in (validate(state, Pass()) or "")


def test_pass_only_when_nothing_is_possible() -> None:
    # only gold on the board, an empty bag, a full reserve and nothing affordable
    rows = ["Y....", ".Y...", "..Y..", ".....", "....."]
    me = PlayerState(tokens=Tokens.of("WWWWUUUUGGG"), reserved=("L3-08", "L3-09", "L3-10"))
    other = PlayerState(tokens=Tokens.of("GRRRRKKKKPP"))
    state = make_state(rows, me=me, other=other, pyramid=(("L3-13",), (), ()))
    assert state.bag.total() == 0
    assert list(legal_actions(state)) == [Pass()]
    after = apply(state, Pass())
    assert after.phase == "discard"  # 11 tokens at the end of the turn
    with_refill = make_state(["Y....", ".....", ".....", ".....", "....."], me=PlayerState(
        reserved=("L1-02", "L1-03", "L1-04")))
    assert "must be refilled" in (validate(with_refill, Pass()) or "")


@pytest.mark.parametrize(("cards", "royals", "condition"), [
    (("L3-13", "L2-24", "L3-02", "L3-04", "L1-28"), ("R4",), "points"),
    (("L3-12", "L3-01", "L3-03", "L2-22", "L1-02"), (), "crowns"),
    (("L3-02", "L3-01", "L2-01", "L2-03"), (), "colour:white"),
])
def test_victory_conditions(cards: tuple[str, ...], royals: tuple[str, ...], condition: str) -> None:
    colour = Token.WHITE
    t = tally(owned(*cards, colour=colour), royals)
    assert condition in t.victory


def test_a_joker_counts_in_the_colour_it_joined() -> None:
    base = owned("L3-02", "L3-01", "L2-04")  # white: 4 + 3 + 1 = 8
    assert tally(base, ()).victory == ()
    with_joker = (*base, OwnedCard("L2-21", Token.WHITE))  # joker worth 2, joined white
    assert "colour:white" in tally(with_joker, ()).victory
    elsewhere = (*base, OwnedCard("L2-21", Token.BLUE))
    assert tally(elsewhere, ()).victory == ()


def test_victory_is_reported_at_the_end_of_the_winning_turn() -> None:
    card = catalog().jewels["L2-01"]  # white, 2 points, 1 crown
    me = PlayerState(tokens=card.cost, cards=owned("L3-02", "L3-01", "L2-04"))  # 8 white points, 2 crowns
    state = make_state(SPARSE, me=me, pyramid=((), ("L2-01",), ()))
    assert state.players[0].tally().victory == ()
    after = apply(state, Buy("L2-01", card.cost))  # 10 white points, 3 crowns: the royal comes first
    assert after.phase == "ability" and after.winner is None
    done = apply(after, ChooseRoyal("R4"))
    assert done.phase == "over" and done.winner == 0
    assert done.victory == ("colour:white",)
    assert list(legal_actions(done)) == []
    assert validate(done, Take(((0, 0),))) == "the game is over"


def test_apply_never_changes_its_input() -> None:
    state = make_state(FULL)
    snapshot = repr(state)
    apply(state, Take(((0, 0),)))
    assert repr(state) == snapshot
