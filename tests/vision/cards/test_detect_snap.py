"""A weak quad's side lying between the card's edge and its frame is moved out onto the edge;
a group of touching cards holding a card of a third of its area is no card."""

from __future__ import annotations

import cv2
import numpy as np

from vision.cards.detect import _repair, _snap, _two_cards, default_config

CARD = np.array([[50.0, 50.0], [250.0, 50.0], [250.0, 330.0], [50.0, 330.0]])


def _near(rng: np.random.Generator) -> np.ndarray:
    """An edge map (400, 300) bool: the card's outline, a line of its frame 8 px inside its right
    side, some art."""
    edges = np.zeros((400, 300), np.uint8)
    cv2.polylines(edges, [CARD.astype(np.int32)], True, 255, 1)
    cv2.line(edges, (242, 58), (242, 322), 255, 1)
    for _ in range(30):
        x, y = int(rng.integers(80, 220)), int(rng.integers(80, 300))
        dx, dy = (int(v) for v in rng.integers(-15, 15, 2))
        cv2.line(edges, (x, y), (x + dx, y + dy), 255, 1)
    return cv2.dilate(edges, np.ones((3, 3), np.uint8)) > 0


def _close(a: np.ndarray, b: np.ndarray, tol: float) -> bool:
    return min(float(np.abs(np.roll(a, k, axis=0) - b).max()) for k in range(4)) < tol


def test_side_between_edge_and_frame_goes_out_then_the_cut_side_is_repaired(rng: np.random.Generator) -> None:
    near = _near(rng)
    cfg = default_config()
    # the right side halfway between the edge and the frame, the left one cut across the card
    quad = np.array([[50.0, 50.0], [246.0, 50.0], [246.0, 330.0], [90.0, 330.0]])
    assert _repair(near, quad, cfg) is None  # two opposite sides along no edge
    snapped = _snap(near, quad, cfg)
    assert snapped is not None
    right = snapped[(snapped[:, 0] > 150)]
    assert np.all(np.abs(right[:, 0] - 250.0) <= 1.5)  # onto the edge, not the frame
    fixed = _repair(near, snapped, cfg)
    assert fixed is not None
    assert _close(fixed, CARD, 3.0)


def test_side_outside_the_card_is_not_pulled_in(rng: np.random.Generator) -> None:
    near = _near(rng)
    quad = np.array([[50.0, 50.0], [256.0, 50.0], [256.0, 330.0], [50.0, 330.0]])
    assert _snap(near, quad, default_config()) is None


def test_supported_quad_is_left_alone(rng: np.random.Generator) -> None:
    assert _snap(_near(rng), CARD.copy(), default_config()) is None


def _cand(x0: float, y0: float, w: float, h: float) -> tuple[np.ndarray, bool, float]:
    return np.array([[x0, y0], [x0 + w, y0], [x0 + w, y0 + h], [x0, y0 + h]]), False, w * h


def test_three_cards_apart_are_a_group() -> None:
    cfg = default_config()
    cards = [_cand(10.0 + k * 120.0, 10.0, 100.0, 140.0) for k in range(3)]
    group = _cand(10.0, 10.0, 340.0, 140.0)  # each card fills less than a third of it
    assert cards[0][2] < cfg.held_area[0] * group[2]
    assert _two_cards(group, cards, cards[0][2], cfg)


def test_card_holding_its_frame_is_no_group() -> None:
    cfg = default_config()
    card = _cand(10.0, 10.0, 130.0, 182.0)
    frame = _cand(16.0, 16.0, 118.0, 170.0)  # fills most of the card
    med = card[2] / cfg.pair_area  # the card is near the camera: far larger than the typical card
    assert abs(frame[2] / med - 1.0) < cfg.card_area_tol  # its frame is of a card's size
    assert not _two_cards(card, [frame], med, cfg)
    assert _two_cards(_cand(10.0, 10.0, 130.0, 300.0), [frame], med, cfg)  # a card and more
