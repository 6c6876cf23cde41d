"""A ring drawn on a symbol cell's outline inks all four corners of its inside, where the symbol's
print leaves them clear. Whether a print reaches its corners is learnt from the photo's cells of
the symbol; a photo may hold cards printed in more than one style, and a card's own cells of a
symbol are one print: corners inked in all of them are the print's, not rings."""

from __future__ import annotations

import numpy as np

from vision.cards.grid import Grid
from vision.cards.marks import CellInk, PrintTemplates, default_config, read_marks

SHAPE = (2, 4)
PRINTED = np.array([["X", "#", "#", "X"], ["#", "#", "#", "#"]])
# the verdicts here come from the measured shares alone; the face and its lattice only give the shape
FACE = np.zeros((100, 196, 3), np.uint8)
GRID = Grid(np.arange(5) * 48.0 + 2.0, np.arange(3) * 48.0 + 2.0, np.ones(SHAPE), np.full(3, 235.0))


def _ink(corner_ink: tuple[float, float]) -> CellInk:
    """Clean plain cells; two X cells showing their print in the centre, with ``corner_ink`` of
    the inside corners of each inked."""
    cfg = default_config()
    zeros = np.zeros(SHAPE)
    centre = zeros.copy()
    corners = zeros.copy()
    centre[0, 0] = centre[0, 3] = 0.5
    corners[0, 0], corners[0, 3] = corner_ink
    return CellInk(ring=zeros, centre=centre, ring_res=zeros, centre_res=zeros, sectors=zeros,
                   sectors_res=zeros, corners=zeros, spread=zeros,
                   masks=np.zeros((*SHAPE, cfg.mask_px, cfg.mask_px), bool), corner_ink=corners)


def _templates() -> PrintTemplates:
    # the photo's other cards print an X that leaves its corners clear
    cfg = default_config()
    return PrintTemplates({"X": np.zeros((cfg.mask_px, cfg.mask_px), bool)}, {"X": (0.0, 0.0, 0.0)})


def test_corners_inked_in_every_cell_of_a_symbol_on_a_card_are_its_print() -> None:
    state = read_marks(FACE, GRID, PRINTED, ink=_ink((1.0, 1.0)), templates=_templates()).state
    assert state[0, 0] == 0 and state[0, 3] == 0


def test_corners_inked_in_one_cell_of_a_symbol_are_a_ring() -> None:
    state = read_marks(FACE, GRID, PRINTED, ink=_ink((1.0, 0.0)), templates=_templates()).state
    assert state[0, 0] == 1 and state[0, 3] == 0
