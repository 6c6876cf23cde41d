"""Grid location when no lattice is whole (heavy blur): the lattice with the most lines and the
best-covered one are both offered, so a blurred art line taken for one more grid line does not
decide alone."""

from __future__ import annotations

import cv2
import numpy as np

from vision.cards import grid as grid_mod

PPM = 4.0


def _face(rng: np.random.Generator) -> tuple[np.ndarray, list[int], list[int]]:
    """A 63x88 mm face with a 3x3 grid of 12 mm cells whose horizontal outlines are dashed (no
    cell is outlined on all four sides) and a short dark art line one cell above the grid."""
    h, w = round(88 * PPM), round(63 * PPM)
    face = np.full((h, w, 3), (90, 140, 60), np.uint8)
    step = round(12 * PPM)
    x0, y0 = 50, 140
    xs = [x0 + k * step for k in range(4)]
    ys = [y0 + k * step for k in range(4)]
    cv2.rectangle(face, (xs[0], ys[0]), (xs[-1], ys[-1]), (215, 225, 230), -1)
    for x in xs:
        cv2.line(face, (x, ys[0]), (x, ys[-1]), (30, 30, 30), 2)
    for y in ys:
        for c in range(3):  # a third of each side: blur has wiped the rest
            a = xs[c] + step // 3
            cv2.line(face, (a, y), (a + step // 3, y), (30, 30, 30), 2)
    # a long art line where a fourth row would start
    cv2.line(face, (xs[0], ys[0] - step), (xs[-1], ys[0] - step), (30, 30, 30), 2)
    noise = rng.normal(0.0, 3.0, face.shape)
    return np.clip(face + noise, 0, 255).astype(np.uint8), xs, ys


def test_fallback_offers_the_best_covered_lattice() -> None:
    face, xs, ys = _face(np.random.default_rng(5))
    grids = grid_mod.locate_grids(face, PPM, limit=1)
    assert grids and not any(g.whole for g in grids)
    assert any(g.shape == (3, 3) and np.allclose(g.ys, ys, atol=3) and np.allclose(g.xs, xs, atol=3)
               for g in grids)
