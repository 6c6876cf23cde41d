"""The full two-player game: state, actions, legal actions, validation and ``apply``.

The design keeps the three apart, OpenSpiel style:

* :class:`State` is an immutable snapshot (board, bag, players, pyramid, decks, royals,
  privileges, whose turn, and which decision is awaited).
* :func:`legal_actions` yields every legal decision in a state; :func:`validate` explains why an
  action is not legal (``None`` when it is).
* :func:`apply` returns the new state; it never changes its input.

A turn is a sequence of decisions. In phase ``"main"`` the player may use privileges
(:class:`UsePrivilege`) and refill the board (:class:`Refill`, after which the phase is
``"mandatory"``), then takes exactly one mandatory action: :class:`Take`, :class:`Reserve` or
:class:`Buy`. Abilities that need a choice follow in phase ``"ability"`` (:class:`TakeMatching`,
:class:`Steal`, :class:`ChooseRoyal`); abilities without a choice (extra turn, take a privilege)
and abilities with nothing to choose from are resolved automatically. A player holding more
than 10 tokens then discards one token at a time (phase ``"discard"``). Victory is checked at the
end of the turn; the game is then ``"over"``.

Randomness (shuffling decks, the order tokens leave the bag) never happens inside
:func:`apply`: decks are shuffled once by :func:`new_game`, and :class:`Refill` carries the
order in which the bag's tokens are drawn (:func:`random_refill` draws one).

When no mandatory action is possible and the board cannot be refilled (the bag is empty), the
rules are silent; the engine then offers :class:`Pass`, which ends the turn.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Protocol

from scoring.errors import ScoringError
from scoring.splendor_duel.board import Board, Cell, check_take, take_lines
from scoring.splendor_duel.cards import JewelCard, catalog
from scoring.splendor_duel.final import OwnedCard, Tally, tally
from scoring.splendor_duel.rules import rules
from scoring.splendor_duel.tokens import GEMS, TOKEN_ORDER, Token, Tokens

__all__ = [
    "Action",
    "Buy",
    "ChooseRoyal",
    "Discard",
    "IllegalAction",
    "Pass",
    "PlayerState",
    "Refill",
    "Reserve",
    "State",
    "Steal",
    "Take",
    "TakeMatching",
    "UsePrivilege",
    "apply",
    "effective_cost",
    "legal_actions",
    "new_game",
    "random_refill",
    "validate",
]


class IllegalAction(ScoringError):
    """:func:`apply` was given an action that :func:`validate` rejects; the message names the rule."""


class Permuter(Protocol):
    """Anything with ``permutation(n)``, such as :class:`numpy.random.Generator`."""

    def permutation(self, n: int, /) -> Sequence[int]: ...


# --- state -------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlayerState:
    """One player's belongings.

    Attributes
    ----------
    tokens
        Tokens held.
    cards
        Bought jewel cards with the colour column each sits in.
    reserved
        Ids of reserved cards (at most 3).
    royals
        Ids of royal cards taken.
    privileges
        Privilege scrolls held.
    crown_claims
        How many crown thresholds (3, then 6) have already given a royal card.
    """

    tokens: Tokens = Tokens()  # noqa: RUF009 - immutable value
    cards: tuple[OwnedCard, ...] = ()
    reserved: tuple[str, ...] = ()
    royals: tuple[str, ...] = ()
    privileges: int = 0
    crown_claims: int = 0

    def tally(self) -> Tally:
        """Points, crowns, bonuses and victory conditions of the player's cards."""
        return self._tally

    @cached_property
    def _tally(self) -> Tally:
        return tally(self.cards, self.royals)


