"""The board from its 5x5 spot lattice.

Every board carries 25 round spots on a regular square lattice in its middle. Two uses:

- :func:`lattice_corners`: once a board is roughly rectified, each spot's own circular edge tells
  where that spot really is; a homography through those centres (robust to spots a hand covers)
  straightens a lattice bent by a misplaced corner, and carries the board's corners with it.
- :func:`find_lattice_candidates`: without any outline (a board blending into the table), round
  blobs of any colour are found at a few scales, and the 5x5 projective lattice explaining most
  of them (hypotheses from a blob and two neighbours of its size, refined to a homography; under
  strong perspective the affine lattice of those three holds only near them, so it is also grown
  outwards, a homography refitted on the blobs one reach further at a time) gives
  the board, extended by the frame width whose square outline shows the strongest edges. The
  strongest ``lattice_max_blobs`` blobs are searched first; more (``lattice_wide_blobs``) only
  when those explain no full lattice, and their lattice is kept only when it explains at least
  ``lattice_wide_min_spots`` spots (texture on cards or the table lines up with far fewer).
  A framed quad no view of a square board has (:func:`vision.board.detect.board_shaped`) is
  dropped.
"""

from __future__ import annotations

import dataclasses
import itertools
import math

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.board.config import BoardConfig
from vision.board.detect import board_shaped, rectify
from vision.board.spots import Grid, radial_edge, ring_edge
from vision.geometry import order_corners


def _gradients(rect: NDArray[np.uint8], sigma: float) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    gray = cv2.cvtColor(rect, cv2.COLOR_BGR2GRAY).astype(np.float32)
    gray = cv2.GaussianBlur(gray, (0, 0), sigma)
    return cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3)


def _ring_strength(gx: NDArray[np.float32], gy: NDArray[np.float32], centres: NDArray[np.float64],
                   radius: float, samples: int) -> NDArray[np.float64]:
    """Mean :func:`ring_edge` on circles; ``centres`` (..., 2) -> (...)."""
    return np.mean(ring_edge(gx, gy, centres, radius, samples), axis=-1)


