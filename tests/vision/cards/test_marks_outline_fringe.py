"""A blurred outline's ragged fringe lies past its edge's reach in patches: a plain cell's ink not
joined to ink inside the cleared band is the fringe and is cleared; a pen stroke reaching the
cell's inside keeps all its ink, its part in the fringe's depth too."""

from __future__ import annotations

import dataclasses

import numpy as np

from vision.cards.marks import _Cell, _outline_cleared, default_config

CELL = 40
BAND = 5  # the outline's ink, px deep on each side of every line


def _lattice() -> tuple[np.ndarray, list[_Cell]]:
    """A 3 x 3 lattice of plain cells, every box inked ``BAND`` px deep along its four sides."""
    ink = np.zeros((3 * CELL, 3 * CELL), bool)
    cells = []
    for r in range(3):
        for c in range(3):
            box = (slice(r * CELL, (r + 1) * CELL), slice(c * CELL, (c + 1) * CELL))
            part = ink[box]
            part[:BAND] = part[-BAND:] = True
            part[:, :BAND] = part[:, -BAND:] = True
            cells.append(_Cell((r, c), "#", box, box, box, (), 1))
    return ink, cells


def test_fringe_patches_past_the_cleared_band_are_cleared() -> None:
    ink, cells = _lattice()
    centre = ink[cells[4].box]
    centre[BAND:BAND + 2, 12:16] = True        # a ragged patch just past the outline's edge
    centre[24:26, BAND:BAND + 2] = True        # another on the left side
    cfg = default_config()
    assert cfg.outline_fringe_px == 2
    out = _outline_cleared(ink, cells, cfg)
    assert not out[cells[4].box].any()
    # without the fringe rule the patches stay, and read as ink on the outline
    bare = _outline_cleared(ink, cells, dataclasses.replace(cfg, outline_fringe_px=0))
    assert bare[cells[4].box].sum() == 8 + 4


def test_a_stroke_reaching_the_inside_keeps_its_ink() -> None:
    ink, cells = _lattice()
    centre = ink[cells[4].box]
    centre[BAND:30, 20:22] = True              # a pen stroke from the outline into the cell
    centre[BAND:BAND + 4, 10:14] = True        # a patch reaching two px past the fringe's depth
    out = _outline_cleared(ink, cells, default_config())
    kept = out[cells[4].box]
    assert kept[BAND:30, 20:22].all()
    assert kept[BAND:BAND + 4, 10:14].all()
    assert kept.sum() == 25 * 2 + 16
