"""JSON entry points for Silver & Gold: ``score``, ``check`` and ``template``.

``score`` input::

    {"game": "silver-gold",
     "trophy_track": [6, 5, 4, 3, 2, 1],          # optional, the round card's trophies
     "catalog": {"cards": [...]},                   # optional user cards, built-in format
     "players": [{"name": "Sarah",
                  "completed": ["t1", {"colour": "grey", "points": 8, "badge": null}, ...],
                  "coins": 9, "trophies": [5, 3], "palms": [3, 2, 2, 1]}]}

``check`` input::

    {"game": "silver-gold", "shape": "e6" | [[r, c], ...],
     "cards": [{"id": "t4", "before": [[r, c], ...], "after": [[r, c], ...]}, {...}],
     "display_palms": 0, "coins": 0, "palm_boxes_used": 0,  # optional
     "hints": false}                                         # optional: list every legal placement

Instead of ``after`` a card may give ``marked``: only the cells marked during the turn.

A game can also be followed turn by turn in JSON: :func:`start` sets up a state document and
:func:`play` applies one expedition card to it (see :mod:`scoring.silver_gold.game`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from scoring import fields
from scoring.errors import InvalidInput
from scoring.silver_gold.catalog import (
    Badge,
    Card,
    Catalog,
    Rules,
    catalog_from_json,
    cells_from_json,
    load_catalog,
    load_rules,
)
from scoring.silver_gold.final import CompletedCard, FinalSheet, final_standings, sheet_summary
from scoring.silver_gold.game import PlayerMove, apply_turn, new_game, state_from_json, state_to_json
from scoring.silver_gold.placement import CardTurn, check_turn, legal_placements
from scoring.silver_gold.shapes import Shape

__all__ = ["check", "check_template", "play", "score", "start", "template"]

GAME = "silver-gold"


def _catalog(data: Mapping[str, Any]) -> Catalog:
    if data.get("catalog") is None:
        return load_catalog()
    user = fields.mapping(data["catalog"], "catalog")
    try:
        return catalog_from_json(user)
    except InvalidInput as exc:
        raise InvalidInput(f"catalog.{exc.field}", exc.problem) from exc


def _inline_card(item: Mapping[str, Any], where: str, rules: Rules) -> CompletedCard:
    colour = item.get("colour")
    if colour not in rules.colours:
        raise InvalidInput(f"{where}.colour", f"{colour!r} is not one of {', '.join(rules.colours)}")
    points = fields.integer(item.get("points"), f"{where}.points", low=1)
    badge = None
    raw = item.get("badge")
    if raw is not None:
        raw = fields.mapping(raw, f"{where}.badge")
        if raw.get("colour") not in rules.colours:
            raise InvalidInput(f"{where}.badge.colour",
                               f"{raw.get('colour')!r} is not one of {', '.join(rules.colours)}")
        value = fields.integer(raw.get("value"), f"{where}.badge.value")
        if value not in rules.badge_values:
            raise InvalidInput(f"{where}.badge.value",
                               f"{value} is not a badge value {list(rules.badge_values)}")
        badge = Badge(raw["colour"], value)
    cid = item.get("id")
    return CompletedCard(colour, points, badge, cid if isinstance(cid, str) else None)


def _trophy_track(data: Mapping[str, Any], rules: Rules) -> tuple[int, ...]:
    if data.get("trophy_track") is None:
        return rules.trophy_track
    return fields.integer_list(data["trophy_track"], "trophy_track", low=0)


def _sheets(data: Mapping[str, Any], catalog: Catalog, rules: Rules) -> list[FinalSheet]:
    players = fields.player_list(data, 1, 4)
    track = Counter(_trophy_track(data, rules))
    taken: Counter[int] = Counter()
    owner: dict[str, str] = {}
    max_palm = catalog.max_palm_score(rules.display_size)
    sheets = []
    for i, p in enumerate(players):
        where = f"players[{i}]"
        name = p["name"].strip()
        completed: list[CompletedCard] = []
        for j, item in enumerate(fields.sequence(p.get("completed", []), f"{where}.completed")):
            at = f"{where}.completed[{j}]"
            if isinstance(item, Mapping):
                completed.append(_inline_card(item, at, rules))
                continue
            card = catalog.card(item, at)
            if card.id in owner:
                other = owner[card.id]
                raise InvalidInput(at, f"card {card.id!r} is already in "
                                       f"{'this pile' if other == name else other + chr(39) + 's pile'}")
            owner[card.id] = name
            completed.append(CompletedCard.of(card))
        coins = fields.integer(p.get("coins", 0), f"{where}.coins", 0, rules.coin_boxes)
        trophies = fields.integer_list(p.get("trophies", []), f"{where}.trophies", low=0)
        rows = coins // rules.coins_per_row
        if len(trophies) > rows:
            complete = f"{rows} coin row{'s are' if rows != 1 else ' is'} complete"
            raise InvalidInput(f"{where}.trophies",
                               f"{len(trophies)} trophies but only {complete} ({coins} coins)")
        for j, value in enumerate(trophies):
            taken[value] += 1
            if taken[value] > track[value]:
                have = track[value]
                raise InvalidInput(f"{where}.trophies[{j}]",
                                   f"trophy {value} is claimed {taken[value]} times but the track has "
                                   f"{'no' if have == 0 else have} {value}")
        palms = fields.integer_list(p.get("palms", []), f"{where}.palms", 1, max_palm, rules.palm_boxes)
        sheets.append(FinalSheet(name, tuple(completed), coins, trophies, palms))
    return sheets


def score(data: Mapping[str, Any]) -> dict[str, Any]:
    """Final score of a Silver & Gold game (see the module docstring for the format).

    Returns
    -------
    dict
        ``{"game", "players": [{"name", "total", "rank", "breakdown": {"cards", "badges", "coins",
        "trophies", "palms"}, "completed_by_colour", "badges"}], "winners", "tiebreak"}``.

    Raises
    ------
    InvalidInput
        Naming the field: unknown card id, the same card in two piles, coins above 12, more trophies
        than completed coin rows, a trophy not on the track, more than 4 palm scores, …
    """
    rules = load_rules()
    catalog = _catalog(data)
    sheets = _sheets(data, catalog, rules)
    breakdowns, standings = final_standings(sheets, rules)
    players = []
    for sheet, bd, rnk in zip(sheets, breakdowns, standings.ranks, strict=True):
        players.append({"name": sheet.name, "total": bd.total, "rank": rnk, "breakdown": bd.to_json(),
                        **sheet_summary(sheet, rules)})
    return {"game": GAME, "players": players, **standings.to_json()}


def _shape(value: Any, catalog: Catalog) -> Shape:
    if isinstance(value, str):
        return catalog.expedition(value, "shape")
    cells = cells_from_json(value, "shape")
    if not cells:
        raise InvalidInput("shape", "the pattern has no cells")
    if len(set(cells)) != len(cells):
        raise InvalidInput("shape", "a cell is listed twice")
    return Shape.from_cells(cells)


def _card_cells(card: Card, value: Any, where: str, check_water: bool) -> frozenset[tuple[int, int]]:
    cells = cells_from_json(value, where)
    height, width = card.size
    for j, cell in enumerate(cells):
        if not card.in_grid(cell):
            raise InvalidInput(f"{where}[{j}]", f"cell ({cell[0]},{cell[1]}) is outside the "
                                                f"{height}x{width} grid of {card.id}")
        if check_water and cell not in card.cells:
            raise InvalidInput(f"{where}[{j}]", f"cell ({cell[0]},{cell[1]}) of {card.id} is water")
    return frozenset(cells)


def _card_turns(data: Mapping[str, Any], catalog: Catalog, rules: Rules) -> list[CardTurn]:
    if "cards" not in data:
        raise InvalidInput("cards", "missing")
    items = fields.sequence(data["cards"], "cards", rules.active_cards)
    if not items:
        raise InvalidInput("cards", "no cards given")
    turns = []
    seen: set[str] = set()
    for i, item in enumerate(items):
        where = f"cards[{i}]"
        item = fields.mapping(item, where)
        card = catalog.card(item.get("id"), f"{where}.id")
        if card.id in seen:
            raise InvalidInput(f"{where}.id", f"card {card.id!r} is given twice")
        seen.add(card.id)
        before = _card_cells(card, item.get("before", []), f"{where}.before", True)
        if "after" in item and "marked" in item:
            raise InvalidInput(where, "give either 'after' or 'marked', not both")
        if "after" in item:
            after = _card_cells(card, item["after"], f"{where}.after", False)
            turns.append(CardTurn.from_after(card, before, after))
        elif "marked" in item:
            marked = _card_cells(card, item["marked"], f"{where}.marked", False)
            turns.append(CardTurn(card, before, marked))
        else:
            raise InvalidInput(f"{where}.after", "missing (the card's marked cells after the turn)")
    return turns


def check(data: Mapping[str, Any]) -> dict[str, Any]:
    """Judge one player's marks for one expedition card (see the module docstring for the format).

    Returns
    -------
    dict
        ``{"legal", "reason", "shape_card", "shape_cells", "single_cell", "bonus_cells":
        [{"card", "cell"}], "coins", "palms"}``; an illegal turn is an answer, not an error. With
        ``"hints": true`` also ``"hints": [{"card", "placements": [[[r, c], ...], ...]}]``: every
        placement of the shape on each card's cells unmarked before the turn.

    Raises
    ------
    InvalidInput
        For malformed input: unknown card or shape id, a cell outside the card's grid, an earlier
        mark on water, the same card twice, …
    """
    rules = load_rules()
    catalog = _catalog(data)
    if "shape" not in data:
        raise InvalidInput("shape", "missing (an expedition card id such as \"e6\" or [[row, col], ...])")
    shape = _shape(data["shape"], catalog)
    turns = _card_turns(data, catalog, rules)
    max_display = catalog.max_palm_score(rules.display_size) - 1
    verdict = check_turn(
        shape,
        turns,
        display_palms=fields.integer(data.get("display_palms", 0), "display_palms", 0, max_display),
        coins_before=fields.integer(data.get("coins", 0), "coins", 0, rules.coin_boxes),
        palm_boxes_used=fields.integer(data.get("palm_boxes_used", 0), "palm_boxes_used", 0,
                                       rules.palm_boxes),
        rules=rules,
    )
    out = verdict.to_json()
    if data.get("hints", False) is True:
        out["hints"] = [
            {"card": t.card.id,
             "placements": [[list(c) for c in sorted(p)] for p in legal_placements(t.card, t.before, shape)]}
            for t in turns
        ]
    return out


def template() -> dict[str, Any]:
    """A filled ``score`` example: Sarah's game from the rules (95 points) and a second player."""
    return {
        "game": GAME,
        "trophy_track": list(load_rules().trophy_track),
        "players": [
            {"name": "Sarah", "completed": ["t1", "t16", "t17", "t27", "t40", "t41"],
             "coins": 9, "trophies": [5, 3], "palms": [3, 2, 2, 1]},
            {"name": "Tim",
             "completed": ["t13", "t25", "t39", {"colour": "grey", "points": 8, "badge": None}],
             "coins": 12, "trophies": [6, 4, 2], "palms": [1, 2]},
        ],
    }


