"""The whole map-card reader: detect -> rectify -> grid -> identify -> marks.

Each plausible quad is cut out and the lattices on its face are read against the catalog. A reading
in doubt gets a few second looks, each kept only on a better or surer name: the outline found anew
around the grid (cells not square, or a quad that cut the card short); the face cut the other way
round when the quad's sides do not tell the card's long ones (``rectify.side_doubt``); a lattice of
square cells keeping one axis of a lattice found (``_squared``); and, for a face on which no lattice
passes the outline coverage floor, the lattices found without that floor (``_named_anyway``). A quad
that may be two cards side by side is read as its two halves (``_split_pairs``). Open outlines are
then proposed (:func:`vision.cards.detect.propose`), regions standing out from the table read, and
the halves of outlines of two cards read (``_double_halves``); doubtful faces showing the expedition
card's pattern are dropped, no card is named twice (each map card is printed once: the better match
keeps a name given twice, the other is matched again without it), and the marks of the cards kept
are read with each symbol's print pooled over the cards of the photo that the catalog names. Another
quarter turn of a card's grid that its symbols' hues could not rule out leaves the cells the two
turns read differently uncertain, unless the pooled prints' shapes tell the turns apart there
(:func:`vision.cards.marks.print_turn_lead`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.cards import detect as detect_mod
from vision.cards import expedition as expedition_mod
from vision.cards import grid as grid_mod
from vision.cards import identify as identify_mod
from vision.cards import marks as marks_mod
from vision.cards import rectify as rectify_mod
from vision.cards.catalog import Catalog, CatalogCard, load_catalog
from vision.types import CardReading, Cell, ExpeditionReading, Quad


@dataclass(frozen=True)
class CardsConfig:
    """All thresholds of the reader, one config per stage (``vision/data/config/cards.json``)."""

    detect: detect_mod.DetectConfig = field(default_factory=detect_mod.default_config)
    rectify: rectify_mod.RectifyConfig = field(default_factory=rectify_mod.default_config)
    grid: grid_mod.GridConfig = field(default_factory=grid_mod.default_config)
    marks: marks_mod.MarksConfig = field(default_factory=marks_mod.default_config)
    identify: identify_mod.IdentifyConfig = field(default_factory=identify_mod.default_config)


@cache
def default_config() -> CardsConfig:
    return CardsConfig()


def _quad(corners: NDArray[np.float64]) -> Quad:
    p = [(float(x), float(y)) for x, y in corners]
    return (p[0], p[1], p[2], p[3])


def to_catalog_frame(cells: list[tuple[int, int]], catalog_shape: tuple[int, int],
                     rotation: int) -> list[Cell]:
    """Map printed-frame cells to the catalog frame of a grid turned ``rotation`` quarter turns
    clockwise (catalog -> printed)."""
    rows, cols = catalog_shape
    idx = np.rot90(np.arange(rows * cols).reshape(rows, cols), -(rotation % 4))
    out: list[Cell] = []
    for r, c in cells:
        cr, cc = divmod(int(idx[r, c]), cols)
        out.append((cr, cc))
    return sorted(out)


def reference_ink(catalog: Catalog, card_id: str, printed: NDArray[np.str_],
                  cfg: CardsConfig) -> marks_mod.CellInk | None:
    """The ink of the clean reference face of ``card_id`` (printed frame), when there is one and
    its grid has the shape of ``printed``."""
    ref = catalog.reference(card_id)
    if ref is None:
        return None
    w = round(cfg.rectify.card_mm[0] * cfg.rectify.px_per_mm)
    h = round(cfg.rectify.card_mm[1] * cfg.rectify.px_per_mm)
    face = cv2.resize(ref, (w, h), interpolation=cv2.INTER_AREA)
    g = grid_mod.locate_grid(face, cfg.rectify.px_per_mm, cfg.grid)
    if g is None or g.shape != printed.shape:
        return None
    return marks_mod.cell_ink(face, g, printed, cfg.marks)


def _grid_box(grid: grid_mod.Grid, to_face: NDArray[np.float64]) -> NDArray[np.float64]:
    """The printed grid box corners (TL, TR, BR, BL as seen upright) in photo pixels."""
    x0, x1, y0, y1 = grid.xs[0], grid.xs[-1], grid.ys[0], grid.ys[-1]
    box = np.array([[[x0, y0], [x1, y0], [x1, y1], [x0, y1]]], np.float64)
    return cv2.perspectiveTransform(box, np.linalg.inv(to_face)).reshape(4, 2)


_Edges = tuple[NDArray[np.bool_], NDArray[np.bool_]]
_Layouts = dict[tuple[int, int], tuple[NDArray[np.bool_], int, _Edges]]


@cache
def _layout_table(cards: tuple[CatalogCard, ...]) -> _Layouts:
    """The distinct printed cell layouts of a catalog under its quarter turns, by grid shape:
    ``shape -> ((n, rows, cols) bool array, n, their grid.layout_edges)``."""
    found: dict[tuple[int, int], dict[bytes, NDArray[np.bool_]]] = {}
    for card in cards:
        for k in range(4):
            m = card.grid(k) != "."
            found.setdefault(m.shape, {})[m.tobytes()] = m
    out: _Layouts = {}
    for shape, ms in found.items():
        stack = np.stack(list(ms.values()))
        out[shape] = (stack, len(ms), grid_mod.layout_edges(stack))
    return out


@dataclass(frozen=True)
class _Prepared:
    """A card read up to its marks: face, grid, identity and the cells' ink (``None`` until
    :func:`_inked`: only the reading kept is measured)."""

    face: rectify_mod.Face
    grid: grid_mod.Grid
    obs: identify_mod.Observation
    ident: identify_mod.Identity
    printed: NDArray[np.str_]
    reference: marks_mod.CellInk | None
    ink: marks_mod.CellInk | None


@dataclass(frozen=True)
class _Lattices:
    """A quad's upright face, its outline measurements and the lattices found on it."""

    face: rectify_mod.Face
    lines: grid_mod.FaceLines
    grids: list[grid_mod.Grid]


def _lattices(image: NDArray[np.uint8], quad: detect_mod.CardQuad, cfg: CardsConfig,
              across: bool = False) -> _Lattices:
    """Rectify a quad (``across``: the other way round, see :func:`vision.cards.rectify.rectify`)
    and find the lattices on its face (``grid.alternatives`` at most).

    A face whose lattices are found only on the line maps made again for outlines smeared across
    one direction (:func:`vision.cards.grid.blurred_lines`) keeps those maps: every later check of
    its lattices (outline fits, grown and slid lattices) then sees the same outlines that found them."""
    face = rectify_mod.rectify(image, quad.corners, cfg.rectify, across=across)
    ppm = cfg.rectify.px_per_mm
    lines = grid_mod.face_lines(face.image, ppm, cfg.grid)
    limit = cfg.grid.alternatives
    grids = grid_mod.locate_grids(face.image, ppm, cfg.grid, limit=limit, lines=lines, deblur=False)
    if not grids:
        wide = grid_mod.blurred_lines(lines, ppm, cfg.grid)
        if wide is not None:
            grids = [g for g in grid_mod.locate_grids(face.image, ppm, cfg.grid, limit=limit, lines=wide,
                                                      deblur=False) if g.whole]
            if grids:
                lines = wide
    return _Lattices(face, lines, grids)


_Read = tuple[float, grid_mod.Grid, bool, identify_mod.Observation, identify_mod.Identity]


