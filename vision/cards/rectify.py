"""Stage 2: the upright card face.

The quadrilateral is warped to a portrait face of ``card_mm`` at ``px_per_mm`` straight from the
full-resolution photo. Which short side is the top is decided from the face itself: the points
numeral sits in the top-left corner and, on some cards, a badge in the top-right, so the top
corners carry more printed detail than the bottom ones. Only 0/180 degrees is in question for a
portrait card. The quad's shorter pair of sides is taken for the card's short sides, or, asked
(``across``), the longer pair: a view tilted along the card's length can shorten its long sides
below its short ones (:func:`side_ratio`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.config import load_config


@dataclass(frozen=True)
class RectifyConfig:
    """Tunable numbers of the rectification stage: the ``rectify`` section of
    ``vision/data/config/cards.json``, where each is described."""

    px_per_mm: float
    card_mm: tuple[float, float]
    corner_patch_mm: float
    corner_inset_mm: float
    min_margin: float
    square_tol: float
    outline_margin_cells: float
    outline_px_per_cell: float
    outline_min_gap: float
    outline_aspect_tol: float
    outline_min_edge: float
    outline_keep: float
    square_doubt: float
    side_doubt: float


@cache
def default_config() -> RectifyConfig:
    """The ``rectify`` section of the packaged ``cards.json``, loaded once."""
    return load_config("cards", RectifyConfig, section="rectify")


@dataclass(frozen=True)
class Face:
    """An upright card face.

    ``image`` is ``(H, W, 3)`` BGR uint8 with ``H > W``; ``corners`` ``(4, 2)`` float64 are the
    photo pixels of the face's TL (numeral), TR, BR, BL corners; ``to_face`` ``(3, 3)`` maps
    photo pixels to face pixels. ``upright_confidence`` in [0, 1] says how clearly the face
    decided the 180-degree question.
    """

    image: NDArray[np.uint8]
    corners: NDArray[np.float64]
    to_face: NDArray[np.float64]
    upright_confidence: float


def _detail(face: NDArray[np.uint8], x0: int, y0: int, s: int) -> float:
    """Mean gradient magnitude of the grey levels of a ``s`` x ``s`` patch of a BGR face."""
    patch = cv2.cvtColor(face[y0:y0 + s, x0:x0 + s], cv2.COLOR_BGR2GRAY).astype(np.float32)
    gx = cv2.Sobel(patch, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(patch, cv2.CV_32F, 0, 1, ksize=3)
    return float(np.mean(np.sqrt(gx * gx + gy * gy)))


def _corner_details(face: NDArray[np.uint8], cfg: RectifyConfig) -> tuple[float, float, float, float]:
    """Printed detail in the TL, TR, BR, BL corner patches."""
    h, w = face.shape[:2]
    s = round(cfg.corner_patch_mm * cfg.px_per_mm)
    i = round(cfg.corner_inset_mm * cfg.px_per_mm)
    # grey levels are per pixel: only the patches are converted
    return (_detail(face, i, i, s), _detail(face, w - i - s, i, s),
            _detail(face, w - i - s, h - i - s, s), _detail(face, i, h - i - s, s))


def warp_face(image: NDArray[np.uint8], corners: NDArray[np.float64],
              config: RectifyConfig | None = None) -> tuple[NDArray[np.uint8], NDArray[np.float64]]:
    """Warp a card's quad to an upright face of ``card_mm`` at ``px_per_mm``.

    Parameters
    ----------
    image : (H, W, 3) uint8 array
        The BGR photo.
    corners : (4, 2) float64 array
        TL, TR, BR, BL in photo pixels.
    config : RectifyConfig, optional

    Returns
    -------
    face : (h, w, 3) uint8 array
    homography : (3, 3) float64 array
        Photo to face pixels.
    """
    cfg = config or default_config()
    w = round(cfg.card_mm[0] * cfg.px_per_mm)
    h = round(cfg.card_mm[1] * cfg.px_per_mm)
    dst = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)
    m = cv2.getPerspectiveTransform(corners.astype(np.float32), dst)
    face = cv2.warpPerspective(image, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return face, m.astype(np.float64)


def side_ratio(corners: NDArray[np.float64]) -> float:
    """How many times longer a quad's longer pair of opposite sides is than its shorter pair
    (at least 1).

    Parameters
    ----------
    corners : (4, 2) float array
        The quad's corners in photo pixels, in order round it.

    Returns
    -------
    float
    """
    q = np.asarray(corners, np.float64)
    sides = np.hypot(*(np.roll(q, -1, axis=0) - q).T)
    a, b = float(sides[0] + sides[2]), float(sides[1] + sides[3])
    return max(a, b) / max(1e-9, min(a, b))


def rectify(image: NDArray[np.uint8], corners: NDArray[np.float64],
            config: RectifyConfig | None = None, across: bool = False) -> Face:
    """Bring a card upright.

    Parameters
    ----------
    image : (H, W, 3) uint8 array
        The full-resolution BGR photo.
    corners : (4, 2) float array
        The card's corners in photo pixels, clockwise, starting anywhere.
    config : RectifyConfig, optional
        The default config when None.
    across : bool, optional
        Take the quad's longer pair of opposite sides for the card's short sides: a view tilted
        along the card's length can shorten its long sides below its short ones (see
        :func:`side_ratio`).
    """
    cfg = config or default_config()
    q = np.asarray(corners, np.float64)
    sides = [float(np.hypot(*(q[(i + 1) % 4] - q[i]))) for i in range(4)]
    # start so that the first side (TL -> TR) is a short side (a long one when ``across``)
    start = 0 if (sides[0] + sides[2] <= sides[1] + sides[3]) != across else 1
    q = np.roll(q, -start, axis=0)
    face, m = warp_face(image, q, cfg)
    tl, tr, br, bl = _corner_details(face, cfg)
    score = ((tl - br) + 0.5 * (tr - bl)) / max(1e-6, tl + br + 0.5 * (tr + bl))
    if score < 0:
        q = np.roll(q, -2, axis=0)
        face = np.ascontiguousarray(face[::-1, ::-1])
        flip = np.array([[-1, 0, face.shape[1] - 1], [0, -1, face.shape[0] - 1], [0, 0, 1]], np.float64)
        m = flip @ m
    conf = float(min(1.0, abs(score) / max(cfg.min_margin, 1e-6) * 0.5))
    return Face(face, q, m, conf)


def lattice_homography(to_face: NDArray[np.float64], xs: NDArray[np.float64],
                       ys: NDArray[np.float64]) -> NDArray[np.float64]:
    """The map from square-lattice units (one unit per cell side, the grid's top-left line
    crossing at the origin) to photo pixels, for a lattice found at lines ``xs`` and ``ys`` (face
    pixels) on a face made with ``to_face`` (photo to face).

    Every card's cells are square: whatever outline the face was cut from, the lattice's own
    spacing along each axis gives the card's true perspective.

    Parameters
    ----------
    to_face : (3, 3) float64 array
        Photo-to-face homography.
    xs, ys : (cols + 1,) and (rows + 1,) float64 arrays
        The lattice's vertical and horizontal lines in face pixels, ascending.

    Returns
    -------
    (3, 3) float64 array
    """
    dx = float(xs[-1] - xs[0]) / (len(xs) - 1)
    dy = float(ys[-1] - ys[0]) / (len(ys) - 1)
    unit = np.array([[dx, 0.0, float(xs[0])], [0.0, dy, float(ys[0])], [0.0, 0.0, 1.0]])
    return np.linalg.inv(to_face) @ unit


def _strongest(g: NDArray[np.float32]) -> NDArray[np.float32]:
    """The largest of the three channels of ``g`` ``(H, W, 3)`` at each pixel, ``(H, W)``: the
    values of ``g.max(axis=2)``, taken channel against channel (a reduction along a length-3
    axis is many times slower)."""
    return np.maximum(np.maximum(g[..., 0], g[..., 1]), g[..., 2])


def _edge_profiles(view: NDArray[np.uint8], k: float, margin: float, shape: tuple[int, int],
                   ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The edge strength across each column (along u) and each row (along v) of a lattice view,
    the median over the grid's own span (a card's side runs along the whole of it).

    ``view`` is the ``(H, W, 3)`` uint8 BGR view, ``k`` samples per cell, with ``margin`` cells
    beyond a grid of ``shape`` (rows, cols) on each side. Returns ``pu`` ``(W,)`` and ``pv``
    ``(H,)`` float64.
    """
    rows, cols = shape
    v = view.astype(np.float32)
    gx = _strongest(np.abs(cv2.Sobel(v, cv2.CV_32F, 1, 0, ksize=3)))
    gy = _strongest(np.abs(cv2.Sobel(v, cv2.CV_32F, 0, 1, ksize=3)))
    y0, y1 = round(margin * k), round((margin + rows) * k)
    x0, x1 = round(margin * k), round((margin + cols) * k)
    pu = np.median(gx[y0:y1], axis=0).astype(np.float64)
    pv = np.median(gy[:, x0:x1], axis=1).astype(np.float64)
    return pu, pv


