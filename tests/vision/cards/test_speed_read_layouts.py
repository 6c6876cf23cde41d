"""The layouts' part of the outline fit is computed once per catalog shape: the same fits, bit for
bit, as the fit computed whole."""

from __future__ import annotations

import importlib

import numpy as np
from numpy.typing import NDArray

from vision.cards import grid as grid_mod
from vision.cards.catalog import load_catalog

from .conftest import PX_PER_MM, draw_face

read_mod = importlib.import_module("vision.cards.read")


def _fits_whole(lines: grid_mod.FaceLines, grid: grid_mod.Grid, layouts: NDArray[np.bool_],
                cfg: grid_mod.GridConfig) -> NDArray[np.float64]:
    """The outline fit as computed before the layouts' part was shared."""
    sx = float(grid.xs[-1] - grid.xs[0]) / (len(grid.xs) - 1)
    sy = float(grid.ys[-1] - grid.ys[0]) / (len(grid.ys) - 1)
    xs = np.concatenate([[grid.xs[0] - sx], grid.xs, [grid.xs[-1] + sx]])
    ys = np.concatenate([[grid.ys[0] - sy], grid.ys, [grid.ys[-1] + sy]])
    horiz, vert, ok_h, ok_v = grid_mod._side_strengths(lines.hsum, lines.vsum, xs, ys, cfg.side_trim)
    pad = np.pad(layouts.astype(bool), ((0, 0), (1, 1), (1, 1)))
    rows_pad = np.pad(pad, ((0, 0), (1, 1), (0, 0)))
    expect_h = (rows_pad[:, :-1] | rows_pad[:, 1:]) & ok_h[None]
    cols_pad = np.pad(pad, ((0, 0), (0, 0), (1, 1)))
    expect_v = (cols_pad[:, :, :-1] | cols_pad[:, :, 1:]) & ok_v[None]
    quiet_h = ~(rows_pad[:, :-1] | rows_pad[:, 1:]) & ok_h[None]
    quiet_v = ~(cols_pad[:, :, :-1] | cols_pad[:, :, 1:]) & ok_v[None]
    n_on = expect_h.sum(axis=(1, 2)) + expect_v.sum(axis=(1, 2))
    n_off = quiet_h.sum(axis=(1, 2)) + quiet_v.sum(axis=(1, 2))
    s_on = (expect_h * horiz[None]).sum(axis=(1, 2)) + (expect_v * vert[None]).sum(axis=(1, 2))
    s_off = (quiet_h * horiz[None]).sum(axis=(1, 2)) + (quiet_v * vert[None]).sum(axis=(1, 2))
    m_on = s_on / np.maximum(n_on, 1)
    m_off = np.where(n_off > 0, s_off / np.maximum(n_off, 1), 0.0)
    total = m_on + m_off
    fit = np.where(total > 0, (m_on - m_off) / np.where(total > 0, total, 1.0), -1.0)
    return np.where(n_on > 0, fit, -1.0)


def test_shared_layout_edges_fit_alike(rng: np.random.Generator) -> None:
    cat = load_catalog()
    table = read_mod._layout_table(cat.cards)
    cfg = grid_mod.default_config()
    checked = 0
    for cid in ("t12", "t5", "t40", "t19"):
        card = cat.get(cid)
        assert card is not None
        face = draw_face(card, int(rng.integers(4)), frozenset(), rng).image
        lines = grid_mod.face_lines(face, PX_PER_MM, cfg)
        found = grid_mod.locate_grids(face, PX_PER_MM, cfg, limit=2, lines=lines)
        assert found
        for g in found:
            # the lattice found, shifted a little and grown or trimmed by a line
            for dx in (0.0, float(rng.uniform(-4, 4))):
                xs, ys = g.xs + dx, g.ys - dx
                for lat in (grid_mod.measure_lattice(lines, xs, ys, cfg),
                            grid_mod.measure_lattice(lines, xs[:-1], ys, cfg),
                            grid_mod.measure_lattice(lines, np.append(xs, 2 * xs[-1] - xs[-2]), ys, cfg)):
                    layouts = table.get(lat.shape)
                    if layouts is None:
                        continue
                    want = _fits_whole(lines, lat, layouts[0], cfg)
                    got = grid_mod.layout_fits(lines, lat, layouts[0], cfg, edges=layouts[2])
                    alone = grid_mod.layout_fits(lines, lat, layouts[0], cfg)
                    assert np.array_equal(got, want) and np.array_equal(alone, want)
                    assert want.max() > -1.0
                    checked += 1
    assert checked >= 8


def test_layout_edges_shapes(rng: np.random.Generator) -> None:
    layouts = rng.random((5, 3, 4)) < 0.5
    near_h, near_v = grid_mod.layout_edges(layouts)
    assert near_h.shape == (5, 6, 6) and near_v.shape == (5, 5, 7)
    # a cell's four sides border it; the grown ring's outer sides border nothing
    k, r, c = np.argwhere(layouts)[0]
    assert near_h[k, r + 1, c + 1] and near_h[k, r + 2, c + 1]
    assert near_v[k, r + 1, c + 1] and near_v[k, r + 1, c + 2]
    assert not near_h[:, 0].any() and not near_v[:, :, 0].any()