def spot_centres(rect: NDArray[np.uint8], grid: Grid,
                 cfg: BoardConfig) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Where each spot's circular edge is strongest, near its lattice place.

    Parameters
    ----------
    rect : (S, S, 3) uint8 BGR array, the rectified board
    grid : Grid, the lattice fitted on ``rect``
    cfg : BoardConfig
        ``lattice_shift`` (search half-width, in pitches), ``lattice_step`` (coarse step, in
        pitches) and ``refine_sigma`` (gradient blur).

    Returns
    -------
    centres : (25, 2) float64 array, rectified pixels, row-major
    strength : (25,) float64 array, the ring edge at each centre over the mean gradient of ``rect``
    """
    gx, gy = _gradients(rect, cfg.refine_sigma)
    contrast = float(np.mean(np.abs(gx)) + np.mean(np.abs(gy))) + 1e-6
    best = grid.centres.reshape(25, 2).astype(np.float64)
    score = np.full(25, -np.inf)
    step = max(1.0, cfg.lattice_step * grid.pitch)
    half = cfg.lattice_shift * grid.pitch
    n = max(1, math.ceil(half / step))
    # coarse over the whole window, then twice finer around the best place so far
    for span, k in ((step, n), (step / 2, 2), (step / 4, 2)):
        offs = np.arange(-k, k + 1, dtype=np.float64) * span
        ox, oy = np.meshgrid(offs, offs)
        shift = np.stack([ox.ravel(), oy.ravel()], axis=-1)  # (M, 2)
        cand = best[:, None, :] + shift[None, :, :]  # (25, M, 2)
        s = np.max([_ring_strength(gx, gy, cand, f * grid.radius, cfg.ring_samples)
                    for f in cfg.ring_edge_fracs], axis=0)  # (25, M)
        i = s.argmax(axis=1)
        better = s[np.arange(25), i] > score
        best = np.where(better[:, None], cand[np.arange(25), i], best)
        score = np.where(better, s[np.arange(25), i], score)
    return best, score / contrast


def lattice_homography(rect: NDArray[np.uint8], grid: Grid,
                       cfg: BoardConfig) -> NDArray[np.float64] | None:
    """The rectified-to-rectified homography taking the fitted lattice onto the spots found.

    Spots with a weak edge (covered by a hand, or an empty place printed faintly) and spots off
    the common homography are left out.

    Parameters
    ----------
    rect : (S, S, 3) uint8 BGR array
    grid : Grid fitted on ``rect``
    cfg : BoardConfig
        ``lattice_min_edge`` (a spot's least edge strength), ``lattice_tolerance`` (residual, in
        pitches) and ``lattice_min_spots`` (least spots carrying the fit).

    Returns
    -------
    (3, 3) float64 array or None
        None when too few spots agree.
    """
    found, strength = spot_centres(rect, grid, cfg)
    ideal = grid.centres.reshape(25, 2).astype(np.float64)
    keep = strength >= cfg.lattice_min_edge
    if keep.sum() < cfg.lattice_min_spots:
        return None
    tol = cfg.lattice_tolerance * grid.pitch
    hom, mask = cv2.findHomography(ideal[keep], found[keep], cv2.RANSAC, tol)
    if hom is None or mask is None or int(mask.sum()) < cfg.lattice_min_spots:
        return None
    # a least-squares fit through the agreeing spots only
    sel = np.flatnonzero(keep)[mask.ravel().astype(bool)]
    hom, _ = cv2.findHomography(ideal[sel], found[sel], 0)
    return None if hom is None else hom.astype(np.float64)


def _corrected(corners: NDArray[np.float64], rect: NDArray[np.uint8], grid: Grid,
               cfg: BoardConfig) -> tuple[NDArray[np.float64], float] | None:
    """One correction: the corners carried by the lattice homography, and the largest corner
    move in pitches."""
    hom = lattice_homography(rect, grid, cfg)
    if hom is None:
        return None
    size = float(rect.shape[0])
    square = np.array([[0, 0], [size, 0], [size, size], [0, size]], np.float64)
    # every board's lattice sits in its middle
    centred = square + (grid.centres.reshape(25, 2).mean(axis=0) - size / 2)
    moved = cv2.perspectiveTransform(centred.reshape(-1, 1, 2), hom).reshape(4, 2)
    move = float(np.linalg.norm(moved - square, axis=1).max()) / grid.pitch
    to_image = cv2.getPerspectiveTransform(square.astype(np.float32), np.asarray(corners, np.float32))
    out = cv2.perspectiveTransform(moved.reshape(-1, 1, 2), to_image.astype(np.float64)).reshape(4, 2)
    return out, move


def lattice_corners(
    image: NDArray[np.uint8], corners: NDArray[np.float64], rect: NDArray[np.uint8], grid: Grid,
    cfg: BoardConfig,
) -> tuple[NDArray[np.float64], NDArray[np.uint8], Grid] | None:
    """The board's corners moved so the rectified lattice runs through the spots.

    Parameters
    ----------
    image : (H, W, 3) uint8 BGR array, the photo
    corners : (4, 2) float array, image pixels, TL, TR, BR, BL: the quad ``rect`` was warped from
    rect : (S, S, 3) uint8 BGR array
    grid : Grid fitted on ``rect``
    cfg : BoardConfig
        ``lattice_passes``: corrections in a row (each one re-rectifies the photo).

    Returns
    -------
    (corners, rect, grid) or None
        The corrected (4, 2) float64 corners, the (S, S, 3) uint8 board warped from them and
        ``grid`` moved to the middle of it.
        None when the spots do not carry a fit, when no corner would move by
        ``lattice_min_move`` pitches (the spots' own scatter: the outline's corners stand), or when
        one would move by more than ``lattice_max_move`` pitches (then it is not a correction).
    """
    out: tuple[NDArray[np.float64], NDArray[np.uint8], Grid] | None = None
    for k in range(cfg.lattice_passes):
        got = _corrected(corners, rect, grid, cfg)
        if got is None or got[1] > cfg.lattice_max_move:
            break
        if got[1] < cfg.lattice_min_move and k == 0:
            # (a later pass only polishes a correction already made)
            break
        corners = got[0]
        rect = rectify(image, corners, rect.shape[0])[0]
        shift = grid.centres.reshape(25, 2).mean(axis=0) - rect.shape[0] / 2
        grid = dataclasses.replace(grid, centres=grid.centres - shift)
        out = corners, rect, grid
    return out


def _blobs(small: NDArray[np.uint8], cfg: BoardConfig) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The round blobs :func:`_ranked_blobs` finds among the ``lattice_max_blobs`` strongest
    extrema: (N, 2) float64 points and (N,) float64 scales."""
    pts, sig, _ = _ranked_blobs(small, cfg, cfg.lattice_max_blobs)
    return pts, sig