@dataclass
class _SlidMemo:
    """One face's slid lattices, kept for a second ask with another fit to beat (see :func:`_slid`):
    each window's outline fit in the order made (``None`` until first asked), and the windows whose
    cells were measured, by that order."""

    fits: list[tuple[float, grid_mod.Grid]] | None = None
    measured: dict[int, grid_mod.Grid] = field(default_factory=dict)


def _unmeasured(g0: grid_mod.Grid, xs: NDArray[np.float64], ys: NDArray[np.float64]) -> grid_mod.Grid:
    """A lattice of lines ``xs`` and ``ys`` on the face of ``g0``, its cells not measured yet (all
    water, no fill): only its outline fit is asked before it is measured."""
    return dataclasses.replace(g0, xs=xs, ys=ys, presence=np.zeros((len(ys) - 1, len(xs) - 1)), fill=None)


def _outline_candidates(shape: tuple[int, ...], lines: grid_mod.FaceLines, grids: list[grid_mod.Grid],
                        table: _Layouts, px_per_mm: float, cfg: grid_mod.GridConfig,
                        slid_memo: _SlidMemo | None = None) -> Iterator[tuple[float, grid_mod.Grid, bool]]:
    """The lattices of a face that its outlines cannot tell apart, best fitting first (made as
    they are asked for: a grown lattice's cells are measured only when it is reached).

    The lattice may be a line off: a row or column of faint or hatched cells may have lost its
    outlines, so the lattice stopped a line short; a line of the card's art may have been taken
    for one more grid line. Each lattice found, and each grown or trimmed by one line, is judged
    by how well the best catalog layout of its shape explains the outlines around it
    (:func:`vision.cards.grid.layout_fits`: cells outlined; water and the ring outside the grid
    not). A lattice that fits at least ``fit_gain`` better than every other is the grid; else
    every lattice within ``fit_gain`` of the best is kept. A grown one kept is plausible only when
    its new row or column holds a position that looks like a cell (``extend_presence``: every
    printed row and column holds a cell); one whose new cells are washed out is kept too, for the
    catalog to name (see :func:`_settle`). Last, asked for only when none of those was named with
    full confidence, the lattice slid along the face that explains the outlines better than all
    of them (:func:`_slid`), for the catalog to name too.

    Parameters
    ----------
    shape : (H, W, ...)
        The face's shape.
    lines : FaceLines
        :func:`vision.cards.grid.face_lines` of the face.
    grids : list of Grid
        The lattices found (:func:`vision.cards.grid.locate_grids`); not empty.
    table : dict
        The catalog's layouts by grid shape (:func:`_layout_table`).
    px_per_mm : float
        Face scale.
    cfg : GridConfig
    slid_memo : _SlidMemo, optional
        The face's slid lattices, shared with a later :func:`_slid` on the same face.

    Yields
    ------
    (float, Grid, bool)
        Each kept lattice's fit, the lattice (a grown one measured only when it is reached) and
        whether it is plausible without the catalog; at least one.
    """
    scored: list[tuple[float, grid_mod.Grid, tuple[int, int] | None]] = []  # fit, lattice, line grown
    seen: set[bytes] = set()
    for g0 in grids:
        # the fit depends on the lattice's lines only: a grown lattice's cells are measured only
        # when it passes the fit (as grid.extended_grids would measure them)
        variants: list[tuple[grid_mod.Grid, tuple[int, int] | None]] = [
            (g0, None), *((g, None) for g in grid_mod.trimmed_grids(g0, cfg)),
            *((_unmeasured(g0, xs, ys), (axis, k))
              for xs, ys, axis, k in grid_mod.grown_lattices(shape, g0, px_per_mm, cfg))]
        for g, new in variants:
            key = np.concatenate([np.round(g.xs), [-1.0], np.round(g.ys)]).tobytes()
            if key not in seen:
                seen.add(key)
                scored.append((_layout_fit(lines, g, table, cfg), g, new))
    ranked = sorted(scored, key=lambda t: -t[0])
    clear = len(ranked) == 1 or ranked[0][0] >= ranked[1][0] + cfg.fit_gain
    for f, g, new in ranked:
        if f < ranked[0][0] - cfg.fit_gain:
            break
        plausible = True
        if new is not None:
            g = dataclasses.replace(grid_mod.measure_lattice(lines, g.xs, g.ys, cfg), whole=g.whole)
            axis, k = new  # k: the new line, first or last; its row or column is the outer one there
            edge = g.presence[:, min(k, g.shape[1] - 1)] if axis == 0 else g.presence[min(k, g.shape[0] - 1)]
            plausible = clear or float(edge.max()) >= cfg.extend_presence
        yield f, g, plausible
    # asked for only when none of those was named with full confidence: the lattice slid along
    # the face (a row or column off, or a row short at one end and long at the other) that
    # explains the outlines better than all of them, each outer row and column holding a cell
    slid = _slid(shape, lines, grids, table, ranked[0][0], px_per_mm, cfg, slid_memo)
    if slid is not None:
        yield _layout_fit(lines, slid, table, cfg), slid, True


def _layout_fit(lines: grid_mod.FaceLines, grid: grid_mod.Grid, table: _Layouts,
                cfg: grid_mod.GridConfig) -> float:
    """How well the best catalog layout of a lattice's shape explains the outlines around it
    (:func:`vision.cards.grid.layout_fits`); ``-1.0`` for a shape no card has."""
    layouts = table.get(grid.shape)
    if not layouts:
        return -1.0
    return float(grid_mod.layout_fits(lines, grid, layouts[0], cfg, edges=layouts[2]).max())


def _slid(shape: tuple[int, ...], lines: grid_mod.FaceLines, grids: list[grid_mod.Grid], table: _Layouts,
          above: float, px_per_mm: float, cfg: grid_mod.GridConfig,
          memo: _SlidMemo | None = None) -> grid_mod.Grid | None:
    """The plausible lattice of the spacing and phase of one of ``grids``, slid along the face
    (:func:`vision.cards.grid.slid_lattices`), that explains the outlines best, when it does so
    better than ``above`` (the best fit of the lattices read); ``None`` when there is none.
    Plausible: each of its outer rows and columns holds a position that looks like a cell
    (``extend_presence``; the catalog grids are cropped to their cells). Its cells are measured
    (in order of fit, until one is plausible).

    Parameters
    ----------
    shape, lines, grids, table, px_per_mm
        As for :func:`_outline_candidates`.
    above : float
        The fit to beat (:func:`_layout_fit`).
    cfg : GridConfig
    memo : _SlidMemo, optional
        The same face's fits and measured windows from an earlier ask (filled on the first).

    Returns
    -------
    Grid or None
        The slid lattice, its cells measured and ``whole`` that of the lattice it was slid from.
    """
    memo = memo if memo is not None else _SlidMemo()
    if memo.fits is None:
        memo.fits = []
        for g0 in grids:
            for xs, ys in grid_mod.slid_lattices(shape, g0, px_per_mm, cfg):
                g = _unmeasured(g0, xs, ys)
                memo.fits.append((_layout_fit(lines, g, table, cfg), g))
    scored = [(f, k, g) for k, (f, g) in enumerate(memo.fits) if f > above]
    for _, k, g in sorted(scored, key=lambda t: (-t[0], t[1])):
        if k not in memo.measured:
            memo.measured[k] = dataclasses.replace(grid_mod.measure_lattice(lines, g.xs, g.ys, cfg),
                                                   whole=g.whole)
        g = memo.measured[k]
        p = g.presence
        if min(float(p[0].max()), float(p[-1].max()), float(p[:, 0].max()),
               float(p[:, -1].max())) >= cfg.extend_presence:
            return g
    return None


