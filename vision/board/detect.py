"""Find the square token board in a photo and rectify it.

Nothing here depends on the board's artwork: candidates are quadrilaterals bounded by long
straight edges (a hand or arm over one side leaves the other pieces of that side collinear), and
the caller keeps the candidate on which a 5x5 spot lattice fits best. A candidate must be
board-shaped (:func:`board_shaped`: convex, sides alike, no sharp corner), as must a quad framed
from the spot lattice (:func:`vision.board.lattice.find_lattice_candidates`).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.board.config import BoardConfig
from vision.geometry import order_corners


@dataclass(frozen=True)
class _Line:
    point: NDArray[np.float64]  # a point on the line, (2,)
    direction: NDArray[np.float64]  # unit vector, (2,)
    length: float  # total length of the edge pieces on it
    middle: NDArray[np.float64]  # length-weighted middle of the pieces, (2,)


def _percentile_99(light: NDArray[np.uint8]) -> float:
    """``np.percentile(light, 99)`` of an ``(h, w)`` uint8 image: from its histogram when the two
    order statistics it interpolates between are equal (then it is exactly their value)."""
    n = light.size
    q = 99 / 100
    # numpy's index of the linear method
    at = n * q + (1 + q * (1 - 1 - 1)) - 1
    lower = math.floor(at)
    if 0 <= at < n - 1:
        count = np.cumsum(np.bincount(light.ravel(), minlength=256))
        a, b = np.searchsorted(count, [lower, lower + 1], side="right")
        if a == b:
            return float(a)
    return float(np.percentile(light, 99))


_Derivatives = tuple[tuple[NDArray[np.int16], NDArray[np.int16]], ...]


@dataclass(frozen=True, eq=False)
class EdgeSource:
    """The downscaled photo the outline search runs on, shared by its edge passes.

    ``small`` is the ``(h, w, 3)`` uint8 BGR photo at most ``detect_side`` px on its long side and
    ``scale`` its size over the photo's. :meth:`derivatives` filters it once per pre-filter and
    keeps the result (one source serves one photo, in one call of the reader).
    """

    small: NDArray[np.uint8]
    scale: float
    median_px: int
    _derivatives: dict[bool, _Derivatives] = field(default_factory=dict)

    def derivatives(self, median: bool) -> _Derivatives:
        """The x and y Sobel derivatives (as :func:`cv2.Canny` takes them: 3x3, replicated
        border; ``(h, w)`` int16 arrays) of the lightness, a and b channels of ``small``
        median-filtered (``median``) or Gaussian-blurred, the lightness stretched for a dim photo."""
        if median not in self._derivatives:
            # a median filter removes thin lines (wood grain, cloth weave) but keeps the board's
            # step edges; a board told from the table only by a thin printed border needs the blur
            small = self.small
            blur = cv2.medianBlur(small, self.median_px) if median else cv2.GaussianBlur(small, (5, 5), 0)
            lab = cv2.cvtColor(blur, cv2.COLOR_BGR2LAB)
            light = lab[:, :, 0]
            top = _percentile_99(light)
            if top > 1:
                # a dim photo has weaker edges: stretch the lightness so thresholds mean the same
                light = cv2.convertScaleAbs(light, alpha=min(4.0, 255.0 / top))
            self._derivatives[median] = tuple(
                (cv2.Sobel(ch, cv2.CV_16S, 1, 0, ksize=3, borderType=cv2.BORDER_REPLICATE),
                 cv2.Sobel(ch, cv2.CV_16S, 0, 1, ksize=3, borderType=cv2.BORDER_REPLICATE))
                for ch in (np.ascontiguousarray(light), np.ascontiguousarray(lab[:, :, 1]),
                           np.ascontiguousarray(lab[:, :, 2])))
        return self._derivatives[median]


def edge_source(image: NDArray[np.uint8], cfg: BoardConfig) -> EdgeSource:
    """``image`` downscaled once for the passes of :func:`find_candidates`.

    Parameters
    ----------
    image : (H, W, 3) uint8 BGR array
    cfg : BoardConfig
        ``detect_side`` (the long side's largest size) and ``median_px`` (the median pre-filter).

    Returns
    -------
    EdgeSource
        ``image`` itself when it is no larger than ``detect_side``, else an ``INTER_AREA`` copy.
    """
    h, w = image.shape[:2]
    scale = min(1.0, cfg.detect_side / max(h, w))
    small = image if scale == 1.0 else cv2.resize(image, (round(w * scale), round(h * scale)),
                                                   interpolation=cv2.INTER_AREA)
    return EdgeSource(small, scale, cfg.median_px)


def _edges(source: EdgeSource, cfg: BoardConfig, sensitivity: float = 1.0,
           median: bool = True) -> NDArray[np.uint8]:
    (lx, ly), (ax, ay), (bx, by) = source.derivatives(median)
    lo, hi = cfg.canny_low * sensitivity, cfg.canny_high * sensitivity
    edges = cv2.Canny(lx, ly, lo, hi)
    edges |= cv2.Canny(ax, ay, lo / 2, hi / 2)
    edges |= cv2.Canny(bx, by, lo / 2, hi / 2)
    if cfg.close_px > 1:
        k = cv2.getStructuringElement(cv2.MORPH_RECT, (cfg.close_px, cfg.close_px))
        edges = cv2.morphologyEx(edges, cv2.MORPH_CLOSE, k)
    return edges


def _line_groups(contour: NDArray[np.int32], cfg: BoardConfig, scale: float) -> list[_Line]:
    poly = cv2.approxPolyDP(contour, max(1.0, cfg.approx_eps_frac * scale), True).reshape(-1, 2)
    poly = poly.astype(np.float64)
    if len(poly) < 4:
        return []
    ends = np.roll(poly, -1, axis=0)
    # (integer vertices: the squared lengths are exact, so this order is that of any exact norm)
    lengths = np.sqrt(((ends - poly) ** 2).sum(axis=1))
    order = np.argsort(-lengths, kind="stable")
    order = order[lengths[order] >= cfg.min_segment_frac * scale]
    max_ang = math.radians(cfg.line_angle_deg)
    max_dist = cfg.line_dist_frac * scale
    seg_a, seg_b, seg_len = poly[order], ends[order], lengths[order]
    unit = (seg_b - seg_a) / seg_len[:, None]
    mid = (seg_a + seg_b) / 2
    # match[i, j]: segment i lies on the line of segment j (direction and distance from its middle)
    cross = np.abs(unit[:, None, 0] * unit[None, :, 1] - unit[:, None, 1] * unit[None, :, 0])
    off = mid[:, None, :] - mid[None, :, :]
    dist = np.abs(off[..., 0] * unit[None, :, 1] - off[..., 1] * unit[None, :, 0])
    match = ((cross < math.sin(max_ang)) & (dist < max_dist)).tolist()
    # longest first, each segment joins the first line it lies on, else starts a line
    first: list[int] = []
    members: list[list[int]] = []
    for i in range(len(order)):
        row = match[i]
        for g, j in enumerate(first):
            if row[j]:
                members[g].append(i)
                break
        else:
            first.append(i)
            members.append([i])
    groups = [[(seg_a[i], seg_b[i], float(seg_len[i])) for i in m] for m in members]
    heads = [(mid[j], unit[j]) for j in first]
    lines: list[_Line] = []
    for g, (_, d0) in zip(groups, heads, strict=True):
        # length-weighted mean direction (signs aligned with the longest piece) and middle
        sx = sy = mx = my = total = 0.0
        for a, b, ln in g:
            vx, vy = (b[0] - a[0]) / ln, (b[1] - a[1]) / ln
            if vx * d0[0] + vy * d0[1] < 0:
                vx, vy = -vx, -vy
            sx += vx * ln
            sy += vy * ln
            mx += (a[0] + b[0]) / 2 * ln
            my += (a[1] + b[1]) / 2 * ln
            total += ln
        norm = math.hypot(sx, sy)
        mid = np.array([mx / total, my / total])
        lines.append(_Line(mid, np.array([sx / norm, sy / norm]), total, mid))
    lines.sort(key=lambda ln: -ln.length)
    # keep the longest few of each direction, so a grainy table cannot crowd out the board's sides
    kept: list[_Line] = []
    per_bin: dict[int, int] = {}
    for ln in lines:
        b = int((math.degrees(math.atan2(ln.direction[1], ln.direction[0])) % 180.0) // cfg.direction_bin_deg)
        if per_bin.get(b, 0) < cfg.lines_per_direction:
            per_bin[b] = per_bin.get(b, 0) + 1
            kept.append(ln)
            if len(kept) == cfg.max_line_groups:
                break
    return kept


def _intersect(a: _Line, b: _Line) -> tuple[float, float] | None:
    ax, ay = float(a.direction[0]), float(a.direction[1])
    bx, by = float(b.direction[0]), float(b.direction[1])
    det = -ax * by + bx * ay
    if abs(det) < 1e-6:
        return None
    rx, ry = float(b.point[0] - a.point[0]), float(b.point[1] - a.point[1])
    t = (-rx * by + bx * ry) / det
    return float(a.point[0]) + t * ax, float(a.point[1]) + t * ay


def board_shaped(quad: NDArray[np.float64], cfg: BoardConfig) -> bool:
    """Whether a quadrilateral can be a square board seen from above: convex, its longest side at
    most ``max_side_ratio`` times its shortest, no corner sharper than ``min_corner_angle_deg``.

    Parameters
    ----------
    quad : (4, 2) float64 array
        The corners in order round the quadrilateral.
    cfg : BoardConfig
        ``max_side_ratio`` and ``min_corner_angle_deg``.

    Returns
    -------
    bool
    """
    if not cv2.isContourConvex(quad.astype(np.float32).reshape(-1, 1, 2)):
        return False
    edge = np.roll(quad, -1, axis=0) - quad
    sides = np.hypot(edge[:, 0], edge[:, 1])
    if sides.min() <= 1 or sides.max() / sides.min() > cfg.max_side_ratio:
        return False
    prev = np.roll(edge, 1, axis=0)
    cosang = -(prev * edge).sum(axis=1) / (np.roll(sides, 1) * sides)
    return bool(np.degrees(np.arccos(np.clip(cosang, -1, 1))).min() >= cfg.min_corner_angle_deg)


def _quad_from_lines(lines: tuple[_Line, ...], cfg: BoardConfig) -> tuple[NDArray[np.float64], float] | None:
    centre = np.mean([ln.middle for ln in lines], axis=0)
    ang = [math.atan2(ln.middle[1] - centre[1], ln.middle[0] - centre[0]) for ln in lines]
    order = [lines[i] for i in np.argsort(ang)]
    corners = []
    for i in range(4):
        p = _intersect(order[i], order[(i + 1) % 4])
        if p is None:
            return None
        corners.append(p)
    quad = np.array(corners)
    if not board_shaped(quad, cfg):
        return None
    edge = np.roll(quad, -1, axis=0) - quad
    sides = np.hypot(edge[:, 0], edge[:, 1])
    # each side (between corners i and i+1) lies on line order[(i+1) % 4]
    support = [min(1.0, order[(i + 1) % 4].length / sides[i]) for i in range(4)]
    if min(support) < cfg.min_side_support:
        return None
    # opposite sides of the board are nearly parallel in a photo from above; a quad closed by a
    # table seam or a card edge seldom is
    unit = edge / sides[:, None]
    skew = [abs(float(unit[i, 0] * unit[i + 2, 1] - unit[i, 1] * unit[i + 2, 0])) for i in (0, 1)]
    sigma = math.sin(math.radians(cfg.parallel_sigma_deg))
    parallel = math.exp(-(skew[0] ** 2 + skew[1] ** 2) / (2 * sigma * sigma))
    return quad, float(np.mean(support)) * parallel


def _side_combinations(lines: list[_Line], cfg: BoardConfig,
                       scale: float) -> list[tuple[_Line, _Line, _Line, _Line]]:
    """Sets of 4 lines made of two pairs of nearly parallel, separated lines (opposite sides)
    whose directions differ clearly; far fewer than all 4-subsets on a grainy table."""
    pairs: list[tuple[_Line, _Line, float]] = []
    max_skew = math.sin(math.radians(cfg.max_skew_deg))
    for a, b in itertools.combinations(lines, 2):
        cross = abs(a.direction[0] * b.direction[1] - a.direction[1] * b.direction[0])
        if cross > max_skew:
            continue
        off = b.middle - a.middle
        gap = abs(off[0] * a.direction[1] - off[1] * a.direction[0])
        if gap < cfg.min_area_frac ** 0.5 * scale:
            continue
        ang = math.atan2(a.direction[1], a.direction[0]) % math.pi
        pairs.append((a, b, ang))
    out = []
    min_turn = math.radians(cfg.min_corner_angle_deg)
    for (a, b, t1), (c, d, t2) in itertools.combinations(pairs, 2):
        turn = abs(t1 - t2)
        turn = min(turn, math.pi - turn)
        if turn >= min_turn and len({id(a), id(b), id(c), id(d)}) == 4:
            out.append((a, b, c, d))
    return out


def find_candidates(image: NDArray[np.uint8], cfg: BoardConfig, sensitivity: float = 1.0,
                    median: bool = True, source: EdgeSource | None = None) -> list[NDArray[np.float64]]:
    """Quadrilaterals that may be the board, largest first.

    Parameters
    ----------
    image : (H, W, 3) uint8 BGR array
    cfg : BoardConfig
    sensitivity : float
        Multiplies the edge thresholds (below 1 finds fainter edges).
    median : bool
        Median pre-filter (ignores thin lines) rather than a Gaussian blur.
    source : EdgeSource, optional
        :func:`edge_source` of ``image``, shared by several passes; made here when None.

    Returns
    -------
    list of (4, 2) float64 arrays
        Corners in ``image`` pixels, ordered by :func:`order_corners`.
    """
    h, w = image.shape[:2]
    if source is None:
        source = edge_source(image, cfg)
    scale = source.scale
    sh, sw = source.small.shape[:2]
    edges = _edges(source, cfg, sensitivity, median)
    contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    area_img = float(sh * sw)
    scale_px = math.sqrt(area_img)
    found: list[tuple[float, NDArray[np.float64]]] = []
    for cnt in contours:
        _, _, bw, bh = cv2.boundingRect(cnt)
        if bw * bh < cfg.min_area_frac * area_img:
            continue
        lines = _line_groups(cnt, cfg, scale_px)
        quads: list[tuple[float, NDArray[np.float64]]] = []
        for combo in _side_combinations(lines, cfg, scale_px) if len(lines) >= 4 else []:
            got = _quad_from_lines(combo, cfg)
            if got is None:
                continue
            quad, support = got
            area = float(cv2.contourArea(quad.astype(np.float32)))
            if cfg.min_area_frac * area_img <= area <= cfg.max_area_frac * area_img:
                quads.append((area * support, quad))
        # the classic candidate too: the blob's convex hull when it simplifies to 4 corners
        hull = cv2.convexHull(cnt)
        approx = cv2.approxPolyDP(hull, cfg.hull_eps_frac * cv2.arcLength(hull, True), True)
        if len(approx) == 4:
            area = float(cv2.contourArea(approx))
            if cfg.min_area_frac * area_img <= area <= cfg.max_area_frac * area_img:
                quads.append((area * cfg.hull_weight, approx.reshape(4, 2).astype(np.float64)))
        quads.sort(key=lambda t: -t[0])
        found.extend(quads[: cfg.quads_per_contour])
    found.sort(key=lambda t: -t[0])
    out: list[NDArray[np.float64]] = []
    for _, quad in found:
        q = order_corners(quad / scale)
        if all(np.abs(q - o).max() > 0.02 * max(h, w) for o in out):
            out.append(q)
    return out


def refine_corners(image: NDArray[np.uint8], corners: NDArray[np.float64],
                   cfg: BoardConfig) -> NDArray[np.float64]:
    """Move each side of a coarse quad onto the strongest nearby edge at full resolution.

    Parameters
    ----------
    image : (H, W, 3) uint8 BGR array
    corners : (4, 2) float array, image pixels, ordered TL, TR, BR, BL
    cfg : BoardConfig

    Returns
    -------
    (4, 2) float64 array
        The refined corners; a side that shows no clear edge (a hand over it) stays where it was,
        and ``corners`` come back unchanged when fewer than ``refine_min_sides`` sides refine.
    """
    q = np.asarray(corners, np.float64)
    side = float(np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1).mean())
    win = max(3, round(cfg.refine_frac * side))
    h, w = image.shape[:2]
    x0, y0 = (np.floor(q.min(axis=0)) - win - 2).astype(int)
    x1, y1 = (np.ceil(q.max(axis=0)) + win + 3).astype(int)
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return q
    gray = cv2.cvtColor(image[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY).astype(np.float32)
    gray = cv2.GaussianBlur(gray, (0, 0), cfg.refine_sigma)
    centre = q.mean(axis=0)
    offs = np.arange(-win, win + 1, dtype=np.float32)
    ts = np.linspace(0.08, 0.92, cfg.refine_samples)
    lines: list[_Line] = []
    refined_sides = 0
    for i in range(4):
        a, b = q[i], q[(i + 1) % 4]
        d = (b - a) / max(np.linalg.norm(b - a), 1e-9)
        n = np.array([d[1], -d[0]])
        if n @ ((a + b) / 2 - centre) < 0:
            n = -n
        pts = a[None, :] + ts[:, None] * (b - a)[None, :]  # (S, 2)
        xs = (pts[:, 0:1] + offs[None, :] * n[0] - x0).astype(np.float32)
        ys = (pts[:, 1:2] + offs[None, :] * n[1] - y0).astype(np.float32)
        prof = cv2.remap(gray, xs, ys, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)  # (S, 2w+1)
        grad = np.abs(np.diff(prof, axis=1))
        k = grad.argmax(axis=1)
        strength = grad[np.arange(len(k)), k]
        off = offs[k] + 0.5
        good = strength > cfg.refine_min_step
        if good.sum() >= cfg.refine_samples // 3:
            med = np.median(off[good])
            good &= np.abs(off - med) <= cfg.refine_tolerance
        if good.sum() < cfg.refine_samples // 3:
            lines.append(_Line(a, (b - a) / max(float(np.linalg.norm(b - a)), 1e-9), 0.0, a))
            continue
        refined_sides += 1
        p = pts[good] + off[good, None] * n[None, :]
        mean = p.mean(axis=0)
        _, _, vt = np.linalg.svd(p - mean)
        lines.append(_Line(mean, vt[0], 0.0, mean))
    if refined_sides < cfg.refine_min_sides:
        return q
    out = []
    for i in range(4):
        p = _intersect(lines[(i - 1) % 4], lines[i])
        if p is None:
            return q
        out.append(p)
    refined = np.array(out)
    if np.abs(refined - q).max() > 2 * win:
        return q
    return refined


def rectify(image: NDArray[np.uint8], corners: NDArray[np.float64],
            size: int) -> tuple[NDArray[np.uint8], NDArray[np.float64]]:
    """Warp the board to a ``size`` x ``size`` square.

    Parameters
    ----------
    image : (H, W, 3) uint8 BGR array
    corners : (4, 2) float array, image pixels, ordered TL, TR, BR, BL
    size : side of the output square in pixels

    Returns
    -------
    rect : (size, size, 3) uint8 array
    homography : (3, 3) float64 array mapping image pixels to ``rect`` pixels
    """
    dst = np.array([[0, 0], [size, 0], [size, size], [0, size]], np.float32)
    hom = cv2.getPerspectiveTransform(np.asarray(corners, np.float32), dst).astype(np.float64)
    side = float(np.max(np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1)))
    src = image
    if side > 1.6 * size:
        # pre-blur a much larger board so the warp does not alias
        sigma = 0.4 * side / size
        x0, y0 = np.floor(corners.min(axis=0)).astype(int) - 4
        x1, y1 = np.ceil(corners.max(axis=0)).astype(int) + 4
        x0, y0 = max(0, x0), max(0, y0)
        x1, y1 = min(image.shape[1], x1), min(image.shape[0], y1)
        crop = cv2.GaussianBlur(image[y0:y1, x0:x1], (0, 0), sigma)
        shift = np.array([[1, 0, x0], [0, 1, y0], [0, 0, 1]], np.float64)
        rect = cv2.warpPerspective(crop, hom @ shift, (size, size), flags=cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_REPLICATE)
        return rect, hom
    rect = cv2.warpPerspective(src, hom, (size, size), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)
    return rect, hom
