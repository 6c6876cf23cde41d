"""Silver & Gold game state and turns.

A :class:`GameState` holds the score sheets, the trophies left on the round card, the display and
deck, each player's active cards and completed pile, the start player, and the round and turn.
:func:`apply_turn` plays one expedition card for every player at once and returns a new state:

1. every player's marks are checked (:func:`~scoring.silver_gold.placement.check_turn`); coins and
   palms are scored (a palm: 1 + the palms on the face-up display cards, first 4 scorings only);
2. in turn order from the start player, each player claims the highest trophy left for each newly
   completed coin row, moves completed cards to the score pile and takes a replacement from the
   display or the deck; the display is refilled from the deck after each player;
3. the start player passes clockwise; after 7 turns the round ends, after 4 rounds the game.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from scoring import fields
from scoring.errors import InvalidInput
from scoring.silver_gold.catalog import Card, Catalog, Rules, cells_from_json, load_rules
from scoring.silver_gold.final import CompletedCard, FinalSheet
from scoring.silver_gold.placement import CardTurn, Verdict, check_turn
from scoring.silver_gold.shapes import Cell, Shape

__all__ = [
    "DECK",
    "ActiveCard",
    "GameState",
    "IllegalTurn",
    "PlayerMove",
    "PlayerState",
    "ScoreSheet",
    "TrophyClaims",
    "apply_turn",
    "claim_trophies",
    "new_game",
    "state_from_json",
    "state_to_json",
]

#: ``PlayerMove.take`` value meaning "the top card of the deck".
DECK = "deck"


class IllegalTurn(InvalidInput):
    """A player's marks break the rules; ``problem`` is the player-readable reason."""


@dataclass(frozen=True)
class ActiveCard:
    """A map card in front of a player and its marked cells."""

    card: Card
    marked: frozenset[Cell] = frozenset()

    @property
    def complete(self) -> bool:
        return self.card.cells <= self.marked


@dataclass(frozen=True)
class ScoreSheet:
    """A player's score sheet.

    Attributes
    ----------
    coins : int
        Coin boxes crossed (0–12), filled top row first.
    trophies : tuple of int
        Trophy values written beside completed coin rows.
    rows_scored : int
        Completed coin rows already scored (a row scored after the trophies ran out earns nothing).
    palms : tuple of int
        Values in the palm boxes (at most 4).
    """

    coins: int = 0
    trophies: tuple[int, ...] = ()
    rows_scored: int = 0
    palms: tuple[int, ...] = ()


@dataclass(frozen=True)
class PlayerState:
    name: str
    sheet: ScoreSheet
    active: tuple[ActiveCard, ...]
    completed: tuple[Card, ...] = ()


@dataclass(frozen=True)
class PlayerMove:
    """One player's part of a turn.

    Attributes
    ----------
    marks : tuple of frozenset of Cell
        Cells marked this turn on each active card, in the order of ``PlayerState.active``.
    take : tuple of str
        For each card completed this turn (in active-card order), the replacement: the id of a display
        card, the id of the card drawn from the deck, or :data:`DECK` for the top of the deck.
    """

    marks: tuple[frozenset[Cell], ...]
    take: tuple[str, ...] = ()


@dataclass(frozen=True)
class GameState:
    """The whole table between turns (immutable; :func:`apply_turn` returns a new one).

    ``deck`` is in draw order (first = top). ``trophies_left`` are the values not yet crossed on the
    round card. ``round`` and ``turn`` count from 1; ``events`` describe the last turn in words.
    """

    players: tuple[PlayerState, ...]
    display: tuple[Card, ...]
    deck: tuple[Card, ...]
    trophies_left: tuple[int, ...]
    start_player: int = 0
    round: int = 1
    turn: int = 1
    rules: Rules | None = None
    events: tuple[str, ...] = ()

    @property
    def settings(self) -> Rules:
        return self.rules or load_rules()

    @property
    def finished(self) -> bool:
        return self.round > self.settings.rounds

    @property
    def display_palms(self) -> int:
        """Palm trees on the face-up display cards."""
        return sum(card.palm_count for card in self.display)

    @property
    def turn_order(self) -> tuple[int, ...]:
        """Player indices from the start player, clockwise."""
        n = len(self.players)
        return tuple((self.start_player + k) % n for k in range(n))

    def final_sheets(self) -> tuple[FinalSheet, ...]:
        """The players' piles and sheets in the form :func:`~scoring.silver_gold.final.final_standings`
        scores."""
        return tuple(
            FinalSheet(p.name, tuple(CompletedCard.of(c) for c in p.completed), p.sheet.coins,
                       p.sheet.trophies, p.sheet.palms)
            for p in self.players
        )


