"""The expedition card reader on cards drawn in the tests' own plain look."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.cards.detect import CardQuad, detect
from vision.cards.expedition import (
    _squares_lattice,
    default_config,
    pattern,
    read_expedition,
    same_shape,
    squares,
)
from vision.cards.grid import Grid

from .conftest import PX_PER_MM, expedition_face, lattice, place, table

SHAPES = {
    "e1": [(0, 0), (1, 0)],
    "e2": [(0, 0), (1, 0), (2, 0)],
    "e4": [(0, 0), (1, 0), (1, 1)],
    "e6": [(0, 0), (1, 0), (1, 1), (2, 0)],
    "e7": [(0, 0), (1, 0), (2, 0), (2, 1)],
    "e8": [(0, 0), (0, 1), (1, 0), (1, 1)],
}


@pytest.mark.parametrize("shape_id", sorted(SHAPES))
def test_reads_each_shape(rng: np.random.Generator, shape_id: str) -> None:
    canvas = table(rng)
    truth = place(canvas, expedition_face(SHAPES[shape_id]), (450, 320), float(rng.uniform(0, 360)), 0.55)
    found = read_expedition(canvas)
    assert found is not None and found.id == shape_id
    assert min(np.abs(np.roll(np.array(found.corners), k, axis=0) - truth).max() for k in range(4)) < 5


def test_no_expedition_card(rng: np.random.Generator) -> None:
    assert read_expedition(table(rng)) is None


def test_pattern_needs_squares_edge_to_edge() -> None:
    assert pattern([(10.0, 10.0, 20.0), (32.0, 10.0, 20.0)]) == frozenset({(0, 0), (0, 1)})
    assert pattern([(10.0, 10.0, 20.0), (80.0, 10.0, 20.0)]) is None


def test_same_shape_tells_only_patterns_apart() -> None:
    assert same_shape("e2", "e3") and same_shape("e4", "e5") and same_shape("e6", "e6")
    assert not same_shape("e2", "e4") and not same_shape("e1", "e8") and not same_shape("e1", "x9")


def test_shared_detection_reads_the_same(rng: np.random.Generator) -> None:
    canvas = table(rng)
    place(canvas, expedition_face(SHAPES["e7"]), (450, 320), float(rng.uniform(0, 360)), 0.55)
    own = read_expedition(canvas)
    shared = read_expedition(canvas, quads=detect(canvas))
    assert own is not None and shared is not None and shared.id == own.id == "e7"
    assert read_expedition(canvas, quads=()) is None


@pytest.mark.parametrize("shape_id", ["e1", "e4", "e7"])
def test_squares_without_outlines_are_read_as_one_region(rng: np.random.Generator, shape_id: str) -> None:
    # blur has erased the outlines between the squares: only their common fill stands out
    face = expedition_face(SHAPES[shape_id], outlined=False)
    face = cv2.GaussianBlur(face, (0, 0), 3.0)
    assert len(squares(cv2.resize(face, (252, 352), interpolation=cv2.INTER_AREA), 4.0)) < 2
    canvas = table(rng)
    place(canvas, face, (450, 320), float(rng.uniform(0, 360)), 0.55)
    found = read_expedition(canvas)
    assert found is not None and same_shape(found.id, shape_id)
    assert found.confidence < 1.0  # found as a region, not square by square
    # a region's reading is scaled by region_confidence (an outlined e1 would read 0.5, not 0.25)
    cfg = default_config()
    outlined = min(1.0, len(SHAPES[shape_id]) / cfg.min_squares * 0.5)
    assert found.confidence == pytest.approx(outlined * cfg.region_confidence)


def test_a_faint_outline_between_two_squares_loses_neither(rng: np.random.Generator) -> None:
    # e7, an L of four squares, with the outline between its two bottom squares printed faint: the
    # squares' outlines show only the two upper ones, a domino, while the four squares still stand
    # out from the face as one region
    cells = SHAPES["e7"]
    face = expedition_face(cells)
    s = round(12 * PX_PER_MM)
    x = face.shape[1] // 2  # the line between columns 0 and 1 (square (0, 0) starts s left of it) ...
    y = face.shape[0] // 2 + s  # ... along row 2
    cv2.line(face, (x, y + 2), (x, y + s - 2), (50, 125, 185), 3)  # nearly the squares' fill
    small = cv2.resize(face, (252, 352), interpolation=cv2.INTER_AREA)
    assert len(squares(small, 4.0)) == 2
    canvas = table(rng)
    place(canvas, face, (450, 320), float(rng.uniform(0, 360)), 0.55)
    found = read_expedition(canvas)
    assert found is not None and found.id == "e7"
    # as sure as the two outlined squares, surer than the region alone
    assert found.confidence == pytest.approx(0.5)


def _grid(pitch: float, n: int = 4) -> Grid:
    lines = 20.0 + pitch * np.arange(n + 1)
    return Grid(lines, lines, np.ones((n, n)), np.array([200.0, 210.0, 220.0]))


def test_a_lattice_finer_than_the_squares_cannot_hold_them() -> None:
    cfg = default_config()
    found = [(94.5, 209.5, 47.7), (157.0, 209.0, 48.5), (94.5, 147.0, 46.7)]  # 62.5 px apart
    # a lattice fitted to the art and the squares' edges, 52 px a cell: its presence says nothing
    assert not _squares_lattice(_grid(52.0), found, cfg)
    # the squares' own spacing, or a coarser map lattice (marks or prints taken for squares)
    assert _squares_lattice(_grid(62.0), found, cfg)
    assert _squares_lattice(_grid(90.0), found, cfg)
    assert _squares_lattice(_grid(40.0), found[:1], cfg)  # one square gives no spacing


def test_map_cells_found_as_one_region_keep_their_lattice(rng: np.random.Generator) -> None:
    # a card of 3 x 3 outlined cells: a region search splits them into four larger squares, but
    # the face's lattice is that of its outlined cells, so the face is a map card's
    img = np.full((480, 640, 3), (120, 125, 130), np.uint8)
    corners = np.array([[60, 120], [186, 120], [186, 296], [60, 296]], np.float64)
    cv2.fillPoly(img, [corners.astype(np.int32)], (160, 90, 40))
    lattice(img, 92, 180, 20, 3)
    img = np.clip(img + rng.normal(0.0, 2.0, img.shape), 0, 255).astype(np.uint8)
    quad = CardQuad(corners, False, float(cv2.contourArea(corners.astype(np.float32))))
    assert read_expedition(img, quads=(quad,)) is None


def test_an_expedition_card_is_not_taken_for_a_map_by_a_finer_lattice() -> None:
    # a seeded hard-tier scene: an L of three squares on a glossy orange card, on whose face the
    # grid search fits a finer 4 x 4 lattice to the squares' edges and the art with most places
    # "present"; the map card it stood for was named at a confidence of 0.09
    from vision.bench.cards import TIERS
    from vision.bench.common import bench_rng
    from vision.synth.scene import render_scene

    scene = render_scene(bench_rng(0, TIERS.index("hard"), 51), "hard", size=(1920, 1080))
    assert scene.expedition is not None and scene.expedition.id == "e5"
    found = read_expedition(scene.image)
    assert found is not None and same_shape(found.id, "e5")