def _squared(found: _Lattices, table: _Layouts, catalog: Catalog, cfg: CardsConfig,
             ) -> tuple[grid_mod.Grid, identify_mod.Observation, identify_mod.Identity] | None:
    """The card the catalog names on the lattice of square cells that explains a face's outlines
    best, for a face whose lattices are not square and on which the catalog names no card.

    Every card's cells are square. A face whose lattice is not, cut from the card's own outline,
    lost one direction's outlines (a blur along it, hatching across it) and took a line of the
    art or a pen stroke for them, while the other axis holds the grid's lines: of the lattices
    that keep one axis of a lattice found and space the other alike
    (:func:`vision.cards.grid.squared_lattices`), the one whose cells best explain the outlines
    (:func:`_layout_fit`) is read. It is the only one read, and its name is kept only when the
    catalog gives it with full confidence (``identify.full_margin``): that lattice was not found
    on the face but made, a guess on which some card of the catalog may fit by chance.

    Parameters
    ----------
    found : _Lattices
        The face, its outline measurements and the lattices found on it.
    table : dict
        The catalog's layouts by grid shape (:func:`_layout_table`).
    catalog : Catalog
    cfg : CardsConfig

    Returns
    -------
    (Grid, Observation, Identity) or None
        The square lattice (its cells measured), what it shows and the card named there;
        ``None`` when the catalog names no card on it with full confidence.
    """
    ppm = cfg.rectify.px_per_mm
    face, lines = found.face, found.lines
    best: tuple[float, grid_mod.Grid] | None = None
    for g0 in found.grids:
        for xs, ys in grid_mod.squared_lattices(face.image.shape, g0, ppm, cfg.grid):
            g = _unmeasured(g0, xs, ys)
            f = _layout_fit(lines, g, table, cfg.grid)
            if best is None or f > best[0]:
                best = (f, g)
    if best is None:
        return None
    g = dataclasses.replace(grid_mod.measure_lattice(lines, best[1].xs, best[1].ys, cfg.grid),
                            whole=best[1].whole)
    o = identify_mod.observe(face.image, g, ppm, cfg.identify)
    i = identify_mod.identify(o, catalog, cfg.identify)
    return (g, o, i) if i.card is not None and i.margin >= cfg.identify.full_margin else None


def _doubted(named: identify_mod.Identity, rival: identify_mod.Identity) -> bool:
    """Whether the catalog's reading of another lattice (``rival``) puts a name in doubt: it names
    another card, with a better score and margin."""
    return (named.card is not None and rival.card is not None and rival.card.id != named.card.id
            and rival.score + rival.margin > named.score + named.margin)


def _settle(read_on: list[_Read]) -> _Read:
    """The catalog's choice between lattices the outlines cannot tell apart (each read as
    ``(fit, lattice, plausible, observation, identity)``, see :func:`_outline_candidates`; not
    empty).

    When the catalog names one card on several lattices, the plausible and best fitting one
    places its grid; when it names different cards, the one it recognises best (score and margin)
    wins; when it names none, its best proposal on a plausible lattice does (refit to that card's
    cells next): a lattice grown by a row of no cell is no grid the catalog has not named.
    """
    named = [r for r in read_on if r[4].card is not None]
    if len({r[4].card.id for r in named if r[4].card is not None}) == 1:
        return max(named, key=lambda r: (r[2], r[0]))
    pool = named or [r for r in read_on if r[2]] or read_on
    return max(pool, key=lambda r: r[4].score + r[4].margin)


def _prepare_quad(image: NDArray[np.uint8], quad: detect_mod.CardQuad, catalog: Catalog,
                  cfg: CardsConfig, seen: _Lattices | None = None) -> CardReading | _Prepared | None:
    """Everything up to the mark decisions but the cells' ink (:func:`_inked`); a finished
    reading for a cut or unknown card, ``None`` when the quad shows no grid of cells (not a map
    card). ``seen``: the quad's :func:`_lattices` when already found."""
    if quad.partial:
        return CardReading(None, None, 0.0, _quad(quad.corners), (), (), False, True)
    found = seen or _lattices(image, quad, cfg)
    face, lines, grids = found.face, found.lines, found.grids
    ppm = cfg.rectify.px_per_mm
    if not grids:
        return None
    # two stages: the outlines keep the lattices they cannot tell apart, then the catalog settles
    # between those (see _outline_candidates and _settle)
    table = _layout_table(catalog.cards)
    slid_memo = _SlidMemo()
    lattices = _outline_candidates(face.image.shape, lines, grids, table, ppm, cfg.grid, slid_memo)
    read_on: list[_Read] = []
    for f, g, plausible in lattices:
        o = identify_mod.observe(face.image, g, ppm, cfg.identify)
        i = identify_mod.identify(o, catalog, cfg.identify)
        read_on.append((f, g, plausible, o, i))
        if len(read_on) == 1 and plausible and i.card is not None and i.margin >= cfg.identify.full_margin:
            # the best fitting lattice is clearly recognised (the margin of full confidence):
            # the others are neither measured nor asked about
            break
    _, g, _, o, i = _settle(read_on)
    doubted = False
    if i.card is not None and i.margin < cfg.identify.full_margin:
        # named without full confidence: a lattice slid along the face that explains the outlines
        # better than every lattice read, and on which the catalog names another card with a
        # better score and margin, puts the name in doubt. That lattice is a guess, not found
        # from the lines: it may unsettle a name but does not give one, so the card is unknown
        g2 = _slid(face.image.shape, lines, grids, table, max(r[0] for r in read_on), ppm, cfg.grid,
                   slid_memo)
        if g2 is not None and _doubted(i, identify_mod.identify(
                identify_mod.observe(face.image, g2, ppm, cfg.identify), catalog, cfg.identify)):
            i, doubted = identify_mod.Identity(None, 0, 0.0, i.score, i.margin, i.card), True
    best: tuple[tuple[bool, float], grid_mod.Grid, identify_mod.Observation,
               identify_mod.Identity] = ((i.card is not None, i.score + i.margin), g, o, i)
    if not doubted and best[3].card is None and best[3].best is not None:
        # the catalog proposes a card below its acceptance floor. Its cells are then known: refit
        # the lattice to their outlines under each turn and score again (usual margins)
        g0 = best[1]
        layouts = {m.tobytes(): m for m in (best[3].best.grid(k) != "." for k in range(4))
                   if m.shape == g0.shape}
        for cells in layouts.values():
            g = grid_mod.refit_grid(face.image, g0, cells, ppm, cfg.grid, lines=lines)
            if g is None:
                continue
            o = identify_mod.observe(face.image, g, ppm, cfg.identify)
            i = identify_mod.identify(o, catalog, cfg.identify)
            key = (i.card is not None, i.score + i.margin)
            if i.card is not None and key > best[0]:
                best = (key, g, o, i)
    if not doubted and best[3].card is None and _squareness(best[1]) > cfg.rectify.square_tol:
        # no card named on a lattice of cells that are not square: one axis of a lattice found
        # may still be the grid's (see _squared)
        squared = _squared(found, table, catalog, cfg)
        if squared is not None:
            best = ((True, squared[2].score + squared[2].margin), *squared)
    _, grid, obs, ident = best
    if ident.card is None and not grid.whole:
        # a card with faint lattice lines but neither a clear grid nor a known layout: report it
        # as unknown, every position uncertain, no mark claimed
        return _unknown(face, grid, obs.colour)
    printed = ident.card.grid(ident.rotation) if ident.card is not None else _unnamed_printed(grid)
    return _Prepared(face, grid, obs, ident, printed, None, None)


