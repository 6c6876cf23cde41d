"""Squat quads: a card far off in a tilted view is foreshortened up to a square. Such a quad is a
card where nothing else was found, and never takes the place of a card-shaped quad inside it."""

from __future__ import annotations

import cv2
import numpy as np

from vision.cards import detect as detect_mod

TABLE = (120, 125, 130)


def _card(img: np.ndarray, quad: np.ndarray) -> None:
    """A coloured card with a light 4x4 grid of outlined cells, its corners at ``quad`` (4, 2)."""
    cv2.fillPoly(img, [np.round(quad).astype(np.int32)], (160, 90, 40))
    c = quad.mean(axis=0)
    half = 0.3 * min(np.ptp(quad[:, 0]), np.ptp(quad[:, 1]))
    x0, y0 = c - half
    step = 2 * half / 4
    x1, y1 = round(x0 + 2 * half), round(y0 + 2 * half)
    cv2.rectangle(img, (round(x0), round(y0)), (x1, y1), (215, 225, 230), -1)
    for k in range(5):
        x, y = round(x0 + k * step), round(y0 + k * step)
        cv2.line(img, (x, round(y0)), (x, y1), (30, 30, 30), 2)
        cv2.line(img, (round(x0), y), (x1, y), (30, 30, 30), 2)


def _noisy(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.clip(img + rng.normal(0.0, 2.0, img.shape), 0, 255).astype(np.uint8)


def _near(quad: np.ndarray, corners: np.ndarray, tol: float) -> bool:
    return any(np.abs(np.roll(quad, k, axis=0) - corners).max() <= tol for k in range(4))


def test_a_foreshortened_card_is_found() -> None:
    img = np.full((480, 640, 3), TABLE, np.uint8)
    upright = np.array([[80, 120], [206, 120], [206, 296], [80, 296]], np.float64)  # 63x88 mm at 2 px/mm
    flat = np.array([[380, 140], [520, 140], [523, 282], [377, 282]], np.float64)  # seen at a flat angle
    _card(img, upright)
    _card(img, flat)
    found = detect_mod.detect(_noisy(img, np.random.default_rng(3)))
    (_, _), (rw, rh), _ = cv2.minAreaRect(flat.astype(np.float32))
    assert min(rw, rh) / max(rw, rh) > detect_mod.default_config().aspect_range[1]  # the case at hand
    assert any(_near(q.corners, upright, 5.0) for q in found)
    assert any(_near(q.corners, flat, 5.0) for q in found)
    assert len(found) == 2


def test_a_squat_loop_around_a_card_leaves_the_card() -> None:
    img = np.full((480, 640, 3), TABLE, np.uint8)
    card = np.array([[250, 155], [390, 155], [390, 325], [250, 325]], np.float64)
    # a drawn box just around the card, squarer than a card: it holds the card and table around it
    square = np.array([[236, 152], [404, 152], [404, 328], [236, 328]], np.float64)
    cv2.polylines(img, [square.astype(np.int32)], True, (40, 40, 40), 2)
    _card(img, card)
    found = detect_mod.detect(_noisy(img, np.random.default_rng(4)))
    assert len(found) == 1 and _near(found[0].corners, card, 5.0)
