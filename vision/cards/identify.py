"""Stage 5: which catalog card this is, and how its grid is turned on the printed card.

Every catalog card is tried under all four quarter turns whose grid shape matches the grid seen.
A candidate's score mixes three pieces of evidence, each in [0, 1]:

- layout: agreement of each position's cell/water presence with the catalog's water pattern (a
  water position walled in by cells on all four sides has their outlines round it, so for a card
  with water there the position's fill counts too: an inside band that shows little of the cells'
  fill is water however well outlined);
- symbols: the printed X (red), coin (yellow) and palm (green) seen in the cells' centres;
- colour: the card colour read from the face margin, white-balanced on the cells' fill. Only a
  hue read there counts, for the cards of that hue; a frame read grey speaks for no card (a faded
  coloured frame reads grey too, see :func:`colour_evidence`).

The best candidate wins only when its layout agrees at least ``min_layout`` and it beats the best
other card by ``min_margin``, or its layout agrees at least ``clear_layout`` and it beats every
other card by a clear margin (``full_margin``: heavy hatching hides a marked cell's outline
and paper, so a well-marked card's layout reads worse than its lead); otherwise the card is unknown
(its marks are still read in the printed frame). The printed grid (layout and symbols) is matched
first; the colour joins only when the grid alone does not settle the card, since it is the cue a
faded photo or a colour cast spoils first. A card the match names is still turned down when the
frame shows a clear hue of another colour (:func:`contradicts`); a card of a colour so ruled out is
no rival either when the margin is taken.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache

import numpy as np
from numpy.typing import NDArray

from vision.cards.catalog import Catalog, CatalogCard
from vision.cards.grid import Grid, balanced_lab
from vision.cards.marks import linear_percentile, partition_median
from vision.config import load_config


@dataclass(frozen=True)
class IdentifyConfig:
    """Tunable numbers of the card identification stage: the ``identify`` section of
    ``vision/data/config/cards.json``, where each is described."""

    w_layout: float
    w_symbol: float
    w_colour: float
    min_layout: float
    min_margin: float
    full_margin: float
    doubtful_confidence: float
    clear_layout: float
    min_turn_margin: float
    turn_evidence: float
    grey_chroma: float
    chroma_percentile: float
    chroma_share: float
    symbol_share: float
    symbol_common: float
    symbol_hues: Mapping[str, Sequence[float]]
    centre_margin: float
    frame_corner_mm: float
    hue_width: float
    clear_hue: float
    frame_band_mm: tuple[float, float]
    hue_centres: Mapping[str, float]


@cache
def default_config() -> IdentifyConfig:
    """The ``identify`` section of the packaged ``cards.json``, loaded once."""
    return load_config("cards", IdentifyConfig, section="identify")


@dataclass(frozen=True)
class Observation:
    """What the face shows, independent of the catalog.

    ``presence`` ``(rows, cols)`` float64: how much each position looks like a cell (see
    :class:`vision.cards.grid.Grid`). ``symbols`` ``(rows, cols, 3)`` float64: share of red, yellow
    and green pixels in each cell's centre. ``colour_scores`` maps each card colour to a likeness
    in [0, 1]. ``fill`` ``(rows, cols)`` float64, when measured: the share of each position's inside
    band showing the cells' fill.
    """

    presence: NDArray[np.float64]
    symbols: NDArray[np.float64]
    colour_scores: Mapping[str, float]
    fill: NDArray[np.float64] | None = None

    @property
    def colour(self) -> str:
        """The card colour the frame looks most like."""
        return max(self.colour_scores, key=lambda k: self.colour_scores[k])


@dataclass(frozen=True)
class Identity:
    """The match: ``card`` is ``None`` when unknown. ``rotation`` is the number of clockwise
    quarter turns from the catalog grid to the printed grid; ``rival_turns`` are other turns of
    the same card that fit nearly as well (cells whose reading depends on the turn are in doubt).
    ``best`` is the best candidate even when it was not accepted."""

    card: CatalogCard | None
    rotation: int
    confidence: float
    score: float
    margin: float = 0.0
    best: CatalogCard | None = None
    rival_turns: tuple[int, ...] = ()


def _hue_deg(a: NDArray[np.float32], b: NDArray[np.float32]) -> NDArray[np.float32]:
    """The hue of Lab chroma ``(a, b)`` in degrees ``[0, 360)``, of the inputs' shape and dtype."""
    return np.degrees(np.arctan2(b, a)) % 360.0


