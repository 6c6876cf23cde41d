"""Stage 1: card quadrilaterals.

Cards are found as closed edge loops on a downscaled copy: Canny over all three colour
channels, a thin dilation to close gaps, every contour (outer and inner) approximated by a
polygon. Convex hulls whose minimum-area rectangle has a card's aspect ratio and which are
four-sided (the hull fills its four-corner approximation; a slanted card is a trapezoid, not a
rectangle) are cards; corners are refined by fitting a line to each side. A card far off in a
tilted view is foreshortened up to a square: a squat quad (squarer than ``aspect_range[1]``) is a
card only where nothing else was found. A hull that lost a corner (to glare, a neighbour, a table
line crossing it) is completed from the four sides that remain (``corner_cut``); such a quad only
fills a place nothing else reaches into. A quad with a side that runs along no edge is mended
(``_repair``: the side found along the edges about parallel to its opposite, or, failing that, ``_snap``:
each weak side moved outward onto the best-supported line near its ends); it too only fills a
place nothing well outlined took. A quad that borrows a side from something else (see
:func:`plausible`) gives way to the card-shaped candidates it holds, and to a well-outlined one it
lies inside (a part of that card closed off by a line of its face).
The image border is drawn into the edge map so a card cut by the border still closes; such a
card is reported ``partial``. A complete loop twice a card long is no card but may be two cards
end to end (or, smaller, one card seen steeply), and a quad that gave way to a card it holds may
be two cards side by side: both are reported apart (``Detection.doubles``), and :func:`split_pair`
cuts such a pair into its two cards for the reader to check.

A card whose outline is open (touching another card, on a table of its own colour, under
glare) is no closed loop; :func:`propose` offers such cards from two straight sides meeting at a
corner, in the places no plausible card (:func:`plausible`) explains, for the reader to verify.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.cards import rectify as rectify_mod
from vision.config import load_config


@dataclass(frozen=True)
class DetectConfig:
    """Tunable numbers of the card detection stage: the ``detect`` section of
    ``vision/data/config/cards.json``, where each is described."""

    passes: tuple[tuple[float, float, float, float, int], ...]
    min_area_frac: float
    max_area_frac: float
    approx_eps_frac: tuple[float, ...]
    aspect_range: tuple[float, float]
    end_pair_aspect: float
    steep_confidence: float
    min_fill: float
    corner_cut: float
    min_solidity: float
    min_contour_px: int
    refine_span: tuple[float, float]
    refine_band: tuple[float, float]
    refine_jump: float
    thin_chain: float
    min_partial_fill: float
    min_partial_thickness: float
    min_partial_area_frac: float
    border_px: int
    nest_overlap: float
    inner_share: float
    pair_area: float
    card_area_tol: float
    held_area: tuple[float, float]
    held_inside: float
    held_apart: float
    side_support: float
    support_span: float
    support_samples: int
    repair_range: tuple[float, float]
    repair_turn_deg: float
    max_side_ratio: float
    propose_pass: int
    propose_min_side: float
    propose_gap: float
    propose_angle_deg: tuple[float, float]
    propose_overlap: float
    propose_max: int
    propose_segments: int
    region_side_px: int
    region_background: float
    region_window: float
    region_dist: float
    region_noise: float
    region_open_px: int
    region_close_px: int
    region_fill: float
    region_min_card: float
    region_max: int


@cache
def default_config() -> DetectConfig:
    """The ``detect`` section of the packaged ``cards.json``, loaded once."""
    return load_config("cards", DetectConfig, section="detect")


@dataclass(frozen=True)
class CardQuad:
    """A card outline in full-image pixels.

    ``corners`` is a ``(4, 2)`` float64 array, clockwise in the image, starting anywhere.
    ``partial`` is true when the card is cut by the image border (then the corners outline the
    visible part only).
    """

    corners: NDArray[np.float64]
    partial: bool
    area: float


class Detection(tuple[CardQuad, ...]):
    """The card outlines found by :func:`detect` (a tuple of :class:`CardQuad`), carrying the
    Canny map of the photo at pass ``propose_pass`` (``(h, w)`` uint8, ``None`` when not made)
    so that :func:`propose` on the same photo need not make it again, and ``doubles``: complete
    outlines that may be two touching cards (twice a card long: two end to end; or far larger than
    the photo's card and holding a card-sized candidate: two side by side, see :func:`detect`), for
    the reader to try as the two cards of :func:`split_pair`; an outline of the first shape may
    also be one card seen steeply, which the reader tries when its halves are not two cards."""

    canny: NDArray[np.uint8] | None
    doubles: tuple[CardQuad, ...]

    def __new__(cls, quads: tuple[CardQuad, ...] = (), canny: NDArray[np.uint8] | None = None,
                doubles: tuple[CardQuad, ...] = ()) -> Detection:
        self = super().__new__(cls, quads)
        self.canny = canny
        self.doubles = doubles
        return self


def _clockwise(pts: NDArray[np.float64]) -> NDArray[np.float64]:
    """The points ``(n, 2)`` float64 in order of their angle about their mean (clockwise in image
    coordinates, y down)."""
    c = pts.sum(axis=0) / len(pts)  # the mean (np.mean's own sum and division), at less cost
    ang = np.arctan2(pts[:, 1] - c[1], pts[:, 0] - c[0])
    return pts[np.argsort(ang)]


def plausible(quad: CardQuad, config: DetectConfig | None = None) -> bool:
    """Whether a complete card's quad can be a card seen in perspective.

    A card is small against its distance from the camera, so perspective barely changes the
    length of one side against its opposite one, whatever the tilt: a quad whose opposite sides
    differ by more than ``max_side_ratio`` borrows a side from something else (a table line, a
    neighbour). Partial quads are plausible.
    """
    cfg = config or default_config()
    return quad.partial or _sides_match(quad.corners, cfg)


def _sides_match(q: NDArray[np.float64], cfg: DetectConfig) -> bool:
    """Whether each side of the quad ``q`` ``(4, 2)`` is within ``max_side_ratio`` of its opposite
    one (see :func:`plausible`)."""
    s = np.hypot(*(np.roll(q, -1, axis=0) - q).T)
    ratio = max(max(s[0], s[2]) / max(min(s[0], s[2]), 1e-9), max(s[1], s[3]) / max(min(s[1], s[3]), 1e-9))
    return bool(ratio <= cfg.max_side_ratio)


def _refine(contour: NDArray[np.float64], quad: NDArray[np.float64],
            cfg: DetectConfig) -> NDArray[np.float64]:
    """Fit a line to the contour points of each side (middle part) and intersect them.

    Parameters
    ----------
    contour : (n, 2) float64 array
        The outline's points, pixels.
    quad : (4, 2) float64 array
        Its approximating quadrilateral, clockwise.
    cfg : DetectConfig
        ``refine_span``, ``refine_band`` and ``refine_jump`` (see cards.json).

    Returns
    -------
    (4, 2) float64 array
        The refined corners, or ``quad`` itself when a side has too few points or a corner moves
        too far.
    """
    pts = contour.reshape(-1, 2)
    d = quad[[1, 2, 3, 0]] - quad  # (4, 2): side i runs from quad[i] along d[i]
    length = np.hypot(d[:, 0], d[:, 1])
    if (length < 4).any():
        return quad
    n = np.stack([-d[:, 1], d[:, 0]], axis=1) / length[:, None]
    # every side at once: each point's place along the side (a share of its length) and its
    # distance from it, (4, n); a stacked matmul makes each side's products as rel @ d[i] does
    rel = pts[None, :, :] - quad[:, None, :]
    t = np.matmul(rel, d[:, :, None])[:, :, 0] / (length * length)[:, None]
    dist = np.abs(np.matmul(rel, n[:, :, None])[:, :, 0])
    near = ((t > cfg.refine_span[0]) & (t < cfg.refine_span[1])
            & (dist < np.maximum(cfg.refine_band[0], cfg.refine_band[1] * length)[:, None]))
    if (np.count_nonzero(near, axis=1) < 5).any():
        return quad
    lines = []
    for i in range(4):
        vx, vy, x0, y0 = cv2.fitLine(pts[near[i]].astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        lines.append((np.array([x0, y0], float), np.array([vx, vy], float)))
    out, meet = _side_corners(lines)
    if not meet.all():
        return quad
    if np.max(np.abs(out - quad)) > cfg.refine_jump * np.sqrt(cv2.contourArea(quad.astype(np.float32))):
        return quad
    return out


def _canny(small: NDArray[np.uint8], blur_sigma: float, low: float, high: float) -> NDArray[np.uint8]:
    """Canny edges ``(h, w)`` uint8 of one pass's downscaled BGR photo, over all three channels."""
    return cv2.Canny(cv2.GaussianBlur(small, (0, 0), blur_sigma), low, high, L2gradient=True)


def _edges(canny: NDArray[np.uint8], dilate_px: int) -> NDArray[np.uint8]:
    """Edge map of one pass: its :func:`_canny` edges dilated, with the image border drawn in."""
    edges = canny.copy()
    if dilate_px > 0:
        k = cv2.getStructuringElement(cv2.MORPH_RECT, (2 * dilate_px + 1, 2 * dilate_px + 1))
        edges = cv2.dilate(edges, k)
    h, w = edges.shape
    cv2.rectangle(edges, (0, 0), (w - 1, h - 1), 255, 1)
    return edges


def _shape(cnt: NDArray[np.int32], cfg: DetectConfig, size: tuple[int, int],
           ) -> tuple[tuple[NDArray[np.float64], bool, float], bool, bool, bool] | None:
    """A card candidate from a contour or an edge chain: its convex hull must be a filled,
    card-shaped quadrilateral (or, touching the border, a filled partial card), up to a square.
    ``((quad, partial, area), squat, cut, double)``, ``squat`` when the hull is squarer than
    ``aspect_range[1]`` (a card only where nothing else was found, see :func:`_candidates`), ``cut``
    when the quad is completed from four sides of a hull that lost a corner (see :func:`_uncut`),
    ``double`` when it is a complete quad longer than a card, from ``end_pair_aspect`` to
    ``aspect_range[0]`` (short side over long): two cards lying end to end, seen along or across.
    A complete card's loop must fill ``min_solidity`` of its hull, unless it is an open chain (the
    contour of a thin edge, whose area is at most ``thin_chain`` times its length); the test comes
    before the corners are refined, which only the quads kept need."""
    h, w = size
    img_area = float(h * w)
    hull = cv2.convexHull(cnt)
    hull_area = float(cv2.contourArea(hull))
    if hull_area < cfg.min_area_frac * img_area or hull_area > cfg.max_area_frac * img_area:
        return None
    (_, _), (rw, rh), _ = cv2.minAreaRect(hull)
    if rw <= 0 or rh <= 0:
        return None
    fill = hull_area / (rw * rh)
    hp = hull.reshape(-1, 2).astype(np.float64)
    b = cfg.border_px
    on_border = (hp[:, 0] <= b) | (hp[:, 1] <= b) | (hp[:, 0] >= w - 1 - b) | (hp[:, 1] >= h - 1 - b)
    if on_border.sum() >= 2:
        if fill < cfg.min_partial_fill:
            return None
        box = cv2.boxPoints(cv2.minAreaRect(hull)).astype(np.float64)
        return (_clockwise(box), True, hull_area), False, False, False
    lo, hi = cfg.aspect_range
    aspect = min(rw, rh) / max(rw, rh)
    double = cfg.end_pair_aspect <= aspect < lo
    if not (lo <= aspect <= 1.0 or double):
        return None
    peri = cv2.arcLength(hull, True)
    approx = None
    first = None
    for eps in cfg.approx_eps_frac:  # rounded corners and stray edges touching the outline
        poly = cv2.approxPolyDP(hull, eps * peri, True).reshape(-1, 2).astype(np.float64)
        first = poly if first is None else first
        if len(poly) == 4:
            approx = poly
            break
        if len(poly) < 4:
            break
    # the hull must be that quadrilateral: a card seen at a slant is a trapezoid that fills its
    # bounding rectangle poorly, but it fills its own four-sided outline
    cut = False
    if approx is None or cv2.contourArea(approx.astype(np.float32)) < cfg.min_fill * hull_area:
        # a corner lost (to glare, a neighbour, a table line crossing it): the card's four sides
        # remain as the hull's longest ones
        approx = _uncut(first, hull_area, cfg) if first is not None else None
        if approx is None:
            return None
        if ((approx < -b) | (approx[:, :1] > w - 1 + b) | (approx[:, 1:] > h - 1 + b)).any():
            # a corner completed outside the photo was cut by its edge, not lost: a cut card
            return (_clockwise(approx), True, hull_area), False, False, False
        cut = True
    # a loop must fill its hull; an open chain (the contour of a thin edge) need not
    area = cv2.contourArea(cnt)
    if area / hull_area < cfg.min_solidity and area > cfg.thin_chain * cv2.arcLength(cnt, True):
        return None
    if double and cut:
        return None
    quad = _refine(cnt.reshape(-1, 2).astype(np.float64), _clockwise(approx), cfg)
    return (_clockwise(quad), False, hull_area), aspect > hi, cut, double


def _uncut(poly: NDArray[np.float64], hull_area: float, cfg: DetectConfig) -> NDArray[np.float64] | None:
    """The quad of four sides of a convex polygon, each two neighbours among them meeting at a
    corner, when the polygon is a quad that lost a corner or two (cut off, or a stray edge stuck
    on): the smallest such quad whose other sides are short.

    Parameters
    ----------
    poly : (n, 2) float64 array
        The hull's polygon approximation, in order.
    hull_area : float
        The hull's area, square pixels.
    cfg : DetectConfig
        ``corner_cut``: the other sides hold at most this share of the perimeter; ``min_fill``:
        the hull fills at least this share of the quad, and the quad at least this share of the
        hull; ``max_side_ratio``: the quad's opposite sides match (see :func:`plausible`).

    Returns
    -------
    (4, 2) float64 array or None
        The quad's corners, in the polygon's order.
    """
    n = len(poly)
    if not 5 <= n <= 6:
        return None
    ends = np.roll(poly, -1, axis=0)
    lengths = np.hypot(*(ends - poly).T)
    allowed = cfg.corner_cut * lengths.sum()
    if np.sort(lengths)[:n - 4].sum() > allowed:
        return None  # even the shortest sides are no lost corner
    best: tuple[float, NDArray[np.float64]] | None = None
    # the sides to drop: those whose neighbours, extended, close the smallest quad around the hull
    for keep in itertools.combinations(range(n), 4):
        if lengths[[k for k in range(n) if k not in keep]].sum() > allowed:
            continue
        quad, meet = _side_corners([(poly[k], ends[k] - poly[k]) for k in keep])
        if not meet.all():
            continue
        q32 = quad.astype(np.float32)
        area = float(cv2.contourArea(q32))
        if (cv2.isContourConvex(q32) and cfg.min_fill * area <= hull_area
                and all(cv2.pointPolygonTest(q32, (float(x), float(y)), True) >= -1.0 for x, y in poly)
                and cfg.min_fill * hull_area <= area and _sides_match(quad, cfg)
                and (best is None or area < best[0])):
            best = (area, quad)
    return None if best is None else best[1]


def _candidates(edges: NDArray[np.uint8], cfg: DetectConfig,
                ) -> list[tuple[NDArray[np.float64], bool, float, bool]]:
    """Candidates ``(quad, partial, area, rank)`` from closed edge loops (every contour) and from
    connected edge chains (a loop left open where a corner of the card matches the table).
    ``rank``: 0 for a card-shaped quad, 1 for a weak one (a side of the quad does not run along
    an edge, see :func:`_side_support`), 2 for a squat one (squarer than ``aspect_range[1]``), 3 for
    one completed over a lost corner (see :func:`_uncut`), 4 for two cards end to end (a double,
    see :func:`_shape`).

    ``edges`` is an edge map of :func:`_edges`, with the image border drawn in: its only outer
    contour is the border's, which is among ``RETR_LIST``'s contours and spans the whole photo
    (never a card), so the list's contours are all there is to try."""
    size = edges.shape[:2]
    contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
    out = []
    min_area = cfg.min_area_frac * size[0] * size[1]
    near = cv2.dilate(edges, np.ones((3, 3), np.uint8)) > 0  # an edge within one pixel
    for cnt in contours:
        if len(cnt) < cfg.min_contour_px:
            continue
        _, _, bw, bh = cv2.boundingRect(cnt)
        if bw * bh < min_area:
            continue
        # a card seen at a flat angle (far from the camera of a tilted view) is foreshortened
        # along the view, up to a square; so is a card's square grid box. A squat quad only
        # fills a place no card-shaped quad took
        shaped = _shape(cnt, cfg, size)
        if shaped is None:
            continue
        cand, squat, cut, double = shaped
        if double:
            out.append((*cand, 4))
            continue
        weak = not cand[1] and _side_support(near, cand[0], cfg) < cfg.side_support
        if weak and not (squat or cut):
            # a side that runs along no edge cuts across the card (a corner lost to glare or a
            # low-contrast table): look for the true side along the edges, parallel to its opposite.
            # The repaired quad stays a stand-in: it only fills a place no well-outlined quad took
            fixed = _repair(near, cand[0], cfg)
            if fixed is None:
                # a side fitted to a contour that ran along two nearby lines (the card's edge and
                # its frame) lies between them: moved out onto the edge first, the others repaired
                fixed = _snap(near, cand[0], cfg)
                if fixed is not None and _side_support(near, fixed, cfg) < cfg.side_support:
                    fixed = _repair(near, fixed, cfg)
            if fixed is not None:
                cand = (fixed, False, float(cv2.contourArea(fixed.astype(np.float32))))
        out.append((*cand, 3 if cut else 2 if squat else int(weak)))
    return out


def _sides_support(near: NDArray[np.bool_], quad: NDArray[np.float64], cfg: DetectConfig,
                   ) -> NDArray[np.float64]:
    """The share of each side ``(4,)`` (``quad[i]`` to ``quad[i + 1]``) that runs along an edge."""
    h, w = near.shape
    t = np.linspace(cfg.support_span, 1.0 - cfg.support_span, cfg.support_samples)[None, :, None]
    p = quad[:, None, :] + t * (quad[[1, 2, 3, 0]] - quad)[:, None, :]  # (4, samples, 2)
    np.rint(p, out=p)
    xi = np.minimum(np.maximum(p[..., 0].astype(np.intp), 0), w - 1)  # np.clip's result, at less cost
    yi = np.minimum(np.maximum(p[..., 1].astype(np.intp), 0), h - 1)
    # the share of hits: a whole count over the samples, as the mean of the booleans
    return np.count_nonzero(near[yi, xi], axis=1) / cfg.support_samples


def _rounded(start: NDArray[np.float64], along: NDArray[np.float64], step: NDArray[np.float64],
             ) -> NDArray[np.intp]:
    """``round(start[i, j] + along[k] * step[i])`` ``(I, J, K)`` as whole pixel coordinates.

    ``start`` ``(I, J)``, ``along`` ``(K,)``, ``step`` ``(I,)`` float64.
    """
    out = start[:, :, None] + along[None, None, :] * step[:, None, None]
    return np.rint(out, out=out).astype(np.intp)


def _intersect_many(p1: NDArray[np.float64], v1: NDArray[np.float64], p2: NDArray[np.float64],
                    v2: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """Where each of ``k`` pairs of lines meets: the line through ``p1`` along ``v1`` and the one
    through ``p2`` along ``v2`` (each ``(k, 2)`` float64). Returns the points ``(k, 2)`` and
    whether each pair meets ``(k,)`` bool (not when the 2x2 system's determinant is under 1e-6;
    those rows are NaN). Each pair's 2x2 system gets its own LAPACK solve, as one pair alone."""
    m = np.stack([v1, -v2], axis=2)  # (k, 2, 2): the columns v1 and -v2
    ok = np.abs(np.linalg.det(m)) >= 1e-6 if len(m) else np.zeros(0, bool)
    out = np.full(p1.shape, np.nan)
    if ok.any():
        s = np.linalg.solve(m[ok], (p2 - p1)[ok][:, :, None])[:, :, 0]
        out[ok] = p1[ok] + s[:, :1] * v1[ok]
    return out, ok


def _side_corners(lines: Sequence[tuple[NDArray[np.float64], NDArray[np.float64]]],
                  ) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """The corners of a quad's four sides: corner ``i`` where side ``i - 1`` meets side ``i``.

    Parameters
    ----------
    lines : four (point, direction) pairs of (2,) float64 arrays, the sides in order

    Returns
    -------
    corners : (4, 2) float64 array
        NaN where two sides do not meet.
    meet : (4,) bool array
    """
    at, along = np.array([p for p, _ in lines]), np.array([v for _, v in lines])
    prev = [3, 0, 1, 2]
    return _intersect_many(at[prev], along[prev], at, along)


def _repair(near: NDArray[np.bool_], quad: NDArray[np.float64], cfg: DetectConfig,
            every: bool = True) -> NDArray[np.float64] | None:
    """A quad whose one side, or two adjacent sides, run along no edge, with each such side moved
    onto the best-supported straight edge roughly parallel to its opposite side.

    The new side is searched from ``repair_range[0]`` to ``repair_range[1]`` times the farthest
    distance of the old side's ends from the opposite side, turned by up to ``repair_turn_deg``
    from it; the repaired quad must be card-shaped, larger than the old one and supported on
    every side. ``None`` when no such quad is found. With ``every`` false, a side with no edge
    to move onto stays where it is, and the repaired quad need not be supported everywhere.
    """
    support = _sides_support(near, quad, cfg)
    bad = [i for i in range(4) if support[i] < cfg.side_support]
    if not bad or len(bad) > 2 or (len(bad) == 2 and (bad[1] - bad[0]) % 2 == 0):
        return None
    h, w = near.shape
    lines = [(quad[i], quad[(i + 1) % 4] - quad[i]) for i in range(4)]
    t = np.linspace(cfg.support_span, 1.0 - cfg.support_span, cfg.support_samples)
    n_turns = 2 * round(cfg.repair_turn_deg) + 1
    turns = np.radians(np.linspace(-cfg.repair_turn_deg, cfg.repair_turn_deg, n_turns))
    cs, sn = np.cos(turns)[:, None], np.sin(turns)[:, None]
    flat = near.ravel()
    for i in bad:
        a, b = quad[(i + 2) % 4], quad[(i + 3) % 4]  # the opposite side, running the other way
        d = (b - a) / max(1e-9, float(np.hypot(*(b - a))))
        n = np.array([-d[1], d[0]])
        ends = [float((quad[i] - a) @ n), float((quad[(i + 1) % 4] - a) @ n)]
        far = max(ends, key=abs)
        if abs(far) < 4:
            return None
        lo_off, hi_off = cfg.repair_range[0] * abs(far), cfg.repair_range[1] * abs(far)
        offsets = np.arange(lo_off, hi_off, 1.0) * np.sign(far)
        # every turned line at every offset at once: directions (turns, 2), then the points
        # along each line over the opposite side's extent (turns, offsets, samples, 2)
        dts = np.concatenate([cs * d[0] - sn * d[1], sn * d[0] + cs * d[1]], axis=1)
        nts = np.stack([-dts[:, 1], dts[:, 0]], axis=1)
        length = float(np.hypot(*(b - a)))
        bases = a + 0.5 * (b - a) - 0.5 * length * dts
        # x and y apart, each summed in the plain order ((base + offset) + along): the same
        # numbers as the (turns, offsets, samples, 2) array, with the first sum made once per
        # (turn, offset) instead of once per sample
        along = t * length
        xi = _rounded(bases[:, 0, None] + offsets[None, :] * nts[:, 0, None], along, dts[:, 0])
        yi = _rounded(bases[:, 1, None] + offsets[None, :] * nts[:, 1, None], along, dts[:, 1])
        if xi.min() >= 0 and yi.min() >= 0 and xi.max() < w and yi.max() < h:
            hit = flat[yi * w + xi]  # every sample inside the photo
        else:
            inside = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
            hit = flat[np.where(inside, yi * w + xi, 0)] & inside
        # the share of hits (a whole count over the samples, as the mean of the booleans)
        scores = np.count_nonzero(hit, axis=2) / hit.shape[2]  # (turns, offsets)
        # each turn's best offset (the first of equals); the first turn's best wins unless a later
        # turn's is better by more than 1e-9
        ks = scores.argmax(axis=1)
        tops = scores[np.arange(n_turns), ks].tolist()
        n_best = 0
        for n_turn in range(1, n_turns):
            if tops[n_turn] > tops[n_best] + 1e-9:
                n_best = n_turn
        if tops[n_best] < cfg.side_support:
            if every:
                return None
            continue
        k = ks[n_best]
        lines[i] = (bases[n_best] + offsets[k] * nts[n_best], dts[n_best])
    fixed, meet = _side_corners(lines)
    if not meet.all():
        return None
    area = float(cv2.contourArea(fixed.astype(np.float32)))
    if area <= float(cv2.contourArea(quad.astype(np.float32))) or not cv2.isContourConvex(
            fixed.astype(np.float32)):
        return None
    (_, _), (rw, rh), _ = cv2.minAreaRect(fixed.astype(np.float32))
    lo, hi = cfg.aspect_range
    if rw <= 0 or rh <= 0 or not lo <= min(rw, rh) / max(rw, rh) <= hi:
        return None
    if every and float(_sides_support(near, fixed, cfg).min()) < cfg.side_support:
        return None
    return _clockwise(fixed)


def _snap(near: NDArray[np.bool_], quad: NDArray[np.float64], cfg: DetectConfig,
          ) -> NDArray[np.float64] | None:
    """The quad ``(4, 2)`` float64 with each side that runs along no edge moved outward onto the
    best-supported line through points near its two ends (each end moved out along the side's
    normal by up to ``max(refine_band[0], refine_band[1] x its length)`` pixels), where that line
    runs along an edge over at least ``side_support`` of its length.

    A side fitted to a contour that ran along two nearby lines (the card's edge and its frame, a
    neighbour's edge) lies between them, along neither. ``None`` when no side moves, or when
    the moved sides make no convex card-shaped quad (``aspect_range``) whose opposite sides match.
    """
    support = _sides_support(near, quad, cfg)
    bad = [i for i in range(4) if support[i] < cfg.side_support]
    if not bad:
        return None
    h, w = near.shape
    flat = near.ravel()
    t = np.linspace(cfg.support_span, 1.0 - cfg.support_span, cfg.support_samples)
    lines = [(quad[i], quad[(i + 1) % 4] - quad[i]) for i in range(4)]
    moved = False
    centre = quad.mean(axis=0)
    for i in bad:
        p0, p1 = quad[i], quad[(i + 1) % 4]
        length = float(np.hypot(*(p1 - p0)))
        if length < 4:
            return None
        n = np.array([-(p1 - p0)[1], (p1 - p0)[0]]) / length
        if (p0 + p1 - 2.0 * centre) @ n < 0:
            n = -n  # outward: the card's outline is the outermost line, its frame lies inside
        reach = max(cfg.refine_band[0], cfg.refine_band[1] * length)
        offs = np.arange(0.0, np.floor(reach) + 1.0)
        o0, o1 = (a.ravel() for a in np.meshgrid(offs, offs, indexing="ij"))  # (k,) each end's move
        a = p0[None, :] + o0[:, None] * n[None, :]  # (k, 2)
        b = p1[None, :] + o1[:, None] * n[None, :]
        pts = a[:, None, :] + t[None, :, None] * (b - a)[:, None, :]  # (k, samples, 2)
        xi = np.rint(pts[..., 0]).astype(np.intp)
        yi = np.rint(pts[..., 1]).astype(np.intp)
        inside = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
        hit = flat[np.where(inside, yi * w + xi, 0)] & inside
        scores = np.count_nonzero(hit, axis=1) / len(t)
        k = int(scores.argmax())
        if scores[k] < cfg.side_support or scores[k] <= support[i]:
            continue
        lines[i] = (a[k], b[k] - a[k])
        moved = True
    if not moved:
        return None
    fixed, meet = _side_corners(lines)
    if not meet.all() or not cv2.isContourConvex(fixed.astype(np.float32)) or not _sides_match(fixed, cfg):
        return None
    (_, _), (rw, rh), _ = cv2.minAreaRect(fixed.astype(np.float32))
    if rw <= 0 or rh <= 0 or not cfg.aspect_range[0] <= min(rw, rh) / max(rw, rh) <= cfg.aspect_range[1]:
        return None
    return _clockwise(fixed)


def _pass_edges(image: NDArray[np.uint8], cfg: DetectConfig,
                canny: NDArray[np.uint8] | None = None) -> tuple[float, NDArray[np.uint8]]:
    """The scale of pass ``propose_pass`` and its edge map (:func:`_edges`), from its Canny map
    ``canny`` when given at that scale."""
    h, w = image.shape[:2]
    max_side, blur, low, high, dilate = cfg.passes[cfg.propose_pass]
    f = min(1.0, max_side / max(h, w))
    if canny is None or canny.shape != (round(h * f), round(w * f)):
        small = (image if f >= 1.0
                 else cv2.resize(image, (round(w * f), round(h * f)), interpolation=cv2.INTER_AREA))
        canny = _canny(small, blur, low, high)
    return f, _edges(canny, int(dilate))


def outline_support(image: NDArray[np.uint8], quad: CardQuad, config: DetectConfig | None = None,
                    canny: NDArray[np.uint8] | None = None) -> NDArray[np.float64]:
    """The share of each side of ``quad`` that runs along an edge of the photo.

    Parameters
    ----------
    image : (H, W, 3) uint8 array
        BGR photo.
    quad : CardQuad
    config : DetectConfig, optional
    canny : (h, w) uint8 array, optional
        :attr:`Detection.canny` of this photo, when at hand.

    Returns
    -------
    (4,) float64 array
        Side ``i`` runs from corner ``i`` to corner ``i + 1``; each share in 0..1, measured on the
        edges of pass ``propose_pass`` within a pixel.
    """
    cfg = config or default_config()
    f, edges = _pass_edges(image, cfg, canny)
    near = cv2.dilate(edges, np.ones((3, 3), np.uint8)) > 0
    return _sides_support(near, (quad.corners + 0.5) * f - 0.5, cfg)


def _side_support(near: NDArray[np.bool_], quad: NDArray[np.float64], cfg: DetectConfig) -> float:
    """The least share of a side that runs along an edge, over the four sides.

    A card's outline is an edge all along each side; a quadrilateral that only borrows corners
    of the outline and cuts across the face (along a pen stroke, say) has a side without one.
    """
    return float(_sides_support(near, quad, cfg).min())


def split_pair(quad: CardQuad) -> tuple[CardQuad, CardQuad]:
    """The two cards of a quad that may be two cards lying side by side or end to end.

    Two cards touching along their long sides make one outline with about a card's aspect
    (126x88 mm against 63x88), so the outline of such a pair passes as one card; two touching
    along their short sides make one twice a card long (176x63 mm). Either way the halves are cut
    across the quad's long sides at their middle, taken in the plane of the table (the middle of a
    quad seen in perspective is not the middle of its image).

    Parameters
    ----------
    quad : CardQuad
        A complete outline, corners clockwise.

    Returns
    -------
    (CardQuad, CardQuad)
        The two halves, each clockwise, complete.
    """
    c = np.asarray(quad.corners, np.float64)
    sides = np.linalg.norm(np.roll(c, -1, axis=0) - c, axis=1)
    k = 0 if sides[0] + sides[2] >= sides[1] + sides[3] else 1  # sides k and k + 2 are the long ones
    a, b, cc, d = (c[(k + j) % 4] for j in range(4))
    plane = np.array([[0, 0], [2, 0], [2, 1], [0, 1]], np.float32)
    to_plane = cv2.getPerspectiveTransform(np.array([a, b, cc, d], np.float32), plane)
    middle = np.array([[[1, 0], [1, 1]]], np.float32)
    m_top, m_bottom = cv2.perspectiveTransform(middle, np.linalg.inv(to_plane))[0].astype(np.float64)
    out = []
    for half in (np.array([a, m_top, m_bottom, d]), np.array([m_top, b, cc, m_bottom])):
        out.append(CardQuad(half, False, float(cv2.contourArea(half.astype(np.float32)))))
    return out[0], out[1]


def _thickness(quad: NDArray[np.float64]) -> float:
    """The short side of the smallest rectangle holding ``quad`` ``(4, 2)``, in pixels."""
    (_, _), (w, h), _ = cv2.minAreaRect(quad.astype(np.float32))
    return float(min(w, h))


def _overlap(a: NDArray[np.float64], b: NDArray[np.float64]) -> float:
    """The area, in square pixels, common to the convex quads ``a`` and ``b`` ``(4, 2)``."""
    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    return float(inter)


def _held(cand: tuple[NDArray[np.float64], bool, float], other: tuple[NDArray[np.float64], bool, float],
          cfg: DetectConfig) -> bool:
    """Whether ``other`` lies inside ``cand`` (more than ``held_inside`` of its area) and fills
    only part of it (``held_area`` of its area)."""
    qa, _, aa = cand
    return (cfg.held_area[0] * aa < other[2] < cfg.held_area[1] * aa
            and _overlap(qa, other[0]) > cfg.held_inside * other[2])


def _holds_two(cand: tuple[NDArray[np.float64], bool, float],
               others: list[tuple[NDArray[np.float64], bool, float]], cfg: DetectConfig) -> bool:
    """Whether ``cand`` holds two disjoint (overlapping by less than ``held_apart`` of the smaller)
    card-sized candidates (it is a group of touching cards)."""
    inner = [c for c in others if _held(cand, c, cfg)]
    return any(_overlap(a[0], b[0]) < cfg.held_apart * min(a[2], b[2])
               for n, a in enumerate(inner) for b in inner[n + 1:])


def _two_cards(cand: tuple[NDArray[np.float64], bool, float],
               others: list[tuple[NDArray[np.float64], bool, float]], med: float, cfg: DetectConfig) -> bool:
    """Whether ``cand`` is two or more touching cards taken together: far larger than the photo's
    typical card, and holding (more than ``held_inside`` of its area) a candidate of a card's own
    size that fills only part of it (less than ``held_area[1]``; the card's own frame fills more).
    The card's own size bounds it from below, whatever the number of cards taken together (one
    of three side by side fills a third)."""
    aa = cand[2]
    if med <= 0 or aa < cfg.pair_area * med:
        return False
    return any(abs(c[2] / med - 1.0) < cfg.card_area_tol and c[2] < cfg.held_area[1] * aa
               and _overlap(cand[0], c[0]) > cfg.held_inside * c[2] for c in others)


def _suppress(cands: list[tuple[NDArray[np.float64], bool, float]], cfg: DetectConfig,
              ) -> list[tuple[NDArray[np.float64], bool, float]]:
    """One candidate per card. A candidate that holds two or more disjoint card-sized candidates
    is a group of touching cards and gives way to them; otherwise the outermost of nested
    candidates (an edge's two sides, a frame or grid box inside its card) wins."""
    order = sorted(range(len(cands)), key=lambda i: (cands[i][1], -cands[i][2]))
    ranked = [cands[i] for i in order]
    group = {i for i in order if _holds_two(cands[i], ranked, cfg)}
    kept: list[int] = []
    for i in order:
        if i in group:
            continue
        qa, _, aa = cands[i]
        if any(_overlap(qa, cands[k][0]) > cfg.nest_overlap * min(aa, cands[k][2]) for k in kept):
            continue
        kept.append(i)
    return [cands[i] for i in kept]


def detect(image: NDArray[np.uint8], config: DetectConfig | None = None) -> Detection:
    """Find the card outlines in a photo.

    Parameters
    ----------
    image : (H, W, 3) uint8 array
        BGR photo.
    config : DetectConfig, optional

    Returns
    -------
    Detection
        A tuple of CardQuad: complete cards first, largest first; then partial cards (cut by the
        border) whose area is at least ``min_partial_area_frac`` of the median complete card.
    """
    cfg = config or default_config()
    h, w = image.shape[:2]
    # each pass's candidates by rank (see _candidates): card-shaped, weak, squat, cut, double
    ranked: list[list[list[tuple[NDArray[np.float64], bool, float]]]] = [[], [], [], [], []]
    scaled: dict[int, tuple[float, NDArray[np.uint8]]] = {}
    cannies: dict[tuple[int, float, float, float], NDArray[np.uint8]] = {}
    propose_key: tuple[int, float, float, float] | None = None
    for n_pass, (max_side, blur, low, high, dilate) in enumerate(cfg.passes):
        f = min(1.0, max_side / max(h, w))
        key = round(f * 1000)
        if n_pass == cfg.propose_pass:
            propose_key = (key, blur, low, high)
        if key not in scaled:
            scaled[key] = (f, image if f >= 1.0 else cv2.resize(image, (round(w * f), round(h * f)),
                                                                interpolation=cv2.INTER_AREA))
        small = scaled[key][1]
        ckey = (key, blur, low, high)
        if ckey not in cannies:  # passes that differ only in dilation share their edges
            cannies[ckey] = _canny(small, blur, low, high)
        edges = _edges(cannies[ckey], int(dilate))
        found = _candidates(edges, cfg)
        for rank, cands in enumerate(ranked):
            cands.append([((quad + 0.5) / f - 0.5, is_partial, area / (f * f))
                          for quad, is_partial, area, r in found if r == rank])
    per_pass, weak_pass, squat_pass, cut_pass, double_pass = ranked
    full_all = [c for cands in per_pass + weak_pass for c in cands if not c[1]]
    med = float(np.median([c[2] for c in full_all])) if full_all else 0.0
    kept: list[tuple[NDArray[np.float64], bool, float]] = []
    given: list[tuple[NDArray[np.float64], bool, float]] = []
    short = _card_sides(med)[0]
    # earlier (finer) passes win; later ones add what they missed; quads with a side along no
    # edge come next: they only fill places where no well-outlined quad was found; squat quads
    # come last and only fill places nothing else took (they take no outer place either: a
    # squat loop around a card holds something else too); quads completed over a lost corner
    # only fill places nothing else reaches into (as proposals do, see propose), and only with the
    # photo's card size (within card_area_tol): a part of a card's face may be completed too
    for i, cands in enumerate(per_pass + weak_pass + squat_pass + cut_pass):
        first = i % len(per_pass) == 0
        usable = [c for c in cands if not c[1]
                  or (first and full_all and cfg.min_partial_area_frac * med <= c[2] <= 1.3 * med
                      and _thickness(c[0]) >= cfg.min_partial_thickness * short)]
        if i >= 3 * len(per_pass):
            usable = [c for c in usable if med > 0 and abs(c[2] / med - 1.0) < cfg.card_area_tol]
        for cand in _suppress(usable, cfg):
            if not cand[1] and _two_cards(cand, full_all, med, cfg):
                given.append(cand)  # two touching cards: the reader may read them in its halves
                continue
            shared = [_overlap(cand[0], k[0]) / min(cand[2], k[2]) for k in kept]
            clash = [n for n, o in enumerate(shared) if o > cfg.nest_overlap]
            if i >= 3 * len(per_pass) and any(_overlap(cand[0], k[0]) > cfg.propose_overlap * cand[2]
                                              for k in kept):
                continue
            if not clash:
                kept.append(cand)
            elif (i < 2 * len(per_pass) and len(clash) == 1 and not cand[1] and not kept[clash[0]][1]
                  and not _holds_two(cand, full_all, cfg)
                  and sum(o > 1.0 - cfg.inner_share for o in shared) == 1
                  and kept[clash[0]][2] < cfg.inner_share * cand[2]
                  and _overlap(cand[0], kept[clash[0]][0]) > cfg.inner_share * kept[clash[0]][2]):
                # an earlier pass found only something inside this card (its frame or grid
                # box), it reaches into no other card and holds no two cards: the outermost
                # outline wins, as within one pass
                kept[clash[0]] = cand
    if med > 0:  # a quad with a borrowed side gives way to the cards it holds (no completed guess)
        kept = _unborrowed(kept, [c for rank in ranked[:3] for cands in rank for c in cands], med, cfg,
                           [c for cands in per_pass for c in cands])
    out = [CardQuad(quad, is_partial, area) for quad, is_partial, area in kept]
    out.sort(key=lambda q: (q.partial, -q.area))
    # two cards lying end to end with no edge between them close one loop twice a card long: it
    # is no card, but the reader may find in its halves the cards that no quad kept outlines (when
    # each half has at least a card's least area, min_area_frac of the photo; its opposite sides
    # matching as a card's do in perspective, see plausible). So may it in a quad that gave way to the
    # card-sized candidate it holds (two cards side by side, one of them outlined on its own), when
    # each of its sides runs along an edge (side_support): two cards side by side but shifted along
    # their joint make a quad whose long sides cut across the cards' corners, and whose halves are
    # no cards
    canny = cannies.get(propose_key) if propose_key is not None else None
    # an outline of a double's shape but smaller may be one card seen steeply (near the photo's
    # edge of a tilted view a card's short side shrinks the most): it is kept too, for the reader
    # to try as one card
    doubles = _suppress([c for cands in double_pass for c in cands if _sides_match(c[0], cfg)], cfg)
    doubles += _suppress([c for c in given if _sides_match(c[0], cfg) and outline_support(
        image, CardQuad(*c), cfg, canny).min() >= cfg.side_support], cfg)
    return Detection(tuple(out), canny, tuple(CardQuad(quad, False, area) for quad, _, area in doubles))


_Cand = tuple[NDArray[np.float64], bool, float]  # a candidate's (corners (4, 2), partial, area)


def _unborrowed(kept: list[_Cand], cands: list[_Cand], med: float, cfg: DetectConfig,
                outlined: list[_Cand] | None = None) -> list[_Cand]:
    """The kept quads, those that borrow a side from something else (see :func:`plausible`)
    giving way to the card-like candidates that explain them.

    A quad with a borrowed side that holds a card-like candidate is that card and something else
    (a touching neighbour, a table line) taken together; one that lies inside a card-like candidate
    of the ``outlined`` ones (every side along an edge) is a part of that card, closed off by a
    line of its face. A complete candidate of ``cands`` of the photo's card size (within
    ``card_area_tol`` of ``med``, the median complete candidate's area) whose opposite sides match
    explains such a quad when either holds more than ``held_inside`` of the other's area as said;
    it replaces the quads with a borrowed side it explains when it clashes (shares more than
    ``nest_overlap`` of the smaller) with no other kept quad. Otherwise they stay, for the reader to
    judge (their sides seed the proposals).

    Parameters
    ----------
    kept : list of (corners, partial, area)
        The quads kept so far: corners ``(4, 2)`` float64 pixels, clockwise; area in square pixels.
    cands : list of (corners, partial, area)
        Every pass's candidates that may explain a quad (not those completed over a lost corner).
    med : float
        The median complete candidate's area, square pixels; positive.
    cfg : DetectConfig
    outlined : list of (corners, partial, area), optional
        The card-shaped candidates (every side along an edge), a part of ``cands``, held by
        identity.

    Returns
    -------
    list of (corners, partial, area)
        The kept quads, with those explained replaced by the candidates that explain them.
    """
    whole = outlined or []

    def clash(a: _Cand, b: _Cand) -> bool:
        return _overlap(a[0], b[0]) > cfg.nest_overlap * min(a[2], b[2])

    def explains(c: _Cand, k: _Cand) -> bool:
        """Whether the candidate ``c`` explains the kept quad ``k`` (one with a borrowed side)."""
        if k[1] or _sides_match(k[0], cfg):
            return False
        shared = _overlap(c[0], k[0])
        return (shared > cfg.held_inside * c[2]
                or (any(c is o for o in whole) and shared > cfg.held_inside * k[2]))

    out = list(kept)
    for cand in kept:
        if not any(cand is k for k in out) or cand[1] or _sides_match(cand[0], cfg):
            continue
        free = [c for c in cands if not c[1] and abs(c[2] / med - 1.0) < cfg.card_area_tol
                and _sides_match(c[0], cfg) and explains(c, cand)
                and all(explains(c, k) or not clash(c, k) for k in out if k is not cand)]
        if free:
            chosen = _suppress(free, cfg)
            out = [k for k in out if not any(explains(c, k) for c in chosen)] + chosen
    return out


def _segments(edges: NDArray[np.uint8], min_len: float) -> NDArray[np.float64]:
    """Straight edge segments ``(n, 4)`` (x0, y0, x1, y1) of at least ``min_len`` pixels: the
    sides of each edge chain's polygon approximation (within 2 pixels)."""
    contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
    polys = [cv2.approxPolyDP(cnt, 2.0, True).reshape(-1, 2) for cnt in contours if len(cnt) >= min_len]
    if not polys:
        return np.zeros((0, 4))
    pts = np.concatenate(polys).astype(np.float64)
    # every polygon's sides at once: each vertex and the next one along its own polygon (the
    # last vertex's next one is its polygon's first)
    counts = np.array([len(poly) for poly in polys])
    last = np.cumsum(counts) - 1
    nxt = np.arange(1, len(pts) + 1)
    nxt[last] = last + 1 - counts
    ends = np.concatenate([pts, pts[nxt]], axis=1)
    return ends[np.hypot(ends[:, 2] - ends[:, 0], ends[:, 3] - ends[:, 1]) >= min_len]


def _card_sides(area: float) -> tuple[float, float]:
    """The short and the long side, in pixels, of a card of the catalog's proportions
    (``rectify.card_mm``) whose area is ``area`` square pixels."""
    short_mm, long_mm = rectify_mod.default_config().card_mm
    return float(np.sqrt(area * short_mm / long_mm)), float(np.sqrt(area * long_mm / short_mm))


def propose(image: NDArray[np.uint8], found: tuple[CardQuad, ...],
            config: DetectConfig | None = None, borrowed: tuple[CardQuad, ...] = (),
            accept: Callable[[CardQuad], bool] | None = None,
            canny: NDArray[np.uint8] | None = None) -> tuple[CardQuad, ...]:
    """Card outlines proposed from straight edges where no card was found: a card whose outline
    is open (touching another card, on a table of its own colour, under glare) still shows two
    adjacent sides meeting at a corner.

    Straight segments of the edge map (outside the cards already found) are paired into corners;
    each corner is completed to a quad of the photo's typical card size (the median of ``found``),
    then, after every such quad, to one of the size of the found card nearest to the corner (a
    tilted view shows far cards smaller), and its two unseen sides are moved onto edges along
    them where there are some (see :func:`_repair`). The proposals are unverified: the reader
    keeps one only when it shows a whole grid of outlined cells.

    Parameters
    ----------
    image : (H, W, 3) uint8 array
        BGR photo.
    found : tuple of CardQuad
        The cards found by :func:`detect`; nothing is proposed without a complete one.
    config : DetectConfig, optional
    borrowed : tuple of CardQuad
        Quads that are no card as they stand (a side borrowed, see :func:`plausible`, or no grid
        on the face): their sides that run along edges are true sides of something and join the
        segments. The edges inside a card-shaped one are its own (an expedition card's art, a
        part of a card closed off by its grid box); one with a borrowed side spans edges of
        something else.
    accept : callable, optional
        ``accept(quad) -> bool``: the verification of a proposal, asked best proposal first
        (at most ``propose_max`` times); a rejected proposal takes no place from another one
        (only the same quad, within ``inner_share`` of its area, is not asked again).
    canny : (h, w) uint8 array, optional
        The Canny map of this photo at pass ``propose_pass`` when already made
        (:attr:`Detection.canny`).

    Returns
    -------
    tuple of CardQuad
        Complete card proposals, best supported first, at most ``propose_max``.
    """
    cfg = config or default_config()
    full = [q for q in found if not q.partial]
    if not full:
        return ()
    f, edges = _pass_edges(image, cfg, canny)
    sh, sw = edges.shape
    med = float(np.median([q.area for q in full])) * f * f
    short, long_ = _card_sides(med)
    # a tilted view shows far cards smaller: a corner is also completed to its nearest card's size
    centres = np.array([(q.corners.mean(axis=0) + 0.5) * f - 0.5 for q in full])
    areas = np.array([q.area for q in full]) * f * f
    # the cards already found explain their own edges
    taken = np.zeros_like(edges)
    for q in found + tuple(q for q in borrowed if plausible(q, cfg)):
        cv2.fillPoly(taken, [np.round((q.corners + 0.5) * f - 0.5).astype(np.int32)], 255)
    taken = cv2.dilate(taken, np.ones((5, 5), np.uint8))
    near = cv2.dilate(edges, np.ones((3, 3), np.uint8)) > 0
    free = cv2.bitwise_and(edges, cv2.bitwise_not(taken))  # taken is 0 or 255: no edge where taken
    cv2.rectangle(free, (0, 0), (sw - 1, sh - 1), 0, 2)  # the image border is no card side
    seg = _segments(free, cfg.propose_min_side * short)
    length = np.hypot(seg[:, 2] - seg[:, 0], seg[:, 3] - seg[:, 1])
    seg = seg[np.argsort(-length)[:cfg.propose_segments]]  # the longest: a card's sides are long
    sides = []
    for q in borrowed:
        c = (q.corners + 0.5) * f - 0.5
        sides += [np.concatenate([c[k], c[(k + 1) % 4]]) for k, sup in enumerate(_sides_support(near, c, cfg))
                  if sup >= cfg.side_support]
    if sides:
        seg = np.concatenate([np.array(sides), seg])
    if len(seg) < 2:
        return ()
    a, b = seg[:, :2], seg[:, 2:]
    u = (b - a) / np.hypot(*(b - a).T)[:, None]
    gap = cfg.propose_gap * short
    # pairs of segments meeting at a card corner's angle (a right angle seen at a slant)
    lo_ang, hi_ang = np.radians(cfg.propose_angle_deg)
    cos = u @ u.T
    pairs = np.argwhere(np.triu((cos <= np.cos(lo_ang)) & (cos >= np.cos(hi_ang)), 1))
    corners, meet = _intersect_many(a[pairs[:, 0]], u[pairs[:, 0]], a[pairs[:, 1]], u[pairs[:, 1]])
    # each corner: its legs along both segments and the size of the found card nearest to it
    meets: list[tuple[NDArray[np.float64], list[list[tuple[NDArray[np.float64], float]]], float]] = []
    nearest_area = areas[np.argmin(np.hypot(corners[:, None, 0] - centres[None, :, 0],
                                            corners[:, None, 1] - centres[None, :, 1]), axis=1)]
    for (i, j), p, met, local in zip(pairs, corners, meet, nearest_area.tolist(), strict=True):
        if not met:
            continue
        # each segment reaches the corner (within gap) and runs away from it by a leg; a
        # segment running on through the corner (merged with a table edge) gives a leg each way
        legs: list[list[tuple[NDArray[np.float64], float]]] = []
        for k in (i, j):
            t = sorted((float((a[k] - p) @ u[k]), float((b[k] - p) @ u[k])))
            legs.append([(sign * u[k], reach) for sign, reach, start in ((1.0, t[1], t[0]),
                                                                          (-1.0, -t[0], -t[1]))
                         if start <= gap and reach >= cfg.propose_min_side * short])
        meets.append((p, legs, local))

    def completed(nearest: bool) -> list[tuple[float, NDArray[np.float64]]]:
        """The corners completed to the typical card size, or (``nearest``) to the size of the
        found card nearest to each corner where that differs, best supported first."""
        out_: list[tuple[float, NDArray[np.float64]]] = []
        for p, legs, local in meets:
            if nearest and abs(local - med) <= 1e-8 + 1e-5 * med:  # np.isclose(local, med)
                continue
            s_short, s_long = _card_sides(local) if nearest else (short, long_)
            for (ui, li), (uj, lj) in itertools.product(legs[0], legs[1]):
                # the longer leg runs along the card's long side
                si, sj = (s_long, s_short) if li / s_long >= lj / s_short else (s_short, s_long)
                quad = np.array([p, p + si * ui, p + si * ui + sj * uj, p + sj * uj])
                if (quad.min() < 0) or (quad[:, 0].max() > sw - 1) or (quad[:, 1].max() > sh - 1):
                    continue
                quad = _clockwise(quad)
                # a proposal's sides are moved onto the edges along them where there are some
                fixed = _repair(near, quad, cfg, every=False)
                quad = fixed if fixed is not None else quad
                support = _sides_support(near, quad, cfg)
                # an open outline has lost at most one side; the table's own lines (wood
                # grain, a cloth's weave) run one way and support two opposite sides at most
                inside = quad.min() >= 0 and quad[:, 0].max() <= sw - 1 and quad[:, 1].max() <= sh - 1
                if inside and int(np.sum(support >= cfg.side_support)) >= 3:
                    out_.append((float(support.mean()), quad))
        out_.sort(key=lambda t: -t[0])
        return out_

    kept: list[NDArray[np.float64]] = []
    out: list[CardQuad] = []
    known = [(q.corners + 0.5) * f - 0.5 for q in found]
    rejected: list[NDArray[np.float64]] = []
    asked = 0
    # those of the nearest card's size come after all of the typical size: they are only
    # made when the typical size leaves proposals to ask for
    for nearest in (False, True):
        if asked >= cfg.propose_max:
            break
        for _, quad in completed(nearest):
            area = float(cv2.contourArea(quad.astype(np.float32)))
            if any(_overlap(quad, k) > cfg.propose_overlap * area for k in known):
                continue
            if any(_overlap(quad, k) > cfg.propose_overlap * area for k in kept):
                continue  # cards lie side by side: a proposal overlaps one kept no more than a found one
            if any(_overlap(quad, k) > cfg.inner_share * area for k in rejected):
                continue  # all but the same quad as one rejected
            if asked >= cfg.propose_max:
                break
            asked += 1
            card = CardQuad((quad + 0.5) / f - 0.5, False, area / (f * f))
            if accept is None or accept(card):
                kept.append(quad)
                out.append(card)
            else:
                rejected.append(quad)
    return tuple(out)


def regions(image: NDArray[np.uint8], found: tuple[CardQuad, ...],
            config: DetectConfig | None = None) -> tuple[CardQuad, ...]:
    """Card-sized regions that stand out from the table where no card was found: a card whose
    outline gives no closed edge (a table of its colour and grain, low contrast, blur) still
    differs from the table around it.

    The photo is viewed at ``region_side_px`` on its long side. The table is its median over a
    window of ``region_background`` of that side, and at least ``region_window`` times the side of
    the median complete card found (cards are small against it). Pixels outside the cards found
    that lie farther from it in Lab than ``region_dist``, and than ``region_noise`` times the
    median distance (the table's own grain), stand out. Thin runs (seams, grain) are opened away
    with a ``region_open_px`` disc and the parts of one card (its cells, its frame) closed together
    with a ``region_close_px`` one. Each region, holes included, whose area lies in the card range
    (``min_area_frac`` to ``max_area_frac`` of the photo, and at least ``region_min_card`` of the
    median complete card found) and fills at least ``region_fill`` of its smallest enclosing
    rectangle gives that rectangle, the largest ``region_max`` first. A rectangle within
    ``border_px`` of the photo's edge (a cut card may lie there) or overlapping a card found
    (``propose_overlap`` of the smaller) is left out. The
    rectangles are unverified and may hold a card's grid without all of its frame: the reader
    keeps one only when the catalog names the card read on it with full confidence.

    Parameters
    ----------
    image : (H, W, 3) uint8 array
        BGR photo.
    found : tuple of CardQuad
        The cards found so far.
    config : DetectConfig, optional

    Returns
    -------
    tuple of CardQuad
        Complete (not cut) quads in photo pixels, clockwise.
    """
    cfg = config or default_config()
    h, w = image.shape[:2]
    scale = min(1.0, cfg.region_side_px / max(h, w))
    small = image if scale >= 1.0 else cv2.resize(image, (round(w * scale), round(h * scale)),
                                                  interpolation=cv2.INTER_AREA)
    if min(small.shape[:2]) < 8:
        return ()
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB)
    cards = [q.area * scale * scale for q in found if not q.partial]
    typical = float(np.median(cards)) if cards else 0.0
    window = max(cfg.region_background * max(small.shape[:2]), cfg.region_window * np.sqrt(typical))
    k = max(3, round(min(window, max(small.shape[:2]))) | 1)
    # the median over a large window, taken on a copy a quarter the size (the table varies slowly)
    quarter = cv2.resize(lab, (max(1, small.shape[1] // 4), max(1, small.shape[0] // 4)),
                         interpolation=cv2.INTER_AREA)
    table = cv2.resize(cv2.medianBlur(quarter, max(3, (k // 4) | 1)), (small.shape[1], small.shape[0]),
                       interpolation=cv2.INTER_LINEAR)
    # the distance in Lab, and the median of every other row and column
    diff = cv2.absdiff(lab, table).astype(np.float32)
    dist = cv2.sqrt(cv2.transform(diff * diff, np.ones((1, 3), np.float32)))
    level = max(cfg.region_dist, cfg.region_noise * float(np.median(dist[::2, ::2])))
    stands = (dist > level).astype(np.uint8)
    # the cards found are no region (a card touching one is left its own)
    for q in found:
        cv2.fillConvexPoly(stands, np.round(q.corners * scale).astype(np.int32), 0)
    stands = cv2.morphologyEx(stands, cv2.MORPH_OPEN, cv2.getStructuringElement(
        cv2.MORPH_ELLIPSE, (cfg.region_open_px, cfg.region_open_px)))
    stands = cv2.morphologyEx(stands, cv2.MORPH_CLOSE, cv2.getStructuringElement(
        cv2.MORPH_ELLIPSE, (cfg.region_close_px, cfg.region_close_px)))
    outer, _ = cv2.findContours(stands, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    area_small = float(small.shape[0] * small.shape[1])
    least = max(cfg.min_area_frac * area_small, cfg.region_min_card * typical)
    out: list[CardQuad] = []
    for cnt in sorted(outer, key=lambda c: -cv2.contourArea(c)):
        if len(out) >= cfg.region_max:
            break
        area = float(cv2.contourArea(cnt))
        if not least <= area <= cfg.max_area_frac * area_small:
            continue
        rect = cv2.minAreaRect(cnt)
        if area < cfg.region_fill * rect[1][0] * rect[1][1]:
            continue
        corners = _clockwise(cv2.boxPoints(rect).astype(np.float64) / scale)
        b = cfg.border_px
        if (corners < b).any() or (corners[:, 0] > w - 1 - b).any() or (corners[:, 1] > h - 1 - b).any():
            continue  # a region reaching the photo's edge may be a cut card
        quad = CardQuad(corners, False, float(cv2.contourArea(corners.astype(np.float32))))
        if any(_overlap(quad.corners, q.corners) > cfg.propose_overlap * min(quad.area, q.area)
               for q in found):
            continue
        out.append(quad)
    return tuple(out)
