"""The expedition card that the catalog named, weakly, as a map card."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from vision.analyze import analyze
from vision.bench.cards import TIERS, match_readings
from vision.bench.common import bench_rng
from vision.cards import rectify as rectify_mod
from vision.cards.detect import detect
from vision.cards.expedition import (
    ExpeditionConfig,
    _in_corners,
    default_config,
    map_face_reading,
    read_expedition,
    same_shape,
)
from vision.synth.scene import Scene, render_scene
from vision.types import ExpeditionReading

from .conftest import expedition_face, place, table


def test_in_corners_takes_a_centre_near_both_sides_of_a_corner() -> None:
    shape = (352, 252)  # (h, w) of a face
    assert _in_corners([(30.0, 30.0, 20.0)], shape, 64.0)  # top left: the numeral
    assert _in_corners([(100.0, 200.0, 20.0), (230.0, 330.0, 20.0)], shape, 64.0)  # bottom right
    assert not _in_corners([(30.0, 200.0, 20.0)], shape, 64.0)  # along the left side only
    assert not _in_corners([(126.0, 30.0, 20.0)], shape, 64.0)  # along the top only
    assert not _in_corners([], shape, 64.0)


def _map_read(canvas: np.ndarray, config: ExpeditionConfig | None = None) -> ExpeditionReading | None:
    """The canvas's one card read by :func:`map_face_reading` on its upright face."""
    (quad,) = [q for q in detect(canvas) if not q.partial]
    rcfg = rectify_mod.default_config()
    face = rectify_mod.rectify(canvas, quad.corners, rcfg).image
    return map_face_reading(face, quad.corners, rcfg.px_per_mm, config)[0]


def test_map_faces_reads_only_squares_found_as_one_region(rng: np.random.Generator) -> None:
    canvas = table(rng)
    place(canvas, expedition_face([(0, 0), (1, 0), (1, 1)]), (450, 320), float(rng.uniform(0, 360)), 0.55)
    outlined = read_expedition(canvas)
    region = _map_read(canvas)
    assert outlined is not None and region is not None and same_shape(region.id, "e4")
    cfg = default_config()
    # outlined squares read 0.75 for three; read as one region, that is scaled by region_confidence
    assert outlined.confidence == pytest.approx(0.75)
    assert region.confidence == pytest.approx(0.75 * cfg.region_confidence)


def test_map_faces_leaves_squares_in_a_corner(rng: np.random.Generator) -> None:
    # a patch of four squares in the top left corner, where a map card prints its numeral
    face = expedition_face([])
    s = round(12 * face.shape[1] / 63)
    cv2.rectangle(face, (8, 8), (8 + 2 * s, 8 + 2 * s), (60, 140, 200), -1)
    canvas = table(rng)
    place(canvas, face, (450, 320), 20.0, 0.55)
    assert _map_read(canvas) is None
    # the same patch with no corner left out reads as the square tetromino
    anywhere = dataclasses.replace(default_config(), map_corner_mm=0.0)
    found = _map_read(canvas, anywhere)
    assert found is not None and same_shape(found.id, "e8")


def _scene(seed: int, index: int) -> Scene:
    return render_scene(bench_rng(seed, TIERS.index("hard"), index), "hard", size=(1920, 1080))


@pytest.mark.parametrize(("seed", "index", "shape", "named"), [(0, 60, "e6", "t40"), (0, 56, "e2", "t25")])
def test_an_expedition_card_named_as_a_map_is_the_expedition(seed: int, index: int, shape: str,
                                                             named: str) -> None:
    # seeded hard scenes: the expedition card's squares, frame and a line of its art make a
    # lattice the catalog named, weakly, as a map card (``named``), and the lattice's map grid
    # kept the expedition reader off the face; its squares stand out as one region
    scene = _scene(seed, index)
    assert scene.expedition is not None and scene.expedition.id == shape and not scene.expedition.partial
    reading = analyze(scene.image, game="silver-gold")
    assert reading.expedition is not None and same_shape(reading.expedition.id, shape)
    centre = np.mean(scene.expedition.corners, axis=0)
    assert np.linalg.norm(np.mean(reading.expedition.corners, axis=0) - centre) < 10
    # no map card is read there, and every map card read is one of the scene's
    assert all(np.linalg.norm(np.mean(c.corners, axis=0) - centre) > 50 for c in reading.cards)
    assert named not in {c.id for c in reading.cards}
    assert len(match_readings(scene.cards, reading.cards)) == len(reading.cards)


def test_a_map_cards_lake_is_no_expedition() -> None:
    # a seeded hard scene: t13's 2 x 2 lake shows the island through the grid, squares standing
    # out as one region, and no expedition card is in view; the card was named at 0.11
    scene = _scene(2, 87)
    assert scene.expedition is None
    reading = analyze(scene.image, game="silver-gold")
    assert reading.expedition is None
    named = {scene.cards[i].id: reading.cards[j].id for i, j in match_readings(scene.cards, reading.cards)}
    assert named.get("t13") == "t13"
