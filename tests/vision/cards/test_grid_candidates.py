"""Two stages between lattices one line apart: the outlines keep those they cannot tell apart
(a grown one only with a cell in its new row), then the catalog settles between them."""

from __future__ import annotations

import importlib

import cv2
import numpy as np

from vision.cards.catalog import load_catalog
from vision.cards.grid import Grid, default_config, face_lines, measure_lattice
from vision.cards.identify import Identity, Observation

from .conftest import blank_face

read_mod = importlib.import_module("vision.cards.read")

PPM = 4.0
PITCH = 48  # 12 mm cells at 4 px/mm
XS = np.array([54.0 + PITCH * i for i in range(4)])
YS = np.array([80.0 + PITCH * i for i in range(5)])


def _face(cells: np.ndarray, faint_row: int | None = None, faint: int = 120) -> np.ndarray:
    """A face with the outlined plain cells of ``cells`` (4, 3) on the 4x3 lattice ``XS``, ``YS``;
    the outlines of ``faint_row`` washed to grey level ``faint``. ``(352, 252, 3)`` uint8."""
    face = blank_face((40, 140, 220))
    where = list(zip(*np.nonzero(cells), strict=True))
    for r, c in where:
        cv2.rectangle(face, (int(XS[c]), int(YS[r])), (int(XS[c + 1]), int(YS[r + 1])), (235, 235, 235), -1)
    for r, c in sorted(where, key=lambda rc: rc[0] != faint_row):
        ink = (faint, faint, faint) if r == faint_row else (50, 50, 50)
        cv2.rectangle(face, (int(XS[c]), int(YS[r])), (int(XS[c + 1]), int(YS[r + 1])), ink, 2)
    return face


def _candidates(face: np.ndarray, found: Grid) -> list[tuple[float, Grid, bool]]:
    cfg = default_config()
    lines = face_lines(face, PPM, cfg)
    table = read_mod._layout_table(load_catalog().cards)
    return list(read_mod._outline_candidates(face.shape, lines, [found], table, PPM, cfg))


def _t27() -> np.ndarray:
    """Card t27's cells turned to stand 4 rows by 3 columns."""
    card = load_catalog().get("t27")
    assert card is not None
    return next(m for m in (card.grid(k) != "." for k in range(4)) if m.shape == (4, 3))


def test_a_clear_lattice_is_the_only_candidate() -> None:
    cells = _t27()
    assert cells.shape == (4, 3)
    face = _face(cells)
    lines = face_lines(face, PPM)
    found = measure_lattice(lines, XS, YS)
    kept = _candidates(face, found)
    # no row or column beyond the grid carries an outline: the lattice found is the grid
    assert len(kept) == 1
    assert np.allclose(kept[0][1].xs, XS) and np.allclose(kept[0][1].ys, YS) and kept[0][2]


def test_a_lattice_a_washed_row_short() -> None:
    cells = _t27()
    last = cells.shape[0] - 1
    # outlines washed to mid grey: the grown lattice explains them clearly better, and is the grid
    face = _face(cells, faint_row=last, faint=120)
    short = measure_lattice(face_lines(face, PPM), XS, YS[:-1])
    kept = _candidates(face, short)
    assert [(g.shape, plausible) for _, g, plausible in kept] == [((4, 3), True)]
    assert np.allclose(kept[0][1].ys, YS, atol=1.0)
    assert float(kept[0][1].presence[last].max()) >= default_config().extend_presence
    # washed nearly to the fill: the outlines cannot tell the two apart, and the new row shows no
    # cell: the grown lattice is left for the catalog to name, not plausible on its own
    face = _face(cells, faint_row=last, faint=170)
    short = measure_lattice(face_lines(face, PPM), XS, YS[:-1])
    kept = _candidates(face, short)
    assert {(g.shape, plausible) for _, g, plausible in kept} == {((3, 3), True), ((4, 3), False)}
    assert any(np.allclose(g.ys, YS, atol=1.0) for _, g, _ in kept)


def _read(fit: float, card: str | None, score: float, margin: float, best: str | None = None,
          plausible: bool = True) -> read_mod._Read:
    catalog = load_catalog()
    grid = Grid(XS, YS, np.ones((4, 3)), np.array([235.0, 235.0, 235.0]))
    obs = Observation(grid.presence, np.zeros((4, 3, 3)), {"green": 1.0})
    named = catalog.get(card) if card is not None else None
    proposal = catalog.get(best) if best is not None else named
    return fit, grid, plausible, obs, Identity(named, 0, 0.5, score, margin, proposal)


def test_settle_places_one_card_by_the_outlines_and_names_by_the_catalog() -> None:
    # one card named on two lattices: the better fitting one places it
    a, b = _read(0.9, "t27", 0.80, 0.05), _read(0.8, "t27", 0.85, 0.08)
    assert read_mod._settle([b, a]) is a
    # two cards named: the one the catalog recognises better
    c = _read(0.95, "t18", 0.75, 0.03)
    assert read_mod._settle([a, c]) is a
    # none named: the catalog's best proposal, whatever the fit
    d, e = _read(0.95, None, 0.70, 0.01, "t18"), _read(0.85, None, 0.78, 0.01, "t27")
    assert read_mod._settle([d, e]) is e
    # a lattice grown by a row of no cell: named, it may be the grid; unnamed, it is none
    f = _read(0.9, None, 0.80, 0.01, "t27", plausible=False)
    assert read_mod._settle([d, f]) is d
    g = _read(0.9, "t27", 0.80, 0.05, plausible=False)
    assert read_mod._settle([d, g]) is g
    assert read_mod._settle([g, _read(0.8, "t27", 0.7, 0.03)])[2]
