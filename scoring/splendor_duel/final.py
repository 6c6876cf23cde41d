"""Tallies of a player's cards: points, crowns, points per colour, bonuses and victory."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from scoring.splendor_duel.cards import catalog
from scoring.splendor_duel.rules import rules
from scoring.splendor_duel.tokens import GEMS, Token, Tokens

__all__ = ["OwnedCard", "Tally", "tally"]


@dataclass(frozen=True)
class OwnedCard:
    """A bought jewel card in front of a player.

    Attributes
    ----------
    id
        The card id.
    colour
        The colour column it sits in: the card's own colour, the colour a joker joined, or
        None for a points-only card.
    """

    id: str
    colour: Token | None


@dataclass(frozen=True)
class Tally:
    """What a player's cards add up to.

    Attributes
    ----------
    points
        Prestige points of jewel and royal cards.
    card_points, royal_points
        The two parts of ``points``.
    crowns
        Crowns on the jewel cards.
    points_by_colour
        Points of the cards in each gem colour column, in :data:`~scoring.splendor_duel.tokens.GEMS`
        order (a joker counts in the colour it joined; points-only cards count in none).
    bonuses
        Bonuses per colour (pearl and gold always 0).
    victory
        The victory conditions met: ``"points"`` (20+), ``"crowns"`` (10+) and
        ``"colour:<name>"`` (10+ points in one colour).
    """

    points: int
    card_points: int
    royal_points: int
    crowns: int
    points_by_colour: tuple[int, ...]
    bonuses: Tokens
    victory: tuple[str, ...]

    def colour_points(self) -> dict[str, int]:
        """``{colour name: points}`` for all five gem colours."""
        return {t.colour_name: p for t, p in zip(GEMS, self.points_by_colour, strict=True)}


def tally(cards: Sequence[OwnedCard], royals: Sequence[str]) -> Tally:
    """Add up a player's jewel cards and royal cards (ids must be known)."""
    table = catalog()
    r = rules()
    card_points = sum(table.jewels[c.id].points for c in cards)
    royal_points = sum(table.royals[rid].points for rid in royals)
    crowns = sum(table.jewels[c.id].crowns for c in cards)
    by_colour = {t: 0 for t in GEMS}
    bonuses = Tokens()
    for owned in cards:
        card = table.jewels[owned.id]
        if owned.colour is not None:
            by_colour[owned.colour] += card.points
            bonuses = bonuses.plus(owned.colour, card.bonus)
    points = card_points + royal_points
    victory: list[str] = []
    if points >= r.victory_points:
        victory.append("points")
    if crowns >= r.victory_crowns:
        victory.append("crowns")
    victory += [f"colour:{t.colour_name}" for t in GEMS if by_colour[t] >= r.victory_colour_points]
    return Tally(points, card_points, royal_points, crowns, tuple(by_colour[t] for t in GEMS), bonuses,
                 tuple(victory))
