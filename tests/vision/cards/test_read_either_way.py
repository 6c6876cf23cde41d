"""A quad whose sides do not tell the card's long ones: the card is read the other way round too,
and that reading is kept only when its cells are square and the catalog names it better. So is a
quad whose face shows no grid at all: cut the wrong way round, a face shows no square lattice."""

from __future__ import annotations

import importlib
from types import SimpleNamespace

import numpy as np
import pytest

from vision.cards.detect import CardQuad
from vision.cards.grid import Grid
from vision.cards.identify import Identity
from vision.cards.rectify import Face
from vision.types import CardReading

read_mod = importlib.import_module("vision.cards.read")


def _corners(ratio: float) -> np.ndarray:
    """A quad 100 pixels wide and ``100 * ratio`` tall."""
    return np.array([[0.0, 0.0], [100.0, 0.0], [100.0, 100.0 * ratio], [0.0, 100.0 * ratio]])


def _prepared(rng: np.random.Generator, ratio: float, stretch: float, card: str | None, score: float,
              margin: float) -> object:
    """A stand-in for a card read up to its marks on a quad of side ratio ``ratio``: a centred
    4x4 lattice whose cells are ``stretch`` times as tall as wide, named ``card`` (``None``:
    unknown)."""
    side = float(rng.uniform(40.0, 44.0))
    xs = 40.0 + side * np.arange(5)
    ys = 80.0 + side * stretch * np.arange(5)
    grid = Grid(xs, ys, np.ones((4, 4)), np.zeros(3))
    face = Face(np.zeros((352, 252, 3), np.uint8), _corners(ratio), np.eye(3), 1.0)
    found = None if card is None else SimpleNamespace(id=card)
    ident = Identity(found, 0, 0.5 if card else 0.0, score, margin)
    return read_mod._Prepared(face, grid, SimpleNamespace(colour="purple"), ident,  # type: ignore[arg-type]
                              np.full((4, 4), "#"), None, None)


def _unknown(ratio: float) -> CardReading:
    """An unknown complete card's reading (faint lattice, no card named) on a quad of side ratio
    ``ratio``."""
    c = [(float(x), float(y)) for x, y in _corners(ratio)]
    return CardReading(None, "grey", 0.0, (c[0], c[1], c[2], c[3]), (), (), False, False)


@pytest.mark.parametrize(("old", "new", "ratio", "want"), [
    ("unknown", (1.0, "b", 0.7, 0.03), 1.05, "new"),   # the other way round, the catalog names it
    (("a", 0.7, 0.03), (1.0, "b", 0.8, 0.03), 1.05, "new"),  # ... and better
    (("a", 0.8, 0.03), (1.0, "b", 0.7, 0.03), 1.05, "old"),  # ... but worse
    ("unknown", (2.0, "b", 0.9, 0.1), 1.05, "old"),    # stretched cells: not the card's face
    ("unknown", (1.0, None, 0.9, 0.1), 1.05, "old"),   # nothing named the other way round
    (("a", 0.8, 0.1), (1.0, "b", 0.9, 0.1), 1.05, "old"),    # named with full confidence
    ("unknown", (1.0, "b", 0.9, 0.1), 1.3, "old"),     # the sides tell the long ones
    ("none", (1.0, "b", 0.7, 0.03), 1.05, "new"),      # no grid on the first face, named across
    ("none", (2.0, "b", 0.9, 0.1), 1.05, "old"),       # ... stretched cells across too
    ("none", (1.0, None, 0.9, 0.1), 1.05, "old"),      # ... nothing named across
    ("none", (1.0, "b", 0.9, 0.1), 1.3, "old"),        # no grid, but the sides tell the long ones
])
def test_choice(rng: np.random.Generator, monkeypatch: pytest.MonkeyPatch, old: object, new: tuple,
                ratio: float, want: str) -> None:
    first = (None if old == "none" else _unknown(ratio) if old == "unknown"
             else _prepared(rng, ratio, 1.0, *old))  # type: ignore[misc]
    other = _prepared(rng, ratio, *new)
    readings = iter([first, other])
    asked: list[bool] = []
    monkeypatch.setattr(read_mod, "_prepare_quad", lambda *a, **k: next(readings))

    def lattices(*a: object, across: bool = False, **k: object) -> None:
        asked.append(across)

    monkeypatch.setattr(read_mod, "_lattices", lattices)
    quad = CardQuad(_corners(ratio), False, 100.0 * 100.0 * ratio)
    got = read_mod._prepare(np.zeros((8, 8, 3), np.uint8), quad, None, read_mod.default_config())
    assert got is (other if want == "new" else first)
    doubted = ratio < read_mod.default_config().rectify.side_doubt
    sure = old not in ("unknown", "none") and old[2] >= read_mod.default_config().identify.full_margin  # type: ignore[index]
    assert asked == ([True] if doubted and not sure else [])


def test_cut_quad_without_grid_is_not_turned(monkeypatch: pytest.MonkeyPatch) -> None:
    """A cut card's quad outlines only its part in view: its sides tell nothing of the card's."""
    asked: list[bool] = []
    monkeypatch.setattr(read_mod, "_lattices", lambda *a, across=False, **k: asked.append(across))
    quad = CardQuad(_corners(1.0), True, 100.0 * 100.0)
    got = read_mod._prepare(np.zeros((8, 8, 3), np.uint8), quad, None, read_mod.default_config())
    assert isinstance(got, CardReading) and got.partial
    assert asked == []
