"""Stage 4: is each cell marked with pen?

Ink is measured against the card's own cell fill (OMR style): a pixel is ink when it lies far
from the fill colour in Lab or is clearly darker. A printed symbol is not a mark, so a cell is
split into its centre (where symbols sit) and the ring around it (where pen strokes cross,
overshoot and loop). A plain cell is judged on all of its ink; a symbol cell on the ink beyond
what the other cells of its symbol class on the same card (or its clean reference face, when
one exists) show. Two thresholds per decision: below ``lo`` unmarked, above ``hi`` marked, and
in between "uncertain" rather than a guess.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.cards.grid import Grid
from vision.config import load_config


@dataclass(frozen=True)
class MarksConfig:
    inner_frac: float
    ink_dist: float
    ink_dark: float
    marked_hi: float
    marked_lo: float
    symbol_extra_hi: float
    symbol_extra_lo: float
    ref_diff: float
    centre_radius: float
    symbol_ring_cap: float


@cache
def default_config() -> MarksConfig:
    return load_config("cards", MarksConfig, section="marks")


@dataclass(frozen=True)
class CellVerdicts:
    """Per-cell results, each ``(rows, cols)`` in the printed frame.

    ``state``: int8, 1 marked, 0 unmarked, -1 uncertain, -2 no cell (water).
    ``ink``: float64 ink share beyond the printed symbol. ``confidence``: float64 in [0, 1].
    """

    state: NDArray[np.int8]
    ink: NDArray[np.float64]
    confidence: NDArray[np.float64]


def _ink_masks(face: NDArray[np.uint8], paper: NDArray[np.float64], cfg: MarksConfig) -> NDArray[np.bool_]:
    lab = cv2.cvtColor(face, cv2.COLOR_BGR2LAB).astype(np.float32)
    ref = cv2.cvtColor(np.clip(paper, 0, 255).astype(np.uint8).reshape(1, 1, 3), cv2.COLOR_BGR2LAB)
    ref = ref.reshape(3).astype(np.float32)
    dist = np.linalg.norm(lab - ref, axis=2)
    return (dist > cfg.ink_dist) | (lab[:, :, 0] < ref[0] - cfg.ink_dark)


def cell_ink(face: NDArray[np.uint8], grid: Grid, config: MarksConfig | None = None,
             ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Ink share in each cell's ring and centre, two ``(rows, cols)`` float64 arrays."""
    cfg = config or default_config()
    ink = _ink_masks(face, grid.paper, cfg)
    rows, cols = grid.shape
    ring = np.zeros((rows, cols))
    centre = np.zeros((rows, cols))
    for r in range(rows):
        for c in range(cols):
            x0, y0, x1, y1 = grid.cell_box(r, c)
            m = cfg.inner_frac
            cw, ch = x1 - x0, y1 - y0
            patch = ink[round(y0 + m * ch):round(y1 - m * ch), round(x0 + m * cw):round(x1 - m * cw)]
            if patch.size == 0:
                continue
            ph, pw = patch.shape
            yy, xx = np.mgrid[0:ph, 0:pw]
            rr = np.hypot((xx - (pw - 1) / 2) / pw, (yy - (ph - 1) / 2) / ph)
            inner = rr < cfg.centre_radius
            centre[r, c] = float(patch[inner].mean())
            ring[r, c] = float(patch[~inner].mean())
    return ring, centre


def _decide(value: float, lo: float, hi: float) -> tuple[int, float]:
    if value >= hi:
        return 1, float(min(1.0, 0.5 + (value - hi) / hi))
    if value <= lo:
        return 0, float(min(1.0, 0.5 + (lo - value) / max(lo, 1e-6)))
    return -1, float(abs(value - (lo + hi) / 2) / max(hi - lo, 1e-6))


def read_marks(face: NDArray[np.uint8], grid: Grid, printed: NDArray[np.str_],
               reference: tuple[NDArray[np.float64], NDArray[np.float64]] | None = None,
               config: MarksConfig | None = None) -> CellVerdicts:
    """Marked / unmarked / uncertain for every cell of ``printed``.

    Parameters
    ----------
    face : (H, W, 3) uint8 array
        Upright BGR face.
    grid : Grid
        The grid found on it.
    printed : (rows, cols) str array
        The symbols at each grid position as printed on this face (``.`` for water), from the
        identified card, or from presence alone (all ``#``) when unknown.
    reference : pair of (rows, cols) float64 arrays, optional
        Ring and centre ink of the clean reference face, printed frame.
    """
    cfg = config or default_config()
    ring, centre = cell_ink(face, grid, cfg)
    rows, cols = grid.shape
    state = np.full((rows, cols), -2, np.int8)
    extra = np.zeros((rows, cols))
    conf = np.ones((rows, cols))
    total = 0.55 * ring + 0.45 * centre
    for sym in set(printed.ravel()) - {"."}:
        cells = list(zip(*np.nonzero(printed == sym), strict=True))
        if sym == "#":
            base_ring = base_centre = 0.0
            lo, hi = cfg.marked_lo, cfg.marked_hi
        else:
            lo, hi = cfg.symbol_extra_lo, cfg.symbol_extra_hi
            if reference is not None:
                base_ring = float(np.median([reference[0][rc] for rc in cells]))
                base_centre = float(np.median([reference[1][rc] for rc in cells]))
            else:
                # the printed symbol looks alike in every cell of its class: the least inked
                # cell of the class bounds what the print alone shows
                base_ring = min(float(min(ring[rc] for rc in cells)), cfg.symbol_ring_cap)
                base_centre = float(min(centre[rc] for rc in cells))
        for rc in cells:
            if sym == "#":
                v = float(total[rc])
            else:
                v = (0.7 * max(0.0, float(ring[rc]) - base_ring)
                     + 0.3 * max(0.0, float(centre[rc]) - base_centre))
            extra[rc] = v
            s, cf = _decide(v, lo, hi)
            state[rc] = s
            conf[rc] = cf
    return CellVerdicts(state, extra, conf)
