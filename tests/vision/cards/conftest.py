"""A deliberately plain card look for the reader's stage tests, unlike the scene renderer's.

Every image is drawn inside the test run from a seeded generator.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from vision.cards.catalog import CatalogCard
from vision.cards.grid import Grid
from vision.cards.identify import Observation
from vision.cards.marks import CellInk, default_config

PX_PER_MM = 5.0
CARD_MM = (63.0, 88.0)
FRAME_BGR = {"purple": (140, 50, 120), "orange": (40, 130, 235), "green": (70, 150, 60),
             "grey": (150, 150, 150)}


@dataclass(frozen=True)
class Face:
    """A drawn face: ``image`` ``(440, 315, 3)`` uint8 BGR, the grid as printed on it and the marked
    cells."""

    image: NDArray[np.uint8]
    printed: NDArray[np.str_]          # the grid as printed (catalog turned by rotation)
    marked: frozenset[tuple[int, int]]  # cells marked, printed frame


def _pen(img: NDArray[np.uint8], x0: float, y0: float, s: float, colour: tuple[int, int, int],
         kind: str) -> None:
    """Draw a pen mark of ``kind`` (``cross``, ``slash`` or else hatching) over the cell of side ``s``
    px at ``(x0, y0)`` on ``img`` in place."""
    t = max(2, int(s * 0.09))
    o = s * 0.05
    if kind == "cross":
        pts = [((x0 - o, y0 - o), (x0 + s + o, y0 + s + o)), ((x0 + s + o, y0 - o), (x0 - o, y0 + s + o))]
    elif kind == "slash":
        pts = [((x0 + s * 0.1, y0 + s + o), (x0 + s + o, y0 + s * 0.1))]
    else:
        pts = [((x0 + s * 0.15, y0 + s * (0.2 + 0.2 * k)), (x0 + s * 0.85, y0 + s * (0.3 + 0.2 * k)))
               for k in range(4)]
    for (ax, ay), (bx, by) in pts:
        cv2.line(img, (int(ax), int(ay)), (int(bx), int(by)), colour, t, cv2.LINE_AA)


def draw_face(card: CatalogCard, rotation: int, marked: frozenset[tuple[int, int]],
              rng: np.random.Generator, grid_mm: float = 44.0, top_mm: float = 30.0) -> Face:
    """A top-down face: coloured frame, sand island, cream cells with dark outlines, printed
    symbols, the points numeral top-left and the badge top-right."""
    w, h = round(CARD_MM[0] * PX_PER_MM), round(CARD_MM[1] * PX_PER_MM)
    img = np.zeros((h, w, 3), np.uint8)
    img[:] = FRAME_BGR[card.colour]
    m = round(4 * PX_PER_MM)
    img[m:h - m, m:w - m] = (200, 170, 120)  # sea
    cv2.ellipse(img, (w // 2, round(h * 0.62)), (round(w * 0.42), round(h * 0.3)), 0, 0, 360,
                (120, 190, 215), -1)
    printed = card.grid(rotation)
    rows, cols = printed.shape
    s = grid_mm * PX_PER_MM / 4
    gx = (w - cols * s) / 2
    gy = top_mm * PX_PER_MM
    for r in range(rows):
        for c in range(cols):
            sym = printed[r, c]
            if sym == ".":
                continue
            x0, y0 = gx + c * s, gy + r * s
            cv2.rectangle(img, (int(x0), int(y0)), (int(x0 + s), int(y0 + s)), (225, 240, 245), -1)
            cx, cy = int(x0 + s / 2), int(y0 + s / 2)
            if sym == "X":
                d = int(s * 0.28)
                for a, b in (((cx - d, cy - d), (cx + d, cy + d)), ((cx + d, cy - d), (cx - d, cy + d))):
                    cv2.line(img, a, b, (30, 30, 200), max(2, int(s * 0.1)), cv2.LINE_AA)
            elif sym == "C":
                cv2.circle(img, (cx, cy), int(s * 0.25), (30, 180, 230), -1, cv2.LINE_AA)
                cv2.circle(img, (cx, cy), int(s * 0.25), (20, 110, 160), 2, cv2.LINE_AA)
            elif sym == "P":
                cv2.line(img, (cx, cy + int(s * 0.3)), (cx, cy - int(s * 0.05)), (40, 80, 120), 3)
                cv2.ellipse(img, (cx, cy - int(s * 0.12)), (int(s * 0.28), int(s * 0.12)), 0, 0, 360,
                            (60, 150, 40), -1)
    for r in range(rows):
        for c in range(cols):
            if printed[r, c] != ".":
                x0, y0 = gx + c * s, gy + r * s
                cv2.rectangle(img, (int(x0), int(y0)), (int(x0 + s), int(y0 + s)), (40, 40, 50), 3)
    for r, c in sorted(marked):
        colour = [(20, 20, 20), (160, 60, 20), (20, 20, 180), (40, 120, 30)][int(rng.integers(4))]
        kind = ["cross", "slash", "hatch"][int(rng.integers(3))]
        _pen(img, gx + c * s, gy + r * s, s, colour, kind)
    cv2.putText(img, str(card.points), (round(1.5 * PX_PER_MM), round(11 * PX_PER_MM)),
                cv2.FONT_HERSHEY_DUPLEX, 1.6, (250, 250, 250), 4, cv2.LINE_AA)
    if card.badge is not None:
        cv2.circle(img, (w - round(8 * PX_PER_MM), round(8 * PX_PER_MM)), round(6 * PX_PER_MM),
                   FRAME_BGR[card.badge[0]], -1, cv2.LINE_AA)
        cv2.circle(img, (w - round(8 * PX_PER_MM), round(8 * PX_PER_MM)), round(6 * PX_PER_MM),
                   (250, 250, 250), 3, cv2.LINE_AA)
    return Face(img, printed, marked)


@pytest.fixture
def face_maker() -> Callable[..., Face]:
    """:func:`draw_face`, for tests that draw their own faces."""
    return draw_face


def place(canvas: NDArray[np.uint8], face: NDArray[np.uint8], centre: tuple[float, float], angle_deg: float,
          scale: float) -> NDArray[np.float64]:
    """Paste ``face`` onto ``canvas`` turned ``angle_deg`` and scaled; returns the TL, TR, BR, BL
    corners of the face in canvas pixels."""
    h, w = face.shape[:2]
    src = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float64)
    a = np.radians(angle_deg)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    dst = ((src - [(w - 1) / 2, (h - 1) / 2]) * scale) @ rot.T + centre
    place_quad(canvas, face, dst)
    return dst


def place_quad(canvas: NDArray[np.uint8], face: NDArray[np.uint8], quad: NDArray[np.float64]) -> None:
    """Paste ``face`` onto ``canvas`` in place, its TL, TR, BR, BL corners at ``quad`` ``(4, 2)``."""
    h, w = face.shape[:2]
    src = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)
    m = cv2.getPerspectiveTransform(src, quad.astype(np.float32))
    size = (canvas.shape[1], canvas.shape[0])
    warped = cv2.warpPerspective(face, m, size, flags=cv2.INTER_AREA)
    mask = cv2.warpPerspective(np.full((h, w), 255, np.uint8), m, size, flags=cv2.INTER_NEAREST)
    canvas[mask > 0] = warped[mask > 0]


def table(rng: np.random.Generator, size: tuple[int, int] = (900, 640)) -> NDArray[np.uint8]:
    """A plain wooden-brown table with mild noise, ``(h, w, 3)``."""
    w, h = size
    img = np.empty((h, w, 3), np.float32)
    img[:] = (60, 95, 130)
    img += rng.normal(0, 4, (h, w, 1)).astype(np.float32)
    return np.clip(img, 0, 255).astype(np.uint8)


def blank_face(colour: tuple[int, int, int]) -> NDArray[np.uint8]:
    """A 63x88 mm face at 4 px/mm of one BGR colour, ``(352, 252, 3)`` uint8 (the lattice tests)."""
    face = np.empty((352, 252, 3), np.uint8)
    face[:] = colour
    return face


def outline_cell(face: NDArray[np.uint8], x0: int, y0: int, x1: int, y1: int,
                 fill: tuple[int, int, int] = (235, 235, 235),
                 ink: tuple[int, int, int] = (50, 50, 50)) -> None:
    """Draw one filled cell with a 2 px outline of ``ink`` on ``face`` in place."""
    cv2.rectangle(face, (x0, y0), (x1, y1), fill, -1)
    cv2.rectangle(face, (x0, y0), (x1, y1), ink, 2)


def with_noise(face: NDArray[np.uint8], rng: np.random.Generator) -> NDArray[np.uint8]:
    """``face`` with Gaussian noise of sigma 3 grey levels, ``(H, W, 3)`` uint8."""
    return np.clip(face + rng.normal(0.0, 3.0, face.shape), 0, 255).astype(np.uint8)


def draw_square_lattice(img: NDArray[np.float64], n: int, cell: int, margin: int) -> None:
    """Draw in place the dark outlines of ``n`` x ``n`` cells of ``cell`` px, ``margin`` px in from
    the top-left of ``img`` ``(h, w, 3)`` float64 BGR (the mark stage tests)."""
    for p in (margin + k * cell for k in range(n + 1)):
        cv2.line(img, (p, margin), (p, margin + n * cell), (40, 50, 60), 3)
        cv2.line(img, (margin, p), (margin + n * cell, p), (40, 50, 60), 3)


def square_lattice_grid(n: int, cell: int, margin: int, paper: NDArray[np.float64]) -> Grid:
    """The :class:`Grid` of :func:`draw_square_lattice`'s cells, all plain, on ``paper`` (BGR)."""
    at = np.array([margin + k * cell for k in range(n + 1)], float)
    return Grid(at, at, np.ones((n, n)), paper)


