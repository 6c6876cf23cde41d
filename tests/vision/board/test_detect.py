"""Finding and rectifying the board."""

from __future__ import annotations

import numpy as np
import pytest

from vision.board import default_config, locate, read
from vision.board.detect import find_candidates, rectify, refine_corners
from vision.errors import ImageError
from vision.geometry import order_corners
from vision.synth.board import render_board_scene
from vision.synth.camera import table_texture

SIZE = (1280, 720)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_finds_the_board_corners(seed: int) -> None:
    scene = render_board_scene(np.random.default_rng(seed), "typical", SIZE, hand=False)
    found = locate(scene.image)
    assert found is not None
    truth = np.asarray(scene.corners)
    side = np.linalg.norm(truth[1] - truth[0])
    assert np.abs(found.corners - truth).max() < 0.03 * side


def test_candidates_are_ordered_quads() -> None:
    scene = render_board_scene(np.random.default_rng(3), "easy", SIZE, hand=False)
    cands = find_candidates(scene.image, default_config())
    assert cands and all(q.shape == (4, 2) for q in cands)


def test_order_corners_starts_top_left_and_runs_clockwise() -> None:
    square = np.array([[10.0, 10.0], [110.0, 12.0], [108.0, 112.0], [8.0, 110.0]])
    shuffled = square[[2, 0, 3, 1]]
    assert np.allclose(order_corners(shuffled), square)


def test_rectify_maps_corners_to_the_square(rng: np.random.Generator) -> None:
    image = rng.integers(0, 255, (200, 300, 3), dtype=np.uint8)
    corners = np.array([[50.0, 40.0], [250.0, 60.0], [240.0, 180.0], [60.0, 170.0]])
    rect, hom = rectify(image, corners, 100)
    assert rect.shape == (100, 100, 3)
    pts = np.column_stack([corners, np.ones(4)]) @ hom.T
    assert np.allclose(pts[:, :2] / pts[:, 2:], [[0, 0], [100, 0], [100, 100], [0, 100]], atol=1e-6)


def test_no_board_gives_none(rng: np.random.Generator) -> None:
    table = table_texture(rng, (640, 360))
    assert read(table) is None


@pytest.mark.parametrize("bad", [np.zeros((10, 10), np.uint8), np.zeros((50, 50, 3), np.float32), "x"])
def test_bad_image_is_a_typed_error(bad: object) -> None:
    with pytest.raises(ImageError, match="image"):
        read(bad)  # type: ignore[arg-type]


def _covered_side_board() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A light board on a dark table whose right side lies under a patch of table colour (an
    arm), the true corners, and a coarse quad 4 px too large on every side."""
    import cv2

    image = np.full((300, 400, 3), 40, np.uint8)
    truth = np.array([[100.0, 60.0], [300.0, 60.0], [300.0, 240.0], [100.0, 240.0]])
    cv2.fillConvexPoly(image, truth.astype(np.int32), (200, 200, 200))
    image[:, 280:] = 40
    coarse = truth + np.array([[-4.0, -4.0], [4.0, -4.0], [4.0, 4.0], [-4.0, 4.0]])
    return image, truth, coarse


def test_refine_keeps_a_side_without_edge_when_three_suffice() -> None:
    image, truth, coarse = _covered_side_board()
    cfg = default_config()
    assert cfg.refine_min_sides == 3
    got = refine_corners(image, coarse, cfg)
    # the top, bottom and left sides move onto the board's edges (within a pixel) ...
    assert abs(got[0, 0] - truth[0, 0]) < 1.0 and abs(got[0, 1] - truth[0, 1]) < 1.0
    assert abs(got[3, 1] - truth[3, 1]) < 1.0
    # ... the covered right side stays where the coarse quad put it
    assert np.allclose(got[1:3, 0], coarse[1:3, 0], atol=0.5)


def test_refine_gives_up_when_too_few_sides_show_an_edge() -> None:
    import dataclasses

    image, _, coarse = _covered_side_board()
    cfg = dataclasses.replace(default_config(), refine_min_sides=4)
    assert np.array_equal(refine_corners(image, coarse, cfg), coarse)


def test_a_board_whose_outline_runs_into_the_grain_is_found() -> None:
    # a wooden board on a wood table under a warm cast: the board's outline joins the grain lines
    # of the table into one edge loop, whose largest quadrilaterals borrow grain lines for sides;
    # the board's own quadrilateral comes later among that loop's candidates
    from vision.bench.board import TIERS, scene_conditions
    from vision.bench.common import bench_rng

    rng = bench_rng(0, TIERS.index("typical"), 87)
    cond = scene_conditions(rng, "typical", (1920, 1080), None)
    scene = render_board_scene(rng, "typical", (1920, 1080), conditions=cond)
    assert scene.style == "wood"
    found = locate(scene.image)
    assert found is not None
    truth = np.asarray(scene.corners)
    side = np.linalg.norm(truth[1] - truth[0])
    assert np.abs(found.corners - truth).max() < 0.03 * side
