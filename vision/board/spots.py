"""Locate the 5x5 spot lattice on a rectified board and measure each spot.

The lattice is found, not assumed: every board has 25 round spots (tokens or printed empty
places) on a square lattice centred on the board, but the width of the frame around it and the
spot size differ between editions. The fit searches the frame width, a small offset and the spot
radius for the strongest circular (radial, not tangential) edges on the 25 rings.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.board.config import BoardConfig


@dataclass(frozen=True)
class Grid:
    """The spot lattice on a rectified board.

    ``centres`` is ``(5, 5, 2)`` float64 ``(x, y)`` in rectified pixels, ``[row, col]``;
    ``pitch`` and ``radius`` (a spot's radius) are in rectified pixels; ``score`` is the mean
    radial edge strength on the rings (higher is more board-like) and ``quality`` the same over
    the mean edge strength of the whole rectified board (independent of light and contrast).
    """

    centres: NDArray[np.float64]
    pitch: float
    radius: float
    score: float
    quality: float = 0.0


@dataclass(frozen=True)
class SpotSamples:
    """Colour measurements of the 25 spots, all ``float64``.

    ``inner`` is ``(5, 5, 3)``: the median BGR (0..1) inside each spot; ``sectors`` is
    ``(5, 5, S, 3)``: mean BGR of S angular sectors of the spot; ``texture`` is ``(5, 5)``:
    the spread of log-luminance inside the spot; ``background`` is ``(5, 5, 4, 3)``: median BGR of
    the four patches of board between a spot and its diagonal neighbours; ``rim`` is
    ``(5, 5, S, 3)``: mean BGR of the same S sectors in the ring between ``sector_frac`` and
    ``rim_frac`` of the spot's radius (a finger over the edge of a token shows there first);
    ``ring`` is ``(5, 5)``: the spot's circular edge, the median (radial - tangential) gradient
    round the best of a few rings near the spot's radius (a covered spot shows none).
    ``board_map`` is ``(h, w, 3)``: the rectified board's BGR (0..1) averaged over blocks of
    ``hand_map_scale`` pixels, and ``map_discs`` ``(25, h * w)`` bool marks each spot's disc on it
    (what a hand reaching in over the board covers is judged there). ``shade`` is ``(5, 5, 3)``:
    the mean BGR of the darkest ``shade_percentile`` percent of the spot's pixels (by brightness):
    the token's own colour less lit (a token's curve and rim), whose channels stay below a clip
    that a bright token's ``inner`` reaches.
    """

    inner: NDArray[np.float64]
    sectors: NDArray[np.float64]
    texture: NDArray[np.float64]
    background: NDArray[np.float64]
    rim: NDArray[np.float64] | None = None
    ring: NDArray[np.float64] | None = None
    board_map: NDArray[np.float64] | None = None
    map_discs: NDArray[np.bool_] | None = None
    shade: NDArray[np.float64] | None = None


def _gradients(rect: NDArray[np.uint8]) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    gray = cv2.cvtColor(rect, cv2.COLOR_BGR2GRAY).astype(np.float32)
    gray = cv2.GaussianBlur(gray, (0, 0), 1.2)
    gx = cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3)
    return gx, gy


def _lattice(size: int, margin: float | NDArray[np.float64], ox: float | NDArray[np.float64],
             oy: float | NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The spot centres of regular 5x5 lattices in a square of ``size`` pixels.

    ``margin``, ``ox`` and ``oy`` (fractions of ``size``; numbers, or arrays of one shape ``P``)
    give each lattice's border and offset -> centres ``(*P, 5, 5, 2)`` (``[..., i, j]`` is the
    x of column ``j`` and the y of row ``i``) and pitches ``P``."""
    m = np.asarray(margin, np.float64) * size
    pitch = (size - 2 * m) / 5.0
    idx = (np.arange(5) + 0.5) * pitch[..., None] + m[..., None]  # (*P, 5)
    xs = idx + np.asarray(ox, np.float64)[..., None] * size
    ys = idx + np.asarray(oy, np.float64)[..., None] * size
    shape = (*xs.shape[:-1], 5, 5)
    centres = np.stack([np.broadcast_to(xs[..., None, :], shape), np.broadcast_to(ys[..., :, None], shape)],
                       axis=-1)
    return centres, pitch


