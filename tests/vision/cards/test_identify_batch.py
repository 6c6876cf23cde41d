"""Candidates scored all at once, and the face read only where it is used, give what scoring
each candidate alone and reading the whole face gives."""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from vision.cards.catalog import builtin_catalog
from vision.cards.grid import Grid, balanced_lab, locate_grid
from vision.cards.identify import (
    Observation,
    _match,
    _symbol_evidence,
    colour_evidence,
    contradicts,
    default_config,
    identify,
    observe,
)

from .conftest import Face

FACE_PPM = 4.0


def _one_by_one(obs: Observation, colour: bool) -> list[tuple[float, str, int]]:
    """Each card's best (score, id, turn), each catalog turn scored alone."""
    cfg = default_config()
    w_colour = cfg.w_colour if colour else 0.0
    evidence = _symbol_evidence(obs.symbols, cfg.symbol_share, cfg.symbol_common)
    best: dict[str, tuple[float, str, int]] = {}
    for card in builtin_catalog().cards:
        for k in range(4):
            g = card.grid(k)
            if g.shape != obs.presence.shape:
                continue
            cell = (g != ".").astype(np.float64)
            onehot = np.stack([(g == ch) for ch in "#XCP"], axis=2).astype(np.float64)
            layout = 1.0 - float(np.mean(np.abs(obs.presence - cell)))
            symbols = float((evidence * onehot).sum() / max(1.0, cell.sum()))
            wsum = cfg.w_layout + cfg.w_symbol + w_colour
            score = (cfg.w_layout * layout + cfg.w_symbol * symbols
                     + w_colour * colour_evidence(obs, card.colour)) / wsum
            if card.id not in best or score > best[card.id][0]:
                best[card.id] = (score, card.id, k)
    return sorted(best.values(), key=lambda t: -t[0])


def test_scores_match_each_candidate_scored_alone(rng: np.random.Generator) -> None:
    catalog = builtin_catalog()
    seen_known = seen_unknown = 0
    for n in range(40):
        card = catalog.cards[int(rng.integers(len(catalog.cards)))]
        grid = card.grid(int(rng.integers(4)))
        noise = 0.05 + 0.3 * (n % 4)  # from clean to hardly readable
        presence = np.clip((grid != ".") + rng.normal(0.0, noise, grid.shape), 0.0, 1.0)
        symbols = np.stack([(grid == ch) * 0.3 for ch in "XCP"], axis=2)
        symbols = np.clip(symbols + rng.normal(0.0, noise * 0.3, symbols.shape), 0.0, 1.0)
        colours = dict(zip(("grey", "purple", "orange", "green"), rng.random(4).tolist(), strict=True))
        obs = Observation(presence, symbols, colours)
        ident = identify(obs, catalog)
        # the colour joins only when the printed grid alone names no card
        ranked = _one_by_one(obs, colour=_match(obs, catalog, default_config(), colour=False).card is None)
        assert ident.best is not None and ident.best.id == ranked[0][1]
        assert abs(ident.score - ranked[0][0]) < 1e-12
        # the margin is over the best other card of a colour the frame does not rule out
        rival = next((sc for sc, cid, _ in ranked[1:] if not contradicts(obs, catalog.get(cid).colour)), 0.0)
        assert abs(ident.margin - (ranked[0][0] - rival)) < 1e-12
        if ident.card is not None:
            assert ident.rotation == ranked[0][2]
            seen_known += 1
        else:
            seen_unknown += 1
    assert seen_known and seen_unknown  # the premise: both ways out are taken


def _observe_whole_face(face: np.ndarray, grid: Grid,
                        px_per_mm: float) -> tuple[np.ndarray, dict[str, float]]:
    """The symbols and the card colour read from the whole face converted to Lab."""
    cfg = default_config()
    lab = balanced_lab(face, grid.paper)
    rows, cols = grid.shape
    sym = np.zeros((rows, cols, 3))
    patches = {}
    for r in range(rows):
        for c in range(cols):
            x0, y0, x1, y1 = grid.cell_box(r, c)
            mx, my = cfg.centre_margin * (x1 - x0), cfg.centre_margin * (y1 - y0)
            p = lab[round(y0 + my):round(y1 - my), round(x0 + mx):round(x1 - mx)].reshape(-1, 3)
            if len(p):
                hue = np.degrees(np.arctan2(p[:, 2], p[:, 1])) % 360.0
                patches[(r, c)] = (np.hypot(p[:, 1], p[:, 2]), hue)
    top = float(np.percentile(np.concatenate([ch for ch, _ in patches.values()]), cfg.chroma_percentile))
    strong_at = float(np.clip(cfg.chroma_share * top, cfg.grey_chroma, 2 * cfg.grey_chroma))
    for (r, c), (chroma, hue) in patches.items():
        strong = chroma > strong_at
        sym[r, c] = ((strong & ((hue < 45) | (hue > 340))).mean(),
                     (strong & (hue >= 55) & (hue < 105)).mean(),
                     (strong & (hue >= 105) & (hue < 200)).mean())
    h, w = lab.shape[:2]
    band = round(cfg.frame_band_mm[1] * px_per_mm) - round(cfg.frame_band_mm[0] * px_per_mm)
    edge = round(cfg.frame_band_mm[0] * px_per_mm)
    mask = np.zeros((h, w), bool)
    mask[edge:h - edge, edge:w - edge] = True
    mask[edge + band:h - edge - band, edge + band:w - edge - band] = False
    corner = round(cfg.frame_corner_mm * px_per_mm)
    mask[:corner, :corner] = False
    mask[:corner, w - corner:] = False
    a, b = float(np.median(lab[mask][:, 1])), float(np.median(lab[mask][:, 2]))
    return sym, {"a": a, "b": b}


def test_observe_reads_what_the_whole_face_shows(face_maker: Callable[..., Face],
                                                 rng: np.random.Generator) -> None:
    catalog = builtin_catalog()
    for card_id in ("t3", "t28", "t40"):
        card = catalog.get(card_id)
        assert card is not None
        cells = list(card.cells)
        marked = frozenset(cells[k] for k in rng.choice(len(cells), 3, replace=False))
        face = face_maker(card, int(rng.integers(4)), marked, rng)
        size = (round(63 * FACE_PPM), round(88 * FACE_PPM))
        small = cv2.resize(face.image, size, interpolation=cv2.INTER_AREA)
        grid = locate_grid(small, FACE_PPM)
        assert grid is not None
        obs = observe(small, grid, FACE_PPM)
        sym, frame = _observe_whole_face(small, grid, FACE_PPM)
        np.testing.assert_array_equal(obs.symbols, sym)
        assert sym.max() > 0.1  # the premise: printed symbols are seen
        # the card colour follows from the frame's median a and b alone
        cfg = default_config()
        hue = float(np.degrees(np.arctan2(np.float32(frame["b"]), np.float32(frame["a"]))) % 360.0)
        chroma = float(np.hypot(frame["a"], frame["b"]))
        grey = float(np.clip((2.0 * cfg.grey_chroma - chroma) / cfg.grey_chroma, 0.0, 1.0))
        assert obs.colour_scores["grey"] == grey
        for name, centre in cfg.hue_centres.items():
            d = abs((hue - centre + 180.0) % 360.0 - 180.0)
            assert obs.colour_scores[name] == (1.0 - grey) * float(np.clip(1.0 - d / cfg.hue_width, 0.0, 1.0))
        assert obs.colour == card.colour