def _ranked_blobs(small: NDArray[np.uint8], cfg: BoardConfig,
                  limit: int) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.int64]]:
    """Round blobs of any colour: scale-normalised Laplacian-of-Gaussian extrema of the Lab image.

    Parameters
    ----------
    small : (H, W, 3) uint8 BGR array
    cfg : BoardConfig
    limit : int
        The strongest extrema kept (before merging those at one place).

    Returns
    -------
    points : (N, 2) float64 array, ``small`` pixels, strongest first
    sigmas : (N,) float64 array, the scale of each blob (a disc of radius ``r`` peaks at
        ``r / sqrt(2)``)
    ranks : (N,) int64 array, each blob's place among the extrema by strength: the blobs with
        ``ranks < k`` are exactly those ``limit=k`` keeps (a blob is merged only into stronger ones)
    """
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
    sigmas = np.asarray(cfg.lattice_sigmas, np.float64)
    stack = []
    for s in sigmas:
        blur = cv2.GaussianBlur(lab, (0, 0), float(s))
        lap = cv2.Laplacian(blur, cv2.CV_32F, ksize=3) * float(s * s)  # (H, W, 3)
        # the channels' squares summed one plane at a time (as a sum over the last axis adds them)
        c0, c1, c2 = cv2.split(lap)
        sq = c0 * c0
        sq += c1 * c1
        sq += c2 * c2
        stack.append(np.sqrt(sq))
    resp = np.stack(stack)  # (K, H, W)
    # local maxima over space and scale
    box = np.ones((3, 3), np.uint8)
    peak = np.stack([cv2.dilate(r, box) for r in stack])
    across = np.empty_like(peak)
    across[1:-1] = np.maximum(peak[:-2], peak[2:])
    across[0], across[-1] = peak[1], peak[-2]
    is_max = (resp >= peak) & (resp >= across) & (resp > cfg.lattice_min_blob)
    k, y, x = np.nonzero(is_max)
    if len(k) == 0:
        return np.zeros((0, 2)), np.zeros(0), np.zeros(0, np.int64)
    strength = resp[k, y, x]
    order = np.argsort(-strength)[:limit]
    pts = np.column_stack([x[order], y[order]]).astype(np.float64)
    sig = sigmas[k[order]]
    # one blob per place: a weaker blob as near as the smaller of the two scales is the same one
    d = np.linalg.norm(pts[:, None] - pts[None], axis=2)
    near = d < np.minimum(sig[:, None], sig[None])
    gone = np.zeros(len(pts), bool)
    keep: list[int] = []
    for i in range(len(pts)):
        if not gone[i]:
            keep.append(i)
            gone |= near[i]
    return pts[keep], sig[keep], np.asarray(keep, np.int64)


def _window(coords: NDArray[np.int64]) -> tuple[int, int, int]:
    """The 5x5 window of integer lattice coordinates holding most of ``coords`` (N, 2):
    (count, i0, j0)."""
    lo = coords.min(axis=0) - 4
    span = coords.max(axis=0) - lo + 1
    hist = np.zeros((int(span[1]) + 4, int(span[0]) + 4), np.int32)
    np.add.at(hist, (coords[:, 1] - lo[1], coords[:, 0] - lo[0]), 1)
    ii = np.cumsum(np.cumsum(np.pad(hist, ((1, 0), (1, 0))), axis=0), axis=1)
    box = ii[5:, 5:] - ii[:-5, 5:] - ii[5:, :-5] + ii[:-5, :-5]
    j, i = np.unravel_index(int(box.argmax()), box.shape)
    return int(box[j, i]), int(i + lo[0]), int(j + lo[1])


