"""A face whose lattice is not square, cut from the card's own outline: one axis holds the grid's
lines, and the square lattice that keeps it and explains the outlines best is the one read."""

from __future__ import annotations

import dataclasses
import importlib

import numpy as np
import pytest

from vision.cards.catalog import Catalog, builtin_catalog
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


def _t16(rng: np.random.Generator) -> tuple[read_mod.CardsConfig, Catalog, np.ndarray, float, float, float]:
    """The reader's config at the faces' scale, the catalog, a face of card t16 drawn unmarked,
    and its grid's cell side and top-left corner (x, y) in face pixels."""
    cfg = read_mod.default_config()
    cfg = dataclasses.replace(cfg, rectify=dataclasses.replace(cfg.rectify, px_per_mm=PX_PER_MM))
    catalog = builtin_catalog()
    drawn = draw_face(catalog.get("t16"), 0, frozenset(), rng)
    s = 44.0 * PX_PER_MM / 4  # draw_face's cell side
    return cfg, catalog, drawn.image, s, (drawn.image.shape[1] - 4 * s) / 2, 30.0 * PX_PER_MM


def test_the_rows_of_a_lattice_of_the_grids_columns(rng: np.random.Generator) -> None:
    cfg, catalog, image, s, gx, gy = _t16(rng)
    xs = [gx + s * k for k in range(5)]
    ys = [gy + s * k for k in range(5)]
    table = read_mod._layout_table(catalog.cards)
    # the columns are the grid's; the rows were taken 0.8 cells apart (a blur across them)
    found = _found(image, xs, [gy + 0.8 * s * k for k in range(5)], cfg)
    got = read_mod._squared(found, table, catalog, cfg)
    assert got is not None
    grid, _, ident = got
    assert ident.card is not None and ident.card.id == "t16"
    assert np.allclose(grid.xs, xs, atol=1.5) and np.allclose(grid.ys, ys, atol=1.5)
    # the rows the grid's and the columns 0.8 cells apart: the same grid is read
    found = _found(image, [gx + 0.8 * s * k for k in range(5)], ys, cfg)
    got = read_mod._squared(found, table, catalog, cfg)
    assert got is not None and got[2].card is not None and got[2].card.id == "t16"
    assert np.allclose(got[0].xs, xs, atol=1.5) and np.allclose(got[0].ys, ys, atol=1.5)


def test_a_guess_named_without_full_confidence_is_no_reading(rng: np.random.Generator,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    cfg, catalog, image, s, gx, gy = _t16(rng)
    card = catalog.get("t16")
    found = _found(image, [gx + s * k for k in range(5)], [gy + 0.8 * s * k for k in range(5)], cfg)
    table = read_mod._layout_table(catalog.cards)
    full = cfg.identify.full_margin
    for margin, named in ((0.5 * full, False), (full, True)):
        monkeypatch.setattr(read_mod.identify_mod, "identify",
                            lambda *a, m=margin, **k: Identity(card, 0, 0.5, 0.8, m, card))
        assert (read_mod._squared(found, table, catalog, cfg) is not None) == named
