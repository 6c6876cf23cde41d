"""Seeded Splendor Duel board scenes with exact truth.

The board face is drawn flat (:func:`render_board_face`) in one of several clearly different art
styles, then laid on a table with other game objects and photographed through
:mod:`vision.synth.camera` (:func:`render_board_scene`). Every random choice comes from the
caller's :class:`numpy.random.Generator`. The ``slate`` style (:data:`HELD_OUT_STYLES`) is drawn only
when asked for: no scene draws it at random, so the benchmark reads it as art the reader has never
seen.

Grids are 5 strings of 5 letters from ``WUGRKPY.``; row 0 is the top row of the board face.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.geometry import seen_start
from vision.synth import camera

KINDS = "WUGRKPY"
LETTERS = KINDS + "."
STYLES: tuple[str, ...] = ("night", "parchment", "wood")
"""The board styles scenes draw from at random."""
HELD_OUT_STYLES: tuple[str, ...] = ("slate",)
"""Board styles drawn only when asked for: art no reader threshold was set on."""
ALL_STYLES: tuple[str, ...] = STYLES + HELD_OUT_STYLES
# The game's 25 tokens: 4 of each gem colour, 2 pearls, 3 gold.
TOKEN_SUPPLY = "WWWWUUUUGGGGRRRRKKKKPPYYY"

# Base token colours, BGR 0..255 (each token is jittered around these).
_TOKEN_BGR: dict[str, tuple[int, int, int]] = {
    "W": (228, 230, 228),
    "U": (160, 84, 30),
    "G": (56, 140, 44),
    "R": (40, 40, 178),
    "K": (32, 32, 32),
    "P": (222, 200, 238),
    "Y": (40, 165, 215),
}
_SKIN_BGR = ((120, 150, 205), (95, 125, 180), (70, 95, 140), (140, 170, 225), (60, 80, 115))
_FACE_PX = 660


@dataclass(frozen=True)
class BoardStyle:
    """How one board is printed.

    ``background`` and ``accent`` are BGR; ``margin`` is the frame width as a fraction of the board
    side; ``token_frac`` is the token radius as a fraction of the spot pitch.
    """

    name: str
    background: tuple[int, int, int]
    accent: tuple[int, int, int]
    margin: float
    token_frac: float
    offset: tuple[float, float] = (0.0, 0.0)


@dataclass(frozen=True)
class BoardFace:
    """A rendered board face.

    ``image`` is ``(S, S, 3)`` BGR ``uint8``; ``spots`` is ``(5, 5, 2)`` float64 spot centres
    ``(x, y)`` in face pixels; ``token_radius`` is in face pixels.
    """

    image: NDArray[np.uint8]
    spots: NDArray[np.float64]
    token_radius: float
    style: BoardStyle
    layout: tuple[str, ...]


@dataclass(frozen=True)
class BoardScene:
    """A photographed board scene and its truth.

    ``layout`` is the grid in the board face's own frame; ``cells`` is the same grid in the frame
    a reader reports it in (corner 0 is the board corner nearest the image's top-left direction,
    then clockwise), with ``?`` for occluded spots. ``corners`` are those four board corners in
    image pixels. ``occluded`` spots are covered by the hand (a reader must not guess them);
    ``partly_occluded`` spots are touched by it (either answer is accepted). Cells are in the
    ``cells`` frame.
    """

    image: NDArray[np.uint8]
    layout: tuple[str, ...]
    cells: tuple[str, ...]
    corners: tuple[tuple[float, float], ...]
    occluded: tuple[tuple[int, int], ...]
    partly_occluded: tuple[tuple[int, int], ...]
    style: str
    conditions: camera.Conditions
    rotation: int
    spots_px: NDArray[np.float64] = field(repr=False)


def random_layout(rng: np.random.Generator, empty: int | None = None) -> tuple[str, ...]:
    """A random board: the 25 game tokens shuffled, ``empty`` of them removed (random when None)."""
    n_empty = int(rng.integers(0, 11)) if empty is None else int(empty)
    cells = list(TOKEN_SUPPLY)
    rng.shuffle(cells)
    for i in rng.choice(25, size=n_empty, replace=False):
        cells[int(i)] = "."
    return tuple("".join(cells[r * 5:(r + 1) * 5]) for r in range(5))


def _check_layout(layout: Sequence[str]) -> tuple[str, ...]:
    rows = tuple(str(r) for r in layout)
    if len(rows) != 5 or any(len(r) != 5 or set(r) - set(LETTERS) for r in rows):
        raise ValueError(f"layout must be 5 strings of 5 letters from {LETTERS!r}, got {rows!r}")
    return rows


def sample_style(rng: np.random.Generator, name: str | None = None) -> BoardStyle:
    """A random board style; ``name`` picks one of :data:`ALL_STYLES` (random among :data:`STYLES`
    when ``None``)."""
    name = name or STYLES[int(rng.integers(len(STYLES)))]
    margin = float(rng.uniform(0.06, 0.17))
    token_frac = float(rng.uniform(0.36, 0.44))
    offset = (float(rng.uniform(-0.01, 0.01)), float(rng.uniform(-0.01, 0.01)))
    if name == "night":
        hue = int(rng.integers(90, 140))
        bg = _hsv(hue, int(rng.integers(120, 220)), int(rng.integers(45, 85)))
        accent = _hsv(int(rng.integers(18, 28)), int(rng.integers(120, 190)), int(rng.integers(170, 225)))
    elif name == "parchment":
        bg = _hsv(int(rng.integers(14, 30)), int(rng.integers(30, 80)), int(rng.integers(200, 240)))
        accent = _hsv(int(rng.integers(5, 20)), int(rng.integers(120, 200)), int(rng.integers(70, 120)))
    elif name == "wood":
        bg = _hsv(int(rng.integers(8, 20)), int(rng.integers(120, 190)), int(rng.integers(110, 170)))
        accent = _hsv(int(rng.integers(8, 20)), int(rng.integers(150, 220)), int(rng.integers(50, 90)))
    elif name == "slate":
        # held out: a grey-green slate with silver hexagons printed round the spots
        bg = _hsv(int(rng.integers(70, 110)), int(rng.integers(15, 45)), int(rng.integers(70, 105)))
        accent = _hsv(int(rng.integers(0, 180)), int(rng.integers(0, 25)), int(rng.integers(175, 215)))
    else:
        raise ValueError(f"unknown board style {name!r}; expected one of {', '.join(ALL_STYLES)}")
    return BoardStyle(name, bg, accent, margin, token_frac, offset)


def _hsv(h: int, s: int, v: int) -> tuple[int, int, int]:
    px = cv2.cvtColor(np.array([[[h, s, v]]], dtype=np.uint8), cv2.COLOR_HSV2BGR)[0, 0]
    return (int(px[0]), int(px[1]), int(px[2]))


def _shade(c: Sequence[float], f: float) -> tuple[int, int, int]:
    return tuple(int(np.clip(v * f, 0, 255)) for v in c)  # type: ignore[return-value]


def _spot_centres(style: BoardStyle, size: int) -> tuple[NDArray[np.float64], float]:
    m = style.margin * size
    pitch = (size - 2 * m) / 5.0
    idx = (np.arange(5) + 0.5) * pitch + m
    xs = idx + style.offset[0] * size
    ys = idx + style.offset[1] * size
    spots = np.stack(np.meshgrid(xs, ys), axis=-1)  # (5, 5, 2): [row, col] -> (x, y)
    return spots.astype(np.float64), pitch


def _background(style: BoardStyle, size: int, rng: np.random.Generator) -> NDArray[np.uint8]:
    img = np.empty((size, size, 3), np.float32)
    img[:] = style.background
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32) / size
    if style.name == "wood":
        freq = rng.uniform(25, 45)
        grain = np.sin((yy * freq + 0.6 * np.sin(xx * rng.uniform(3, 7) + rng.uniform(0, 6))) * math.pi)
        img *= (1.0 + 0.09 * grain)[..., None]
    elif style.name == "slate":
        # cleavage streaks along the board and a fine grain
        streak = cv2.resize(rng.normal(0, 1, (size // 6, 5)).astype(np.float32), (size, size),
                            interpolation=cv2.INTER_CUBIC)
        grain = cv2.GaussianBlur(rng.normal(0, 1, (size, size)).astype(np.float32), (0, 0), 1.0)
        img *= (1.0 + 0.07 * streak / (np.abs(streak).max() + 1e-6)
                + 0.04 * grain / (np.abs(grain).max() + 1e-6))[..., None]
    elif style.name == "parchment":
        blot = cv2.GaussianBlur(rng.normal(0, 1, (size // 16, size // 16)).astype(np.float32), (0, 0), 1.5)
        blot = cv2.resize(blot, (size, size), interpolation=cv2.INTER_CUBIC)
        img *= (1.0 + 0.05 * blot / (np.abs(blot).max() + 1e-6))[..., None]
    else:
        for _ in range(int(rng.integers(40, 90))):
            x, y = rng.uniform(0, size, 2)
            cv2.circle(img, (int(x), int(y)), int(rng.integers(1, 3)), _shade(style.accent, 0.8), -1,
                       cv2.LINE_AA)
    return np.clip(img, 0, 255).astype(np.uint8)


def _draw_frame(img: NDArray[np.uint8], style: BoardStyle, spots: NDArray[np.float64], pitch: float,
                rng: np.random.Generator) -> None:
    size = img.shape[0]
    m = int(style.margin * size)
    t = max(2, int(size * 0.012))
    cv2.rectangle(img, (t // 2, t // 2), (size - t // 2, size - t // 2), style.accent, t, cv2.LINE_AA)
    inner = int(m * rng.uniform(0.35, 0.8))
    cv2.rectangle(img, (inner, inner), (size - inner, size - inner), style.accent, max(1, t // 3),
                  cv2.LINE_AA)
    if style.name == "parchment":
        # printed grid lines between the spots
        lo = spots[0, 0] - pitch / 2
        line = _shade(style.accent, 1.3)
        x0, y0 = int(lo[0]), int(lo[1])
        x1, y1 = int(lo[0] + 5 * pitch), int(lo[1] + 5 * pitch)
        for i in range(6):
            cv2.line(img, (int(lo[0] + i * pitch), y0), (int(lo[0] + i * pitch), y1), line, 1, cv2.LINE_AA)
            cv2.line(img, (x0, int(lo[1] + i * pitch)), (x1, int(lo[1] + i * pitch)), line, 1, cv2.LINE_AA)
    if style.name == "slate":
        # a hexagon printed round each spot
        for c in spots.reshape(-1, 2):
            cv2.polylines(img, [_gem_polygon(c, pitch * 0.5, 6, math.pi / 6)], True, style.accent,
                          max(1, t // 2), cv2.LINE_AA, 4)
    if style.name == "night":
        # the three privilege-scroll slots printed in the frame
        for k in range(3):
            cx = int(size * (0.35 + 0.15 * k))
            cv2.ellipse(img, (cx, max(m // 2, t * 2)), (int(m * 0.35) + 2, int(m * 0.2) + 1), 0, 0, 360,
                        style.accent, 1, cv2.LINE_AA)


def _draw_empty(img: NDArray[np.uint8], c: NDArray[np.float64], r: float, style: BoardStyle) -> None:
    centre = (round(c[0] * 16), round(c[1] * 16))
    rr = round(r * 16)
    if style.name == "night":
        cv2.circle(img, centre, rr, _shade(style.background, 0.8), -1, cv2.LINE_AA, 4)
        cv2.circle(img, centre, rr, style.accent, max(1, int(r * 0.06)), cv2.LINE_AA, 4)
    elif style.name == "parchment":
        cv2.circle(img, centre, rr, _shade(style.background, 0.95), -1, cv2.LINE_AA, 4)
        cv2.circle(img, centre, rr, style.accent, max(1, int(r * 0.05)), cv2.LINE_AA, 4)
    elif style.name == "slate":
        # a recess lit from the top left: its lower right rim catches the light
        cv2.circle(img, centre, rr, _shade(style.background, 0.7), -1, cv2.LINE_AA, 4)
        cv2.ellipse(img, centre, (rr, rr), 0, 10, 120, _shade(style.accent, 0.9), max(2, int(r * 0.08)),
                    cv2.LINE_AA, 4)
    else:
        cv2.circle(img, centre, rr, _shade(style.background, 0.78), -1, cv2.LINE_AA, 4)
        cv2.ellipse(img, centre, (rr, rr), 0, 200, 340, _shade(style.background, 0.55), max(2, int(r * 0.1)),
                    cv2.LINE_AA, 4)


def _gem_polygon(c: NDArray[np.float64], r: float, sides: int, rot: float) -> NDArray[np.int32]:
    a = rot + np.arange(sides) * 2 * math.pi / sides
    pts = np.stack([c[0] + r * np.cos(a), c[1] + r * np.sin(a)], axis=1)
    return np.round(pts * 16).astype(np.int32)


def draw_token(img: NDArray[np.uint8], centre: NDArray[np.float64], r: float, kind: str,
               rng: np.random.Generator) -> None:
    """Draw one token disc (rim, emblem, gloss) of ``kind`` into the BGR face ``img`` in place."""
    if kind not in _TOKEN_BGR:
        raise ValueError(f"unknown token kind {kind!r}")
    base = np.array(_TOKEN_BGR[kind], np.float64) * rng.uniform(0.93, 1.05) + rng.normal(0, 4, 3)
    base = np.clip(base, 0, 255)
    x0, y0 = int(centre[0] - r - 4), int(centre[1] - r - 4)
    n = int(2 * r + 9)
    patch = img[y0:y0 + n, x0:x0 + n].astype(np.float32)
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
    cx, cy = centre[0] - x0, centre[1] - y0
    dx, dy = xx - cx, yy - cy
    dist = np.sqrt(dx * dx + dy * dy)
    # contact shadow of the raised disc
    shadow = np.clip(1.0 - (dist - r) / 4.0, 0, 1) * (dist > r) * 0.35
    patch *= (1.0 - shadow)[..., None]
    # face colour: metallic gold and pearly sheen vary across the face
    col = np.empty((n, n, 3), np.float32)
    col[:] = base
    ang = rng.uniform(0, 2 * math.pi)
    lin = (dx * math.cos(ang) + dy * math.sin(ang)) / r
    if kind == "Y":
        col *= (1.0 + 0.22 * np.sin(lin * 2.6))[..., None]
    elif kind == "P":
        iri = np.stack([np.sin(lin * 2.0), np.sin(lin * 2.0 + 2.1), np.sin(lin * 2.0 + 4.2)], axis=-1)
        col += 6.0 * iri
    else:
        col *= (1.0 + 0.05 * lin)[..., None]
    # emblem: a faceted gem in a shade of the token colour
    emb = np.zeros((n, n), np.uint8)
    sides = {"W": 6, "U": 4, "G": 8, "R": 5, "K": 6, "P": 40, "Y": 3}[kind]
    poly = _gem_polygon(np.array([cx, cy]), r * rng.uniform(0.35, 0.5), sides, rng.uniform(0, math.pi))
    cv2.fillPoly(emb, [poly], 255, cv2.LINE_AA, 4)
    e = (emb.astype(np.float32) / 255.0)[..., None]
    emb_factor = {"W": 0.82, "K": 2.2, "Y": 1.18, "P": 1.05}.get(kind, rng.choice([0.7, 1.3]))
    half = (dx > 0).astype(np.float32)[..., None]
    col = col * (1 - e) + col * e * (emb_factor * (0.93 + 0.14 * half))
    if kind == "K":
        col = np.minimum(col, 120)
    # rim: a darker bevel ring with a light edge line
    rim_w = r * rng.uniform(0.1, 0.16)
    rim = ((dist > r - rim_w) & (dist <= r)).astype(np.float32)[..., None]
    rim_f = 0.75 if kind not in ("K",) else 1.8
    col = col * (1 - rim) + col * rim * rim_f
    # gloss highlight
    ga = rng.uniform(0, 2 * math.pi)
    gx, gy = cx + 0.45 * r * math.cos(ga), cy + 0.45 * r * math.sin(ga)
    g = np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * (0.22 * r) ** 2)) * rng.uniform(0.15, 0.45)
    col = col + (255.0 - col) * g[..., None]
    alpha = np.clip(r + 0.5 - dist, 0, 1)[..., None]
    out = patch * (1 - alpha) + np.clip(col, 0, 255) * alpha
    img[y0:y0 + n, x0:x0 + n] = np.clip(out, 0, 255).astype(np.uint8)


def render_board_face(layout: Sequence[str], style: BoardStyle | str | None,
                      rng: np.random.Generator) -> BoardFace:
    """Draw a board face with the tokens of ``layout``.

    Parameters
    ----------
    layout : 5 strings of 5 letters from ``WUGRKPY.``
    style : BoardStyle, style name, or None for a random style
    rng : numpy.random.Generator

    Returns
    -------
    BoardFace
        ``image`` is ``(660, 660, 3)`` BGR ``uint8``.
    """
    rows = _check_layout(layout)
    st = style if isinstance(style, BoardStyle) else sample_style(rng, style)
    size = _FACE_PX
    img = _background(st, size, rng)
    spots, pitch = _spot_centres(st, size)
    _draw_frame(img, st, spots, pitch, rng)
    radius = st.token_frac * pitch
    for r in range(5):
        for c in range(5):
            _draw_empty(img, spots[r, c], radius * 1.02, st)
    for r in range(5):
        for c in range(5):
            kind = rows[r][c]
            if kind != ".":
                jitter = rng.normal(0, 0.03 * radius, 2)
                draw_token(img, spots[r, c] + jitter, radius, kind, rng)
    return BoardFace(img, spots, radius, st, rows)


def _card_face(rng: np.random.Generator) -> NDArray[np.uint8]:
    h, w = 176, 126
    colour = _TOKEN_BGR[KINDS[int(rng.integers(7))]]
    img = np.empty((h, w, 3), np.uint8)
    img[:] = _shade(colour, rng.uniform(0.7, 1.0))
    cv2.rectangle(img, (6, 6), (w - 7, h - 7), (235, 235, 235), 3)
    cv2.rectangle(img, (12, 40), (w - 13, h - 45), _shade(colour, 1.3), -1)
    for k in range(int(rng.integers(1, 4))):
        cv2.circle(img, (20 + 24 * k, h - 24), 9, _TOKEN_BGR[KINDS[int(rng.integers(7))]], -1, cv2.LINE_AA)
    return img


def _scroll_face(rng: np.random.Generator) -> NDArray[np.uint8]:
    h, w = 60, 100
    img = np.empty((h, w, 4), np.uint8)
    img[:] = (*_hsv(int(rng.integers(15, 28)), 70, 215), 0)
    alpha = np.zeros((h, w), np.uint8)
    cv2.rectangle(alpha, (10, 8), (w - 11, h - 9), 255, -1)
    cv2.ellipse(alpha, (10, h // 2), (9, h // 2 - 2), 0, 0, 360, 255, -1, cv2.LINE_AA)
    cv2.ellipse(alpha, (w - 11, h // 2), (9, h // 2 - 2), 0, 0, 360, 255, -1, cv2.LINE_AA)
    img[..., 3] = alpha
    cv2.line(img, (24, h // 2), (w - 25, h // 2), (60, 60, 120, 255), 2)
    return img


def _bag_face(rng: np.random.Generator) -> NDArray[np.uint8]:
    h, w = 200, 170
    img = np.zeros((h, w, 4), np.uint8)
    img[..., :3] = _hsv(int(rng.integers(0, 180)), int(rng.integers(60, 200)), int(rng.integers(40, 110)))
    alpha = np.zeros((h, w), np.uint8)
    cv2.ellipse(alpha, (w // 2, h // 2 + 20), (w // 2 - 6, h // 2 - 28), 0, 0, 360, 255, -1, cv2.LINE_AA)
    cv2.ellipse(alpha, (w // 2, 28), (w // 5, 24), 0, 0, 360, 255, -1, cv2.LINE_AA)
    img[..., 3] = alpha
    fold = rng.normal(0, 1, (h // 10, w // 10)).astype(np.float32)
    fold = cv2.resize(cv2.GaussianBlur(fold, (0, 0), 1.0), (w, h))
    img[..., :3] = np.clip(img[..., :3] * (1 + 0.15 * fold)[..., None], 0, 255).astype(np.uint8)
    return img


def hand_face(rng: np.random.Generator) -> NDArray[np.uint8]:
    """A BGRA hand and forearm pointing up (fingertips at the top, the arm leaves at the bottom).

    Returns
    -------
    (600, 300, 4) uint8 array; 2 px per millimetre.
    """
    h, w = 600, 300
    img = np.zeros((h, w, 4), np.uint8)
    skin = np.array(_SKIN_BGR[int(rng.integers(len(_SKIN_BGR)))], np.float64) * rng.uniform(0.9, 1.1)
    alpha = np.zeros((h, w), np.uint8)
    palm = (w // 2, 200)
    cv2.ellipse(alpha, palm, (78, 95), 0, 0, 360, 255, -1, cv2.LINE_AA)
    # curved forearm
    pts_l = [(palm[0] - 70 + int(8 * math.sin(t / 60)), 220 + t) for t in range(0, 381, 20)]
    pts_r = [(palm[0] + 66 + int(10 * math.sin(t / 50 + 1)), 220 + t) for t in range(380, -1, -20)]
    cv2.fillPoly(alpha, [np.array(pts_l + pts_r, np.int32)], 255, cv2.LINE_AA)
    spread = rng.uniform(0.0, 0.25)
    for k, (length, off) in enumerate(((105, -60), (125, -22), (130, 14), (115, 48))):
        ang = -math.pi / 2 + (k - 1.5) * spread
        base = (palm[0] + off, 140)
        tip = (int(base[0] + length * math.cos(ang)), int(base[1] + length * math.sin(ang)))
        cv2.line(alpha, base, tip, 255, 30, cv2.LINE_AA)
    cv2.line(alpha, (palm[0] - 70, 230), (palm[0] - 135, 150), 255, 34, cv2.LINE_AA)  # thumb
    shade = cv2.GaussianBlur(alpha.astype(np.float32) / 255.0, (0, 0), 12)
    img[..., :3] = np.clip(skin * (0.72 + 0.35 * shade)[..., None], 0, 255).astype(np.uint8)
    img[..., 3] = alpha
    return img


def _rot_rect(cx: float, cy: float, w: float, h: float, deg: float) -> tuple[tuple[float, float], ...]:
    a = math.radians(deg)
    ca, sa = math.cos(a), math.sin(a)
    pts = ((-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2))
    return tuple((cx + x * ca - y * sa, cy + x * sa + y * ca) for x, y in pts)


def _coverage(alpha: NDArray[np.uint8], h_mm_to_px: NDArray[np.float64], centre_mm: NDArray[np.float64],
              r_mm: float) -> float:
    ang = np.linspace(0, 2 * math.pi, 24, endpoint=False)
    pts = [centre_mm]
    for rf in (0.5, 0.9):
        pts.extend(centre_mm + rf * r_mm * np.stack([np.cos(ang), np.sin(ang)], axis=1))
    mm = np.vstack(pts).reshape(-1, 1, 2)
    px = cv2.perspectiveTransform(mm, h_mm_to_px).reshape(-1, 2)
    h, w = alpha.shape
    xi = np.clip(np.round(px[:, 0]).astype(int), 0, w - 1)
    yi = np.clip(np.round(px[:, 1]).astype(int), 0, h - 1)
    inside = (px[:, 0] >= 0) & (px[:, 0] < w) & (px[:, 1] >= 0) & (px[:, 1] < h)
    return float(np.mean((alpha[yi, xi] > 40) & inside))


def render_board_scene(
    rng: np.random.Generator,
    tier: str,
    size: tuple[int, int] = (1920, 1080),
    layout: Sequence[str] | None = None,
    style: BoardStyle | str | None = None,
    conditions: camera.Conditions | None = None,
    hand: bool | None = None,
) -> BoardScene:
    """Photograph a board with tokens on a table with other objects.

    Parameters
    ----------
    rng : numpy.random.Generator
    tier : {"easy", "typical", "hard"}
        Camera and light difficulty (see :func:`vision.synth.camera.sample_conditions`).
    size : (width, height) of the photo
    layout : the board's 5x5 letters; random when None
    style : BoardStyle, style name, or None for random
    conditions : camera.Conditions, optional
        Overrides the sampled conditions (``size`` is then taken from them).
    hand : bool, optional
        Whether a hand reaches over the board; random (more often on harder tiers) when None.

    Returns
    -------
    BoardScene
        ``image`` is ``(H, W, 3)`` BGR ``uint8``.
    """
    rows = _check_layout(layout) if layout is not None else random_layout(rng)
    cond = conditions or camera.sample_conditions(rng, tier, size)
    # the style and the board's pose are drawn before anything that depends on the layout, so
    # two scenes from equal seeds differ only in their tokens (two photos of one game)
    st = style if isinstance(style, BoardStyle) else sample_style(rng, style)
    table_w, table_h = cond.table_mm
    board_mm = float(rng.uniform(195, 235))
    # keep the board's apparent rotation away from 45 degrees so "top-left" is well defined
    while True:
        rot = float(rng.uniform(-28, 28)) + 90.0 * int(rng.integers(4))
        seen = (rot + cond.yaw_deg) % 90.0
        if abs(seen - 45.0) > 14.0:
            break
    cx = table_w / 2 + float(rng.uniform(-0.08, 0.08)) * table_w
    cy = table_h / 2 + float(rng.uniform(-0.08, 0.08)) * table_h
    board_corners = _rot_rect(cx, cy, board_mm, board_mm, rot)
    face = render_board_face(rows, st, rng)
    placements: list[camera.Placement] = []
    # other objects around the board
    spots_around = [(-1, 0), (1, 0), (0, -1), (0, 1), (-1, -1), (1, 1), (-1, 1), (1, -1)]
    order = rng.permutation(len(spots_around))
    makers = ("bag", "card", "card", "scroll", "scroll", "card")
    for k, kind in enumerate(makers[: int(rng.integers(2, len(makers) + 1))]):
        sx, sy = spots_around[int(order[k % len(order)])]
        dist = board_mm * 0.68 + float(rng.uniform(70, 110))
        ox, oy = cx + sx * dist, cy + sy * dist
        ang = float(rng.uniform(0, 360))
        if kind == "bag":
            placements.append(camera.Placement(_bag_face(rng), _rot_rect(ox, oy, 85, 100, ang), glossy=False))
        elif kind == "card":
            placements.append(camera.Placement(_card_face(rng), _rot_rect(ox, oy, 63, 88, ang)))
        else:
            placements.append(camera.Placement(_scroll_face(rng), _rot_rect(ox, oy, 50, 30, ang)))
    board_index = len(placements)
    placements.append(camera.Placement(face.image, board_corners, glossy=True))
    use_hand = bool(rng.random() < {"easy": 0.0, "typical": 0.25, "hard": 0.4}.get(tier, 0.3)) \
        if hand is None else bool(hand)
    hand_geom: tuple[NDArray[np.uint8], NDArray[np.float64]] | None = None
    if use_hand:
        hf = hand_face(rng)
        side = float(rng.uniform(0, 360))
        reach = float(rng.uniform(0.1, 0.42)) * board_mm
        a = math.radians(side)
        # fingertips reach from outside the board towards its centre
        tip = np.array([cx + math.cos(a) * reach, cy + math.sin(a) * reach])
        hand_len, hand_w = 300.0, 150.0
        centre = tip + np.array([math.cos(a), math.sin(a)]) * hand_len / 2
        hand_rot = side - 90.0
        hc = _rot_rect(float(centre[0]), float(centre[1]), hand_w, hand_len, hand_rot)
        placements.append(camera.Placement(hf, hc, glossy=False))
        src = np.array(hc, np.float32)
        dst = np.array([[0, 0], [hf.shape[1], 0], [hf.shape[1], hf.shape[0]], [0, hf.shape[0]]], np.float32)
        hand_geom = (hf[..., 3].copy(), cv2.getPerspectiveTransform(src, dst).astype(np.float64))
    table = camera.table_texture(rng, cond.size)
    photo = camera.photograph(placements, cond, rng, table=table)
    quad = np.array(photo.quads[board_index], np.float64)
    start = seen_start(quad)
    seen = np.rot90(np.array([list(r) for r in rows]), k=start)
    # board face px -> table mm, for the spot centres
    s = float(face.image.shape[0])
    face_to_mm = cv2.getPerspectiveTransform(
        np.array([[0, 0], [s, 0], [s, s], [0, s]], np.float32), np.array(board_corners, np.float32))
    spots_mm = cv2.perspectiveTransform(face.spots.reshape(-1, 1, 2), face_to_mm).reshape(5, 5, 2)
    r_mm = face.token_radius * board_mm / s
    occluded: list[tuple[int, int]] = []
    partly: list[tuple[int, int]] = []
    if hand_geom is not None:
        for r in range(5):
            for c in range(5):
                cov = _coverage(hand_geom[0], hand_geom[1], spots_mm[r, c], r_mm)
                if cov >= 0.3:
                    occluded.append((r, c))
                elif cov > 0.0:
                    partly.append((r, c))
    # map occluded cells into the seen frame
    idx = np.rot90(np.arange(25).reshape(5, 5), k=start)
    where = {int(idx[r, c]): (r, c) for r in range(5) for c in range(5)}
    occ_seen = tuple(sorted(where[r * 5 + c] for r, c in occluded))
    part_seen = tuple(sorted(where[r * 5 + c] for r, c in partly))
    for r, c in occ_seen:
        seen[r, c] = "?"
    spots_px = camera.project(photo.homography, spots_mm.reshape(-1, 2)).reshape(5, 5, 2)
    spots_px = np.rot90(spots_px, k=start).copy()
    return BoardScene(
        image=photo.image,
        layout=rows,
        cells=tuple("".join(r) for r in seen),
        corners=tuple((float(x), float(y)) for x, y in np.roll(quad, -start, axis=0)),
        occluded=occ_seen,
        partly_occluded=part_seen,
        style=face.style.name,
        conditions=cond,
        rotation=start,
        spots_px=spots_px,
    )
