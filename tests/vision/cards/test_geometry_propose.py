"""Cards whose outline is open, proposed from two sides meeting at a corner and kept only when
their face shows a whole grid with quiet cells."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.cards import detect as detect_mod
from vision.cards import grid as grid_mod
from vision.cards.read import CardsConfig, read

from .conftest import lattice

PX_MM = 2.0  # photo pixels per mm
TABLE = (120, 125, 130)


def _scene(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A 640x480 table with two 63x88 mm cards: one outlined all round, one of the table's own
    colour whose right side is lost and whose bottom side lies on a long line across the table
    (its outline is no closed loop). Returns the image and both cards' corners ``(4, 2)``."""
    img = np.full((480, 640, 3), TABLE, np.uint8)
    w, h = 63 * PX_MM, 88 * PX_MM
    a = np.array([[60, 120], [60 + w, 120], [60 + w, 120 + h], [60, 120 + h]])
    cv2.fillPoly(img, [a.astype(np.int32)], (160, 90, 40))
    lattice(img, 60 + 16 * PX_MM, 120 + 30 * PX_MM, 10 * PX_MM, 3)
    b = np.array([[380, 120], [380 + w, 120], [380 + w, 120 + h], [380, 120 + h]])
    lattice(img, 380 + 16 * PX_MM, 120 + 30 * PX_MM, 10 * PX_MM, 3)
    for i in (0, 1):  # the left and top sides: thin dark edges
        cv2.line(img, tuple(int(v) for v in b[i - 1]), tuple(int(v) for v in b[i]), (70, 70, 70), 1)
    cv2.line(img, (250, int(b[2, 1])), (600, int(b[2, 1])), (70, 70, 70), 1)  # the table's line
    noise = rng.normal(0.0, 2.0, img.shape)
    return np.clip(img + noise, 0, 255).astype(np.uint8), a, b


def _near(quad: np.ndarray, corners: np.ndarray, tol: float) -> bool:
    return any(np.abs(np.roll(quad, k, axis=0) - corners).max() <= tol for k in range(4))


def test_open_outline_is_proposed_from_its_corner() -> None:
    img, a, b = _scene(np.random.default_rng(11))
    found = detect_mod.detect(img)
    assert any(_near(q.corners, a, 6.0) for q in found)
    assert not any(_near(q.corners, b, 12.0) for q in found)  # the path this test is about
    # the chain of the open outline and the table's line makes a quad with a borrowed side
    trusted = tuple(q for q in found if detect_mod.plausible(q))
    assert len(trusted) == 1 and _near(trusted[0].corners, a, 6.0)
    proposed = detect_mod.propose(img, trusted)
    assert any(_near(q.corners, b, 6.0) for q in proposed)
    # nothing is proposed over a card already found
    assert not any(_near(q.corners, a, 20.0) for q in proposed)


def test_nothing_proposed_without_a_found_card() -> None:
    img, _, _ = _scene(np.random.default_rng(12))
    assert detect_mod.propose(img, ()) == ()


def _face_with(texture: bool, rng: np.random.Generator) -> np.ndarray:
    cfg = CardsConfig().rectify
    ppm = cfg.px_per_mm
    h, w = round(cfg.card_mm[1] * ppm), round(cfg.card_mm[0] * ppm)
    face = np.full((h, w, 3), (90, 140, 60), np.uint8)
    if texture:  # wood grain: dark lines in one direction all over, crossed by a few
        for y in range(0, h, round(3 * ppm)):
            cv2.line(face, (0, y), (w - 1, y + int(rng.integers(-3, 4))), (40, 70, 40), 2)
        for x in range(0, w, round(12 * ppm)):
            cv2.line(face, (x, 0), (x, h - 1), (40, 70, 40), 2)
    else:
        lattice(face, 16 * ppm, 30 * ppm, 12 * ppm, 3)
    return face


def test_cells_of_a_card_are_quiet_and_a_table_texture_is_not() -> None:
    rng = np.random.default_rng(13)
    cfg = CardsConfig()
    ppm = cfg.rectify.px_per_mm
    quiet = []
    for texture in (False, True):
        face = _face_with(texture, rng)
        lines = grid_mod.face_lines(face, ppm, cfg.grid)
        grids = grid_mod.locate_grids(face, ppm, cfg.grid, lines=lines)
        assert grids
        quiet.append(grid_mod.inside_lines(lines, grids[0], cfg.grid))
    assert quiet[0] <= cfg.grid.quiet_inside < quiet[1]


def test_reader_keeps_the_proposed_card_in_place_of_the_borrowed_quad() -> None:
    img, a, b = _scene(np.random.default_rng(11))
    found = read(img)
    assert len(found) == 2
    assert any(_near(np.array(r.corners), a, 6.0) for r in found)
    assert any(_near(np.array(r.corners), b, 6.0) for r in found)