def check_template() -> dict[str, Any]:
    """A filled ``check`` example: the T shape on t4 plus one bonus cell allowed by its X."""
    return {
        "game": GAME,
        "shape": "e6",
        "cards": [
            {"id": "t4", "before": [[0, 1], [0, 2]],
             "after": [[0, 1], [0, 2], [3, 1], [3, 2], [3, 3], [2, 2], [1, 0]]},
            {"id": "t40", "before": [], "after": []},
        ],
        "display_palms": 1,
        "coins": 0,
        "palm_boxes_used": 0,
    }


def start(data: Mapping[str, Any]) -> dict[str, Any]:
    """Set up a game state document.

    Input: ``{"game": "silver-gold", "players": [{"name", "active": [id, id]}], "display": [4 ids],
    "deck": [ids, top first], "start_player": 0, "trophy_track": [6, 5, 4, 3, 2, 1]}`` (the last two
    optional). Returns the state document (see :func:`~scoring.silver_gold.game.state_to_json`).
    """
    rules = load_rules()
    catalog = _catalog(data)
    players = fields.player_list(data, 1, 4)
    hands = [fields.sequence(p.get("active", []), f"players[{i}].active") for i, p in enumerate(players)]
    state = new_game(
        catalog, [p["name"].strip() for p in players], hands,
        fields.sequence(data.get("display", []), "display"), fields.sequence(data.get("deck", []), "deck"),
        start_player=fields.integer(data.get("start_player", 0), "start_player", 0),
        trophy_track=_trophy_track(data, rules), rules=rules)
    return state_to_json(state)