def _in_hues(hue: NDArray[np.float32], band: Sequence[float]) -> NDArray[np.bool_]:
    """Which hues (degrees) lie in ``band`` ``(from, to)``, from included, to excluded, going
    up through 360 when ``from`` exceeds ``to``."""
    lo, hi = float(band[0]), float(band[1])
    if lo <= hi:
        return (hue >= lo) & (hue < hi)
    return (hue >= lo) | (hue < hi)


@lru_cache(maxsize=16)
def _frame_band(size: tuple[int, int], edge: int, band: int, corner: int) -> NDArray[np.intp]:
    """Flat indices of the frame band of a face of ``size`` ``(H, W)``: ``band`` pixels wide from
    ``edge`` pixels in, less the top corners (``corner`` square) where the numeral and the badge
    sit. Read-only; made once per face size."""
    h, w = size
    mask = np.zeros((h, w), bool)
    mask[edge:h - edge, edge:w - edge] = True
    mask[edge + band:h - edge - band, edge + band:w - edge - band] = False
    mask[:corner, :corner] = False
    mask[:corner, w - corner:] = False
    idx = np.flatnonzero(mask)
    idx.flags.writeable = False
    return idx


def observe(face: NDArray[np.uint8], grid: Grid, px_per_mm: float,
            config: IdentifyConfig | None = None) -> Observation:
    """Symbol colours per cell and the card colour.

    Parameters
    ----------
    face : (H, W, 3) uint8 array
        Upright BGR face.
    grid : Grid
        Its grid.
    px_per_mm : float
        Face scale.
    """
    cfg = config or default_config()
    rows, cols = grid.shape
    sym = np.zeros((rows, cols, 3))
    # only the cells' centres and the frame band are read: each pixel's Lab depends on that pixel
    # alone, so they are gathered and converted together, not the whole face
    cut: list[tuple[tuple[int, int], int]] = []
    parts: list[NDArray[np.uint8]] = []
    for r in range(rows):
        for c in range(cols):
            x0, y0, x1, y1 = grid.cell_box(r, c)
            mx, my = cfg.centre_margin * (x1 - x0), cfg.centre_margin * (y1 - y0)
            patch = face[round(y0 + my):round(y1 - my), round(x0 + mx):round(x1 - mx)].reshape(-1, 3)
            if len(patch) == 0:
                continue
            cut.append(((r, c), len(patch)))
            parts.append(patch)
    band = round(cfg.frame_band_mm[1] * px_per_mm) - round(cfg.frame_band_mm[0] * px_per_mm)
    edge = round(cfg.frame_band_mm[0] * px_per_mm)
    corner = round(cfg.frame_corner_mm * px_per_mm)
    parts.append(face.reshape(-1, 3)[_frame_band(face.shape[:2], edge, band, corner)])
    lab = balanced_lab(np.concatenate(parts)[None, :, :], grid.paper)[0]  # one row: converted fastest
    n_cells = sum(n for _, n in cut)
    px = lab[n_cells:]
    cell_chroma = np.hypot(lab[:n_cells, 1], lab[:n_cells, 2])
    # faded light or a cast lowers every colour of the card alike: a symbol's colour is strong
    # against the strongest colours of the card's own cells (within the configured bounds)
    if cut:
        top = float(linear_percentile(cell_chroma, cfg.chroma_percentile))
        strong_at = float(np.clip(cfg.chroma_share * top, cfg.grey_chroma, 2 * cfg.grey_chroma))
        # only a strong pixel's hue counts: the hue is taken of those alone
        strong = np.flatnonzero(cell_chroma > strong_at)
        strong_hue = _hue_deg(lab[strong, 1], lab[strong, 2])
        kinds = np.zeros((n_cells, len(_SYMBOL_ORDER) - 1), bool)
        kinds[strong] = np.stack([_in_hues(strong_hue, cfg.symbol_hues[ch]) for ch in _SYMBOL_ORDER[1:]],
                                 axis=1)
        sizes = np.array([n for _, n in cut])
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        shares = np.add.reduceat(kinds.astype(np.int64), starts, axis=0) / sizes[:, None]
        for ((r, c), _), share in zip(cut, shares, strict=True):
            sym[r, c] = share
    a, b = (float(m) for m in partition_median(px[:, 1:], axis=0))
    chroma = float(np.hypot(a, b))
    hue = float(_hue_deg(np.float32(a), np.float32(b)))
    scores: dict[str, float] = {}
    grey_like = float(np.clip((2.0 * cfg.grey_chroma - chroma) / cfg.grey_chroma, 0.0, 1.0))
    scores["grey"] = grey_like
    for name, centre in cfg.hue_centres.items():
        d = abs((hue - centre + 180.0) % 360.0 - 180.0)
        scores[name] = (1.0 - grey_like) * float(np.clip(1.0 - d / cfg.hue_width, 0.0, 1.0))
    return Observation(grid.presence, sym, scores, grid.fill)


