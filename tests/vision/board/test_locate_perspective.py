"""The board's lattice of spots under strong perspective (vision.board.lattice): a view tilted
so the far row of spots is much narrower than the near one."""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np
import pytest

from vision.board import default_config, locate
from vision.board.lattice import _GRID, _grow, _in_front, _lattice_fit, find_lattice_candidates

DiscBoard = Callable[..., tuple[np.ndarray, np.ndarray]]  # the disc_board fixture (conftest)


def _trapezoid(top: float) -> np.ndarray:
    """A board's corners (TL, TR, BR, BL) on a 640x480 photo, its far side ``top`` times as
    wide as its near side: (4, 2) float64."""
    near = 380.0
    far = near * top
    return np.array([[330 - far / 2, 90.0], [330 + far / 2, 95.0], [520.0, 400.0], [140.0, 390.0]])


def _spot_error(image: np.ndarray, spots: np.ndarray) -> float:
    """The largest distance, in the near row's pitches, from a true spot to the nearest spot of
    the board :func:`locate` finds (inf without a board)."""
    found = locate(image)
    if found is None:
        return float("inf")
    side = found.rect.shape[0]
    square = np.float32([[0, 0], [side, 0], [side, side], [0, side]])
    back = cv2.getPerspectiveTransform(square, found.corners.astype(np.float32))
    got = cv2.perspectiveTransform(found.grid.centres.reshape(-1, 1, 2), back).reshape(25, 2)
    pitch = float(np.linalg.norm(spots[21] - spots[20]))
    return float(np.linalg.norm(spots[:, None] - got[None], axis=2).min(axis=1).max()) / pitch


def test_a_steep_board_without_outline_is_found_from_its_spots(disc_board: DiscBoard) -> None:
    # the far row 0.6 times as wide as the near one: an affine lattice from one spot and two
    # neighbours drifts off the spots two rows away
    image, spots = disc_board(np.random.default_rng(1), _trapezoid(0.6))
    assert _spot_error(image, spots) < 0.2


@pytest.mark.parametrize("top", [0.9, 0.7])
def test_milder_views_are_found_too(top: float, disc_board: DiscBoard) -> None:
    image, spots = disc_board(np.random.default_rng(0), _trapezoid(top))
    assert _spot_error(image, spots) < 0.2
    assert find_lattice_candidates(image, default_config())


def _perspective_points(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The 25 spots of a steep view (lattice -> pixels homography, (3, 3) float64) with a pixel of
    scatter, and the homography: ((25, 2) float64 points, row-major)."""
    hom = cv2.getPerspectiveTransform(np.float32([[0, 0], [4, 0], [4, 4], [0, 4]]),
                                      _trapezoid(0.55).astype(np.float32)).astype(np.float64)
    pts = cv2.perspectiveTransform(_GRID.reshape(-1, 1, 2), hom).reshape(25, 2)
    return pts + rng.normal(0.0, 1.0, pts.shape), hom


def test_a_lattice_grown_from_one_corner_follows_the_perspective(rng: np.random.Generator) -> None:
    cfg = default_config()
    pts, truth = _perspective_points(rng)
    # the affine guess of the far-left spot (the narrowest cell) and its two neighbours
    o, u, v = pts[0], pts[1] - pts[0], pts[5] - pts[0]
    affine = np.array([[u[0], v[0], o[0]], [u[1], v[1], o[1]], [0.0, 0.0, 1.0]])
    plain = _lattice_fit(pts, affine, cfg)
    assert plain is None or plain[0] < 25
    grown = _grow(pts, affine, cfg)
    assert grown is not None
    got = _lattice_fit(pts, grown, cfg)
    assert got is not None and got[0] == 25
    at = cv2.perspectiveTransform(_GRID.reshape(-1, 1, 2), got[1]).reshape(25, 2)
    want = cv2.perspectiveTransform(_GRID.reshape(-1, 1, 2), truth).reshape(25, 2)
    assert np.abs(at - want).max() < 3.0


def test_too_few_blobs_near_the_origin_grow_nothing() -> None:
    cfg = default_config()
    pts = np.array([[100.0, 100.0], [140.0, 100.0], [100.0, 140.0]])
    affine = np.array([[40.0, 0.0, 100.0], [0.0, 40.0, 100.0], [0.0, 0.0, 1.0]])
    assert _grow(pts, affine, cfg) is None


def test_a_fit_bent_through_its_horizon_is_no_view_of_a_board() -> None:
    assert _in_front(np.eye(3))
    # the horizon (the line the homography sends to infinity) at lattice x = 2
    assert not _in_front(np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [-0.5, 0.0, 1.0]]))
    # a mild perspective keeps it far off
    assert _in_front(np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [-0.05, 0.02, 1.0]]))