@dataclass(frozen=True)
class State:
    """A complete game position.

    Attributes
    ----------
    board
        The token board.
    bag
        Tokens in the bag.
    players
        Both players; player 0 starts the game.
    privilege_supply
        Privileges not held by either player.
    pyramid
        Face-up card ids per level, level 1 first (5, 4 and 3 cards while the decks last).
    decks
        Face-down card ids per level, level 1 first, top card first.
    royals
        Royal card ids still available.
    current
        The player to decide (0 or 1).
    phase
        ``"main"``, ``"mandatory"`` (after a refill), ``"ability"``, ``"discard"`` or ``"over"``.
    pending
        Abilities still to resolve this turn: ``"matching:<letter>"``, ``"steal"``, ``"royal"``,
        ``"privilege"``, ``"extra_turn"``.
    extra_turn
        The current player plays again after this turn.
    turn
        Number of turns completed.
    winner
        The winning player once the game is over.
    victory
        The victory conditions the winner met.
    """

    board: Board
    bag: Tokens
    players: tuple[PlayerState, PlayerState]
    privilege_supply: int
    pyramid: tuple[tuple[str, ...], ...]
    decks: tuple[tuple[str, ...], ...]
    royals: tuple[str, ...]
    current: int = 0
    phase: str = "main"
    pending: tuple[str, ...] = ()
    extra_turn: bool = False
    turn: int = 0
    winner: int | None = None
    victory: tuple[str, ...] = ()

    @property
    def player(self) -> PlayerState:
        """The player to decide."""
        return self.players[self.current]

    @property
    def opponent(self) -> PlayerState:
        return self.players[1 - self.current]

    def token_total(self) -> Tokens:
        """Board + bag + both players' tokens (always the 25-token supply)."""
        return self.board.counts() + self.bag + self.players[0].tokens + self.players[1].tokens

    def privilege_total(self) -> int:
        """Supply + both players' privileges (always 3)."""
        return self.privilege_supply + self.players[0].privileges + self.players[1].privileges

    def with_player(self, index: int, player: PlayerState) -> State:
        players = list(self.players)
        players[index] = player
        return replace(self, players=(players[0], players[1]))


def new_game(rng: Permuter) -> State:
    """Set up a game: shuffled decks, the pyramid (5/4/3), the board filled in spiral order from
    the shuffled bag, 3 privileges of which the second player takes 1.

    Parameters
    ----------
    rng
        A seeded generator with ``permutation(n)``, e.g. ``numpy.random.default_rng(seed)``.
    """
    r = rules()
    table = catalog()
    decks = []
    pyramid = []
    for level, shown in zip((1, 2, 3), r.pyramid, strict=True):
        ids = table.level(level)
        deck = tuple(ids[int(i)] for i in rng.permutation(len(ids)))
        pyramid.append(deck[:shown])
        decks.append(deck[shown:])
    supply = [t for t, n in zip(TOKEN_ORDER, r.token_supply, strict=True) for _ in range(n)]
    order = [supply[int(i)] for i in rng.permutation(len(supply))]
    second = PlayerState(privileges=r.start_privileges_second_player)
    return State(
        board=Board.empty().refill(order), bag=Tokens(), players=(PlayerState(), second),
        privilege_supply=r.privileges - r.start_privileges_second_player, pyramid=tuple(pyramid),
        decks=tuple(decks), royals=tuple(table.royals))


# --- actions -----------------------------------------------------------------------------


@dataclass(frozen=True)
class UsePrivilege:
    """Optional: return a privilege to take the gem or pearl at ``cell``."""

    cell: Cell


@dataclass(frozen=True)
class Refill:
    """Optional (forced when no mandatory action is possible): put every bag token on the board;
    ``order`` is the drawing order, filling the empty cells in spiral order."""

    order: tuple[Token, ...]


@dataclass(frozen=True)
class Take:
    """Mandatory: take 1-3 gems/pearls adjacent in one straight line."""

    cells: tuple[Cell, ...]


@dataclass(frozen=True)
class Reserve:
    """Mandatory: take the gold at ``gold`` and reserve ``card`` from the pyramid, or, when
    ``card`` is None, the top card of the level-``level`` deck."""

    gold: Cell
    card: str | None = None
    level: int | None = None


