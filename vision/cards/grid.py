"""Stage 3: the grid of cells on an upright face, found from the cells' own outlines.

Dark thin lines are isolated with a morphological black-hat, split into horizontal and vertical
runs by openings with long thin kernels, and projected onto each axis. The grid lines are the
longest equally spaced run of peaks in each projection; cells are square, so both axes share
one spacing. Each grid position is then a cell or water: a cell has an outline on all four sides
and the card's common cell fill ("paper") just inside it. Each side is judged against the card's
own sides of the same direction (directional blur weakens one direction only); a side the line maps
miss but whose mean dark-line contrast, in the colour channel where it is strongest, shows an
outline is washed out (blur, glare) and leaves its cell in doubt rather than water. A position
whose inside band is mostly the paper washed towards white by a glare is in doubt too.
"""

from __future__ import annotations

import bisect
import dataclasses
import heapq
import itertools
import math
from dataclasses import dataclass
from functools import cache, cached_property
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.config import load_config


@dataclass(frozen=True)
class GridConfig:
    """Tunable numbers of the grid location stage: the ``grid`` section of
    ``vision/data/config/cards.json``, where each is described."""

    inset_mm: float
    line_kernel_mm: float
    run_mm: float
    cell_mm_range: tuple[float, float]
    spacing_tol: float
    axis_ratio_tol: float
    peak_rel: float
    min_lines: int
    max_lines: int
    side_trim: float
    side_present: float
    washed_side: float
    ring_frac: tuple[float, float]
    paper_dist: float
    glare_cells: tuple[float, float, float, float]
    line_on: float
    side_weight: float
    min_coverage: float
    cell_side_cover: float
    coverage_weight: float
    max_checked: int
    alternatives: int
    extend_margin_mm: float
    extend_presence: float
    max_candidates: int
    refit_scale: float
    refit_shift: float
    refit_steps: int
    fit_gain: float
    quiet_inside: float
    map_doubt: float
    expedition_doubt: float
    blur_ratio: float
    blur_kernel_mm: float


@cache
def default_config() -> GridConfig:
    """The ``grid`` section of the packaged ``cards.json``, loaded once."""
    return load_config("cards", GridConfig, section="grid")


@dataclass(frozen=True)
class Grid:
    """The grid as printed on the upright face.

    ``xs`` (cols + 1) and ``ys`` (rows + 1) are the line positions in face pixels.
    ``presence`` ``(rows, cols)`` float64 in [0, 1]: how much each position looks like a cell
    (1) rather than water (0). ``paper`` is the BGR cell fill colour (float64, 3). ``whole`` is
    false when no lattice had a fully outlined cell in every row and column (a weak guess).
    ``fill`` ``(rows, cols)`` float64 in [0, 1], when measured: the share of each position's inside
    band that shows the cell fill (a water position walled in by its neighbours' outlines has all
    four sides and only this to tell it from a cell).
    """

    xs: NDArray[np.float64]
    ys: NDArray[np.float64]
    presence: NDArray[np.float64]
    paper: NDArray[np.float64]
    whole: bool = True
    fill: NDArray[np.float64] | None = None

    @property
    def shape(self) -> tuple[int, int]:
        """``(rows, cols)`` of the lattice's cells."""
        return len(self.ys) - 1, len(self.xs) - 1

    def cell_box(self, r: int, c: int) -> tuple[float, float, float, float]:
        """``(x0, y0, x1, y1)`` of cell ``(r, c)`` in face pixels."""
        return float(self.xs[c]), float(self.ys[r]), float(self.xs[c + 1]), float(self.ys[r + 1])


def line_maps(face: NDArray[np.uint8], px_per_mm: float,
              config: GridConfig | None = None) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """Horizontal and vertical outline strength maps.

    An outline is a thin dark line (black-hat response); only straight runs of at least
    ``run_mm`` survive.

    Parameters
    ----------
    face : (H, W, 3) uint8 array
        The upright BGR face.
    px_per_mm : float
        The face's scale.
    config : GridConfig, optional

    Returns
    -------
    hmap, vmap : (H, W) float32 arrays
        The strength of horizontal and of vertical lines.
    """
    cfg = config or default_config()
    # minima and maxima of 8-bit grey levels, and a closing less the image (never negative),
    # are exact in 8 bits: the maps are made there and only then widened to float32
    gray = cv2.cvtColor(face, cv2.COLOR_BGR2GRAY)
    k = max(3, round(cfg.line_kernel_mm * px_per_mm) | 1)
    dark = cv2.morphologyEx(gray, cv2.MORPH_BLACKHAT, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    run = max(5, round(cfg.run_mm * px_per_mm))
    hmap = cv2.morphologyEx(dark, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (run, 1)))
    vmap = cv2.morphologyEx(dark, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (1, run)))
    return hmap.astype(np.float32), vmap.astype(np.float32)