def _best_spans(lo: NDArray[np.float64], hi: NDArray[np.float64], off: int,
                ) -> tuple[NDArray[np.float64], NDArray[np.int_], NDArray[np.int_]]:
    """For every span ``d`` (samples) between a lo side at ``i`` and a hi side at ``off + j``,
    the best ``lo[i] + hi[j]`` with ``off + j - i = d`` and its ``i`` and ``j``
    (``-inf`` where no pair spans ``d``).

    ``lo`` ``(n,)`` and ``hi`` ``(m,)`` float64 -> ``best`` ``(off + m,)`` float64 and ``i``, ``j``
    ``(off + m,)`` int, indexed by ``d``.
    """
    i, j = np.meshgrid(np.arange(len(lo)), np.arange(len(hi)), indexing="ij")
    tot = (lo[:, None] + hi[None, :]).ravel()
    d = (off + j - i).ravel()
    order = np.lexsort((tot, d))  # by span, best last
    d, tot, i, j = d[order], tot[order], i.ravel()[order], j.ravel()[order]
    last = np.r_[d[1:] != d[:-1], True]
    n = off + len(hi)
    best = np.full(n, -np.inf)
    bi = np.zeros(n, np.int_)
    bj = np.zeros(n, np.int_)
    best[d[last]], bi[d[last]], bj[d[last]] = tot[last], i[last], j[last]
    return best, bi, bj


