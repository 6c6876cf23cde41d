"""The detection stage's shortcuts give exactly what the plain computations give."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.cards import detect as detect_mod


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rounded_matches_the_plain_point_array(seed: int) -> None:
    rng = np.random.default_rng(seed)
    turns, offsets, samples = 5, 7, 11
    bases = rng.uniform(-50.0, 400.0, (turns, 2))
    nts = rng.normal(size=(turns, 2))
    dts = rng.normal(size=(turns, 2))
    off = (3.3 + np.arange(offsets)) * (-1.0) ** seed
    along = np.linspace(0.1, 0.9, samples) * rng.uniform(20.0, 200.0)
    plain = (bases[:, None, None, :] + off[None, :, None, None] * nts[:, None, None, :]
             + along[None, None, :, None] * dts[:, None, None, :])
    for axis in (0, 1):
        start = bases[:, axis, None] + off[None, :] * nts[:, axis, None]
        got = detect_mod._rounded(start, along, dts[:, axis])
        assert got.shape == (turns, offsets, samples)
        assert np.array_equal(got, np.round(plain[..., axis]).astype(int))


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_repair_moves_a_lost_side_onto_the_edge(seed: int) -> None:
    """A quad whose one side cuts across the card is moved onto the card's true side."""
    rng = np.random.default_rng(seed)
    cfg = detect_mod.default_config()
    near = np.zeros((160, 200), bool)
    x0, y0 = int(rng.integers(20, 40)), int(rng.integers(20, 30))
    x1, y1 = x0 + 90, y0 + 120
    near[y0, x0:x1 + 1] = near[y1, x0:x1 + 1] = True
    near[y0:y1 + 1, x0] = near[y0:y1 + 1, x1] = True
    cut = x1 - 8  # the right side lost: the quad stops short of it
    quad = np.array([[x0, y0], [cut, y0], [cut, y1], [x0, y1]], float)
    fixed = detect_mod._repair(near, quad, cfg)
    assert fixed is not None
    assert np.max(np.abs(np.sort(fixed[:, 0]) - np.array([x0, x0, x1, x1]))) < 1.5


def _intersect(p1: np.ndarray, v1: np.ndarray, p2: np.ndarray, v2: np.ndarray) -> np.ndarray | None:
    """The plain intersection of one pair of lines (as the detector made it before)."""
    m = np.array([v1, -v2]).T
    if abs(np.linalg.det(m)) < 1e-6:
        return None
    s = np.linalg.solve(m, p2 - p1)
    return p1 + s[0] * v1


