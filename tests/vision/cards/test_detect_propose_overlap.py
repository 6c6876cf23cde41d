"""Proposed cards lie side by side: a proposal overlapping one already kept by more than
``propose_overlap`` of its area is not kept, as one overlapping a found card is not."""

from __future__ import annotations

import cv2
import numpy as np

from vision.cards import detect as detect_mod

PX_MM = 2.0  # photo pixels per mm
TABLE = (120, 125, 130)


def _scene(rng: np.random.Generator) -> np.ndarray:
    """A 640x480 table with one outlined 63x88 mm card and two open card outlines (three sides
    each, the bottom side a little short of its corner) facing each other, their card-sized
    completions overlapping by about a third."""
    img = np.full((480, 640, 3), TABLE, np.uint8)
    w, h = 63 * PX_MM, 88 * PX_MM
    a = np.array([[60, 120], [60 + w, 120], [60 + w, 120 + h], [60, 120 + h]])
    cv2.fillPoly(img, [a.astype(np.int32)], (160, 90, 40))
    for x0, x1, y0 in ((330, 456, 100), (516, 390, 160)):
        gap = 8 if x1 > x0 else -8
        cv2.line(img, (x0, y0), (x1, y0), (70, 70, 70), 1)
        cv2.line(img, (x0, y0), (x0, y0 + round(h)), (70, 70, 70), 1)
        cv2.line(img, (x0 + gap, y0 + round(h)), (x1, y0 + round(h)), (70, 70, 70), 1)
    return np.clip(img + rng.normal(0.0, 2.0, img.shape), 0, 255).astype(np.uint8)


def test_proposals_do_not_overlap_each_other() -> None:
    cfg = detect_mod.default_config()
    img = _scene(np.random.default_rng(0))
    found = tuple(q for q in detect_mod.detect(img) if detect_mod.plausible(q))
    assert len(found) == 1
    asked: list[detect_mod.CardQuad] = []

    def accept(q: detect_mod.CardQuad) -> bool:
        asked.append(q)
        return True

    proposed = detect_mod.propose(img, found, accept=accept)
    # each open outline alone would be proposed; together only the better one is
    assert len(proposed) == 1 and len(asked) == 1
    assert abs(proposed[0].area / (63 * 88 * PX_MM * PX_MM) - 1.0) < 0.15
    for i, p in enumerate(proposed):
        for q in proposed[i + 1:]:
            assert detect_mod._overlap(p.corners, q.corners) <= cfg.propose_overlap * min(p.area, q.area)


def test_a_rejected_proposal_leaves_room_for_the_other() -> None:
    img = _scene(np.random.default_rng(0))
    found = tuple(q for q in detect_mod.detect(img) if detect_mod.plausible(q))
    first = detect_mod.propose(img, found, accept=lambda q: True)
    assert len(first) == 1
    # the verification turns the first proposal down: the overlapping one is asked next
    others = detect_mod.propose(img, found, accept=lambda q: not np.allclose(q.corners, first[0].corners))
    assert len(others) == 1
    assert detect_mod._overlap(others[0].corners, first[0].corners) > 0.2 * first[0].area
