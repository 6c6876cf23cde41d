"""Token kinds and token multisets."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum

from scoring.errors import InvalidInput

__all__ = [
    "COLOUR_NAMES",
    "EMPTY",
    "GEMS",
    "TOKEN_ORDER",
    "UNKNOWN",
    "Token",
    "Tokens",
    "parse_colour",
]


class Token(StrEnum):
    """A token kind; the value is its board letter."""

    WHITE = "W"
    BLUE = "U"
    GREEN = "G"
    RED = "R"
    BLACK = "K"
    PEARL = "P"
    GOLD = "Y"

    @property
    def colour_name(self) -> str:
        """The lower-case English name used in the card table (``white`` … ``pearl``, ``gold``)."""
        return self.name.lower()


TOKEN_ORDER: tuple[Token, ...] = tuple(Token)
"""Every kind, in the index order of :class:`Tokens`."""
GEMS: tuple[Token, ...] = (Token.WHITE, Token.BLUE, Token.GREEN, Token.RED, Token.BLACK)
"""The five gem colours (the colours a card bonus can have)."""
EMPTY = "."
"""Board letter of an empty cell."""
UNKNOWN = "?"
"""Reading letter of a cell the camera could not read."""
COLOUR_NAMES: dict[str, Token] = {t.colour_name: t for t in Token}
_INDEX = {t: i for i, t in enumerate(TOKEN_ORDER)}


def parse_colour(value: object, field: str, *, gems_only: bool = True) -> Token:
    """Read a colour given as a name (``"blue"``) or a letter (``"U"``).

    Raises
    ------
    InvalidInput
        When ``value`` names no colour (or a non-gem when ``gems_only``).
    """
    if isinstance(value, str):
        token = COLOUR_NAMES.get(value.lower())
        if token is None and value in Token._value2member_map_:
            token = Token(value)
        if token is not None and (not gems_only or token in GEMS):
            return token
    allowed = ", ".join(t.colour_name for t in (GEMS if gems_only else TOKEN_ORDER))
    raise InvalidInput(field, f"unknown colour {value!r}; expected one of {allowed} (or its letter)")


@dataclass(frozen=True)
class Tokens:
    """A multiset of tokens.

    Attributes
    ----------
    counts
        Seven non-negative counts in :data:`TOKEN_ORDER` order (W U G R K P Y).
    """

    counts: tuple[int, int, int, int, int, int, int] = (0, 0, 0, 0, 0, 0, 0)

    @classmethod
    def of(cls, tokens: Iterable[Token | str]) -> Tokens:
        """Count an iterable of tokens or letters (``Tokens.of("WWU")``)."""
        counts = [0] * len(TOKEN_ORDER)
        for t in tokens:
            counts[_INDEX[Token(t)]] += 1
        return cls(tuple(counts))  # type: ignore[arg-type]

    @classmethod
    def from_mapping(cls, data: Mapping[Token, int]) -> Tokens:
        """Build from ``{Token: count}``; missing kinds count 0."""
        return cls(tuple(int(data.get(t, 0)) for t in TOKEN_ORDER))  # type: ignore[arg-type]

    def __getitem__(self, token: Token) -> int:
        return self.counts[_INDEX[token]]

    def __add__(self, other: Tokens) -> Tokens:
        return Tokens(tuple(a + b for a, b in zip(self.counts, other.counts, strict=True)))  # type: ignore[arg-type]

    def __sub__(self, other: Tokens) -> Tokens:
        """Difference; may hold negative counts, check with :meth:`is_valid`."""
        return Tokens(tuple(a - b for a, b in zip(self.counts, other.counts, strict=True)))  # type: ignore[arg-type]

    def __le__(self, other: Tokens) -> bool:  # type: ignore[override]
        return all(a <= b for a, b in zip(self.counts, other.counts, strict=True))

    def with_count(self, token: Token, count: int) -> Tokens:
        """A copy with ``token``'s count replaced."""
        counts = list(self.counts)
        counts[_INDEX[token]] = count
        return Tokens(tuple(counts))  # type: ignore[arg-type]

    def plus(self, token: Token, n: int = 1) -> Tokens:
        """A copy with ``n`` more of ``token``."""
        return self.with_count(token, self[token] + n)

    def total(self) -> int:
        """Number of tokens."""
        return sum(self.counts)

    def is_valid(self) -> bool:
        """True when no count is negative."""
        return all(c >= 0 for c in self.counts)

    def kinds(self) -> tuple[Token, ...]:
        """Kinds present at least once, in :data:`TOKEN_ORDER` order."""
        return tuple(t for t in TOKEN_ORDER if self[t] > 0)

    def letters(self) -> str:
        """The multiset as sorted letters, e.g. ``"WWUY"``."""
        return "".join(t.value * self[t] for t in TOKEN_ORDER)

    def to_json(self) -> dict[str, int]:
        """``{letter: count}`` for the kinds present."""
        return {t.value: self[t] for t in TOKEN_ORDER if self[t]}