def _lattice_fit(pts: NDArray[np.float64], hom: NDArray[np.float64],
                 cfg: BoardConfig) -> tuple[int, NDArray[np.float64]] | None:
    """Refit a lattice homography (lattice coordinates -> pixels) on the blobs it explains,
    restricted to its best 5x5 window; returns (inliers, homography with the window at 0..4)."""
    for _ in range(3):
        inv = np.linalg.inv(hom)
        uv = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), inv).reshape(-1, 2)
        near = np.round(uv)
        ok = np.linalg.norm(uv - near, axis=1) < cfg.lattice_residual
        # only places within reach: a board holding the hypothesis's origin lies within four
        # places of it (first pass), later passes' windows at 0..4 (a fit gone wild would spread
        # the places over a huge window histogram)
        ok &= (np.abs(near - 2.0) <= 6.0).all(axis=1)
        if ok.sum() < cfg.lattice_min_spots:
            return None
        coords = near[ok].astype(np.int64)
        count, i0, j0 = _window(coords)
        rel = coords - [i0, j0]
        inside = ((rel >= 0) & (rel < 5)).all(axis=1)
        if count < cfg.lattice_min_spots:
            return None
        # one blob per lattice place: the nearest to it
        res = np.linalg.norm(uv[ok] - near[ok], axis=1)[inside]
        key = rel[inside, 1] * 5 + rel[inside, 0]
        order = np.lexsort((res, key))
        first = order[np.r_[True, key[order][1:] != key[order][:-1]]]
        count = len(first)
        if count < cfg.lattice_min_spots:
            return None
        src = rel[inside][first].astype(np.float64)
        new, _ = cv2.findHomography(src, pts[ok][inside][first], 0)
        if new is None:
            return None
        hom = new
    return count, hom


def _grow(pts: NDArray[np.float64], hom: NDArray[np.float64],
          cfg: BoardConfig) -> NDArray[np.float64] | None:
    """A lattice from a blob and two neighbours, grown outwards under perspective.

    The affine lattice of one blob and two neighbours holds only near that blob: perspective
    changes the pitch from row to row, and the error of an affine guess grows with the distance
    from its origin. The blobs within ``lattice_grow[0]`` places of the origin are refitted (an
    affine map within one place, where the blobs' scatter outweighs the change of pitch; a
    homography, lattice coordinates -> pixels, from two places on), which predicts the places one
    reach further out, and so on. A fit whose horizon crosses a board's reach is given up.

    Parameters
    ----------
    pts : (N, 2) float64 array, blob centres in pixels
    hom : (3, 3) float64 array, the affine guess: lattice coordinates (origin at 0, 0) -> pixels
    cfg : BoardConfig
        ``lattice_grow`` (the reaches, in lattice places around the origin) and
        ``lattice_residual`` (a blob's largest distance from its place, in places).

    Returns
    -------
    (3, 3) float64 array or None
        The grown homography; None when fewer than four places near the origin hold a blob.
    """
    for reach in cfg.lattice_grow:
        uv = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), np.linalg.inv(hom)).reshape(-1, 2)
        near = np.round(uv)
        res = np.linalg.norm(uv - near, axis=1)
        ok = np.flatnonzero((res < cfg.lattice_residual) & (np.abs(near).max(axis=1) <= reach))
        # one blob per place: the nearest to it
        key = (near[ok, 1] + reach) * (2 * reach + 1) + near[ok, 0] + reach
        order = np.lexsort((res[ok], key))
        first = ok[order[np.r_[True, key[order][1:] != key[order][:-1]]]] if len(ok) else ok
        if len(first) < 4:
            return None
        if reach < 2:
            src = np.column_stack([near[first], np.ones(len(first))])
            aff = np.linalg.lstsq(src, pts[first], rcond=None)[0].T  # (2, 3)
            new = np.vstack([aff, [0.0, 0.0, 1.0]])
        else:
            new, _ = cv2.findHomography(near[first], pts[first], 0)
        if new is None or not _in_front(new):
            return None
        hom = new
    return hom


