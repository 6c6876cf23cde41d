"""The rectify stage's shortcuts give exactly what the plain computations give."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.cards import rectify as rectify_mod


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_strongest_channel_matches_max_over_channels(seed: int) -> None:
    rng = np.random.default_rng(seed)
    view = rng.integers(0, 256, (37, 53, 3), dtype=np.uint8)
    view[5:9] = 0  # flat rows: ties between channels (zeros) too
    g = np.abs(cv2.Sobel(view.astype(np.float32), cv2.CV_32F, 1, 0, ksize=3))
    got = rectify_mod._strongest(g)
    assert got.dtype == np.float32 and np.array_equal(got, g.max(axis=2))


@pytest.mark.parametrize("seed", [0, 1])
def test_edge_profiles_match_the_plain_channel_max(seed: int) -> None:
    rng = np.random.default_rng(seed)
    view = rng.integers(0, 256, (60, 70, 3), dtype=np.uint8)
    k, margin, shape = 8.0, 1.5, (5, 6)
    v = view.astype(np.float32)
    gx = np.abs(cv2.Sobel(v, cv2.CV_32F, 1, 0, ksize=3)).max(axis=2)
    gy = np.abs(cv2.Sobel(v, cv2.CV_32F, 0, 1, ksize=3)).max(axis=2)
    pu = np.median(gx[12:52], axis=0).astype(np.float64)
    pv = np.median(gy[:, 12:60], axis=1).astype(np.float64)
    got_u, got_v = rectify_mod._edge_profiles(view, k, margin, shape)
    assert np.array_equal(got_u, pu) and np.array_equal(got_v, pv)