def colour_evidence(obs: Observation, colour: str, config: IdentifyConfig | None = None) -> float:
    """How much the frame's colour speaks for a card of ``colour``, in [0, 1].

    Only a hue is evidence, for the cards of that hue (``hue_centres``). A frame read grey is no
    evidence for or against any card: dim or uneven light, blur, glare and a colour cast wash a
    coloured frame out to grey (a coloured card often reads grey) but hardly give a grey frame a
    hue, so a grey reading tells a grey card from a faded coloured one no better than chance.

    Parameters
    ----------
    obs : Observation
        What :func:`observe` read from the face.
    colour : str
        A card colour (``"purple"``, ``"grey"``, ...).
    config : IdentifyConfig, optional
        The default config when None.

    Returns
    -------
    float
        The frame's likeness to ``colour``'s hue; 0 for a colour without a hue centre.
    """
    cfg = config or default_config()
    if colour not in cfg.hue_centres:
        return 0.0
    return float(obs.colour_scores.get(colour, 0.0))


_SYMBOL_ORDER = "#XCP"


@dataclass(frozen=True)
class _Variants:
    """Every card of a catalog with one grid shape, under each distinct quarter turn.

    ``cards`` and ``turns`` (n,) name each variant; ``cells`` ``(n, rows * cols)`` float64 is its
    cell mask, ``onehot`` ``(n, rows * cols * 4)`` float64 its plain/X/coin/palm one-hot symbols
    and ``n_cells`` ``(n,)`` float64 its count of cells (at least 1); ``walled`` ``(n, rows *
    cols)`` bool marks its water positions with a cell on each of their four sides.
    """

    cards: tuple[CatalogCard, ...]
    turns: tuple[int, ...]
    cells: NDArray[np.float64]
    onehot: NDArray[np.float64]
    n_cells: NDArray[np.float64]
    walled: NDArray[np.bool_]


@lru_cache(maxsize=64)
def _variants(cards: tuple[CatalogCard, ...]) -> dict[tuple[int, int], _Variants]:
    """The catalog's distinct card turns by grid shape (candidates of another shape than the grid
    seen can never match, so they are never scored)."""
    found: dict[tuple[int, int], list[tuple[CatalogCard, int, NDArray[np.str_]]]] = {}
    for card in cards:
        seen: set[bytes] = set()
        for k in range(4):
            g = card.grid(k)
            key = g.tobytes() + bytes(g.shape)
            if key in seen:
                continue
            seen.add(key)
            found.setdefault(g.shape, []).append((card, k, g))
    out: dict[tuple[int, int], _Variants] = {}
    for shape, group in found.items():
        grids = np.stack([g for _, _, g in group])
        land = grids != "."
        onehot = np.stack([(grids == ch) for ch in _SYMBOL_ORDER], axis=3).astype(np.float64)
        # water walled in: all four neighbours are cells of the grid (the border has none outside)
        walled = ~land
        walled[:, 0, :] = walled[:, -1, :] = walled[:, :, 0] = walled[:, :, -1] = False
        walled[:, 1:-1, 1:-1] &= land[:, :-2, 1:-1] & land[:, 2:, 1:-1]  # above and below
        walled[:, 1:-1, 1:-1] &= land[:, 1:-1, :-2] & land[:, 1:-1, 2:]  # left and right
        cells = land.astype(np.float64).reshape(len(group), -1)
        out[shape] = _Variants(tuple(c for c, _, _ in group), tuple(k for _, k, _ in group), cells,
                               onehot.reshape(len(group), -1), np.maximum(1.0, cells.sum(axis=1)),
                               walled.reshape(len(group), -1))
    return out