# the corners of the lattice places any spot of a board reaches: a board's other spots lie within
# four places of it on each axis, (4, 2) float64 lattice coordinates
_REACH = np.array([[-4, -4], [4, -4], [4, 4], [-4, 4]], np.float64)


def _in_front(hom: NDArray[np.float64]) -> bool:
    """Whether a lattice homography (lattice coordinates -> pixels, (3, 3) float64) keeps every
    place within a board's reach of its origin on one side of its horizon, as the view of a
    flat board does (a fit that bends through its horizon explains texture, not a board)."""
    w = _REACH @ hom[2, :2] + hom[2, 2]
    return bool((w * hom[2, 2] > 0).all())


def _hypotheses(pts: NDArray[np.float64], sig: NDArray[np.float64],
                cfg: BoardConfig) -> list[tuple[int, NDArray[np.float64]]]:
    """Affine lattices from a blob and two of its neighbours, scored by the blobs they explain
    within their best 5x5 window; the best few, refined to homographies."""
    n = len(pts)
    if n < cfg.lattice_min_spots:
        return []
    d = np.linalg.norm(pts[:, None] - pts[None], axis=2)
    d[np.arange(n), np.arange(n)] = np.inf
    # a spot's neighbours are blobs of about its own scale (not the emblem inside a token)
    alike = np.abs(np.log(sig[:, None] / sig[None])) < math.log(cfg.lattice_scale_ratio)
    d[~alike] = np.inf
    lo, hi = cfg.lattice_pitch_sigma
    # nor a blob nearer or farther than a pitch can be (texture beside a spot would crowd out
    # its lattice neighbours)
    d[(d < lo * sig[:, None]) | (d > hi * sig[:, None])] = np.inf
    nearest = np.argsort(d, axis=1)[:, : cfg.lattice_neighbours]
    cos_max = math.cos(math.radians(90.0 - cfg.max_skew_deg))
    pairs = np.array(list(itertools.combinations(range(nearest.shape[1]), 2)))  # (P, 2)
    a = np.repeat(np.arange(n), len(pairs))
    b = nearest[:, pairs[:, 0]].ravel()
    c = nearest[:, pairs[:, 1]].ravel()
    u, v = pts[b] - pts[a], pts[c] - pts[a]
    lu, lv = np.hypot(u[:, 0], u[:, 1]), np.hypot(v[:, 0], v[:, 1])
    good = alike[a, b] & alike[a, c]
    good &= (lu >= lo * sig[a]) & (lu <= hi * sig[a]) & (lv >= lo * sig[a]) & (lv <= hi * sig[a])
    good &= np.maximum(lu, lv) <= cfg.max_side_ratio * np.minimum(lu, lv)
    good &= np.abs((u * v).sum(axis=1)) <= cos_max * lu * lv
    if not good.any():
        return []
    origin = pts[a[good]]  # (M, 2)
    mats = np.stack([u[good], v[good]], axis=2)  # (M, 2, 2): columns u, v
    base_sig = sig[a[good]]
    inv = np.linalg.inv(mats)
    votes = np.zeros(len(origin), np.int64)
    # a spot's blob has about the scale of its neighbours': each scale's triples vote with the
    # blobs of about that scale only (blobs are found at a few scales, so each sees a few)
    for s in np.unique(base_sig):
        rows = np.flatnonzero(base_sig == s)
        cols = np.flatnonzero(np.abs(np.log(sig / s)) < math.log(cfg.lattice_scale_ratio))
        dx = pts[cols, 0][None] - origin[rows, 0][:, None]  # (m, n)
        dy = pts[cols, 1][None] - origin[rows, 1][:, None]
        inv_r = inv[rows]
        li = inv_r[:, 0, 0, None] * dx + inv_r[:, 0, 1, None] * dy  # (m, n) lattice coordinates
        lj = inv_r[:, 1, 0, None] * dx + inv_r[:, 1, 1, None] * dy
        fit = np.hypot(li - np.round(li), lj - np.round(lj)) < cfg.lattice_residual
        # only nearby lattice places count: a far blob lines up with some lattice by chance
        fit &= (np.abs(li) <= 5) & (np.abs(lj) <= 5)
        votes[rows] = fit.sum(axis=1)
    out: list[tuple[int, NDArray[np.float64]]] = []
    places: list[NDArray[np.float64]] = []
    # many triples span the same lattice: the best few distinct lattices are kept (a periodic
    # texture's one lattice would otherwise fill every place)
    for m in np.argsort(-votes)[: cfg.lattice_tries]:
        if votes[m] < cfg.lattice_min_spots or len(out) == cfg.lattice_hypotheses:
            break
        hom = np.array([[mats[m, 0, 0], mats[m, 0, 1], origin[m, 0]],
                        [mats[m, 1, 0], mats[m, 1, 1], origin[m, 1]], [0.0, 0.0, 1.0]])
        got = _lattice_fit(pts, hom, cfg)
        # the affine guess holds only near its origin under perspective: the lattice grown
        # outwards from it replaces it when it explains more spots
        grown = _grow(pts, hom, cfg)
        bent = None if grown is None else _lattice_fit(pts, grown, cfg)
        if bent is not None and (got is None or bent[0] > got[0]):
            got = bent
        if got is None:
            continue
        at = cv2.perspectiveTransform(_GRID.reshape(-1, 1, 2), got[1]).reshape(25, 2)
        pitch = float(np.linalg.norm(at[1:] - at[:-1], axis=1)[np.arange(24) % 5 != 4].mean())
        if any(_same_places(at, other, cfg.lattice_residual * pitch) for other in places):
            continue
        places.append(at)
        out.append(got)
    out.sort(key=lambda t: -t[0])
    return out


