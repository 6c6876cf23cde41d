"""The card tables: 67 jewel cards (ids L1-01 … L3-13) and 4 royal cards (R1 … R4)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

from scoring.errors import InvalidInput
from scoring.splendor_duel.rules import load_json
from scoring.splendor_duel.tokens import COLOUR_NAMES, GEMS, Token, Tokens

__all__ = [
    "ABILITIES",
    "Catalog",
    "JewelCard",
    "RoyalCard",
    "catalog",
]

ABILITIES = frozenset({"extra_turn", "wild_bonus", "take_matching_token_from_board", "take_privilege",
                       "steal_token"})
"""Ability names used in the card table."""


@dataclass(frozen=True)
class JewelCard:
    """One jewel card.

    Attributes
    ----------
    id
        ``L<level>-<nn>``, as in the source table.
    level
        1, 2 or 3.
    colour
        The bonus colour; None for a joker (``wild``) and for a points-only card.
    joker
        True for a joker card, which takes the colour of the card it joins.
    bonus
        Number of bonuses the card gives (0 for a points-only card, 2 for the double-bonus cards).
    points, crowns
        Prestige points and crowns printed on the card.
    cost
        Tokens to pay (gems and pearls; never gold).
    abilities
        Ability names, see :data:`ABILITIES`.
    """

    id: str
    level: int
    colour: Token | None
    joker: bool
    bonus: int
    points: int
    crowns: int
    cost: Tokens
    abilities: tuple[str, ...]


@dataclass(frozen=True)
class RoyalCard:
    """One royal card: prestige points and an ability (or none)."""

    id: str
    points: int
    abilities: tuple[str, ...]


@dataclass(frozen=True)
class Catalog:
    """Both card tables, by id."""

    jewels: Mapping[str, JewelCard]
    royals: Mapping[str, RoyalCard]

    def jewel(self, card_id: object, field: str) -> JewelCard:
        """Look a jewel card up.

        Raises
        ------
        InvalidInput
            When ``card_id`` is not a known jewel card id.
        """
        if isinstance(card_id, str) and card_id in self.jewels:
            return self.jewels[card_id]
        hint = " (a royal card id: list it under royals)" if card_id in self.royals else ""
        raise InvalidInput(field, f"unknown jewel card id {card_id!r}{hint}; expected L1-01 … L3-13")

    def royal(self, card_id: object, field: str) -> RoyalCard:
        """Look a royal card up.

        Raises
        ------
        InvalidInput
            When ``card_id`` is not R1 … R4.
        """
        if isinstance(card_id, str) and card_id in self.royals:
            return self.royals[card_id]
        known = ", ".join(self.royals)
        raise InvalidInput(field, f"unknown royal card id {card_id!r}; expected one of {known}")

    def level(self, level: int) -> tuple[str, ...]:
        """Ids of one level's cards, in table order."""
        return tuple(cid for cid, card in self.jewels.items() if card.level == level)


@cache
def catalog() -> Catalog:
    """The card tables from package data ``cards.json`` (cached, immutable)."""
    data = load_json("cards.json")
    jewels: dict[str, JewelCard] = {}
    for raw in data["jewel_cards"]:
        colour_name = raw["colour"]
        colour = COLOUR_NAMES.get(colour_name)
        if colour is not None and colour not in GEMS:
            raise ValueError(f"cards.json: {raw['id']}: bad colour {colour_name!r}")
        abilities = tuple(raw["abilities"])
        if not set(abilities) <= ABILITIES:
            raise ValueError(f"cards.json: {raw['id']}: unknown ability in {abilities}")
        cost = Tokens.from_mapping({COLOUR_NAMES[k]: int(v) for k, v in raw["cost"].items()})
        jewels[raw["id"]] = JewelCard(
            id=raw["id"], level=int(raw["level"]), colour=colour, joker=colour_name == "wild",
            bonus=int(raw["bonus"]), points=int(raw["points"]), crowns=int(raw["crowns"]), cost=cost,
            abilities=abilities)
    royals = {raw["id"]: RoyalCard(raw["id"], int(raw["points"]), tuple(raw["abilities"]))
              for raw in data["royal_cards"]}
    return Catalog(jewels, royals)
