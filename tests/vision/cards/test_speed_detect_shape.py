"""A contour's hull is judged once: ``_shape`` says whether it is card-shaped, squat (squarer than
``aspect_range[1]``, a card only where nothing else was found) or no card at all."""

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


@pytest.mark.parametrize(("w", "h", "angle", "squat"), [
    (126, 176, 0.0, False),   # card-shaped
    (176, 126, 17.0, False),  # card-shaped, turned
    (170, 176, 5.0, True),    # foreshortened to nearly a square
    (60, 200, 0.0, None),     # too thin for a card
    (4, 4, 0.0, None),        # too small
])
def test_shape_verdict(w: float, h: float, angle: float, squat: bool | None) -> None:
    cfg = detect_mod.default_config()
    cnt = _rect(w, h, angle)
    shaped = detect_mod._shape(cnt, cfg, (600, 800))
    if squat is None:
        assert shaped is None
        return
    assert shaped is not None and shaped[1] is squat
    quad, partial, area = shaped[0]
    assert not partial and quad.shape == (4, 2)
    # the quad is the rectangle drawn: same area, corners on its corners
    assert abs(cv2.contourArea(quad.astype(np.float32)) - w * h) < 0.05 * w * h
    corners = cnt.reshape(4, 2).astype(np.float64)
    assert np.linalg.norm(quad[:, None] - corners[None], axis=2).min(axis=1).max() < 3.0
    assert area == pytest.approx(w * h, rel=0.05)