def photographed(img: NDArray[np.float64], rng: np.random.Generator) -> NDArray[np.uint8]:
    """``img`` ``(h, w, 3)`` float64 through a slightly soft lens and a little sensor noise, as
    uint8."""
    img = cv2.GaussianBlur(img, (0, 0), 0.8)
    return np.clip(img + rng.normal(0.0, 2.0, img.shape), 0, 255).astype(np.uint8)


def row_face(n: int, s: int = 48, paper: tuple[int, int, int] = (235, 235, 235),
             outline: tuple[int, int, int] = (40, 40, 40)) -> tuple[NDArray[np.uint8], Grid]:
    """``n`` outlined plain cells of ``s`` px in a row (the mark stage tests).

    Returns
    -------
    face : ndarray, shape (s, n * s, 3), uint8
    grid : Grid
        The cells' lines, one row of ``n`` plain cells on ``paper``.
    """
    face = np.full((s, n * s, 3), paper, np.uint8)
    for k in range(n + 1):
        cv2.line(face, (min(k * s, n * s - 1), 0), (min(k * s, n * s - 1), s - 1), outline, 1)
    cv2.rectangle(face, (0, 0), (n * s - 1, s - 1), outline, 1)
    grid = Grid(np.arange(n + 1) * float(s), np.array([0.0, float(s)]), np.ones((1, n)),
                np.array(paper, np.float64))
    return face, grid