def _unnamed_printed(grid: grid_mod.Grid) -> NDArray[np.str_]:
    """The printed frame of a card the catalog does not name: a plain cell (``#``) where the grid
    shows one, water (``.``) elsewhere."""
    return np.where(grid.presence >= 0.5, "#", ".")


def _inked(p: CardReading | _Prepared | None, catalog: Catalog,
           cfg: CardsConfig) -> CardReading | _Prepared | None:
    """A prepared card with its cells' ink and its reference face's ink measured (once the
    reading is kept, see :func:`_prepare`); any other reading as it is."""
    if not isinstance(p, _Prepared) or p.ink is not None:
        return p
    ident, printed = p.ident, p.printed
    ref = reference_ink(catalog, ident.card.id, printed, cfg) if ident.card is not None else None
    ink = marks_mod.cell_ink(p.face.image, p.grid, printed, cfg.marks)
    return dataclasses.replace(p, reference=ref, ink=ink)


def _one_card_each(readings: list[CardReading | _Prepared], catalog: Catalog,
                   cfg: CardsConfig) -> list[CardReading | _Prepared]:
    """The readings with no card named twice: every map card of the game is printed once.

    When several faces are named the same card, the one the catalog recognises best (score and
    margin, as :func:`_settle` weighs lattices) keeps the name; each other one is matched again
    against the catalog without the names already given, and is unknown when nothing is accepted
    there (its marks are still read, in the printed frame).
    """
    out = list(readings)
    for _ in range(len(out)):
        named: dict[str, list[int]] = {}
        for n, p in enumerate(out):
            if isinstance(p, _Prepared) and p.ident.card is not None:
                named.setdefault(p.ident.card.id, []).append(n)
        twice = {cid: ns for cid, ns in named.items() if len(ns) > 1}
        if not twice:
            break
        for ns in twice.values():
            rank = sorted(ns, key=lambda n: -(out[n].ident.score + out[n].ident.margin))  # type: ignore[union-attr]
            for n in rank[1:]:
                p = out[n]
                assert isinstance(p, _Prepared)
                left = tuple(c for c in catalog.cards if c.id not in named)
                rest = dataclasses.replace(catalog, cards=left)
                i = identify_mod.identify(p.obs, rest, cfg.identify)
                if i.card is None:
                    i = identify_mod.Identity(None, 0, 0.0, i.score, i.margin, i.best)
                    printed = _unnamed_printed(p.grid)
                else:
                    printed = i.card.grid(i.rotation)
                out[n] = dataclasses.replace(p, ident=i, printed=printed, reference=None, ink=None)
    return out


def _unknown(face: rectify_mod.Face, grid: grid_mod.Grid, colour: str | None) -> CardReading:
    """An unknown complete card's reading: every position of its lattice uncertain, no mark
    claimed."""
    cells = tuple((int(r), int(c)) for r in range(grid.shape[0]) for c in range(grid.shape[1]))
    return CardReading(None, colour, 0.0, _quad(face.corners), (), cells, False, False,
                       0, grid.shape, _quad(_grid_box(grid, face.to_face)))


def _squareness(grid: grid_mod.Grid) -> float:
    """How far a lattice's cells are from square: the larger of the two side ratios, less 1."""
    dx = float(grid.xs[-1] - grid.xs[0]) / (len(grid.xs) - 1)
    dy = float(grid.ys[-1] - grid.ys[0]) / (len(grid.ys) - 1)
    return max(dx / dy, dy / dx) - 1.0


def _cut_short(grid: grid_mod.Grid, shape: tuple[int, ...], px_per_mm: float,
               cfg: grid_mod.GridConfig) -> bool:
    """Whether the face may have cut a row or column of the grid off: along an axis with room
    for one more line (``max_lines``), the line one cell beyond the lattice on some side falls
    outside the face or within ``extend_margin_mm`` of its edge, where no row or column is grown
    (:func:`vision.cards.grid.grown_lattices`). A card outline cut short along one side makes
    such a face: the grid runs into its edge."""
    margin = cfg.extend_margin_mm * px_per_mm
    h, w = shape[:2]
    for lines, size in ((grid.xs, w), (grid.ys, h)):
        if len(lines) >= cfg.max_lines:
            continue
        step = float(lines[-1] - lines[0]) / (len(lines) - 1)
        if lines[0] - step < margin or lines[-1] + step > size - 1 - margin:
            return True
    return False


def _sides_doubted(p: CardReading | _Prepared | None, quad: detect_mod.CardQuad, cfg: CardsConfig) -> bool:
    """Whether a complete card's outline does not tell which of its sides are the card's long
    ones: its longer pair of opposite sides is less than ``rectify.side_doubt`` times its shorter
    pair (:func:`vision.cards.rectify.side_ratio`). The outline is the reading's, or the quad's
    when its face showed no grid (``p`` is ``None``): cut the wrong way round, a face stretches
    its cells by the card's aspect squared, and no square lattice is found on it."""
    if isinstance(p, _Prepared):
        corners = p.face.corners
    elif isinstance(p, CardReading) and not p.partial:
        corners = np.array(p.corners, np.float64)
    elif p is None and not quad.partial:
        corners = quad.corners
    else:
        return False
    return rectify_mod.side_ratio(corners) < cfg.rectify.side_doubt


def _either_way(image: NDArray[np.uint8], quad: detect_mod.CardQuad, p: CardReading | _Prepared | None,
                catalog: Catalog, cfg: CardsConfig) -> CardReading | _Prepared | None:
    """A complete card's reading ``p`` (``None`` when its face showed no grid) or its reading on
    the face cut the other way round, whichever the catalog names better: the quad's sides do
    not tell which are the card's long ones (``rectify.side_doubt``). A card named with full
    confidence (``identify.full_margin``) is not read again. The other face is taken only when
    its cells are square (the wrong way round stretches them by the card's aspect squared) and
    the catalog names it where it names ``p`` not, or with a better score and margin."""
    known = isinstance(p, _Prepared) and p.ident.card is not None
    if known and p.ident.margin >= cfg.identify.full_margin:
        return p
    q = _prepare_quad(image, quad, catalog, cfg, _lattices(image, quad, cfg, across=True))
    if not isinstance(q, _Prepared) or q.ident.card is None \
            or _squareness(q.grid) > cfg.rectify.square_tol:
        return p
    if not known or q.ident.score + q.ident.margin > p.ident.score + p.ident.margin:
        return q
    return p


