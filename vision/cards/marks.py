"""Stage 4: is each cell marked with pen?

Ink is measured against the card's own cell fill (OMR style): a pixel is ink when it lies far
from the fill colour in Lab or is clearly darker. The face is white-balanced on the lightest part
of the cells' fill (:func:`_pen_fill`), which pen cannot shift: on a card marked through, the
median colour of the cells is the pen's. A printed symbol is not a mark, so a cell is
split into its centre (where symbols sit), the ring around it (where pen strokes cross,
overshoot and loop) and its four inside corners. A plain cell is judged on all of its ink; a
symbol cell on the ink beyond the symbol's print: off the symbol's hue or clearly darker than
the print, above what the print itself leaves there. That baseline is learnt from every cell
of the symbol in the photo when there are enough of them (:func:`print_templates`), else from
the other cells of the symbol on the same card (or its clean reference face, when one exists).
A symbol printed in only two cells of the photo still gets a print, the ink both cells show, which
marks a cell only from a stricter share of ink beyond it.

The cell outline is shared by the whole lattice: its width is learnt from all the lattice's line
segments at once (pen only adds ink to a few of them) and left out of each plain cell, so that a
thick blurred outline does not read as a ring drawn on it (:func:`_outline_cleared`).

Pen strokes are traced across the cell outlines: a stroke overshooting from a neighbour is that
neighbour's, not ink of the cell it reaches into (into a symbol cell, traced past the print it
touches). A ring drawn on a cell's outline shows
in all four inside corners. Two thresholds per decision: below ``lo`` unmarked, above ``hi``
marked, and in between "uncertain" rather than a guess. A cell left in between whose own ink
beyond its print has its centre of mass far off the cell's centre holds a neighbour's stroke
reaching in from one side (hatching joined across the outlines, which no tracing can give to one
cell), and is unmarked; one left in between with a small dot in its centre, as strong as the pen
of the card's clear marks, is marked (faint residue stays open). Faint pen under a glare is read
against its own neighbourhood's contrast: it leaves its cell uncertain, or marked when it reads as a
mark there and is as strong, for that contrast, as the pen of the card's clear marks. The pooled
print of a symbol is compared with each cell after the small shift that fits it best (the grid's
lines are found to a pixel or two).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.cards.grid import Grid, balanced_lab
from vision.config import load_config


@dataclass(frozen=True)
class MarksConfig:
    """Tunable numbers of the per-cell mark stage: the ``marks`` section of
    ``vision/data/config/cards.json``, where each is described."""

    inner_frac: float
    centre_radius: float
    ink_dist: float
    paper_share: float
    fill_patch: float
    min_shade: float
    shade_tint: float
    glare_lift: float
    glare_window: float
    fill_percentile: float
    corner_frac: float
    sector_on: float
    linked_corners: float
    ink_dark: float
    contrast_percentile: float
    contrast_share: float
    min_ink_scale: float
    plain_lo: tuple[float, float]
    plain_hi: tuple[float, float]
    symbol_lo: tuple[float, float]
    symbol_hi: tuple[float, float]
    symbol_chroma: float
    symbol_hues: Mapping[str, tuple[tuple[float, float], ...]]
    residual_cap_centre: float
    mask_px: int
    mask_on: float
    print_share: float
    print_cells: float
    print_grow_px: int
    min_pool: int
    pair_pooled_hi: float
    turn_print_lead: float
    pooled_hi: float
    pooled_aside: float
    spill_arc: float
    typical_quantile: float
    symbol_ring_allowance: float
    stroke_home: float
    own_share: float
    ring_res_hi: float
    loop_corners: float
    loop_common: float
    loop_cells: int
    ring_common_cells: int
    print_shift_px: int
    spill_offset: float
    print_edge_px: int
    print_edge_run: float
    outline_on: float
    outline_edge: float
    outline_along: float
    outline_depth: float
    outline_slack_px: int
    outline_fringe_px: int
    dot_share: float
    dot_offset: float
    strength_percentile: float
    outline_percentile: float
    glare_ratio: float
    faint_floor: float


@cache
def default_config() -> MarksConfig:
    """The ``marks`` section of the packaged ``cards.json``, loaded once."""
    return load_config("cards", MarksConfig, section="marks")


# (centre, sectors, spread, strength) of each washed-out plain cell's faint ink, each (rows, cols) float64
_Faint = tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]


@dataclass(frozen=True)
class CellInk:
    """Ink shares per cell, each ``(rows, cols)`` float64 in [0, 1].

    ``ring``/``centre``: the cell's ink in the band inside the outline and in the centre disc (in
    a plain cell, without the lattice's outline reaching in and the ink of a neighbour's stroke
    overshooting into it).
    ``ring_res``/``centre_res``: ink that is not of the hue of the cell's printed symbol.
    ``sectors``/``sectors_res``: share of the ring's eight angular sectors that carry ink (a
    stroke overshooting from a neighbour touches one or two; a mark crosses or circles the cell).
    ``corners``: share of the four corners reached by ink joined to the ink in the centre (a pen
    stroke across a printed symbol runs on into the corners; a symbol stays clear of them).
    ``spread``: the shortest arc of the ring holding all its inked sectors, as a share of the
    circle (ink spilt over from a neighbour sits on one side; a mark crosses or circles the cell).
    ``corner_ink``: share of the four corners of the cell's inside that hold ink of the cell's own
    (a ring drawn on the outline passes through all four).
    ``offset``: how far the centre of mass of the cell's own ink beyond its symbol's print (all of
    its own ink in a plain cell) lies from the centre of its inside, as a share of the inside's
    side (0 without such ink; a mark is drawn on its cell, a neighbour's stroke reaching in lies
    along one side).
    ``strength``: the ``strength_percentile`` percentile of the contrast with the fill of the
    cell's own ink in its inside, as a multiple of the ink thresholds (0 without ink): pen drawn
    on one card is alike dark and saturated in every cell, faint residue (a mark wiped off) is
    weaker.
    ``faint``: ``(centre, sectors, spread, strength)`` of each plain cell's own ink in a washed-out
    cell (a glare) judged against its own neighbourhood's contrast (:func:`_faint_ink`); 0
    elsewhere.
    ``masks``: ``(rows, cols, S, S)`` bool, each cell's ink (the outline's reaching in included)
    resampled to ``S = mask_px`` square (empty for water), to compare cells printed with the same
    symbol pixel by pixel.
    """

    ring: NDArray[np.float64]
    centre: NDArray[np.float64]
    ring_res: NDArray[np.float64]
    centre_res: NDArray[np.float64]
    sectors: NDArray[np.float64]
    sectors_res: NDArray[np.float64]
    corners: NDArray[np.float64]
    spread: NDArray[np.float64]
    masks: NDArray[np.bool_]
    corner_ink: NDArray[np.float64] | None = None
    offset: NDArray[np.float64] | None = None
    strength: NDArray[np.float64] | None = None
    faint: _Faint | None = None


@dataclass(frozen=True)
class CellVerdicts:
    """Per-cell results, each ``(rows, cols)`` in the printed frame.

    ``state``: int8, 1 marked, 0 unmarked, -1 uncertain, -2 no cell (water).
    ``ink``: float64 pen-ink score beyond the printed symbol (>= 1 marked).
    ``confidence``: float64 in [0, 1].
    """

    state: NDArray[np.int8]
    ink: NDArray[np.float64]
    confidence: NDArray[np.float64]


def cell_ink(face: NDArray[np.uint8], grid: Grid, printed: NDArray[np.str_],
             config: MarksConfig | None = None) -> CellInk:
    """Measure the ink of every cell.

    A pixel is ink when it lies ``ink_dist`` from the cells' fill in Lab or is ``ink_dark``
    darker (both scaled down on a card of low contrast). In a symbol cell, ink of the symbol's
    hue band with a chroma above ``symbol_chroma`` (scaled alike) is the symbol's print, unless it
    is ``ink_dark`` darker than the print's lightness on the card.

    Parameters
    ----------
    face : (H, W, 3) uint8 array
        The upright BGR face.
    grid : Grid
        Its lattice (face pixels) and the cells' fill colour.
    printed : (rows, cols) str array
        Each position's symbol (``#XCP.``), which sets the hues that do not count as residual
        ink; ``.`` (water) is not measured.
    config : MarksConfig, optional

    Returns
    -------
    CellInk
        Every share ``(rows, cols)`` float64, 0 for water; ``masks`` ``(rows, cols, mask_px,
        mask_px)`` bool.
    """
    cfg = config or default_config()
    rows, cols = grid.shape
    out = [np.zeros((rows, cols)) for _ in range(11)]
    masks = np.zeros((rows, cols, cfg.mask_px, cfg.mask_px), bool)
    # every measure reads the cells' boxes only: the face is cut to the window holding them (each
    # pixel's Lab depends on that pixel alone)
    geo, window = _cell_geometry(grid, printed, face.shape[:2], cfg)
    lab = balanced_lab(face[window], _pen_fill(face[window], geo, grid.paper, cfg))
    paper = _paper_lab(lab, geo, cfg)
    ink_dist, ink_dark = _ink_thresholds(lab, paper, geo, cfg)
    # dim light and blur fade a printed symbol's colours as they fade the ink: the chroma that
    # shows a pixel of the symbol's hue follows the ink thresholds' scale
    chroma_on = cfg.symbol_chroma * ink_dist / cfg.ink_dist
    raw_map, contrast, fills = _ink_map(lab, paper, geo, ink_dist, ink_dark, cfg)
    # the verdicts read the ink without the outline's; the masks the pooled print is learnt from
    # keep it (the print is compared with each cell's mask less straight runs along its sides)
    ink_map = _outline_cleared(raw_map, geo, cfg)
    origin = (window[0].start, window[1].start)
    strokes, alien_of = _foreign_ink(ink_map, grid, geo, origin, cfg)
    # a symbol cell's foreign ink is traced without the symbols' print: a neighbour's stroke
    # reaching a symbol touches its print, and would join it into one stroke held by the symbol's
    # cell (a plain cell's tracing keeps the print: ink joined over a symbol and several cells is
    # nobody's stroke, as rings drawn on neighbouring cells' shared outlines are)
    printed_px = np.zeros(ink_map.shape, bool)
    for cell in geo:
        if cell.sym in cfg.symbol_hues:
            printed_px[cell.box] = _of_hues(lab[cell.box], cfg.symbol_hues[cell.sym], chroma_on)[0]
    sym_strokes, sym_alien_of = (_foreign_ink(ink_map & ~printed_px, grid, geo, origin, cfg)
                                 if printed_px.any() else (strokes, alien_of))
    cells: dict[tuple[int, int], tuple[NDArray[np.bool_], NDArray[np.bool_], NDArray[np.bool_],
                                       NDArray[np.float32], NDArray[np.bool_]]] = {}
    shades: dict[str, list[NDArray[np.float32]]] = {}
    vivid_shades: dict[str, list[NDArray[np.float32]]] = {}
    for cell in geo:
        (r, c), sym, sl = cell.rc, cell.sym, cell.inner
        patch = ink_map[sl]
        if patch.size == 0:
            continue
        part = lab[sl]
        light = part[:, :, 0]
        # a neighbour's stroke overshooting into the cell: not this cell's ink
        alien = (alien_of[r * cols + c][strokes[sl]] if sym == "#"
                 else sym_alien_of[r * cols + c][sym_strokes[sl]])
        own = np.zeros(patch.shape, bool)
        hues = cfg.symbol_hues.get(sym, ())
        if hues:
            own, chroma = _of_hues(part, hues, 0.0)
            own &= patch
            vivid = own & (chroma > cfg.symbol_chroma)
            own &= chroma > chroma_on
            if own.any():
                shades.setdefault(sym, []).append(light[own])
                vivid_shades.setdefault(sym, []).append(light[vivid])
        cells[(r, c)] = (patch, own, alien, light, raw_map[sl] & ~alien)
        strong = contrast[sl][patch & ~alien]
        out[10][r, c] = float(linear_percentile(strong, cfg.strength_percentile)) if strong.size else 0.0
    # the print's own lightness on this card: pen over a symbol keeps much of its hue but is
    # clearly darker than the print, so such pixels are residual ink too. It is the lightness of
    # the print's clearly coloured pixels (the full symbol_chroma) when it has any: the lower
    # threshold of a faint card takes in the blurred print's lighter edges
    print_l: dict[str, float] = {}
    for sym, v in shades.items():
        vivid_l = np.concatenate(vivid_shades[sym])
        print_l[sym] = float(partition_median(vivid_l if vivid_l.size else np.concatenate(v)))
    # cells whose insides have one size share their zones and are measured together
    groups: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for rc, (patch, *_) in cells.items():
        groups.setdefault(patch.shape, []).append(rc)
    for shape, keys in groups.items():
        z = _zones(shape, cfg)
        patch = np.stack([cells[rc][0] for rc in keys])
        own = np.stack([cells[rc][1] & (cells[rc][3] >= print_l[str(printed[rc])] - ink_dark)
                        if str(printed[rc]) in print_l else cells[rc][1] for rc in keys])
        alien = np.stack([cells[rc][2] for rc in keys])
        res = patch & ~own
        # the neighbours' overshooting strokes are left out of the ring and the centre alike (one
        # reaching into the centre disc from a side is still the neighbour's)
        mine, res_mine = patch & ~alien, res & ~alien
        ring_mine, ring_res = mine[:, z.ring], res_mine[:, z.ring]
        on_mine = _sectors_on(ring_mine, z.sector, cfg.sector_on)
        on_res = _sectors_on(ring_res, z.sector, cfg.sector_on)
        at = tuple(np.array(keys).T)
        out[0][at] = ring_mine.mean(axis=1)
        out[1][at] = mine[:, z.inner].mean(axis=1)
        out[2][at] = ring_res.mean(axis=1)
        out[3][at] = res_mine[:, z.inner].mean(axis=1)
        out[4][at] = on_mine.mean(axis=1)
        out[5][at] = on_res.mean(axis=1)
        out[7][at] = _spread_table()[on_mine @ np.array(_SECTOR_BITS)]
        corner_px = mine.reshape(len(keys), -1).astype(np.float64) @ z.corner_cols
        out[8][at] = (corner_px / z.corner_sizes > cfg.sector_on).mean(axis=1)
        out[6][at] = _linked_corners(patch, z.inner, z.corners)
        weight = res_mine.reshape(len(keys), -1).astype(np.float64)
        amount = np.maximum(weight.sum(axis=1), 1.0)
        out[9][at] = np.hypot(weight @ z.u.ravel(), weight @ z.v.ravel()) / amount
        for rc in keys:
            masks[rc] = cv2.resize(cells[rc][4].astype(np.float32), (cfg.mask_px, cfg.mask_px),
                                   interpolation=cv2.INTER_AREA) >= cfg.mask_on
    faint = _faint_ink(lab, raw_map, geo, cells, fills, ink_dist, ink_dark, cfg)
    return CellInk(*out[:8], masks, out[8], out[9], out[10], faint)


def _of_hues(part: NDArray[np.float32], hues: Sequence[tuple[float, float]],
             chroma_on: float) -> tuple[NDArray[np.bool_], NDArray[np.float32]]:
    """Which pixels of a Lab patch ``(h, w, 3)`` lie in one of the hue bands ``hues`` (degrees of
    (a, b), each ``[lo, hi)``) with a chroma above ``chroma_on``, ``(h, w)`` bool, and every
    pixel's chroma ``(h, w)``."""
    hue = np.degrees(np.arctan2(part[:, :, 2], part[:, :, 1])) % 360.0
    chroma = np.hypot(part[:, :, 1], part[:, :, 2])
    on = np.zeros(hue.shape, bool)
    for lo, hi in hues:
        on |= (hue >= lo) & (hue < hi)
    return on & (chroma > chroma_on), chroma