# the 25 lattice places, (25, 2) float64 lattice coordinates, row-major
_GRID = np.array([[i, j] for j in range(5) for i in range(5)], np.float64)


def _same_places(a: NDArray[np.float64], b: NDArray[np.float64], tol: float) -> bool:
    """Whether two sets of 25 places, (25, 2) float64 pixels each, are the same lattice (each
    place of ``a`` within ``tol`` pixels of one of ``b``, in whatever order or orientation)."""
    d = np.linalg.norm(a[:, None] - b[None], axis=2)
    return bool((d.min(axis=1) < tol).all())


def _board_margin(grads: tuple[NDArray[np.float32], NDArray[np.float32]], hom: NDArray[np.float64],
                  cfg: BoardConfig) -> float:
    """The frame width (lattice pitches beyond the outer spots' cells) whose square outline has
    the strongest edges across it; the lattice sits in the middle of every board.

    Parameters
    ----------
    grads : pair of (H, W) float32 arrays
        The x and y gradients of the image ``hom`` maps lattice coordinates into.
    hom : (3, 3) float64 array
        Lattice coordinates (the 5x5 spots at 0..4 on each axis) -> image pixels.
    cfg : BoardConfig
        ``margin_min``, ``margin_max``, ``margin_step`` (the frame widths tried, as shares of the
        rectified board), ``refine_samples`` (points per side) and ``lattice_margin_trim`` (the
        share of each side left unsampled at either end).

    Returns
    -------
    float
        The frame width in pitches.
    """
    gx, gy = grads
    h, w = gx.shape
    m = np.arange(cfg.margin_min, cfg.margin_max + 1e-9, cfg.margin_step)
    frames = 5.0 * m / (1.0 - 2.0 * m)  # margin of the rectified board -> pitches
    t = np.linspace(cfg.lattice_margin_trim, 1.0 - cfg.lattice_margin_trim, cfg.refine_samples)
    lo, hi = -0.5 - frames, 4.5 + frames  # (E,)
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float64)
    corners = lo[:, None, None] + (hi - lo)[:, None, None] * unit[None]  # (E, 4, 2)
    start, end = corners, np.roll(corners, -1, axis=1)
    uv = start[:, :, None] + t[None, None, :, None] * (end - start)[:, :, None]  # (E, 4, T, 2)
    xy = cv2.perspectiveTransform(uv.reshape(-1, 1, 2), hom).reshape(uv.shape)
    along = xy[:, :, -1] - xy[:, :, 0]  # (E, 4, 2)
    nrm = np.stack([along[..., 1], -along[..., 0]], axis=-1)
    nrm /= np.linalg.norm(nrm, axis=-1, keepdims=True) + 1e-9
    xi = np.clip(np.round(xy[..., 0]).astype(np.int32), 0, w - 1)
    yi = np.clip(np.round(xy[..., 1]).astype(np.int32), 0, h - 1)
    across = np.abs(gx[yi, xi] * nrm[:, :, None, 0] + gy[yi, xi] * nrm[:, :, None, 1])  # (E, 4, T)
    sides = np.median(across, axis=2)  # (E, 4)
    # a hand over one side: the three best sides carry the score
    score = np.sort(sides, axis=1)[:, 1:].sum(axis=1)
    return float(frames[int(np.argmax(score))])