def _symbol_evidence(sym: NDArray[np.float64], full_share: float, common_level: float) -> NDArray[np.float64]:
    """(rows, cols, 4) likeness of plain, X, coin, palm from the red/yellow/green shares ``sym``
    ``(rows, cols, 3)``; a share of ``full_share`` or more is a sure symbol. A hue whose median
    likeness over the positions exceeds ``common_level`` counts only above that median."""
    v = np.clip(sym / full_share, 0.0, 1.0)
    # no card prints one symbol in most of its positions, so a hue that shows in most of them
    # (a red pen marking the whole card shows as red everywhere) is pen or light: only what a
    # position shows above the card's median level of that hue counts
    base = np.median(v.reshape(-1, v.shape[2]), axis=0)
    common = base > common_level
    if common.any():
        lifted = np.clip((v - base) / np.maximum(1.0 - base, 1e-6), 0.0, 1.0)
        v = np.where(common[None, None, :], lifted, v)
    return np.concatenate([1.0 - v.max(axis=2, keepdims=True), v], axis=2)


def identify(obs: Observation, catalog: Catalog, config: IdentifyConfig | None = None) -> Identity:
    """Match an observation against every card of ``catalog`` under four rotations.

    Two stages: the printed grid alone (water layout and symbols) first; the card colour, a
    weaker cue (a faded photo or a colour cast turns a coloured frame grey), is added only when
    the grid alone leaves the card open.

    Parameters
    ----------
    obs : Observation
        What the face shows (:func:`observe`).
    catalog : Catalog
    config : IdentifyConfig, optional

    Returns
    -------
    Identity
        ``card`` ``None`` when no card is recognised (or the frame's clear hue contradicts the
        best match); ``rival_turns`` the other quarter turns that fit almost as well.
    """
    cfg = config or default_config()
    ident = _match(obs, catalog, cfg, colour=False)
    if ident.card is None:
        ident = _match(obs, catalog, cfg, colour=True)
    if ident.card is not None and contradicts(obs, ident.card.colour, cfg):
        # a grid read a line short or a lattice on the wrong cells can fit another card well;
        # a clear hue of another colour on the frame says the match is wrong: no guess
        return Identity(None, 0, 0.0, ident.score, ident.margin, ident.card)
    return ident


def contradicts(obs: Observation, colour: str, config: IdentifyConfig | None = None) -> bool:
    """Whether the frame shows a clear hue (likeness at least ``clear_hue``) that is not ``colour``.

    Light and blur wash a frame's colour out but hardly turn it into another hue, so a clear hue
    of another colour rules a card out (a grey card too).

    Parameters
    ----------
    obs : Observation
        What :func:`observe` read from the face.
    colour : str
        The colour of the card named.
    config : IdentifyConfig, optional
        The default config when None.

    Returns
    -------
    bool
    """
    cfg = config or default_config()
    return any(colour_evidence(obs, name, cfg) >= cfg.clear_hue for name in cfg.hue_centres if name != colour)


