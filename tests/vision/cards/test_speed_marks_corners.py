"""The corners reached by ink joined to a cell's centre, counted for all four corners at once, are
the corners the plain test of each corner finds."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.cards.marks import _linked_corners, _zones, default_config


def _plain(ink: np.ndarray, inner: np.ndarray, corners: tuple[np.ndarray, ...]) -> list[float]:
    """The plain computation over the stacked cells: each corner's joined pixels tested with any."""
    k, h, w = ink.shape
    stacked = np.zeros((k, h + 1, w), np.uint8)
    stacked[:, :h] = ink
    n, labels = cv2.connectedComponents(stacked.reshape(k * (h + 1), w), connectivity=8)
    labels = labels.reshape(k, h + 1, w)[:, :h]
    central = np.zeros(n, bool)
    central[labels[:, inner]] = True
    central[0] = False
    joined = central[labels]
    return (np.sum([joined[:, zone].any(axis=1) for zone in corners], axis=0) / 4.0).tolist()


@pytest.mark.parametrize("shape", [(27, 25), (9, 12), (40, 40)])
def test_linked_corners_count_each_corner(rng: np.random.Generator, shape: tuple[int, int]) -> None:
    z = _zones(shape, default_config())
    h, w = shape
    ink = rng.random((30, h, w)) < rng.random((30, 1, 1)) * 0.5
    ink[:3] = False
    ink[3:6] = True  # every corner joined to the centre
    got = _linked_corners(ink, z.inner, z.corners)
    assert got.dtype == np.float64
    assert got.tolist() == _plain(ink, z.inner, z.corners)
    assert len(set(got.tolist())) >= 3