def expedition_face(cells: list[tuple[int, int]], outlined: bool = True) -> NDArray[np.uint8]:
    """A 63x88 mm expedition face: squares of 12 mm joined edge to edge in a plain frame.

    ``cells`` are the squares' (row, column); the square (0, 0) lies up and left of the face's centre.
    Each square has a dark outline when ``outlined``, else only its fill.

    Returns
    -------
    ndarray, shape (440, 315, 3), uint8
    """
    w, h = round(63 * PX_PER_MM), round(88 * PX_PER_MM)
    img = np.full((h, w, 3), (235, 240, 245), np.uint8)
    cv2.rectangle(img, (0, 0), (w - 1, h - 1), (90, 60, 40), round(3 * PX_PER_MM))
    s = round(12 * PX_PER_MM)
    x0, y0 = w // 2 - s, h // 2 - s
    for r, c in cells:
        p0 = (x0 + c * s, y0 + r * s)
        cv2.rectangle(img, p0, (p0[0] + s, p0[1] + s), (60, 140, 200), -1)
        if outlined:
            cv2.rectangle(img, p0, (p0[0] + s, p0[1] + s), (30, 30, 30), 3)
    return img


def expedition_face_with_art(cells: list[tuple[int, int]]) -> NDArray[np.uint8]:
    """:func:`expedition_face` with two straight lines of art one square beyond its squares (right
    and below): the squares and the lines make a lattice of a few cells that the map reader doubts.

    Returns
    -------
    ndarray, shape (440, 315, 3), uint8
    """
    img = expedition_face(cells)
    h, w = img.shape[:2]
    s = round(12 * PX_PER_MM)
    x0, y0 = w // 2 - s, h // 2 - s
    cv2.line(img, (x0 + 3 * s, y0 - s), (x0 + 3 * s, y0 + 3 * s), (30, 30, 30), 3)
    cv2.line(img, (x0 - s, y0 + 3 * s), (x0 + 3 * s, y0 + 3 * s), (30, 30, 30), 3)
    return img