def test_sides_of_a_borrowed_quad_seed_the_corner(monkeypatch: pytest.MonkeyPatch) -> None:
    img, _, b = _scene(np.random.default_rng(11))
    trusted = tuple(q for q in detect_mod.detect(img) if detect_mod.plausible(q))
    # the card's top and left sides with the table's line as its bottom: a side is borrowed
    corners = np.array([b[0], b[1], [560.0, b[2, 1]], b[3]])
    borrowed = detect_mod.CardQuad(corners, False, float(cv2.contourArea(corners.astype(np.float32))))
    assert not detect_mod.plausible(borrowed)
    # no straight segment of its own: only the borrowed quad's sides along edges are left
    monkeypatch.setattr(detect_mod, "_segments", lambda edges, min_len: np.zeros((0, 4)))
    assert detect_mod.propose(img, trusted) == ()
    assert any(_near(q.corners, b, 6.0) for q in detect_mod.propose(img, trusted, borrowed=(borrowed,)))


def test_proposals_are_verified_best_first_within_the_budget() -> None:
    img, _, b = _scene(np.random.default_rng(11))
    trusted = tuple(q for q in detect_mod.detect(img) if detect_mod.plausible(q))
    asked: list[detect_mod.CardQuad] = []

    def refuse(q: detect_mod.CardQuad) -> bool:
        asked.append(q)
        return False

    assert detect_mod.propose(img, trusted, accept=refuse) == ()
    assert 1 <= len(asked) <= detect_mod.default_config().propose_max
    assert _near(asked[0].corners, b, 6.0)  # the best supported proposal is asked first
    kept = detect_mod.propose(img, trusted, accept=lambda q: _near(q.corners, b, 6.0))
    assert len(kept) == 1


def test_segments_are_the_straight_sides_of_edge_chains() -> None:
    edges = np.zeros((200, 300), np.uint8)
    quad = np.array([[40, 60], [160, 20], [200, 140], [80, 180]], np.int32)
    cv2.polylines(edges, [quad], True, 255, 1)
    seg = detect_mod._segments(edges, 40.0)
    for k in range(4):
        a, b = quad[k].astype(float), quad[(k + 1) % 4].astype(float)
        ok = [min(np.abs(s - np.concatenate([a, b])).max(), np.abs(s - np.concatenate([b, a])).max()) <= 4.0
              for s in seg]
        assert any(ok), k
    # short wiggles are no sides
    assert all(np.hypot(s[2] - s[0], s[3] - s[1]) >= 40.0 for s in seg)


def test_a_proposal_repair_moves_the_sides_it_can() -> None:
    edges = np.zeros((240, 200), np.uint8)
    cv2.line(edges, (40, 40), (140, 40), 255, 1)     # top
    cv2.line(edges, (140, 40), (140, 180), 255, 1)   # right
    cv2.line(edges, (40, 180), (140, 180), 255, 1)   # bottom; the left side is lost
    near = cv2.dilate(edges, np.ones((3, 3), np.uint8)) > 0
    cfg = detect_mod.default_config()
    # the top side lies below its edge, the left side has none
    quad = np.array([[40.0, 50.0], [140.0, 50.0], [140.0, 180.0], [40.0, 180.0]])
    assert detect_mod._repair(near, quad, cfg) is None
    fixed = detect_mod._repair(near, quad, cfg, every=False)
    assert fixed is not None
    xs, ys = sorted(fixed[:, 0]), sorted(fixed[:, 1])
    assert abs(xs[0] - 40.0) <= 1.0 and abs(xs[1] - 40.0) <= 1.0       # the left side stays
    assert abs(ys[0] - 40.0) <= 1.5 and abs(ys[1] - 40.0) <= 1.5       # the top side is on its edge


def test_detection_carries_the_propose_pass_edges() -> None:
    img, _, b = _scene(np.random.default_rng(11))
    found = detect_mod.detect(img)
    assert isinstance(found, detect_mod.Detection) and found.canny is not None
    assert found.canny.dtype == np.uint8 and found.canny.any()
    trusted = tuple(q for q in found if detect_mod.plausible(q))
    shared = detect_mod.propose(img, trusted, canny=found.canny)
    fresh = detect_mod.propose(img, trusted)
    assert any(_near(q.corners, b, 6.0) for q in shared)
    assert len(shared) == len(fresh)
    assert all(np.array_equal(p.corners, q.corners) for p, q in zip(shared, fresh, strict=True))
    # a map of another size is not this photo's: it is made afresh
    wrong = detect_mod.propose(img, trusted, canny=np.zeros((7, 9), np.uint8))
    assert all(np.array_equal(p.corners, q.corners) for p, q in zip(wrong, fresh, strict=True))
    assert detect_mod.detect(np.full((60, 80, 3), 128, np.uint8)) == ()
