"""JSON entry points for Splendor Duel: ``score``, ``check`` and ``template``.

Score input::

    {"game": "splendor-duel",
     "players": [{"name": "Ann", "cards": ["L1-07", "L2-05", {"id": "L1-26", "colour": "blue"}],
                  "royals": ["R2"]},
                 {"name": "Bo", "cards": ["L3-13"]}]}

A joker (``wild``) card is given as ``{"id", "colour"}``, the colour it joined (a name such as
``"blue"`` or its letter ``"U"``); the player must own a card of that colour. Royal cards must be
backed by crowns: one royal per threshold reached (3, then 6 crowns).

Players are ranked first by whether they meet a victory condition (20 points, 10 crowns, or 10
points in one colour), then by points; players equal on both share a rank. ``winners`` lists
the rank-1 players that meet a victory condition, and is empty while nobody does
(``"finished": false``).

Check input, take form: ``{"game", "board": [5 strings], "take": [[r, c], ...]}`` ->
``{"legal", "reason", "privilege_to_opponent"}``. Change form: ``{"game", "before", "after"}``
with optional ``"held"`` (tokens both players hold, e.g. ``"WWUY"`` or ``{"W": 2}``) and
``"privileges"`` (privileges the moving player held) -> ``{"action", "cells", "legal", "reason",
...}`` (see :class:`~scoring.splendor_duel.infer.BoardChange`). Readings in the change form may
contain ``?`` for unreadable cells.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scoring import fields
from scoring.errors import InvalidInput
from scoring.splendor_duel.board import Board, Cell, check_take
from scoring.splendor_duel.cards import catalog
from scoring.splendor_duel.final import OwnedCard, Tally, tally
from scoring.splendor_duel.infer import infer_board_change
from scoring.splendor_duel.rules import rules
from scoring.splendor_duel.tokens import GEMS, TOKEN_ORDER, Token, Tokens, parse_colour

__all__ = ["check", "check_template", "parse_player_cards", "score", "template"]

GAME = "splendor-duel"
PLAYERS = (1, 2)


def parse_player_cards(p: Mapping[str, Any], where: str, seen: dict[str, str]) -> tuple[
        tuple[OwnedCard, ...], tuple[str, ...]]:
    """Read one player's ``cards`` and ``royals``; ``seen`` maps ids already used to their field.

    Raises
    ------
    InvalidInput
        Unknown ids, a card listed twice, a joker without a colour or joining a colour the player
        has no card of, or more royal cards than the player's crowns allow.
    """
    table = catalog()
    raw_cards = fields.sequence(p.get("cards", []), f"{where}.cards")
    owned: list[OwnedCard] = []
    for j, item in enumerate(raw_cards):
        field = f"{where}.cards[{j}]"
        colour: Token | None = None
        if isinstance(item, Mapping):
            card = table.jewel(item.get("id"), f"{field}.id")
            if "colour" in item:
                colour = parse_colour(item["colour"], f"{field}.colour")
                if not card.joker and colour != card.colour:
                    own = card.colour.colour_name if card.colour else "no colour (points only)"
                    raise InvalidInput(f"{field}.colour", f"{card.id} is not a joker; its colour is {own}")
        else:
            card = table.jewel(item, field)
        if card.id in seen:
            raise InvalidInput(field, f"card {card.id} is also listed at {seen[card.id]}")
        seen[card.id] = field
        if card.joker and colour is None:
            raise InvalidInput(field, f"{card.id} is a joker: give it as {{\"id\": \"{card.id}\", "
                                      "\"colour\": <the colour it joined>}")
        owned.append(OwnedCard(card.id, colour if card.joker else card.colour))
    real = {c.colour for c in owned if not table.jewels[c.id].joker and c.colour is not None}
    for j, c in enumerate(owned):
        if table.jewels[c.id].joker and c.colour not in real:
            assert c.colour is not None
            raise InvalidInput(f"{where}.cards[{j}].colour",
                               f"joker {c.id} joined {c.colour.colour_name}, but the player has no "
                               f"{c.colour.colour_name} card with a bonus")
    royals: list[str] = []
    for j, rid in enumerate(fields.sequence(p.get("royals", []), f"{where}.royals")):
        field = f"{where}.royals[{j}]"
        royal = table.royal(rid, field)
        if royal.id in seen:
            raise InvalidInput(field, f"royal card {royal.id} is also listed at {seen[royal.id]}")
        seen[royal.id] = field
        royals.append(royal.id)
    crowns = sum(table.jewels[c.id].crowns for c in owned)
    thresholds = rules().crown_thresholds
    at = " and ".join(map(str, thresholds))
    if len(royals) > len(thresholds):
        raise InvalidInput(f"{where}.royals",
                           f"{len(royals)} royal cards; a player earns at most {len(thresholds)} "
                           f"(at {at} crowns)")
    if royals and crowns < thresholds[len(royals) - 1]:
        need = thresholds[len(royals) - 1]
        raise InvalidInput(f"{where}.royals",
                           f"{len(royals)} royal card(s) need {need} crowns, but the cards show {crowns}")
    return tuple(owned), tuple(royals)


def _describe(condition: str) -> str:
    r = rules()
    if condition == "points":
        return f"{r.victory_points}+ prestige points"
    if condition == "crowns":
        return f"{r.victory_crowns}+ crowns"
    return f"{r.victory_colour_points}+ points in {condition.split(':')[1]}"


def _player_json(name: str, t: Tally, rank: int) -> dict[str, Any]:
    return {
        "name": name, "total": t.points, "rank": rank, "points": t.points, "crowns": t.crowns,
        "points_by_colour": t.colour_points(), "victory": list(t.victory),
        "bonuses": {g.colour_name: t.bonuses[g] for g in GEMS},
        "breakdown": {"cards": t.card_points, "royals": t.royal_points},
    }


def score(data: Mapping[str, Any]) -> dict[str, Any]:
    """Final tally of a Splendor Duel game (format in the module docstring).

    Returns
    -------
    dict
        ``{"game", "players": [{"name", "total", "rank", "points", "crowns", "points_by_colour",
        "victory", "bonuses", "breakdown": {"cards", "royals"}}], "winners", "finished", "note"}``.
    """
    players = fields.player_list(data, *PLAYERS)
    seen: dict[str, str] = {}
    results: list[tuple[str, Tally]] = []
    for i, p in enumerate(players):
        cards, royals = parse_player_cards(p, f"players[{i}]", seen)
        results.append((p["name"].strip(), tally(cards, royals)))
    keys = [(bool(t.victory), t.points) for _, t in results]
    ranks = [1 + sum(1 for other in keys if other > k) for k in keys]
    winners = [name for (name, t), rk in zip(results, ranks, strict=True) if rk == 1 and t.victory]
    if not winners:
        note = "nobody meets a victory condition yet: the game goes on"
    elif len(winners) > 1:
        note = "both players meet a victory condition with equal points; they share the win"
    else:
        (name, t), = [(n, t) for n, t in results if n == winners[0]]
        note = f"{name} wins with {' and '.join(_describe(v) for v in t.victory)}"
    return {
        "game": GAME,
        "players": [_player_json(n, t, rk) for (n, t), rk in zip(results, ranks, strict=True)],
        "winners": winners, "finished": bool(winners), "note": note,
    }


def _cell(value: Any, where: str) -> Cell:
    n = rules().board_size
    pair = fields.sequence(value, where)
    if len(pair) != 2:
        raise InvalidInput(where, f"expected [row, col], got {value!r}")
    r = fields.integer(pair[0], f"{where}[0]")
    c = fields.integer(pair[1], f"{where}[1]")
    if not (0 <= r < n and 0 <= c < n):
        raise InvalidInput(where, f"cell [{r}, {c}] is outside the board (rows and columns 0-{n - 1})")
    return (r, c)


def _held(value: Any) -> Tokens:
    if isinstance(value, str):
        for ch in value:
            if ch not in Token._value2member_map_:
                raise InvalidInput("held", f"letter {ch!r}; expected W U G R K P Y")
        held = Tokens.of(value)
    else:
        raw = fields.mapping(value, "held")
        counts: dict[Token, int] = {}
        for key, n in raw.items():
            token = parse_colour(key, f"held.{key}", gems_only=False)
            counts[token] = fields.integer(n, f"held.{key}", 0)
        held = Tokens.from_mapping(counts)
    supply = rules().token_supply
    for t, have, most in zip(TOKEN_ORDER, held.counts, supply, strict=True):
        if have > most:
            raise InvalidInput("held", f"{have} {t.colour_name} tokens; the game has only {most}")
    return held


def check(data: Mapping[str, Any]) -> dict[str, Any]:
    """Check a take on a board, or explain the change between two board readings.

    Raises
    ------
    InvalidInput
        On a malformed board, cell, ``held`` or ``privileges``, or when neither form is given.
    """
    data = fields.mapping(data, "(document)")
    if "take" in data:
        board = Board.parse(data.get("board"), "board")
        cells = [_cell(v, f"take[{i}]") for i, v in enumerate(fields.sequence(data["take"], "take"))]
        verdict = check_take(board, cells)
        return {"game": GAME, "legal": verdict.legal, "reason": verdict.reason,
                "privilege_to_opponent": verdict.privilege_to_opponent}
    if "before" in data or "after" in data:
        before = Board.parse(data.get("before"), "before", allow_unknown=True)
        after = Board.parse(data.get("after"), "after", allow_unknown=True)
        held = _held(data["held"]) if data.get("held") is not None else None
        privileges = None
        if data.get("privileges") is not None:
            privileges = fields.integer(data["privileges"], "privileges", 0, rules().privileges)
        change = infer_board_change(before, after, held=held, privileges=privileges)
        return {"game": GAME, **change.to_json()}
    raise InvalidInput("take", 'missing: give {"board", "take"} to check a take, or {"before", "after"} '
                               "to explain a board change")


def template() -> dict[str, Any]:
    """A filled example: Ann wins with 10 points in blue (a joker counts in the colour it joined)."""
    return {
        "game": GAME,
        "players": [
            {"name": "Ann",
             "cards": ["L1-07", "L2-05", "L3-04", {"id": "L1-26", "colour": "blue"}, "L2-07", "L1-10",
                       "L1-02"],
             "royals": ["R2"]},
            {"name": "Bo", "cards": ["L1-12", "L2-09", "L3-13", "L1-20"], "royals": []},
        ],
    }


def check_template() -> dict[str, Any]:
    """A filled example for ``check``: three blue tokens in a row (legal; the opponent takes a
    privilege). Replace ``take`` with ``"before"``/``"after"`` boards to explain a change instead."""
    return {
        "game": GAME,
        "board": ["WUGRK", "KPPYW", ".....", "UUU..", "GRKW."],
        "take": [[3, 0], [3, 1], [3, 2]],
    }
