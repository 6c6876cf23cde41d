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

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

import numpy as np
from numpy.typing import NDArray

from vision.cards.grid import Grid, balanced_lab
from vision.config import load_config


@dataclass(frozen=True)
class MarksConfig:
    inner_frac: float
    centre_radius: float
    ink_dist: float
    ink_dark: float
    ring_weight: float
    marked_hi: float
    marked_lo: float
    symbol_chroma: float
    symbol_hues: Mapping[str, tuple[tuple[float, float], ...]]
    residual_cap_ring: float
    residual_cap_centre: float


@cache
def default_config() -> MarksConfig:
    return load_config("cards", MarksConfig, section="marks")


@dataclass(frozen=True)
class CellInk:
    """Ink shares per cell, each ``(rows, cols)`` float64 in [0, 1].

    ``ring``/``centre``: all ink in the band inside the outline and in the centre disc.
    ``ring_res``/``centre_res``: ink that is not of the hue of the cell's printed symbol.
    """

    ring: NDArray[np.float64]
    centre: NDArray[np.float64]
    ring_res: NDArray[np.float64]
    centre_res: NDArray[np.float64]


@dataclass(frozen=True)
class CellVerdicts:
    """Per-cell results, each ``(rows, cols)`` in the printed frame.

    ``state``: int8, 1 marked, 0 unmarked, -1 uncertain, -2 no cell (water).
    ``ink``: float64 pen-ink score beyond the printed symbol. ``confidence``: float64 in [0, 1].
    """

    state: NDArray[np.int8]
    ink: NDArray[np.float64]
    confidence: NDArray[np.float64]


def cell_ink(face: NDArray[np.uint8], grid: Grid, printed: NDArray[np.str_],
             config: MarksConfig | None = None) -> CellInk:
    """Measure the ink of every cell.

    A pixel is ink when it lies ``ink_dist`` from the cells' fill in Lab or is ``ink_dark``
    darker. ``printed`` ``(rows, cols)`` names each position's symbol (``#XCP.``), which sets the
    hues that do not count as residual ink.
    """
    cfg = config or default_config()
    lab = balanced_lab(face, grid.paper)
    paper = _paper_lab(lab, grid, printed)
    dist = np.linalg.norm(lab - paper, axis=2)
    ink = (dist > cfg.ink_dist) | (lab[:, :, 0] < paper[0] - cfg.ink_dark)
    chroma = np.hypot(lab[:, :, 1], lab[:, :, 2])
    hue = np.degrees(np.arctan2(lab[:, :, 2], lab[:, :, 1])) % 360.0
    coloured = chroma > cfg.symbol_chroma
    rows, cols = grid.shape
    out = [np.zeros((rows, cols)) for _ in range(4)]
    for r in range(rows):
        for c in range(cols):
            sym = str(printed[r, c])
            if sym == ".":
                continue
            x0, y0, x1, y1 = grid.cell_box(r, c)
            m = cfg.inner_frac
            cw, ch = x1 - x0, y1 - y0
            sl = (slice(round(y0 + m * ch), round(y1 - m * ch)),
                  slice(round(x0 + m * cw), round(x1 - m * cw)))
            patch = ink[sl]
            if patch.size == 0:
                continue
            own = np.zeros(patch.shape, bool)
            for lo, hi in cfg.symbol_hues.get(sym, ()):
                own |= (hue[sl] >= lo) & (hue[sl] < hi)
            res = patch & ~(own & coloured[sl])
            ph, pw = patch.shape
            yy, xx = np.mgrid[0:ph, 0:pw]
            inner = np.hypot((xx - (pw - 1) / 2) / pw, (yy - (ph - 1) / 2) / ph) < cfg.centre_radius
            out[0][r, c] = float(patch[~inner].mean())
            out[1][r, c] = float(patch[inner].mean())
            out[2][r, c] = float(res[~inner].mean())
            out[3][r, c] = float(res[inner].mean())
    return CellInk(*out)


def _paper_lab(lab: NDArray[np.float32], grid: Grid, printed: NDArray[np.str_]) -> NDArray[np.float32]:
    """The cells' fill in balanced Lab: the median of the cells' corner regions."""
    parts = []
    for (r, c), sym in np.ndenumerate(printed):
        if sym == ".":
            continue
        x0, y0, x1, y1 = grid.cell_box(r, c)
        q = 0.12 * (x1 - x0)
        for cx, cy in ((x0 + 2 * q, y0 + 2 * q), (x1 - 2 * q, y0 + 2 * q), (x0 + 2 * q, y1 - 2 * q),
                       (x1 - 2 * q, y1 - 2 * q)):
            parts.append(lab[round(cy - q):round(cy + q), round(cx - q):round(cx + q)].reshape(-1, 3))
    if not parts:
        return np.median(lab.reshape(-1, 3), axis=0)
    return np.median(np.concatenate(parts), axis=0)


def _decide(value: float, lo: float, hi: float) -> tuple[int, float]:
    if value >= hi:
        return 1, float(min(1.0, 0.5 + (value - hi) / hi))
    if value <= lo:
        return 0, float(min(1.0, 0.5 + (lo - value) / max(lo, 1e-6)))
    return -1, float(abs(value - (lo + hi) / 2) / max(hi - lo, 1e-6))


def read_marks(face: NDArray[np.uint8], grid: Grid, printed: NDArray[np.str_],
               reference: CellInk | None = None, config: MarksConfig | None = None) -> CellVerdicts:
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
    reference : CellInk, optional
        The ink of the clean reference face (same printed frame).
    """
    cfg = config or default_config()
    ink = cell_ink(face, grid, printed, cfg)
    rows, cols = grid.shape
    state = np.full((rows, cols), -2, np.int8)
    score = np.zeros((rows, cols))
    conf = np.ones((rows, cols))
    w = cfg.ring_weight

    def mix(ring: float, centre: float) -> float:
        return w * max(0.0, ring) + (1.0 - w) * max(0.0, centre)

    for sym in sorted(set(printed.ravel()) - {"."}):
        cells = list(zip(*np.nonzero(printed == sym), strict=True))
        if sym == "#":
            for rc in cells:
                score[rc] = mix(ink.ring[rc], ink.centre[rc])
            continue
        # ink beyond the symbol's own hue, above what the cleanest cell of the class shows
        rb = min(min(float(ink.ring_res[rc]) for rc in cells), cfg.residual_cap_ring)
        cb = min(min(float(ink.centre_res[rc]) for rc in cells), cfg.residual_cap_centre)
        for rc in cells:
            v = mix(ink.ring_res[rc] - rb, ink.centre_res[rc] - cb)
            if reference is not None:
                v = max(v, mix(ink.ring[rc] - reference.ring[rc], ink.centre[rc] - reference.centre[rc]))
            elif len(cells) >= 2:
                # the print is the same in every cell of a class: compare with the cleanest one
                rmin = min(float(ink.ring[k]) for k in cells)
                cmin = min(float(ink.centre[k]) for k in cells)
                v = max(v, mix(ink.ring[rc] - rmin, ink.centre[rc] - cmin))
            score[rc] = v
    for (r, c), sym in np.ndenumerate(printed):
        if sym == ".":
            continue
        st, cf = _decide(float(score[r, c]), cfg.marked_lo, cfg.marked_hi)
        state[r, c] = st
        conf[r, c] = cf
    return CellVerdicts(state, score, conf)
