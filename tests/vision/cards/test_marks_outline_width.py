"""The outline's width is learnt from the lines between two plain cells: a symbol's print darkens
its cell's fill as measured, so the outline beside a symbol cell reads shallower on that side,
and a width learnt there would leave a frame of outline ink inside every plain cell."""

from __future__ import annotations

import numpy as np
import pytest

from vision.cards.marks import _Cell, _outline_cleared, default_config

CELL = 40
BAND = 5  # the outline's ink, px deep on each side of every line between two plain cells


def _lattice(symbol_band: int, sym: str = "X") -> tuple[np.ndarray, list[_Cell]]:
    """A 3 x 3 lattice's ink map: every box inked ``BAND`` px deep along its four sides, the centre
    cell (printed ``sym``) only ``symbol_band`` px deep, as its darker measured fill shows it."""
    ink = np.zeros((3 * CELL, 3 * CELL), bool)
    cells = []
    for r in range(3):
        for c in range(3):
            box = (slice(r * CELL, (r + 1) * CELL), slice(c * CELL, (c + 1) * CELL))
            centre = (r, c) == (1, 1)
            d = symbol_band if centre else BAND
            part = ink[box]
            if d:
                part[:d] = part[-d:] = True
                part[:, :d] = part[:, -d:] = True
            cells.append(_Cell((r, c), sym if centre else "#", box, box, box, (), 1))
    return ink, cells


@pytest.mark.parametrize("symbol_band", [0, 1, 2])
def test_a_symbol_cells_shallow_side_does_not_narrow_the_outline(symbol_band: int) -> None:
    ink, cells = _lattice(symbol_band)
    out = _outline_cleared(ink, cells, default_config())
    for cell in cells:
        if cell.sym == "#":
            assert not out[cell.box].any(), cell.rc
    # the symbol cell is judged beyond its print as the photo shows it: it is left as it is
    centre = cells[4].box
    assert np.array_equal(out[centre], ink[centre])