def play(data: Mapping[str, Any]) -> dict[str, Any]:
    """Apply one expedition card to a state document.

    Input: ``{"state": {...}, "shape": "e6" | [[r, c], ...], "moves": [{"marks": [[[r, c], ...],
    [...]], "take": ["t20" | "deck"]}, ...]}``: one move per player, ``marks`` per active card, ``take``
    one replacement per card completed this turn. Returns the next state document; its ``events``
    describe the turn.

    Raises
    ------
    InvalidInput
        For malformed input, and (as :class:`~scoring.silver_gold.game.IllegalTurn`) for a move that
        breaks the rules, with the reason.
    """
    rules = load_rules()
    catalog = _catalog(data)
    if "state" not in data:
        raise InvalidInput("state", "missing")
    try:
        state = state_from_json(fields.mapping(data["state"], "state"), catalog, rules)
    except InvalidInput as exc:
        raise InvalidInput(f"state.{exc.field}", exc.problem) from exc
    if "shape" not in data:
        raise InvalidInput("shape", "missing")
    shape = _shape(data["shape"], catalog)
    moves = []
    for i, raw in enumerate(fields.sequence(data.get("moves", []), "moves")):
        raw = fields.mapping(raw, f"moves[{i}]")
        marks = tuple(frozenset(cells_from_json(m, f"moves[{i}].marks[{j}]"))
                      for j, m in enumerate(fields.sequence(raw.get("marks", []), f"moves[{i}].marks")))
        take = tuple(fields.string(t, f"moves[{i}].take[{j}]")
                     for j, t in enumerate(fields.sequence(raw.get("take", []), f"moves[{i}].take")))
        moves.append(PlayerMove(marks, take))
    return state_to_json(apply_turn(state, shape, moves))
