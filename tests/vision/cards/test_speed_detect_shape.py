"""The hull of a contour is judged once: ``_shape`` gives what ``_shape_ok`` gives with and
without ``squat``, and says which of the two it was."""

from __future__ import annotations

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
def test_shape_agrees_with_shape_ok(w: float, h: float, angle: float, squat: bool | None) -> None:
    cfg = detect_mod.default_config()
    cnt = _rect(w, h, angle)
    size = (600, 800)
    shaped = detect_mod._shape(cnt, cfg, size)
    plain = detect_mod._shape_ok(cnt, cfg, size)
    wide = detect_mod._shape_ok(cnt, cfg, size, squat=True)
    if squat is None:
        assert shaped is None and plain is None and wide is None
        return
    assert shaped is not None and shaped[1] is squat
    assert wide is not None and np.array_equal(shaped[0][0], wide[0])
    if squat:
        assert plain is None
    else:
        assert plain is not None and np.array_equal(plain[0], shaped[0][0])
