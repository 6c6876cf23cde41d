"""A lattice a row off whose slid window explains the outlines better is read on that window too:
the catalog may name the card on it."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from vision.cards.catalog import builtin_catalog
from vision.cards.grid import Grid, default_config, face_lines

from .test_read_slid import PITCH, PPM, XS, YS, _face, _lattice

read_mod = importlib.import_module("vision.cards.read")


def _at(g: Grid, ys: list[float]) -> bool:
    """Whether lattice ``g`` has the grid's columns and rows on ``ys``."""
    return g.shape == (3, 3) and np.allclose(g.xs, XS, atol=1.0) and np.allclose(g.ys, ys, atol=1.0)


def test_the_slid_lattice_is_a_candidate(rng: np.random.Generator, monkeypatch: pytest.MonkeyPatch) -> None:
    # the lattice alone, neither trimmed nor grown (a grown one would reach the grid itself)
    monkeypatch.setattr(read_mod.grid_mod, "trimmed_grids", lambda *args: [])
    monkeypatch.setattr(read_mod.grid_mod, "grown_lattices", lambda *args: [])
    cfg = default_config()
    face = _face(rng)
    lines = face_lines(face, PPM, cfg)
    table = read_mod._layout_table(builtin_catalog().cards)
    up = _lattice([y - PITCH for y in YS])
    found = list(read_mod._outline_candidates(face.shape, lines, [up], table, PPM, cfg))
    # the lattice read a row up comes first; the window slid onto the grid follows, plausible
    assert _at(found[0][1], [y - PITCH for y in YS])
    slid = [(f, g, p) for f, g, p in found if _at(g, YS)]
    assert len(slid) == 1 and slid[0][2]
    assert slid[0][0] > found[0][0]


def test_a_lattice_on_the_grid_has_no_slid_candidate(rng: np.random.Generator) -> None:
    cfg = default_config()
    face = _face(rng)
    lines = face_lines(face, PPM, cfg)
    table = read_mod._layout_table(builtin_catalog().cards)
    on = _lattice([float(y) for y in YS])
    found = list(read_mod._outline_candidates(face.shape, lines, [on], table, PPM, cfg))
    assert not any(_at(g, [y - PITCH for y in YS]) for _, g, _ in found)
    assert sum(_at(g, YS) for _, g, _ in found) == 1
