"""The card's pen strength and the outline band's pixels, read the short way, are what the plain
computations read."""

from __future__ import annotations

import numpy as np

from vision.cards.marks import CellInk, _card_pen


def _ink(strength: np.ndarray) -> CellInk:
    zeros = np.zeros(strength.shape)
    return CellInk(*[zeros] * 8, np.zeros((*strength.shape, 2, 2), bool), strength=strength)


def test_card_pen_is_the_numpy_median(rng: np.random.Generator) -> None:
    for n in range(40):
        shape = (int(rng.integers(1, 5)), int(rng.integers(1, 5)))
        strength = rng.random(shape) * rng.choice([1.0, 3.7, 1e-3])
        state = rng.choice(np.array([1, 0, -1], np.int8), shape)
        printed = rng.choice(np.array(["#", "X", "C"]), shape, p=[0.7, 0.15, 0.15])
        if n == 0:
            state[:], printed[:] = 0, "#"
        clear = (printed == "#") & (state == 1)
        got = _card_pen(state, _ink(strength), printed)
        if not clear.any():
            assert got is None
        else:
            assert got == float(np.median(strength[clear]))


def test_band_pixels_of_stacked_boxes(rng: np.random.Generator) -> None:
    """The outline band of boxes of one size, taken from their stack at once, holds each box's own
    band pixels in the same order."""
    lab = rng.random((60, 70, 3)).astype(np.float32)
    boxes = [(slice(y, y + 13), slice(x, x + 11)) for y, x in ((0, 0), (20, 5), (47, 59), (30, 31))]
    band = np.ones((13, 11), bool)
    band[2:11, 3:9] = False
    want = np.stack([lab[box][band] for box in boxes])
    got = np.stack([lab[box] for box in boxes])[:, band]
    np.testing.assert_array_equal(got, want)
