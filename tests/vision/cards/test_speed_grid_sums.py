"""The running sums of the line maps and of the dark-line contrast, made from integral images (the
vertical ones of the transposed map), are exactly the plain cumulative sums."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.cards.grid import _running_sums, _widen, default_config, face_lines, line_contrast


def _plain(hw: NDArray[np.uint8], vw: NDArray[np.uint8]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    h, w = hw.shape
    hsum = np.concatenate([np.zeros((h, 1)), np.cumsum(hw, axis=1, dtype=np.float64)], axis=1)
    vsum = np.concatenate([np.zeros((1, w)), np.cumsum(vw, axis=0, dtype=np.float64)], axis=0)
    return hsum, vsum


def test_running_sums_are_the_cumulative_sums() -> None:
    rng = np.random.default_rng(2)
    for h, w in ((1, 1), (7, 3), (40, 29), (352, 252)):
        hw = rng.integers(0, 256, (h, w), dtype=np.uint8)
        vw = rng.integers(0, 256, (h, w), dtype=np.uint8)
        hw[0], vw[:, 0] = 255, 255  # the largest sums a map can hold
        hsum, vsum = _running_sums(hw, vw)
        want_h, want_v = _plain(hw, vw)
        assert hsum.dtype == vsum.dtype == np.float64
        assert hsum.shape == want_h.shape and vsum.shape == want_v.shape
        assert np.array_equal(hsum, want_h) and np.array_equal(vsum, want_v)


def test_contrast_sums_are_the_cumulative_sums_of_the_widened_contrast() -> None:
    rng = np.random.default_rng(4)
    face = rng.integers(100, 256, (120, 90, 3), dtype=np.uint8)
    face[30:32] //= 3  # a dark horizontal line
    face[:, 50:52] //= 2  # and a vertical one
    lines = face_lines(face, 4.0, default_config())
    hc, vc = line_contrast(face, max(3, round(lines.kernel_px) | 1) // 2)
    assert hc.max() > 0 and vc.max() > 0
    hw, vw = cv2.dilate(hc, np.ones((5, 1), np.uint8)), cv2.dilate(vc, np.ones((1, 5), np.uint8))
    want_h, want_v = _plain(hw, vw)
    got_h, got_v = lines.contrast
    assert np.array_equal(got_h, want_h) and np.array_equal(got_v, want_v)
    assert all(np.array_equal(a, b) for a, b in zip(_widen(hc, vc), (hw, vw), strict=True))