def _prepare(image: NDArray[np.uint8], quad: detect_mod.CardQuad, catalog: Catalog,
             cfg: CardsConfig, seen: _Lattices | None = None) -> CardReading | _Prepared | None:
    """:func:`_prepare_quad`, and again on the card's outline found anew around its grid
    (:func:`vision.cards.rectify.reoutline`) when the face's cells come out clearly non-square:
    every card's cells are square, so that outline was not the card's (its inner frame, a grid
    line or the grid box). The new reading is kept when it has no fewer cells and is better:
    identified where the old one was not, or with squarer cells and no worse a catalog fit (or
    the same card). A card identified on cells further than ``rectify.square_doubt`` from square
    is unknown when the new face shows square cells (or an unknown grid) yet reads no better.

    A face of square cells whose grid runs into its edge (:func:`_cut_short`) is read again on
    the outline found around its grid too: an outline cut short along one side of the card loses
    the row or column of cells there, and the catalog may name the cells left (a 4x3 card for a
    4x4 one). The new reading is kept only when it holds more cells and the catalog names it.
    The cells' ink is not measured yet (:func:`_inked`)."""
    p = _prepare_quad(image, quad, catalog, cfg, seen)
    if _sides_doubted(p, quad, cfg):
        p = _either_way(image, quad, p, catalog, cfg)
    if not isinstance(p, _Prepared):
        return p
    sure = p.ident.card is not None and p.ident.margin >= cfg.identify.full_margin
    square = _squareness(p.grid) <= cfg.rectify.square_tol
    if square and (sure or not _cut_short(p.grid, p.face.image.shape, cfg.rectify.px_per_mm, cfg.grid)):
        return p
    corners = rectify_mod.reoutline(image, p.face.to_face, p.grid.xs, p.grid.ys,
                                    cfg.grid.cell_mm_range, cfg.rectify)
    if corners is None:
        return p
    area = float(cv2.contourArea(corners.astype(np.float32)))
    q = _prepare_quad(image, detect_mod.CardQuad(corners, False, area), catalog, cfg)
    n_cells = p.grid.shape[0] * p.grid.shape[1]
    if square:
        # the grid ran into the face's edge: the card's own outline is read instead only when it
        # shows more cells and the catalog names the grid they make
        grew = isinstance(q, _Prepared) and q.grid.shape[0] * q.grid.shape[1] > n_cells
        return q if grew and q.ident.card is not None else p
    doubt = p.ident.card is not None and _squareness(p.grid) > cfg.rectify.square_doubt
    if isinstance(q, CardReading) and q.grid_shape is not None and doubt \
            and q.grid_shape[0] * q.grid_shape[1] >= n_cells:
        # the card's outline shows a grid the catalog does not know: the old guess is no reading
        return q
    if not isinstance(q, _Prepared) or q.grid.shape[0] * q.grid.shape[1] < n_cells:
        # the same grid seen through its card's outline holds no fewer cells
        return p
    old = (p.ident.card is not None, p.ident.score + p.ident.margin)
    new = (q.ident.card is not None, q.ident.score + q.ident.margin)
    squarer = _squareness(q.grid) < _squareness(p.grid)
    same = q.ident.card is not None and p.ident.card is not None and q.ident.card.id == p.ident.card.id
    if new[0] > old[0] or (new[0] == old[0] and squarer and (new[1] >= old[1] or same)):
        return q
    if doubt and _squareness(q.grid) <= cfg.rectify.square_tol:
        # read on a face of square cells, the card is not the one the old face suggested
        return _unknown(q.face, q.grid, q.obs.colour)
    return p


def _templates(prepared: list[_Prepared], cfg: CardsConfig) -> dict[str, NDArray[np.bool_]]:
    """The print of each symbol, pooled over the identified cards of one photo."""
    known = [(p.ink, p.printed) for p in prepared if p.ident.card is not None and p.ink is not None]
    return marks_mod.print_templates(known, cfg.marks)


def _finish(p: _Prepared, templates: dict[str, NDArray[np.bool_]], cfg: CardsConfig) -> CardReading:
    """Mark decisions and the reading in the catalog frame."""
    face, grid, obs, ident, printed = p.face, p.grid, p.obs, p.ident, p.printed
    verdicts = marks_mod.read_marks(face.image, grid, printed, p.reference, cfg.marks,
                                    templates=templates, ink=p.ink)
    marked = [(int(r), int(c)) for r, c in zip(*np.nonzero(verdicts.state == 1), strict=True)]
    uncertain = [(int(r), int(c)) for r, c in zip(*np.nonzero(verdicts.state == -1), strict=True)]
    n_cells = int(np.sum(printed != "."))
    complete = ident.card is not None and len(marked) == n_cells
    if ident.card is not None:
        marked_set = set(to_catalog_frame(marked, ident.card.shape, ident.rotation))
        unsure = set(to_catalog_frame(uncertain, ident.card.shape, ident.rotation))
        for k in ident.rival_turns:
            # a rival turn of the same grid: cells it reads differently are uncertain (a
            # symmetric grid reads alike under its turns), unless the symbols' pooled prints
            # tell the read turn's cells clearly
            mine, theirs = ident.card.grid(ident.rotation), ident.card.grid(k)
            lead = None if p.ink is None else marks_mod.print_turn_lead(p.ink, mine, theirs, templates,
                                                                        cfg.marks)
            if lead is not None and lead >= cfg.marks.turn_print_lead:
                continue
            if theirs.shape == mine.shape and not np.array_equal(theirs, mine):
                unsure |= marked_set ^ set(to_catalog_frame(marked, ident.card.shape, k))
        marked = sorted(marked_set - unsure)
        uncertain = sorted(unsure)
    colour = ident.card.colour if ident.card is not None else obs.colour
    confidence = ident.confidence * (0.5 + 0.5 * face.upright_confidence)
    return CardReading(
        id=ident.card.id if ident.card is not None else None,
        colour=colour,
        confidence=confidence,
        corners=_quad(face.corners),
        marked=tuple(marked),
        uncertain=tuple(uncertain),
        complete=complete,
        partial=False,
        grid_rotation=ident.rotation,
        grid_shape=grid.shape,
        grid_corners=_quad(_grid_box(grid, face.to_face)),
        doubtful=ident.card is not None and confidence < cfg.identify.doubtful_confidence,
    )




def _shared(a: detect_mod.CardQuad, b: detect_mod.CardQuad) -> float:
    """The overlap of two quads as a share of the smaller one."""
    inter, _ = cv2.intersectConvexConvex(a.corners.astype(np.float32), b.corners.astype(np.float32))
    return float(inter) / max(1e-9, min(a.area, b.area))


def _shows_grid(seen: _Lattices, cfg: CardsConfig) -> bool:
    """Whether a proposed quad's face (its :func:`_lattices`) shows a whole grid of outlined
    cells with quiet insides (what every map card has, and a table's texture has not)."""
    grids = seen.grids
    return (bool(grids) and grids[0].whole
            and grid_mod.inside_lines(seen.lines, grids[0], cfg.grid) <= cfg.grid.quiet_inside)


def _shows_layout(grid: grid_mod.Grid, catalog: Catalog, cfg: CardsConfig) -> bool:
    """Whether the positions of a lattice that show as outlined cells (``grid.extend_presence``)
    make the cell layout of some catalog card under some quarter turn."""
    layouts = _layout_table(catalog.cards).get(grid.shape)
    if layouts is None:
        return False
    seen = grid.presence >= cfg.grid.extend_presence
    return bool(np.any(np.all(layouts[0] == seen, axis=(1, 2))))


def _named_anyway(image: NDArray[np.uint8], quad: detect_mod.CardQuad, catalog: Catalog,
                  cfg: CardsConfig, found: _Lattices) -> _Prepared | None:
    """A card-sized quad's reading when no lattice on its face passes the outline coverage floor
    (``grid.min_coverage``: a glare or blur washing one direction's outlines out) yet the catalog
    names the card on a lattice there; ``None`` else.

    The lattices are found again whatever their lines' coverage. The face is read only when the
    positions of one of them that show as outlined cells (``grid.extend_presence``) make some
    catalog card's layout (:func:`_shows_layout`), and the reading is kept only when the catalog
    names a card with full confidence (``identify.full_margin``) on a lattice that confirms that
    card's layout: each of its printed cells shows as an outlined cell there, each water position
    not. A table's grain, another object or the expedition card makes some lattice too, but not
    one of a map card's layout and symbols; a face washed out by a glare shows its cells too
    faintly to confirm a name, or to read their marks. The caller treats the card as doubtful
    (the expedition card's pattern is searched for on its face whatever its confidence).
    ``found``: the quad's :func:`_lattices`."""
    if found.grids:
        return None
    loose = dataclasses.replace(cfg.grid, min_coverage=0.0)
    grids = grid_mod.locate_grids(found.face.image, cfg.rectify.px_per_mm, loose,
                                  limit=cfg.grid.alternatives, lines=found.lines)
    if not any(_shows_layout(g, catalog, cfg) for g in grids):
        return None
    p = _prepare_quad(image, quad, catalog, cfg, dataclasses.replace(found, grids=grids))
    if not isinstance(p, _Prepared) or p.ident.card is None or p.ident.margin < cfg.identify.full_margin:
        return None
    seen_cells = p.grid.presence >= cfg.grid.extend_presence
    return p if np.array_equal(seen_cells, p.printed != ".") else None


