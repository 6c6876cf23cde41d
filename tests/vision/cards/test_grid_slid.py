"""The lattices of one spacing and phase slid along the face."""

from __future__ import annotations

import numpy as np

from vision.cards.grid import Grid, default_config, slid_lattices

PPM = 4.0
PITCH = 48.0  # 12 mm cells at 4 px/mm
SHAPE = (352, 252, 3)  # a 63x88 mm face at 4 px/mm


def _grid(xs: list[float], ys: list[float]) -> Grid:
    return Grid(np.array(xs), np.array(ys), np.ones((len(ys) - 1, len(xs) - 1)), np.full(3, 235.0))


def test_every_window_of_the_lattice_on_the_face() -> None:
    cfg = default_config()
    g = _grid([40 + PITCH * i for i in range(4)], [70 + PITCH * i for i in range(4)])
    found = slid_lattices(SHAPE, g, PPM, cfg)
    margin = cfg.extend_margin_mm * PPM
    # x: the lines 40 .. 232 lie on the face (5 lines: two windows of 4, one of 5);
    # y: 22 .. 310 (7 lines: four windows of 4, three of 5)
    assert len(found) == 3 * 7
    keys = set()
    for xs, ys in found:
        for lines, size, origin in ((xs, SHAPE[1], 40.0), (ys, SHAPE[0], 70.0)):
            assert cfg.min_lines <= len(lines) <= cfg.max_lines
            assert np.allclose(np.diff(lines), PITCH)
            assert np.allclose((lines - origin) / PITCH, np.round((lines - origin) / PITCH))
            assert lines[0] >= margin and lines[-1] <= size - 1 - margin
        keys.add((tuple(np.round(xs)), tuple(np.round(ys))))
    assert len(keys) == len(found)
    assert (tuple(np.round(g.xs)), tuple(np.round(g.ys))) in keys
    # one row up and one row down are both there
    assert (tuple(np.round(g.xs)), tuple(np.round(g.ys - PITCH))) in keys
    assert (tuple(np.round(g.xs)), tuple(np.round(g.ys + PITCH))) in keys


def test_a_lattice_filling_the_face_has_no_other_window() -> None:
    cfg = default_config()
    n = cfg.max_lines
    start = (SHAPE[1] - PITCH * (n - 1)) / 2
    xs = [start + PITCH * i for i in range(n)]
    # across, no line fits beside the lattice: every window keeps the same columns
    found = slid_lattices(SHAPE, _grid(xs, [100 + PITCH * i for i in range(4)]), PPM, cfg)
    assert found
    assert {tuple(np.round(x)) for x, _ in found} <= {tuple(np.round(xs[s:s + k]))
                                                      for k in range(cfg.min_lines, n + 1)
                                                      for s in range(n - k + 1)}
