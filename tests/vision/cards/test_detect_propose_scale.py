"""A tilted view shows far cards smaller than near ones: a card whose outline is open is also
proposed at the size of the found card nearest to its corner, not only at the photo's typical
card size."""

from __future__ import annotations

import cv2
import numpy as np

from vision.cards import detect as detect_mod

from .conftest import lattice

TABLE = (120, 125, 130)


def _card(x0: float, y0: float, ppm: float) -> np.ndarray:
    """The corners ``(4, 2)`` of a 63x88 mm card at ``ppm`` pixels per mm, top-left at (x0, y0)."""
    w, h = 63 * ppm, 88 * ppm
    return np.array([[x0, y0], [x0 + w, y0], [x0 + w, y0 + h], [x0, y0 + h]])


def _scene(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A 900x560 table: two near cards at 2.4 px/mm and a far one at 1.4 px/mm, all outlined,
    and beside the far one a card of its size and the table's colour whose left and top sides
    show and whose bottom side lies on a line of the table (its right side is lost). Returns the
    image and the open card's corners."""
    img = np.full((560, 900, 3), TABLE, np.uint8)
    for x0, y0, ppm in ((40, 40, 2.4), (260, 40, 2.4), (560, 300, 1.4)):
        q = _card(x0, y0, ppm)
        cv2.fillPoly(img, [np.round(q).astype(np.int32)], (160, 90, 40))
        lattice(img, x0 + 16 * ppm, y0 + 30 * ppm, 10 * ppm, 3)
    b = _card(700, 300, 1.4)
    lattice(img, 700 + 16 * 1.4, 300 + 30 * 1.4, 10 * 1.4, 3)
    for i in (0, 1):  # the left and top sides: thin dark edges
        cv2.line(img, tuple(int(v) for v in b[i - 1]), tuple(int(v) for v in b[i]), (70, 70, 70), 1)
    cv2.line(img, (690, int(b[2, 1])), (880, int(b[2, 1])), (70, 70, 70), 1)  # the table's line
    return np.clip(img + rng.normal(0.0, 2.0, img.shape), 0, 255).astype(np.uint8), b


def _near(quad: np.ndarray, corners: np.ndarray, tol: float) -> bool:
    return any(np.abs(np.roll(quad, k, axis=0) - corners).max() <= tol for k in range(4))


def test_a_far_open_card_is_proposed_at_its_neighbours_size() -> None:
    img, b = _scene(np.random.default_rng(2))
    found = tuple(q for q in detect_mod.detect(img) if detect_mod.plausible(q))
    assert len(found) == 3
    assert not any(_near(q.corners, b, 12.0) for q in found)
    proposed = detect_mod.propose(img, found, accept=lambda q: True)
    assert any(_near(q.corners, b, 6.0) for q in proposed)
