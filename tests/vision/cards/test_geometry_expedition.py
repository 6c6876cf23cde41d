"""The map-card reader leaves the expedition card alone: the expedition's squares, with a line of
its art, make a lattice of a few cells, but its face shows the expedition's pattern."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from vision.cards import read
from vision.cards.catalog import load_catalog
from vision.cards.detect import detect

from .conftest import draw_face, expedition_face_with_art, place, table

read_mod = importlib.import_module("vision.cards.read")



@pytest.mark.parametrize("cells", [[(0, 0), (1, 0), (1, 1), (2, 0)], [(0, 0), (0, 1), (1, 0), (1, 1)],
                                   [(0, 0), (1, 0), (1, 1)]])
def test_expedition_card_is_no_map_card(rng: np.random.Generator, cells: list[tuple[int, int]]) -> None:
    canvas = table(rng)
    place(canvas, expedition_face_with_art(cells), (450, 320), float(rng.uniform(0, 360)), 0.55)
    quads = detect(canvas)
    assert len(quads) == 1 and not quads[0].partial
    # alone, the face is taken for a map card of a few cells that no catalog card fits
    alone = read_mod.read_one(canvas, quads[0], load_catalog(), read_mod.default_config())
    assert alone is not None and alone.id is None
    assert read_mod._is_expedition(canvas, quads[0])
    assert read(canvas, quads=quads) == []


def test_map_card_stays(rng: np.random.Generator) -> None:
    canvas = table(rng)
    card = load_catalog().get("t12")
    assert card is not None
    place(canvas, draw_face(card, 0, frozenset(), rng).image, (450, 320), 20.0, 0.55)
    quads = detect(canvas)
    assert len(quads) == 1
    assert not read_mod._is_expedition(canvas, quads[0])
    (found,) = read(canvas, quads=quads)
    assert found.id == "t12"
