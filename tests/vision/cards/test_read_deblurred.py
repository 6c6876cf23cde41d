"""A face whose lattice is found only on the line maps made again for outlines smeared by camera
shake keeps those maps, so the reader's later checks of its lattices see the outlines that found them."""

from __future__ import annotations

import numpy as np

from vision.cards import detect as detect_mod
from vision.cards.grid import face_lines
from vision.cards.read import _lattices, default_config

from .test_grid_deblur import _lattice_face, _shaken


def _quad(image: np.ndarray) -> detect_mod.CardQuad:
    """The whole photo as one card outline, clockwise from the top-left corner."""
    h, w = image.shape[:2]
    corners = np.array([[0.0, 0.0], [w - 1.0, 0.0], [w - 1.0, h - 1.0], [0.0, h - 1.0]])
    return detect_mod.CardQuad(corners, False, float(w * h))


def test_smeared_face_keeps_the_maps_its_lattice_was_found_on(rng: np.random.Generator) -> None:
    cfg = default_config()
    for vertical in (False, True):
        image = _shaken(_lattice_face(), rng, 9, vertical)
        found = _lattices(image, _quad(image), cfg)
        assert found.grids and all(g.whole for g in found.grids)
        assert sorted(found.grids[0].shape) == [3, 4]
        narrow = face_lines(found.face.image, cfg.rectify.px_per_mm, cfg.grid)
        lines = found.lines
        # smeared along y (vertical), the horizontal outlines are the ones smeared across themselves
        remade, kept = (lines.hmap, lines.vmap) if vertical else (lines.vmap, lines.hmap)
        # the smeared direction's map is the wider one the lattice was found on, the other is unchanged
        assert remade.sum() > 1.5 * (narrow.hmap if vertical else narrow.vmap).sum()
        assert np.array_equal(kept, narrow.vmap if vertical else narrow.hmap)


def test_sharp_face_keeps_its_own_maps(rng: np.random.Generator) -> None:
    cfg = default_config()
    image = _shaken(_lattice_face(), rng, 1, False)
    found = _lattices(image, _quad(image), cfg)
    assert found.grids
    narrow = face_lines(found.face.image, cfg.rectify.px_per_mm, cfg.grid)
    assert np.array_equal(found.lines.hmap, narrow.hmap) and np.array_equal(found.lines.vmap, narrow.vmap)