def new_game(catalog: Catalog, names: Sequence[str], active: Sequence[Sequence[str]],
             display: Sequence[str], deck: Sequence[str], *, start_player: int = 0,
             trophy_track: Iterable[int] | None = None, rules: Rules | None = None) -> GameState:
    """Set up a game from card ids: each player's kept cards, the display and the deck (top first).

    Raises
    ------
    InvalidInput
        For unknown ids, a card used twice, or counts that do not fit the rules.
    """
    rules = rules or load_rules()
    if not names:
        raise InvalidInput("names", "no players")
    if len(active) != len(names):
        raise InvalidInput("active", f"{len(active)} hands for {len(names)} players")
    if not 0 <= start_player < len(names):
        raise InvalidInput("start_player", f"{start_player} is not a player index")
    seen: set[str] = set()

    def take(card_id: str, where: str) -> Card:
        card = catalog.card(card_id, where)
        if card.id in seen:
            raise InvalidInput(where, f"card {card.id!r} is used twice")
        seen.add(card.id)
        return card

    players = []
    for i, (name, hand) in enumerate(zip(names, active, strict=True)):
        if len(hand) != rules.active_cards:
            raise InvalidInput(f"active[{i}]", f"{len(hand)} cards; a player keeps {rules.active_cards}")
        cards = tuple(ActiveCard(take(cid, f"active[{i}][{j}]")) for j, cid in enumerate(hand))
        players.append(PlayerState(name, ScoreSheet(), cards))
    if len(display) > rules.display_size:
        raise InvalidInput("display", f"{len(display)} cards; the display holds {rules.display_size}")
    shown = tuple(take(cid, f"display[{j}]") for j, cid in enumerate(display))
    pile = tuple(take(cid, f"deck[{j}]") for j, cid in enumerate(deck))
    track = tuple(sorted(rules.trophy_track if trophy_track is None else trophy_track, reverse=True))
    return GameState(tuple(players), shown, pile, track, start_player, 1, 1, rules)


def _mark(state: GameState, shape: Shape,
          moves: Sequence[PlayerMove]) -> tuple[list[PlayerState], list[str]]:
    """Step 2: every player marks at once; coins and palms are scored."""
    rules = state.settings
    players: list[PlayerState] = []
    events: list[str] = []
    for i, (player, move) in enumerate(zip(state.players, moves, strict=True)):
        where = f"moves[{i}]"
        if len(move.marks) != len(player.active):
            raise InvalidInput(f"{where}.marks",
                               f"{len(move.marks)} mark sets for {len(player.active)} cards")
        turns = [CardTurn(a.card, a.marked, frozenset(m))
                 for a, m in zip(player.active, move.marks, strict=True)]
        verdict: Verdict = check_turn(
            shape, turns, display_palms=state.display_palms, coins_before=player.sheet.coins,
            palm_boxes_used=len(player.sheet.palms), rules=rules)
        if not verdict.legal:
            raise IllegalTurn(where, f"{player.name}: {verdict.reason}")
        sheet = replace(player.sheet, coins=player.sheet.coins + verdict.coins,
                        palms=player.sheet.palms + verdict.palms)
        active = tuple(ActiveCard(a.card, a.marked | t.marked)
                       for a, t in zip(player.active, turns, strict=True))
        if verdict.coins:
            boxes = f"{verdict.coins} coin box{'es' if verdict.coins > 1 else ''}"
            events.append(f"{player.name} crosses {boxes}")
        for value in verdict.palms:
            events.append(f"{player.name} scores {value} for a palm")
        players.append(replace(player, sheet=sheet, active=active))
    return players, events


@dataclass(frozen=True)
class TrophyClaims:
    """What :func:`claim_trophies` decided, per player in the order given.

    Attributes
    ----------
    trophies : tuple of tuple of int
        The trophy values each player claims now.
    unrewarded : tuple of int
        Coin rows each player completed when no trophy was left (they earn nothing).
    rows_scored : tuple of int
        Completed coin rows scored so far, after these claims.
    trophies_left : tuple of int
        The values still on the round card, highest first.
    """

    trophies: tuple[tuple[int, ...], ...]
    unrewarded: tuple[int, ...]
    rows_scored: tuple[int, ...]
    trophies_left: tuple[int, ...]