def _ring_map(grads: tuple[NDArray[np.float32], NDArray[np.float32]], hom: NDArray[np.float64],
              cfg: BoardConfig) -> NDArray[np.float64]:
    """The circular edge at the lattice places ``-2 .. 6`` on each axis (the 5x5 spots at 0..4).

    Each place's circle is drawn in lattice coordinates (radius ``radius_fracs`` of a pitch) and
    carried through ``hom``, so perspective bends it as it bends the spots.

    Parameters
    ----------
    grads : pair of (H, W) float32 arrays, the image's x and y gradients
    hom : (3, 3) float64 array, lattice coordinates -> image pixels
    cfg : BoardConfig
        ``radius_fracs`` (spot radii tried, in pitches) and ``ring_samples`` (points per circle).

    Returns
    -------
    (9, 9) float64 array, ``[row + 2, col + 2]``: at each place, the strongest over the radii of
    the mean (|radial| - |tangential|) gradient round the circle.
    """
    gx, gy = grads
    n = cfg.ring_samples
    ang = np.linspace(0.0, 2.0 * math.pi, n, endpoint=False)
    cs, sn = np.cos(ang), np.sin(ang)
    idx = np.arange(-2, 7, dtype=np.float64)
    ju, iu = np.meshgrid(idx, idx, indexing="ij")  # rows (j), columns (i)
    centre = np.stack([iu, ju], axis=-1).reshape(-1, 1, 2)  # (81, 1, 2) lattice (x, y)
    best = np.full(81, -np.inf)
    mid = cv2.perspectiveTransform(centre.reshape(-1, 1, 2), hom).reshape(81, 1, 2)
    for f in cfg.radius_fracs:
        ring = centre + f * np.stack([cs, sn], axis=-1)[None]  # (81, n, 2)
        xy = cv2.perspectiveTransform(ring.reshape(-1, 1, 2), hom).reshape(81, n, 2)
        rad = xy - mid
        rad /= np.linalg.norm(rad, axis=-1, keepdims=True) + 1e-9
        edge = radial_edge(gx, gy, xy[..., 0], xy[..., 1], rad[..., 0], rad[..., 1])
        best = np.maximum(best, edge.mean(axis=1))
    return best.reshape(9, 9)


