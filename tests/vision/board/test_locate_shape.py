"""Board candidates from the spot lattice must be shaped like a board seen from above
(vision.board.lattice, vision.board.detect)."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from vision.board import default_config
from vision.board.detect import board_shaped
from vision.board.lattice import find_lattice_candidates

PITCH = 64.0
RADIUS = 22.0
FRAME = 40
FACE = int(5 * PITCH + 2 * FRAME)


def _photo(rng: np.random.Generator, corners: np.ndarray) -> np.ndarray:
    """A board of dark and light discs, no outline, warped onto ``corners`` of a 640x480 table of
    its own grey: (480, 640, 3) uint8."""
    face = np.full((FACE, FACE, 3), 150, np.uint8)
    for r in range(5):
        for c in range(5):
            colour = tuple(int(v) for v in rng.integers(20, 90, 3) + 160 * int(rng.integers(2)))
            centre = (round(FRAME + (c + 0.5) * PITCH), round(FRAME + (r + 0.5) * PITCH))
            cv2.circle(face, centre, round(RADIUS), colour, -1, cv2.LINE_AA)
    square = np.float32([[0, 0], [FACE, 0], [FACE, FACE], [0, FACE]])
    hom = cv2.getPerspectiveTransform(square, corners.astype(np.float32))
    table = np.full((480, 640, 3), 150, np.uint8)
    image = cv2.warpPerspective(face, hom, (640, 480), dst=table, borderMode=cv2.BORDER_TRANSPARENT)
    return (image.astype(np.int16) + rng.integers(-6, 7, image.shape)).clip(0, 255).astype(np.uint8)


def test_a_square_seen_from_above_is_board_shaped() -> None:
    cfg = default_config()
    c, s = np.cos(0.3), np.sin(0.3)
    square = np.array([[0.0, 0.0], [200.0, 0.0], [200.0, 200.0], [0.0, 200.0]]) @ [[c, s], [-s, c]] + 300
    assert board_shaped(square, cfg)
    # a mild perspective: the far side 0.7 times the near one
    assert board_shaped(np.array([[170.0, 90.0], [440.0, 95.0], [520.0, 400.0], [140.0, 390.0]]), cfg)


@pytest.mark.parametrize("quad", [
    # a sliver: one side four times another
    [[0.0, 0.0], [400.0, 0.0], [400.0, 100.0], [0.0, 100.0]],
    # a sharp corner (about 30 degrees)
    [[0.0, 0.0], [300.0, 0.0], [560.0, 150.0], [260.0, 150.0]],
    # not convex
    [[0.0, 0.0], [300.0, 0.0], [100.0, 100.0], [0.0, 300.0]],
    # corners thrown far off by a homography bent near its horizon
    [[-5093.0, -2314.0], [1088.0, 573.0], [1154.0, 773.0], [-27474.0, 29311.0]],
])
def test_shapes_no_board_can_have_are_not_board_shaped(quad: list[list[float]]) -> None:
    assert not board_shaped(np.array(quad), default_config())


def test_lattice_candidates_are_board_shaped() -> None:
    cfg = default_config()
    # spots on a trapezoid whose far side is 0.45 times its near side: the lattice search frames
    # some of its lattices (one a row or column off, or bent) in quads no view of a board has
    corners = np.array([[226.5, 100.0], [433.5, 100.0], [560.0, 420.0], [100.0, 420.0]])
    image = _photo(np.random.default_rng(0), corners)
    loose = dataclasses.replace(cfg, max_side_ratio=10.0, min_corner_angle_deg=10.0)
    assert not all(board_shaped(q, cfg) for q in find_lattice_candidates(image, loose))
    cands = find_lattice_candidates(image, cfg)
    assert cands
    assert all(board_shaped(q, cfg) for q in cands)
