"""Shared fixtures of the board reader's stage tests: a rendered board face, rectified at the
reader's size, with its spot lattice. Every image is drawn inside the test run from a seeded
generator."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from vision.board import default_config
from vision.board.spots import Grid, fit_grid
from vision.synth.board import render_board_face

FaceRect = Callable[[Sequence[str], str, int], tuple[NDArray[np.uint8], Grid]]


def _face_rect(layout: Sequence[str], style: str, seed: int) -> tuple[NDArray[np.uint8], Grid]:
    """``layout`` rendered in ``style`` from ``default_rng(seed)``, resized to the default config's
    ``rect_size``.

    Returns
    -------
    rect : ndarray, shape (rect_size, rect_size, 3), uint8
    grid : Grid
        The spot lattice fitted on ``rect``.
    """
    cfg = default_config()
    face = render_board_face(layout, style, np.random.default_rng(seed))
    rect = cv2.resize(face.image, (cfg.rect_size, cfg.rect_size), interpolation=cv2.INTER_AREA)
    return rect, fit_grid(rect, cfg)


@pytest.fixture
def face_rect() -> FaceRect:
    """:func:`_face_rect`: ``face_rect(layout, style, seed) -> (rect, grid)``."""
    return _face_rect


DiscBoard = Callable[[np.random.Generator, NDArray[np.float64]],
                     tuple[NDArray[np.uint8], NDArray[np.float64]]]

_PITCH = 64.0
_RADIUS = 22.0
_FRAME = 40
_FACE = int(5 * _PITCH + 2 * _FRAME)


def _disc_board(rng: np.random.Generator, corners: NDArray[np.float64]) -> tuple[NDArray[np.uint8],
                                                                                  NDArray[np.float64]]:
    """A board of dark and light discs on a table of its own grey (no outline), seen through
    ``corners`` (4, 2) float64 (TL, TR, BR, BL).

    Returns
    -------
    image : (480, 640, 3) uint8 array
        The photo.
    spots : (25, 2) float64 array
        The spots' true places in it, row by row.
    """
    face = np.full((_FACE, _FACE, 3), 150, np.uint8)
    for r in range(5):
        for c in range(5):
            colour = tuple(int(v) for v in rng.integers(20, 90, 3) + 160 * int(rng.integers(2)))
            centre = (round(_FRAME + (c + 0.5) * _PITCH), round(_FRAME + (r + 0.5) * _PITCH))
            cv2.circle(face, centre, round(_RADIUS), colour, -1, cv2.LINE_AA)
    square = np.float32([[0, 0], [_FACE, 0], [_FACE, _FACE], [0, _FACE]])
    hom = cv2.getPerspectiveTransform(square, corners.astype(np.float32))
    table = np.full((480, 640, 3), 150, np.uint8)
    image = cv2.warpPerspective(face, hom, (640, 480), dst=table, borderMode=cv2.BORDER_TRANSPARENT)
    image = (image.astype(np.int16) + rng.integers(-6, 7, image.shape)).clip(0, 255).astype(np.uint8)
    on_face = np.array([[_FRAME + (c + 0.5) * _PITCH, _FRAME + (r + 0.5) * _PITCH]
                        for r in range(5) for c in range(5)])
    spots = cv2.perspectiveTransform(on_face.reshape(-1, 1, 2), hom.astype(np.float64)).reshape(25, 2)
    return image, spots


@pytest.fixture
def disc_board() -> DiscBoard:
    """:func:`_disc_board`: ``disc_board(rng, corners) -> (image, spots)``."""
    return _disc_board
