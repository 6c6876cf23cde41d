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
