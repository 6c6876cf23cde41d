"""The grid stage's cheaper computations give exactly what the plain ones give: each test holds
the plain computation and compares it with the stage's on small generated faces and lattices."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.cards.grid import GridConfig, _paper, _ring_labels, default_config


def _face(rng: np.random.Generator, h: int = 96, w: int = 72) -> NDArray[np.uint8]:
    """A smooth random BGR face with noise: ``(h, w, 3)`` uint8."""
    base = cv2.resize(rng.integers(0, 256, (6, 5, 3), dtype=np.uint8), (w, h), interpolation=cv2.INTER_LINEAR)
    noise = rng.normal(0.0, 12.0, (h, w, 3))
    return np.clip(base.astype(np.float64) + noise, 0, 255).astype(np.uint8)


def _lattice(rng: np.random.Generator, h: int, w: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """A random lattice of 2 to 4 cells per axis, mostly on a face ``h`` by ``w``."""
    step = rng.uniform(10.0, 20.0)
    cols, rows = int(rng.integers(2, 5)), int(rng.integers(2, 5))
    x0 = rng.uniform(-0.3 * step, w - cols * step * 0.9)
    y0 = rng.uniform(-0.3 * step, h - rows * step * 0.9)
    return x0 + step * np.arange(cols + 1), y0 + step * np.arange(rows + 1)


def _paper_plain(face: NDArray[np.uint8], xs: NDArray[np.float64], ys: NDArray[np.float64],
                 ok: NDArray[np.bool_], cfg: GridConfig) -> tuple[NDArray[np.float32], NDArray[np.float64]]:
    """The rings' median Lab and each ring's share near it, the window around the rings converted
    whole."""
    window, label = _ring_labels(face.shape, xs, ys, cfg)
    n_cells = (len(ys) - 1) * (len(xs) - 1)
    win = cv2.cvtColor(np.ascontiguousarray(face[window]), cv2.COLOR_BGR2LAB)
    inside = label >= 0
    pool = inside & ok[label] if ok.any() else inside
    n = int(np.count_nonzero(pool))
    mask = pool.astype(np.uint8)
    paper = np.empty(3, np.float32)
    for k in range(3):
        counts = np.cumsum(cv2.calcHist([win], [k], mask, [256], [0, 256]).ravel().astype(np.int64))
        lo, hi = np.searchsorted(counts, [(n - 1) // 2, n // 2], side="right")
        paper[k] = (np.float32(lo) + np.float32(hi)) / np.float32(2)
    levels = np.arange(256, dtype=np.float32)[:, None] - paper[None, :]
    sq = cv2.LUT(win, (levels * levels).reshape(256, 1, 3))
    near = np.sqrt(sq[..., 0] + sq[..., 1] + sq[..., 2]) < cfg.paper_dist
    sizes = np.bincount(label[inside], minlength=n_cells)
    hits = np.bincount(label[inside & near], minlength=n_cells)
    return paper, np.where(sizes > 0, hits / np.maximum(sizes, 1), 0.0)


def test_paper_reads_only_the_rings_exactly() -> None:
    rng = np.random.default_rng(7)
    cfg = default_config()
    checked = 0
    for _ in range(60):
        face = _face(rng)
        xs, ys = _lattice(rng, *face.shape[:2])
        if _ring_labels(face.shape, xs, ys, cfg) is None:
            continue
        n_cells = (len(xs) - 1) * (len(ys) - 1)
        for ok in (rng.random(n_cells) < 0.6, np.zeros(n_cells, bool)):
            if ok.any() or not checked % 2:
                paper, share, _ = _paper(face, xs, ys, ok, cfg)
                want_paper, want_share = _paper_plain(face, xs, ys, ok, cfg)
                assert paper.tobytes() == want_paper.tobytes()
                assert share.tobytes() == want_share.tobytes()
                checked += 1
    assert checked >= 40
