"""Board candidates from the spot lattice must be shaped like a board seen from above
(vision.board.lattice, vision.board.detect)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np
import pytest

from vision.board import default_config
from vision.board.detect import board_shaped
from vision.board.lattice import find_lattice_candidates

DiscBoard = Callable[..., tuple[np.ndarray, np.ndarray]]  # the disc_board fixture (conftest)


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


def test_lattice_candidates_are_board_shaped(disc_board: DiscBoard) -> None:
    cfg = default_config()
    # spots on a trapezoid whose far side is 0.45 times its near side: the lattice search frames
    # some of its lattices (one a row or column off, or bent) in quads no view of a board has
    corners = np.array([[226.5, 100.0], [433.5, 100.0], [560.0, 420.0], [100.0, 420.0]])
    image, _ = disc_board(np.random.default_rng(0), corners)
    loose = dataclasses.replace(cfg, max_side_ratio=10.0, min_corner_angle_deg=10.0)
    assert not all(board_shaped(q, cfg) for q in find_lattice_candidates(image, loose))
    cands = find_lattice_candidates(image, cfg)
    assert cands
    assert all(board_shaped(q, cfg) for q in cands)
