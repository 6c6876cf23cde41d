"""A contour's hull is judged once: ``_shape`` says whether it is card-shaped, squat (squarer than
``aspect_range[1]``, a card only where nothing else was found), a double (two cards end to end,
from ``end_pair_aspect`` to ``aspect_range[0]``) or no card at all."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.cards import detect as detect_mod


def _rect(w: float, h: float, angle_deg: float = 0.0) -> np.ndarray:
    a = np.radians(angle_deg)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    pts = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]]) @ rot.T
    return np.round(pts + np.array([400.0, 300.0])).astype(np.int32).reshape(-1, 1, 2)


@pytest.mark.parametrize(("w", "h", "angle", "squat", "double"), [
    (126, 176, 0.0, False, False),   # card-shaped
    (176, 126, 17.0, False, False),  # card-shaped, turned
    (170, 176, 5.0, True, False),    # foreshortened to nearly a square
    (90, 252, 10.0, False, True),    # two cards end to end (0.36)
    (60, 200, 0.0, False, True),     # two cards end to end, foreshortened across (0.3)
    (40, 200, 0.0, None, None),      # too thin even for two cards
    (4, 4, 0.0, None, None),         # too small
])
def test_shape_verdict(w: float, h: float, angle: float, squat: bool | None, double: bool | None) -> None:
    cfg = detect_mod.default_config()
    cnt = _rect(w, h, angle)
    shaped = detect_mod._shape(cnt, cfg, (600, 800))
    if squat is None:
        assert shaped is None
        return
    assert shaped is not None and shaped[1] is squat and shaped[3] is double
    quad, partial, area = shaped[0]
    assert not partial and quad.shape == (4, 2)
    # the quad is the rectangle drawn: same area, corners on its corners
    assert abs(cv2.contourArea(quad.astype(np.float32)) - w * h) < 0.05 * w * h
    corners = cnt.reshape(4, 2).astype(np.float64)
    assert np.linalg.norm(quad[:, None] - corners[None], axis=2).min(axis=1).max() < 3.0
    assert area == pytest.approx(w * h, rel=0.05)


def _plain_refine(contour: np.ndarray, quad: np.ndarray, cfg: detect_mod.DetectConfig) -> np.ndarray:
    """The corners refined one side at a time, as the detector did before."""
    pts = contour.reshape(-1, 2)
    lines = []
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        d = b - a
        length = float(np.hypot(*d))
        if length < 4:
            return quad
        n = np.array([-d[1], d[0]]) / length
        rel = pts - a
        t = (rel @ d) / (length * length)
        dist = np.abs(rel @ n)
        sel = pts[(t > cfg.refine_span[0]) & (t < cfg.refine_span[1])
                  & (dist < max(cfg.refine_band[0], cfg.refine_band[1] * length))]
        if len(sel) < 5:
            return quad
        vx, vy, x0, y0 = cv2.fitLine(sel.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        lines.append((np.array([x0, y0], float), np.array([vx, vy], float)))
    out, meet = detect_mod._side_corners(lines)
    if not meet.all():
        return quad
    if np.max(np.abs(out - quad)) > cfg.refine_jump * np.sqrt(cv2.contourArea(quad.astype(np.float32))):
        return quad
    return out


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_refine_matches_the_side_by_side_fit(seed: int) -> None:
    rng = np.random.default_rng(seed)
    cfg = detect_mod.default_config()
    for _ in range(12):
        w, h = rng.uniform(40.0, 300.0), rng.uniform(40.0, 300.0)
        img = np.zeros((700, 900), np.uint8)
        cv2.drawContours(img, [_rect(w, h, float(rng.uniform(0.0, 90.0)))], -1, 255, 1)
        img[rng.random(img.shape) < 0.002] = 255
        contours, _ = cv2.findContours(img, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
        cnt = max(contours, key=len)
        pts = cnt.reshape(-1, 2).astype(np.float64)
        quad = cv2.boxPoints(cv2.minAreaRect(cnt)).astype(np.float64)
        quad += rng.normal(0.0, 1.5, quad.shape)  # an approximation, a little off the outline
        for q in (quad, quad[[0, 0, 1, 2]]):  # the second has a side of no length
            assert np.array_equal(detect_mod._refine(pts, q, cfg), _plain_refine(pts, q, cfg))


def test_a_hollow_loop_is_no_card_but_a_thin_chain_may_be() -> None:
    """A loop that fills too little of its card-shaped hull (a thick U) is no card; the contour of
    a thin edge along the same U (an open chain, traced there and back) encloses nothing and is."""
    cfg = detect_mod.default_config()
    thick = np.array([[250, 150], [290, 150], [290, 410], [450, 410], [450, 150], [490, 150],
                      [490, 450], [250, 450]], np.int32)
    assert detect_mod._shape(thick.reshape(-1, 1, 2), cfg, (600, 800)) is None
    img = np.zeros((600, 800), np.uint8)
    cv2.polylines(img, [np.array([[250, 150], [250, 450], [490, 450], [490, 150]], np.int32)], False, 255, 1)
    contours, _ = cv2.findContours(img, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
    assert len(contours) == 1
    assert cv2.contourArea(contours[0]) < cfg.thin_chain * cv2.arcLength(contours[0], True)
    shaped = detect_mod._shape(contours[0], cfg, (600, 800))
    assert shaped is not None
    (quad, partial, _), squat, _, _ = shaped
    assert not partial and not squat
    corners = np.array([[250, 150], [490, 150], [490, 450], [250, 450]], np.float64)
    assert np.linalg.norm(quad[:, None] - corners[None], axis=2).min(axis=1).max() < 3.0
