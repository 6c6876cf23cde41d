"""Grids on faces blurred across one direction's lines (camera shake along one axis): the
direction whose lines the black-hat misses is measured again with a wider one."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np

from vision.cards.grid import blurred_lines, default_config, face_lines, locate_grids

from .conftest import blank_face

PPM = 4.0
PITCH = 48  # 12 mm cells at 4 px/mm
XS = np.array([54.0 + PITCH * i for i in range(4)])
YS = np.array([80.0 + PITCH * i for i in range(5)])


def _lattice_face() -> np.ndarray:
    """A 63x88 mm face holding a 4x3 lattice of plain cells outlined in dark grey;
    ``(352, 252, 3)`` uint8."""
    face = blank_face((40, 140, 220))
    for r in range(4):
        for c in range(3):
            box = (int(XS[c]), int(YS[r])), (int(XS[c + 1]), int(YS[r + 1]))
            cv2.rectangle(face, *box, (235, 235, 235), -1)
            cv2.rectangle(face, *box, (55, 55, 55), 2)
    return face


def _shaken(face: np.ndarray, rng: np.random.Generator, length: int, vertical: bool) -> np.ndarray:
    """``face`` smeared ``length`` pixels along x (or along y when ``vertical``), then noisy."""
    kernel = np.full((length, 1) if vertical else (1, length), 1.0 / length, np.float32)
    out = cv2.filter2D(face, -1, kernel).astype(np.float64) + rng.normal(0.0, 3.0, face.shape)
    return np.clip(out, 0, 255).astype(np.uint8)


def test_sharp_face_is_not_measured_again(rng: np.random.Generator) -> None:
    face = _shaken(_lattice_face(), rng, 1, False)
    assert blurred_lines(face_lines(face, PPM), PPM) is None


def test_lines_smeared_across_themselves_are_found(rng: np.random.Generator) -> None:
    for vertical in (False, True):
        face = _shaken(_lattice_face(), rng, 9, vertical)
        cfg = default_config()
        lines = face_lines(face, PPM, cfg)
        # the smeared direction's lines are too wide for the line maps' black-hat: no lattice
        assert locate_grids(face, PPM, cfg, lines=lines, deblur=False) == []
        again = blurred_lines(lines, PPM, cfg)
        assert again is not None
        # only the smeared direction's map is made again
        kept, remade = (again.vmap, again.hmap) if vertical else (again.hmap, again.vmap)
        assert np.array_equal(kept, lines.vmap if vertical else lines.hmap)
        assert remade.max() > (lines.hmap if vertical else lines.vmap).max()
        grids = locate_grids(face, PPM, cfg, lines=lines)
        assert len(grids) == 1 and grids[0].whole and grids[0].shape == (4, 3)
        assert np.abs(grids[0].xs - XS).max() <= 3 and np.abs(grids[0].ys - YS).max() <= 3
        # with the retry off (blur_ratio 0) the face keeps no lattice
        assert locate_grids(face, PPM, dataclasses.replace(cfg, blur_ratio=0.0), lines=lines) == []
