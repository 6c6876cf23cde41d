"""Ring ink that every plain cell shows alike is the lattice's. Heavy blur spreads a thick outline
past what the outline clearing removes, into every cell's ring: clean cells show ring ink around
an empty centre, as a faint ring would. The plain cells' common ring ink is taken off before the
verdict; a ring mark inks the ring beyond it."""

from __future__ import annotations

import dataclasses

import numpy as np

from vision.cards.grid import Grid
from vision.cards.marks import CellInk, _ring_baseline, default_config, read_marks

SHAPE = (2, 4)
PRINTED = np.full(SHAPE, "#")
DOTS = ((0, 0), (0, 1))
RING = (1, 3)
# the verdicts here come from the measured shares alone; the face and its lattice only give the shape
FACE = np.zeros((100, 196, 3), np.uint8)
GRID = Grid(np.arange(5) * 48.0 + 2.0, np.arange(3) * 48.0 + 2.0, np.ones(SHAPE), np.full(3, 235.0))


def _ink(clean_sectors: float, ring_sectors: float = 1.0) -> CellInk:
    """Two dotted cells (ink in the centre), one ringed cell (``ring_sectors`` of the ring's
    sectors inked around an empty centre) and five clean cells whose rings show
    ``clean_sectors`` all round."""
    cfg = default_config()
    centre = np.zeros(SHAPE)
    sectors = np.full(SHAPE, clean_sectors)
    for rc in DOTS:
        centre[rc], sectors[rc] = 0.5, 0.25
    sectors[RING] = ring_sectors
    ring = 0.3 * sectors
    zeros = np.zeros(SHAPE)
    return CellInk(ring=ring, centre=centre, ring_res=ring, centre_res=centre, sectors=sectors,
                   sectors_res=sectors, corners=zeros, spread=np.ones(SHAPE),
                   masks=np.zeros((*SHAPE, cfg.mask_px, cfg.mask_px), bool))


def _expected() -> list[list[int]]:
    state = np.zeros(SHAPE, int)
    for rc in (*DOTS, RING):
        state[rc] = 1
    return state.tolist()


def test_ring_ink_common_to_the_clean_cells_is_no_mark() -> None:
    ink = _ink(clean_sectors=0.625)
    assert _ring_baseline(ink, PRINTED, default_config()) == default_config().plain_lo[1]
    assert read_marks(FACE, GRID, PRINTED, ink=ink).state.tolist() == _expected()


def test_without_the_baseline_the_blurred_outline_reads_as_rings() -> None:
    # the premise: the clean cells' ring ink alone marks them
    cfg = dataclasses.replace(default_config(), ring_common_cells=10**6)
    state = read_marks(FACE, GRID, PRINTED, ink=_ink(0.625), config=cfg).state
    assert (state == 1).sum() == 8


def test_clean_rings_leave_a_faint_ring_marked() -> None:
    # clean cells without ring ink set no baseline: a ring inking half the sectors is a mark
    ink = _ink(clean_sectors=0.0, ring_sectors=0.5)
    assert _ring_baseline(ink, PRINTED, default_config()) == 0.0
    assert read_marks(FACE, GRID, PRINTED, ink=ink).state.tolist() == _expected()


def test_a_card_ringed_nearly_all_over_keeps_its_rings() -> None:
    # every centre-free cell ringed: the baseline is bounded, and the rings stay marks
    cfg = default_config()
    ink = _ink(clean_sectors=1.0)
    assert _ring_baseline(ink, PRINTED, cfg) == cfg.plain_lo[1]
    assert (read_marks(FACE, GRID, PRINTED, ink=ink).state == 1).all()


def test_too_few_centre_free_cells_set_no_baseline() -> None:
    cfg = dataclasses.replace(default_config(), ring_common_cells=7)
    assert _ring_baseline(_ink(0.625), PRINTED, cfg) == 0.0
