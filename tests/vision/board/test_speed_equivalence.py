"""The board finder's shared and vectorised steps give exactly what the plain steps give.

Each test holds the plain form of a step (one filter and one Canny per pass, one segment at a
time, one sum over the channel axis) as the reference.
"""

from __future__ import annotations

import dataclasses
import math

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from vision.board import default_config, read
from vision.board.config import BoardConfig
from vision.board.detect import _edges, _line_groups, _percentile_99, edge_source, find_candidates
from vision.board.lattice import _blobs
from vision.board.read import _screen
from vision.synth.board import render_board_scene

SIZE = (640, 360)


@pytest.fixture(scope="module")
def scene_image() -> NDArray[np.uint8]:
    return render_board_scene(np.random.default_rng(5), "typical", SIZE).image


def _plain_edges(small: NDArray[np.uint8], cfg: BoardConfig, sensitivity: float,
                 median: bool) -> NDArray[np.uint8]:
    blur = cv2.medianBlur(small, cfg.median_px) if median else cv2.GaussianBlur(small, (5, 5), 0)
    lab = cv2.cvtColor(blur, cv2.COLOR_BGR2LAB)
    light = lab[:, :, 0]
    top = float(np.percentile(light, 99))
    if top > 1:
        light = cv2.convertScaleAbs(light, alpha=min(4.0, 255.0 / top))
    lo, hi = cfg.canny_low * sensitivity, cfg.canny_high * sensitivity
    edges = cv2.Canny(light, lo, hi)
    for ch in (1, 2):
        edges |= cv2.Canny(lab[:, :, ch], lo / 2, hi / 2)
    k = cv2.getStructuringElement(cv2.MORPH_RECT, (cfg.close_px, cfg.close_px))
    return cv2.morphologyEx(edges, cv2.MORPH_CLOSE, k)