def reoutline(image: NDArray[np.uint8], to_face: NDArray[np.float64], xs: NDArray[np.float64],
              ys: NDArray[np.float64], cell_mm_range: tuple[float, float],
              config: RectifyConfig | None = None) -> NDArray[np.float64] | None:
    """The card's outline found again around its grid.

    The photo is viewed through :func:`lattice_homography` (square cells); beyond the grid,
    along its own axes, the card's sides are edges parallel to the grid's sides (each at least
    ``outline_min_edge`` strong along the grid's whole span). Of the sets of four that make a
    ``card_mm`` card (either way round, within ``outline_aspect_tol``) with cells of
    ``cell_mm_range`` millimetres, the largest of those the same way round as the strongest and
    with at least ``outline_keep`` of its total is the card's outline (a card's inner frame is
    card-shaped too).

    Parameters
    ----------
    image : (H, W, 3) uint8 array
        The full-resolution BGR photo.
    to_face : (3, 3) float64 array
        Photo-to-face map of the face the lattice was found on.
    xs, ys : (cols + 1,) and (rows + 1,) float64 arrays
        The lattice's lines in face pixels.
    cell_mm_range : (float, float)
        The smallest and largest cell side of a card, in millimetres.
    config : RectifyConfig, optional
        The default config when None.

    Returns
    -------
    (4, 2) float64 array or None
        Corners in photo pixels (clockwise), ``None`` when no card-shaped outline was found.
    """
    cfg = config or default_config()
    rows, cols = len(ys) - 1, len(xs) - 1
    lat = lattice_homography(to_face, xs, ys)
    card_w, card_h = sorted(cfg.card_mm)
    big = max(card_w, card_h) / cell_mm_range[0]
    margin = min(cfg.outline_margin_cells, big)
    k = cfg.outline_px_per_cell
    size = (round((cols + 2 * margin) * k), round((rows + 2 * margin) * k))
    view_to_lat = np.array([[1.0 / k, 0.0, -margin], [0.0, 1.0 / k, -margin], [0.0, 0.0, 1.0]])
    m = lat @ view_to_lat
    view = cv2.warpPerspective(image, m, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
    pu, pv = _edge_profiles(view, k, margin, (rows, cols))
    # a card's side is an edge along the whole grid: weaker lines are no side
    pu[pu < cfg.outline_min_edge] = -np.inf
    pv[pv < cfg.outline_min_edge] = -np.inf
    gap = round(cfg.outline_min_gap * k)
    # the sides lie beyond the grid: lo sides before its first line, hi sides past its last
    n_lo = max(0, round(margin * k) - gap)
    left, top = pu[:n_lo], pv[:n_lo]
    right = pu[round((margin + cols) * k) + gap:]
    bottom = pv[round((margin + rows) * k) + gap:]
    if min(len(left), len(right), len(top), len(bottom)) < 2:
        return None
    off_u = round((margin + cols) * k) + gap
    off_v = round((margin + rows) * k) + gap
    wbest, wi, wj = _best_spans(left, right, off_u)
    hbest, hi_, hj = _best_spans(top, bottom, off_v)
    found: list[tuple[float, float, int, int, int, int, int]] = []  # score, area, sides, way round
    for sw in np.nonzero(np.isfinite(wbest))[0]:
        width = sw / k  # cells
        for way, (w_mm, h_mm) in enumerate(((card_w, card_h), (card_h, card_w))):
            cell = w_mm / width
            if not cell_mm_range[0] <= cell <= cell_mm_range[1]:
                continue
            height = h_mm / cell * k  # samples
            lo_h = max(0, int(np.ceil(height * (1.0 - cfg.outline_aspect_tol))))
            hi_h = min(len(hbest), int(np.floor(height * (1.0 + cfg.outline_aspect_tol))) + 1)
            if hi_h <= lo_h:
                continue
            sh = lo_h + int(np.argmax(hbest[lo_h:hi_h]))
            score = float(wbest[sw] + hbest[sh])
            if np.isfinite(score):
                found.append((score, float(sw * sh), int(wi[sw]), int(wj[sw]) + off_u,
                              int(hi_[sh]), int(hj[sh]) + off_v, way))
    if not found:
        return None
    # a card's inner frame is card-shaped too, and may be the stronger edge: the outline is the
    # largest card-shaped one of nearly the strongest, the same way round as the strongest (the
    # other way round, sides of the neighbours may make a card's shape)
    top = max(found)
    best = max((f for f in found if f[0] >= cfg.outline_keep * top[0] and f[6] == top[6]), key=lambda f: f[1])
    u0, u1, v0, v1 = (x / k - margin for x in best[2:6])
    pts = np.array([[[u0, v0], [u1, v0], [u1, v1], [u0, v1]]], np.float64)
    return cv2.perspectiveTransform(pts, lat).reshape(4, 2)
