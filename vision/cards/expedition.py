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
    """Tunable numbers of the expedition card stage: the ``expedition`` section of
    ``vision/data/config/cards.json``, where each is described."""

    square_mm: tuple[float, float]
    square_area: tuple[float, float]
    square_apart: float
    aspect_tol: float
    min_fill: float
    canny: tuple[float, float]
    lattice_tol: float
    side_tol: float
    min_pitch: float
    max_pitch: float
    min_squares: int
    max_squares: int
    detect_passes: tuple[tuple[float, float, float, float, int], ...]
    region_margin_mm: float
    region_contrast: float
    region_sample: float
    region_misfit: float
    region_confidence: float
    map_presence: float
    map_pitch_tol: float
    map_corner_mm: float


@cache
def default_config() -> ExpeditionConfig:
    """The ``expedition`` section of the packaged ``cards.json``, loaded once."""
    return load_config("cards", ExpeditionConfig, section="expedition")


def _normalise(cells: set[Cell] | frozenset[Cell]) -> frozenset[Cell]:
    """``cells`` moved so that their smallest row and column are 0."""
    r0 = min(r for r, _ in cells)
    c0 = min(c for _, c in cells)
    return frozenset((r - r0, c - c0) for r, c in cells)


def _orientations(cells: frozenset[Cell]) -> set[frozenset[Cell]]:
    """Every quarter turn of ``cells`` and of their mirror image, each normalised."""
    out = set()
    cur = set(cells)
    for _ in range(4):
        cur = {(c, -r) for r, c in cur}
        out.add(_normalise(cur))
        out.add(_normalise({(r, -c) for r, c in cur}))
    return out


@cache
def _card_orientations() -> dict[str, frozenset[frozenset[Cell]]]:
    """Every orientation of each expedition card's pattern, by card id (catalog order)."""
    return {s.id: frozenset(_orientations(frozenset(s.cells))) for s in rules_catalog().expeditions}


@cache
def _shapes() -> tuple[tuple[str, frozenset[frozenset[Cell]]], ...]:
    """(id, every orientation) per expedition shape; the first card of equal shapes stands for
    them all (their faces differ only in art)."""
    out: list[tuple[str, frozenset[frozenset[Cell]]]] = []
    seen: set[frozenset[frozenset[Cell]]] = set()
    for sid, orients in _card_orientations().items():
        if orients in seen:
            continue
        seen.add(orients)
        out.append((sid, orients))
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
        if area < lo * lo * cfg.square_area[0] or area > hi * hi * cfg.square_area[1]:
            continue
        (cx, cy), (w, h), _ = cv2.minAreaRect(cnt)
        if w <= 0 or h <= 0 or abs(w / h - 1.0) > cfg.aspect_tol or area / (w * h) < cfg.min_fill:
            continue
        side = float(np.sqrt(area))
        if any(np.hypot(cx - x, cy - y) < cfg.square_apart * side for x, y, _ in found):
            continue
        found.append((float(cx), float(cy), side))
    return found


def blurred_part(face: NDArray[np.uint8], rows: range, cols: range) -> NDArray[np.uint8]:
    """``cv2.GaussianBlur(face, (0, 0), 1.0)[rows, cols]``, blurring only that part and the few
    pixels around it the blur reaches (sigma 1 spans 3 pixels each side in 8 bits; 4 are taken),
    or the face's own edges where they lie that close: each pixel comes out as in the whole face's
    blur.

    Parameters
    ----------
    face : (H, W, C) uint8 array
    rows, cols : range
        The part, steps of 1 within the face.

    Returns
    -------
    (len(rows), len(cols), C) uint8 array
    """
    reach = 4
    h, w = face.shape[:2]
    y0, x0 = max(0, rows.start - reach), max(0, cols.start - reach)
    near = cv2.GaussianBlur(face[y0:min(h, rows.stop + reach), x0:min(w, cols.stop + reach)], (0, 0), 1.0)
    return near[rows.start - y0:rows.stop - y0, cols.start - x0:cols.stop - x0]


