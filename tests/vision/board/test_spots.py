"""The spot lattice and the per-spot measurements on a rectified board."""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np
import pytest

from vision.board import default_config
from vision.board.spots import Grid, SpotSamples, fit_grid, sample_spots, sector_deviation
from vision.synth.board import STYLES, render_board_face

LAYOUT = ("WUGRK", "PY.WU", "GRKPY", "UG.RK", "WUGRY")
FaceRect = Callable[..., tuple[np.ndarray, Grid]]  # the face_rect fixture (conftest)


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


def _one_spot(spot: tuple[float, float, float], parts: list[tuple[float, float, float]]) -> SpotSamples:
    """Samples whose 25 spots all have the colour ``spot`` (BGR) and the sectors ``parts``."""
    inner = np.tile(np.asarray(spot, np.float64), (5, 5, 1))
    sectors = np.tile(np.asarray(parts, np.float64), (5, 5, 1, 1))
    return SpotSamples(inner=inner, sectors=sectors, texture=np.zeros((5, 5)),
                       background=np.full((5, 5, 4, 3), 0.3))


def test_a_glare_that_clips_a_channel_is_not_a_change_of_hue() -> None:
    cfg = default_config()
    gold = (0.10, 0.55, 0.90)
    # two sectors under a glare: the gold plus white light, red clipped at the top
    glare = tuple(min(1.0, v + 0.3) for v in gold)
    parts = [gold] * 6 + [glare] * 2
    samples = _one_spot(gold, parts)
    clip = np.zeros((5, 5, 8, 3), bool)
    clip[:, :, 6:, 2] = True
    # its hue looks bent when the clip is not known, not when it is
    assert sector_deviation(samples, cfg)[0, 0] > cfg.sector_spread_max
    assert sector_deviation(samples, cfg, clipped=clip)[0, 0] < 0.25 * cfg.sector_spread_max
    # skin over part of the token, as bright, is no mix of the gold and white light
    skin = (0.55, 0.65, 1.0)
    covered = _one_spot(gold, [gold] * 6 + [skin] * 2)
    assert sector_deviation(covered, cfg, clipped=clip)[0, 0] > cfg.sector_spread_max


@pytest.mark.parametrize("style", ["night", "parchment", "wood"])
def test_a_smooth_slope_of_light_across_an_empty_spot_is_no_texture(style: str, face_rect: FaceRect) -> None:
    cfg = default_config()
    rect, grid = face_rect(LAYOUT, style, 21)
    # the light falls off steeply from left to right across the whole board (the flank of a glare)
    ramp = np.exp(np.linspace(0.3, -2.8, rect.shape[1], dtype=np.float32))[None, :, None]
    sloped = np.clip(rect.astype(np.float32) * ramp, 0, 255).astype(np.uint8)
    s = sample_spots(sloped, grid, cfg)
    empty = [s.texture[r, c] for r in range(5) for c in range(5) if LAYOUT[r][c] == "."]
    tokens = [s.texture[r, c] for r in range(5) for c in range(5) if LAYOUT[r][c] in "UGRK"]
    assert max(empty) < cfg.empty_texture_max
    assert max(empty) < min(tokens)


def test_a_spots_shade_is_its_own_colour_less_lit() -> None:
    cfg = default_config()
    size, pitch = cfg.rect_size, cfg.rect_size / 6.0
    idx = (np.arange(5) + 1.0) * pitch
    centres = np.stack(np.meshgrid(idx, idx), axis=-1)
    grid = Grid(centres=centres, pitch=pitch, radius=0.4 * pitch, score=1.0)
    img = np.full((size, size, 3), 0.3, np.float32)
    # one pinkish token lit from the left: its colour scaled from 0.95 down to 0.55 across it
    colour = np.array([0.85, 0.75, 0.95], np.float32)
    cx, cy = centres[2, 2]
    yy, xx = np.mgrid[0:size, 0:size]
    disc = (xx - cx) ** 2 + (yy - cy) ** 2 <= grid.radius ** 2
    light = 0.75 + 0.2 * (cx - xx) / grid.radius
    img[disc] = colour * light[disc, None]
    rect = np.clip(np.round(img * 255), 0, 255).astype(np.uint8)
    s = sample_spots(rect, grid, cfg)
    assert s.shade is not None and s.shade.shape == (5, 5, 3)
    shade, inner = s.shade[2, 2], s.inner[2, 2]
    # less lit than the spot's own measure, with the same chromaticity (whole pixels, not a
    # percentile of each channel)
    assert shade.mean() < inner.mean() - 0.05
    assert np.allclose(shade / shade.mean(), colour / colour.mean(), atol=0.01)
    assert np.allclose(s.shade[0, 0], 0.3, atol=0.01)
