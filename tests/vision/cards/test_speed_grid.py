"""The grid stage's shortcuts give exactly what the plain computations give."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.cards import grid as grid_mod

CFG = grid_mod.default_config()


def _face(rng: np.random.Generator, h: int = 150, w: int = 120) -> np.ndarray:
    """A noisy face with a few dark lines (uint8 BGR)."""
    face = rng.integers(120, 256, (h, w, 3), dtype=np.uint8)
    for y in range(10, h - 5, 23):
        face[y:y + 2] //= 3
    for x in range(8, w - 5, 21):
        face[:, x:x + 2] //= 3
    return face


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_balanced_lab_matches_per_pixel_balance(seed: int) -> None:
    rng = np.random.default_rng(seed)
    face = _face(rng)
    paper = rng.uniform(0.0, 255.0, 3)  # includes a channel below 1 now and then
    paper[seed % 3] = 0.5 * seed
    gains = float(np.mean(paper)) / np.maximum(paper, 1.0)
    bal = np.clip(face.astype(np.float32) * gains.astype(np.float32), 0, 255).astype(np.uint8)
    plain = cv2.cvtColor(bal, cv2.COLOR_BGR2LAB).astype(np.float32) - np.array([0, 128, 128], np.float32)
    window = face[5:70, 11:60]  # not contiguous
    assert np.array_equal(grid_mod.balanced_lab(face, paper), plain)
    assert np.array_equal(grid_mod.balanced_lab(window, paper), plain[5:70, 11:60])


@pytest.mark.parametrize("seed", [0, 1])
def test_face_lines_match_float_morphology_and_cumsum(seed: int) -> None:
    rng = np.random.default_rng(seed)
    face = _face(rng)
    ppm = 4.0
    fl = grid_mod.face_lines(face, ppm, CFG)
    gray = cv2.cvtColor(face, cv2.COLOR_BGR2GRAY).astype(np.float32)
    k = max(3, round(CFG.line_kernel_mm * ppm) | 1)
    dark = cv2.morphologyEx(gray, cv2.MORPH_BLACKHAT, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    run = max(5, round(CFG.run_mm * ppm))
    hmap = cv2.morphologyEx(dark, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (run, 1)))
    vmap = cv2.morphologyEx(dark, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (1, run)))
    assert hmap.max() > 0 and vmap.max() > 0
    assert np.array_equal(fl.hmap, hmap) and np.array_equal(fl.vmap, vmap)
    hw = cv2.dilate(hmap, np.ones((5, 1), np.uint8))
    vw = cv2.dilate(vmap, np.ones((1, 5), np.uint8))
    h, w = hmap.shape
    hsum = np.concatenate([np.zeros((h, 1)), np.cumsum(hw, axis=1, dtype=np.float64)], axis=1)
    vsum = np.concatenate([np.zeros((1, w)), np.cumsum(vw, axis=0, dtype=np.float64)], axis=0)
    assert np.array_equal(fl.hsum, hsum) and np.array_equal(fl.vsum, vsum)


def _lattice(rng: np.random.Generator, h: int, w: int, off: bool) -> tuple[np.ndarray, np.ndarray]:
    step = rng.uniform(14.0, 24.0)
    rows, cols = int(rng.integers(3, 5)), int(rng.integers(3, 5))
    lo = -15.0 if off else 2.0
    x0 = rng.uniform(lo, w - cols * step - 2.0 + (15.0 if off else 0.0))
    y0 = rng.uniform(lo, h - rows * step - 2.0 + (15.0 if off else 0.0))
    return x0 + step * np.arange(cols + 1), y0 + step * np.arange(rows + 1)


@pytest.mark.parametrize("off", [False, True])
def test_paper_matches_the_rings_one_by_one(off: bool) -> None:
    rng = np.random.default_rng(7)
    face = _face(rng)
    lab8 = cv2.cvtColor(face, cv2.COLOR_BGR2LAB)  # the plain way: the whole face in Lab first
    lab = lab8.astype(np.float32)
    for n in range(12):
        xs, ys = _lattice(rng, *lab.shape[:2], off)
        cells = (len(xs) - 1) * (len(ys) - 1)
        ok = rng.random(cells) < (0.0 if n == 0 else 0.6)  # no cell outlined: every ring counts
        rings = [grid_mod._ring(lab, xs[c], ys[r], xs[c + 1], ys[r + 1], CFG)
                 for r in range(len(ys) - 1) for c in range(len(xs) - 1)]
        chosen = [rings[i] for i in range(cells) if ok[i]] or rings
        plain = np.median(np.concatenate(chosen), axis=0)
        share = np.array([float(np.mean(np.linalg.norm(rg - plain, axis=1) < CFG.paper_dist))
                          if len(rg) else 0.0 for rg in rings])
        washed = np.array([float(np.mean(grid_mod._washed_out(rg, plain, CFG))) if len(rg) else 0.0
                           for rg in rings])
        paper, frac, glared = grid_mod._paper(face, xs, ys, ok, CFG)
        assert paper.dtype == plain.dtype and np.array_equal(paper, plain)
        assert np.array_equal(frac, share) and frac.max() > 0.0
        assert np.array_equal(glared, washed)


def _cover_plain(hm: np.ndarray, vm: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    horiz, vert, _, _ = grid_mod._lattice_lines(hm, vm, xs, ys)
    both = np.concatenate([horiz.ravel(), vert.ravel()])
    level = float(np.partition(both, (3 * len(both)) // 4)[(3 * len(both)) // 4])
    if level <= 0:
        return np.zeros(len(xs) + len(ys))
    on = CFG.line_on * level
    return np.concatenate([(horiz > on).mean(axis=1), (vert > on).mean(axis=1)])


@pytest.mark.parametrize("off", [False, True])
def test_lattice_cover_matches_lattice_lines(off: bool) -> None:
    rng = np.random.default_rng(11)
    fl = grid_mod.face_lines(_face(rng), 4.0, CFG)
    hm, vm = grid_mod._widen(fl.hmap, fl.vmap)
    for _ in range(10):
        xs, ys = _lattice(rng, *hm.shape, off)
        cov, _ = grid_mod._lattice_cover(hm, vm, xs, ys, CFG)
        assert np.array_equal(cov, _cover_plain(hm, vm, xs, ys))


def _runs_plain(pos: np.ndarray, height: np.ndarray, lo: float, hi: float) -> list[tuple]:
    """The runs as first written: each member the argmin of the distances to the target."""
    out: list[tuple] = []
    seen: set[tuple[int, ...]] = set()
    for i in range(len(pos)):
        for j in range(i + 1, len(pos)):
            d = pos[j] - pos[i]
            if d < lo or d > hi:
                continue
            members = [i]
            for direction in (1, -1):
                k = 1
                while True:
                    dist = np.abs(pos - (pos[i] + direction * k * d))
                    m = int(np.argmin(dist))
                    if dist[m] > CFG.spacing_tol * d:
                        break
                    members.append(m)
                    k += 1
            key = tuple(sorted(set(members)))
            if key in seen or len(key) < CFG.min_lines - 1:
                continue
            seen.add(key)
            sel = np.array(key)
            order = np.round((pos[sel] - pos[sel].min()) / d).astype(int)
            a = np.vstack([np.ones_like(order), order]).T.astype(float)
            (x0, step), *_ = np.linalg.lstsq(a, pos[sel], rcond=None)
            full = x0 + step * np.arange(-1, order.max() + 2)
            out.append((len(full), float(height[sel].sum()), float(step), full))
    return out


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_runs_match_the_argmin_search(seed: int) -> None:
    rng = np.random.default_rng(seed)
    # a lattice of peaks with jitter plus stray peaks, and peaks exactly between two others
    pos = np.sort(np.unique(np.concatenate([30.0 + 20.0 * np.arange(8) + rng.normal(0, 1.0, 8),
                                            rng.uniform(0, 200, 6), [50.0, 60.0, 70.0]])))
    height = rng.uniform(1.0, 2.0, len(pos))
    runs = grid_mod._runs(pos, height, 15.0, 35.0, CFG)
    plain = _runs_plain(pos, height, 15.0, 35.0)
    assert len(runs) == len(plain) > 0
    for (n, s, d, full), (n0, s0, d0, full0) in zip(runs, plain, strict=True):
        assert (n, s, d) == (n0, s0, d0) and np.array_equal(full, full0)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_peaks_match_the_point_by_point_search(seed: int) -> None:
    rng = np.random.default_rng(seed)
    # whole numbers: plateaus and flat parabolas (zero curvature) happen
    profile = rng.integers(0, 6, 300).astype(float)
    p = np.convolve(profile, np.array([1, 2, 3, 2, 1], float) / 9.0, mode="same")
    idx = [i for i in range(1, len(p) - 1) if p[i] >= p[i - 1] and p[i] > p[i + 1] and p[i] >= 0.3 * p.max()]
    plain = [i + (0.5 * (p[i - 1] - p[i + 1]) / den if (den := p[i - 1] - 2 * p[i] + p[i + 1]) != 0 else 0.0)
             for i in idx]
    pos, height = grid_mod._peaks(profile, 0.3)
    assert len(idx) > 5
    assert np.array_equal(pos, np.array(plain)) and np.array_equal(height, p[idx])



@pytest.mark.parametrize("seed", [0, 1, 2])
def test_lab_of_a_window_is_that_window_of_the_face_lab(seed: int) -> None:
    """A pixel's 8-bit Lab depends on that pixel alone: a window converted on its own is the
    same window of the whole face converted (what _paper relies on)."""
    rng = np.random.default_rng(seed)
    face = _face(rng)
    lab = cv2.cvtColor(face, cv2.COLOR_BGR2LAB)
    assert np.array_equal(grid_mod.face_lines(face, 4.0, CFG).lab, lab)
    for _ in range(20):
        y0, x0 = int(rng.integers(0, 140)), int(rng.integers(0, 110))
        y1, x1 = int(rng.integers(y0 + 1, 151)), int(rng.integers(x0 + 1, 121))
        window = np.ascontiguousarray(face[y0:y1, x0:x1])
        assert np.array_equal(cv2.cvtColor(window, cv2.COLOR_BGR2LAB), lab[y0:y1, x0:x1])