def _faint_ink(lab: NDArray[np.float32], raw_map: NDArray[np.bool_], cells: list[_Cell],
               measured: Mapping[tuple[int, int], tuple[NDArray[np.bool_], ...]],
               fills: Mapping[tuple[int, int], NDArray[np.float32]], ink_dist: float, ink_dark: float,
               cfg: MarksConfig) -> _Faint:
    """``(centre, sectors, spread, strength)``, each ``(rows, cols)`` float64 as in
    :class:`CellInk`, of each washed-out plain cell's own ink against its own neighbourhood's
    contrast (0 elsewhere).

    The ink thresholds follow the whole card's contrast; a glare lowers the contrast of a part of
    the face, its printed outline and the pen on it alike, and lightens the cell's fill past the
    paper's. Here each cell's contrast is taken against its own fill (``fills``: the
    ``fill_percentile`` percentile of its inside's lightness, the mean colour of the pixels at
    least that light). The outline is printed alike around every cell: its contrast (the
    ``outline_percentile`` percentile over the cell's box outside its inside) as a share of the
    median over the card's cells is the cell's local contrast. A plain cell whose share is below
    ``glare_ratio`` is measured again with its thresholds scaled by that share (not below
    ``faint_floor``), its outline cleared as in :func:`_outline_cleared` and its neighbours'
    traced strokes left out as before. Its ``strength`` is that of :class:`CellInk` (the
    ``strength_percentile`` percentile of its own ink's contrast with its fill, as a multiple of
    the ink thresholds) taken against the scaled thresholds: the glare scales the pen's contrast
    with the outline's, so pen of the card's clear marks keeps about their strength.

    ``lab`` ``(H, W, 3)`` float32 the window's white-balanced Lab and ``raw_map`` ``(H, W)`` bool
    its ink as :func:`_ink_map` gives it; ``measured`` each cell's ``(patch, own, alien, ...)``
    from :func:`cell_ink`.
    """
    shape = (max(c.rc[0] for c in cells) + 1, max(c.rc[1] for c in cells) + 1) if cells else (0, 0)
    out = (np.zeros(shape), np.zeros(shape), np.zeros(shape), np.zeros(shape))
    # the cells whose boxes (and insides within them) have one size are measured together
    groups: dict[tuple[int, ...], list[_Cell]] = {}
    for cell in cells:
        if cell.rc in measured and cell.rc in fills and lab[cell.box].size and lab[cell.inner].size:
            y0, x0 = cell.inner[0].start - cell.box[0].start, cell.inner[1].start - cell.box[1].start
            groups.setdefault((*lab[cell.box].shape[:2], y0, x0, *lab[cell.inner].shape[:2]), []).append(cell)
    local: dict[tuple[int, int], float] = {}
    for (h, w, y0, x0, ih, iw), group in groups.items():
        band = np.ones((h, w), bool)
        band[max(0, y0):max(0, y0 + ih), max(0, x0):max(0, x0 + iw)] = False
        if not band.any():
            continue
        px = np.stack([lab[cell.box] for cell in group])[:, band]
        fill = np.stack([fills[cell.rc] for cell in group])[:, None, :]
        level = linear_percentile(_own_contrast(px, fill, ink_dist, ink_dark), cfg.outline_percentile, axis=1)
        local.update({cell.rc: float(v) for cell, v in zip(group, level, strict=True)})
    if len(local) < 2:
        return out
    card = float(partition_median(np.array(list(local.values()))))
    washed = {rc: max(cfg.faint_floor, v / card) for rc, v in local.items()
              if v < cfg.glare_ratio * card}
    plain = [cell for cell in cells if cell.sym == "#" and cell.rc in washed]
    if not plain:
        return out
    faint_map = raw_map.copy()
    contrast: dict[tuple[int, int], NDArray[np.float32]] = {}
    for cell in plain:
        own = _own_contrast(lab[cell.box], fills[cell.rc], ink_dist, ink_dark)
        faint_map[cell.box] = own >= washed[cell.rc]
        contrast[cell.rc] = own
    cleared = _outline_cleared(faint_map, cells, cfg)
    for cell in plain:
        patch = cleared[cell.inner]
        alien = measured[cell.rc][2]
        if patch.shape != alien.shape:
            continue
        z = _zones(patch.shape, cfg)
        mine = patch & ~alien
        on = _sectors_on(mine[z.ring][None, :], z.sector, cfg.sector_on)[0]
        out[0][cell.rc] = float(mine[z.inner].mean())
        out[1][cell.rc] = float(on.mean())
        out[2][cell.rc] = float(_spread_table()[int(on @ np.array(_SECTOR_BITS))])
        y0, x0 = cell.inner[0].start - cell.box[0].start, cell.inner[1].start - cell.box[1].start
        strong = contrast[cell.rc][y0:y0 + patch.shape[0], x0:x0 + patch.shape[1]][mine]
        if strong.size:
            out[3][cell.rc] = float(linear_percentile(strong, cfg.strength_percentile)) / washed[cell.rc]
    return out


