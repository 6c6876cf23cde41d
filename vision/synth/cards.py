"""Treasure-map card faces for synthetic scenes.

A face shows what every real Silver & Gold map card shares: a colour frame in the card colour,
an island under a grid of outlined square cells (water positions have no cell), printed X, coin
and palm symbols, the points numeral top-left and, on some cards, a badge top-right. Two clearly
different styles (``classic`` and ``modern``) vary the grid position and size, fonts, icon
designs and colour shades, and every face jitters within its style. A third style, ``stamped``
(:data:`HELD_OUT_STYLES`), is drawn only when asked for: no scene draws it at random, so no reader
threshold was set on it, and the benchmark reads it as art the readers have never seen.

The printed grid is the catalog grid turned ``grid_rotation`` quarter turns clockwise
(``numpy.rot90(grid, -grid_rotation)``), because the orientation of the transcribed grids on the
printed cards is unknown.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.cards.catalog import CatalogCard as MapCard
from vision.cards.catalog import builtin_catalog
from vision.config import load_config

__all__ = [
    "ALL_STYLES",
    "HELD_OUT_STYLES",
    "STYLES",
    "CardFace",
    "FaceStyle",
    "MapCard",
    "map_card",
    "map_cards",
    "render_card_face",
]

STYLES: tuple[str, ...] = ("classic", "modern")
"""The face styles scenes draw from at random."""
HELD_OUT_STYLES: tuple[str, ...] = ("stamped",)
"""Face styles drawn only when asked for (art the readers have never seen)."""
ALL_STYLES: tuple[str, ...] = STYLES + HELD_OUT_STYLES
Cell = tuple[int, int]

_FONTS: Mapping[str, int] = {
    "simplex": cv2.FONT_HERSHEY_SIMPLEX,
    "duplex": cv2.FONT_HERSHEY_DUPLEX,
    "triplex": cv2.FONT_HERSHEY_TRIPLEX,
    "complex": cv2.FONT_HERSHEY_COMPLEX,
}

# ------------------------------------------------------------------------------------------ catalog


@cache
def map_cards() -> tuple[MapCard, ...]:
    """The 47 built-in treasure-map cards (the catalog's own card type)."""
    return builtin_catalog().cards


def map_card(card_id: str) -> MapCard:
    """The built-in card ``card_id``.

    Raises
    ------
    KeyError
        When no card has that id.
    """
    for card in map_cards():
        if card.id == card_id:
            return card
    raise KeyError(f"no treasure-map card {card_id!r}")


# ------------------------------------------------------------------------------------------- styles


@dataclass(frozen=True)
class FaceGeometry:
    card_mm: tuple[float, float]
    px_per_mm: float
    expedition_mm: tuple[float, float]


@dataclass(frozen=True)
class Palette:
    classic: Mapping[str, Sequence[int]]
    modern: Mapping[str, Sequence[int]]
    stamped: Mapping[str, Sequence[int]]
    jitter: float


@dataclass(frozen=True)
class FaceStyle:
    """One face style (``synth.json``, section ``face_<name>``); ranges are ``(low, high)``."""

    frame_mm: tuple[float, float]
    corner_radius_mm: tuple[float, float]
    cell_mm: tuple[float, float]
    grid_centre_y: tuple[float, float]
    grid_centre_x: tuple[float, float]
    outline_mm: tuple[float, float]
    outline_bgr: tuple[int, int, int]
    cell_bgr: tuple[int, int, int]
    background_bgr: tuple[int, int, int]
    background_tint: float
    island_bgr: tuple[int, int, int]
    shore_bgr: tuple[int, int, int]
    lagoon_bgr: tuple[int, int, int]
    fonts: tuple[str, ...]
    numeral_height_mm: tuple[float, float]
    numeral_bgr: tuple[int, int, int]
    numeral_disc_bgr: tuple[int, ...]
    badge_shape: str
    icons: str


@cache
def face_geometry() -> FaceGeometry:
    return load_config("synth", FaceGeometry, section="face")


@cache
def palette() -> Palette:
    return load_config("synth", Palette, section="palette")


@cache
def face_style(name: str) -> FaceStyle:
    """The :class:`FaceStyle` called ``name`` (one of :data:`ALL_STYLES`)."""
    if name not in ALL_STYLES:
        raise ValueError(f"unknown card style {name!r}; expected one of {', '.join(ALL_STYLES)}")
    return load_config("synth", FaceStyle, section=f"face_{name}")


def card_colour_bgr(colour: str, style: str, rng: np.random.Generator | None = None) -> tuple[int, int, int]:
    """The BGR colour of a card colour in a style, with a random shade when ``rng`` is given."""
    pal = palette()
    if style not in ALL_STYLES:
        raise ValueError(f"unknown card style {style!r}; expected one of {', '.join(ALL_STYLES)}")
    base = np.asarray(getattr(pal, style)[colour], np.float64)
    if rng is not None:
        base = base + rng.uniform(-pal.jitter, pal.jitter, 3)
    b, g, r = np.clip(base, 0, 255)
    return (int(b), int(g), int(r))


# ------------------------------------------------------------------------------------------ drawing


@dataclass(frozen=True)
class CardFace:
    """A rendered card face and where its printed cells are.

    Attributes
    ----------
    image : (h, w, 4) uint8 array
        BGRA; alpha cuts the rounded corners.
    cells : mapping
        Catalog cell ``(row, col)`` -> its printed square ``(x0, y0, x1, y1)`` in face pixels.
    grid_rotation : int
        Quarter turns clockwise from the catalog grid to the printed grid.
    style : str
    px_per_mm : float
    """

    image: NDArray[np.uint8]
    cells: Mapping[Cell, tuple[float, float, float, float]]
    grid_rotation: int
    style: str
    px_per_mm: float


def _u(rng: np.random.Generator, bounds: Sequence[float]) -> float:
    return float(rng.uniform(bounds[0], bounds[1])) if bounds[1] > bounds[0] else float(bounds[0])


def jitter_bgr(rng: np.random.Generator, bgr: Sequence[int], amount: float) -> tuple[int, int, int]:
    v = np.clip(np.asarray(bgr, np.float64) + rng.uniform(-amount, amount, 3), 0, 255)
    return (int(v[0]), int(v[1]), int(v[2]))


_SHIFT = 4  # sub-pixel bits for cv2 drawing
_ONE = 1 << _SHIFT


def _pt(x: float, y: float) -> tuple[int, int]:
    return (round(x * _ONE), round(y * _ONE))


def rounded_alpha(w: int, h: int, radius: float) -> NDArray[np.uint8]:
    """An anti-aliased mask of a ``w`` x ``h`` rectangle with rounded corners, shape ``(h, w)``."""
    alpha = np.full((h, w), 255, np.uint8)
    r = max(1.0, float(radius))
    k = math.ceil(r) + 1
    yy, xx = np.mgrid[0:k, 0:k].astype(np.float32)
    # coverage of a pixel centred at (x + 0.5, y + 0.5) by the disc around (r, r)
    d = np.sqrt((xx + 0.5 - r) ** 2 + (yy + 0.5 - r) ** 2)
    corner = np.where((xx + 0.5 < r) & (yy + 0.5 < r), np.clip(r - d + 0.5, 0.0, 1.0), 1.0)
    tile = np.round(corner * 255).astype(np.uint8)
    alpha[:k, :k] = np.minimum(alpha[:k, :k], tile)
    alpha[:k, w - k:] = np.minimum(alpha[:k, w - k:], tile[:, ::-1])
    alpha[h - k:, :k] = np.minimum(alpha[h - k:, :k], tile[::-1, :])
    alpha[h - k:, w - k:] = np.minimum(alpha[h - k:, w - k:], tile[::-1, ::-1])
    return alpha


def _blob(
    rng: np.random.Generator, cx: float, cy: float, rx: float, ry: float, n: int = 28
) -> NDArray[np.int32]:
    """A smooth random closed outline around ``(cx, cy)`` (an island), as fixed-point points."""
    ang = np.linspace(0, 2 * math.pi, n, endpoint=False)
    wobble = np.ones(n)
    for k in (2, 3, 5):
        wobble += rng.uniform(0.02, 0.09) * np.cos(k * ang + rng.uniform(0, 2 * math.pi))
    pts = np.stack([cx + rx * wobble * np.cos(ang), cy + ry * wobble * np.sin(ang)], axis=1)
    return np.round(pts * _ONE).astype(np.int32)


def _draw_x(img: NDArray[np.uint8], box: tuple[float, float, float, float], style: str,
            rng: np.random.Generator, px: float) -> None:
    x0, y0, x1, y1 = box
    s = x1 - x0
    m = s * (0.24 if style == "painted" else 0.28)
    red = jitter_bgr(rng, (35, 35, 200) if style == "painted" else (40, 30, 170), 15)
    if style == "painted":
        t = max(2, round(s * 0.13))
        for a, b in (((x0 + m, y0 + m), (x1 - m, y1 - m)), ((x1 - m, y0 + m), (x0 + m, y1 - m))):
            cv2.line(img, _pt(*a), _pt(*b), red, t, cv2.LINE_AA, _SHIFT)
    else:  # flat: a dark-outlined red X
        t = max(2, round(s * 0.1))
        for a, b in (((x0 + m, y0 + m), (x1 - m, y1 - m)), ((x1 - m, y0 + m), (x0 + m, y1 - m))):
            cv2.line(img, _pt(*a), _pt(*b), (30, 20, 60), t + max(2, round(px * 0.3)), cv2.LINE_AA, _SHIFT)
        for a, b in (((x0 + m, y0 + m), (x1 - m, y1 - m)), ((x1 - m, y0 + m), (x0 + m, y1 - m))):
            cv2.line(img, _pt(*a), _pt(*b), red, t, cv2.LINE_AA, _SHIFT)


def _draw_coin(img: NDArray[np.uint8], box: tuple[float, float, float, float], style: str,
               rng: np.random.Generator, px: float) -> None:
    x0, y0, x1, y1 = box
    s = x1 - x0
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    gold = jitter_bgr(rng, (40, 175, 220), 12)
    dark = (20, 100, 150)
    r = s * (0.3 if style == "painted" else 0.27)
    cv2.circle(img, _pt(cx, cy), round(r * _ONE), gold, -1, cv2.LINE_AA, _SHIFT)
    cv2.circle(img, _pt(cx, cy), round(r * _ONE), dark, max(1, round(px * 0.25)), cv2.LINE_AA, _SHIFT)
    if style == "painted":
        thin = max(1, round(px * 0.2))
        cv2.circle(img, _pt(cx, cy), round(r * 0.62 * _ONE), dark, thin, cv2.LINE_AA, _SHIFT)
        cv2.circle(img, _pt(cx - r * 0.35, cy - r * 0.35), round(r * 0.18 * _ONE), (170, 235, 250), -1,
                   cv2.LINE_AA, _SHIFT)
    else:  # a second coin behind, and a star-like mark
        cv2.ellipse(img, _pt(cx + r * 0.5, cy + r * 0.55), (round(r * 0.8 * _ONE), round(r * 0.35 * _ONE)), 0,
                    0, 180, dark, max(1, round(px * 0.2)), cv2.LINE_AA, _SHIFT)
        cv2.line(img, _pt(cx, cy - r * 0.5), _pt(cx, cy + r * 0.5), dark, max(1, round(px * 0.25)),
                 cv2.LINE_AA, _SHIFT)


def _draw_palm(img: NDArray[np.uint8], box: tuple[float, float, float, float], style: str,
               rng: np.random.Generator, px: float) -> None:
    x0, y0, x1, y1 = box
    s = x1 - x0
    cx = (x0 + x1) / 2
    trunk = (30, 70, 110)
    leaf = jitter_bgr(rng, (40, 140, 40) if style == "painted" else (70, 150, 60), 15)
    top = (cx + s * 0.05, y0 + s * 0.32)
    base = (cx - s * 0.05, y1 - s * 0.18)
    cv2.line(img, _pt(*base), _pt(*top), trunk, max(2, round(s * 0.08)), cv2.LINE_AA, _SHIFT)
    if style == "painted":
        for ang in (-160, -120, -60, -20, 200):
            a = math.radians(ang)
            end = (top[0] + math.cos(a) * s * 0.3, top[1] + math.sin(a) * s * 0.22)
            mid = ((top[0] + end[0]) / 2, (top[1] + end[1]) / 2)
            axes = (round(s * 0.16 * _ONE), round(s * 0.05 * _ONE))
            cv2.ellipse(img, _pt(*mid), axes, ang, 0, 360, leaf, -1, cv2.LINE_AA, _SHIFT)
    else:  # a stylised triangle crown
        tri = np.array([_pt(top[0] - s * 0.28, top[1] + s * 0.08), _pt(top[0] + s * 0.28, top[1] + s * 0.08),
                        _pt(top[0], top[1] - s * 0.22)], np.int32)
        cv2.fillPoly(img, [tri], leaf, cv2.LINE_AA, _SHIFT)
    cv2.ellipse(img, _pt(cx, y1 - s * 0.16), (round(s * 0.22 * _ONE), round(s * 0.05 * _ONE)), 0, 0, 360,
                (90, 170, 200), -1, cv2.LINE_AA, _SHIFT)


def _bar(a: tuple[float, float], b: tuple[float, float], half: float) -> NDArray[np.int32]:
    """The corners of a bar from ``a`` to ``b``, ``2 half`` wide with square ends, fixed point."""
    d = np.subtract(b, a, dtype=np.float64)
    d /= max(float(np.hypot(*d)), 1e-9)
    n = np.array([-d[1], d[0]]) * half
    pts = [np.add(a, n), np.add(b, n), np.subtract(b, n), np.subtract(a, n)]
    return np.array([_pt(float(x), float(y)) for x, y in pts], np.int32)


def _centre_and_side(box: tuple[float, float, float, float]) -> tuple[float, float, float]:
    """A cell's centre ``(x, y)`` and side, from its square ``(x0, y0, x1, y1)``."""
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2, box[2] - box[0]


def _stamp_x(img: NDArray[np.uint8], box: tuple[float, float, float, float], style: str,
             rng: np.random.Generator, px: float) -> None:
    """A stamped X: two square-ended bars of brick red, a light hairline down each."""
    x0, y0, x1, y1 = box
    s = x1 - x0
    m = s * 0.22
    red = jitter_bgr(rng, (50, 45, 150), 15)
    ends = (((x0 + m, y0 + m), (x1 - m, y1 - m)), ((x1 - m, y0 + m), (x0 + m, y1 - m)))
    for a, b in ends:
        cv2.fillPoly(img, [_bar(a, b, s * 0.08)], red, cv2.LINE_AA, _SHIFT)
    for a, b in ends:
        cv2.line(img, _pt(*a), _pt(*b), (150, 170, 215), 1, cv2.LINE_AA, _SHIFT)


def _stamp_coin(img: NDArray[np.uint8], box: tuple[float, float, float, float], style: str,
                rng: np.random.Generator, px: float) -> None:
    """A stamped coin: a gold ring round a gold dot, the fill showing between them."""
    cx, cy, s = _centre_and_side(box)
    gold = jitter_bgr(rng, (30, 160, 215), 12)
    r = s * 0.3
    cv2.circle(img, _pt(cx, cy), round(r * _ONE), gold, max(2, round(s * 0.1)), cv2.LINE_AA, _SHIFT)
    cv2.circle(img, _pt(cx, cy), round(r * 0.32 * _ONE), gold, -1, cv2.LINE_AA, _SHIFT)


def _stamp_palm(img: NDArray[np.uint8], box: tuple[float, float, float, float], style: str,
                rng: np.random.Generator, px: float) -> None:
    """A stamped palm: a bent trunk and four arched fronds drawn as thick strokes, no sand."""
    cx, _, s = _centre_and_side(box)
    y0, y1 = box[1], box[3]
    leaf = jitter_bgr(rng, (60, 125, 35), 15)
    trunk = np.array([_pt(cx - s * 0.1, y1 - s * 0.15), _pt(cx - s * 0.02, y0 + s * 0.55),
                      _pt(cx + s * 0.04, y0 + s * 0.33)], np.int32)
    cv2.polylines(img, [trunk], False, (35, 60, 90), max(2, round(s * 0.07)), cv2.LINE_AA, _SHIFT)
    top = (cx + s * 0.04, y0 + s * 0.33)
    axes = (round(s * 0.2 * _ONE), round(s * 0.12 * _ONE))
    for ang, a0, a1 in ((0, 180, 300), (0, 240, 360), (180, 0, 120), (180, 60, 180)):
        centre = (top[0] + (s * 0.18 if ang == 0 else -s * 0.18), top[1] + s * 0.1)
        cv2.ellipse(img, _pt(*centre), axes, ang, a0, a1, leaf, max(2, round(s * 0.06)), cv2.LINE_AA,
                    _SHIFT)


_ICONS = {"X": _draw_x, "C": _draw_coin, "P": _draw_palm}
_STAMPED_ICONS = {"X": _stamp_x, "C": _stamp_coin, "P": _stamp_palm}


def _draw_badge(img: NDArray[np.uint8], centre: tuple[float, float], size: float, badge: tuple[str, int],
                style: FaceStyle, style_name: str, font: int, rng: np.random.Generator) -> None:
    colour = card_colour_bgr(badge[0], style_name, rng)
    cx, cy = centre
    edge = (245, 245, 245) if style.badge_shape == "disc" else (40, 40, 40)
    if style.badge_shape == "disc":
        cv2.circle(img, _pt(cx, cy), round(size * _ONE), colour, -1, cv2.LINE_AA, _SHIFT)
        ring = max(2, round(size * 0.12))
        cv2.circle(img, _pt(cx, cy), round(size * _ONE), edge, ring, cv2.LINE_AA, _SHIFT)
    elif style.badge_shape == "diamond":
        pts = np.array([_pt(cx, cy - size * 1.1), _pt(cx + size * 1.1, cy), _pt(cx, cy + size * 1.1),
                        _pt(cx - size * 1.1, cy)], np.int32)
        cv2.fillPoly(img, [pts], colour, cv2.LINE_AA, _SHIFT)
        cv2.polylines(img, [pts], True, (245, 245, 245), max(2, round(size * 0.1)), cv2.LINE_AA, _SHIFT)
    else:
        pts = np.array([_pt(cx - size, cy - size * 0.9), _pt(cx + size, cy - size * 0.9),
                        _pt(cx + size, cy + size * 0.2), _pt(cx, cy + size * 1.1),
                        _pt(cx - size, cy + size * 0.2)], np.int32)
        cv2.fillPoly(img, [pts], colour, cv2.LINE_AA, _SHIFT)
        cv2.polylines(img, [pts], True, edge, max(2, round(size * 0.1)), cv2.LINE_AA, _SHIFT)
    _centred_text(img, f"+{badge[1]}", (cx, cy), size * 0.95, font, (250, 250, 250), bold=True)


def _centred_text(img: NDArray[np.uint8], text: str, centre: tuple[float, float], height: float, font: int,
                  colour: tuple[int, int, int], bold: bool = False) -> None:
    scale = height / 22.0  # Hershey glyphs are about 22 units high at scale 1
    thick = max(1, round(height * (0.16 if bold else 0.11)))
    (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
    org = (round(centre[0] - tw / 2), round(centre[1] + th / 2))
    cv2.putText(img, text, org, font, scale, colour, thick, cv2.LINE_AA)


def render_card_face(
    card: MapCard,
    rng: np.random.Generator,
    style: str | None = None,
    grid_rotation: int | None = None,
) -> CardFace:
    """Draw an unmarked face of ``card``.

    Parameters
    ----------
    card : MapCard
    rng : numpy.random.Generator
        Draws the shades, the island, the exact layout within the style and, when not given,
        the style and the grid rotation.
    style : {"classic", "modern", "stamped"}, optional
        Random among :data:`STYLES` when ``None``.
    grid_rotation : int, optional
        Quarter turns clockwise from the catalog grid to the printed grid.

    Returns
    -------
    CardFace
        The BGRA face (portrait, card aspect 63x88 mm) and the printed square of each catalog cell.
    """
    style_name = style if style is not None else STYLES[int(rng.integers(len(STYLES)))]
    st = face_style(style_name)
    rot = int(rng.integers(4)) if grid_rotation is None else int(grid_rotation) % 4
    geo = face_geometry()
    px = geo.px_per_mm
    w, h = round(geo.card_mm[0] * px), round(geo.card_mm[1] * px)
    font = _FONTS[st.fonts[int(rng.integers(len(st.fonts)))]]

    frame_colour = card_colour_bgr(card.colour, style_name, rng)
    img = np.empty((h, w, 3), np.uint8)
    img[:] = frame_colour
    frame = _u(rng, st.frame_mm) * px
    inner = (frame, frame, w - frame, h - frame)
    background = jitter_bgr(rng, st.background_bgr, 10)
    if st.background_tint > 0:
        tint = st.background_tint
        mixed = (1 - tint) * np.asarray(background) + tint * np.asarray(frame_colour)
        background = (round(mixed[0]), round(mixed[1]), round(mixed[2]))
    cv2.rectangle(img, _pt(inner[0], inner[1]), _pt(inner[2], inner[3]), background, -1, cv2.LINE_AA, _SHIFT)
    if style_name == "stamped":
        # engraved hatching across the whole face, a little darker than the ground
        step = _u(rng, (1.3, 1.8)) * px
        ink = tuple(int(v * 0.88) for v in background)
        y = inner[1] + step / 2
        while y < inner[3]:
            cv2.line(img, _pt(inner[0], y), _pt(inner[2], y), ink, 1, cv2.LINE_AA, _SHIFT)
            y += step
    elif style_name == "classic":
        # a few wave strokes in the sea
        for _ in range(int(rng.integers(4, 9))):
            x = rng.uniform(inner[0] + px * 3, inner[2] - px * 8)
            y = rng.uniform(inner[1] + px * 14, inner[3] - px * 3)
            cv2.ellipse(img, _pt(x, y), (round(px * 2.5 * _ONE), round(px * 0.8 * _ONE)), 0, 200, 340,
                        (200, 170, 110), max(1, round(px * 0.2)), cv2.LINE_AA, _SHIFT)
    else:
        # parchment blotches
        for _ in range(int(rng.integers(3, 7))):
            x = rng.uniform(inner[0], inner[2])
            y = rng.uniform(inner[1], inner[3])
            r = rng.uniform(4, 12) * px
            tone = jitter_bgr(rng, background, 14)
            cv2.circle(img, _pt(x, y), round(r * _ONE), tone, -1, cv2.LINE_AA, _SHIFT)
        small = cv2.resize(img, (w // 8, h // 8), interpolation=cv2.INTER_AREA)
        img[:] = cv2.resize(cv2.GaussianBlur(small, (0, 0), px * 0.2), (w, h), interpolation=cv2.INTER_LINEAR)

    grid = card.grid(rot)
    gr, gc = grid.shape
    cell = _u(rng, st.cell_mm) * px
    gcx = _u(rng, st.grid_centre_x) * w
    gcy = _u(rng, st.grid_centre_y) * h
    gx0, gy0 = gcx - gc * cell / 2, gcy - gr * cell / 2

    # the island under the grid
    island = jitter_bgr(rng, st.island_bgr, 12)
    pts = _blob(rng, gcx, gcy, gc * cell * 0.62 + px * 2, gr * cell * 0.62 + px * 2)
    cv2.fillPoly(img, [pts], island, cv2.LINE_AA, _SHIFT)
    cv2.polylines(img, [pts], True, st.shore_bgr, max(1, round(px * 0.5)), cv2.LINE_AA, _SHIFT)

    # the cells
    outline = jitter_bgr(rng, st.outline_bgr, 10)
    line = max(1, round(_u(rng, st.outline_mm) * px))
    cell_fill = jitter_bgr(rng, st.cell_bgr, 8)
    icon_style = st.icons
    printed: dict[Cell, tuple[float, float, float, float]] = {}
    lagoon = jitter_bgr(rng, st.lagoon_bgr, 12)
    inv = _printed_to_catalog(card.shape, rot)
    for r in range(gr):
        for c in range(gc):
            sym = str(grid[r, c])
            box = (gx0 + c * cell, gy0 + r * cell, gx0 + (c + 1) * cell, gy0 + (r + 1) * cell)
            if sym == ".":
                # water: a lagoon or a bay of the sea, sometimes just the island
                if rng.random() < 0.7:
                    inset = cell * rng.uniform(0.05, 0.2)
                    axes = (round((cell / 2 - inset) * _ONE), round((cell / 2 - inset) * _ONE))
                    centre = _pt((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
                    cv2.ellipse(img, centre, axes, 0, 0, 360, lagoon, -1, cv2.LINE_AA, _SHIFT)
                continue
            cv2.rectangle(img, _pt(box[0], box[1]), _pt(box[2], box[3]), cell_fill, -1, cv2.LINE_AA, _SHIFT)
            printed[inv(r, c)] = box
    for box in printed.values():
        cv2.rectangle(img, _pt(box[0], box[1]), _pt(box[2], box[3]), outline, line, cv2.LINE_AA, _SHIFT)
    for r in range(gr):
        for c in range(gc):
            sym = str(grid[r, c])
            if sym in _ICONS:
                draw = (_STAMPED_ICONS if icon_style == "stamped" else _ICONS)[sym]
                draw(img, printed[inv(r, c)], icon_style, rng, px)

    # the frame, painted last so that nothing spills over it
    f = round(frame)
    img[:f] = frame_colour
    img[h - f:] = frame_colour
    img[:, :f] = frame_colour
    img[:, w - f:] = frame_colour
    if style_name == "classic":
        d = px * 0.8
        cv2.rectangle(img, _pt(inner[0] - d, inner[1] - d), _pt(inner[2] + d, inner[3] + d),
                      (220, 230, 235), max(1, round(px * 0.25)), cv2.LINE_AA, _SHIFT)
    elif style_name == "stamped":
        # a dark rule along the frame's inside
        cv2.rectangle(img, _pt(*inner[:2]), _pt(*inner[2:]), (40, 35, 35), max(1, round(px * 0.35)),
                      cv2.LINE_AA, _SHIFT)

    # the points numeral top-left, the badge top-right
    num_h = _u(rng, st.numeral_height_mm) * px
    nc = (frame + num_h * 0.85, frame + num_h * 0.85)
    if st.numeral_disc_bgr:
        disc = tuple(int(v) for v in st.numeral_disc_bgr)
        cv2.circle(img, _pt(*nc), round(num_h * 0.85 * _ONE), disc, -1, cv2.LINE_AA, _SHIFT)
        ring = max(1, round(px * 0.5))
        cv2.circle(img, _pt(*nc), round(num_h * 0.85 * _ONE), frame_colour, ring, cv2.LINE_AA, _SHIFT)
    else:
        tab = _pt(frame + num_h * 1.8, frame + num_h * 1.6)
        cv2.rectangle(img, _pt(frame - 1, frame - 1), tab, frame_colour, -1, cv2.LINE_AA, _SHIFT)
    _centred_text(img, str(card.points), nc, num_h * 0.8, font, st.numeral_bgr, bold=True)
    if card.badge is not None:
        size = num_h * 0.7
        where = (w - frame - size * 1.3, frame + size * 1.3)
        _draw_badge(img, where, size, card.badge, st, style_name, font, rng)

    alpha = rounded_alpha(w, h, _u(rng, st.corner_radius_mm) * px)
    face = cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)
    face[:, :, 3] = alpha
    return CardFace(image=face, cells=printed, grid_rotation=rot, style=style_name, px_per_mm=px)


def _printed_to_catalog(shape: tuple[int, int], rotation: int) -> Callable[[int, int], Cell]:
    """A function mapping a printed cell ``(r, c)`` to its catalog cell, for a catalog grid of
    ``shape`` turned ``rotation`` quarter turns clockwise."""
    rows, cols = shape
    index = np.rot90(np.arange(rows * cols).reshape(rows, cols), -(rotation % 4))

    def inverse(r: int, c: int) -> Cell:
        q, m = divmod(int(index[r, c]), cols)
        return (q, m)

    return inverse
