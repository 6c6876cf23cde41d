"""Which sides of a quad are the card's short ones: the quad's side lengths, or the other way
round when asked (a view tilted along the card's length can shorten its long sides)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.cards import rectify as rectify_mod


def _rect(rng: np.random.Generator, w: float, h: float, start: int) -> np.ndarray:
    """A ``w`` x ``h`` rectangle's corners, clockwise from corner ``start``, somewhere in a photo."""
    x0, y0 = rng.uniform(20.0, 60.0, 2)
    corners = np.array([[x0, y0], [x0 + w, y0], [x0 + w, y0 + h], [x0, y0 + h]])
    return np.roll(corners, -start, axis=0)


@pytest.mark.parametrize("start", [0, 1, 2, 3])
def test_side_ratio(rng: np.random.Generator, start: int) -> None:
    corners = _rect(rng, 63.0, 88.0, start)
    assert rectify_mod.side_ratio(corners) == pytest.approx(88.0 / 63.0)
    assert rectify_mod.side_ratio(_rect(rng, 70.0, 70.0, start)) == pytest.approx(1.0)


@pytest.mark.parametrize("start", [0, 1])
def test_across_takes_the_long_sides_for_the_short_ones(rng: np.random.Generator, start: int) -> None:
    image = rng.integers(0, 256, (200, 200, 3), dtype=np.uint8)
    corners = _rect(rng, 63.0, 88.0, start)
    cfg = rectify_mod.default_config()

    def top(face: rectify_mod.Face) -> float:
        """The length in photo pixels of the face's top side (TL -> TR)."""
        return float(np.hypot(*(face.corners[1] - face.corners[0])))

    plain = rectify_mod.rectify(image, corners, cfg)
    across = rectify_mod.rectify(image, corners, cfg, across=True)
    assert top(plain) == pytest.approx(63.0) and top(across) == pytest.approx(88.0)
    assert across.image.shape == plain.image.shape  # the face is portrait either way