@dataclass(frozen=True)
class Buy:
    """Mandatory: buy ``card`` from the pyramid or the player's reserve, paying ``payment``
    (gold standing in for any shortfall); a joker needs ``colour``, the colour it joins."""

    card: str
    payment: Tokens
    colour: Token | None = None


@dataclass(frozen=True)
class TakeMatching:
    """Ability: take the token at ``cell``, of the bought card's colour."""

    cell: Cell


@dataclass(frozen=True)
class Steal:
    """Ability: take one gem or pearl of kind ``token`` from the opponent."""

    token: Token


@dataclass(frozen=True)
class ChooseRoyal:
    """Crowns reached 3 or 6: take an available royal card."""

    royal: str


@dataclass(frozen=True)
class Discard:
    """End of turn with more than 10 tokens: return one ``token`` to the bag."""

    token: Token


@dataclass(frozen=True)
class Pass:
    """No mandatory action is possible and the bag is empty: end the turn."""


Action = UsePrivilege | Refill | Take | Reserve | Buy | TakeMatching | Steal | ChooseRoyal | Discard | Pass


# --- helpers -----------------------------------------------------------------------------


def effective_cost(card: JewelCard, bonuses: Tokens) -> Tokens:
    """What ``card`` costs a player with ``bonuses``: each gem colour reduced by its bonuses,
    never below 0; pearls never reduced."""
    c, b = card.cost.counts, bonuses.counts  # the five gem colours come first in TOKEN_ORDER
    return Tokens((max(0, c[0] - b[0]), max(0, c[1] - b[1]), max(0, c[2] - b[2]), max(0, c[3] - b[3]),
                   max(0, c[4] - b[4]), c[5], c[6]))


def _gain_privilege(state: State, who: int) -> State:
    """``who`` takes a privilege: from the supply, else from the opponent; nothing when holding 3."""
    me = state.players[who]
    if me.privileges >= rules().privileges:
        return state
    if state.privilege_supply > 0:
        state = replace(state, privilege_supply=state.privilege_supply - 1)
    else:
        other = state.players[1 - who]
        state = state.with_player(1 - who, replace(other, privileges=other.privileges - 1))
    return state.with_player(who, replace(me, privileges=me.privileges + 1))


def _pyramid_find(state: State, card_id: str) -> tuple[int, int] | None:
    for level, row in enumerate(state.pyramid):
        if card_id in row:
            return level, row.index(card_id)
    return None


def _take_from_pyramid(state: State, level: int, slot: int) -> State:
    """Remove a face-up card; the slot is refilled from the deck of that level if it has cards."""
    row = list(state.pyramid[level])
    deck = state.decks[level]
    if deck:
        row[slot] = deck[0]
        deck = deck[1:]
    else:
        del row[slot]
    pyramid = tuple(tuple(row) if i == level else r for i, r in enumerate(state.pyramid))
    decks = tuple(deck if i == level else d for i, d in enumerate(state.decks))
    return replace(state, pyramid=pyramid, decks=decks)


def _fmt(cell: Cell) -> str:
    return f"({cell[0]},{cell[1]})"


def _payments(need: Tokens, have: Tokens) -> Iterator[Tokens]:
    """Every way to pay ``need`` from ``have``, gold covering any shortfall."""
    gold_index = TOKEN_ORDER.index(Token.GOLD)
    gold = have.counts[gold_index]
    pairs = [(i, n, h) for i, (n, h) in enumerate(zip(need.counts, have.counts, strict=True))
             if i != gold_index and n > 0]
    if sum(max(0, n - h) for _, n, h in pairs) > gold:
        return
    ranges = [range(max(0, n - gold), min(n, h) + 1) for _, n, h in pairs]
    for combo in itertools.product(*ranges):
        short = sum(n - k for (_, n, _), k in zip(pairs, combo, strict=True))
        if short <= gold:
            counts = [0] * len(TOKEN_ORDER)
            for (i, _, _), k in zip(pairs, combo, strict=True):
                counts[i] = k
            counts[gold_index] = short
            yield Tokens(tuple(counts))  # type: ignore[arg-type]