def test_shared_derivatives_give_the_plain_edges(scene_image: NDArray[np.uint8]) -> None:
    cfg = default_config()
    dim = (scene_image // 3).astype(np.uint8)  # the lightness stretch too
    for image in (scene_image, dim):
        source = edge_source(image, cfg)
        for sensitivity, median in zip(cfg.edge_sensitivity, cfg.edge_median, strict=True):
            plain = _plain_edges(source.small, cfg, sensitivity, bool(median))
            assert plain.any()
            assert np.array_equal(_edges(source, cfg, sensitivity, bool(median)), plain)


def test_a_shared_source_gives_each_pass_its_own_candidates(scene_image: NDArray[np.uint8]) -> None:
    cfg = default_config()
    source = edge_source(scene_image, cfg)
    for sensitivity, median in zip(cfg.edge_sensitivity, cfg.edge_median, strict=True):
        shared = find_candidates(scene_image, cfg, sensitivity, bool(median), source)
        alone = find_candidates(scene_image, cfg, sensitivity, bool(median))
        assert len(shared) == len(alone)
        assert all(np.array_equal(a, b) for a, b in zip(shared, alone, strict=True))


def test_the_histogram_percentile_is_numpys(rng: np.random.Generator) -> None:
    sizes = ((1, 1), (3, 7), (50, 101), (360, 640))
    images = [rng.integers(0, 256, (h, w), dtype=np.uint8) for h, w in sizes]
    images += [np.full((20, 30), 7, np.uint8), (rng.random((99, 100)) * 3).astype(np.uint8)]
    step = np.zeros((10, 10), np.uint8)
    step[9, 9] = 200  # the two order statistics differ: numpy's interpolation
    for image in [*images, step]:
        assert _percentile_99(image) == float(np.percentile(image, 99))


def _plain_groups(poly: NDArray[np.float64], cfg: BoardConfig,
                  scale: float) -> list[list[tuple[float, float, float, float]]]:
    """Segments longest first, each joining the first line whose first segment it lies along."""
    segs = [(poly[i], poly[(i + 1) % len(poly)]) for i in range(len(poly))]
    segs.sort(key=lambda s: -float(np.linalg.norm(s[1] - s[0])))
    groups: list[list[tuple[float, float, float, float]]] = []
    heads: list[tuple[NDArray[np.float64], NDArray[np.float64]]] = []
    for a, b in segs:
        length = float(np.linalg.norm(b - a))
        if length < cfg.min_segment_frac * scale:
            break
        d, mid = (b - a) / length, (a + b) / 2
        for g, (p0, d0) in zip(groups, heads, strict=True):
            off = mid - p0
            if (abs(d[0] * d0[1] - d[1] * d0[0]) < math.sin(math.radians(cfg.line_angle_deg))
                    and abs(off[0] * d0[1] - off[1] * d0[0]) < cfg.line_dist_frac * scale):
                g.append((*a, *b))
                break
        else:
            groups.append([(*a, *b)])
            heads.append((mid, d))
    return groups


def test_segments_group_into_the_plain_lines(rng: np.random.Generator) -> None:
    # every line kept, so the lines are the groups
    cfg = dataclasses.replace(default_config(), lines_per_direction=100, max_line_groups=100)
    scale = 400.0
    for _ in range(20):
        # a noisy square outline with collinear pieces: several segments per side
        t = np.linspace(0.0, 1.0, 9)[:-1]
        square = np.array([[0, 0], [300, 0], [300, 300], [0, 300]], np.float64) + 50
        pts = np.vstack([square[i] + t[:, None] * (square[(i + 1) % 4] - square[i]) for i in range(4)])
        pts += rng.integers(-3, 4, pts.shape)
        contour = np.round(pts).astype(np.int32).reshape(-1, 1, 2)
        poly = cv2.approxPolyDP(contour, max(1.0, cfg.approx_eps_frac * scale), True).reshape(-1, 2)
        groups = _plain_groups(poly.astype(np.float64), cfg, scale)
        lines = _line_groups(contour, cfg, scale)
        # each line is the length-weighted middle of its group's pieces
        want = sorted(
            (sum(math.dist(s[:2], s[2:]) for s in g),
             tuple(np.sum([(np.add(s[:2], s[2:]) / 2) * math.dist(s[:2], s[2:]) for s in g], axis=0)
                   / sum(math.dist(s[:2], s[2:]) for s in g)))
            for g in groups)
        got = sorted((ln.length, tuple(ln.middle)) for ln in lines)
        assert len(got) >= 4
        assert len(got) == len(want)
        assert np.allclose([g[0] for g in got], [w[0] for w in want], rtol=0, atol=1e-9)
        assert np.allclose([g[1] for g in got], [w[1] for w in want], rtol=0, atol=1e-9)


def test_blob_responses_are_the_plain_channel_sums(rng: np.random.Generator) -> None:
    cfg = default_config()
    image = np.full((135, 240, 3), 120, np.uint8)
    for _ in range(12):
        x, y, r = int(rng.integers(10, 230)), int(rng.integers(10, 125)), int(rng.integers(3, 9))
        cv2.circle(image, (x, y), r, tuple(int(v) for v in rng.integers(0, 255, 3)), -1, cv2.LINE_AA)
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB).astype(np.float32)
    sigmas = np.asarray(cfg.lattice_sigmas, np.float64)
    resp = []
    for s in sigmas:
        lap = cv2.Laplacian(cv2.GaussianBlur(lab, (0, 0), float(s)), cv2.CV_32F, ksize=3) * float(s * s)
        resp.append(np.sqrt((lap * lap).sum(axis=2)))
    stack = np.stack(resp)
    peak = np.atleast_3d(cv2.dilate(stack.transpose(1, 2, 0), np.ones((3, 3), np.uint8))).transpose(2, 0, 1)
    across = np.maximum(np.roll(peak, 1, axis=0), np.roll(peak, -1, axis=0))
    across[0], across[-1] = peak[1], peak[-2]
    k, y, x = np.nonzero((stack >= peak) & (stack >= across) & (stack > cfg.lattice_min_blob))
    pts, sig = _blobs(image, cfg)
    assert len(pts) >= 12
    # every blob found is one of the plain maxima, at its scale
    plain = {(int(a), int(b), float(sigmas[c])) for a, b, c in zip(x, y, k, strict=True)}
    assert all((int(p[0]), int(p[1]), float(s)) in plain for p, s in zip(pts, sig, strict=True))


def test_a_candidate_seen_again_is_screened_once(scene_image: NDArray[np.uint8]) -> None:
    cfg = default_config()
    cands = find_candidates(scene_image, cfg)[:2]
    seen: dict[bytes, object] = {}
    fits, near = _screen(scene_image, cands, cfg, seen)  # type: ignore[arg-type]
    again = _screen(scene_image, cands + cands, cfg, seen)  # type: ignore[arg-type]
    assert len(seen) == len(cands)
    assert again == (fits + fits, near + near)
    fresh = _screen(scene_image, cands, cfg)
    assert [f.grid.quality for f in fresh[0]] == [f.grid.quality for f in fits]
    assert fits, "the board's outline carries its lattice"


