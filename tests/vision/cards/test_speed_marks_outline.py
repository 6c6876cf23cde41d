"""The outline's reach measured for every box of one size at once reads exactly what the measure of
each cell on its own reads."""

from __future__ import annotations

import numpy as np

from vision.cards.marks import MarksConfig, _Cell, _run_depths, _side_depths, default_config


def _one_run_depth(profile: np.ndarray, share: float) -> int:
    """The plain measure: the first depth of one profile below ``share``, or its length."""
    below = np.flatnonzero(profile < share)
    return int(below[0]) if below.size else len(profile)


def _one_cell(m: np.ndarray, cfg: MarksConfig) -> list[tuple[int, int]] | None:
    """The plain measure of one cell's box ``m``: each side's mean profile, one at a time."""
    h, w = m.shape
    depth = int(cfg.outline_depth * min(h, w))
    if depth < 1:
        return None
    a = cfg.outline_along
    x0, x1 = round((1 - a) / 2 * w), round((1 + a) / 2 * w)
    y0, y1 = round((1 - a) / 2 * h), round((1 + a) / 2 * h)
    profiles = (m[:depth, x0:x1].mean(axis=1), m[:-depth - 1:-1, x0:x1].mean(axis=1),
                m[y0:y1, :depth].mean(axis=0), m[y0:y1, :-depth - 1:-1].mean(axis=0))
    return [(_one_run_depth(p, cfg.outline_on), _one_run_depth(p, cfg.outline_edge)) for p in profiles]


def _cell(rc: tuple[int, int], y: int, x: int, h: int, w: int) -> _Cell:
    box = (slice(y, y + h), slice(x, x + w))
    return _Cell(rc, "#", box, box, box, (), 1)


def test_side_depths_are_each_cells_own(rng: np.random.Generator) -> None:
    cfg = default_config()
    ink = np.zeros((120, 160), bool)
    # outline bands of several widths, pen blobs and noise, so the profiles cross both shares at
    # every depth
    ink[rng.integers(0, 120, 40)] = True
    ink[:, rng.integers(0, 160, 50)] = True
    ink |= rng.random(ink.shape) < rng.random(ink.shape) * 0.6
    cells = [_cell((r, c), 3 + 27 * r, 2 + 25 * c + r, 26 + (c % 2), 24 + (r % 3))
             for r in range(4) for c in range(5)]
    # boxes too small to sample, an empty one and one cut by the map's edge
    cells += [_cell((4, 0), 110, 10, 3, 20), _cell((4, 1), 0, 0, 0, 0), _cell((4, 2), 105, 150, 30, 30)]
    got = _side_depths(ink, cells, cfg)
    want = {cell.rc: _one_cell(ink[cell.box], cfg) for cell in cells}
    assert got == {rc: d for rc, d in want.items() if d is not None}
    assert (4, 0) not in got and (4, 1) not in got and (4, 2) in got


def test_run_depths_are_the_first_depth_below(rng: np.random.Generator) -> None:
    profiles = rng.random((30, 4, 9))
    profiles[:5] = 1.0  # never below: the whole depth
    profiles[5:8, :, 0] = 0.0  # below at once
    for share in (0.5, 0.9):
        got = _run_depths(profiles, share)
        want = [[_one_run_depth(p, share) for p in cell] for cell in profiles]
        np.testing.assert_array_equal(got, want)