def _buyable(state: State) -> Iterator[str]:
    for row in state.pyramid:
        yield from row
    yield from state.player.reserved


# --- legal actions -----------------------------------------------------------------------


def _mandatory(state: State) -> Iterator[Action]:
    board = state.board
    player = state.player
    r = rules()
    for cells in take_lines(board):
        yield Take(cells)
    if len(player.reserved) < r.max_reserved:
        for gold in board.cells_with(Token.GOLD.value):
            for row in state.pyramid:
                for card_id in row:
                    yield Reserve(gold, card=card_id)
            for level, deck in enumerate(state.decks, start=1):
                if deck:
                    yield Reserve(gold, level=level)
    bonuses = player.tally().bonuses
    jokers = tuple(t for t in GEMS if bonuses[t] > 0)
    table = catalog()
    have = player.tokens.counts
    gold = player.tokens[Token.GOLD]
    for card_id in _buyable(state):
        card = table.jewels[card_id]
        if card.joker and not jokers:
            continue
        need = effective_cost(card, bonuses)
        if sum(max(0, n - h) for n, h in zip(need.counts, have, strict=True)) > gold:
            continue  # not affordable even with every gold
        colours: tuple[Token | None, ...] = jokers if card.joker else (None,)
        for payment in _payments(need, player.tokens):
            for colour in colours:
                yield Buy(card_id, payment, colour)


def legal_actions(state: State) -> Iterator[Action]:
    """Yield every legal action in ``state`` (nothing once the game is over).

    Purchases are yielded once per distinct payment (how much gold stands in for which
    colour) and, for a joker, per colour it may join. A refill is yielded once, drawing the
    bag's tokens in :data:`~scoring.splendor_duel.tokens.TOKEN_ORDER`; every other drawing
    order is legal too (see :func:`random_refill`).
    """
    phase = state.phase
    player = state.player
    if phase in ("main", "mandatory"):
        if phase == "main" and player.privileges > 0:
            for cell in state.board.cells():
                token = state.board.token(cell)
                if token is not None and token != Token.GOLD:
                    yield UsePrivilege(cell)
        can_refill = phase == "main" and state.bag.total() > 0
        if can_refill:
            yield Refill(tuple(t for t in TOKEN_ORDER for _ in range(state.bag[t])))
        any_mandatory = False
        for action in _mandatory(state):
            any_mandatory = True
            yield action
        if not any_mandatory and not can_refill:
            yield Pass()
    elif phase == "ability":
        head = state.pending[0]
        if head.startswith("matching:"):
            for cell in state.board.cells_with(head.split(":")[1]):
                yield TakeMatching(cell)
        elif head == "steal":
            for t in state.opponent.tokens.kinds():
                if t != Token.GOLD:
                    yield Steal(t)
        elif head == "royal":
            for rid in state.royals:
                yield ChooseRoyal(rid)
    elif phase == "discard":
        for t in player.tokens.kinds():
            yield Discard(t)


# --- validation --------------------------------------------------------------------------


def _has_mandatory(state: State) -> bool:
    return next(_mandatory(state), None) is not None


