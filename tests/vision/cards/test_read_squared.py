"""A face whose lattice is not square, cut from the card's own outline: one axis holds the grid's
lines, and the square lattice that keeps it and explains the outlines best is the one read."""

from __future__ import annotations

import dataclasses
import importlib

import numpy as np
import pytest

from vision.cards.catalog import builtin_catalog
from vision.cards.grid import Grid, face_lines
from vision.cards.identify import Identity

from .conftest import PX_PER_MM, draw_face

read_mod = importlib.import_module("vision.cards.read")


def _found(face: np.ndarray, xs: list[float], ys: list[float], cfg: read_mod.CardsConfig) -> object:
    """The face's lattices as :func:`read._lattices` gives them: one lattice of lines ``xs``, ``ys``."""
    lines = face_lines(face, PX_PER_MM, cfg.grid)
    grid = Grid(np.array(xs), np.array(ys), np.zeros((len(ys) - 1, len(xs) - 1)), np.full(3, 235.0),
                whole=False)
    h, w = face.shape[:2]
    corners = np.array([[0.0, 0.0], [w - 1.0, 0.0], [w - 1.0, h - 1.0], [0.0, h - 1.0]])
    shown = read_mod.rectify_mod.Face(face, corners, np.eye(3), 1.0)
    return read_mod._Lattices(shown, lines, [grid])


def test_the_rows_of_a_lattice_of_the_grids_columns(rng: np.random.Generator) -> None:
    cfg = read_mod.default_config()
    cfg = dataclasses.replace(cfg, rectify=dataclasses.replace(cfg.rectify, px_per_mm=PX_PER_MM))
    catalog = builtin_catalog()
    card = catalog.get("t16")
    drawn = draw_face(card, 0, frozenset(), rng)
    w = drawn.image.shape[1]
    s = 44.0 * PX_PER_MM / 4  # draw_face's cell side
    gx, gy = (w - 4 * s) / 2, 30.0 * PX_PER_MM
    xs = [gx + s * k for k in range(5)]
    ys = [gy + s * k for k in range(5)]
    table = read_mod._layout_table(catalog.cards)
    # the columns are the grid's; the rows were taken 0.8 cells apart (a blur across them)
    found = _found(drawn.image, xs, [gy + 0.8 * s * k for k in range(5)], cfg)
    got = read_mod._squared(found, table, catalog, cfg)
    assert got is not None
    grid, _, ident = got
    assert ident.card is not None and ident.card.id == "t16"
    assert np.allclose(grid.xs, xs, atol=1.5) and np.allclose(grid.ys, ys, atol=1.5)
    # the rows the grid's and the columns 0.8 cells apart: the same grid is read
    found = _found(drawn.image, [gx + 0.8 * s * k for k in range(5)], ys, cfg)
    got = read_mod._squared(found, table, catalog, cfg)
    assert got is not None and got[2].card is not None and got[2].card.id == "t16"
    assert np.allclose(got[0].xs, xs, atol=1.5) and np.allclose(got[0].ys, ys, atol=1.5)


def test_a_guess_named_without_full_confidence_is_no_reading(rng: np.random.Generator,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = read_mod.default_config()
    cfg = dataclasses.replace(cfg, rectify=dataclasses.replace(cfg.rectify, px_per_mm=PX_PER_MM))
    catalog = builtin_catalog()
    card = catalog.get("t16")
    drawn = draw_face(card, 0, frozenset(), rng)
    w = drawn.image.shape[1]
    s = 44.0 * PX_PER_MM / 4
    gx, gy = (w - 4 * s) / 2, 30.0 * PX_PER_MM
    found = _found(drawn.image, [gx + s * k for k in range(5)], [gy + 0.8 * s * k for k in range(5)], cfg)
    table = read_mod._layout_table(catalog.cards)
    full = cfg.identify.full_margin
    for margin, named in ((0.5 * full, False), (full, True)):
        monkeypatch.setattr(read_mod.identify_mod, "identify",
                            lambda *a, m=margin, **k: Identity(card, 0, 0.5, 0.8, m, card))
        assert (read_mod._squared(found, table, catalog, cfg) is not None) == named