def _doubtful(p: CardReading | _Prepared, below: float) -> bool:
    """Whether a complete card's reading is unknown or identified with a confidence under
    ``below``; a cut card is never doubted."""
    if isinstance(p, _Prepared):
        return p.ident.card is None or p.ident.confidence < below
    return not p.partial


def _shows_expedition(found: ExpeditionReading | None) -> bool:
    """Whether one quad's expedition reading (:func:`vision.cards.expedition.read_expedition` on
    that quad alone) shows the expedition card's pattern of more squares than a pair, joined edge
    to edge: two joined squares are part of every map grid too, so they prove nothing."""
    return found is not None and len(found.cells) > expedition_mod.default_config().min_squares


def _is_expedition(image: NDArray[np.uint8], quad: detect_mod.CardQuad) -> bool:
    """Whether a quad's face shows the expedition card's pattern (:func:`_shows_expedition`)."""
    return _shows_expedition(expedition_mod.read_expedition(image, quads=(quad,)))


def _on_lake(p: _Prepared, found: list[tuple[float, float, float]]) -> bool:
    """Whether squares ``found`` (``(x, y, side)`` each, px of the face ``p`` was read on) all lie
    on water positions of the named card's layout on its lattice: a lake inside the grid shows the
    island through it, a patch of squares unlike the cells round it."""
    rows, cols = p.printed.shape
    for x, y, _ in found:
        i = int(np.searchsorted(p.grid.ys, y)) - 1
        j = int(np.searchsorted(p.grid.xs, x)) - 1
        if not (0 <= i < rows and 0 <= j < cols) or p.printed[i, j] != ".":
            return False
    return True


def _expedition_named(image: NDArray[np.uint8], detected: tuple[detect_mod.CardQuad, ...],
                      named: list[tuple[detect_mod.CardQuad, CardReading | _Prepared]],
                      seen: dict[bytes, ExpeditionReading | None],
                      cfg: CardsConfig) -> list[CardReading | _Prepared]:
    """The readings of ``named`` less the expedition card, when the catalog named it a map.

    The expedition card's squares, its frame and a line of its art make a lattice that the
    catalog may name, weakly, as a map card; the map grid it shows also keeps the expedition
    reader from reading that face. A card named with a confidence under
    ``grid.expedition_doubt`` may be the expedition card when the face it was read on shows the
    expedition's pattern of more squares than a pair (:func:`_shows_expedition`) standing out as
    one region, read even under a map's grid (:func:`vision.cards.expedition.map_face_reading`);
    squares found by their outlines prove less there, as a map's cells are outlined squares too.
    Squares all on water positions of the card's layout are the card's lake, not the expedition
    card (:func:`_on_lake`). A card the catalog left unknown is
    not weighed here (it scores nothing; the expedition reader's own check on its face stands).
    Of such cards, the one of best expedition reading (confidence, then squares) is the
    expedition card, when no other detected quad's reading (:func:`expedition_of`, of the quads
    not named as maps) ranks as high: the photo holds one expedition card. Only a quad of
    ``detected`` qualifies, so that :func:`expedition_of` of the photo's quads finds its
    reading, which goes into ``seen`` (quad corners -> reading, as :func:`read` keeps it) in
    place of the one read under the map check.
    """
    detected_keys = {q.corners.tobytes() for q in detected if not q.partial}

    def rank(r: ExpeditionReading) -> tuple[float, int]:
        return (r.confidence, len(r.cells))

    best: tuple[int, ExpeditionReading] | None = None
    for n, (q, p) in enumerate(named):
        key = q.corners.tobytes()
        if (not isinstance(p, _Prepared) or key not in detected_keys or p.ident.card is None
                or p.ident.confidence >= cfg.grid.expedition_doubt):
            continue
        r, found = expedition_mod.map_face_reading(p.face.image, q.corners, cfg.rectify.px_per_mm)
        if (r is not None and _shows_expedition(r) and not _on_lake(p, found)
                and (best is None or rank(r) > rank(best[1]))):
            best = (n, r)
    if best is None:
        return [p for _, p in named]
    n, r = best
    taken = [q.corners.mean(axis=0) for q, _ in named]
    others = tuple(q for q in detected
                   if not any(float(np.linalg.norm(q.corners.mean(axis=0) - m)) < 1.0 for m in taken))
    other = expedition_of(image, others, seen)
    if other is not None and not rank(r) > rank(other):
        return [p for _, p in named]
    seen[named[n][0].corners.tobytes()] = r
    return [p for k, (_, p) in enumerate(named) if k != n]


def expedition_of(image: NDArray[np.uint8], quads: tuple[detect_mod.CardQuad, ...],
                  seen: Mapping[bytes, ExpeditionReading | None],
                  reader: Callable[..., ExpeditionReading | None] = expedition_mod.read_expedition,
                  ) -> ExpeditionReading | None:
    """:func:`vision.cards.expedition.read_expedition` of ``quads``, reading again only the quads
    whose own reading is not in ``seen``.

    The same reading as ``read_expedition(image, quads=quads)``: that is the first quad's reading
    of the best rank (confidence, then cells) among the quads read alone, and a quad read alone
    gives the same reading wherever it stands.

    Parameters
    ----------
    image : (H, W, 3) uint8 array
        BGR photo.
    quads : tuple of CardQuad
        The card outlines to search.
    seen : mapping
        ``quad corners (float64 bytes) -> read_expedition(image, quads=(quad,))`` of the same
        image, as :func:`read` fills its ``expedition_seen``.
    reader : callable, optional
        ``reader(image, quads=...)``: :func:`vision.cards.expedition.read_expedition`.
    """
    todo = tuple(q for q in quads if q.partial or q.corners.tobytes() not in seen)
    fresh = reader(image, quads=todo) if todo else None
    best: ExpeditionReading | None = None
    placed = False
    for q in quads:
        if q.partial:
            continue
        key = q.corners.tobytes()
        if key in seen:
            r = seen[key]
        elif fresh is not None and not placed and _quad(q.corners) == fresh.corners:
            r, placed = fresh, True
        else:
            continue
        if r is not None and (best is None
                              or (r.confidence, len(r.cells)) > (best.confidence, len(best.cells))):
            best = r
    return best