def median_levels(levels: NDArray[np.uint8]) -> NDArray[np.float32]:
    """The median of each channel of 8-bit levels: the middle level (the mean of the two middle
    ones for an even count), as ``numpy.median`` gives it for the levels as float32, read off each
    channel's histogram instead of sorting.

    Parameters
    ----------
    levels : (H, W, C) uint8 array

    Returns
    -------
    (C,) float32 array
        NaN for every channel when there are no levels.
    """
    n = levels.shape[0] * levels.shape[1]
    out = np.full(levels.shape[2], np.nan, np.float32)  # no levels: no median
    if n == 0:
        return out
    image = np.ascontiguousarray(levels)
    for ch in range(levels.shape[2]):
        counts = cv2.calcHist([image], [ch], None, [256], [0, 256]).ravel().astype(np.int64)
        below = np.cumsum(counts)
        # the levels at sorted places (n - 1) // 2 and n // 2
        lo, hi = np.searchsorted(below, [(n - 1) // 2, n // 2], side="right")
        out[ch] = (int(lo) + int(hi)) / 2
    return out


def level_distance(levels: NDArray[np.uint8], centre: NDArray[np.float32]) -> NDArray[np.float32]:
    """The Euclidean distance of each pixel's 8-bit levels, taken as float32, from ``centre``, as
    :func:`vision.cards.marks._lab_distance` gives it for ``levels - centre``: each channel's
    square is looked up per level (the same float32 difference squared), then summed channel by
    channel in the same order.

    Parameters
    ----------
    levels : (H, W, 3) uint8 array
    centre : (3,) float32 array

    Returns
    -------
    (H, W) float32 array
    """
    steps = np.arange(256, dtype=np.float32)[:, None] - centre.astype(np.float32)[None, :]
    squares = cv2.LUT(np.ascontiguousarray(levels), (steps * steps).reshape(256, 1, 3))
    return np.sqrt(squares[:, :, 0] + squares[:, :, 1] + squares[:, :, 2])


_LATTICES = ((1, 2), (1, 3), (2, 2), (2, 3))  # the bounding lattices of 2-4 squares joined edge to edge


def region_squares(face: NDArray[np.uint8], px_per_mm: float, config: ExpeditionConfig | None = None,
                   ) -> list[tuple[float, float, float]]:
    """The squares found as one region instead of one outline each: ``(x, y, side)`` per square.

    Blur and dim light can erase the outlines between the squares, but the squares still differ
    from the face around them. The face inside its frame is split by its own contrast (Otsu on the
    Lab distance from the face's common colour); a region whose bounding rectangle is a lattice of
    1x2 to 2x3 equal squares gives the lattice cells it fills.

    Parameters
    ----------
    face : (H, W, 3) uint8 array
        BGR card face.
    """
    cfg = config or default_config()
    h, w = face.shape[:2]
    m = round(cfg.region_margin_mm * px_per_mm)
    rows, cols = range(h)[m:h - m], range(w)[m:w - m]
    if len(rows) == 0 or len(cols) == 0:
        return []
    # only the face inside the margin is read (each pixel's Lab depends on that pixel alone)
    inner = cv2.cvtColor(blurred_part(face, rows, cols), cv2.COLOR_BGR2LAB)
    # the distance of each pixel's Lab (its 8-bit levels as float32) from the levels' median
    dist = level_distance(inner, median_levels(inner))
    if float(dist.max()) < cfg.region_contrast:
        return []
    d8 = np.clip(dist * (255.0 / float(dist.max())), 0, 255).astype(np.uint8)
    _, mask = cv2.threshold(d8, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    lo, hi = cfg.square_mm[0] * px_per_mm, cfg.square_mm[1] * px_per_mm
    best: tuple[float, list[tuple[float, float, float]]] | None = None
    for cnt in contours:
        area = float(cv2.contourArea(cnt))
        if not 2 * lo * lo * cfg.square_area[0] <= area <= 6 * hi * hi:
            continue
        rect = cv2.minAreaRect(cnt)
        cx, cy = rect[0]
        box = cv2.boxPoints(rect).astype(np.float64)
        e1, e2 = box[1] - box[0], box[2] - box[1]
        if np.hypot(*e1) > np.hypot(*e2):
            e1, e2 = e2, e1
        short, long_ = float(np.hypot(*e1)), float(np.hypot(*e2))
        u1, u2 = e1 / max(short, 1e-9), e2 / max(long_, 1e-9)
        for a, b in _LATTICES:
            side = 0.5 * (short / a + long_ / b)
            if abs(short / a - long_ / b) > cfg.aspect_tol * side or not lo <= side <= hi:
                continue
            cells = []
            for i in range(a):
                for j in range(b):
                    p = np.array([cx, cy]) + (i - (a - 1) / 2) * side * u1 + (j - (b - 1) / 2) * side * u2
                    r = max(1, round(cfg.region_sample * side))
                    x, y = round(p[0]), round(p[1])
                    patch = mask[max(0, y - r):y + r + 1, max(0, x - r):x + r + 1]
                    if patch.size and float(patch.mean()) > 127:
                        cells.append((float(p[0]) + m, float(p[1]) + m, side))
            if not cfg.min_squares <= len(cells) <= cfg.max_squares:
                continue
            # the region must be those squares: compare the two shapes pixel by pixel
            blob = np.zeros(mask.shape, np.uint8)
            cv2.drawContours(blob, [cnt], -1, 1, -1)
            drawn = np.zeros(mask.shape, np.uint8)
            for x, y, _ in cells:
                c = np.array([x - m, y - m])
                sq = np.array([c + (sa * u1 + sb * u2) * side / 2
                               for sa, sb in ((-1, -1), (1, -1), (1, 1), (-1, 1))])
                cv2.fillConvexPoly(drawn, np.round(sq).astype(np.int32), 1)
            union = int(np.count_nonzero(blob | drawn))
            misfit = 1.0 - int(np.count_nonzero(blob & drawn)) / max(union, 1)
            if misfit > cfg.region_misfit:
                continue
            if best is None or misfit < best[0]:
                best = (misfit, cells)
    return best[1] if best is not None else []


def pattern(found: list[tuple[float, float, float]], config: ExpeditionConfig | None = None,
            ) -> frozenset[Cell] | None:
    """The squares as lattice cells.

    Parameters
    ----------
    found : list of (x, y, side)
        The squares' centres and sides, face pixels (:func:`squares`).
    config : ExpeditionConfig, optional

    Returns
    -------
    frozenset of (row, col) or None
        ``None`` when the squares do not sit edge to edge on one lattice.
    """
    cfg = config or default_config()
    if not found:
        return None
    side = float(np.median([s for _, _, s in found]))
    pts = np.array([(x, y) for x, y, _ in found])
    if len(pts) < 2:
        return None
    d = np.linalg.norm(pts[:, None] - pts[None], axis=2) + np.eye(len(pts)) * 1e9
    step = float(np.median(d.min(axis=1)))  # centre to centre: a square plus its outline
    if not side * cfg.min_pitch <= step <= side * cfg.max_pitch:
        return None
    x0, y0 = pts[0]
    cells: set[Cell] = set()
    for (x, y), (_, _, s) in zip(pts, found, strict=True):
        if abs(s - side) > cfg.side_tol * side:
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


def _squares_lattice(grid: grid_mod.Grid, found: list[tuple[float, float, float]],
                     cfg: ExpeditionConfig) -> bool:
    """Whether a lattice found on a face may hold the squares ``found`` by their own outlines
    (``(x, y, side)`` each, face px) as its cells: its cells not clearly closer together than the
    squares' centres (by more than ``map_pitch_tol``), or fewer than two such squares. A finer
    lattice cannot have them for cells: it was fitted to the face's art and the squares' edges,
    and its presence, judged against its own weak sides, says nothing. (A coarser one may be a
    map card's, with marks or prints taken for squares. Squares found as one region are not
    compared: a region may span several of a map's cells, or a frame cut by a wrong outline.)"""
    pts = np.array([(x, y) for x, y, _ in found], np.float64)
    if len(pts) < 2:
        return True
    d = np.linalg.norm(pts[:, None] - pts[None], axis=2) + np.eye(len(pts)) * 1e9
    step = float(np.median(d.min(axis=1)))
    pitch = float(np.median(np.concatenate([np.diff(grid.xs), np.diff(grid.ys)])))
    return pitch >= (1.0 - cfg.map_pitch_tol) * step


def _in_corners(found: list[tuple[float, float, float]], shape: tuple[int, int], corner: float) -> bool:
    """Whether a square's centre (``(x, y, side)`` each, face px) lies in a corner of a face of
    ``shape`` ``(h, w)``, within ``corner`` px of both of its sides there."""
    h, w = shape
    return any((y < corner or y > h - corner) and (x < corner or x > w - corner) for x, y, _ in found)


def _holds(regions: list[tuple[float, float, float]], outlined: list[tuple[float, float, float]],
           cfg: ExpeditionConfig) -> bool:
    """Whether every outlined square ``(x, y, side)`` lies on one of the region's squares (their
    centres closer than ``square_apart`` of its side)."""
    return all(any(np.hypot(x - rx, y - ry) < cfg.square_apart * rs for rx, ry, rs in regions)
               for x, y, _ in outlined)


def same_shape(a: str, b: str) -> bool:
    """Whether expedition cards ``a`` and ``b`` show the same pattern of squares (under some turn or
    mirror image): a photo cannot tell such cards apart, their faces differ only in art."""
    shapes = _card_orientations()
    return a == b or (a in shapes and b in shapes and shapes[a] == shapes[b])


def _reading(found: list[tuple[float, float, float]], corners: NDArray[np.float64], by_region: bool,
             cfg: ExpeditionConfig) -> ExpeditionReading | None:
    """The reading of squares ``found`` (``(x, y, side)`` each, face px) on the face of a quad of
    photo ``corners`` ``(4, 2)``: ``None`` unless they are ``min_squares`` to ``max_squares``
    squares edge to edge in one of the catalog's shapes. Squares ``by_region`` (no outlines of
    their own) are less sure: the confidence is scaled by ``region_confidence``."""
    if not cfg.min_squares <= len(found) <= cfg.max_squares:
        return None
    cells = pattern(found, cfg)
    if cells is None:
        return None
    match = next((sid for sid, orients in _shapes() if cells in orients), None)
    if match is None:
        return None
    conf = float(min(1.0, len(found) / cfg.min_squares * 0.5))
    if by_region:
        conf *= cfg.region_confidence
    quad: Quad = tuple((float(x), float(y)) for x, y in corners)  # type: ignore[assignment]
    return ExpeditionReading(match, conf, quad, tuple(sorted(cells)))


def map_face_reading(face: NDArray[np.uint8], corners: NDArray[np.float64], px_per_mm: float,
                     config: ExpeditionConfig | None = None,
                     ) -> tuple[ExpeditionReading | None, list[tuple[float, float, float]]]:
    """The expedition reading of a face that may hold a map card's grid, and the squares it
    found.

    Only squares standing out from the face as one region count (:func:`region_squares`; a
    map's cells are outlined squares too), none of them centred in a corner (within
    ``map_corner_mm`` of both sides there: a map card prints its numeral and its badge in its
    top corners, and a face rectified the wrong way up has them at the bottom), and the face is
    read whatever grid it shows. A lattice fitted to the expedition card's squares, its frame and
    a line of its art can look like a map card's; the map card reader, which asks this of faces
    the catalog named only weakly, has the catalog's word on them already.

    Parameters
    ----------
    face : (H, W, 3) uint8 array
        BGR card face, upright (:func:`vision.cards.rectify.rectify`).
    corners : (4, 2) float64 array
        The face's quad in the photo, for the reading's corners.
    px_per_mm : float
        Face pixels per millimetre.
    config : ExpeditionConfig, optional

    Returns
    -------
    reading : ExpeditionReading or None
    found : list of (x, y, side)
        The squares found as one region, face px (empty when in a corner).
    """
    cfg = config or default_config()
    found = region_squares(face, px_per_mm, cfg)
    if _in_corners(found, face.shape[:2], cfg.map_corner_mm * px_per_mm):
        return None, []  # a map's numeral or badge, printed in a corner
    return _reading(found, corners, True, cfg), found


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
        outlined = squares(face, ppm, cfg)  # one outline per square; else one region
        reading = _reading(outlined, quad.corners, False, cfg)
        if reading is None or len(outlined) < cfg.max_squares:
            regions = region_squares(face, ppm, cfg)
            whole = _reading(regions, quad.corners, True, cfg)
            if reading is None:
                reading = whole
            elif (whole is not None and len(whole.cells) > len(reading.cells)
                  and _holds(regions, outlined, cfg)):
                # a faint outline between two squares loses one of them, not the region of
                # squares standing out from the face: the region's shape, as sure as the outlines
                reading = dataclasses.replace(whole, confidence=max(whole.confidence, reading.confidence))
        if reading is None:
            continue
        rank = (reading.confidence, len(reading.cells))
        if best is not None and not rank > (best.confidence, len(best.cells)):
            continue  # no better than the best reading: its face's grid would change nothing
        grid = grid_mod.locate_grid(face, ppm)
        if (grid is not None and _squares_lattice(grid, outlined, cfg)
                and int((grid.presence > cfg.map_presence).sum()) > 2 * cfg.max_squares):
            continue  # a map card with few clean cells
        best = reading
    return best
