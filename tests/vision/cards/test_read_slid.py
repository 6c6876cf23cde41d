"""A lattice a row off is slid onto the grid; a name the slid lattice reads otherwise is in doubt."""

from __future__ import annotations

import importlib

import cv2
import numpy as np

from vision.cards.catalog import builtin_catalog
from vision.cards.grid import Grid, default_config, face_lines
from vision.cards.identify import Identity

from .conftest import blank_face, outline_cell, with_noise

read_mod = importlib.import_module("vision.cards.read")

PPM = 4.0
PITCH = 48
XS = [54 + PITCH * i for i in range(4)]
YS = [118 + PITCH * i for i in range(4)]  # the grid's rows
LAYOUT = np.array([[1, 1, 0], [1, 1, 1], [1, 1, 1]], bool)  # a 3x3 card's cells (t40 unturned)


def _face(rng: np.random.Generator) -> np.ndarray:
    """A face with a 3x3 grid of outlined cells and, a row above it, a dark line of the card's art
    across the grid's width (where a lattice one row up finds its top line)."""
    face = blank_face((60, 150, 210))
    cv2.line(face, (XS[0], YS[0] - PITCH), (XS[-1], YS[0] - PITCH), (50, 50, 50), 2)
    for r in range(3):
        for c in range(3):
            if LAYOUT[r, c]:
                outline_cell(face, XS[c], YS[r], XS[c + 1], YS[r + 1])
    return with_noise(face, rng)


def _lattice(ys: list[float]) -> Grid:
    return Grid(np.array(XS, float), np.array(ys, float), np.ones((3, 3)), np.full(3, 235.0))


def test_a_lattice_a_row_up_slides_onto_the_grid(rng: np.random.Generator) -> None:
    cfg = default_config()
    face = _face(rng)
    lines = face_lines(face, PPM, cfg)
    table = read_mod._layout_table(builtin_catalog().cards)
    up = _lattice([y - PITCH for y in YS])
    above = read_mod._layout_fit(lines, up, table, cfg)
    slid = read_mod._slid(face.shape, lines, [up], table, above, PPM, cfg)
    assert slid is not None
    assert slid.shape == (3, 3)
    assert np.allclose(slid.xs, XS, atol=1.0) and np.allclose(slid.ys, YS, atol=1.0)
    assert np.all(slid.presence[LAYOUT] >= 0.5)
    # on the grid itself, no window explains the outlines better
    on = _lattice([float(y) for y in YS])
    best = read_mod._layout_fit(lines, on, table, cfg)
    assert read_mod._slid(face.shape, lines, [on], table, best, PPM, cfg) is None


def test_a_name_is_doubted_only_by_another_card_read_better() -> None:
    cat = builtin_catalog()
    a, b = cat.get("t40"), cat.get("t39")
    named = Identity(a, 0, 0.5, 0.70, 0.03, a)
    assert read_mod._doubted(named, Identity(b, 0, 0.5, 0.72, 0.03, b))
    # the same card, a worse reading or no name: no doubt
    assert not read_mod._doubted(named, Identity(a, 1, 0.9, 0.90, 0.10, a))
    assert not read_mod._doubted(named, Identity(b, 0, 0.3, 0.69, 0.03, b))
    assert not read_mod._doubted(named, Identity(None, 0, 0.0, 0.95, 0.10, b))
