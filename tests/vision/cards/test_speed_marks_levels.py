"""Shortcuts over 8-bit Lab levels must read exactly what the plain computations read."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.cards.expedition import blurred_part, level_distance, median_levels
from vision.cards.marks import _lab_distance


@pytest.mark.parametrize("shape", [(1, 1, 3), (7, 5, 3), (8, 6, 3), (33, 20, 3), (9, 2, 1)])
def test_median_levels_is_numpy_median(rng: np.random.Generator, shape: tuple[int, ...]) -> None:
    spread = rng.integers(0, 256, shape, dtype=np.uint8)
    # few distinct levels: the two middle places often fall on different levels
    few = rng.choice(np.array([3, 90, 91, 250], np.uint8), shape)
    for levels in (spread, few, np.full(shape, 255, np.uint8), np.zeros(shape, np.uint8)):
        want = np.median(levels.astype(np.float32).reshape(-1, shape[-1]), axis=0)
        got = median_levels(levels)
        assert got.dtype == np.float32
        np.testing.assert_array_equal(got, want)


def test_median_levels_of_a_window_view(rng: np.random.Generator) -> None:
    """A cut of a larger image (not contiguous) reads as its own copy."""
    image = rng.integers(0, 256, (40, 30, 3), dtype=np.uint8)
    cut = image[5:-4, 3:-6]
    want = np.median(cut.astype(np.float32).reshape(-1, 3), axis=0)
    np.testing.assert_array_equal(median_levels(cut), want)


def test_distance_from_the_median_level_is_numpy_norm(rng: np.random.Generator) -> None:
    """The region split's contrast: the distance of each pixel from the median levels, as the
    plain float32 norm reads it."""
    image = rng.integers(0, 256, (40, 26, 3), dtype=np.uint8)
    for levels in (image, image[3:-5, 4:-2]):
        lab = levels.astype(np.float32)
        want = np.linalg.norm(lab - np.median(lab.reshape(-1, 3), axis=0), axis=2)
        got = level_distance(levels, median_levels(levels))
        assert got.dtype == np.float32
        np.testing.assert_array_equal(got, want)


def test_level_distance_from_any_centre(rng: np.random.Generator) -> None:
    levels = rng.integers(0, 256, (23, 19, 3), dtype=np.uint8)
    for centre in (rng.uniform(0, 255, 3), rng.integers(0, 256, 3) + 0.5, np.zeros(3), np.full(3, 255.0)):
        c = centre.astype(np.float32)
        np.testing.assert_array_equal(level_distance(levels, c), _lab_distance(levels.astype(np.float32) - c))


def test_median_of_no_levels_is_nan() -> None:
    assert np.isnan(median_levels(np.zeros((0, 2, 3), np.uint8))).all()


def test_blurred_part_is_the_whole_blur_cut(rng: np.random.Generator) -> None:
    """The region split blurs only the face inside its margin: margins wider and narrower than the
    blur's reach, a face with sharp and with smooth detail."""
    for trial in range(40):
        h, w = int(rng.integers(12, 90)), int(rng.integers(12, 90))
        face = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
        if trial % 2:
            face = cv2.GaussianBlur(face, (0, 0), 2.0)
        m = int(rng.integers(0, min(h, w) // 2))
        rows, cols = range(h)[m:h - m], range(w)[m:w - m]
        want = cv2.GaussianBlur(face, (0, 0), 1.0)[m:h - m, m:w - m]
        np.testing.assert_array_equal(blurred_part(face, rows, cols), want)
