"""A face whose grid runs into its edge: the outline may have cut a row or column of cells off,
and the card is read again on the outline found around its grid."""

from __future__ import annotations

import importlib
from types import SimpleNamespace

import numpy as np
import pytest

from vision.cards.grid import Grid
from vision.cards.identify import Identity
from vision.cards.rectify import Face

read_mod = importlib.import_module("vision.cards.read")

_FACE = (352, 252)  # (H, W) face pixels of a 63 x 88 mm card at 4 px/mm


def _grid(rng: np.random.Generator, rows: int, cols: int, left: float, side: float = 50.0) -> Grid:
    """A square-celled lattice of ``rows`` x ``cols`` cells of about ``side`` pixels whose first
    line is at ``left``."""
    side += float(rng.uniform(-1.0, 1.0))
    xs = left + side * np.arange(cols + 1)
    ys = 60.0 + side * np.arange(rows + 1)
    return Grid(xs, ys, np.ones((rows, cols)), np.zeros(3))


def _prepared(grid: Grid, card: str | None, margin: float) -> object:
    """A stand-in for a card read up to its marks on ``grid``, named ``card`` (``None``:
    unknown) with the catalog margin ``margin``."""
    face = Face(np.zeros((*_FACE, 3), np.uint8), np.array([[0.0, 0.0], [251.0, 0.0], [251.0, 351.0],
                                                            [0.0, 351.0]]), np.eye(3), 1.0)
    found = None if card is None else SimpleNamespace(id=card)
    ident = Identity(found, 0, 0.5 if card else 0.0, 0.8, margin)
    return read_mod._Prepared(face, grid, SimpleNamespace(colour="purple"), ident,  # type: ignore[arg-type]
                              np.full(grid.shape, "#"), None, None)


@pytest.mark.parametrize(("left", "side", "want"), [
    (4.0, 40.0, True),    # the line one cell to the left lies outside the face
    (44.0, 40.0, True),   # one cell to the left it lies within the margin: nothing is grown there
    (66.0, 40.0, False),  # a full column fits on each side of a centred 4x3 lattice
    (90.0, 40.0, True),   # one cell to the right lies within the margin
])
def test_cut_short(rng: np.random.Generator, left: float, side: float, want: bool) -> None:
    cfg = read_mod.default_config()
    grid = _grid(rng, 4, 3, left, side)
    margin = cfg.grid.extend_margin_mm * cfg.rectify.px_per_mm
    room = min(grid.xs[0] - (grid.xs[1] - grid.xs[0]), _FACE[1] - 1 - (2 * grid.xs[-1] - grid.xs[-2]))
    assert (room < margin) == want  # the premise: the lattice lies as described
    assert read_mod._cut_short(grid, (*_FACE, 3), cfg.rectify.px_per_mm, cfg.grid) is want


def test_full_grid_is_never_cut(rng: np.random.Generator) -> None:
    cfg = read_mod.default_config()
    # a 4x4 lattice has every line the catalog's grids have: no row or column can be missing
    grid = _grid(rng, 4, 4, 4.0)
    assert read_mod._cut_short(grid, (*_FACE, 3), cfg.rectify.px_per_mm, cfg.grid) is False


@pytest.mark.parametrize(("old_card", "old_margin", "new_shape", "new_card", "want"), [
    ("a", 0.03, (4, 4), "b", "new"),   # the outline shows the cut column and the catalog names it
    (None, 0.0, (4, 4), "b", "new"),   # the same for a card the cut face left unknown
    ("a", 0.03, (4, 3), "b", "old"),   # no more cells: the cut is not confirmed
    ("a", 0.03, (4, 4), None, "old"),  # more cells, but no card named on them
    ("a", 0.2, (4, 4), "b", "old"),    # named with full confidence: not read again
])
def test_choice(rng: np.random.Generator, monkeypatch: pytest.MonkeyPatch, old_card: str | None,
                old_margin: float, new_shape: tuple[int, int], new_card: str | None, want: str) -> None:
    old = _prepared(_grid(rng, 4, 3, 4.0), old_card, old_margin)
    new = _prepared(_grid(rng, *new_shape, 20.0), new_card, 0.05)
    readings = iter([old, new])
    outlined: list[int] = []
    monkeypatch.setattr(read_mod, "_prepare_quad", lambda *a, **k: next(readings))

    def reoutline(*a: object, **k: object) -> np.ndarray:
        outlined.append(1)
        return np.array([[0.0, 0.0], [63.0, 0.0], [63.0, 88.0], [0.0, 88.0]])

    monkeypatch.setattr(read_mod.rectify_mod, "reoutline", reoutline)
    got = read_mod._prepare(np.zeros((8, 8, 3), np.uint8), None, None, read_mod.default_config())
    assert got is (new if want == "new" else old)
    assert bool(outlined) is (old_margin < read_mod.default_config().identify.full_margin)