def _region_cards(image: NDArray[np.uint8], looked: tuple[detect_mod.CardQuad, ...],
                  sizes: list[float], catalog: Catalog,
                  cfg: CardsConfig) -> list[tuple[detect_mod.CardQuad, _Prepared, bool]]:
    """The cards read on regions standing out from the table (:func:`vision.cards.detect.regions`)
    around the outlines ``looked`` at already: ``(outline, reading, True)`` each, doubtful.

    A region is no outline: it is a card only when the catalog names the card read on it with full
    confidence (``identify.full_margin``), on the card's outline found again around its grid where
    the region was not the card's, and when that outline overlaps none looked at (``propose_overlap``)
    and, with three complete cards found or more (``sizes``, their areas), has their size
    (``card_area_tol`` of their median): two touching cards make one region. The expedition card
    stands out from the table too, so each such card is doubtful (checked against its pattern)."""
    out: list[tuple[detect_mod.CardQuad, _Prepared, bool]] = []
    for quad in detect_mod.regions(image, looked, cfg.detect):
        p = _prepare(image, quad, catalog, cfg)
        if not isinstance(p, _Prepared) or p.ident.card is None or p.ident.margin < cfg.identify.full_margin:
            continue
        face = detect_mod.CardQuad(p.face.corners, False,
                                   float(cv2.contourArea(p.face.corners.astype(np.float32))))
        if len(sizes) >= 3 and abs(face.area / float(np.median(sizes)) - 1.0) > cfg.detect.card_area_tol:
            continue
        if not any(_shared(face, q) > cfg.detect.propose_overlap for q in looked):
            out.append((face, p, True))
            looked = (*looked, face)
    return out


def read_one(image: NDArray[np.uint8], quad: detect_mod.CardQuad, catalog: Catalog,
             cfg: CardsConfig) -> CardReading | None:
    """Read one detected card; ``None`` when the quad shows no grid of cells (not a map card).
    The print of its symbols is learnt from this card alone."""
    p = _inked(_prepare(image, quad, catalog, cfg), catalog, cfg)
    if not isinstance(p, _Prepared):
        return p
    return _finish(p, _templates([p], cfg), cfg)


def _pair_suspect(p: CardReading | _Prepared | None) -> bool:
    """Whether the reading of a complete quad may be two cards side by side taken as one: nothing
    is named there, or the card named has its grid wholly in one half of the face's length (each
    card of a pair holds its own grid, in its own half of the pair)."""
    if not isinstance(p, _Prepared) or p.ident.card is None:
        return True
    half = p.face.image.shape[0] / 2.0
    return bool(p.grid.ys[-1] <= half or p.grid.ys[0] >= half)


def _named_pair(image: NDArray[np.uint8], quad: detect_mod.CardQuad, catalog: Catalog, cfg: CardsConfig,
                canny: NDArray[np.uint8] | None = None,
                ) -> list[tuple[detect_mod.CardQuad, CardReading | _Prepared | None]] | None:
    """The two halves of ``quad`` (:func:`vision.cards.detect.split_pair`) with their readings,
    when the catalog names both, as two different cards; ``None`` otherwise. A half of one card
    shows half its grid, a shape no map card has, or, when the card's grid lies in one half, no
    grid in the other; a half of a card now and then passes for some card, both halves never for
    two. Each side of ``quad`` must run along an edge (``detect.side_support`` of it, see
    :func:`vision.cards.detect.outline_support`): two cards lying side by side but shifted along
    their joint make an outline whose long sides cut across the cards' corners, and its halves
    are no cards."""
    if detect_mod.outline_support(image, quad, cfg.detect, canny).min() < cfg.detect.side_support:
        return None
    halves = detect_mod.split_pair(quad)
    preps = _named_halves(image, halves, (False, False), catalog, cfg)
    return None if preps is None else list(zip(halves, preps, strict=True))


def _named_halves(image: NDArray[np.uint8], halves: Sequence[detect_mod.CardQuad], skip: Sequence[bool],
                  catalog: Catalog, cfg: CardsConfig) -> list[_Prepared | None] | None:
    """The readings of the ``halves`` not skipped (``None`` for a skipped one), when the catalog
    names each of them, all as different cards; ``None`` otherwise."""
    preps: list[_Prepared | None] = []
    for h, skipped in zip(halves, skip, strict=True):
        p = None if skipped else _prepare(image, h, catalog, cfg)
        if not skipped and not (isinstance(p, _Prepared) and p.ident.card is not None):
            return None  # the other half need not be read
        preps.append(p if isinstance(p, _Prepared) else None)
    names = [p.ident.card.id for p in preps if p is not None and p.ident.card is not None]
    return preps if len(set(names)) == len(names) else None


def _split_pairs(image: NDArray[np.uint8], outlined: Sequence[detect_mod.CardQuad], ok: list[bool],
                 read_at: dict[int, CardReading | _Prepared], loose: set[int], catalog: Catalog,
                 cfg: CardsConfig, canny: NDArray[np.uint8] | None = None,
                 ) -> tuple[list[detect_mod.CardQuad], list[bool], dict[int, CardReading | _Prepared],
                            set[int]]:
    """The quads with each pair of cards lying side by side read as its two cards.

    Two cards touching along their long sides, with frames of one colour, close one outline of
    about a card's aspect (126x88 mm against 63x88). A complete plausible quad whose reading is
    suspect (:func:`_pair_suspect`) is replaced by its two halves when the catalog names both
    (:func:`_named_pair`). ``outlined``, ``ok``, ``read_at`` and ``loose`` are :func:`read`'s,
    returned anew (indices into the new list of quads); ``canny`` is the photo's
    :attr:`vision.cards.detect.Detection.canny` when at hand.
    """
    quads: list[detect_mod.CardQuad] = []
    oks: list[bool] = []
    reads: dict[int, CardReading | _Prepared] = {}
    weak: set[int] = set()
    for n, quad in enumerate(outlined):
        p = read_at.get(n)
        parts: list[tuple[detect_mod.CardQuad, CardReading | _Prepared | None]] = [(quad, p)]
        if ok[n] and not quad.partial and _pair_suspect(p):
            parts = _named_pair(image, quad, catalog, cfg, canny) or parts
        for q, r in parts:
            if r is not None:
                reads[len(quads)] = r
            if n in loose and len(parts) == 1:
                weak.add(len(quads))
            quads.append(q)
            oks.append(ok[n])
    return quads, oks, reads, weak


def _double_halves(image: NDArray[np.uint8], doubles: Sequence[detect_mod.CardQuad],
                   found: list[tuple[detect_mod.CardQuad, CardReading | _Prepared, bool]], catalog: Catalog,
                   cfg: CardsConfig) -> list[tuple[detect_mod.CardQuad, CardReading | _Prepared, bool]]:
    """``found`` (:func:`read`'s quads, readings and doubts) with the cards in outlines of two.

    Two cards end to end, with frames of one colour, close one outline twice a card long, no card's
    shape; two side by side may close one that gave way to one of them, outlined on its own.
    :func:`vision.cards.detect.detect` keeps such outlines apart (``Detection.doubles``). The halves
    (:func:`vision.cards.detect.split_pair`) of each one that no named card covers (more than
    ``detect.nest_overlap`` of the smaller) are read, and added when the catalog names them all as
    different cards. A half of one card shows half its grid, a shape no map card has. The quads read
    unnamed inside an added half are pieces of its card and give way to it.

    Halves are read only on an outline that has room for two cards (twice ``detect.min_area_frac``
    of the photo). An outline of that shape whose halves no named card covers and which holds no
    two cards may be one card seen steeply, and is read whole (:func:`_steep_card`).
    """
    out = list(found)
    least = cfg.detect.min_area_frac * image.shape[0] * image.shape[1]
    for quad in doubles:
        halves = detect_mod.split_pair(quad)
        over = [[k for k, (q, _, _) in enumerate(out) if _shared(h, q) > cfg.detect.nest_overlap]
                for h in halves]
        covered = [any(_is_named(out[k][1]) for k in ks) for ks in over]
        if all(covered):
            continue
        # two cards need room for two: each half at least a card's least area
        preps = _named_halves(image, halves, covered, catalog, cfg) if quad.area >= 2.0 * least else None
        if preps is None:
            if not any(covered):
                out = _steep_card(image, quad, out, catalog, cfg)
            continue
        pieces = {k for ks, c in zip(over, covered, strict=True) if not c for k in ks}
        out = [f for k, f in enumerate(out) if k not in pieces]
        out += [(h, r, False) for h, r in zip(halves, preps, strict=True) if r is not None]  # the halves read
    return out