def test_reading_is_repeatable(scene_image: NDArray[np.uint8]) -> None:
    first, second = read(scene_image), read(scene_image)
    assert first is not None and first == second


def test_the_cast_search_cost_is_the_residuals_chroma() -> None:
    from vision.board.classify import _U1, _U2, _chroma_cost, _residuals
    from vision.board.learn import default_model
    from vision.board.spots import chroma

    cfg = default_config()
    means = np.asarray(default_model(cfg.eps).means, np.float64)
    rng = np.random.default_rng(11)
    # spots of every kind under some light, and zero-mean shifts round it
    x = means[rng.integers(0, len(means), 20)] + rng.normal(0.0, 0.2, (20, 3))
    a = rng.normal(0.0, 0.3, (40, 2))
    shifts = a[:, :1] * _U1 + a[:, 1:] * _U2
    plain = (chroma(_residuals(x, means, shifts, cfg)) ** 2).sum(-1)
    cost = _chroma_cost(x, means, shifts, cfg)
    assert cost.shape == (40, 20, len(means))
    # the chroma scale is clipped for some pairs and free for others: both forms are covered
    ch = chroma(means)
    proj = (chroma(x[None] - shifts[:, None]) @ ch.T) / np.maximum((ch ** 2).sum(-1), 1e-9)
    assert (proj < cfg.chroma_scale_min).any() and (proj > cfg.chroma_scale_max).any()
    assert ((proj > cfg.chroma_scale_min) & (proj < cfg.chroma_scale_max)).any()
    np.testing.assert_allclose(cost, plain, rtol=1e-9, atol=1e-12)


def test_lattices_built_together_are_the_lattices_built_one_by_one() -> None:
    from vision.board.spots import _lattice

    margins = np.array([0.05, 0.08, 0.11])
    ox, oy = np.array([-0.01, 0.0, 0.02]), np.array([0.015, -0.02, 0.0])
    centres, pitches = _lattice(480, margins, ox, oy)
    assert centres.shape == (3, 5, 5, 2)
    for k in range(3):
        one, pitch = _lattice(480, float(margins[k]), float(ox[k]), float(oy[k]))
        m = margins[k] * 480
        p = (480 - 2 * m) / 5.0
        xs = (np.arange(5) + 0.5) * p + m + ox[k] * 480
        ys = (np.arange(5) + 0.5) * p + m + oy[k] * 480
        # row i runs along x at the i-th height
        np.testing.assert_allclose(one[..., 0], np.broadcast_to(xs[None, :], (5, 5)))
        np.testing.assert_allclose(one[..., 1], np.broadcast_to(ys[:, None], (5, 5)))
        np.testing.assert_allclose(centres[k], one)
        assert float(pitch) == pytest.approx(p) == pytest.approx(float(pitches[k]))


def test_radial_edges_taken_flat_are_the_edges_taken_by_pixel() -> None:
    from vision.board.spots import radial_edge

    rng = np.random.default_rng(3)
    gx = rng.normal(0, 50, (60, 80)).astype(np.float32)
    gy = rng.normal(0, 50, (60, 80)).astype(np.float32)
    # points inside, on the border and outside the image (clipped to it)
    px = rng.uniform(-5, 85, (4, 25, 24))
    py = rng.uniform(-5, 65, (4, 25, 24))
    ang = rng.uniform(0, 2 * math.pi, 24)
    ux, uy = np.cos(ang), np.sin(ang)
    xi = np.clip(np.round(px).astype(np.int32), 0, 79)
    yi = np.clip(np.round(py).astype(np.int32), 0, 59)
    vx, vy = gx[yi, xi].astype(np.float64), gy[yi, xi].astype(np.float64)
    plain = np.abs(vx * ux + vy * uy) - np.abs(vy * ux - vx * uy)
    out = radial_edge(gx, gy, px, py, ux, uy)
    assert out.shape == plain.shape and out.dtype == np.float64
    np.testing.assert_allclose(out, plain, rtol=1e-5, atol=1e-3)
