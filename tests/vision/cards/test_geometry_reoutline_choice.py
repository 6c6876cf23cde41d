"""Which reading a card keeps when its face's cells came out non-square and it was read again
through the outline found around its grid."""

from __future__ import annotations

import importlib
from types import SimpleNamespace

import numpy as np
import pytest

from vision.cards.grid import Grid
from vision.cards.identify import Identity
from vision.cards.rectify import Face
from vision.types import CardReading

read_mod = importlib.import_module("vision.cards.read")


def _prepared(rng: np.random.Generator, stretch: float, card: str | None, score: float) -> object:
    """A stand-in for a card read up to its marks: a 4x4 lattice whose cells are ``stretch``
    times as tall as wide, identified as ``card`` (``None``: unknown) with ``score``."""
    side = float(rng.uniform(40.0, 50.0))
    xs = 30.0 + side * np.arange(5)
    ys = 60.0 + side * stretch * np.arange(5)
    grid = Grid(xs, ys, np.ones((4, 4)), np.zeros(3))
    corners = np.array([[0.0, 0.0], [251.0, 0.0], [251.0, 351.0], [0.0, 351.0]]) + rng.uniform(0, 50, 2)
    to_face = np.array([[1.0, 0.0, -corners[0, 0]], [0.0, 1.0, -corners[0, 1]], [0.0, 0.0, 1.0]])
    face = Face(np.zeros((352, 252, 3), np.uint8), corners, to_face, 1.0)
    found = None if card is None else SimpleNamespace(id=card)
    ident = Identity(found, 0, 1.0 if card else 0.0, score, 0.05)
    return read_mod._Prepared(face, grid, SimpleNamespace(colour="purple"), ident,  # type: ignore[arg-type]
                              np.full((4, 4), "#"), None, None)  # type: ignore[arg-type]


@pytest.mark.parametrize(("stretch", "new_card", "new_score", "want"), [
    (1.3, "b", 0.7, "unknown"),  # clearly stretched; the square face names another card, less well
    (1.3, "a", 0.7, "new"),      # the square face names the same card: its face is taken
    (1.3, "b", 0.9, "new"),      # the square face reads better
    (1.15, "b", 0.7, "old"),     # only a little stretched: the old reading stands
    (1.3, None, 0.9, "unknown"),  # the square face names no card: neither does the reading
])
def test_choice(rng: np.random.Generator, monkeypatch: pytest.MonkeyPatch, stretch: float,
                new_card: str | None, new_score: float, want: str) -> None:
    old = _prepared(rng, stretch, "a", 0.8)
    new = _prepared(rng, 1.0, new_card, new_score)
    readings = iter([old, new])
    monkeypatch.setattr(read_mod, "_prepare_quad", lambda *a, **k: next(readings))
    monkeypatch.setattr(read_mod.rectify_mod, "reoutline", lambda *a, **k: np.array(
        [[0.0, 0.0], [63.0, 0.0], [63.0, 88.0], [0.0, 88.0]]))
    got = read_mod._prepare(np.zeros((8, 8, 3), np.uint8), None, None, read_mod.default_config())
    if want == "unknown":
        assert isinstance(got, CardReading) and got.id is None and got.grid_shape == (4, 4)
        assert len(got.uncertain) == 16 and not got.marked
    else:
        assert got is (new if want == "new" else old)