def clean_observation(grid: NDArray[np.str_], scores: dict[str, float],
                      rng: np.random.Generator) -> Observation:
    """A clean view of a printed grid (a little noise on each cue) with the frame's likeness
    ``scores`` to each card colour (0 for a colour not given).

    Parameters
    ----------
    grid : (rows, cols) str array
        The printed symbols (``.`` water, ``#`` plain, ``X``, ``C``, ``P``).
    scores : dict
        Card colour -> likeness of the frame to it.
    rng : numpy.random.Generator

    Returns
    -------
    Observation
    """
    presence = np.clip((grid != ".") * 0.8 + 0.1 + rng.normal(0.0, 0.03, grid.shape), 0.0, 1.0)
    symbols = np.zeros((*grid.shape, 3))
    for k, ch in enumerate("XCP"):
        symbols[..., k] = (grid == ch) * 0.3
    likeness = dict.fromkeys(("grey", "purple", "orange", "green"), 0.0)
    likeness.update(scores)
    return Observation(presence, symbols, likeness)


def lattice(img: NDArray[np.uint8], x0: float, y0: float, cell: float, n: int) -> None:
    """Draw an ``n`` x ``n`` grid of light cells with dark outlines on ``img`` in place, top-left at
    ``(x0, y0)``, cells of ``cell`` px (the proposal tests)."""
    x1, y1 = round(x0 + n * cell), round(y0 + n * cell)
    cv2.rectangle(img, (round(x0), round(y0)), (x1, y1), (215, 225, 230), -1)
    for k in range(n + 1):
        cv2.line(img, (round(x0 + k * cell), round(y0)), (round(x0 + k * cell), y1), (30, 30, 30), 2)
        cv2.line(img, (round(x0), round(y0 + k * cell)), (x1, round(y0 + k * cell)), (30, 30, 30), 2)


def x_mask(dx: int = 0, dy: int = 0, inset: int = 6, width: int = 2) -> NDArray[np.bool_]:
    """A printed X as a cell's ink mask, its arms ``inset`` mask pixels in from the corners and
    ``width`` px wide, moved by ``(dx, dy)``.

    Returns
    -------
    ndarray, shape (mask_px, mask_px), bool
    """
    m = default_config().mask_px
    img = np.zeros((m, m), np.uint8)
    a, b = inset, m - 1 - inset
    cv2.line(img, (a + dx, a + dy), (b + dx, b + dy), 1, width)
    cv2.line(img, (b + dx, a + dy), (a + dx, b + dy), 1, width)
    return img.astype(bool)


def jittered_x_mask(rng: np.random.Generator, inset: int = 6) -> NDArray[np.bool_]:
    """:func:`x_mask` moved by up to one pixel each way (grid jitter), ``(mask_px, mask_px)`` bool."""
    dx, dy = (int(v) for v in rng.integers(-1, 2, size=2))
    return x_mask(dx, dy, inset)


def masks_ink(masks: list[NDArray[np.bool_]]) -> CellInk:
    """The cell ink of one row of cells given only by their ink masks (every other feature 0).

    Parameters
    ----------
    masks : list of ndarray, each shape (mask_px, mask_px), bool

    Returns
    -------
    CellInk
        Features of shape ``(1, len(masks))``; masks ``(1, len(masks), mask_px, mask_px)``.
    """
    z = np.zeros((1, len(masks)))
    return CellInk(z, z, z, z, z, z, z, z, np.stack(masks)[None])