def _steep_card(image: NDArray[np.uint8], quad: detect_mod.CardQuad,
                found: list[tuple[detect_mod.CardQuad, CardReading | _Prepared, bool]], catalog: Catalog,
                cfg: CardsConfig) -> list[tuple[detect_mod.CardQuad, CardReading | _Prepared, bool]]:
    """``found`` with an outline of a double's shape read as one card seen steeply (its outline as
    long as two cards', its short side shrunk the most near the edge of a tilted view), when no
    named card lies over it and the catalog names its face, cut to a card's shape, with a
    confidence of at least ``detect.steep_confidence`` on a lattice of square cells. The unnamed
    quads inside it give way to it."""
    inside = [_shared(q, quad) > cfg.detect.nest_overlap for q, _, _ in found]
    if any(a and _is_named(r) for a, (_, r, _) in zip(inside, found, strict=True)):
        return found
    p = _prepare(image, quad, catalog, cfg)
    if not (isinstance(p, _Prepared) and p.ident.card is not None):
        return found
    if p.ident.confidence < cfg.detect.steep_confidence or _squareness(p.grid) > cfg.rectify.square_tol:
        return found
    return [f for a, f in zip(inside, found, strict=True) if not a] + [(quad, p, False)]


def _is_named(p: CardReading | _Prepared) -> bool:
    """Whether a reading names a catalog card."""
    return p.ident.card is not None if isinstance(p, _Prepared) else p.id is not None


def read(image: NDArray[np.uint8], catalog: Catalog | None = None,
         config: CardsConfig | None = None,
         quads: tuple[detect_mod.CardQuad, ...] | None = None,
         expedition_seen: dict[bytes, ExpeditionReading | None] | None = None) -> list[CardReading]:
    """Find, identify and read every treasure-map card in a photo.

    Parameters
    ----------
    image : (H, W, 3) uint8 array
        BGR photo (any size; detection runs on a downscaled copy, faces are cut from the full
        image).
    catalog : Catalog, optional
        The built-in catalog when ``None``.
    config : CardsConfig, optional
    quads : tuple of CardQuad, optional
        The card outlines when already found with :func:`vision.cards.detect.detect` (so that
        one detection serves both this reader and :func:`vision.cards.read_expedition`).

    expedition_seen : dict, optional
        Filled with ``quad corners (float64 bytes) -> read_expedition(image, quads=(quad,))`` for
        each quad whose face was searched for the expedition card's pattern (a doubtful map
        card), so that :func:`expedition_of` does not search it again.

    Returns
    -------
    list of CardReading
        One per card, complete cards first. Marked and uncertain cells are in the catalog frame
        when the card was identified.
    """
    cfg = config or default_config()
    cat = catalog or load_catalog()
    # first every card up to its marks, so that each symbol's print is learnt from all the
    # cards of the photo (pen strokes differ from cell to cell; the print does not)
    detected = detect_mod.detect(image, cfg.detect) if quads is None else quads
    ok = [detect_mod.plausible(q, cfg.detect) for q in detected]
    read_at: dict[int, CardReading | _Prepared] = {}
    loose: set[int] = set()  # quads read on a lattice below the coverage floor (see _named_anyway)
    for n, quad in enumerate(detected):
        if ok[n]:
            seen = None if quad.partial else _lattices(image, quad, cfg)
            p = _prepare(image, quad, cat, cfg, seen)
            if p is None and seen is not None:
                p = _named_anyway(image, quad, cat, cfg, seen)
                if p is not None:
                    loose.add(n)
            if p is not None:
                read_at[n] = p
    canny = detected.canny if isinstance(detected, detect_mod.Detection) else None
    # two cards side by side may close one outline: such a quad is read as its two cards
    outlined, ok, read_at, loose = _split_pairs(image, detected, ok, read_at, loose, cat, cfg, canny)
    # cards whose outline is open, proposed from two sides meeting at a corner where no card was
    # read: each is a card only when its face shows a whole grid with quiet cells. A quad with a
    # borrowed side, or one that shows no grid (a part of a card closed off by its grid box), is
    # no card as it stands, but its sides along edges seed the corners
    seeds = tuple(q for n, q in enumerate(outlined) if n not in read_at)
    checked: dict[bytes, _Lattices] = {}  # each proposal's face, kept for its reading

    def accept(q: detect_mod.CardQuad) -> bool:
        checked[q.corners.tobytes()] = _lattices(image, q, cfg)
        return _shows_grid(checked[q.corners.tobytes()], cfg)

    proposed = detect_mod.propose(image, tuple(outlined[n] for n in read_at), cfg.detect, seeds,
                                  accept=accept, canny=canny)
    found: list[tuple[detect_mod.CardQuad, CardReading | _Prepared, bool]] = []  # quad, reading, doubtful
    for n, quad in enumerate(outlined):
        if n in read_at:
            found.append((quad, read_at[n], n in loose))
        elif not ok[n] and not any(_shared(quad, q) > cfg.detect.nest_overlap for q in proposed):
            # a quad with a borrowed side is read where no card was proposed in its place
            p = _prepare(image, quad, cat, cfg)
            if p is not None:
                found.append((quad, p, False))
    for quad in proposed:
        p = _prepare(image, quad, cat, cfg, checked.get(quad.corners.tobytes()))
        if isinstance(p, _Prepared):
            found.append((quad, p, False))
    # cards that neither closed an outline nor showed two sides: regions standing out from the
    # table, around every plausible outline read already (a map card, the expedition card or
    # something else)
    looked = (*(q for n, q in enumerate(outlined) if ok[n]), *proposed, *(q for q, _, _ in found))
    found += _region_cards(image, looked, [q.area for q, _, _ in found if not q.partial], cat, cfg)
    # two touching cards may close one outline (twice a card long, or given way to one of them):
    # the cards in its halves
    doubles = detected.doubles if isinstance(detected, detect_mod.Detection) else ()
    found = _double_halves(image, doubles, found, cat, cfg)
    # the expedition card is card-sized too, and its squares with a line of its art make a lattice
    # of a few cells that the catalog may take, barely, for a map: a card unknown to the catalog or
    # accepted with a confidence under map_doubt is no map card when its face shows the
    # expedition's pattern of squares
    seen_exp: dict[bytes, ExpeditionReading | None] = {} if expedition_seen is None else expedition_seen

    def expedition(q: detect_mod.CardQuad) -> bool:
        key = q.corners.tobytes()
        if key not in seen_exp:
            seen_exp[key] = expedition_mod.read_expedition(image, quads=(q,))
        return _shows_expedition(seen_exp[key])

    # a card read on a lattice below the coverage floor, or on a region, is doubtful whatever its
    # confidence
    named = [(q, p) for q, p, weak in found
             if not ((weak or _doubtful(p, cfg.grid.map_doubt)) and expedition(q))]
    maps = _expedition_named(image, detected, named, seen_exp, cfg)
    kept = [p for p in (_inked(p, cat, cfg) for p in _one_card_each(maps, cat, cfg)) if p is not None]
    templates = _templates([p for p in kept if isinstance(p, _Prepared)], cfg)
    return [_finish(p, templates, cfg) if isinstance(p, _Prepared) else p for p in kept]