def ring_edge(gx: NDArray[np.float32], gy: NDArray[np.float32], centres: NDArray[np.float64],
              radius: float | NDArray[np.float64], n: int) -> NDArray[np.float64]:
    """(|radial| - |tangential|) gradient at ``n`` points evenly round circles.

    Parameters
    ----------
    gx, gy : (H, W) float32 arrays, the image's x and y derivatives
    centres : (..., 2) float64 array, the circles' (x, y) centres in pixels
    radius : float, or float64 array broadcasting against ``centres[..., :1]`` (e.g. (K, 1, 1) for
        ``centres`` (K, 25, 2)), the circles' radii in pixels
    n : int, points per circle (the nearest pixel, clipped to the image)

    Returns
    -------
    (..., n) float64 array
    """
    ang = np.linspace(0.0, 2.0 * math.pi, n, endpoint=False)
    cs, sn = np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)
    # pixel positions need no more than single precision
    c = np.asarray(centres, np.float32)
    r = np.asarray(radius, np.float32)
    return radial_edge(gx, gy, c[..., 0:1] + r * cs, c[..., 1:2] + r * sn, cs, sn)


def radial_edge(gx: NDArray[np.float32], gy: NDArray[np.float32], px: NDArray[np.floating[Any]],
                py: NDArray[np.floating[Any]], ux: NDArray[np.floating[Any]], uy: NDArray[np.floating[Any]],
                ) -> NDArray[np.float64]:
    """(|radial| - |tangential|) gradient at points ``(px, py)`` (the nearest pixel, clipped to the
    image) whose outward unit direction is ``(ux, uy)``; all four broadcast to one shape, which the
    result has (float64). A round edge through the points scores high, a straight one low."""
    h, w = gx.shape
    xi = np.clip(np.rint(px), 0, w - 1).astype(np.intp)
    yi = np.clip(np.rint(py), 0, h - 1).astype(np.intp)
    at = yi * w + xi
    vx, vy = np.take(gx.ravel(), at), np.take(gy.ravel(), at)
    ux, uy = np.asarray(ux, np.float32), np.asarray(uy, np.float32)
    return (np.abs(vx * ux + vy * uy) - np.abs(vy * ux - vx * uy)).astype(np.float64)


def _ring_scores(gx: NDArray[np.float32], gy: NDArray[np.float32], centres: NDArray[np.float64],
                 radii: NDArray[np.float64], n: int) -> NDArray[np.float64]:
    """Mean :func:`ring_edge` over each lattice's rings; ``centres`` (K, 25, 2), ``radii`` (K,) -> (K,)."""
    return np.mean(ring_edge(gx, gy, centres, radii[:, None, None], n), axis=(1, 2))


