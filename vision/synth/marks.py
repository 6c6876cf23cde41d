"""Dry-erase pen marks on card cells: cross, slash, scribble, dot, hatch and ring.

Marks come in black, blue, red or green ink, with varying stroke width and opacity, and their
strokes may overshoot the cell border by up to ``overshoot`` of the cell size.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.config import load_config

__all__ = ["MARK_KINDS", "MarkConfig", "MarkStyle", "changed_share", "draw_mark", "mark_reach",
           "sample_mark_style"]

MARK_KINDS: tuple[str, ...] = ("cross", "slash", "scribble", "dot", "hatch", "ring")
Box = tuple[float, float, float, float]

_SHIFT = 4
_ONE = 1 << _SHIFT


@dataclass(frozen=True)
class MarkConfig:
    """Pen tunables (``synth.json``, section ``marks``)."""

    kinds: tuple[str, ...]
    inks: Mapping[str, Sequence[int]]
    width_mm: tuple[float, float]
    opacity: tuple[float, float]
    overshoot: tuple[float, float]
    ink_jitter: float
    visible_delta: float


@cache
def mark_config() -> MarkConfig:
    return load_config("synth", MarkConfig, section="marks")


@dataclass(frozen=True)
class MarkStyle:
    """How one mark is drawn.

    ``width_px`` is the stroke width in face pixels; ``opacity`` in 0..1; ``overshoot`` is how
    far strokes may pass the cell border, as a share of the cell size.
    """

    kind: str
    ink: str
    colour: tuple[int, int, int]
    width_px: float
    opacity: float
    overshoot: float


def sample_mark_style(
    rng: np.random.Generator, px_per_mm: float, kind: str | None = None, ink: str | None = None
) -> MarkStyle:
    """A random pen and gesture; ``kind`` and ``ink`` fix those choices when given."""
    cfg = mark_config()
    kind = kind if kind is not None else str(cfg.kinds[int(rng.integers(len(cfg.kinds)))])
    if kind not in MARK_KINDS:
        raise ValueError(f"unknown mark kind {kind!r}; expected one of {', '.join(MARK_KINDS)}")
    names = sorted(cfg.inks)
    ink = ink if ink is not None else names[int(rng.integers(len(names)))]
    if ink not in cfg.inks:
        raise ValueError(f"unknown ink {ink!r}; expected one of {', '.join(names)}")
    base = np.asarray(cfg.inks[ink], np.float64) + rng.uniform(-cfg.ink_jitter, cfg.ink_jitter, 3)
    b, g, r = np.clip(base, 0, 255)
    return MarkStyle(
        kind=kind,
        ink=ink,
        colour=(int(b), int(g), int(r)),
        width_px=float(rng.uniform(*cfg.width_mm)) * px_per_mm,
        opacity=float(rng.uniform(*cfg.opacity)),
        overshoot=float(rng.uniform(*cfg.overshoot)),
    )


def mark_reach(box: Box, style: MarkStyle) -> float:
    """How far (pixels) outside ``box`` a mark drawn with ``style`` may reach."""
    size = max(box[2] - box[0], box[3] - box[1])
    return style.overshoot * size + style.width_px + 2.0


def _curve(rng: np.random.Generator, a: NDArray[np.float64], b: NDArray[np.float64], bend: float,
           n: int = 12) -> NDArray[np.float64]:
    """A slightly bent hand stroke from ``a`` to ``b`` sampled at ``n`` points, shape ``(n, 2)``."""
    d = b - a
    normal = np.array([-d[1], d[0]]) / (np.linalg.norm(d) + 1e-9)
    ctrl = (a + b) / 2 + normal * rng.uniform(-bend, bend) * np.linalg.norm(d)
    t = np.linspace(0, 1, n)[:, None]
    return (1 - t) ** 2 * a + 2 * (1 - t) * t * ctrl + t**2 * b


def _strokes(rng: np.random.Generator, box: Box, style: MarkStyle) -> tuple[list[NDArray[np.float64]], bool]:
    """The pen strokes of a mark in face pixels, and whether the first is a filled shape."""
    x0, y0, x1, y1 = box
    s = min(x1 - x0, y1 - y0)
    c = np.array([(x0 + x1) / 2, (y0 + y1) / 2])
    o = style.overshoot * s
    jit = s * 0.08

    def corner(sx: float, sy: float, reach: float) -> NDArray[np.float64]:
        ext = s / 2 * reach + o * rng.uniform(0.3, 1.0)
        return c + np.array([sx, sy]) * ext + rng.uniform(-jit, jit, 2)

    kind = style.kind
    if kind == "cross":
        r = rng.uniform(0.6, 0.95)
        return [_curve(rng, corner(-1, -1, r), corner(1, 1, r), 0.08),
                _curve(rng, corner(1, -1, r), corner(-1, 1, r), 0.08)], False
    if kind == "slash":
        sx = 1.0 if rng.random() < 0.5 else -1.0
        r = rng.uniform(0.6, 0.95)
        return [_curve(rng, corner(-sx, -1, r), corner(sx, 1, r), 0.1)], False
    if kind == "scribble":
        n = int(rng.integers(5, 10))
        ys = np.linspace(-1, 1, n) * s * rng.uniform(0.3, 0.42)
        xs = np.where(np.arange(n) % 2 == 0, -1.0, 1.0) * s * rng.uniform(0.28, 0.42) + o * 0.5
        pts = c + np.stack([xs, ys], axis=1) + rng.uniform(-jit, jit, (n, 2))
        ang = rng.uniform(0, math.pi)
        rot = np.array([[math.cos(ang), -math.sin(ang)], [math.sin(ang), math.cos(ang)]])
        return [(pts - c) @ rot.T + c], False
    if kind == "dot":
        r = s * rng.uniform(0.12, 0.25)
        ang = np.linspace(0, 2 * math.pi, 16, endpoint=False)
        wob = 1 + rng.uniform(-0.12, 0.12, 16)
        centre = c + rng.uniform(-jit, jit, 2)
        return [centre + np.stack([np.cos(ang), np.sin(ang)], axis=1) * (r * wob)[:, None]], True
    if kind == "hatch":
        n = int(rng.integers(3, 6))
        strokes = []
        for t in np.linspace(-0.6, 0.6, n):
            a = c + np.array([-1, 1]) * (s / 2) * t + np.array([-1, -1]) * (s * 0.35 + o * 0.5)
            b = c + np.array([-1, 1]) * (s / 2) * t + np.array([1, 1]) * (s * 0.35 + o * 0.5)
            strokes.append(_curve(rng, a + rng.uniform(-jit, jit, 2), b + rng.uniform(-jit, jit, 2), 0.05, 6))
        return strokes, False
    if kind == "ring":
        rx = s * rng.uniform(0.3, 0.42) + o * 0.5
        ry = rx * rng.uniform(0.8, 1.1)
        start = rng.uniform(0, 2 * math.pi)
        ang = start + np.linspace(0, 2 * math.pi * rng.uniform(1.0, 1.15), 28)
        return [c + np.stack([np.cos(ang) * rx, np.sin(ang) * ry], axis=1)], False
    raise ValueError(f"unknown mark kind {kind!r}")


def draw_mark(
    face: NDArray[np.uint8], box: Box, rng: np.random.Generator, style: MarkStyle | None = None,
    px_per_mm: float | None = None,
) -> NDArray[np.uint8]:
    """Draw a dry-erase mark on the cell ``box`` of a face.

    Parameters
    ----------
    face : (h, w, 3) or (h, w, 4) uint8 array
        BGR or BGRA; the alpha channel is left alone.
    box : (x0, y0, x1, y1)
        The cell's square in face pixels.
    rng : numpy.random.Generator
    style : MarkStyle, optional
        A random one (see :func:`sample_mark_style`) when ``None``.
    px_per_mm : float, optional
        The face resolution, used when drawing a random style; the card faces' by default.

    Returns
    -------
    (h, w, 3) or (h, w, 4) uint8 array
        A new face; only pixels within :func:`mark_reach` of ``box`` change.
    """
    if style is None:
        from vision.synth.cards import face_geometry

        style = sample_mark_style(rng, px_per_mm if px_per_mm is not None else face_geometry().px_per_mm)
    st = style
    h, w = face.shape[:2]
    reach = mark_reach(box, st)
    rx0, ry0 = max(0, math.floor(box[0] - reach)), max(0, math.floor(box[1] - reach))
    rx1, ry1 = min(w, math.ceil(box[2] + reach)), min(h, math.ceil(box[3] + reach))
    out = face.copy()
    if rx1 <= rx0 or ry1 <= ry0:
        return out
    strokes, filled = _strokes(rng, box, st)
    layer = np.zeros((ry1 - ry0, rx1 - rx0), np.uint8)
    offset = np.array([rx0, ry0])
    thick = max(1, round(st.width_px))
    # keep every stroke inside the reach (a hand never leaves it by much)
    lo = np.array([box[0] - reach + st.width_px / 2 + 1, box[1] - reach + st.width_px / 2 + 1])
    hi = np.array([box[2] + reach - st.width_px / 2 - 1, box[3] + reach - st.width_px / 2 - 1])
    polys = [np.round((np.clip(p, lo, hi) - offset) * _ONE).astype(np.int32) for p in strokes]
    if filled:
        cv2.fillPoly(layer, polys, 255, cv2.LINE_AA, _SHIFT)
    else:
        cv2.polylines(layer, polys, False, 255, thick, cv2.LINE_AA, _SHIFT)
    alpha = layer.astype(np.float32) / 255.0
    # dry-erase ink lies unevenly: streaks along the stroke
    coarse = (max(2, layer.shape[0] // 6), max(2, layer.shape[1] // 6))
    streak = rng.uniform(0.75, 1.0, coarse).astype(np.float32)
    alpha *= cv2.resize(streak, (layer.shape[1], layer.shape[0]), interpolation=cv2.INTER_LINEAR) * st.opacity
    region = out[ry0:ry1, rx0:rx1, :3].astype(np.float32)
    ink = np.asarray(st.colour, np.float32)
    region += (ink - region) * alpha[:, :, None]
    out[ry0:ry1, rx0:rx1, :3] = np.clip(region + 0.5, 0, 255).astype(np.uint8)
    return out


def changed_share(before: NDArray[np.uint8], after: NDArray[np.uint8], box: Box,
                  delta: float | None = None) -> float:
    """Share of the pixels of the cell ``box`` that a mark changed: one of their colour channels
    moved by more than ``delta`` (``visible_delta`` of the pen config by default).

    A pen of a printed symbol's own colour over that symbol changes few pixels: such a mark may
    be hidden from every photo.

    Parameters
    ----------
    before, after : (h, w, 3) or (h, w, 4) uint8 arrays
        The face without and with the mark (the alpha channel is not compared).
    box : (x0, y0, x1, y1)
        The cell's square in face pixels.
    delta : float, optional

    Returns
    -------
    float
        In ``[0, 1]``; 0 for a box with no pixel in the face.
    """
    limit = mark_config().visible_delta if delta is None else delta
    h, w = before.shape[:2]
    x0, y0 = max(0, math.floor(box[0])), max(0, math.floor(box[1]))
    x1, y1 = min(w, math.ceil(box[2])), min(h, math.ceil(box[3]))
    if x1 <= x0 or y1 <= y0:
        return 0.0
    a = before[y0:y1, x0:x1, :3].astype(np.int16)
    b = after[y0:y1, x0:x1, :3].astype(np.int16)
    return float(np.mean(np.abs(b - a).max(axis=2) > limit))
