"""A card whose outline lost a corner (to glare, a neighbour, a table line crossing it) is completed
from the four sides that remain; such a quad only fills a place nothing else reaches into."""

from __future__ import annotations

import cv2
import numpy as np

from vision.cards import detect as detect_mod

TABLE = (120, 125, 130)
CARD = np.array([[80, 120], [206, 120], [206, 296], [80, 296]], np.float64)  # 63x88 mm at 2 px/mm


def _cut(quad: np.ndarray, leg: float) -> np.ndarray:
    """``quad`` (4, 2) with its first corner cut off ``leg`` pixels along both of its sides: (5, 2)."""
    a, b, d = quad[0], quad[1], quad[3]
    u = (b - a) / np.hypot(*(b - a))
    v = (d - a) / np.hypot(*(d - a))
    return np.array([a + leg * u, *quad[1:], a + leg * v])


def _near(quad: np.ndarray, corners: np.ndarray, tol: float) -> bool:
    return any(np.abs(np.roll(quad, k, axis=0) - corners).max() <= tol for k in range(4))


def _area(poly: np.ndarray) -> float:
    return float(cv2.contourArea(poly.astype(np.float32)))


def test_a_cut_corner_is_completed() -> None:
    cfg = detect_mod.default_config()
    poly = _cut(CARD, 55.0)
    quad = detect_mod._uncut(poly, _area(poly), cfg)
    assert quad is not None and _near(quad, CARD, 1e-6)


def test_a_large_cut_or_no_quad_is_not_completed() -> None:
    cfg = detect_mod.default_config()
    big = _cut(CARD, 120.0)  # the cut side holds more than corner_cut of the perimeter
    assert detect_mod._uncut(big, _area(big), cfg) is None
    t = np.radians(np.arange(6) * 60.0)
    hexagon = np.stack([300 + 80 * np.cos(t), 300 + 80 * np.sin(t)], axis=1)
    assert detect_mod._uncut(hexagon, _area(hexagon), cfg) is None
    assert detect_mod._uncut(CARD, _area(CARD), cfg) is None  # four sides: nothing to complete


def test_a_completed_quad_must_be_a_card_in_perspective() -> None:
    cfg = detect_mod.default_config()
    # a trapezoid whose parallel sides differ far more than perspective allows, a corner cut
    wedge = np.array([[80, 120], [300, 120], [230, 296], [150, 296]], np.float64)
    poly = _cut(wedge, 40.0)
    assert detect_mod._uncut(poly, _area(poly), cfg) is None


def test_a_hull_that_lost_a_corner_is_a_cut_card() -> None:
    cfg = detect_mod.default_config()
    card = np.array([[150, 100], [308, 100], [308, 320], [150, 320]], np.float64)  # 2.5 px/mm
    # the cut is too deep for the polygon approximation to leave four corners at any tolerance
    cnt = np.round(_cut(card, 70.0)).astype(np.int32).reshape(-1, 1, 2)
    shaped = detect_mod._shape(cnt, cfg, (480, 640))
    assert shaped is not None
    (quad, partial, _), squat, cut, double = shaped
    assert cut and not squat and not partial and not double
    assert _near(quad, card, 2.0)
    # the same card whole is no cut card
    whole = detect_mod._shape(np.round(card).astype(np.int32).reshape(-1, 1, 2), cfg, (480, 640))
    assert whole is not None and not whole[2]


def test_a_card_that_lost_a_corner_is_found(rng: np.random.Generator) -> None:
    img = np.full((480, 640, 3), TABLE, np.uint8)
    cv2.fillPoly(img, [np.round(_cut(CARD, 55.0)).astype(np.int32)], (160, 90, 40))
    img = np.clip(img + rng.normal(0.0, 2.0, img.shape), 0, 255).astype(np.uint8)
    found = [q for q in detect_mod.detect(img) if not q.partial]
    assert len(found) == 1
    assert _near(found[0].corners, CARD, 4.0)




def test_a_corner_completed_outside_the_photo_makes_a_cut_card() -> None:
    cfg = detect_mod.default_config()
    # a card turned 40 degrees whose top corner lies 25 px above the photo; its edge loop stops
    # 12 px inside the photo's edge, so the hull has five sides as if a corner were lost
    t = np.radians(40.0)
    rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    card = np.array([[-79, -110], [79, -110], [79, 110], [-79, 110]], np.float64) @ rot.T
    card += np.array([320.0, -25.0 - card[:, 1].min()])
    mask = np.zeros((480, 640), np.uint8)
    cv2.fillPoly(mask, [np.round(card).astype(np.int32)], 255)
    mask[:12] = 0
    cnt = max(cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)[0], key=cv2.contourArea)
    # the premise: the hull's four longest sides close a quad reaching outside the photo
    hull = cv2.convexHull(cnt)
    peri = cv2.arcLength(hull, True)
    poly = cv2.approxPolyDP(hull, cfg.approx_eps_frac[0] * peri, True).reshape(-1, 2).astype(np.float64)
    done = detect_mod._uncut(poly, float(cv2.contourArea(hull)), cfg)
    assert done is not None and done[:, 1].min() < -cfg.border_px
    shaped = detect_mod._shape(cnt, cfg, (480, 640))
    assert shaped is not None
    (_, partial, _), _, cut, _ = shaped
    assert partial and not cut