def claim_trophies(trophies_left: Iterable[int], rows_scored: Sequence[int], coins: Sequence[int],
                   rules: Rules | None = None) -> TrophyClaims:
    """Claim trophies for newly completed coin rows, in turn order.

    Parameters
    ----------
    trophies_left : iterable of int
        The values not yet crossed on the round card (any order; the highest is claimed first).
    rows_scored : sequence of int
        For each player in turn order (the start player first), the coin rows already scored.
    coins : sequence of int
        For each player in the same order, the coin boxes crossed now.
    rules : Rules, optional

    Returns
    -------
    TrophyClaims
        Each player claims the highest trophy left for each coin row completed since
        ``rows_scored``; a row completed when the track is empty earns nothing.

    Raises
    ------
    InvalidInput
        For lists of different lengths or numbers out of range.
    """
    rules = rules or load_rules()
    if len(rows_scored) != len(coins):
        raise InvalidInput("rows_scored", f"{len(rows_scored)} values for {len(coins)} players")
    track = sorted((fields.integer(v, "trophies_left", low=0) for v in trophies_left), reverse=True)
    claimed: list[tuple[int, ...]] = []
    unrewarded: list[int] = []
    scored: list[int] = []
    for i, (done, boxes) in enumerate(zip(rows_scored, coins, strict=True)):
        boxes = fields.integer(boxes, f"coins[{i}]", 0, rules.coin_boxes)
        rows = boxes // rules.coins_per_row
        done = fields.integer(done, f"rows_scored[{i}]", 0, rules.coin_rows)
        new = track[:max(0, rows - done)]
        del track[:len(new)]
        claimed.append(tuple(new))
        unrewarded.append(max(0, rows - done) - len(new))
        scored.append(max(rows, done))
    return TrophyClaims(tuple(claimed), tuple(unrewarded), tuple(scored), tuple(track))


def _draw(pile: list[Card], display: list[Card], choice: str, where: str) -> Card:
    if choice == DECK:
        if not pile:
            raise InvalidInput(where, "the deck is empty")
        return pile.pop(0)
    for source in (display, pile):
        for k, card in enumerate(source):
            if card.id == choice:
                return source.pop(k)
    raise InvalidInput(where, f"card {choice!r} is neither on the display nor in the deck")


def apply_turn(state: GameState, shape: Shape, moves: Sequence[PlayerMove]) -> GameState:
    """Play one expedition card: every player's marks, then scoring in turn order.

    Parameters
    ----------
    state : GameState
    shape : Shape
        The expedition card turned up.
    moves : sequence of PlayerMove
        One per player, in player order.

    Returns
    -------
    GameState
        The next state, with ``events`` describing the turn.

    Raises
    ------
    IllegalTurn
        When a player's marks break the rules (field ``moves[i]``, the reason as the problem).
    InvalidInput
        For moves that do not fit the state (wrong counts, a replacement that is not available, …).
    """
    rules = state.settings
    if state.finished:
        raise InvalidInput("turn", "the game is over")
    if len(moves) != len(state.players):
        raise InvalidInput("moves", f"{len(moves)} moves for {len(state.players)} players")
    players, events = _mark(state, shape, moves)
    order = state.turn_order
    claims = claim_trophies(state.trophies_left, [players[i].sheet.rows_scored for i in order],
                            [players[i].sheet.coins for i in order], rules)
    display = list(state.display)
    pile = list(state.deck)
    for k, i in enumerate(order):
        player, move, where = players[i], moves[i], f"moves[{i}]"
        for value in claims.trophies[k]:
            events.append(f"{player.name} completes a coin row and claims trophy {value}")
        events.extend([f"{player.name} completes a coin row; no trophy is left"] * claims.unrewarded[k])
        sheet = replace(player.sheet, trophies=(*player.sheet.trophies, *claims.trophies[k]),
                        rows_scored=claims.rows_scored[k])
        done = [a for a in player.active if a.complete]
        keep = [a for a in player.active if not a.complete]
        if len(move.take) > len(done):
            raise InvalidInput(f"{where}.take",
                               f"{len(move.take)} replacements but {len(done)} cards completed")
        new_cards: list[ActiveCard] = []
        for k, finished_card in enumerate(done):
            card = finished_card.card
            events.append(f"{player.name} completes {card.id} ({card.points} points)")
            if k < len(move.take):
                card = _draw(pile, display, move.take[k], f"{where}.take[{k}]")
            elif display or pile:
                raise InvalidInput(f"{where}.take", f"{player.name} completed {len(done)} cards but chose "
                                                    f"{len(move.take)} replacements")
            else:
                continue
            new_cards.append(ActiveCard(card))
            events.append(f"{player.name} takes {card.id}")
        while len(display) < rules.display_size and pile:
            display.append(pile.pop(0))
        players[i] = replace(player, sheet=sheet, active=(*keep, *new_cards),
                             completed=(*player.completed, *(a.card for a in done)))
    turn, rnd = state.turn + 1, state.round
    if turn > rules.turns_per_round:
        turn, rnd = 1, rnd + 1
    return replace(state, players=tuple(players), display=tuple(display), deck=tuple(pile),
                   trophies_left=claims.trophies_left, start_player=(state.start_player + 1) % len(players),
                   round=rnd, turn=turn, events=tuple(events))


