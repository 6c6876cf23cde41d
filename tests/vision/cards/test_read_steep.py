"""A card seen steeply, near the edge of a tilted view, is one card.

Its short side shrinks the most there, so its outline can come out under a card's least aspect
(short side over long), in the range of two cards lying end to end. When the halves of such an
outline are not two cards, the reader reads the whole outline as one card.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.cards import read
from vision.cards.detect import default_config, detect
from vision.synth.camera import Conditions
from vision.synth.scene import CardSpec, render_cards_photo


@pytest.mark.parametrize("style", ["classic", "modern"])
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_a_card_squashed_across_its_length_is_read(style: str, seed: int) -> None:
    spec = CardSpec("t15", (350.0, 200.0), 90.0, ((0, 0), (1, 1)), style, 1, "cross", "black")
    cond = Conditions(size=(1280, 720), table_mm=(700.0, 400.0), blur_sigma=0.8, noise_sigma=3.0)
    scene = render_cards_photo([spec], cond, np.random.default_rng(seed))
    # the view squashed to 0.6 of its height: the card's short side, upright, is 0.43 of its long one
    photo = cv2.resize(scene.image, (1280, 432), interpolation=cv2.INTER_AREA)
    corners = np.asarray(scene.cards[0].corners) * [1.0, 0.6]
    sides = np.linalg.norm(np.roll(corners, -1, axis=0) - corners, axis=1)
    assert sides.min() / sides.max() < default_config().aspect_range[0]
    readings = read(photo)
    assert [r.id for r in readings] == ["t15"]
    assert sorted(readings[0].marked) == [(0, 0), (1, 1)]
    assert np.abs(np.asarray(readings[0].corners) - corners).max() < 8.0


def test_a_small_outline_of_a_double_shape_is_kept_apart() -> None:
    # under twice a card's least area: no two cards, but maybe one seen steeply
    cfg = default_config()
    img = np.full((480, 640, 3), 120, np.uint8)
    cv2.rectangle(img, (300, 200), (348, 221), (230, 235, 240), -1)
    cv2.rectangle(img, (300, 200), (348, 221), (60, 40, 140), 2)
    img = cv2.GaussianBlur(img, (0, 0), 0.8)
    least = cfg.min_area_frac * 480 * 640
    found = detect(img, cfg)
    assert len(found.doubles) == 1
    assert least <= found.doubles[0].area < 2.0 * least