@pytest.mark.parametrize("seed", [0, 1])
def test_intersect_many_matches_intersect_one_by_one(seed: int) -> None:
    rng = np.random.default_rng(seed)
    k = 60
    p1, p2 = rng.uniform(-100.0, 900.0, (k, 2)), rng.uniform(-100.0, 900.0, (k, 2))
    v1, v2 = rng.normal(size=(k, 2)), rng.normal(size=(k, 2))
    v1 /= np.hypot(*v1.T)[:, None]
    v2 /= np.hypot(*v2.T)[:, None]
    v2[:5] = v1[:5]  # parallel
    v2[5:8] = -v1[5:8] + 1e-9  # all but parallel
    points, meet = detect_mod._intersect_many(p1, v1, p2, v2)
    assert not meet[:8].any() and meet[8:].all()
    for n in range(k):
        one = _intersect(p1[n], v1[n], p2[n], v2[n])
        assert (one is None) == (not meet[n])
        if one is not None:
            assert np.array_equal(one, points[n])
    nothing = np.zeros((0, 2))
    empty, none = detect_mod._intersect_many(nothing, nothing, nothing, nothing)
    assert empty.shape == (0, 2) and none.shape == (0,)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sides_support_matches_the_plain_mean(seed: int) -> None:
    rng = np.random.default_rng(seed)
    cfg = detect_mod.default_config()
    near = rng.random((90, 120)) < 0.3
    for _ in range(30):
        quad = rng.uniform(-20.0, 140.0, (4, 2))
        t = np.linspace(cfg.support_span, 1.0 - cfg.support_span, cfg.support_samples)[None, :, None]
        p = quad[:, None, :] + t * (np.roll(quad, -1, axis=0) - quad)[:, None, :]
        xi = np.clip(np.round(p[..., 0]).astype(int), 0, 119)
        yi = np.clip(np.round(p[..., 1]).astype(int), 0, 89)
        assert np.array_equal(detect_mod._sides_support(near, quad, cfg), near[yi, xi].mean(axis=1))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_framed_edge_map_has_no_outer_contour_but_the_frame(seed: int) -> None:
    """What _candidates relies on when it tries only the RETR_LIST contours: on an edge map of
    _edges the one outer contour is the image border's, listed too, and never a card."""
    rng = np.random.default_rng(seed)
    cfg = detect_mod.default_config()
    canny = np.zeros((120, 160), np.uint8)
    for _ in range(6):  # card-like loops, some cut by the border, and stray strokes
        x, y = int(rng.integers(-30, 150)), int(rng.integers(-30, 110))
        cv2.rectangle(canny, (x, y), (x + int(rng.integers(20, 60)), y + int(rng.integers(30, 80))), 255, 1)
        cv2.line(canny, tuple(int(v) for v in rng.integers(0, 160, 2)),
                 tuple(int(v) for v in rng.integers(0, 120, 2)), 255, 1)
    for dilate in (0, 1):
        edges = detect_mod._edges(canny, dilate)
        listed, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
        outer, _ = cv2.findContours(edges, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        assert len(outer) == 1
        assert any(np.array_equal(outer[0], c) for c in listed)
        assert detect_mod._shape(outer[0], cfg, edges.shape[:2]) is None


def _plain_segments(edges: np.ndarray, min_len: float) -> np.ndarray:
    """The straight segments as the detector made them before, one contour at a time."""
    contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
    out = []
    for cnt in contours:
        if len(cnt) < min_len:
            continue
        poly = cv2.approxPolyDP(cnt, 2.0, True).reshape(-1, 2).astype(np.float64)
        ends = np.concatenate([poly, np.roll(poly, -1, axis=0)], axis=1)
        out.append(ends[np.hypot(ends[:, 2] - ends[:, 0], ends[:, 3] - ends[:, 1]) >= min_len])
    return np.concatenate(out) if out else np.zeros((0, 4))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_segments_match_the_contour_by_contour_ones(seed: int) -> None:
    rng = np.random.default_rng(seed)
    edges = np.zeros((120, 160), np.uint8)
    for _ in range(8):
        x, y = int(rng.integers(-20, 150)), int(rng.integers(-20, 110))
        cv2.rectangle(edges, (x, y), (x + int(rng.integers(5, 60)), y + int(rng.integers(5, 70))), 255, 1)
        cv2.line(edges, tuple(int(v) for v in rng.integers(0, 160, 2)),
                 tuple(int(v) for v in rng.integers(0, 120, 2)), 255, 1)
    edges[rng.random(edges.shape) < 0.01] = 255  # specks: single points and short chains
    for min_len in (1.0, 12.0, 30.0, 500.0):
        got = detect_mod._segments(edges, min_len)
        assert got.shape[1] == 4 and got.dtype == np.float64
        assert np.array_equal(got, _plain_segments(edges, min_len))
    assert detect_mod._segments(np.zeros((20, 30), np.uint8), 5.0).shape == (0, 4)


@pytest.mark.parametrize("seed", [0, 1])
def test_repair_searches_past_the_border_as_inside_it(seed: int) -> None:
    """A side searched partly outside the photo (its samples there are no edge) moves where the
    same search on a photo with a blank margin round it moves it."""
    rng = np.random.default_rng(seed)
    cfg = detect_mod.default_config()
    near = np.zeros((130, 100), bool)
    x0, y0 = int(rng.integers(3, 8)), int(rng.integers(3, 8))
    x1, y1 = x0 + 90, y0 + 118  # the card fills the photo: the search runs past its border
    near[y0, x0:x1 + 1] = near[y1, x0:x1 + 1] = True
    near[y0:y1 + 1, x0] = near[y0:y1 + 1, x1] = True
    quad = np.array([[x0, y0], [x1 - 9, y0], [x1 - 9, y1], [x0, y1]], float)
    fixed = detect_mod._repair(near, quad, cfg)
    margin = 40
    padded = np.zeros((near.shape[0] + 2 * margin, near.shape[1] + 2 * margin), bool)
    padded[margin:-margin, margin:-margin] = near
    shifted = detect_mod._repair(padded, quad + margin, cfg)
    assert fixed is not None and shifted is not None
    assert np.allclose(fixed + margin, shifted, atol=1e-6)
    assert np.max(np.abs(np.sort(fixed[:, 0]) - np.array([x0, x0, x1, x1]))) < 1.5