def state_to_json(state: GameState) -> dict[str, Any]:
    """The state as a JSON-ready dict that :func:`state_from_json` reads back."""
    return {
        "game": "silver-gold",
        "players": [
            {"name": p.name, "coins": p.sheet.coins, "trophies": list(p.sheet.trophies),
             "rows_scored": p.sheet.rows_scored, "palms": list(p.sheet.palms),
             "active": [{"id": a.card.id, "marked": [list(c) for c in sorted(a.marked)]} for a in p.active],
             "completed": [c.id for c in p.completed]}
            for p in state.players
        ],
        "display": [c.id for c in state.display],
        "deck": [c.id for c in state.deck],
        "trophies_left": list(state.trophies_left),
        "start_player": state.start_player,
        "round": state.round,
        "turn": state.turn,
        "finished": state.finished,
        "display_palms": state.display_palms,
        "events": list(state.events),
    }


def state_from_json(data: Mapping[str, Any], catalog: Catalog, rules: Rules | None = None) -> GameState:
    """Read a state written by :func:`state_to_json` (``finished`` and ``display_palms`` are ignored).

    Raises
    ------
    InvalidInput
        Naming the field: unknown or repeated card ids, marks outside a card, coins above 12, …
    """
    rules = rules or load_rules()
    data = fields.mapping(data, "state")
    used: set[str] = set()

    def card(value: Any, where: str) -> Card:
        c = catalog.card(value, where)
        if c.id in used:
            raise InvalidInput(where, f"card {c.id!r} appears twice in the game")
        used.add(c.id)
        return c

    players = []
    for i, p in enumerate(fields.player_list(data, 1, 4)):
        w = f"players[{i}]"
        coins = fields.integer(p.get("coins", 0), f"{w}.coins", 0, rules.coin_boxes)
        trophies = fields.integer_list(p.get("trophies", []), f"{w}.trophies", low=0)
        rows_scored = fields.integer(p.get("rows_scored", len(trophies)), f"{w}.rows_scored", 0,
                                     coins // rules.coins_per_row)
        if len(trophies) > rows_scored:
            raise InvalidInput(f"{w}.trophies",
                               f"{len(trophies)} trophies but {rows_scored} coin rows scored")
        palms = fields.integer_list(p.get("palms", []), f"{w}.palms", low=1, max_len=rules.palm_boxes)
        active = []
        for j, item in enumerate(fields.sequence(p.get("active", []), f"{w}.active", rules.active_cards)):
            item = fields.mapping(item, f"{w}.active[{j}]")
            c = card(item.get("id"), f"{w}.active[{j}].id")
            marked = frozenset(cells_from_json(item.get("marked", []), f"{w}.active[{j}].marked"))
            off = sorted(marked - c.cells)
            if off:
                raise InvalidInput(f"{w}.active[{j}].marked",
                                   f"cell ({off[0][0]},{off[0][1]}) is not a cell of {c.id}")
            active.append(ActiveCard(c, marked))
        completed = tuple(card(v, f"{w}.completed[{j}]")
                          for j, v in enumerate(fields.sequence(p.get("completed", []), f"{w}.completed")))
        players.append(PlayerState(p["name"].strip(), ScoreSheet(coins, trophies, rows_scored, palms),
                                   tuple(active), completed))
    shown = fields.sequence(data.get("display", []), "display", rules.display_size)
    display = tuple(card(v, f"display[{j}]") for j, v in enumerate(shown))
    deck = tuple(card(v, f"deck[{j}]") for j, v in enumerate(fields.sequence(data.get("deck", []), "deck")))
    trophies_left = tuple(sorted(fields.integer_list(data.get("trophies_left", list(rules.trophy_track)),
                                                     "trophies_left", low=0), reverse=True))
    start = fields.integer(data.get("start_player", 0), "start_player", 0, len(players) - 1)
    rnd = fields.integer(data.get("round", 1), "round", 1, rules.rounds + 1)
    turn = fields.integer(data.get("turn", 1), "turn", 1, rules.turns_per_round)
    events = tuple(str(e) for e in fields.sequence(data.get("events", []), "events"))
    return GameState(tuple(players), display, deck, trophies_left, start, rnd, turn, rules, events)
