"""The spot lattice and the per-spot measurements on a rectified board."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.board import default_config
from vision.board.spots import fit_grid, sample_spots
from vision.synth.board import STYLES, render_board_face

LAYOUT = ("WUGRK", "PY.WU", "GRKPY", "UG.RK", "WUGRY")


@pytest.mark.parametrize("style", STYLES)
def test_lattice_fits_the_printed_spots(style: str, rng: np.random.Generator) -> None:
    cfg = default_config()
    face = render_board_face(LAYOUT, style, rng)
    k = cfg.rect_size / face.image.shape[0]
    rect = cv2.resize(face.image, (cfg.rect_size, cfg.rect_size), interpolation=cv2.INTER_AREA)
    grid = fit_grid(rect, cfg)
    pitch = (face.spots[0, 1, 0] - face.spots[0, 0, 0]) * k
    assert np.abs(grid.centres - face.spots * k).max() < 0.12 * pitch
    assert abs(grid.pitch - pitch) < 0.05 * pitch
    assert grid.quality >= cfg.good_grid_quality


def test_samples_have_documented_shapes_and_empty_spots_are_flat(rng: np.random.Generator) -> None:
    cfg = default_config()
    face = render_board_face(LAYOUT, "wood", rng)
    rect = cv2.resize(face.image, (cfg.rect_size, cfg.rect_size), interpolation=cv2.INTER_AREA)
    s = sample_spots(rect, fit_grid(rect, cfg), cfg)
    assert s.inner.shape == (5, 5, 3) and s.texture.shape == (5, 5)
    assert s.sectors.shape == (5, 5, cfg.sector_count, 3) and s.background.shape == (5, 5, 4, 3)
    assert s.inner.min() >= 0.0 and s.inner.max() <= 1.0
    empty = [s.texture[r, c] for r in range(5) for c in range(5) if LAYOUT[r][c] == "."]
    tokens = [s.texture[r, c] for r in range(5) for c in range(5) if LAYOUT[r][c] == "W"]
    assert max(empty) < min(tokens)
    assert s.rim is not None and s.rim.shape == (5, 5, cfg.sector_count, 3)
    # every spot, token or printed empty place, shows its circular edge: none reads as missing
    assert s.ring is not None and s.ring.shape == (5, 5)
    assert s.ring.min() > cfg.ring_missing * float(np.median(s.ring))


def test_the_board_map_holds_the_board_and_each_spots_disc(rng: np.random.Generator) -> None:
    cfg = default_config()
    face = render_board_face(LAYOUT, "wood", rng)
    rect = cv2.resize(face.image, (cfg.rect_size, cfg.rect_size), interpolation=cv2.INTER_AREA)
    grid = fit_grid(rect, cfg)
    s = sample_spots(rect, grid, cfg)
    side = cfg.rect_size // cfg.hand_map_scale
    assert s.board_map is not None and s.board_map.shape == (side, side, 3)
    assert s.map_discs is not None and s.map_discs.shape == (25, side * side)
    # each disc is about a spot's area, the discs do not overlap, and the map is the board's colour
    area = np.pi * (grid.radius / cfg.hand_map_scale) ** 2
    assert np.all(np.abs(s.map_discs.sum(axis=1) - area) < 0.25 * area)
    assert s.map_discs.sum(axis=0).max() == 1
    big = rect.astype(np.float64).mean(axis=(0, 1)) / 255.0
    assert np.abs(s.board_map.mean(axis=(0, 1)) - big).max() < 0.02
    # the disc of spot (2, 3) is centred on that spot
    ys, xs = np.divmod(np.flatnonzero(s.map_discs[2 * 5 + 3]), side)
    centre = (np.array([xs.mean(), ys.mean()]) + 0.5) * cfg.hand_map_scale - 0.5
    assert np.abs(centre - grid.centres[2, 3]).max() < cfg.hand_map_scale