def _validate_main(state: State, action: Action) -> str | None:
    r = rules()
    player = state.player
    board = state.board
    if isinstance(action, UsePrivilege):
        if state.phase != "main":
            return "privileges are used before refilling the board, not after"
        if player.privileges <= 0:
            return "the player holds no privilege"
        if not board.inside(action.cell):
            return f"cell {_fmt(action.cell)} is outside the board"
        token = board.token(action.cell)
        if token is None:
            return f"a privilege takes a token, but cell {_fmt(action.cell)} is empty"
        if token == Token.GOLD:
            return "a privilege never takes gold"
        return None
    if isinstance(action, Refill):
        if state.phase != "main":
            return "the board is refilled at most once per turn, before the mandatory action"
        if state.bag.total() == 0:
            return "the bag is empty: the board cannot be refilled"
        if Tokens.of(action.order) != state.bag:
            return (f"a refill places every token of the bag ({state.bag.letters()}), "
                    f"not {''.join(t.value for t in action.order)}")
        return None
    if isinstance(action, Pass):
        if state.phase == "main" and state.bag.total() > 0:
            return "no mandatory action is possible: the board must be refilled"
        if _has_mandatory(state):
            return "a mandatory action is possible: take tokens, reserve or buy"
        return None
    if not _has_mandatory(state):
        return "no mandatory action is possible: the board must be refilled first"
    if isinstance(action, Take):
        verdict = check_take(board, action.cells)
        return None if verdict.legal else verdict.reason
    if isinstance(action, Reserve):
        if len(player.reserved) >= r.max_reserved:
            return f"the player already holds {r.max_reserved} reserved cards"
        if not board.inside(action.gold) or board.token(action.gold) != Token.GOLD:
            if not board.cells_with(Token.GOLD.value):
                return "reserving needs a gold token on the board, and there is none"
            return f"cell {_fmt(action.gold)} holds no gold"
        if action.card is not None:
            if action.level is not None:
                return "reserve either a face-up card or the top of a deck, not both"
            if _pyramid_find(state, action.card) is None:
                return f"card {action.card} is not face up in the pyramid"
            return None
        if action.level not in (1, 2, 3):
            return "name a face-up card or a deck level 1-3 to reserve from"
        if not state.decks[action.level - 1]:
            return f"the level-{action.level} deck is empty"
        return None
    if isinstance(action, Buy):
        return _validate_buy(state, action)
    return f"{type(action).__name__} is not a main action"


def _validate_buy(state: State, action: Buy) -> str | None:
    player = state.player
    card = catalog().jewels.get(action.card)
    if card is None:
        return f"unknown card {action.card!r}"
    if _pyramid_find(state, action.card) is None and action.card not in player.reserved:
        return f"card {action.card} is neither face up in the pyramid nor reserved by the player"
    bonuses = player.tally().bonuses
    if card.joker:
        if action.colour is None:
            if not any(bonuses[t] for t in GEMS):
                return "a joker needs a card with a bonus to join, and the player has none"
            return "a joker must name the colour of the card it joins"
        if action.colour not in GEMS or bonuses[action.colour] == 0:
            return f"a joker joins a card with a bonus; the player has no {action.colour.colour_name} card"
    elif action.colour is not None and action.colour != card.colour:
        return f"card {card.id} is not a joker; its colour is fixed"
    need = effective_cost(card, bonuses)
    pay = action.payment
    if not pay.is_valid():
        return "a payment cannot hold negative counts"
    if not pay <= player.tokens:
        return f"the payment {pay.letters()} is more than the player holds ({player.tokens.letters()})"
    for t in TOKEN_ORDER:
        if t != Token.GOLD and pay[t] > need[t]:
            return f"pays {pay[t]} {t.colour_name} but the card needs only {need[t]} after bonuses"
    short = sum(need[t] - pay[t] for t in TOKEN_ORDER if t != Token.GOLD)
    if pay[Token.GOLD] != short:
        return (f"the card needs {need.letters() or 'nothing'} after bonuses; gold must cover exactly "
                f"the {short} missing token(s), not {pay[Token.GOLD]}")
    return None


