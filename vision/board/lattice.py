"""The board's corners from its 5x5 spot lattice.

Every board carries 25 round spots on a regular square lattice centred on the board. Once a
board is roughly rectified, each spot's own circular edge tells where that spot really is; a
homography through those centres (robust to spots a hand covers) straightens a lattice bent by a
misplaced corner, and carries the rectified square, and so the board's corners, with it. This
needs no board outline, so it also corrects a corner the outline finder could not see.
"""

from __future__ import annotations

import dataclasses
import math

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.board.config import BoardConfig
from vision.board.detect import rectify
from vision.board.spots import Grid


def _gradients(rect: NDArray[np.uint8], sigma: float) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    gray = cv2.cvtColor(rect, cv2.COLOR_BGR2GRAY).astype(np.float32)
    gray = cv2.GaussianBlur(gray, (0, 0), sigma)
    return cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3)


def _ring_strength(gx: NDArray[np.float32], gy: NDArray[np.float32], centres: NDArray[np.float64],
                   radius: float, samples: int) -> NDArray[np.float64]:
    """Mean (|radial| - |tangential|) gradient on circles; ``centres`` (..., 2) -> (...)."""
    h, w = gx.shape
    ang = np.linspace(0.0, 2.0 * math.pi, samples, endpoint=False)
    cs, sn = np.cos(ang), np.sin(ang)
    px = centres[..., 0:1] + radius * cs
    py = centres[..., 1:2] + radius * sn
    xi = np.clip(np.round(px).astype(np.int32), 0, w - 1)
    yi = np.clip(np.round(py).astype(np.int32), 0, h - 1)
    vx, vy = gx[yi, xi], gy[yi, xi]
    return np.mean(np.abs(vx * cs + vy * sn) - np.abs(vy * cs - vx * sn), axis=-1)


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
