"""A detected quad with a side cutting across the card is moved onto the card's outline."""

from __future__ import annotations

import cv2
import numpy as np

from vision.cards.detect import _repair, default_config

CARD = np.array([[50.0, 50.0], [250.0, 50.0], [250.0, 330.0], [50.0, 330.0]])


def _near(rng: np.random.Generator, sides: tuple[int, ...]) -> np.ndarray:
    """An edge map (400, 300) bool with the given sides of the card outline and some clutter."""
    edges = np.zeros((400, 300), np.uint8)
    for i in sides:
        a, b = CARD[i], CARD[(i + 1) % 4]
        cv2.line(edges, (int(a[0]), int(a[1])), (int(b[0]), int(b[1])), 255, 1)
    for _ in range(30):  # short strokes of art and pen inside the card
        x, y = int(rng.integers(70, 230)), int(rng.integers(70, 310))
        dx, dy = (int(v) for v in rng.integers(-15, 15, 2))
        cv2.line(edges, (x, y), (x + dx, y + dy), 255, 1)
    return cv2.dilate(edges, np.ones((3, 3), np.uint8)) > 0


def _close(a: np.ndarray, b: np.ndarray, tol: float) -> bool:
    return min(float(np.abs(np.roll(a, k, axis=0) - b).max()) for k in range(4)) < tol


def test_one_side_cut_across_is_repaired(rng: np.random.Generator) -> None:
    near = _near(rng, (0, 1, 2, 3))
    # the left side runs from the top-left corner diagonally to a point on the bottom side
    cut = np.array([[50.0, 50.0], [250.0, 50.0], [250.0, 330.0], [140.0, 330.0]])
    fixed = _repair(near, cut, default_config())
    assert fixed is not None
    assert _close(fixed, CARD, 3.0)


def test_two_adjacent_sides_cut_across_are_repaired(rng: np.random.Generator) -> None:
    near = _near(rng, (0, 1, 2, 3))
    # three true corners and one inside the card: the bottom and left sides cut across it
    cut = np.array([[50.0, 50.0], [250.0, 50.0], [250.0, 330.0], [150.0, 190.0]])
    fixed = _repair(near, cut, default_config())
    assert fixed is not None
    assert _close(fixed, CARD, 3.0)


def test_no_outline_no_repair(rng: np.random.Generator) -> None:
    near = _near(rng, (0, 1, 2))  # the left side of the card shows no edge at all
    cut = np.array([[50.0, 50.0], [250.0, 50.0], [250.0, 330.0], [140.0, 330.0]])
    assert _repair(near, cut, default_config()) is None
    assert _repair(_near(rng, (0, 1, 2, 3)), CARD, default_config()) is None  # nothing to repair