def fit_grid(rect: NDArray[np.uint8], cfg: BoardConfig) -> Grid:
    """Fit the 5x5 spot lattice to a rectified board.

    Parameters
    ----------
    rect : (S, S, 3) uint8 BGR array, the rectified board
    cfg : BoardConfig

    Returns
    -------
    Grid
    """
    size = rect.shape[0]
    gx, gy = _gradients(rect)
    margins = np.arange(cfg.margin_min, cfg.margin_max + 1e-9, cfg.margin_step)
    fracs = np.asarray(cfg.radius_fracs, np.float64)

    def search(params: list[tuple[float, float, float]]) -> tuple[float, tuple[float, float, float, float]]:
        par = np.asarray(params, np.float64)  # (P, 3): margin, x and y offsets
        c, p = _lattice(size, par[:, 0], par[:, 1], par[:, 2])
        # every lattice with every radius, lattice by lattice
        cents = np.broadcast_to(c.reshape(len(par), 1, 25, 2), (len(par), len(fracs), 25, 2))
        radii = p[:, None] * fracs[None, :]
        scores = _ring_scores(gx, gy, cents.reshape(-1, 25, 2), radii.ravel(), cfg.ring_samples)
        i = int(np.argmax(scores))
        m, ox, oy = (float(v) for v in par[i // len(fracs)])
        return float(scores[i]), (m, ox, oy, float(fracs[i % len(fracs)]))

    _, (m, _, _, _) = search([(float(m), 0.0, 0.0) for m in margins])
    offs = cfg.offset_frac
    _, (_, ox, oy, _) = search([(m, ox, oy) for ox in offs for oy in offs])
    fine = np.arange(m - cfg.margin_step, m + cfg.margin_step + 1e-9, cfg.margin_step / 4)
    score, (m, ox, oy, f) = search([(float(mm), ox, oy) for mm in fine])
    centres, pitches = _lattice(size, m, ox, oy)
    pitch = float(pitches)
    contrast = float(np.mean(np.abs(gx)) + np.mean(np.abs(gy))) + 1e-6
    return Grid(centres=centres, pitch=pitch, radius=f * pitch, score=score, quality=score / contrast)


def _disc_offsets(radius: float) -> tuple[NDArray[np.int32], NDArray[np.int32], NDArray[np.float64]]:
    r = max(1, math.ceil(radius))
    yy, xx = np.mgrid[-r:r + 1, -r:r + 1]
    keep = xx * xx + yy * yy <= radius * radius
    ang = np.arctan2(yy[keep], xx[keep])
    return xx[keep].astype(np.int32), yy[keep].astype(np.int32), ang


def sample_spots(rect: NDArray[np.uint8], grid: Grid, cfg: BoardConfig) -> SpotSamples:
    """Measure colours in and around the 25 spots.

    Parameters
    ----------
    rect : (S, S, 3) uint8 BGR array, the rectified board
    grid : Grid
    cfg : BoardConfig

    Returns
    -------
    SpotSamples
    """
    size = rect.shape[0]
    img = rect.astype(np.float32) / 255.0
    smooth = cv2.GaussianBlur(img.mean(axis=2), (0, 0), cfg.texture_blur)
    luma = np.log(smooth + cfg.eps)
    dx, dy, ang = _disc_offsets(cfg.inner_frac * grid.radius)
    sector = ((ang + math.pi) / (2 * math.pi) * cfg.sector_count).astype(np.int32) % cfg.sector_count
    onehot = np.zeros((len(sector), cfg.sector_count), np.float32)
    # sectors stay clear of the token's rim, where a slightly misplaced lattice meets the board
    near = dx * dx + dy * dy <= (cfg.sector_frac * grid.radius) ** 2
    onehot[np.arange(len(sector))[near], sector[near]] = 1.0
    onehot /= np.maximum(onehot.sum(axis=0, keepdims=True), 1.0)
    rdx, rdy, rang = _disc_offsets(cfg.rim_frac * grid.radius)
    rsector = ((rang + math.pi) / (2 * math.pi) * cfg.sector_count).astype(np.int32) % cfg.sector_count
    ring = rdx * rdx + rdy * rdy > (cfg.sector_frac * grid.radius) ** 2
    rim_hot = np.zeros((len(rsector), cfg.sector_count), np.float32)
    rim_hot[np.arange(len(rsector))[ring], rsector[ring]] = 1.0
    rim_hot /= np.maximum(rim_hot.sum(axis=0, keepdims=True), 1.0)
    centres = np.round(grid.centres.reshape(25, 2)).astype(np.int32)
    xi = np.clip(centres[:, 0:1] + dx[None, :], 0, size - 1)
    yi = np.clip(centres[:, 1:2] + dy[None, :], 0, size - 1)
    # colours are measured on a smoothed copy: a percentile of noisy pixels is biased (most in a
    # dark channel), a percentile of smoothed ones is not
    soft = cv2.GaussianBlur(img, (0, 0), cfg.texture_blur)
    px = soft[yi, xi]  # (25, P, 3)
    inner = np.percentile(px, cfg.inner_percentile, axis=1)
    # whole pixels (not a percentile per channel) keep the colour's own chromaticity
    bright = px.mean(axis=2)  # (25, P)
    dim = bright <= np.percentile(bright, cfg.shade_percentile, axis=1, keepdims=True)
    shade = (px * dim[..., None]).sum(axis=1) / np.maximum(dim.sum(axis=1), 1)[:, None]
    sectors = np.einsum("npc,ps->nsc", px, onehot)
    rxi = np.clip(centres[:, 0:1] + rdx[None, :], 0, size - 1)
    ryi = np.clip(centres[:, 1:2] + rdy[None, :], 0, size - 1)
    rim = np.einsum("npc,ps->nsc", img[ryi, rxi], rim_hot)
    # the emblem's texture, not a smooth change of the light across the spot (a glare's slope, a
    # shadow's gradient): the spread of the brightness about its best plane over the spot
    design = np.stack([np.ones(len(dx)), dx, dy], axis=1).astype(np.float64)  # (P, 3)
    lum = luma[yi, xi].astype(np.float64)  # (25, P)
    resid = lum - lum @ np.linalg.pinv(design).T @ design.T
    q25, q75 = np.percentile(resid, [25, 75], axis=1)
    texture = q75 - q25
    pdx, pdy, _ = _disc_offsets(max(1.0, cfg.corner_patch_frac * grid.pitch))
    half = grid.pitch / 2
    signs = np.array([(-1, -1), (1, -1), (1, 1), (-1, 1)], np.float64)
    corners = np.round(grid.centres.reshape(25, 1, 2) + signs[None] * half).astype(np.int32)  # (25, 4, 2)
    bx = np.clip(corners[..., 0:1] + pdx, 0, size - 1)
    by = np.clip(corners[..., 1:2] + pdy, 0, size - 1)
    background = np.median(soft[by, bx], axis=2)  # (25, 4, 3)
    gx, gy = _gradients(rect)
    step = cfg.ring_edge_shift * grid.radius
    cxy = grid.centres.reshape(25, 2)
    # the best of a few radii and small shifts: the lattice may sit a little off a spot
    tries = np.array(list(itertools.product(cfg.ring_edge_fracs, (-step, 0.0, step), (-step, 0.0, step))))
    edges = ring_edge(gx, gy, cxy[None] + tries[:, None, 1:], tries[:, 0, None, None] * grid.radius,
                      2 * cfg.ring_samples)  # (T, 25, n)
    ring = np.median(edges, axis=2).max(axis=0)
    board_map, map_discs = _board_map(img, grid, cfg.hand_map_scale)
    return SpotSamples(
        inner=inner.reshape(5, 5, 3).astype(np.float64),
        sectors=sectors.reshape(5, 5, cfg.sector_count, 3).astype(np.float64),
        texture=texture.reshape(5, 5).astype(np.float64),
        background=background.reshape(5, 5, 4, 3).astype(np.float64),
        rim=rim.reshape(5, 5, cfg.sector_count, 3).astype(np.float64),
        ring=ring.reshape(5, 5).astype(np.float64),
        board_map=board_map,
        map_discs=map_discs,
        shade=shade.reshape(5, 5, 3).astype(np.float64),
    )


def _board_map(img: NDArray[np.float32], grid: Grid,
               scale: int) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """The board ``img`` ((S, S, 3) float32 BGR 0..1) averaged over ``scale``-pixel blocks,
    ``(h, w, 3)`` float64, and the 25 spot discs of ``grid`` on it, ``(25, h * w)`` bool."""
    scale = max(1, min(int(scale), img.shape[0], img.shape[1]))
    h, w = img.shape[0] // scale, img.shape[1] // scale
    small = cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA).astype(np.float64)
    yy, xx = np.mgrid[0:h, 0:w]
    # a map pixel's centre in board pixels
    px, py = (xx.ravel() + 0.5) * scale - 0.5, (yy.ravel() + 0.5) * scale - 0.5
    c = grid.centres.reshape(25, 1, 2)
    discs = (px[None] - c[..., 0]) ** 2 + (py[None] - c[..., 1]) ** 2 <= grid.radius ** 2
    return small, discs


def _opponent(bgr: NDArray[np.float64]) -> NDArray[np.float64]:
    """Opponent colour (R - G, (R + G) / 2 - B) of linear BGR, ``(..., 3) -> (..., 2)``; adding
    white light leaves it unchanged."""
    b, g, r = bgr[..., 0], bgr[..., 1], bgr[..., 2]
    return np.stack([r - g, (r + g) / 2 - b], axis=-1)


def chroma(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """Remove the mean over the last axis (log colour -> log chromaticity)."""
    return x - x.mean(axis=-1, keepdims=True)


def _border_sides() -> tuple[NDArray[np.bool_], ...]:
    """Four (5, 5, 4) bool masks: the corner patches of the spots (order as
    ``SpotSamples.background``) on each side (top, bottom, left, right) of the outer ring of the
    6x6 lattice of patch positions."""
    signs = np.array([(-1, -1), (1, -1), (1, 1), (-1, 1)])
    rows = np.arange(5)[:, None, None] + (signs[None, None, :, 1] + 1) // 2
    cols = np.arange(5)[None, :, None] + (signs[None, None, :, 0] + 1) // 2
    rows, cols = np.broadcast_arrays(rows, cols)
    return rows == 0, rows == 5, cols == 0, cols == 5


def spot_features(samples: SpotSamples, cfg: BoardConfig,
                  eps: float | NDArray[np.float64] | None = None) -> dict[str, NDArray[np.float64]]:
    """Light-normalised log colours.

    ``eps`` (a number or (3,) per channel; ``cfg.eps`` by default) is added before the log: the
    noise floor below which a channel's differences mean nothing.

    Returns
    -------
    dict
        ``x`` (5, 5, 3): log spot colour over the local board brightness; ``e`` (5, 5, 3): log spot
        colour minus log local board colour; ``g`` (5, 5, 3): log spot colour minus the board's
        typical colour; ``bg_dev`` (5, 5, 4): distance of each board patch from
        the board's typical colour.
    """
    eps = cfg.eps if eps is None else eps
    bg = np.log(samples.background + eps)  # (5,5,4,3)
    glob = np.median(bg.reshape(-1, 3), axis=0)
    local = np.median(bg, axis=2)  # (5,5,3)
    lum_local = local.mean(axis=-1) - glob.mean()
    inner = np.log(samples.inner + eps)
    x = inner - lum_local[..., None]
    e = inner - local
    d = bg - glob
    # the corner patches of the outer spots lie on the board's border, which may be printed
    # differently from the board between the spots (a frame): they are compared with the border
    w = cfg.luma_weight

    def dev(v: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.sqrt((chroma(v) ** 2).sum(-1) + (w * v.mean(-1)) ** 2)

    bg_dev = dev(d)
    for side in _border_sides():
        # ... so each border patch also counts as the board when it looks like most of its side
        ref = np.median(bg[side], axis=0)
        bg_dev = np.where(side, np.minimum(bg_dev, dev(bg - ref)), bg_dev)
    return {"x": x, "e": e, "g": inner - glob, "bg_dev": bg_dev}


def sector_deviation(samples: SpotSamples, cfg: BoardConfig,
                     gains: NDArray[np.float64] | None = None,
                     sectors: NDArray[np.float64] | None = None,
                     clipped: NDArray[np.bool_] | None = None) -> NDArray[np.float64]:
    """The largest change of hue of a sector of each spot against the whole spot.

    A sector may be a brighter, darker or paler version of the spot (gloss, glare, the emblem:
    light of the illuminant's colour added, or the colour scaled, which keeps the direction of the
    opponent colour once the illuminant is divided out), but a different hue means something else
    covers part of the spot. A glare bright enough to clip a channel bends that direction, so a
    sector with a clipped channel is judged by the others: it is glare when some brighter or
    darker spot colour plus some white light gives its unclipped channels and reaches at least
    its clipped ones; its deviation is what such a mix leaves unexplained.

    Parameters
    ----------
    samples : SpotSamples
    cfg : BoardConfig
    gains : (3,) float array, optional
        BGR gains of the light, divided out first.
    sectors : (5, 5, S, 3) float array, optional
        The parts compared with the whole spot; ``samples.sectors`` by default.
    clipped : (5, 5, S, 3) bool array, optional
        The clipped channels of the parts (none by default).

    Returns
    -------
    (5, 5) float64 array, relative to each spot's brightness
    """
    g = np.ones(3) if gains is None else np.asarray(gains, np.float64)
    inner = samples.inner / g
    parts = (samples.sectors if sectors is None else sectors) / g
    o_in = _opponent(inner)[:, :, None, :]  # (5, 5, 1, 2)
    o_sec = _opponent(parts)  # (5, 5, S, 2)
    norm = np.sqrt((o_in ** 2).sum(-1, keepdims=True))
    bright = inner.mean(-1)[:, :, None, None]
    u = np.where(norm > cfg.neutral_chroma * bright, o_in / (norm + 1e-9), 0.0)
    along = np.maximum((o_sec * u).sum(-1, keepdims=True), 0.0)
    perp = np.sqrt(((o_sec - along * u) ** 2).sum(-1))
    floor = np.maximum(inner.mean(-1)[:, :, None], cfg.dark_floor)
    dev = perp / floor
    if clipped is not None:
        some = clipped.any(-1) & ~clipped.all(-1)
        if some.any():
            spot = np.broadcast_to(inner[:, :, None, :], parts.shape)[some]
            scale = np.broadcast_to(floor, some.shape)[some]
            # how far each part is from the spot's colour plus white light (a glare)
            dev[some] = white_mix(parts[some], spot, clipped[some])[2] / scale
    return dev.max(axis=-1)


def white_mix(target: NDArray[np.float64], base: NDArray[np.float64], clip: NDArray[np.bool_] | None = None,
              ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Explain each ``target`` colour as ``a * base + b * white`` (``a, b >= 0``; white is ones,
    the light divided out): a colour scaled by the light, plus white light added (a glare).

    The non-negative least-squares fit on the unclipped channels is the free fit when both terms
    come out non-negative, else the better of the two single terms; a clipped channel only has to
    be reached.

    Parameters
    ----------
    target, base : (M, 3) float64 arrays, linear colours with the light divided out
    clip : (M, 3) bool array, optional, the target's clipped channels (none by default)

    Returns
    -------
    a, b, cost : (M,) float64 arrays; ``cost`` is the length of what the fit leaves unexplained
    """
    clip = np.zeros(target.shape, bool) if clip is None else clip
    w = (~clip).astype(np.float64)
    one = np.ones_like(base)
    # normal equations of the weighted fit, per colour
    saa, sab, sbb = (w * base * base).sum(-1), (w * base).sum(-1), w.sum(-1)
    ta, tb = (w * base * target).sum(-1), (w * target).sum(-1)
    det = saa * sbb - sab * sab
    ok = np.abs(det) > 1e-12
    safe = np.where(ok, det, 1.0)
    free = np.stack([(sbb * ta - sab * tb) / safe, (saa * tb - sab * ta) / safe], axis=-1)
    cands = [np.where((ok & (free.min(-1) >= 0))[:, None], free, np.nan),
             np.stack([np.maximum(ta, 0.0) / np.maximum(saa, 1e-12), np.zeros(len(base))], axis=-1),
             np.stack([np.zeros(len(base)), np.maximum(tb, 0.0) / np.maximum(sbb, 1e-12)], axis=-1)]
    best = np.full(len(base), np.inf)
    fit = np.zeros((len(base), 2))
    for ab in cands:
        pred = ab[:, :1] * base + ab[:, 1:] * one
        miss = np.where(clip, np.maximum(target - pred, 0.0), target - pred)
        cost = np.sqrt((miss ** 2).sum(-1))
        better = ~np.isnan(cost) & (cost < best)
        best = np.where(better, cost, best)
        fit = np.where(better[:, None], ab, fit)
    return fit[:, 0], fit[:, 1], best