def _shift_order(grads: tuple[NDArray[np.float32], NDArray[np.float32]], hom: NDArray[np.float64],
                 cfg: BoardConfig) -> list[tuple[int, int]]:
    """The lattice's window and its eight neighbours one row/column off, best explaining first.

    A window one column off the board leaves a column of the board's spots just outside it and
    takes in a column of places with no spot: the window's mean circular edge less that of the
    strongest row or column of places just outside it ranks the shifts.

    Returns
    -------
    list of (di, dj), lattice column and row offsets in -1..1
    """
    ring = _ring_map(grads, hom, cfg)  # [row + 2, col + 2]
    scored = []
    for di, dj in itertools.product((-1, 0, 1), repeat=2):
        r0, c0 = dj + 2, di + 2
        inside = float(ring[r0:r0 + 5, c0:c0 + 5].mean())
        outside = max(float(ring[r0 - 1, c0:c0 + 5].mean()), float(ring[r0 + 5, c0:c0 + 5].mean()),
                      float(ring[r0:r0 + 5, c0 - 1].mean()), float(ring[r0:r0 + 5, c0 + 5].mean()))
        scored.append((inside - outside, abs(di) + abs(dj), di, dj))
    scored.sort(key=lambda t: (-t[0], t[1]))
    return [(di, dj) for _, _, di, dj in scored]


def find_lattice_candidates(image: NDArray[np.uint8], cfg: BoardConfig) -> list[NDArray[np.float64]]:
    """Board quadrilaterals from 5x5 lattices of round blobs (tokens and empty spots), best first.

    Works without the board's outline: for a board that blends into the table, or whose
    corners a hand covers.

    Parameters
    ----------
    image : (H, W, 3) uint8 BGR array
    cfg : BoardConfig
        ``lattice_max_blobs`` (blobs of the first search), ``lattice_wide_blobs`` (of the second,
        taken when the first explains fewer than 25 spots) and ``lattice_wide_min_spots`` (the
        least spots the second search's best lattice must explain to replace the first's).

    Returns
    -------
    list of (4, 2) float64 arrays
        Corners in ``image`` pixels, ordered by :func:`vision.geometry.order_corners`; each
        :func:`vision.board.detect.board_shaped`, as the outlines' quads are.
    """
    h, w = image.shape[:2]
    scale = min(1.0, cfg.lattice_side / max(h, w))
    small = image if scale == 1.0 else cv2.resize(image, (round(w * scale), round(h * scale)),
                                                   interpolation=cv2.INTER_AREA)
    pts, sig, rank = _ranked_blobs(small, cfg, max(cfg.lattice_max_blobs, cfg.lattice_wide_blobs))
    narrow = rank < cfg.lattice_max_blobs
    lattices = _hypotheses(pts[narrow], sig[narrow], cfg)
    if (not lattices or lattices[0][0] < len(_GRID)) and not narrow.all():
        # a board's spots may be crowded out of the strongest blobs (busy tokens, a textured
        # table): the wider search is taken only when it finds a lattice explaining as many spots
        # as a board shows (a card's or the table's texture lines up with far fewer)
        wide = _hypotheses(pts, sig, cfg)
        if wide and wide[0][0] >= cfg.lattice_wide_min_spots:
            lattices = wide
    out: list[NDArray[np.float64]] = []
    if not lattices:
        return out
    gray = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY).astype(np.float32), (0, 0), 1.0)
    grads = cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3)
    for _, hom in lattices:
        # the window may be a row or column off (spots under a hand, blobs beside the board):
        # its eight neighbours are candidates too, the one explaining the spots best first
        for di, dj in _shift_order(grads, hom, cfg):
            moved = hom @ np.array([[1.0, 0.0, di], [0.0, 1.0, dj], [0.0, 0.0, 1.0]])
            e = _board_margin(grads, moved, cfg)
            a, b = -0.5 - e, 4.5 + e
            square = np.array([[a, a], [b, a], [b, b], [a, b]]).reshape(-1, 1, 2)
            quad = order_corners(cv2.perspectiveTransform(square, moved).reshape(4, 2) / scale)
            # a lattice bent near its horizon, or a texture's, frames a quad no view of a square
            # board from above has (a huge one costs a slow rectification, to no avail)
            if not board_shaped(quad, cfg):
                continue
            if all(np.abs(quad - o).max() > 0.02 * max(h, w) for o in out):
                out.append(quad)
            if len(out) == cfg.lattice_candidates:
                return out
    return out