def validate(state: State, action: Action) -> str | None:
    """Why ``action`` is illegal in ``state``: a sentence naming the broken rule, or None."""
    if state.phase == "over":
        return "the game is over"
    if state.phase in ("main", "mandatory"):
        if isinstance(action, TakeMatching | Steal | ChooseRoyal | Discard):
            return f"{type(action).__name__} only follows a purchase or ends a turn"
        return _validate_main(state, action)
    if state.phase == "ability":
        head = state.pending[0]
        if head.startswith("matching:"):
            letter = head.split(":")[1]
            if not isinstance(action, TakeMatching):
                return f"the bought card's ability first: take a {Token(letter).colour_name} token"
            if not state.board.inside(action.cell) or state.board.at(action.cell) != letter:
                return f"cell {_fmt(action.cell)} holds no {Token(letter).colour_name} token"
            return None
        if head == "steal":
            if not isinstance(action, Steal):
                return "the steal ability first: take a gem or pearl from the opponent"
            if action.token == Token.GOLD:
                return "gold cannot be stolen"
            if state.opponent.tokens[action.token] == 0:
                return f"the opponent has no {action.token.colour_name} token"
            return None
        if not isinstance(action, ChooseRoyal):
            return "crowns reached a threshold: choose a royal card first"
        if action.royal not in state.royals:
            return f"royal card {action.royal} is not available"
        return None
    if not isinstance(action, Discard):
        return f"the player holds more than {rules().hand_limit} tokens and must discard"
    if state.player.tokens[action.token] == 0:
        return f"the player holds no {action.token.colour_name} token"
    return None


# --- apply -------------------------------------------------------------------------------


def apply(state: State, action: Action) -> State:
    """The state after ``action``.

    Raises
    ------
    IllegalAction
        When :func:`validate` rejects the action; the message is its reason.
    """
    reason = validate(state, action)
    if reason is not None:
        raise IllegalAction(reason)
    me = state.current
    player = state.player
    if isinstance(action, UsePrivilege):
        token = state.board.token(action.cell)
        assert token is not None
        state = replace(state, board=state.board.replace([(action.cell, ".")]),
                        privilege_supply=state.privilege_supply + 1)
        return state.with_player(me, replace(player, tokens=player.tokens.plus(token),
                                             privileges=player.privileges - 1))
    if isinstance(action, Refill):
        state = replace(state, board=state.board.refill(action.order), bag=Tokens(), phase="mandatory")
        return _gain_privilege(state, 1 - me)
    if isinstance(action, Take):
        tokens = [state.board.token(c) for c in action.cells]
        verdict = check_take(state.board, action.cells)
        state = replace(state, board=state.board.replace((c, ".") for c in action.cells))
        taken = Tokens.of(t for t in tokens if t)
        state = state.with_player(me, replace(player, tokens=player.tokens + taken))
        if verdict.privilege_to_opponent:
            state = _gain_privilege(state, 1 - me)
        return _settle(replace(state, phase="ability", pending=()))
    if isinstance(action, Reserve):
        if action.card is not None:
            found = _pyramid_find(state, action.card)
            assert found is not None
            card_id = action.card
            state = _take_from_pyramid(state, *found)
        else:
            assert action.level is not None
            deck = state.decks[action.level - 1]
            card_id = deck[0]
            state = replace(state, decks=tuple(d[1:] if i == action.level - 1 else d
                                                for i, d in enumerate(state.decks)))
        state = replace(state, board=state.board.replace([(action.gold, ".")]))
        state = state.with_player(me, replace(player, tokens=player.tokens.plus(Token.GOLD),
                                              reserved=(*player.reserved, card_id)))
        return _settle(replace(state, phase="ability", pending=()))
    if isinstance(action, Buy):
        return _apply_buy(state, action)
    if isinstance(action, TakeMatching):
        token = state.board.token(action.cell)
        assert token is not None
        state = replace(state, board=state.board.replace([(action.cell, ".")]), pending=state.pending[1:])
        return _settle(state.with_player(me, replace(player, tokens=player.tokens.plus(token))))
    if isinstance(action, Steal):
        other = state.opponent
        state = state.with_player(1 - me, replace(other, tokens=other.tokens.plus(action.token, -1)))
        state = state.with_player(me, replace(player, tokens=player.tokens.plus(action.token)))
        return _settle(replace(state, pending=state.pending[1:]))
    if isinstance(action, ChooseRoyal):
        royal = catalog().royals[action.royal]
        state = replace(state, royals=tuple(r for r in state.royals if r != action.royal),
                        pending=(*_ability_steps(royal.abilities, None), *state.pending[1:]))
        state = state.with_player(me, replace(player, royals=(*player.royals, action.royal)))
        return _settle(state)
    if isinstance(action, Discard):
        state = replace(state, bag=state.bag.plus(action.token))
        state = state.with_player(me, replace(player, tokens=player.tokens.plus(action.token, -1)))
        return _end_turn(state)
    return _end_turn(state)  # Pass


