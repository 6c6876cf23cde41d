"""A plain cell whose ink lies in part of its ring only (none in the centre, not all round, not
through the four inside corners) is at most uncertain: neighbours' strokes joined across the
outlines leave that, while a mark of its own crosses the centre, circles the cell or runs round
its outline."""

from __future__ import annotations

import numpy as np

from vision.cards.grid import Grid
from vision.cards.marks import CellInk, default_config, read_marks

# per cell: (centre, sectors, spread, corner_ink, offset)
CELLS = {
    "partial ring": (0.0, 0.75, 0.875, 0.5, 0.3),
    "full ring": (0.0, 1.0, 1.0, 0.5, 0.05),
    "ring on the outline": (0.0, 0.75, 0.875, 1.0, 0.05),
    "cross": (0.3, 0.75, 0.875, 0.5, 0.05),
    "faint off-centre ink": (0.0, 0.42, 0.875, 0.25, 0.4),
}


def _read() -> dict[str, int]:
    names = list(CELLS)
    n = len(names)
    z = np.zeros((1, n))
    cols = {k: np.array([[CELLS[name][k] for name in names]]) for k in range(5)}
    ink = CellInk(ring=z, centre=cols[0], ring_res=z, centre_res=cols[0], sectors=cols[1],
                  sectors_res=cols[1], corners=z, spread=cols[2],
                  masks=np.zeros((1, n, default_config().mask_px, default_config().mask_px), bool),
                  corner_ink=cols[3], offset=cols[4])
    grid = Grid(np.arange(n + 1) * 40.0, np.array([0.0, 40.0]), np.ones((1, n)), np.full(3, 230.0))
    printed = np.full((1, n), "#")
    state = read_marks(np.zeros((40, 40 * n, 3), np.uint8), grid, printed, ink=ink).state
    return {name: int(state[0, k]) for k, name in enumerate(names)}


def test_the_premises() -> None:
    cfg = default_config()
    assert CELLS["partial ring"][1] >= cfg.plain_hi[1]  # its ring alone would mark it
    assert CELLS["partial ring"][2] > cfg.spill_arc  # from more than one side
    assert CELLS["partial ring"][4] > cfg.spill_offset  # and its ink lies off the centre
    assert CELLS["cross"][0] > cfg.plain_lo[0]
    assert CELLS["ring on the outline"][3] >= cfg.loop_corners
    assert cfg.plain_lo[1] < CELLS["faint off-centre ink"][1] < 0.5 * (cfg.plain_lo[1] + cfg.plain_hi[1])


def test_ink_in_part_of_the_ring_only_is_uncertain() -> None:
    assert _read()["partial ring"] == -1


def test_marks_of_its_own_stay_marked() -> None:
    states = _read()
    assert states["full ring"] == 1
    assert states["ring on the outline"] == 1
    assert states["cross"] == 1


def test_a_cell_uncertain_on_its_own_with_off_centre_ink_is_still_unmarked() -> None:
    assert _read()["faint off-centre ink"] == 0
