"""The face-up expedition card: which of the six shapes it shows.

An expedition card is card-sized and shows 2-4 outlined squares joined edge to edge (a domino,
a tromino or a tetromino). Card outlines come from the card detector (coarse passes only); a face
that holds a map grid is skipped. On each other face, the squares are convex four-sided
contours of one size; their centres on a lattice give the pattern, which is matched against the
catalog's shapes under every rotation and mirror image.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cache

import cv2
import numpy as np
from numpy.typing import NDArray

from scoring.silver_gold import load_catalog as rules_catalog
from vision.cards import detect as detect_mod
from vision.cards import grid as grid_mod
from vision.cards import rectify as rectify_mod
from vision.config import load_config
from vision.types import Cell, ExpeditionReading, Quad


@dataclass(frozen=True)
class ExpeditionConfig:
    square_mm: tuple[float, float]
    aspect_tol: float
    min_fill: float
    canny: tuple[float, float]
    lattice_tol: float
    max_pitch: float
    min_squares: int
    max_squares: int
    detect_passes: tuple[tuple[float, float, float, float, int], ...]


@cache
def default_config() -> ExpeditionConfig:
    return load_config("cards", ExpeditionConfig, section="expedition")


def _normalise(cells: set[Cell] | frozenset[Cell]) -> frozenset[Cell]:
    r0 = min(r for r, _ in cells)
    c0 = min(c for _, c in cells)
    return frozenset((r - r0, c - c0) for r, c in cells)


def _orientations(cells: frozenset[Cell]) -> set[frozenset[Cell]]:
    out = set()
    cur = set(cells)
    for _ in range(4):
        cur = {(c, -r) for r, c in cur}
        out.add(_normalise(cur))
        out.add(_normalise({(r, -c) for r, c in cur}))
    return out


@cache
def _shapes() -> tuple[tuple[str, frozenset[frozenset[Cell]]], ...]:
    """(id, every orientation) per expedition shape; the first card of equal shapes stands for
    them all (their faces differ only in art)."""
    out: list[tuple[str, frozenset[frozenset[Cell]]]] = []
    seen: set[frozenset[frozenset[Cell]]] = set()
    for shape in rules_catalog().expeditions:
        orients = frozenset(_orientations(frozenset(shape.cells)))
        if orients in seen:
            continue
        seen.add(orients)
        out.append((shape.id, orients))
    return tuple(out)


def squares(face: NDArray[np.uint8], px_per_mm: float,
            config: ExpeditionConfig | None = None) -> list[tuple[float, float, float]]:
    """Outlined squares on a face: ``(x, y, side)`` in face pixels, one per square.

    Parameters
    ----------
    face : (H, W, 3) uint8 array
        BGR card face.
    """
    cfg = config or default_config()
    gray = cv2.GaussianBlur(cv2.cvtColor(face, cv2.COLOR_BGR2GRAY), (0, 0), 1.0)
    edges = cv2.dilate(cv2.Canny(gray, cfg.canny[0], cfg.canny[1]), np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    lo, hi = cfg.square_mm[0] * px_per_mm, cfg.square_mm[1] * px_per_mm
    found: list[tuple[float, float, float]] = []
    for cnt in contours:
        area = cv2.contourArea(cnt)
        if area < lo * lo * 0.8 or area > hi * hi * 1.2:
            continue
        (cx, cy), (w, h), _ = cv2.minAreaRect(cnt)
        if w <= 0 or h <= 0 or abs(w / h - 1.0) > cfg.aspect_tol or area / (w * h) < cfg.min_fill:
            continue
        side = float(np.sqrt(area))
        if any(np.hypot(cx - x, cy - y) < 0.4 * side for x, y, _ in found):
            continue
        found.append((float(cx), float(cy), side))
    return found


def pattern(found: list[tuple[float, float, float]], config: ExpeditionConfig | None = None,
            ) -> frozenset[Cell] | None:
    """The squares as lattice cells ``(row, col)``, or ``None`` when they do not sit edge to edge
    on one lattice."""
    cfg = config or default_config()
    if not found:
        return None
    side = float(np.median([s for _, _, s in found]))
    pts = np.array([(x, y) for x, y, _ in found])
    if len(pts) < 2:
        return None
    d = np.linalg.norm(pts[:, None] - pts[None], axis=2) + np.eye(len(pts)) * 1e9
    step = float(np.median(d.min(axis=1)))  # centre to centre: a square plus its outline
    if not side * 0.9 <= step <= side * cfg.max_pitch:
        return None
    x0, y0 = pts[0]
    cells: set[Cell] = set()
    for (x, y), (_, _, s) in zip(pts, found, strict=True):
        if abs(s - side) > 0.25 * side:
            return None
        u, v = (x - x0) / step, (y - y0) / step
        ru, rv = round(u), round(v)
        if abs(u - ru) > cfg.lattice_tol or abs(v - rv) > cfg.lattice_tol:
            return None
        cells.add((rv, ru))
    if len(cells) != len(found):
        return None
    # joined edge to edge
    todo, seen = [next(iter(cells))], set()
    while todo:
        r, c = todo.pop()
        if (r, c) in seen:
            continue
        seen.add((r, c))
        todo.extend(n for n in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)) if n in cells)
    return _normalise(cells) if seen == cells else None


def same_shape(a: str, b: str) -> bool:
    """Whether expedition cards ``a`` and ``b`` show the same pattern of squares (under some turn or
    mirror image): a photo cannot tell such cards apart, their faces differ only in art."""
    shapes = {s.id: frozenset(_orientations(frozenset(s.cells))) for s in rules_catalog().expeditions}
    return a == b or (a in shapes and b in shapes and shapes[a] == shapes[b])


def read_expedition(image: NDArray[np.uint8], config: ExpeditionConfig | None = None,
                    quads: tuple[detect_mod.CardQuad, ...] | None = None) -> ExpeditionReading | None:
    """Which expedition shape lies face up in a photo, or ``None``.

    Parameters
    ----------
    image : (H, W, 3) uint8 array
        BGR photo.
    config : ExpeditionConfig, optional
    quads : tuple of CardQuad, optional
        The card outlines of ``image`` when already found (:func:`vision.cards.detect.detect`);
        found with the coarse ``detect_passes`` when ``None``.

    Returns
    -------
    ExpeditionReading or None
        The id is the first catalog card of the shape seen (cards of equal shape differ only in
        art; see :func:`same_shape`).
    """
    cfg = config or default_config()
    if quads is None:
        dcfg = dataclasses.replace(detect_mod.default_config(), passes=cfg.detect_passes)
        quads = detect_mod.detect(image, dcfg)
    rcfg = rectify_mod.default_config()
    ppm = rcfg.px_per_mm
    best: ExpeditionReading | None = None
    for quad in quads:
        if quad.partial:
            continue
        face = rectify_mod.rectify(image, quad.corners, rcfg).image
        found = squares(face, ppm, cfg)
        if not cfg.min_squares <= len(found) <= cfg.max_squares:
            continue
        cells = pattern(found, cfg)
        if cells is None:
            continue
        match = next((sid for sid, orients in _shapes() if cells in orients), None)
        if match is None:
            continue
        grid = grid_mod.locate_grid(face, ppm)
        if grid is not None and int((grid.presence > 0.5).sum()) > 2 * cfg.max_squares:
            continue  # a map card with few clean cells
        conf = float(min(1.0, len(found) / cfg.min_squares * 0.5))
        corners: Quad = tuple((float(x), float(y)) for x, y in quad.corners)  # type: ignore[assignment]
        reading = ExpeditionReading(match, conf, corners, tuple(sorted(cells)))
        if best is None or len(reading.cells) > len(best.cells):
            best = reading
    return best