@dataclass(frozen=True)
class _Zones:
    """The parts of a cell's inside ``(h, w)``: centre disc, ring (without the corners), each
    ring pixel's eighth of the circle, and the four corners (TL, TR, BR, BL); ``u``/``v`` each
    pixel's place from the centre as a share of the width/height (float64 in [-0.5, 0.5]);
    ``corner_cols`` ``(h * w, 4)`` float64 the corners as 0/1 columns (a flat ink mask times them
    counts each corner's ink) and ``corner_sizes`` ``(4,)`` float64 their pixel counts."""

    inner: NDArray[np.bool_]
    ring: NDArray[np.bool_]
    sector: NDArray[np.int_]
    corners: tuple[NDArray[np.bool_], ...]
    u: NDArray[np.float64]
    v: NDArray[np.float64]
    corner_cols: NDArray[np.float64]
    corner_sizes: NDArray[np.float64]


def _zones(shape: tuple[int, int], cfg: MarksConfig) -> _Zones:
    """The zones of a cell's inside of ``shape`` ``(h, w)`` (see :class:`_Zones`), made once per size."""
    return _zones_of(shape, cfg.centre_radius, cfg.corner_frac)


@lru_cache(maxsize=256)
def _zones_of(shape: tuple[int, int], centre_radius: float, corner_frac: float) -> _Zones:
    """The zones of an inside of ``shape`` (each a read-only array; a pure function of its
    arguments, so made once per size)."""
    ph, pw = shape
    yy, xx = np.mgrid[0:ph, 0:pw]
    u, v = (xx - (pw - 1) / 2) / pw, (yy - (ph - 1) / 2) / ph
    inner = np.hypot(u, v) < centre_radius
    cx, cy = np.abs(u) > 0.5 - corner_frac, np.abs(v) > 0.5 - corner_frac
    # corners catch strokes overshooting from the neighbours: the ring leaves them out
    ring = ~inner & ~(cx & cy)
    sector = (np.floor((np.arctan2(v, u) + np.pi) / (2 * np.pi) * 8).astype(int) % 8)[ring]
    corners = tuple(cx & cy & (np.sign(u) == su) & (np.sign(v) == sv)
                    for su, sv in ((-1, -1), (1, -1), (1, 1), (-1, 1)))
    corner_cols = np.stack([k.ravel() for k in corners], axis=1).astype(np.float64)
    corner_sizes = corner_cols.sum(axis=0)
    for a in (inner, ring, sector, *corners, u, v, corner_cols, corner_sizes):
        a.flags.writeable = False
    return _Zones(inner, ring, sector, corners, u, v, corner_cols, corner_sizes)


_SECTOR_BITS = (1, 2, 4, 8, 16, 32, 64, 128)  # inked sectors (k, 8) bool times these: one code each


@cache
def _spread_table() -> NDArray[np.float64]:
    """``(256,)`` float64: :func:`_spread` of each pattern of inked sectors, by its code (sector
    ``i`` inked adds ``2**i``). Read-only; a pure function, made once."""
    table = np.array([_spread((code & np.array(_SECTOR_BITS)) > 0) for code in range(256)])
    table.flags.writeable = False
    return table


Span = tuple[slice, slice]


@dataclass(frozen=True)
class _Cell:
    """Where one cell's parts lie in the window of the face its ink is measured in.

    ``box``: the whole cell (clipped to the face); ``inner``: its inside, less ``inner_frac`` on
    each side (where the outline lies); ``contrast``: the inside as sampled for the card's
    contrast; ``fill``: the four corner patches sampled for the cells' fill colour; ``band``: the
    width of the outline band in pixels.
    """

    rc: tuple[int, int]
    sym: str
    box: Span
    inner: Span
    contrast: Span
    fill: tuple[Span, ...]
    band: int


def _span(a: int, b: int, n: int) -> tuple[int, int]:
    """The rows (or columns) ``a:b`` of an axis of length ``n`` select, as ``(start, stop)``."""
    start, stop, _ = slice(a, b).indices(n)
    return start, max(start, stop)


def _cell_geometry(grid: Grid, printed: NDArray[np.str_], size: tuple[int, int],
                   cfg: MarksConfig) -> tuple[list[_Cell], Span]:
    """Every real cell's parts, in the coordinates of the window of a face of ``size`` ``(H, W)``
    that holds them all, and that window. (Strokes bridged across the outline band join alike in
    the window and in the whole face: two grown pixels of the window that touch outside it also
    touch inside it, between them.)"""
    h, w = size
    m = cfg.inner_frac
    raw: list[tuple[tuple[int, int], str, list[tuple[tuple[int, int], tuple[int, int]]], int]] = []
    for (r, c), sym in np.ndenumerate(printed):
        if sym == ".":
            continue
        x0, y0, x1, y1 = grid.cell_box(r, c)
        cw, ch = x1 - x0, y1 - y0
        q = cfg.fill_patch * cw
        spans = [(_span(max(0, round(y0)), min(h, round(y1)), h),
                  _span(max(0, round(x0)), min(w, round(x1)), w)),
                 (_span(max(0, round(y0 + m * ch)), round(y1 - m * ch), h),
                  _span(max(0, round(x0 + m * cw)), round(x1 - m * cw), w)),
                 (_span(round(y0 + m * ch), round(y1 - m * ch), h),
                  _span(round(x0 + m * cw), round(x1 - m * cw), w))]
        for cx, cy in ((x0 + 2 * q, y0 + 2 * q), (x1 - 2 * q, y0 + 2 * q), (x0 + 2 * q, y1 - 2 * q),
                       (x1 - 2 * q, y1 - 2 * q)):
            spans.append((_span(round(cy - q), round(cy + q), h), _span(round(cx - q), round(cx + q), w)))
        raw.append(((int(r), int(c)), str(sym), spans, max(1, round(m * min(cw, ch)))))
    if not raw:
        return [], (slice(0, h), slice(0, w))
    ys: list[int] = []
    xs: list[int] = []
    for _, _, spans, _ in raw:
        for sy, sx in spans:
            if sy[1] > sy[0] and sx[1] > sx[0]:
                ys += sy
                xs += sx
    wy0, wy1 = (min(ys), max(ys)) if ys else (0, h)
    wx0, wx1 = (min(xs), max(xs)) if xs else (0, w)

    def at(sy: tuple[int, int], sx: tuple[int, int]) -> Span:
        """The face rows ``sy`` and columns ``sx`` (start, stop) as slices of the window."""
        if sy[1] <= sy[0] or sx[1] <= sx[0]:
            return slice(0, 0), slice(0, 0)
        return slice(sy[0] - wy0, sy[1] - wy0), slice(sx[0] - wx0, sx[1] - wx0)

    cells = [_Cell(rc, sym, at(*spans[0]), at(*spans[1]), at(*spans[2]),
                   tuple(at(*sp) for sp in spans[3:]), b) for rc, sym, spans, b in raw]
    return cells, (slice(wy0, wy1), slice(wx0, wx1))


def _lab_distance(diff: NDArray[np.float32]) -> NDArray[np.float32]:
    """Euclidean length of Lab differences ``(..., 3)`` float32 over the last axis (the sum of
    squares taken channel by channel, as ``numpy.linalg.norm`` sums them, without its slow
    reduction over a short axis)."""
    d0, d1, d2 = diff[..., 0], diff[..., 1], diff[..., 2]
    return np.sqrt(d0 * d0 + d1 * d1 + d2 * d2)


def linear_percentile(values: NDArray[np.float32], q: float, axis: int = -1) -> NDArray[np.float32]:
    """``numpy.percentile(values, q, axis=axis)`` (linear interpolation) of float32 ``values``
    without NaN, for a Python number ``q``: the same two order statistics found by a partition,
    and the same float32 interpolation between them, without numpy's general machinery (which
    costs more than the partition on the few hundred pixels of a card's cells).

    Parameters
    ----------
    values : (..., n, ...) float32 array
        Taken along ``axis``.
    q : float
        Percentile in [0, 100], a Python ``int`` or ``float`` (numpy's result type then follows
        ``values``).
    axis : int

    Returns
    -------
    float32 scalar or array
        ``values``'s shape without ``axis``.
    """
    n = values.shape[axis]
    if n == 0:
        return np.percentile(values, q, axis=axis)
    # numpy's linear method: the virtual index (n - 1) q, the weight its fraction; at or past the
    # last place both neighbours are the last value
    virtual = (n - 1) * (q / 100)
    if virtual >= n - 1:
        lo = hi = n - 1
        weight = virtual + 1.0
    else:
        lo = int(np.floor(virtual))
        hi = lo + 1
        weight = virtual - lo
    part = np.partition(values, [lo, hi] if hi != lo else lo, axis=axis)
    a, b = np.take(part, lo, axis=axis), np.take(part, hi, axis=axis)
    diff = b - a
    # numpy interpolates from the nearer neighbour
    return b - diff * (1 - weight) if weight >= 0.5 else a + diff * weight


def partition_median(values: NDArray[np.floating], axis: int | None = None) -> NDArray[np.floating]:
    """``numpy.median(values, axis=axis)`` of float ``values`` without NaN: the middle value, or
    the mean of the two middle ones (their sum in ``values``'s type, halved) for an even count,
    found by one partition without numpy's general machinery.

    Parameters
    ----------
    values : float32 or float64 array
    axis : int, optional
        The whole array, flattened, when ``None``.

    Returns
    -------
    scalar or array of ``values``'s type
        ``values``'s shape without ``axis``.
    """
    if axis is None:
        values, axis = values.ravel(), 0
    n = values.shape[axis]
    if n == 0:
        return np.median(values, axis=axis)
    half = n // 2
    if n % 2:
        return np.take(np.partition(values, half, axis=axis), half, axis=axis)
    part = np.partition(values, [half - 1, half], axis=axis)
    return (np.take(part, half - 1, axis=axis) + np.take(part, half, axis=axis)) / 2


