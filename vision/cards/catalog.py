"""The treasure-map card catalog the reader matches against.

The built-in catalog holds the 47 cards of the game (rules data from :mod:`scoring.silver_gold`).
A user's own catalog is a directory with a ``cards.json`` in the built-in format
(``{"cards": [{"id", "colour", "points", "badge", "rows"}, ...]}``) whose cards override the
built-in ones with the same id, and optional ``refs/<id>.png``: clean top-down images of unmarked
card faces (see :mod:`vision.cards.enroll`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from scoring.errors import InvalidInput
from scoring.silver_gold import catalog_from_json
from scoring.silver_gold import load_catalog as rules_catalog
from vision.errors import CatalogError


@dataclass(frozen=True)
class CatalogCard:
    """One treasure-map card as the reader needs it.

    ``rows`` holds one string per grid row (top first) over ``#`` plain, ``X`` cross, ``C`` coin,
    ``P`` palm and ``.`` water (no cell). ``badge`` is ``(colour, value)`` or ``None``.
    """

    id: str
    colour: str
    points: int
    badge: tuple[str, int] | None
    rows: tuple[str, ...]

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.rows), len(self.rows[0])

    def grid(self, rotation: int = 0) -> NDArray[np.str_]:
        """The symbol grid turned ``rotation`` quarter turns clockwise, shape ``(rows, cols)``."""
        a = np.array([list(r) for r in self.rows])
        return np.rot90(a, -(rotation % 4))

    @property
    def cells(self) -> tuple[tuple[int, int], ...]:
        """Every real cell (not water) in the catalog frame."""
        return tuple((r, c) for r, row in enumerate(self.rows) for c, ch in enumerate(row) if ch != ".")


@dataclass(frozen=True)
class Catalog:
    """A set of cards plus optional reference faces (``refs``: id -> png path)."""

    cards: tuple[CatalogCard, ...]
    refs: Mapping[str, Path] = field(default_factory=dict)
    source: str = "built-in"

    def get(self, card_id: str) -> CatalogCard | None:
        for card in self.cards:
            if card.id == card_id:
                return card
        return None

    def reference(self, card_id: str) -> NDArray[np.uint8] | None:
        """The reference face of ``card_id`` as a BGR ``(h, w, 3)`` uint8 array, or ``None``.

        Raises
        ------
        CatalogError
            When the reference file is not a readable image.
        """
        path = self.refs.get(card_id)
        if path is None:
            return None
        img = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if img is None:
            raise CatalogError(f"{path}: not a readable image")
        return img


def _adapt(card: Any) -> CatalogCard:
    """A :mod:`scoring.silver_gold` card as a :class:`CatalogCard`."""
    badge = None if card.badge is None else (str(card.badge.colour), int(card.badge.value))
    return CatalogCard(str(card.id), str(card.colour), int(card.points), badge, tuple(card.rows))


@cache
def builtin_catalog() -> Catalog:
    """The 47 built-in cards."""
    return Catalog(tuple(_adapt(c) for c in rules_catalog().cards))


def load_catalog(directory: str | Path | None = None) -> Catalog:
    """The built-in catalog, overridden and extended by a user catalog ``directory``.

    Raises
    ------
    CatalogError
        When the directory, its ``cards.json`` or a reference image name is missing or
        malformed; the message names the file.
    """
    base = builtin_catalog()
    if directory is None:
        return base
    root = Path(directory)
    if not root.is_dir():
        raise CatalogError(f"{root}: not a directory")
    cards = {c.id: c for c in base.cards}
    path = root / "cards.json"
    if path.exists():
        try:
            doc = json.loads(path.read_text("utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            raise CatalogError(f"{path}: cannot read the file ({exc})") from exc
        except json.JSONDecodeError as exc:
            raise CatalogError(f"{path}: not valid JSON (line {exc.lineno}: {exc.msg})") from exc
        try:
            user = catalog_from_json(doc, merge_builtin=False)
        except InvalidInput as exc:
            raise CatalogError(f"{path}: {exc}") from exc
        for card in user.cards:
            cards[card.id] = _adapt(card)
    refs: dict[str, Path] = {}
    ref_dir = root / "refs"
    if ref_dir.is_dir():
        for png in sorted(ref_dir.glob("*.png")):
            if png.stem not in cards:
                raise CatalogError(f"{png}: no card with id {png.stem!r} in the catalog")
            refs[png.stem] = png
    return Catalog(tuple(cards.values()), refs, str(root))