@dataclass(frozen=True)
class FaceLines:
    """The outline measurements of one upright face, made once and shared by every lattice tried
    on it.

    ``hmap`` and ``vmap`` ``(H, W)`` float32 are :func:`line_maps`; ``hsum`` ``(H, W + 1)`` and
    ``vsum`` ``(H + 1, W)`` float64 are running sums along x of ``hmap`` and along y of ``vmap``,
    each line first widened to the best of 5 pixels across it; ``face`` ``(H, W, 3)`` uint8 is
    the BGR face itself (its Lab is made only where it is read, see :func:`_paper`);
    ``kernel_px`` is the black-hat's width, the widest dark line the maps measure.
    """

    hmap: NDArray[np.float32]
    vmap: NDArray[np.float32]
    hsum: NDArray[np.float64]
    vsum: NDArray[np.float64]
    face: NDArray[np.uint8]
    kernel_px: float

    @property
    def lab(self) -> NDArray[np.uint8]:
        """The whole face in 8-bit Lab ``(H, W, 3)`` uint8."""
        return cv2.cvtColor(self.face, cv2.COLOR_BGR2LAB)

    @cached_property
    def contrast(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Running sums of the dark-line contrast of the face (see :func:`line_contrast`), as
        :attr:`hsum` and :attr:`vsum` are of the line maps: ``(H, W + 1)`` along x of the
        horizontal contrast and ``(H + 1, W)`` along y of the vertical one, float64. Made once,
        on first use (only a lattice with a side the line maps miss needs it)."""
        k = max(3, round(self.kernel_px) | 1)
        return _running_sums(*_widen(*line_contrast(self.face, k // 2)))


def line_contrast(face: NDArray[np.uint8], reach: int) -> tuple[NDArray[np.uint8], NDArray[np.uint8]]:
    """How much darker each pixel is than both its neighbours ``reach`` pixels away across a
    horizontal and across a vertical line, in the colour channel where it is most so.

    A blurred or glare-washed outline is a shallow dark line: the long openings of
    :func:`line_maps` lose it to noise, but its mean contrast along a cell's side still shows.
    Each channel is taken on its own, since glare or a colour cast may wash an outline out of
    the grey levels while it still shows in one channel.

    Parameters
    ----------
    face : (H, W, 3) uint8 array
        BGR face.
    reach : int
        Pixels from a line's centre to the fill on either side (at least 1).

    Returns
    -------
    horiz, vert : (H, W) uint8 arrays
        ``max over channels of max(0, min(above, below) - here)`` and the same with left and
        right, in whole levels.
    """
    d = max(1, int(reach))
    h, w = face.shape[:2]
    # in 8 bits: a saturating difference is the clipped one, exactly
    pad = cv2.copyMakeBorder(face, d, d, d, d, cv2.BORDER_REPLICATE)
    mid = pad[d:d + h, d:d + w]
    out = []
    for a, b in ((pad[:h, d:d + w], pad[2 * d:, d:d + w]), (pad[d:d + h, :w], pad[d:d + h, 2 * d:])):
        c = cv2.split(cv2.subtract(cv2.min(a, b), mid))
        out.append(cv2.max(cv2.max(c[0], c[1]), c[2]))
    return out[0], out[1]


def face_lines(face: NDArray[np.uint8], px_per_mm: float, config: GridConfig | None = None) -> FaceLines:
    """Measure the outlines of an upright BGR face ``(H, W, 3)`` uint8 once (see :class:`FaceLines`)."""
    cfg = config or default_config()
    hmap, vmap = line_maps(face, px_per_mm, cfg)
    # the maps hold whole grey levels: widened and summed in 8 bits as they are
    hsum, vsum = _running_sums(*_widen(hmap.astype(np.uint8), vmap.astype(np.uint8)))
    return FaceLines(hmap, vmap, hsum, vsum, face, cfg.line_kernel_mm * px_per_mm)


def blurred_lines(lines: FaceLines, px_per_mm: float, config: GridConfig | None = None) -> FaceLines | None:
    """The face's outlines measured again for a blur across one direction's lines, or ``None``.

    Every printed grid outlines its cells alike in both directions, so the strongest straight line
    of one direction (the highest mean of a row of :attr:`FaceLines.hmap` or of a column of
    :attr:`FaceLines.vmap`, ``inset_mm`` in from the face's edges) under ``blur_ratio`` of the
    other's means that direction's lines are spread across themselves (camera shake along one
    axis) wider than the black-hat of :func:`line_maps` reaches. That direction's map is made
    again with a black-hat ``blur_kernel_mm`` wide; the other map is kept as it is.

    Parameters
    ----------
    lines : FaceLines
        :func:`face_lines` of the face.
    px_per_mm : float
        The face's scale.
    config : GridConfig, optional

    Returns
    -------
    FaceLines or None
        ``None`` when neither direction is that much weaker than the other (or both are blank).
    """
    cfg = config or default_config()
    h, w = lines.hmap.shape
    inset = round(cfg.inset_mm * px_per_mm)
    if h <= 2 * inset or w <= 2 * inset:
        return None
    hm = lines.hmap[inset:h - inset, inset:w - inset].astype(np.uint8)
    vm = lines.vmap[inset:h - inset, inset:w - inset].astype(np.uint8)
    strong_h = float(_line_means(hm, 1).max())
    strong_v = float(_line_means(vm, 0).max())
    if strong_v < cfg.blur_ratio * strong_h:
        vertical = True
    elif strong_h < cfg.blur_ratio * strong_v:
        vertical = False
    else:
        return None
    gray = cv2.cvtColor(lines.face, cv2.COLOR_BGR2GRAY)
    k = max(3, round(cfg.blur_kernel_mm * px_per_mm) | 1)
    dark = cv2.morphologyEx(gray, cv2.MORPH_BLACKHAT, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    run = max(5, round(cfg.run_mm * px_per_mm))
    along = (1, run) if vertical else (run, 1)
    wide = cv2.morphologyEx(dark, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, along))
    hmap8 = lines.hmap.astype(np.uint8) if vertical else wide
    vmap8 = wide if vertical else lines.vmap.astype(np.uint8)
    hsum, vsum = _running_sums(*_widen(hmap8, vmap8))
    return FaceLines(hmap8.astype(np.float32), vmap8.astype(np.float32), hsum, vsum, lines.face,
                     lines.kernel_px)


def _running_sums(hw: NDArray[np.uint8], vw: NDArray[np.uint8],
                  ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Running sums of two ``(H, W)`` uint8 maps: of ``hw`` along x, ``(H, W + 1)``, and of ``vw``
    along y, ``(H + 1, W)`` (a transposed view), both float64.

    The sums of whole levels are whole numbers, exact in float64 whatever the order of the
    additions: the running sums along one axis are the differences of a 2-D integral image, the
    vertical ones taken on the transposed map, whose rows are then contiguous.
    """
    hi = cv2.integral(hw, sdepth=cv2.CV_64F)
    vi = cv2.integral(cv2.transpose(vw), sdepth=cv2.CV_64F)
    return hi[1:] - hi[:-1], (vi[1:] - vi[:-1]).T


def _peaks(profile: NDArray[np.float64], rel: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The local maxima of the smoothed ``profile`` ``(n,)`` of at least ``rel`` of its highest:
    their sub-pixel positions and heights, both ``(k,)`` float64."""
    p = np.convolve(profile, np.array([1, 2, 3, 2, 1], float) / 9.0, mode="same")
    if p.max() <= 0:
        return np.zeros(0), np.zeros(0)
    mid = p[1:-1]
    idx = np.flatnonzero((mid >= p[:-2]) & (mid > p[2:]) & (mid >= rel * p.max())) + 1
    # sub-pixel parabola
    a, b, c = p[idx - 1], p[idx], p[idx + 1]
    den = a - 2 * b + c
    shift = np.divide(0.5 * (a - c), den, out=np.zeros(len(idx)), where=den != 0)
    return idx + shift, b.astype(float)


def _runs(pos: NDArray[np.float64], height: NDArray[np.float64], lo: float, hi: float,
          cfg: GridConfig) -> list[tuple[int, float, float, NDArray[np.float64]]]:
    """Equally spaced runs of peaks: (lines, strength, spacing, positions)."""
    out: list[tuple[int, float, float, NDArray[np.float64]]] = []
    seen: set[tuple[int, ...]] = set()
    n = len(pos)
    at = [float(v) for v in pos]  # the peaks rise along the profile

    def nearest(target: float) -> tuple[int, float]:
        """The peak nearest ``target`` (the first of two as near) and its distance."""
        k = bisect.bisect_left(at, target)
        if k == n:
            return n - 1, abs(at[n - 1] - target)
        if k == 0:
            return 0, abs(at[0] - target)
        below, above = abs(at[k - 1] - target), abs(at[k] - target)
        return (k - 1, below) if below <= above else (k, above)

    for i in range(n):
        for j in range(i + 1, n):
            d = at[j] - at[i]
            if d < lo or d > hi:
                continue
            members = [i]
            for direction in (1, -1):
                k = 1
                while True:
                    m, dist = nearest(at[i] + direction * k * d)
                    if dist > cfg.spacing_tol * d:
                        break
                    members.append(m)
                    k += 1
            key = tuple(sorted(set(members)))
            if key in seen or len(key) < cfg.min_lines - 1:
                continue
            seen.add(key)
            sel = np.array(key)
            # least-squares positions on an exact lattice; each peak's place on it is worked out
            # on Python floats (the same float64 arithmetic, rounded half to even as numpy
            # rounds; the peaks rise, so the first member is the lowest), and the design matrix
            # is laid out as a transposed (2, m) array, as a column stack of the two would be
            first = at[key[0]]
            order = [round((at[m] - first) / d) for m in key]
            a = np.array([[1.0] * len(order), order], dtype=float).T
            (x0, step), *_ = np.linalg.lstsq(a, pos[sel], rcond=None)
            # one more line at each end: an outer row with a single cell may be too faint to peak
            full = x0 + step * np.arange(-1, max(order) + 2)
            strength = float(height[sel].sum())
            out.append((len(full), strength, float(step), full))
    return out


def _pick(runs: list[tuple[int, float, float, NDArray[np.float64]]], cfg: GridConfig,
          ) -> list[tuple[int, float, float, NDArray[np.float64]]]:
    """Every window of ``min_lines`` to ``max_lines`` consecutive lines of each run."""
    out = []
    for _, strength, step, full in runs:
        for n in range(cfg.min_lines, min(cfg.max_lines, len(full)) + 1):
            for s in range(len(full) - n + 1):
                out.append((n, strength, step, full[s:s + n]))
    return out


_Sides = tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_]]


def _side_strengths(hsum: NDArray[np.float64], vsum: NDArray[np.float64], xs: NDArray[np.float64],
                    ys: NDArray[np.float64], trim: float) -> _Sides:
    """Outline strength of every side of a lattice: the mean over the side (trimmed by ``trim`` of
    its length at each end, cut to the face) of the widened line map (see :class:`FaceLines`).

    Returns ``(rows + 1, cols)`` horizontal and ``(rows, cols + 1)`` vertical strengths (0 for a
    side off the face) and, of the same shapes, whether each side lies on the face.
    """
    h, w = hsum.shape[0], vsum.shape[1]
    out = []
    for lines, spans, sums, size, across in ((ys, xs, hsum, w, h), (xs, ys, vsum.T, h, w)):
        # a lattice has a few lines: their pixels are worked out on Python floats (the same
        # float64 arithmetic, rounded half to even as numpy rounds), then read in one gather
        sp = spans.tolist()
        at = [round(v) for v in lines.tolist()]
        cut = [trim * (b - a) for a, b in itertools.pairwise(sp)]
        lo = [min(max(round(a + c), 0), size) for a, c in zip(sp[:-1], cut, strict=True)]
        hi = [min(max(round(b - c), 0), size) for b, c in zip(sp[1:], cut, strict=True)]
        k = len(lo)
        ends = sums[np.array([min(max(v, 0), across - 1) for v in at])[:, None], np.array(hi + lo)]
        length = np.array([max(b - a, 1) for a, b in zip(lo, hi, strict=True)])
        strength = (ends[:, :k] - ends[:, k:]) / length
        on_line = [0 <= v < across for v in at]
        on_span = [b > a for a, b in zip(lo, hi, strict=True)]
        if all(on_line) and all(on_span):
            ok = np.ones(strength.shape, bool)
        else:
            ok = np.array(on_line)[:, None] & np.array(on_span)[None, :]
            strength = np.where(ok, strength, 0.0)
        out.append((strength, ok))
    (horiz, ok_h), (vert, ok_v) = out
    return horiz, vert.T, ok_h, ok_v.T


def _top(runs: list[tuple[int, float, float, NDArray[np.float64]]], prof: NDArray[np.float64],
         n: int) -> list[tuple[int, float, float, NDArray[np.float64]]]:
    """The ``n`` distinct runs with the strongest profile at their lines."""
    uniq: dict[bytes, int] = {}
    scores: list[float] = []
    kept: list[tuple[int, float, float, NDArray[np.float64]]] = []
    for size in sorted({len(r[3]) for r in runs}):
        members = [r for r in runs if len(r[3]) == size]
        lines = np.round(np.stack([r[3] for r in members])).astype(int)  # (runs, size)
        sums = prof[np.minimum(np.maximum(lines, 0), len(prof) - 1)].sum(axis=1)
        for run, key, total in zip(members, lines, sums, strict=True):
            if uniq.setdefault(key.tobytes(), len(kept)) == len(kept):
                kept.append(run)
                scores.append(-float(total) / size)
    # ranked as the runs came (a stable sort), whatever their number of lines
    first = {id(r): n for n, r in enumerate(runs)}
    ranked = sorted(range(len(kept)), key=lambda k: (scores[k], first[id(kept[k])]))
    return [kept[k] for k in ranked[:n]]


_LineMap = NDArray[np.float32] | NDArray[np.uint8]


def _widen(hm: _LineMap, vm: _LineMap) -> tuple[_LineMap, _LineMap]:
    """The best of a 5-pixel band across each line: horizontal lines widened vertically and
    vertical lines horizontally (of the maps' own dtype, float32 or uint8)."""
    return (cv2.dilate(hm, np.ones((5, 1), np.uint8)), cv2.dilate(vm, np.ones((1, 5), np.uint8)))


def _lattice_lines(hm: _LineMap, vm: _LineMap, xs: NDArray[np.float64],
                   ys: NDArray[np.float64]) -> tuple[NDArray[np.float32], NDArray[np.float32],
                                                      NDArray[np.int_], NDArray[np.int_]]:
    """Line strength along every line of a lattice over its extent: ``(rows + 1, width)`` for the
    horizontal lines and ``(cols + 1, height)`` for the vertical ones, plus the lattice's pixel
    positions relative to its top-left corner."""
    h, w = hm.shape
    ix = np.round(xs).astype(int)
    iy = np.round(ys).astype(int)
    x0, x1 = max(0, ix[0]), min(w, max(ix[-1], ix[0] + 1))
    y0, y1 = max(0, iy[0]), min(h, max(iy[-1], iy[0] + 1))
    horiz = np.zeros((len(iy), max(1, x1 - x0)), np.float32)
    vert = np.zeros((len(ix), max(1, y1 - y0)), np.float32)
    ok_y = (iy >= 0) & (iy < h)
    ok_x = (ix >= 0) & (ix < w)
    if x1 > x0:
        horiz[ok_y] = hm[iy[ok_y], x0:x1]
    if y1 > y0:
        vert[ok_x] = vm[y0:y1, ix[ok_x]].T
    return (horiz, vert, np.minimum(np.maximum(ix - x0, 0), horiz.shape[1]),
            np.minimum(np.maximum(iy - y0, 0), vert.shape[1]))


def _lattice_cover(hm: _LineMap, vm: _LineMap, xs: NDArray[np.float64],
                   ys: NDArray[np.float64], cfg: GridConfig,
                   ) -> tuple[NDArray[np.float64], tuple[NDArray[np.bool_], NDArray[np.bool_],
                                                         NDArray[np.int_], NDArray[np.int_]] | None]:
    """For every line of a candidate lattice, the share of its length that carries an outline,
    judged against the lattice's own typical line strength (OMR style); with what
    :func:`_lattice_whole` needs (``None`` when nothing carries an outline)."""
    h, w = hm.shape
    ix = xs.round().astype(int)
    iy = ys.round().astype(int)
    ix0, ix1, iy0, iy1 = int(ix[0]), int(ix[-1]), int(iy[0]), int(iy[-1])
    if 0 <= ix0 < ix1 < w and 0 <= iy0 < iy1 < h:
        # the whole lattice on the face (the usual case): the lines are plain slices, the
        # vertical ones kept along the rows (counts and order statistics do not depend on it)
        horiz = hm[iy, ix0:ix1]
        vert_rows = vm[iy0:iy1].take(ix, axis=1)
        px, py = ix - ix0, iy - iy0
    else:
        # an outer line off the face: it carries nothing
        horiz, vert, px, py = _lattice_lines(hm, vm, xs, ys)
        vert_rows = vert.T
    both = np.concatenate([horiz.ravel(), vert_rows.ravel()])
    level = float(np.partition(both, (3 * len(both)) // 4)[(3 * len(both)) // 4])  # upper quartile
    if level <= 0:
        return np.zeros(len(xs) + len(ys)), None
    # a whole level is above a threshold when it is above the threshold's whole part: 8-bit maps
    # are compared in 8 bits
    cut = cfg.line_on * level
    if hm.dtype == np.uint8 and vm.dtype == np.uint8 and 0.0 <= cut < 255.0:
        cut = math.floor(cut)
    on_h = horiz > cut
    on_v = (vert_rows > cut).T
    # the share of each line's pixels that are on (as a mean of booleans: whole counts over n)
    cov = np.concatenate([on_h.sum(axis=1) / on_h.shape[1], on_v.sum(axis=1) / on_v.shape[1]])
    return cov, (on_h, on_v, px, py)


def _line_means(m8: NDArray[np.uint8], axis: int) -> NDArray[np.float64]:
    """The mean along ``axis`` (1: of each row, 0: of each column) of an ``(H, W)`` uint8 map, as
    numpy's mean of the map in float32 gives it, widened to float64.

    Each line's sum is a whole number, exact in int32 (and in numpy's float32 sum while under
    2^24, 65793 pixels of 255); the mean is the quotient rounded to float32 once (float64
    holds it first, more than twice float32's digits, so rounding twice changes nothing).
    """
    sums = cv2.reduce(m8, axis, cv2.REDUCE_SUM, dtype=cv2.CV_32S).ravel()
    return (sums / m8.shape[axis]).astype(np.float32).astype(np.float64)


def _on_face(lines: NDArray[np.float64], size: int) -> bool:
    """Whether the first and last of a lattice's lines (rounded to pixels as
    :func:`_lattice_cover` rounds them) lie on a face ``size`` pixels across."""
    ends = lines[[0, -1]].round().astype(int)
    return bool(ends[0] >= 0 and ends[1] < size)


def _lattice_whole(on: tuple[NDArray[np.bool_], NDArray[np.bool_], NDArray[np.int_], NDArray[np.int_]] | None,
                   cfg: GridConfig) -> bool:
    """Whether every row and every column of a lattice holds a position outlined on all four
    sides (from :func:`_lattice_cover`)."""
    if on is None:
        return False
    on_h, on_v, px, py = on
    ch = np.concatenate([np.zeros((on_h.shape[0], 1)), np.cumsum(on_h, axis=1)], axis=1)
    cv = np.concatenate([np.zeros((on_v.shape[0], 1)), np.cumsum(on_v, axis=1)], axis=1)
    seg_h = (ch[:, px[1:]] - ch[:, px[:-1]]) / np.maximum(px[1:] - px[:-1], 1)  # (rows + 1, cols)
    seg_v = (cv[:, py[1:]] - cv[:, py[:-1]]) / np.maximum(py[1:] - py[:-1], 1)  # (cols + 1, rows)
    weakest = np.minimum.reduce([seg_h[:-1], seg_h[1:], seg_v[:-1].T, seg_v[1:].T])
    whole = weakest >= cfg.cell_side_cover
    return bool(whole.any(axis=1).all() and whole.any(axis=0).all())


def locate_grid(face: NDArray[np.uint8], px_per_mm: float, config: GridConfig | None = None) -> Grid | None:
    """Find the grid on an upright face: the best of :func:`locate_grids`.

    Parameters
    ----------
    face : (H, W, 3) uint8 array
        The upright BGR face.
    px_per_mm : float
        The face's scale.
    config : GridConfig, optional

    Returns
    -------
    Grid or None
        ``None`` when no lattice of cells is found.
    """
    found = locate_grids(face, px_per_mm, config, limit=1)
    return found[0] if found else None


def locate_grids(face: NDArray[np.uint8], px_per_mm: float, config: GridConfig | None = None,
                 limit: int = 1, lines: FaceLines | None = None, deblur: bool = True) -> list[Grid]:
    """The most likely grids on an upright face, best first (at most ``limit``).

    Parameters
    ----------
    face : (H, W, 3) uint8 array
        Upright BGR face (see :func:`vision.cards.rectify.rectify`).
    px_per_mm : float
        Face scale.

    limit : int
        How many alternative lattices to return (identification may pick among them).
    lines : FaceLines, optional
        :func:`face_lines` of the face when already measured.
    deblur : bool
        When no lattice's lines are covered enough (``min_coverage``) and one direction's lines
        are far weaker than the other's, look again on :func:`blurred_lines`, keeping only whole
        lattices found there (a stronger proof than the coverage floor: every row and column
        holds a fully outlined cell).

    Returns
    -------
    list of Grid
        Empty when no square lattice of at least ``min_lines`` lines on each axis is seen.
    """
    cfg = config or default_config()
    h, w = face.shape[:2]
    fl = lines if lines is not None else face_lines(face, px_per_mm, cfg)
    hmap, vmap = fl.hmap, fl.vmap
    inset = round(cfg.inset_mm * px_per_mm)
    # the maps hold whole grey levels: the profiles and the lattices' coverage are made on 8-bit
    # copies (the order statistics and the comparisons come out the same)
    hm = hmap.astype(np.uint8)
    vm = vmap.astype(np.uint8)
    for mm in (hm, vm):
        mm[:inset] = 0
        mm[h - inset:] = 0
        mm[:, :inset] = 0
        mm[:, w - inset:] = 0
    yprof = _line_means(hm, 1)
    xprof = _line_means(vm, 0)
    hm, vm = _widen(hm, vm)
    lo, hi = cfg.cell_mm_range[0] * px_per_mm, cfg.cell_mm_range[1] * px_per_mm
    yruns = _top(_pick(_runs(*_peaks(yprof, cfg.peak_rel), lo, hi, cfg), cfg), yprof, cfg.max_candidates)
    xruns = _top(_pick(_runs(*_peaks(xprof, cfg.peak_rel), lo, hi, cfg), cfg), xprof, cfg.max_candidates)
    # every pair of runs of one spacing is a lattice, scored by its lines and their coverage
    # (at most coverage_weight). Only the max_checked best ever count, so pairs are measured
    # in order of most lines first, and a pair whose best possible score stays below the
    # max_checked-th score already measured is never measured; ties keep the pairs' order
    # whether a run's outer lines lie on the face: once per run, not once per pair
    y_on = [_on_face(r[3], h) for r in yruns]
    x_on = [_on_face(r[3], w) for r in xruns]
    pairs = [(nx + ny, n, xs, ys, x_on[kx] and y_on[ky])
             for n, ((ky, (ny, _, dy, ys)), (kx, (nx, _, dx, xs)))
             in enumerate((y, x) for y in enumerate(yruns) for x in enumerate(xruns))
             if abs(dx - dy) <= cfg.axis_ratio_tol * max(dx, dy)]
    pairs.sort(key=lambda t: (-t[0], t[1]))
    scored: list[tuple[float, int, NDArray[np.float64], NDArray[np.float64], float, Any]] = []
    best: list[float] = []  # the max_checked best scores so far, least first (a heap)
    for n_lines, n, xs, ys, on_face in pairs:
        if len(best) == cfg.max_checked and n_lines + cfg.coverage_weight < best[0]:
            break
        if cfg.min_coverage > 0 and not on_face:
            continue  # an outer line off the face carries no outline (coverage 0)
        cov, on = _lattice_cover(hm, vm, xs, ys, cfg)
        if cov.min() < cfg.min_coverage:
            continue
        mean = float(cov.mean())
        scored.append((n_lines + cfg.coverage_weight * mean, n, xs, ys, mean, on))
        if len(best) < cfg.max_checked:
            heapq.heappush(best, scored[-1][0])
        else:
            heapq.heappushpop(best, scored[-1][0])
    if not scored and deblur:
        wide = blurred_lines(fl, px_per_mm, cfg)
        if wide is not None:
            return [g for g in locate_grids(face, px_per_mm, cfg, limit, wide, deblur=False) if g.whole]
    scored.sort(key=lambda t: (-t[0], t[1]))
    top = scored[:cfg.max_checked]
    # the catalog grids are cropped to their cells: every row and column holds a whole cell;
    # when no lattice passes, the best-covered one still lets identification try. The lattices
    # are judged best first, only until ``limit`` pass
    whole = list(itertools.islice(((xs, ys) for _, _, xs, ys, _, on in top if _lattice_whole(on, cfg)),
                                  max(limit, 0)))
    if whole:
        return [_cells(fl, xs, ys, cfg) for xs, ys in whole]
    if not scored:
        return []
    # no lattice is whole (heavy blur): more lines no longer vouch for a lattice, since a blurred
    # line of the art or frame peaks like a grid line. The lattice with the most lines and the one
    # whose lines carry the most outline are both offered; the catalog settles between them
    cover = max(top, key=lambda t: t[4])
    picks = [top[0]] + ([cover] if cover is not top[0] else [])
    return [dataclasses.replace(_cells(fl, t[2], t[3], cfg), whole=False) for t in picks]


def extended_grids(face: NDArray[np.uint8], grid: Grid, px_per_mm: float,
                   config: GridConfig | None = None, lines: FaceLines | None = None) -> list[Grid]:
    """The lattice of ``grid`` grown by one row or column of the same spacing on each side.

    A row or column of a single faint cell can lose its outer outline; the lattice then stops one
    line short. Each variant adds one line one spacing beyond the first or last line of an axis,
    as long as it stays ``extend_margin_mm`` inside the face and the axis keeps at most
    ``max_lines`` lines; the new row or column must hold a position that looks like a cell
    (presence at least ``extend_presence``). The catalog decides whether a variant is the card's
    grid.

    Parameters
    ----------
    face : (H, W, 3) uint8 array
        Upright BGR face.
    grid : Grid
        A lattice found by :func:`locate_grids`.
    px_per_mm : float
        Face scale.
    lines : FaceLines, optional
        :func:`face_lines` of the face when already measured.

    Returns
    -------
    list of Grid
        Zero to four variants, each with its cells' presence measured afresh.
    """
    cfg = config or default_config()
    fl = lines if lines is not None else face_lines(face, px_per_mm, cfg)
    out: list[Grid] = []
    for xs, ys, axis, k in grown_lattices(face.shape[:2], grid, px_per_mm, cfg):
        g = measure_lattice(fl, xs, ys, cfg)
        # the catalog grids are cropped to their cells: the new line of positions holds one
        edge = g.presence[:, min(k, g.shape[1] - 1)] if axis == 0 else g.presence[min(k, g.shape[0] - 1)]
        if float(edge.max()) >= cfg.extend_presence:
            out.append(dataclasses.replace(g, whole=grid.whole))
    return out


def grown_lattices(shape: tuple[int, ...], grid: Grid, px_per_mm: float, config: GridConfig | None = None,
                   ) -> list[tuple[NDArray[np.float64], NDArray[np.float64], int, int]]:
    """The lattices of :func:`extended_grids` before their cells are measured.

    Parameters
    ----------
    shape : (H, W, ...)
        The face's shape.
    grid : Grid

    Returns
    -------
    list of (xs, ys, axis, k)
        The grown lattice's lines, the axis grown (0: a column, 1: a row) and the index of
        the new column or row.
    """
    cfg = config or default_config()
    h, w = shape[:2]
    margin = cfg.extend_margin_mm * px_per_mm
    out = []
    for axis, lines, size in ((0, grid.xs, w), (1, grid.ys, h)):
        if len(lines) >= cfg.max_lines:
            continue
        step = float(np.mean(np.diff(lines)))
        for new in (lines[0] - step, lines[-1] + step):
            if new < margin or new > size - 1 - margin:
                continue
            grown = np.sort(np.append(lines, new))
            xs, ys = (grown, grid.ys) if axis == 0 else (grid.xs, grown)
            out.append((xs, ys, axis, int(np.searchsorted(grown, new))))
    return out


def slid_lattices(shape: tuple[int, ...], grid: Grid, px_per_mm: float, config: GridConfig | None = None,
                  ) -> list[tuple[NDArray[np.float64], NDArray[np.float64]]]:
    """Every lattice of the spacing and phase of ``grid`` that lies on the face: on each axis,
    each window of ``min_lines`` to ``max_lines`` consecutive lines of the lattice carried on over
    the face, every line at least ``extend_margin_mm`` inside it.

    On a dark or blurred face a line of the card's art (the numeral band, the island's edge)
    peaks like a grid line while the grid's last outline is lost: the lattice found has the
    grid's spacing and phase but sits a row off, or a row short at one end and a row long at the
    other. The grid is one of these windows; the cells' outlines and the catalog tell which.

    Parameters
    ----------
    shape : (H, W, ...)
        The face's shape.
    grid : Grid
        The lattice whose spacing and phase are carried on (its presence is not used).
    px_per_mm : float
        Face scale.
    config : GridConfig, optional
        ``min_lines``, ``max_lines`` and ``extend_margin_mm``.

    Returns
    -------
    list of (xs, ys)
        Each window's vertical and horizontal lines ``(cols + 1,)`` and ``(rows + 1,)`` float64,
        ``grid``'s own included when it lies on the face.
    """
    cfg = config or default_config()
    h, w = shape[:2]
    margin = cfg.extend_margin_mm * px_per_mm
    per_axis = []
    for lines, size in ((grid.xs, w), (grid.ys, h)):
        step = float(lines[-1] - lines[0]) / (len(lines) - 1)
        first = -int(np.floor((float(lines[0]) - margin) / step))
        last = int(np.floor((size - 1 - margin - float(lines[0])) / step))
        carried = float(lines[0]) + step * np.arange(first, last + 1)
        per_axis.append([carried[s:s + n] for n in range(cfg.min_lines, cfg.max_lines + 1)
                         for s in range(len(carried) - n + 1)])
    return [(xs, ys) for xs in per_axis[0] for ys in per_axis[1]]


def squared_lattices(shape: tuple[int, ...], grid: Grid, px_per_mm: float, config: GridConfig | None = None,
                     ) -> list[tuple[NDArray[np.float64], NDArray[np.float64]]]:
    """The lattices of square cells that keep one axis of ``grid`` and space the other alike.

    Every card's cells are square. When a face's lattice is not (a blur along one direction
    fades that direction's outlines, and a line of the art or a pen stroke peaks in their
    place), one of its axes is still the grid's: each axis in turn keeps its spacing and phase
    (carried over the face as in :func:`slid_lattices`), and the other takes the same spacing,
    in the phase of each of its own lines. The kept axis lies where the lattice found lies: its
    first and last lines each within one cell (``1 + spacing_tol`` of its spacing) of the found
    lattice's (a row or column long, short or slid at either end); the other axis's lines were
    not the grid's, so they say nothing of where it ends.

    Parameters
    ----------
    shape : (H, W, ...)
        The face's shape.
    grid : Grid
        A lattice found on the face (its presence is not used).
    px_per_mm : float
        Face scale.
    config : GridConfig, optional
        ``min_lines``, ``max_lines``, ``extend_margin_mm`` and ``spacing_tol``.

    Returns
    -------
    list of (xs, ys)
        Each lattice's vertical and horizontal lines ``(cols + 1,)`` and ``(rows + 1,)`` float64,
        distinct to the pixel.
    """
    cfg = config or default_config()
    h, w = shape[:2]
    margin = cfg.extend_margin_mm * px_per_mm

    def windows(anchor: float, step: float, size: int,
                found: NDArray[np.float64] | None = None) -> list[NDArray[np.float64]]:
        first = -int(np.floor((anchor - margin) / step))
        last = int(np.floor((size - 1 - margin - anchor) / step))
        carried = anchor + step * np.arange(first, last + 1)
        out = [carried[s:s + n] for n in range(cfg.min_lines, cfg.max_lines + 1)
               for s in range(len(carried) - n + 1)]
        if found is None:
            return out
        reach = (1.0 + cfg.spacing_tol) * step
        return [v for v in out if abs(v[0] - found[0]) <= reach and abs(v[-1] - found[-1]) <= reach]

    steps = [float(grid.xs[-1] - grid.xs[0]) / (len(grid.xs) - 1),
             float(grid.ys[-1] - grid.ys[0]) / (len(grid.ys) - 1)]
    out: list[tuple[NDArray[np.float64], NDArray[np.float64]]] = []
    seen: set[bytes] = set()
    for keep, (lines, size) in enumerate(((grid.xs, w), (grid.ys, h))):
        other, other_size = (grid.ys, h) if keep == 0 else (grid.xs, w)
        kept = windows(float(lines[0]), steps[keep], size, lines)
        spaced = [v for a in other for v in windows(float(a), steps[keep], other_size)]
        for a in kept:
            for b in spaced:
                xs, ys = (a, b) if keep == 0 else (b, a)
                key = np.concatenate([np.round(xs), [-1.0], np.round(ys)]).tobytes()
                if key not in seen:
                    seen.add(key)
                    out.append((xs, ys))
    return out


def measure_lattice(lines: FaceLines, xs: NDArray[np.float64], ys: NDArray[np.float64],
                    config: GridConfig | None = None) -> Grid:
    """The grid of lines ``xs`` and ``ys`` on a face, each position's presence and the cells'
    fill measured.

    Parameters
    ----------
    lines : FaceLines
        The face's outlines (:func:`face_lines`).
    xs : (cols + 1,) float64 array
        The vertical lines' x, face pixels, rising.
    ys : (rows + 1,) float64 array
        The horizontal lines' y, face pixels, rising.
    config : GridConfig, optional

    Returns
    -------
    Grid
    """
    return _cells(lines, xs, ys, config or default_config())


def trimmed_grids(grid: Grid, config: GridConfig | None = None) -> list[Grid]:
    """The lattice of ``grid`` without an outer row or column that holds no cell.

    The catalog grids are cropped to their cells, so an outer row or column in which no position
    looks like a cell (every presence below ``extend_presence``) is not part of the printed grid:
    a line of the card's art or frame was taken for one more grid line. Each variant drops one
    such row or column, as long as the axis keeps at least ``min_lines`` lines. The catalog
    decides whether a variant is the card's grid.

    Parameters
    ----------
    grid : Grid
        A lattice found by :func:`locate_grids`.

    Returns
    -------
    list of Grid
        Zero to four variants; the kept cells keep their measured presence.
    """
    cfg = config or default_config()
    out: list[Grid] = []
    rows, cols = grid.shape
    for axis, n in ((0, rows), (1, cols)):
        if n + 1 <= cfg.min_lines:
            continue
        for first in (True, False):
            edge = grid.presence[0 if first else -1] if axis == 0 else grid.presence[:, 0 if first else -1]
            if float(edge.max()) >= cfg.extend_presence:
                continue
            keep = slice(1, None) if first else slice(None, -1)
            fill = grid.fill
            if axis == 0:
                ys, xs, presence = grid.ys[keep], grid.xs, grid.presence[keep]
                fill = None if fill is None else fill[keep]
            else:
                ys, xs, presence = grid.ys, grid.xs[keep], grid.presence[:, keep]
                fill = None if fill is None else fill[:, keep]
            out.append(dataclasses.replace(grid, xs=xs, ys=ys, presence=presence, fill=fill))
    return out


def _cells(lines: FaceLines, xs: NDArray[np.float64], ys: NDArray[np.float64], cfg: GridConfig) -> Grid:
    """The lattice of lines ``xs`` ``(cols + 1,)`` and ``ys`` ``(rows + 1,)`` float64 with each cell's
    presence (its weakest side, a washed-out side in doubt, and its paper share) and the paper's
    colour."""
    rows, cols = len(ys) - 1, len(xs) - 1
    horiz, vert, _, _ = _side_strengths(lines.hsum, lines.vsum, xs, ys, cfg.side_trim)
    sides = _relative_sides(horiz, vert)
    ok = sides.min(axis=2).ravel() >= cfg.side_present  # the clearly outlined cells
    washed = sides < cfg.side_present
    if washed.any():
        # a side the line maps miss may be washed out (blur, glare): when its mean dark-line
        # contrast, against the same sides' typical contrast, says an outline is there, it is a
        # side in doubt (washed_side of present), neither outlined nor missing
        h2, v2, _, _ = _side_strengths(*lines.contrast, xs, ys, cfg.side_trim)
        seen = _relative_sides(h2, v2) >= cfg.side_present
        sides = np.where(washed & seen, np.maximum(sides, cfg.washed_side * cfg.side_present), sides)
    side_min = sides.min(axis=2)
    paper_lab, paper_frac, glared = _paper(lines.face, xs, ys, ok, cfg)
    side_score = np.clip(side_min.ravel() / cfg.side_present, 0.0, 1.0)
    presence = cfg.side_weight * side_score + (1.0 - cfg.side_weight) * paper_frac
    # a glare washes the fill towards white and the outline away alike: a position whose ring is
    # mostly the paper washed out could be a cell or water, and says neither
    presence = np.where(glared >= cfg.glare_cells[1], np.maximum(presence, cfg.glare_cells[2]), presence)
    presence = presence.reshape(rows, cols)
    paper_bgr = cv2.cvtColor(paper_lab.reshape(1, 1, 3).astype(np.uint8), cv2.COLOR_LAB2BGR).reshape(3)
    return Grid(xs, ys, np.clip(presence, 0.0, 1.0), paper_bgr.astype(np.float64),
                fill=paper_frac.reshape(rows, cols))


def _relative_sides(horiz: NDArray[np.float64], vert: NDArray[np.float64]) -> NDArray[np.float64]:
    """Each cell's top, bottom, left and right side strength against the typical strength of the
    lattice's sides of the same direction (the median over the cells' sides: most belong to
    cells); directional blur weakens the lines of one direction only.

    ``horiz`` ``(rows + 1, cols)`` and ``vert`` ``(rows, cols + 1)`` float64 (see
    :func:`_side_strengths`) give ``(rows, cols, 4)`` float64.
    """
    top, bottom, left, right = horiz[:-1], horiz[1:], vert[:, :-1], vert[:, 1:]
    lh = _median(np.concatenate([top.ravel(), bottom.ravel()])) or 1.0
    lv = _median(np.concatenate([left.ravel(), right.ravel()])) or 1.0
    return np.stack([top / lh, bottom / lh, left / lv, right / lv], axis=2)


def _median(values: NDArray[np.float64]) -> float:
    """The median of ``values`` ``(n,)`` float64, n > 0, none NaN, as :func:`numpy.median` gives it
    (the middle value, or the two middle ones' sum halved), from one partition."""
    k = len(values) // 2
    if len(values) % 2:
        return float(np.partition(values, k)[k])
    part = np.partition(values, (k - 1, k))
    return float((part[k - 1] + part[k]) / 2)


def _ring_labels(shape: tuple[int, ...], xs: NDArray[np.float64], ys: NDArray[np.float64],
                 cfg: GridConfig) -> tuple[tuple[slice, slice], NDArray[np.int32]] | None:
    """Every cell's ring (see :func:`_ring`) painted with the cell's row-major index (``-1``
    elsewhere) in a window of a face of ``shape`` around them all: the window and the
    ``(h, w)`` int32 labels. ``None`` when no ring has a pixel or two rings overlap (a lattice
    far off the face)."""
    rows, cols = len(ys) - 1, len(xs) - 1
    a, b = cfg.ring_frac

    def cut(lo: NDArray[np.int_], hi: NDArray[np.int_], size: int | NDArray[np.int_],
            ) -> tuple[NDArray[np.int_], NDArray[np.int_]]:
        """What a slice ``[lo:hi]`` of a length ``size`` selects: ``(start, stop)``, stop >= start."""
        lo = np.minimum(np.maximum(np.where(lo < 0, lo + size, lo), 0), size)
        hi = np.minimum(np.maximum(np.where(hi < 0, hi + size, hi), 0), size)
        return lo, np.maximum(hi, lo)

    h, w = shape[:2]
    x0, x1 = np.broadcast_to(xs[:-1], (rows, cols)).ravel(), np.broadcast_to(xs[1:], (rows, cols)).ravel()
    y0, y1 = np.repeat(ys[:-1], cols), np.repeat(ys[1:], cols)
    cw, ch = x1 - x0, y1 - y0
    # the crops of _ring, as the rows and columns they select
    ya, yb = cut(np.round(y0 + a * ch).astype(int), np.round(y1 - a * ch).astype(int), h)
    xa, xb = cut(np.round(x0 + a * cw).astype(int), np.round(x1 - a * cw).astype(int), w)
    ih, iw = yb - ya, xb - xa
    ia, ib = cut(np.round((b - a) * ch).astype(int), ih - np.round((b - a) * ch).astype(int), ih)
    ja, jb = cut(np.round((b - a) * cw).astype(int), iw - np.round((b - a) * cw).astype(int), iw)
    some = (ih > 0) & (iw > 0)
    if not some.any():
        return None
    # rings that overlap lose pixels to each other: the count tells
    wy0, wy1 = int(ya[some].min()), int(yb[some].max())
    wx0, wx1 = int(xa[some].min()), int(xb[some].max())
    label = np.full((wy1 - wy0, wx1 - wx0), -1, np.int32)
    ya, yb, xa, xb = ya - wy0, yb - wy0, xa - wx0, xb - wx0
    for k in np.flatnonzero(some).tolist():
        label[ya[k]:yb[k], xa[k]:xb[k]] = k
        label[ya[k] + ia[k]:ya[k] + ib[k], xa[k] + ja[k]:xa[k] + jb[k]] = -1
    if int(np.count_nonzero(label >= 0)) != int((ih * iw - (ib - ia) * (jb - ja))[some].sum()):
        return None
    return (slice(wy0, wy1), slice(wx0, wx1)), label


def _paper(face: NDArray[np.uint8], xs: NDArray[np.float64], ys: NDArray[np.float64],
           ok: NDArray[np.bool_], cfg: GridConfig,
           ) -> tuple[NDArray[np.float32], NDArray[np.float64], NDArray[np.float64]]:
    """The cells' common fill, how much of each cell's ring shows it, and how much shows it
    washed out by a glare (:func:`_washed_out`).

    Parameters
    ----------
    face : (H, W, 3) uint8 array
        The BGR face; read in 8-bit Lab (a pixel's Lab depends on that pixel alone, so only the
        part read is converted).
    ok : (rows * cols,) bool array
        The cells whose rings give the fill (all when none).

    Returns
    -------
    paper : (3,) float32 array
        The median Lab of the rings of the ``ok`` cells.
    share : (rows * cols,) float64 array
        The share of each cell's ring within ``paper_dist`` of it (0 for an empty ring).
    glared : (rows * cols,) float64 array
        The share of each cell's ring that is the paper washed out (0 for an empty ring).
    """
    n_cells = (len(ys) - 1) * (len(xs) - 1)
    found = _ring_labels(face.shape, xs, ys, cfg)
    if found is not None:
        (wy, wx), label = found
        inside = label >= 0
        # only the rings' pixels are read: gathered into one row ``(1, m, 3)`` and converted
        # there (each pixel's 8-bit Lab is that of its own BGR alone, wherever it lies)
        flat = (np.arange(wy.start, wy.stop)[:, None] * face.shape[1] + np.arange(wx.start, wx.stop))[inside]
        ring = cv2.cvtColor(np.take(face.reshape(-1, 3), flat, axis=0)[None], cv2.COLOR_BGR2LAB)
        owner = label[inside]
        pool = ok[owner] if ok.any() else np.ones(len(owner), bool)
        n = int(np.count_nonzero(pool))
    if found is None or n == 0:
        labf = cv2.cvtColor(face, cv2.COLOR_BGR2LAB).astype(np.float32)
        rings = [_ring(labf, xs[c], ys[r], xs[c + 1], ys[r + 1], cfg)
                 for r in range(len(ys) - 1) for c in range(len(xs) - 1)]
        chosen = [rings[i] for i in range(len(rings)) if ok[i]] or rings
        paper = np.median(np.concatenate(chosen), axis=0)
        share = np.array([float(np.mean(np.linalg.norm(rg - paper, axis=1) < cfg.paper_dist))
                          if len(rg) else 0.0 for rg in rings])
        glared = np.array([float(np.mean(_washed_out(rg, paper, cfg))) if len(rg) else 0.0 for rg in rings])
        return paper, share, glared
    # the median of whole levels from their histogram: the middle level, or the mean of the
    # two middle ones
    mask = pool.astype(np.uint8)[None]
    paper = np.empty(3, np.float32)
    for k in range(3):
        counts = np.cumsum(cv2.calcHist([ring], [k], mask, [256], [0, 256]).ravel().astype(np.int64))
        lo, hi = np.searchsorted(counts, [(n - 1) // 2, n // 2], side="right")
        paper[k] = (np.float32(lo) + np.float32(hi)) / np.float32(2)
    # squared distances per channel looked up by level, summed in channel order
    levels = np.arange(256, dtype=np.float32)[:, None] - paper[None, :]
    sq = cv2.LUT(ring, (levels * levels).reshape(256, 1, 3))[0]
    near = np.sqrt(sq[:, 0] + sq[:, 1] + sq[:, 2]) < cfg.paper_dist
    sizes = np.bincount(owner, minlength=n_cells)
    hits = np.bincount(owner[near], minlength=n_cells)
    washed = np.bincount(owner[_washed_out(ring[0], paper, cfg)], minlength=n_cells)
    per = np.maximum(sizes, 1)
    return paper, np.where(sizes > 0, hits / per, 0.0), np.where(sizes > 0, washed / per, 0.0)


def _washed_out(px: NDArray[np.generic], paper: NDArray[np.float32], cfg: GridConfig) -> NDArray[np.bool_]:
    """Which Lab pixels ``px`` ``(n, 3)`` (8-bit scale) are the paper washed out by a glare: within
    ``paper_dist`` of the line from ``paper`` ``(3,)`` to white, at least ``glare_cells[3]`` of the
    way along it and lighter than the paper by at least ``glare_cells[0]`` levels (a glare adds
    light, which moves a colour towards white; a fill already near white cannot show it). Returns
    ``(n,)`` bool."""
    white = np.array([255.0, 128.0, 128.0], np.float32)
    span = white - paper
    length2 = float(span @ span)
    if length2 < 1.0:
        return np.zeros(len(px), bool)
    d = px.astype(np.float32) - paper
    t = np.clip((d @ span) / length2, 0.0, 1.0)
    off = d - t[:, None] * span
    return ((d[:, 0] >= cfg.glare_cells[0]) & (t >= cfg.glare_cells[3])
            & (np.einsum("ij,ij->i", off, off) < cfg.paper_dist ** 2))


def _ring(lab: NDArray[np.float32], x0: float, y0: float, x1: float, y1: float,
          cfg: GridConfig) -> NDArray[np.float32]:
    """Pixels of the band just inside a cell's outline, ``(n, 3)`` Lab float32."""
    a, b = cfg.ring_frac
    w, h = x1 - x0, y1 - y0
    outer = lab[round(y0 + a * h):round(y1 - a * h), round(x0 + a * w):round(x1 - a * w)]
    ih, iw = outer.shape[:2]
    mask = np.ones((ih, iw), bool)
    bi, bj = round((b - a) * h), round((b - a) * w)
    mask[bi:ih - bi, bj:iw - bj] = False
    return outer[mask].reshape(-1, 3)


def balanced_lab(face: NDArray[np.uint8], paper: NDArray[np.float64]) -> NDArray[np.float32]:
    """The face in Lab (L 0..255, a and b centred on 0) after a von Kries white balance that makes
    the cells' fill ``paper`` neutral.

    Parameters
    ----------
    face : (H, W, 3) uint8 array
        BGR.
    paper : (3,) float64 array
        The cells' fill, BGR.

    Returns
    -------
    (H, W, 3) float32 array
    """
    gains = float(np.mean(paper)) / np.maximum(paper, 1.0)
    # each channel's 256 levels balanced once (as each pixel would be), then looked up
    levels = np.arange(256, dtype=np.float32)[:, None] * gains.astype(np.float32)[None, :]
    lut = np.clip(levels, 0, 255).astype(np.uint8).reshape(256, 1, 3)
    bal = cv2.LUT(np.ascontiguousarray(face), lut)
    # each 8-bit Lab level widened to float32 and centred by one look-up (whole numbers, exact)
    centred = np.arange(256, dtype=np.float32)[:, None] - np.array([0, 128, 128], np.float32)[None, :]
    return cv2.LUT(cv2.cvtColor(bal, cv2.COLOR_BGR2LAB), centred.reshape(256, 1, 3))


def _edge_sums(hc: NDArray[np.float64], vc: NDArray[np.float64], xs: NDArray[np.float64],
               ys: NDArray[np.float64], cells: NDArray[np.bool_]) -> NDArray[np.float64]:
    """Mean outline strength along the sides of the expected cells (``cells`` ``(rows, cols)``)
    for a batch of lattices: ``xs`` ``(k, cols + 1)`` and ``ys`` ``(k, rows + 1)`` give ``(k,)``
    scores. ``hc`` ``(H, W + 1)`` and ``vc`` ``(H + 1, W)`` are running sums of the line maps along
    x and y."""
    h, w = hc.shape[0], vc.shape[1]
    ix = np.minimum(np.maximum(np.round(xs).astype(int), 0), w - 1)
    iy = np.minimum(np.maximum(np.round(ys).astype(int), 0), h - 1)
    r, c = np.nonzero(cells)
    length_x = np.maximum(ix[:, c + 1] - ix[:, c], 1)
    length_y = np.maximum(iy[:, r + 1] - iy[:, r], 1)
    top = (hc[iy[:, r], ix[:, c + 1]] - hc[iy[:, r], ix[:, c]]) / length_x
    bot = (hc[iy[:, r + 1], ix[:, c + 1]] - hc[iy[:, r + 1], ix[:, c]]) / length_x
    left = (vc[iy[:, r + 1], ix[:, c]] - vc[iy[:, r], ix[:, c]]) / length_y
    right = (vc[iy[:, r + 1], ix[:, c + 1]] - vc[iy[:, r], ix[:, c + 1]]) / length_y
    return np.mean(top + bot + left + right, axis=1)


def refit_grid(face: NDArray[np.uint8], grid: Grid, cells: NDArray[np.bool_], px_per_mm: float,
               config: GridConfig | None = None, lines: FaceLines | None = None) -> Grid | None:
    """Refit a lattice to the outlines of a known cell layout.

    Once a catalog card and turn are proposed, the printed positions of its cells are known:
    the lattice origin and spacing (each axis on its own, so cells need not come out square)
    are searched around ``grid`` for the largest outline strength along exactly the sides of
    those cells; water positions and hatched cells contribute nothing they cannot.

    Parameters
    ----------
    face : (H, W, 3) uint8 array
        Upright BGR face.
    grid : Grid
        The lattice found from the lines alone; same shape as ``cells``.
    cells : (rows, cols) bool array
        Where the proposed card has a cell.
    px_per_mm : float
        Face scale.
    lines : FaceLines, optional
        :func:`face_lines` of the face when already measured.

    Returns
    -------
    Grid or None
        The refit lattice with its presence re-measured, or ``None`` when the shapes differ.
    """
    cfg = config or default_config()
    if cells.shape != grid.shape or not cells.any():
        return None
    fl = lines if lines is not None else face_lines(face, px_per_mm, cfg)
    hc, vc = fl.hsum, fl.vsum
    h, w = fl.hmap.shape
    xs, ys = grid.xs.astype(np.float64), grid.ys.astype(np.float64)
    best = float(_edge_sums(hc, vc, xs[None], ys[None], cells)[0])
    # coarse search, then a finer one spanning two coarse steps around the best
    for zoom in (1.0, 2.0 / (cfg.refit_steps - 1)):
        scales = np.linspace(1.0 - zoom * cfg.refit_scale, 1.0 + zoom * cfg.refit_scale, cfg.refit_steps)
        shifts = np.linspace(-zoom * cfg.refit_shift, zoom * cfg.refit_shift, cfg.refit_steps)
        ss, dd = (a.ravel() for a in np.meshgrid(scales, shifts, indexing="ij"))
        for axis in (0, 1, 0, 1):
            cur = ys if axis == 0 else xs
            step = float(cur[-1] - cur[0]) / (len(cur) - 1)
            centre = 0.5 * float(cur[0] + cur[-1])
            cand = centre + (cur[None] - centre) * ss[:, None] + (dd * step)[:, None]  # (k, lines)
            # the lattice must stay on the face
            cand = cand[(cand[:, 0] >= 0.0) & (cand[:, -1] <= (h if axis == 0 else w) - 1)]
            if len(cand) == 0:
                continue
            fixed = xs if axis == 0 else ys
            other = np.broadcast_to(fixed[None], (len(cand), len(fixed)))
            scores = (_edge_sums(hc, vc, other, cand, cells) if axis == 0
                      else _edge_sums(hc, vc, cand, other, cells))
            k = int(np.argmax(scores))
            if scores[k] > best:
                best = float(scores[k])
                if axis == 0:
                    ys = cand[k]
                else:
                    xs = cand[k]
    return dataclasses.replace(_cells(fl, xs, ys, cfg), whole=grid.whole)


def outline_fit(lines: FaceLines, grid: Grid, cells: NDArray[np.bool_],
                config: GridConfig | None = None) -> float:
    """How well a known cell layout on a lattice explains the outlines around it, in [-1, 1].

    The lattice is grown by one row and one column of the same spacing on every side. Each side
    of that larger lattice is expected to carry an outline when it borders a cell of ``cells``
    and to carry none otherwise (water, and the ring just outside the grid). The fit is the
    contrast ``(on - off) / (on + off)`` of the mean outline strengths of the two sets: a lattice
    one row short leaves that row's outlines unexplained; one row too many expects outlines
    where there are none. Comparable between lattices and layouts of different shapes.

    Parameters
    ----------
    lines : FaceLines
        From :func:`face_lines` of the face.
    grid : Grid
        The lattice; same shape as ``cells``.
    cells : (rows, cols) bool array
        Where the card has a cell, in the printed frame.

    Returns
    -------
    float
        ``-1.0`` when the shapes differ or nothing on the face is measured.
    """
    if cells.shape != grid.shape:
        return -1.0
    return float(layout_fits(lines, grid, cells[None], config)[0])


def layout_edges(layouts: NDArray[np.bool_]) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """Which sides of the lattice grown by one line on every side border a cell of each layout
    (the part of :func:`layout_fits` that depends on the layouts alone).

    Parameters
    ----------
    layouts : (n, rows, cols) bool array

    Returns
    -------
    near_h : (n, rows + 3, cols + 2) bool array
        Horizontal sides.
    near_v : (n, rows + 2, cols + 3) bool array
        Vertical sides.
    """
    pad = np.pad(layouts.astype(bool), ((0, 0), (1, 1), (1, 1)))           # (n, rows + 2, cols + 2)
    rows_pad = np.pad(pad, ((0, 0), (1, 1), (0, 0)))
    cols_pad = np.pad(pad, ((0, 0), (0, 0), (1, 1)))
    return rows_pad[:, :-1] | rows_pad[:, 1:], cols_pad[:, :, :-1] | cols_pad[:, :, 1:]


def layout_fits(lines: FaceLines, grid: Grid, layouts: NDArray[np.bool_],
                config: GridConfig | None = None,
                edges: tuple[NDArray[np.bool_], NDArray[np.bool_]] | None = None) -> NDArray[np.float64]:
    """:func:`outline_fit` of many layouts on one lattice.

    Parameters
    ----------
    lines : FaceLines
        From :func:`face_lines` of the face.
    grid : Grid
    layouts : (n, rows, cols) bool array
        Cell layouts of the lattice's shape.
    config : GridConfig, optional
    edges : (near_h, near_v), optional
        :func:`layout_edges` of ``layouts`` when already computed (one catalog's layouts serve
        every lattice of their shape).

    Returns
    -------
    (n,) float64 array
        The fit of each layout; ``-1.0`` for an empty layout or when nothing is measured.
    """
    cfg = config or default_config()
    n = layouts.shape[0]
    if n == 0 or layouts.shape[1:] != grid.shape:
        return np.full(n, -1.0)
    sx = float(grid.xs[-1] - grid.xs[0]) / (len(grid.xs) - 1)
    sy = float(grid.ys[-1] - grid.ys[0]) / (len(grid.ys) - 1)
    xs = np.concatenate([[grid.xs[0] - sx], grid.xs, [grid.xs[-1] + sx]])
    ys = np.concatenate([[grid.ys[0] - sy], grid.ys, [grid.ys[-1] + sy]])
    horiz, vert, ok_h, ok_v = _side_strengths(lines.hsum, lines.vsum, xs, ys, cfg.side_trim)
    near_h, near_v = edges if edges is not None else layout_edges(layouts)
    if ok_h.all() and ok_v.all():
        expect_h, expect_v = near_h, near_v                                 # every side on the face
        n_sides = ok_h.size + ok_v.size
    else:
        expect_h = near_h & ok_h[None]                                      # (n, rows + 3, cols + 2)
        expect_v = near_v & ok_v[None]                                      # (n, rows + 2, cols + 3)
        n_sides = int(np.count_nonzero(ok_h)) + int(np.count_nonzero(ok_v))
    # each side's strength where expected, 0 elsewhere; the rest of each side's strength (0 where
    # expected or off the face, where the strength is 0) is where it is expected quiet
    on_h = np.where(expect_h, horiz, 0.0)
    on_v = np.where(expect_v, vert, 0.0)
    n_on = expect_h.sum(axis=(1, 2)) + expect_v.sum(axis=(1, 2))
    n_off = n_sides - n_on
    s_on = on_h.sum(axis=(1, 2)) + on_v.sum(axis=(1, 2))
    s_off = (horiz - on_h).sum(axis=(1, 2)) + (vert - on_v).sum(axis=(1, 2))
    m_on = s_on / np.maximum(n_on, 1)
    m_off = np.where(n_off > 0, s_off / np.maximum(n_off, 1), 0.0)
    total = m_on + m_off
    fit = np.where(total > 0, (m_on - m_off) / np.where(total > 0, total, 1.0), -1.0)
    return np.where(n_on > 0, fit, -1.0)


def inside_lines(lines: FaceLines, grid: Grid, config: GridConfig | None = None) -> float:
    """How much straight dark line the cells hold inside, against their outlines.

    Printed cells are outlined boxes of plain fill around a symbol; a table's texture (wood
    grain, a cloth's weave) draws lines everywhere. The measure is the median over the cells of
    the mean line response (the larger of :attr:`FaceLines.hmap` and :attr:`FaceLines.vmap`) in
    each cell's inside, ``side_trim`` of its side in from each outline, divided by the median
    outline strength of the cells' sides. A card's cells give well under ``quiet_inside``.

    Parameters
    ----------
    lines : FaceLines
        From :func:`face_lines` of the face.
    grid : Grid

    Returns
    -------
    float
        ``inf`` when no outline is measured.
    """
    cfg = config or default_config()
    both = np.maximum(lines.hmap, lines.vmap)
    t = cfg.side_trim
    inside = []
    for r in range(grid.shape[0]):
        for c in range(grid.shape[1]):
            x0, y0, x1, y1 = grid.cell_box(r, c)
            dx, dy = t * (x1 - x0), t * (y1 - y0)
            ya, yb = max(0, round(y0 + dy)), max(0, round(y1 - dy))
            xa, xb = max(0, round(x0 + dx)), max(0, round(x1 - dx))
            patch = both[ya:yb, xa:xb]
            if patch.size:
                inside.append(float(patch.mean()))
    horiz, vert, ok_h, ok_v = _side_strengths(lines.hsum, lines.vsum, grid.xs, grid.ys, t)
    side = float(np.median(np.concatenate([horiz[ok_h], vert[ok_v]]))) if ok_h.any() or ok_v.any() else 0.0
    if side <= 0 or not inside:
        return float("inf")
    return float(np.median(inside)) / side
