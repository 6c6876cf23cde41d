"""The card's pen strength, read the short way, is what the plain median reads."""

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