def _ink_map(lab: NDArray[np.float32], paper: NDArray[np.float32], cells: list[_Cell],
             ink_dist: float, ink_dark: float,
             cfg: MarksConfig) -> tuple[NDArray[np.bool_], NDArray[np.float32],
                                        dict[tuple[int, int], NDArray[np.float32]]]:
    """``(H, W)`` bool: ink over each cell's whole box, against the cells' fill; ``(H, W)``
    float32 each pixel's contrast with the fill as a multiple of the ink thresholds (the larger of
    its Lab distance over ``ink_dist`` and its darkening over ``ink_dark``: ink from 1); and each
    cell's own fill ``(3,)`` float32 in Lab, as measured in its inside (before the bounds below).

    Shade (uneven light, a shadow) darkens a whole cell: the fill's lightness follows the
    lightest part of the cell's inside (the ``fill_percentile`` percentile of its lightness), within
    ``min_shade``, but does not tint it: a cell whose lightest part is tinted (``shade_tint``, not
    towards its symbol's hue) is covered by pen all over and keeps the paper's lightness. The
    fill's colour (a, b) is the median over the cells (those within
    ``min_shade`` of the paper) of each cell's own fill colour, the mean of its inside's pixels at
    least that light: a colour cast tints the cells unequally and a glare may hold the card's
    lightest pixels, so ``paper`` may be a glare's colour. A cell at least as light as ``paper``
    keeps its own fill colour (a glare adds light and washes the colour out; pen only darkens a
    cell). A glare lights a cell unevenly: in a cell whose fill is more than ``glare_lift`` x
    ``ink_dark`` lighter than the paper, the fill's lightness follows the glare pixel by pixel
    (:func:`_lit_paper`), between the paper's and the cell's fill lightness. Each cell's fill is
    painted over its box, and the whole window is compared with the fill at once.
    """
    used = [cell for cell in cells if lab[cell.box].size and lab[cell.inner].size]
    fill = np.zeros((len(used), 3))
    # the fill_percentile percentile of the inside's lightness, for the cells of each inside size
    # at once; the fill's colour is the mean colour of the inside's pixels at least that light
    by_shape: dict[tuple[int, ...], list[int]] = {}
    for n, cell in enumerate(used):
        by_shape.setdefault(lab[cell.inner].shape, []).append(n)
    for idx in by_shape.values():
        px = np.stack([lab[used[n].inner].reshape(-1, 3) for n in idx])
        fill[idx, 0] = linear_percentile(px[:, :, 0], cfg.fill_percentile, axis=1)
        top = (px[:, :, 0] >= fill[idx, 0][:, None]).astype(np.float32)
        fill[idx, 1:] = np.einsum("kn,knc->kc", top, px[:, :, 1:]) / top.sum(axis=1)[:, None]
    # outside the cells' boxes the fill is never compared (those pixels are no ink)
    ref = np.zeros(lab.shape, np.float32)
    covered = np.zeros(lab.shape[:2], bool)
    # the fill's colour: the median of the cells' own fill colours (a glare or an uneven cast tints
    # the cells unequally; the lightest pixels of the card, its paper, may lie under a glare). A
    # cell lit lighter than the paper shows its own fill's colour: a glare adds light and washes
    # the colour out, where pen only ever darkens a cell's fill and tints it
    light = fill[:, 0] >= cfg.min_shade * paper[0]
    common = partition_median(fill[light, 1:], axis=0) if light.any() else paper[1:]
    # shade darkens a cell without tinting it: a cell whose lightest part is darker than the paper
    # and of another colour than the common fill (shade_tint of the ink distance) is covered by
    # pen all over, and is compared with the paper's lightness. A tint of a symbol's own hue is
    # its print's (blur spreads it over the cell's lightest part)
    tint = fill[:, 1:] - common
    tinted = np.hypot(*tint.T) >= cfg.shade_tint * ink_dist
    tint_hue = np.degrees(np.arctan2(tint[:, 1], tint[:, 0])) % 360.0
    for n, cell in enumerate(used):
        local = paper.copy()
        local[1:] = fill[n, 1:] if fill[n, 0] >= paper[0] else common
        pen_all_over = tinted[n] and not any(lo <= tint_hue[n] < hi
                                             for lo, hi in cfg.symbol_hues.get(cell.sym, ()))
        if not pen_all_over:
            local[0] = min(paper[0], max(float(fill[n, 0]), cfg.min_shade * paper[0]))
        ref[cell.box] = local
        if not pen_all_over and fill[n, 0] > paper[0] + cfg.glare_lift * ink_dark:
            ref[cell.box][:, :, 0] = _lit_paper(lab[cell.box][:, :, 0], cell, (paper[0], fill[n, 0]), cfg)
        covered[cell.box] = True
    own = {cell.rc: fill[n].astype(np.float32) for n, cell in enumerate(used)}
    if not used:
        return covered, np.zeros(covered.shape, np.float32), own
    dist = _lab_distance(lab - ref)
    strength = np.maximum(dist / ink_dist, (ref[:, :, 0] - lab[:, :, 0]) / ink_dark)
    return covered & ((dist > ink_dist) | (lab[:, :, 0] < ref[:, :, 0] - ink_dark)), strength, own


def _lit_paper(light: NDArray[np.float32], cell: _Cell, bounds: tuple[float, float],
               cfg: MarksConfig) -> NDArray[np.float32]:
    """The paper's lightness under a glare at each pixel of a cell's box, ``(h, w)`` float32, from
    the box's lightness ``light`` ``(h, w)`` float32.

    A glare's light varies smoothly over a cell, while pen strokes are thin: the lightest pixel
    within a square of ``glare_window`` x the cell's inside width (smoothed over a square of that
    size) is the lit paper there, kept within ``bounds`` (the paper's lightness, the cell's fill
    lightness). Against the cell's one fill lightness, a faint stroke in the glare's dimmer part is
    no darker than that part; against the paper's, the glare itself lies as far from the paper as
    pen does.
    """
    k = max(3, int(cfg.glare_window * (cell.inner[1].stop - cell.inner[1].start)) | 1)
    lit = cv2.blur(cv2.dilate(np.ascontiguousarray(light), np.ones((k, k), np.uint8)), (k, k))
    return np.clip(lit, bounds[0], bounds[1])