def _match(obs: Observation, catalog: Catalog, cfg: IdentifyConfig, colour: bool) -> Identity:
    """The best candidate and its acceptance, with or without the colour evidence."""
    shape = obs.presence.shape
    w_colour = cfg.w_colour if colour else 0.0
    wsum = cfg.w_layout + cfg.w_symbol + w_colour
    best: dict[str, tuple[float, int, CatalogCard, float]] = {}
    turns: dict[str, list[tuple[float, int]]] = {}
    evidence = _symbol_evidence(obs.symbols, cfg.symbol_share, cfg.symbol_common)
    var = _variants(catalog.cards).get(shape)
    if var is not None:
        # every candidate of the grid's shape at once
        miss = np.abs(obs.presence.reshape(1, -1) - var.cells)
        if obs.fill is not None and obs.fill.shape == obs.presence.shape:
            # a walled-in water position has its neighbours' outlines on all four sides: it is told
            # from a cell by its fill alone
            miss = np.where(var.walled, np.minimum(miss, obs.fill.reshape(1, -1)), miss)
        layout = 1.0 - np.mean(miss, axis=1)
        symbols = (evidence.reshape(1, -1) * var.onehot).sum(axis=1) / var.n_cells
        by_colour = {c: colour_evidence(obs, c, cfg) for c in {card.colour for card in var.cards}}
        hue = np.array([by_colour[card.colour] for card in var.cards])
        total = (cfg.w_layout * layout + cfg.w_symbol * symbols + w_colour * hue) / wsum
        for card, k, score, lay in zip(var.cards, var.turns, total.tolist(), layout.tolist(), strict=True):
            turns.setdefault(card.id, []).append((score, k))
            if card.id not in best or score > best[card.id][0]:
                best[card.id] = (score, k, card, lay)
    if not best:
        return Identity(None, 0, 0.0, 0.0)
    ranked = sorted(best.values(), key=lambda t: -t[0])
    top_score, top_k, top_card, top_layout = ranked[0]
    # a card of a colour the frame's clear hue rules out (see contradicts) is no rival: it would
    # not be named however well it fitted
    ruled_out = {c: contradicts(obs, c, cfg) for c in {t[2].colour for t in ranked}}
    rivals = [t[0] for t in ranked[1:] if not ruled_out[t[2].colour]]
    second = rivals[0] if rivals else 0.0
    margin = top_score - second
    # two ways in: a good layout with a margin, or a fair layout with a clear (full-confidence) margin
    clear = margin >= cfg.full_margin and top_layout >= cfg.clear_layout
    floor = cfg.clear_layout if clear and top_layout < cfg.min_layout else cfg.min_layout
    above = (top_layout - floor) / (1.0 - floor)
    conf = float(np.clip(min(above, margin / cfg.full_margin), 0.0, 1.0))
    if not clear and (top_layout < cfg.min_layout or margin < cfg.min_margin):
        return Identity(None, 0, conf, top_score, margin, top_card)
    # another quarter turn of the same card that fits almost as well: its cells are in doubt,
    # unless the symbols seen tell the two turns apart where they differ
    close = tuple(k for sc, k in turns[top_card.id]
                  if k != top_k and top_score - sc < cfg.min_turn_margin
                  and _turn_lead(evidence, top_card.grid(top_k), top_card.grid(k)) < cfg.turn_evidence)
    return Identity(top_card, top_k, conf, top_score, margin, top_card, close)


def _turn_lead(evidence: NDArray[np.float64], mine: NDArray[np.str_], theirs: NDArray[np.str_]) -> float:
    """How much better the symbols seen fit the grid ``mine`` than another turn ``theirs`` of
    it, on the cells where the two print different symbols: the mean, over those cells, of the
    evidence for ``mine``'s symbol less that for ``theirs``'s (-1 to 1; 0 without such cells).

    The card score averages the symbol evidence over every cell, so two turns that differ in two
    cells of fourteen differ little there even when those two cells are clear; the turn is
    settled by the cells where the turns differ.

    Parameters
    ----------
    evidence : (rows, cols, 4) float64 array
        Likeness of plain, X, coin and palm per cell (:func:`_symbol_evidence`).
    mine, theirs : (rows, cols) str arrays
        The two turns of a card's grid (``.`` for water).

    Returns
    -------
    float
    """
    if mine.shape != theirs.shape:
        return 0.0
    differ = (mine != theirs) & (mine != ".") & (theirs != ".")
    if not differ.any():
        return 0.0
    rr, cc = np.nonzero(differ)
    a = np.array([_SYMBOL_ORDER.index(str(ch)) for ch in mine[differ]])
    b = np.array([_SYMBOL_ORDER.index(str(ch)) for ch in theirs[differ]])
    return float(np.mean(evidence[rr, cc, a] - evidence[rr, cc, b]))
