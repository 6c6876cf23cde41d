"""Symbol cells on a faint card: dim light fades a printed symbol's colours as it fades the ink,
so the chroma that shows the symbol's hue follows the card's contrast."""

from __future__ import annotations

import cv2
import numpy as np

from vision.cards.grid import Grid
from vision.cards.marks import cell_ink, default_config, print_templates, read_marks

from .conftest import row_face

S = 48  # cell size in face pixels
DIM_PAPER = (130, 130, 130)  # BGR: the cells' fill in dim light
DIM_RED = (50, 50, 85)  # BGR: a red X in that light (little chroma left)
DARK_BLUE = (90, 40, 20)


def _dim_xs(dot: bool) -> tuple[np.ndarray, Grid]:
    """Four dimly lit cells printed with a red X, a dark blue pen dot on the second one."""
    face, grid = row_face(4, S, paper=DIM_PAPER, outline=(30, 30, 30))
    a, b = 12, S - 13
    for k in range(4):
        for p, q in (((k * S + a, a), (k * S + b, b)), ((k * S + b, a), (k * S + a, b))):
            cv2.line(face, p, q, DIM_RED, 5, cv2.LINE_AA)
    if dot:
        cv2.circle(face, (S + S // 2, S // 2), 7, DARK_BLUE, -1)
    return face, grid


def test_a_dim_symbols_print_is_not_pen_and_a_pen_dot_on_it_is() -> None:
    printed = np.array([["X"] * 4])
    face, grid = _dim_xs(dot=True)
    ink = cell_ink(face, grid, printed)
    tpl = print_templates([(ink, printed)])
    assert read_marks(face, grid, printed, ink=ink).state[0].tolist() == [0, 1, 0, 0]
    assert read_marks(face, grid, printed, ink=ink, templates=tpl).state[0].tolist() == [0, 1, 0, 0]


def test_the_chroma_threshold_follows_the_cards_contrast() -> None:
    printed = np.array([["X"] * 4])
    face, grid = _dim_xs(dot=False)
    ink = cell_ink(face, grid, printed)
    # the faded print keeps its hue above the lowered chroma threshold: no residual ink in any cell
    assert float(ink.centre_res.max()) < default_config().symbol_lo[0]
    assert float(ink.centre.min()) > default_config().symbol_hi[0]  # yet the print is ink