def _outline_cleared(ink_map: NDArray[np.bool_], cells: list[_Cell],
                     cfg: MarksConfig) -> NDArray[np.bool_]:
    """``ink_map`` ``(H, W)`` bool without the ink of the cells' outlines reaching into their boxes.

    Every cell of the lattice shares one outline: blur and a tilted view widen it alike along
    every line, past the ``inner_frac`` band the ring leaves out, so each cell's ring holds a thin
    frame of outline ink on all four sides (read as a ring drawn on the outline). Each side of
    each cell (a segment) is sampled along the middle ``outline_along`` of its length, up to
    ``outline_depth`` of the cell's side in from its line. The outline is a straight run along the
    whole segment: its core reaches as deep as ``outline_on`` of the segment's length is ink (a
    pen stroke crossing the side covers a little of it, a ring drawn in the cell curves away
    from it), its blurred edge as deep as ``outline_edge`` of it is.

    The outline's width is about the same across every line: it is the narrowest sum of the cores on
    the two sides of a line between two plain cells (pen only adds ink; a lattice line found a little
    off the outline's centre moves ink from one side to the other, never changes the sum), plus
    ``outline_slack_px`` for the blurred edges. A symbol's print darkens its cell's fill as measured,
    so the outline reads shallower on a symbol cell's side: lines beside a symbol cell set the width
    only when no line lies between two plain cells. Each segment is cleared to its edge's reach, at
    most the width less the core on the other side of its line (at least half the width: pen on both
    sides), or, with no cell on the other side, at most the least core along its side of the line plus
    the slack. A segment whose own core reaches no deeper than half the width plus the slack is cleared
    to its core whatever the other side holds: blur and a view foreshortened across the face widen some
    lines more than the narrowest, and a line's other side may hold more than the narrowest line's
    share of it. A blurred outline's ragged fringe lies past its edge's reach in patches: ink of a
    cleared plain cell not joined (8-connected) to ink more than ``outline_fringe_px`` inside the
    cleared band is cleared too. What a pen ring drawn against the outline adds past that stays
    ink, joined to the stroke's part inside the band. Only plain cells
    are cleared: a symbol cell's ink is judged beyond its print as the photo's cells of its class show
    it, outline and all."""
    # segment -> (core, edge) reach; a segment is (axis, line, place along it, side): side 1 the
    # cell after the line (below or right of it), 0 before it
    reach: dict[tuple[str, int, int, int], tuple[int, int]] = {}
    kept: list[tuple[_Cell, tuple[tuple[str, int, int, int], ...]]] = []
    depths = _side_depths(ink_map, cells, cfg)
    for cell in cells:
        if cell.rc not in depths:
            continue
        r, c = cell.rc
        sides = (("h", r, c, 1), ("h", r + 1, c, 0), ("v", c, r, 1), ("v", c + 1, r, 0))
        for key, d in zip(sides, depths[cell.rc], strict=True):
            reach[key] = d
        kept.append((cell, sides))
    if not reach:
        return ink_map
    plain = {cell.rc for cell in cells if cell.sym == "#"}
    # the two sides of each line between two cells: (before, after)
    pairs = [((key[0], key[1], key[2], 0), key) for key in reach
             if key[3] == 1 and (key[0], key[1], key[2], 0) in reach]
    between_plain = [(a, b) for a, b in pairs if _segment_cell(a) in plain and _segment_cell(b) in plain]
    cores = [reach[a][0] + reach[b][0] for a, b in (between_plain or pairs)]
    width = (min(cores) if cores else 2 * min(d[0] for d in reach.values())) + cfg.outline_slack_px
    least: dict[tuple[str, int, int], int] = {}
    for (ax, line, _, side), d in reach.items():
        least[(ax, line, side)] = min(d[0], least.get((ax, line, side), d[0]))

    def cleared(key: tuple[str, int, int, int]) -> int:
        """How deep the outline reaches into the segment ``key``."""
        other = (key[0], key[1], key[2], 1 - key[3])
        if other in reach:
            own = reach[key][0]
            return min(reach[key][1], max(width - reach[other][0], width // 2,
                                          own if own <= width // 2 + cfg.outline_slack_px else 0))
        return min(reach[key][1], least[(key[0], key[1], key[3])] + cfg.outline_slack_px, width)

    out = ink_map.copy()
    for cell, sides in kept:
        if cell.sym != "#":
            continue
        top, bottom, left, right = (cleared(k) for k in sides)
        box = out[cell.box]
        box[:top] = False
        box[box.shape[0] - bottom:] = False
        box[:, :left] = False
        box[:, box.shape[1] - right:] = False
        if cfg.outline_fringe_px > 0 and box.any():
            f = cfg.outline_fringe_px
            inner = np.zeros(box.shape, bool)
            inner[top + f:box.shape[0] - bottom - f, left + f:box.shape[1] - right - f] = True
            n, labels = cv2.connectedComponents(np.ascontiguousarray(box, np.uint8), connectivity=8)
            if n > 1:
                keep = np.zeros(n, bool)
                keep[np.unique(labels[inner & box])] = True
                keep[0] = False
                box &= keep[labels]
    return out


def _segment_cell(key: tuple[str, int, int, int]) -> tuple[int, int]:
    """The cell a segment ``(axis, line, place along it, side)`` of :func:`_outline_cleared` is a side of."""
    ax, line, at, side = key
    return (line - 1 + side, at) if ax == "h" else (at, line - 1 + side)


def _side_depths(ink_map: NDArray[np.bool_], cells: list[_Cell],
                 cfg: MarksConfig) -> dict[tuple[int, int], list[tuple[int, int]]]:
    """Each cell's ``(core, edge)`` reach of the ink along its four sides (top, bottom, left,
    right) in from its box's edges, as :func:`_outline_cleared` describes them: the profile of a
    side holds the inked share of its middle ``outline_along`` at each depth up to ``outline_depth``
    of the box's shorter side, and a reach is :func:`_run_depths` of it for ``outline_on`` and
    ``outline_edge``. Cells whose box is less than a pixel deep by that measure are left out. The
    boxes of one size are measured together."""
    groups: dict[tuple[int, int], list[_Cell]] = {}
    for cell in cells:
        h, w = ink_map[cell.box].shape
        if int(cfg.outline_depth * min(h, w)) >= 1:
            groups.setdefault((h, w), []).append(cell)
    out: dict[tuple[int, int], list[tuple[int, int]]] = {}
    a = cfg.outline_along
    for (h, w), group in groups.items():
        depth = int(cfg.outline_depth * min(h, w))
        x0, x1 = round((1 - a) / 2 * w), round((1 + a) / 2 * w)
        y0, y1 = round((1 - a) / 2 * h), round((1 + a) / 2 * h)
        m = np.stack([ink_map[cell.box] for cell in group])
        # each depth's inked count over the side's middle, divided by its length: the mean of
        # the 0/1 pixels (their float sum is that count exactly)
        profiles = np.stack([m[:, :depth, x0:x1].sum(axis=2) / (x1 - x0),
                             m[:, :-depth - 1:-1, x0:x1].sum(axis=2) / (x1 - x0),
                             m[:, y0:y1, :depth].sum(axis=1) / (y1 - y0),
                             m[:, y0:y1, :-depth - 1:-1].sum(axis=1) / (y1 - y0)], axis=1)
        core = _run_depths(profiles, cfg.outline_on).tolist()
        edge = _run_depths(profiles, cfg.outline_edge).tolist()
        for k, cell in enumerate(group):
            out[cell.rc] = list(zip(core[k], edge[k], strict=True))
    return out


def _run_depths(profiles: NDArray[np.float64], share: float) -> NDArray[np.int_]:
    """How deep from its line each segment's ink holds at least ``share`` of its length: the
    first depth of each profile ``(..., depth)`` float64 (the inked share at each depth) below
    ``share``, or ``depth``; ``(...)`` int."""
    below = profiles < share
    return np.where(below.any(axis=-1), below.argmax(axis=-1), profiles.shape[-1])


def _foreign_ink(ink_map: NDArray[np.bool_], grid: Grid, cells: list[_Cell], origin: tuple[int, int],
                 cfg: MarksConfig) -> tuple[NDArray[np.int32], NDArray[np.bool_]]:
    """Ink that belongs to another cell's pen stroke: ``(labels, alien)``, the stroke of each
    pixel ``(H, W)`` int32 of the window (0 none; ``origin`` is the window's top-left face pixel
    ``(y, x)``) and whether stroke ``j`` is foreign to the cell of flat index ``k``,
    ``alien[k, j]``. A symbol's print may touch a neighbour's stroke and join it: the symbol
    cells' foreign ink is traced on ``ink_map`` without the print (see :func:`cell_ink`).

    A stroke overshooting its cell crosses the outline into a neighbour. The cells' ink is
    joined across the outlines (bridged over the ``inner_frac`` band where the outline lies) into
    strokes; a stroke belongs to the cell holding its centre of mass when it holds at least
    ``stroke_home`` of its ink there. In another cell its ink is foreign unless that cell holds at least
    ``own_share`` of it, or the ink there has its centre of mass within ``spill_offset`` of the
    cell's centre (an overshoot enters on one side; a mark drawn in the cell and joined to a
    neighbour's across the outline lies round the centre).
    """
    h, w = ink_map.shape
    rows, cols = grid.shape
    ink = np.zeros((h, w), np.uint8)
    index = np.full((h, w), -1, np.int32)
    band = max([1, *(cell.band for cell in cells)])
    for cell in cells:
        (r, c), b, box = cell.rc, cell.band, cell.box
        m = ink_map[box].copy()
        if m.size == 0:
            continue
        m[:b, :] = m[-b:, :] = False  # the outline is no stroke
        m[:, :b] = m[:, -b:] = False
        ink[box] = m
        index[box] = r * cols + c
    if not ink.any():
        return np.zeros((h, w), np.int32), np.zeros((rows * cols, 1), bool)
    # strokes cut by the outline band are joined again across it
    bridged = cv2.dilate(ink, np.ones((2 * band + 3, 2 * band + 3), np.uint8))
    n, labels = cv2.connectedComponents(bridged, connectivity=8)
    labels = np.where(ink > 0, labels, 0)
    on = (labels > 0) & (index >= 0)
    lab_ids, cell_ids = labels[on], index[on]
    counts = np.bincount(lab_ids * (rows * cols) + cell_ids,
                         minlength=n * rows * cols).reshape(n, rows * cols).astype(np.float64)
    total = counts.sum(axis=1)
    ys, xs = np.nonzero(on)
    ys, xs = ys + origin[0], xs + origin[1]
    cy = np.bincount(lab_ids, weights=ys, minlength=n) / np.maximum(total, 1.0)
    cx = np.bincount(lab_ids, weights=xs, minlength=n) / np.maximum(total, 1.0)
    rr = np.clip(np.searchsorted(grid.ys, cy) - 1, 0, rows - 1)
    cc = np.clip(np.searchsorted(grid.xs, cx) - 1, 0, cols - 1)
    home = rr * cols + cc
    share = counts / np.maximum(total, 1.0)[:, None]
    # a stroke lies mostly in its own cell; ink joined over many cells (strokes touching the
    # lattice or each other) is nobody's stroke and stays where it is
    stroke = share[np.arange(n), home] >= cfg.stroke_home
    small = np.less(share.T, cfg.own_share)  # (cells, strokes)
    # an overshoot enters a cell on one side: the stroke's ink in the cell has its centre of mass
    # farther than spill_offset from the centre of the cell's inside (as a share of its side);
    # ink centred in the cell is a mark of its own (a ring drawn in the cell, joined to a
    # neighbour's mark across the outline)
    key = lab_ids * (rows * cols) + cell_ids
    at_y = np.bincount(key, weights=ys, minlength=n * rows * cols).reshape(n, rows * cols)
    at_x = np.bincount(key, weights=xs, minlength=n * rows * cols).reshape(n, rows * cols)
    cell_r, cell_c = np.divmod(np.arange(rows * cols), cols)
    x0, x1, y0, y1 = grid.xs[cell_c], grid.xs[cell_c + 1], grid.ys[cell_r], grid.ys[cell_r + 1]
    inside = 1.0 - 2.0 * cfg.inner_frac
    held = np.maximum(counts, 1.0)
    u = (at_x / held - (x0 + x1) / 2) / (inside * (x1 - x0))
    v = (at_y / held - (y0 + y1) / 2) / (inside * (y1 - y0))
    aside = np.greater(np.hypot(u, v).T, cfg.spill_offset)  # (cells, strokes)
    # ink joined over many cells is nobody's, except in the cell that holds its centre of mass with
    # little of its ink, off to one side: marks in two diagonal neighbours, joined across the
    # corner of the cell between them (a blurred stroke smeared over it), have their centre of
    # mass there
    at_home = home[None, :] == np.arange(rows * cols)[:, None]
    alien = np.where(stroke[None, :], ~at_home, at_home) & small & aside
    alien[:, 0] = False
    return labels.astype(np.int32), alien


def _ink_thresholds(lab: NDArray[np.float32], paper: NDArray[np.float32], cells: list[_Cell],
                    cfg: MarksConfig) -> tuple[float, float]:
    """Ink thresholds from this card's own contrast: blur and dim light lower every stroke's
    contrast, so the thresholds follow the strongest contrasts inside the cells (the print and
    the pen), within the configured bounds."""
    parts = [lab[cell.contrast].reshape(-1, 3) for cell in cells]
    if not parts:
        return cfg.ink_dist, cfg.ink_dark
    dist = _lab_distance(np.concatenate(parts) - paper)
    strong = float(linear_percentile(dist, cfg.contrast_percentile))
    scale = float(np.clip(cfg.contrast_share * strong / cfg.ink_dist, cfg.min_ink_scale, 1.0))
    return cfg.ink_dist * scale, cfg.ink_dark * scale


def _linked_corners(ink: NDArray[np.bool_], inner: NDArray[np.bool_],
                    corners: tuple[NDArray[np.bool_], ...]) -> NDArray[np.float64]:
    """``(k,)`` share of the four ``corners`` reached by ink joined (8-connected, within the cell)
    to ink in the centre ``inner``, for ``k`` cells' ink ``(k, h, w)`` bool.

    The cells are stacked one under the other with an empty row between them (so no ink joins
    across two cells) and labelled at once."""
    k, h, w = ink.shape
    stacked = np.zeros((k, h + 1, w), np.uint8)
    stacked[:, :h] = ink
    n, labels = cv2.connectedComponents(stacked.reshape(k * (h + 1), w), connectivity=8)
    labels = labels.reshape(k, h + 1, w)[:, :h]
    central = np.zeros(n, bool)
    central[labels[:, inner]] = True
    central[0] = False
    joined = central[labels].reshape(k, h * w).astype(np.float32)
    # each corner's joined pixels counted at once (0/1 columns; a float32 count of a few hundred
    # pixels is exact): a corner is reached when its count is not 0
    zones = np.stack([zone.ravel() for zone in corners], axis=1).astype(np.float32)
    return np.count_nonzero(joined @ zones, axis=1) / 4.0


def _sectors_on(ink: NDArray[np.bool_], sector: NDArray[np.int_], on: float) -> NDArray[np.bool_]:
    """``(k, 8)`` bool: which of the ring's eight sectors carry ink above ``on`` of their pixels,
    for ``k`` cells' ring ink ``(k, n)`` (``sector`` ``(n,)`` each ring pixel's sector)."""
    hits = ink.astype(np.float64) @ (sector[:, None] == np.arange(8)[None, :]).astype(np.float64)
    sizes = np.maximum(np.bincount(sector, minlength=8), 1)
    return hits / sizes > on


def _spread(on: NDArray[np.bool_]) -> float:
    """The shortest arc of the circle holding every inked sector (``on`` ``(8,)`` bool), as a
    share of the circle."""
    on_s = np.flatnonzero(on)
    if on_s.size == 0:
        return 0.0
    # the longest run of empty sectors round the circle is what the arc leaves out
    gaps = np.diff(np.concatenate([on_s, on_s[:1] + 8])) - 1
    return float((8 - gaps.max()) / 8.0)


def _pen_fill(face: NDArray[np.uint8], cells: list[_Cell], paper: NDArray[np.float64],
              cfg: MarksConfig) -> NDArray[np.float64]:
    """The BGR fill the face is white-balanced on: the per-channel median of the lightest
    ``paper_share`` of the cells' fill patches (by Lab lightness), or ``paper`` without any.

    Pen only darkens and tints the paper. On a card marked through it covers most of each cell, so
    a median over the cells (the grid's ``paper``) takes the pen's colour, and balancing on it
    turns the print's hues (a gold coin reads green) and the pen's; the lightest pixels between
    the strokes are still the paper.

    Parameters
    ----------
    face : (H, W, 3) uint8 array
        The BGR window the cells' spans index.
    cells : list of _Cell
    paper : (3,) float64 array
        The grid's fill, BGR.
    cfg : MarksConfig

    Returns
    -------
    (3,) float64 array
    """
    parts = [face[sl].reshape(-1, 3) for cell in cells for sl in cell.fill]
    px = np.concatenate(parts) if parts else np.zeros((0, 3), np.uint8)
    if len(px) == 0:
        return paper
    light = cv2.cvtColor(px[None], cv2.COLOR_BGR2LAB)[0, :, 0].astype(np.float32)
    top = px[light >= linear_percentile(light, 100.0 * (1.0 - cfg.paper_share))]
    return partition_median(top.astype(np.float64), axis=0)


def _paper_lab(lab: NDArray[np.float32], cells: list[_Cell], cfg: MarksConfig) -> NDArray[np.float32]:
    """The cells' fill in balanced Lab: the median of the cells' corner regions."""
    parts = [lab[sl].reshape(-1, 3) for cell in cells for sl in cell.fill]
    px = np.concatenate(parts) if parts else lab.reshape(-1, 3)
    # pen ink darkens a cell: the fill is the lightest common colour of the cells
    light = px[px[:, 0] >= linear_percentile(px[:, 0], 100.0 * (1.0 - cfg.paper_share))]
    return partition_median(light, axis=0)


def _second_least(values: NDArray[np.float64]) -> float:
    """The baseline of a class's cells on one card: the second-lowest of ``values`` (any shape)
    when there are three or more, else the lowest. One odd cell proves nothing (a print washed
    out by a glare has less ink than any clean print of its class)."""
    ordered = np.sort(values.ravel())
    return float(ordered[1] if ordered.size >= 3 else ordered[0])


def _decide(centre: float, sectors: float, lo: tuple[float, float],
            hi: tuple[float, float]) -> tuple[int, float, float]:
    """Two thresholds per feature: marked when either the centre ink or the ring's sector
    coverage reaches ``hi``; unmarked when both stay at or below ``lo``; else uncertain.
    Returns (state, score, confidence); ``score`` >= 1 means marked."""
    score = max(centre / hi[0], sectors / hi[1])
    if score >= 1.0:
        return 1, score, float(min(1.0, 0.5 + 0.5 * (score - 1.0)))
    if centre <= lo[0] and sectors <= lo[1]:
        low = max(centre / max(lo[0], 1e-6), sectors / max(lo[1], 1e-6))
        return 0, score, float(min(1.0, 1.0 - 0.5 * low))
    return -1, score, 0.0


class PrintTemplates(dict[str, NDArray[np.bool_]]):
    """Symbol -> ``(S, S)`` bool print mask, learnt from one photo's cells of each symbol.

    ``typical`` maps each learnt symbol to the shares of its cells' centre and ring that its
    print itself leaves as residual ink (beyond the symbol's hue) in the photo, and the share of
    the cells' four corners it inks: blur, glare and a colour cast turn a symbol's edges off its
    hue alike in every cell printed with it. ``paired`` holds the symbols printed in only two cells
    of the photo, whose print is what both cells show (no typical residual is learnt from two).
    """

    def __init__(self, masks: Mapping[str, NDArray[np.bool_]],
                 typical: Mapping[str, tuple[float, float, float]] | None = None,
                 paired: frozenset[str] = frozenset()) -> None:
        super().__init__(masks)
        self.typical: dict[str, tuple[float, float, float]] = dict(typical or {})
        self.paired: frozenset[str] = paired


def print_templates(cards: Sequence[tuple[CellInk, NDArray[np.str_]]],
                    config: MarksConfig | None = None) -> PrintTemplates:
    """The print of each symbol class, learnt from every cell printed with it in one photo.

    A symbol is printed alike in each of its cells, while pen strokes differ from cell to cell
    and only add ink: a pixel is print when it is ink in at least ``print_share`` of the class's
    cells with the least ink (the ``print_cells`` share of them, at least two). The print's
    own residual ink (centre and ring shares) is the ``typical_quantile`` percentile over the
    class's cells (most cells of a class carry no pen; the lower part of the spread is the
    print), its inked corners the second-lowest share. Classes with fewer than ``min_pool``
    cells get no typical residual. A class of exactly two cells gets the ink both show, the
    second brought onto the first by the shift that fits it best (pen strokes differ from cell to
    cell; two cells marked alike pass for print), and is listed in ``paired``; a single cell gets
    no template.

    Parameters
    ----------
    cards : sequence of (CellInk, (rows, cols) str array)
        Each identified card's cell ink and printed symbols (same frame).

    Returns
    -------
    PrintTemplates
        Symbol -> ``(S, S)`` bool print mask (grown by ``print_grow_px`` against small shifts),
        with each symbol's typical residual ink.
    """
    cfg = config or default_config()
    pools: dict[str, list[tuple[NDArray[np.bool_], float, float, float]]] = {}
    for ink, printed in cards:
        for (r, c), sym in np.ndenumerate(printed):
            if sym not in (".", "#"):
                corner = float(ink.corner_ink[r, c]) if ink.corner_ink is not None else 1.0
                pools.setdefault(str(sym), []).append(
                    (ink.masks[r, c], float(ink.centre_res[r, c]), float(ink.ring_res[r, c]), corner))
    out: dict[str, NDArray[np.bool_]] = {}
    typical: dict[str, tuple[float, float, float]] = {}
    k = 2 * cfg.print_grow_px + 1
    kernel = np.ones((k, k), np.uint8)
    paired: set[str] = set()
    for sym, pool in pools.items():
        if len(pool) == 2 and cfg.min_pool > 2:
            # the second cell is brought onto the first itself, not onto a first estimate of the
            # print as a pool's cells are: two cells' first estimate is their union, pen included
            first, second = pool[0][0], pool[1][0]
            shifts = _flat_shifts(second, cfg.print_shift_px)
            best = int(np.argmax(shifts @ first.ravel().astype(np.float32)))
            fitted = shifts[best].reshape(first.shape) > 0
            out[sym] = cv2.dilate((first & fitted).astype(np.uint8), kernel).astype(bool)
            paired.add(sym)
            continue
        if len(pool) < cfg.min_pool:
            continue
        masks = np.stack([p[0] for p in pool])
        # pen only adds ink to a cell, and most cells of a class may carry it (a card marked
        # through): the print is learnt from the cells with the least ink
        order = np.argsort(masks.reshape(len(pool), -1).sum(axis=1), kind="stable")
        masks = masks[order[:max(2, int(np.ceil(cfg.print_cells * len(pool))))]]
        share = masks.mean(axis=0)
        # each cell's print sits a pixel or two off (the grid lines are found to a pixel or so):
        # each mask is brought onto the first estimate of the print before the shares are taken
        # again
        first = share >= cfg.print_share
        # a mask moved by a shift meets the print as the print moved by the opposite shift (the
        # reverse order of _shifted) meets the mask
        reach, (h, w) = cfg.print_shift_px, masks.shape[1:]
        overlap = masks.reshape(len(masks), -1).astype(np.float32) @ _flat_shifts(first, reach)[::-1].T
        big = np.pad(masks, [(0, 0), (reach, reach), (reach, reach)])
        corner = [divmod(int(k), 2 * reach + 1) for k in overlap.argmax(axis=1)]
        share = np.mean([big[n, dy:dy + h, dx:dx + w] for n, (dy, dx) in enumerate(corner)], axis=0)
        out[sym] = cv2.dilate((share >= cfg.print_share).astype(np.uint8), kernel).astype(bool)
        c, g = (float(np.percentile([p[i] for p in pool], cfg.typical_quantile)) for i in (1, 2))
        # corners the print leaves clear in two of its cells are clear in every cell (pen may
        # mark most cells of a class; one misread cell proves nothing)
        typical[sym] = (c, g, sorted(p[3] for p in pool)[1])
    return PrintTemplates(out, typical, frozenset(paired))


def print_turn_lead(ink: CellInk, mine: NDArray[np.str_], theirs: NDArray[np.str_],
                    templates: Mapping[str, NDArray[np.bool_]],
                    config: MarksConfig | None = None) -> float | None:
    """How much better the cells' ink fits the prints of grid ``mine`` than those of another turn
    ``theirs`` of it, where the two print different symbols; ``None`` when they print alike, or a
    symbol there has no pooled print.

    Pen of another colour over a symbol hides its hue, which the card's symbol evidence reads, but
    not its print's shape: the share of a symbol's pooled print (``templates``, best over shifts of
    ``print_shift_px``) inked in a cell is high where it is printed and lower where another symbol
    or none is. For each cell where the turns differ, a symbol's likeness is that share, a plain
    cell's one less the share of the other turn's symbol; the lead is the mean of ``mine``'s
    likeness less ``theirs``'s (-1 to 1). A cell inked all over fits every print alike.

    Parameters
    ----------
    ink : CellInk
        The face's ink (``masks`` ``(rows, cols, S, S)`` bool, whatever symbol each cell prints).
    mine, theirs : (rows, cols) str arrays
        Two turns of a card's grid (``.`` for water), ``mine`` the one read.
    templates : mapping
        Symbol -> ``(S, S)`` bool pooled print (:func:`print_templates`).
    config : MarksConfig, optional

    Returns
    -------
    float or None
    """
    cfg = config or default_config()
    if mine.shape != theirs.shape:
        return None
    differ = (mine != theirs) & (mine != ".") & (theirs != ".")
    if not differ.any():
        return None
    leads = []
    for rc in zip(*np.nonzero(differ), strict=True):
        a, b = str(mine[rc]), str(theirs[rc])
        share: dict[str, float] = {}
        for sym in {a, b} - {"#"}:
            template = templates.get(sym)
            if template is None or not template.any():
                return None
            hits = _flat_shifts(template, cfg.print_shift_px) @ ink.masks[rc].ravel().astype(np.float32)
            share[sym] = float(hits.max() / np.count_nonzero(template))
        like_a = share[a] if a != "#" else 1.0 - share[b]
        like_b = share[b] if b != "#" else 1.0 - share[a]
        leads.append(like_a - like_b)
    return float(np.mean(leads))


def _shifted(masks: NDArray[np.bool_], reach: int) -> NDArray[np.bool_]:
    """``(k, ..., S, S)`` bool: ``masks`` ``(..., S, S)`` moved by every shift of at most ``reach``
    pixels along each axis (``k = (2 reach + 1)**2``; what moves out is lost, what moves in is
    empty)."""
    size = masks.shape[-2:]
    pad = [(0, 0)] * (masks.ndim - 2) + [(reach, reach), (reach, reach)]
    big = np.pad(masks, pad)
    span = 2 * reach + 1
    return np.stack([big[..., dy:dy + size[0], dx:dx + size[1]] for dy in range(span) for dx in range(span)])


def pooled_residual(ink: CellInk, rc: tuple[int, int], template: NDArray[np.bool_],
                    reach: int | None = None, config: MarksConfig | None = None) -> float:
    """Share of a cell's mask that is ink outside its class's print ``template``, with the print
    moved by at most ``reach`` mask pixels (``print_shift_px`` by default) to fit the cell best;
    straight runs along the mask's sides (the outline entering the cell's inside) are left out
    (:func:`_edge_runs_cleared`).

    Parameters
    ----------
    ink : CellInk
        The face's ink; ``ink.masks`` is ``(rows, cols, S, S)`` bool.
    rc : (row, col)
        The cell.
    template : (S, S) bool array
        The pooled print of the cell's symbol class.
    reach : int, optional
        The largest shift along each axis, in mask pixels.
    config : MarksConfig, optional

    Returns
    -------
    float
        In ``[0, 1]``.
    """
    cfg = config or default_config()
    shift = cfg.print_shift_px if reach is None else reach
    return _residual_offset(_edge_runs_cleared(ink.masks[rc], cfg), _flat_shifts(template, shift))[0]


def _flat_shifts(mask: NDArray[np.bool_], reach: int) -> NDArray[np.float32]:
    """``(k, S * S)`` float32 (0 or 1): the :func:`_shifted` copies of one ``(S, S)`` mask, each
    flattened."""
    return _shifted(mask, reach).reshape(-1, mask.size).astype(np.float32)


def _edge_runs_cleared(mask: NDArray[np.bool_], cfg: MarksConfig) -> NDArray[np.bool_]:
    """``mask`` ``(S, S)`` bool without the straight runs along its sides: each of its outer
    ``print_edge_px`` rows and columns on each side inked along at least ``print_edge_run`` of its
    length is cleared, unless all four sides hold such runs. Such a run is the cell's outline
    entering the inside (a lattice line a pixel off, a blurred outline), not a pen mark (a
    hand-drawn stroke is not a straight full-length line hugging the cell's side); ink along all
    four sides is a ring drawn on the outline or a cell inked through, and stays."""
    depth = cfg.print_edge_px
    if depth <= 0:
        return mask
    h, w = mask.shape
    rows = mask.mean(axis=1) >= cfg.print_edge_run
    cols = mask.mean(axis=0) >= cfg.print_edge_run
    rows[depth:h - depth] = False
    cols[depth:w - depth] = False
    if not rows.any() and not cols.any():
        return mask
    if rows[:depth].any() and rows[-depth:].any() and cols[:depth].any() and cols[-depth:].any():
        # ink along all four sides: a ring drawn on the outline or a cell inked through, judged as
        # it is (an outline entering a box a pixel off enters on one side of each axis, or at most
        # along one axis's two sides when the box is too long)
        return mask
    out = mask.copy()
    out[rows, :] = False
    out[:, cols] = False
    return out


def _residual_offset(mask: NDArray[np.bool_], prints: NDArray[np.float32]) -> tuple[float, float]:
    """Share of ``mask`` ``(S, S)`` outside the best fitting of the print's shifts ``prints``
    ``(k, S * S)`` (:func:`_flat_shifts`), the mask less its largest overlap with one of them; and
    how far the centre of mass of that ink beyond the print lies from the mask's centre, as a
    share of its side (0 without such ink)."""
    flat = mask.ravel().astype(np.float32)
    overlap = prints @ flat
    best = int(np.argmax(overlap))
    share = float((np.count_nonzero(mask) - overlap[best]) / mask.size)
    beyond = (flat > 0) & (prints[best] == 0)
    if not beyond.any():
        return share, 0.0
    side = mask.shape[0]
    ys, xs = np.divmod(np.flatnonzero(beyond), mask.shape[1])
    return share, float(np.hypot(xs.mean() - (mask.shape[1] - 1) / 2, ys.mean() - (side - 1) / 2) / side)


def _pooled(state: int, score: float, conf: float, residual: float,
            hi: float) -> tuple[int, float, float]:
    """Second stage for a symbol cell: ink beyond the pooled print, from ``hi`` of the cell's mask,
    marks it. The lack of such ink settles nothing (a dot on the print, or a gesture repeated in
    most cells of the class, leaves none), so the first stage's verdict stands then."""
    if residual >= hi:
        s = max(score, residual / hi)
        return 1, s, float(min(1.0, 0.5 + 0.5 * (s - 1.0)))
    return state, score, conf


def read_marks(face: NDArray[np.uint8], grid: Grid, printed: NDArray[np.str_],
               reference: CellInk | None = None, config: MarksConfig | None = None,
               templates: Mapping[str, NDArray[np.bool_]] | None = None,
               ink: CellInk | None = None) -> CellVerdicts:
    """Marked / unmarked / uncertain for every cell of ``printed``.

    Parameters
    ----------
    face : (H, W, 3) uint8 array
        Upright BGR face.
    grid : Grid
        The grid found on it.
    printed : (rows, cols) str array
        The symbols at each grid position as printed on this face (``.`` for water), from the
        identified card, or from presence alone (all ``#``) when unknown.
    reference : CellInk, optional
        The ink of the clean reference face (same printed frame).
    templates : mapping, optional
        Symbol -> print mask from :func:`print_templates` (pooled over the photo's cards): ink
        outside the print settles a symbol cell as marked (from ``pooled_hi``, or from
        ``pair_pooled_hi`` for a print learnt from two cells, listed in its ``paired``). Its ``typical``
        residual ink of each learnt symbol replaces the per-card baseline of the first stage.
    ink : CellInk, optional
        This face's ink when already measured with :func:`cell_ink`.
    """
    cfg = config or default_config()
    ink = ink if ink is not None else cell_ink(face, grid, printed, cfg)
    typical = templates.typical if isinstance(templates, PrintTemplates) else {}
    rows, cols = grid.shape
    state = np.full((rows, cols), -2, np.int8)
    score = np.zeros((rows, cols))
    conf = np.zeros((rows, cols))
    # the fourth stage's cells: 1 where the faint ink reads as a mark, -1 as an open case
    faint_read = np.zeros((rows, cols), np.int8)
    loops = _loops_apart(ink, printed, cfg)
    # the corner rule keeps the ring evidence as measured: with the ring baseline taken off there
    # too, more cells count as unmarked and more cards' corners pass for the lattice's
    ring_base = _ring_baseline(ink, printed, cfg)
    for sym in sorted(set(printed.ravel()) - {"."}):
        where = printed == sym
        cells = list(zip(*np.nonzero(where), strict=True))
        many = len(cells) >= 2
        # the class's baselines (its cleanest cell), the same for each of its cells
        least_centre_res = min(float(ink.centre_res[where].min()), cfg.residual_cap_centre)
        least_sectors_res = float(ink.sectors_res[where].min()) if many else cfg.symbol_ring_allowance
        least_centre = _second_least(ink.centre[where])
        least_corners = float(ink.corners[where].min())
        template = templates.get(sym) if templates is not None and sym != "#" else None
        prints = _flat_shifts(template, cfg.print_shift_px) if template is not None else None
        # a print learnt from two cells is what both show, less sure than a pool's share
        pooled_hi = (cfg.pair_pooled_hi if isinstance(templates, PrintTemplates) and sym in templates.paired
                     else cfg.pooled_hi)
        own_corners = float(ink.corner_ink[where].min()) if many and ink.corner_ink is not None else None
        if sym == "#":
            corner_base = 0.0
        elif sym in typical:
            # the corners the symbol's print inks in the photo; a card's own cells of the symbol are
            # one print, so corners inked in all of them are its print's too (a photo may hold cards
            # printed in more than one style)
            corner_base = typical[sym][2] if own_corners is None else max(typical[sym][2], own_corners)
        else:
            corner_base = 1.0 if own_corners is None else own_corners
        for rc in cells:
            if sym == "#":
                c, sec = _plain_evidence(ink, rc, cfg)
                lo, hi = cfg.plain_lo, cfg.plain_hi
                if c <= lo[0]:
                    # ring ink with an empty centre, above what the lattice leaves in every ring
                    sec = max(0.0, sec - ring_base)
            else:
                lo, hi = cfg.symbol_lo, cfg.symbol_hi
                typ = typical.get(sym)
                if typ is not None:
                    # ink beyond the symbol's hue, above what its print leaves in this photo; in
                    # the ring, the continuous share (off-hue edges of a blurred print light up
                    # ring sectors alike in every cell)
                    c = float(ink.centre_res[rc]) - min(typ[0], cfg.residual_cap_centre)
                    sec = max(0.0, float(ink.ring_res[rc]) - typ[1]) * hi[1] / cfg.ring_res_hi
                else:
                    # ink beyond the symbol's own hue, above what the cleanest cell of the class on
                    # this card shows (a lone symbol may reach into part of the ring on its own)
                    c = float(ink.centre_res[rc]) - least_centre_res
                    sec = float(ink.sectors_res[rc]) - least_sectors_res
                if reference is not None:
                    c = max(c, float(ink.centre[rc] - reference.centre[rc]))
                    sec = max(sec, float(ink.sectors[rc] - reference.sectors[rc]))
                elif many:
                    # the print is the same in every cell of a class: compare with the cleanest one
                    # (the second cleanest of three or more)
                    c = max(c, float(ink.centre[rc]) - least_centre)
                if many and float(ink.corners[rc]) - least_corners >= cfg.linked_corners:
                    sec = max(sec, hi[1])  # a stroke runs from the symbol into corners its print leaves clear
            looped = (ink.corner_ink is not None
                      and float(ink.corner_ink[rc]) - corner_base >= cfg.loop_corners)
            if looped and loops:
                # a ring drawn on the outline passes through all four corners of the cell's inside,
                # where neither the print (its class leaves them clear) nor one neighbour's
                # overshooting stroke reaches
                sec = max(sec, hi[1])
            st, sc, cf = _decide(c, sec, lo, hi)
            if looped and not loops and st == 0:
                # corners inked all over the card: a ring on this cell's outline is neither seen
                # nor ruled out
                st, cf = -1, 0.0
            off = float(ink.offset[rc]) if ink.offset is not None else 0.0
            if st == -1 and off > cfg.spill_offset:
                # second stage: the cell's own ink beyond its print has its centre of mass in the
                # outer half of the cell, on one side: a neighbour's stroke reaching in (hatching
                # joined across the outlines), not a mark drawn on this cell
                st, cf = 0, 0.5
            if st == 0 and sym == "#" and ink.faint is not None:
                # fourth stage: faint ink in a washed-out cell, judged against its neighbourhood
                faint_read[rc] = _faint_reading(ink.faint, rc, cfg)
                if faint_read[rc] != 0:
                    st, cf = -1, 0.0
            if prints is not None:
                share, aside = _residual_offset(_edge_runs_cleared(ink.masks[rc], cfg), prints)
                if aside <= cfg.pooled_aside:
                    # ink beyond the print along one side of the cell is a neighbour's stroke
                    # reaching in (joined over several cells, no tracing gives it to one), not a
                    # mark drawn on this cell's symbol
                    st, sc, cf = _pooled(st, sc, cf, share, pooled_hi)
            state[rc], score[rc], conf[rc] = st, sc, cf
    pen = _card_pen(state, ink, printed)
    _settle_dots(state, score, conf, ink, printed, cfg)
    _settle_faint(state, score, conf, ink, faint_read, pen, cfg)
    return CellVerdicts(state, score, conf)


def _plain_evidence(ink: CellInk, rc: tuple[int, int], cfg: MarksConfig) -> tuple[float, float]:
    """A plain cell's centre ink and ring sector share, as :func:`_decide` weighs them: ink on one
    side of the ring only, none in the centre, is a neighbour's stroke spilt over (or a mark cut by
    the outline) and not a mark on its own."""
    c, sec = float(ink.centre[rc]), float(ink.sectors[rc])
    if c < cfg.plain_hi[0] and float(ink.spread[rc]) <= cfg.spill_arc:
        sec = min(sec, 0.5 * (cfg.plain_lo[1] + cfg.plain_hi[1]))
    return c, sec


def _ring_baseline(ink: CellInk, printed: NDArray[np.str_], cfg: MarksConfig) -> float:
    """The ring sector share the lattice itself leaves in the plain cells: the second-least share
    (:func:`_second_least`) of the plain cells with no ink in their centre (at most
    ``plain_lo[0]``), when there are ``ring_common_cells`` of them or more; at most
    ``plain_lo[1]``; else 0.

    Heavy blur spreads a thick outline past what :func:`_outline_cleared` removes, into every
    cell's ring alike: clean cells then show ring ink around an empty centre, as a faint ring drawn
    on the cell would. A ring mark inks the ring's sectors beyond what the clean cells show. The
    second-least share is taken, as for a symbol's baseline, so that one odd cell proves nothing;
    the bound keeps a card ringed in nearly every cell from hiding its rings.
    """
    free = [float(ink.sectors[rc]) for rc in zip(*np.nonzero(printed == "#"), strict=True)
            if float(ink.centre[rc]) <= cfg.plain_lo[0]]
    if len(free) < cfg.ring_common_cells:
        return 0.0
    return min(_second_least(np.array(free)), cfg.plain_lo[1])


def _loops_apart(ink: CellInk, printed: NDArray[np.str_], cfg: MarksConfig) -> bool:
    """Whether ink in all four inside corners of a cell may be read as a ring on its outline.

    The blurred crossings of a thick lattice ink the inside corners of plain cells alike: when
    ``loop_common`` or more of the plain cells that show no mark otherwise have all four corners
    inked, the corners are the lattice's, not rings drawn on outlines (a player rings a few cells
    of a card, not nearly all of the rest)."""
    if ink.corner_ink is None:
        return False
    rest = [rc for rc in zip(*np.nonzero(printed == "#"), strict=True)
            if _decide(*_plain_evidence(ink, rc, cfg), cfg.plain_lo, cfg.plain_hi)[0] != 1]
    if len(rest) < cfg.loop_cells:
        return True
    looped = sum(float(ink.corner_ink[rc]) >= cfg.loop_corners for rc in rest)
    return looped < cfg.loop_common * len(rest)


def _own_contrast(px: NDArray[np.float32], fill: NDArray[np.float32], ink_dist: float,
                  ink_dark: float) -> NDArray[np.float32]:
    """Each Lab pixel's contrast with a cell's own ``fill`` (float32, ``(..., 3)`` broadcast
    against ``px``) as a multiple of the ink thresholds (the larger of its Lab distance over
    ``ink_dist`` and its darkening over ``ink_dark``, as in :func:`_ink_map`); ``px`` ``(..., 3)``
    float32, result ``(...)`` float32."""
    return np.maximum(_lab_distance(px - fill) / ink_dist, (fill[..., 0] - px[..., 0]) / ink_dark)


def _faint_reading(faint: tuple[NDArray[np.float64], ...], rc: tuple[int, int], cfg: MarksConfig) -> int:
    """How the faint ink of a plain cell read unmarked reads against its washed-out
    neighbourhood's contrast (:func:`_faint_ink`): 1 as a mark, -1 as an open case, 0 as nothing.
    The lowered thresholds also take in the blurred outline and a neighbour's stroke reaching in:
    ink on one side of the ring only (within ``spill_arc``) without ink in the centre (above
    ``plain_lo``) is not a mark's shape (0); a faint mark crosses the cell's centre or goes round
    it. ``faint`` holds ``(centre, sectors, spread, ...)``, each ``(rows, cols)`` float64."""
    c, sec, spread = (float(faint[k][rc]) for k in range(3))
    lo, hi = cfg.plain_lo, cfg.plain_hi
    if c <= lo[0] and spread <= cfg.spill_arc:
        return 0
    return _decide(c, sec, lo, hi)[0]


def _card_pen(state: NDArray[np.int8], ink: CellInk, printed: NDArray[np.str_]) -> float | None:
    """The strength of the pen of a card's clear marks: the median ``strength`` of its marked
    plain cells (``state`` ``(rows, cols)`` as in :class:`CellVerdicts`), or ``None`` without one."""
    if ink.strength is None:
        return None
    clear = (printed == "#") & (state == 1)
    return float(partition_median(ink.strength[clear])) if clear.any() else None


def _settle_faint(state: NDArray[np.int8], score: NDArray[np.float64], conf: NDArray[np.float64],
                  ink: CellInk, faint_read: NDArray[np.int8], pen: float | None, cfg: MarksConfig) -> None:
    """Fifth stage for plain cells, in place: a washed-out cell the fourth stage left uncertain
    whose faint ink reads as a mark against its neighbourhood's contrast (``faint_read`` 1, as
    :func:`_faint_reading` gives it) is marked when that ink is as strong, for that contrast, as
    the pen of the card's clear marks (its faint ``strength`` at least ``dot_share`` of ``pen``,
    :func:`_card_pen`): a glare scales the pen's contrast with the outline's, while residue, a
    smudge or the art showing through stays weaker. A faint open case, and any cell of a card
    without a clear plain mark, stays uncertain.

    ``state``, ``score``, ``conf`` ``(rows, cols)`` as in :class:`CellVerdicts`.
    """
    if pen is None or ink.faint is None:
        return
    for r, c in zip(*np.nonzero((faint_read == 1) & (state == -1)), strict=True):
        if float(ink.faint[3][r, c]) >= cfg.dot_share * pen:
            state[r, c], score[r, c], conf[r, c] = 1, 1.0, 0.5


def _settle_dots(state: NDArray[np.int8], score: NDArray[np.float64], conf: NDArray[np.float64],
                 ink: CellInk, printed: NDArray[np.str_], cfg: MarksConfig) -> None:
    """Third stage for plain cells, in place: a plain cell left uncertain with ink in its centre
    (a small dot, less than ``plain_hi``: denser there than in the ring, with the centre of mass
    of the cell's own ink within ``dot_offset`` of the cell's centre) is marked when that ink is
    as strong as the pen of the card's clear marks (at least ``dot_share`` of the median
    ``strength`` of its marked plain cells): the same pen draws every mark on a card, while faint
    residue (a mark wiped off, a smudge) is weaker. A card without a clear plain mark settles
    nothing.

    ``state``, ``score``, ``conf`` ``(rows, cols)`` as in :class:`CellVerdicts`.
    """
    pen = _card_pen(state, ink, printed)
    if pen is None or ink.strength is None:
        return
    plain = printed == "#"
    centred = ink.offset <= cfg.dot_offset if ink.offset is not None else np.ones(state.shape, bool)
    # a dot: ink in the centre disc, denser there than in the ring (strokes overshooting from
    # the neighbours reach the centre from the ring's side)
    dots = (plain & (state == -1) & centred & (ink.centre > cfg.plain_lo[0]) & (ink.ring <= ink.centre)
            & (ink.strength >= cfg.dot_share * pen))
    state[dots] = 1
    score[dots] = 1.0
    conf[dots] = 0.5