def _ability_steps(abilities: Sequence[str], colour: Token | None) -> tuple[str, ...]:
    steps: list[str] = []
    for ability in abilities:
        if ability == "extra_turn":
            steps.append("extra_turn")
        elif ability == "take_privilege":
            steps.append("privilege")
        elif ability == "steal_token":
            steps.append("steal")
        elif ability == "take_matching_token_from_board" and colour is not None:
            steps.append(f"matching:{colour.value}")
    return tuple(steps)


def _apply_buy(state: State, action: Buy) -> State:
    me = state.current
    player = state.player
    card = catalog().jewels[action.card]
    found = _pyramid_find(state, action.card)
    if found is not None:
        state = _take_from_pyramid(state, *found)
        reserved = player.reserved
    else:
        reserved = tuple(c for c in player.reserved if c != action.card)
    colour = action.colour if card.joker else card.colour
    crowns_before = player.tally().crowns
    player = replace(player, tokens=player.tokens - action.payment, reserved=reserved,
                     cards=(*player.cards, OwnedCard(card.id, colour)))
    crowns = crowns_before + card.crowns
    due = sum(1 for t in rules().crown_thresholds if crowns >= t)
    royals = max(0, due - player.crown_claims)
    player = replace(player, crown_claims=max(due, player.crown_claims))
    state = replace(state, bag=state.bag + action.payment).with_player(me, player)
    pending = (*_ability_steps(card.abilities, colour), *(["royal"] * royals))
    return _settle(replace(state, phase="ability", pending=pending))


def _settle(state: State) -> State:
    """Resolve pending abilities that need no choice; stop at the first one that does."""
    while state.pending:
        head = state.pending[0]
        rest = state.pending[1:]
        if head == "extra_turn":
            state = replace(state, extra_turn=True, pending=rest)
        elif head == "privilege":
            state = replace(_gain_privilege(state, state.current), pending=rest)
        elif head.startswith("matching:"):
            if state.board.cells_with(head.split(":")[1]):
                return state
            state = replace(state, pending=rest)
        elif head == "steal":
            if any(t != Token.GOLD for t in state.opponent.tokens.kinds()):
                return state
            state = replace(state, pending=rest)
        elif head == "royal":
            if state.royals:
                return state
            state = replace(state, pending=rest)
        else:  # pragma: no cover - pending entries are made above
            raise AssertionError(head)
    return _end_turn(state)


def _end_turn(state: State) -> State:
    """Discard down to 10, then check victory, then pass the turn (or play the extra turn)."""
    if state.player.tokens.total() > rules().hand_limit:
        return replace(state, phase="discard", pending=())
    victory = state.player.tally().victory
    if victory:
        return replace(state, phase="over", pending=(), winner=state.current, victory=victory,
                       turn=state.turn + 1)
    nxt = state.current if state.extra_turn else 1 - state.current
    return replace(state, current=nxt, phase="main", pending=(), extra_turn=False, turn=state.turn + 1)


def random_refill(state: State, rng: Permuter) -> Refill:
    """A refill drawing the bag's tokens in a random order."""
    tokens = [t for t in TOKEN_ORDER for _ in range(state.bag[t])]
    return Refill(tuple(tokens[int(i)] for i in rng.permutation(len(tokens))))
