"""Silver & Gold final score: completed cards, badges, coins, trophies and palms; ranks with the
tie-break most completed grey, then green, orange, purple cards."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from scoring.silver_gold.catalog import Badge, Card, Rules, load_rules
from scoring.standings import Criterion, Entry, Standings, rank

__all__ = ["Breakdown", "CompletedCard", "FinalSheet", "final_standings", "score_sheet"]


@dataclass(frozen=True)
class CompletedCard:
    """A completed map card as it scores: its colour, points and badge (``id`` when known)."""

    colour: str
    points: int
    badge: Badge | None = None
    id: str | None = None

    @classmethod
    def of(cls, card: Card) -> CompletedCard:
        return cls(card.colour, card.points, card.badge, card.id)


@dataclass(frozen=True)
class FinalSheet:
    """One player's score pile and score sheet at the end of the game."""

    name: str
    completed: tuple[CompletedCard, ...] = ()
    coins: int = 0
    trophies: tuple[int, ...] = ()
    palms: tuple[int, ...] = ()


@dataclass(frozen=True)
class Breakdown:
    """Points by source; :attr:`total` is their sum."""

    cards: int
    badges: int
    coins: int
    trophies: int
    palms: int

    @property
    def total(self) -> int:
        return self.cards + self.badges + self.coins + self.trophies + self.palms

    def to_json(self) -> dict[str, int]:
        return {"cards": self.cards, "badges": self.badges, "coins": self.coins,
                "trophies": self.trophies, "palms": self.palms}


def completed_by_colour(sheet: FinalSheet, rules: Rules | None = None) -> dict[str, int]:
    """How many completed cards of each colour ``sheet`` holds (every colour listed)."""
    rules = rules or load_rules()
    return {colour: sum(1 for c in sheet.completed if c.colour == colour) for colour in rules.colours}


def score_sheet(sheet: FinalSheet) -> Breakdown:
    """The final score of one player.

    Each badge on a completed card scores its value once per completed card of the badge's colour
    (each badge separately); unfinished cards score nothing.
    """
    badges = sum(
        card.badge.value * sum(1 for other in sheet.completed if other.colour == card.badge.colour)
        for card in sheet.completed if card.badge is not None
    )
    return Breakdown(
        cards=sum(c.points for c in sheet.completed),
        badges=badges,
        coins=sheet.coins,
        trophies=sum(sheet.trophies),
        palms=sum(sheet.palms),
    )


def final_standings(sheets: Sequence[FinalSheet], rules: Rules | None = None) -> tuple[
        tuple[Breakdown, ...], Standings]:
    """Score every player and rank them (tie-break: most completed grey, green, orange, purple cards)."""
    rules = rules or load_rules()
    breakdowns = tuple(score_sheet(s) for s in sheets)
    criteria = [Criterion(f"completed {colour} cards") for colour in rules.tiebreak_colours]
    entries = []
    for sheet, bd in zip(sheets, breakdowns, strict=True):
        counts = completed_by_colour(sheet, rules)
        entries.append(Entry(sheet.name, bd.total, tuple(counts[c] for c in rules.tiebreak_colours)))
    return breakdowns, rank(entries, criteria)


def sheet_summary(sheet: FinalSheet, rules: Rules | None = None) -> dict[str, Any]:
    """Extra per-player facts for display: completed cards per colour and each badge's points."""
    badges = [
        {"card": card.id, "colour": card.badge.colour, "value": card.badge.value,
         "points": card.badge.value * sum(1 for o in sheet.completed if o.colour == card.badge.colour)}
        for card in sheet.completed if card.badge is not None
    ]
    return {"completed_by_colour": completed_by_colour(sheet, rules), "badges": badges}
