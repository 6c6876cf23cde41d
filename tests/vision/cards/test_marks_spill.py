"""Second mark stages on small drawn faces: ink lying along one side of a cell beyond its print
(hatching joined across the outlines) is a neighbour's, and a symbol's print is compared with each
cell after the best small shift."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from vision.cards.marks import cell_ink, default_config, pooled_residual, print_templates, read_marks

from .conftest import masks_ink, row_face, x_mask

S = 48  # cell size in face pixels
PEN = (60, 40, 40)


def _joined_hatching(face: np.ndarray, x0: int, x1: int) -> None:
    """Hatching from ``x0`` to ``x1`` joined into one stroke by a line across it."""
    for x in range(x0, x1, 7):
        cv2.line(face, (x, 4), (x + 6, S - 5), PEN, 2)
    cv2.line(face, (x0, S // 2), (x1, S // 2), PEN, 2)


def test_hatching_reaching_into_a_cell_from_one_side_leaves_it_unmarked() -> None:
    plain = np.array([["#", "#", "#", "#", "#"]])
    face, grid = row_face(5, S)
    # the middle three cells hatched as one stroke overshooting 15 px into the outer two: no cell
    # holds stroke_home of it, so it is nobody's stroke and stays where it lies
    _joined_hatching(face, S - 15, 4 * S + 15)
    ink = cell_ink(face, grid, plain)
    assert ink.offset is not None
    assert ink.offset[0, 0] > 0.3 and ink.offset[0, 4] > 0.3  # the ink lies along one side
    assert max(ink.offset[0, 1:4]) < 0.05  # spread over the whole cell
    assert read_marks(face, grid, plain, ink=ink).state.tolist() == [[0, 1, 1, 1, 0]]
    # without the second stage the outer cells are left open
    first_only = replace(default_config(), spill_offset=1.0)
    assert read_marks(face, grid, plain, ink=ink, config=first_only).state.tolist() == [[-1, 1, 1, 1, -1]]


def _printed_x(face: np.ndarray, x0: int) -> None:
    """A printed red X in the cell starting at ``x0``."""
    a, b = 14, S - 15
    cv2.line(face, (x0 + a, a), (x0 + b, b), (40, 40, 200), 3)
    cv2.line(face, (x0 + b, a), (x0 + a, b), (40, 40, 200), 3)


def test_hatching_reaching_into_a_symbol_cell_from_one_side_leaves_it_unmarked() -> None:
    printed = np.array([["X", "#", "#", "X", "X"]])
    face, grid = row_face(5, S)
    for k in (0, 3, 4):
        _printed_x(face, k * S)
    _joined_hatching(face, S - 15, 3 * S + 15)
    ink = cell_ink(face, grid, printed)
    # the strokes are traced past the print they touch: the hatching is the plain cells' ink, none
    # of the symbol cells' own (in their verdicts and in the masks compared with the print)
    assert ink.sectors_res[0, 0] == 0.0 and ink.sectors_res[0, 3] == 0.0
    assert ink.centre_res[0, 0] == 0.0 and ink.centre_res[0, 3] == 0.0
    assert ink.sectors_res[0, 1] == 1.0 and ink.sectors_res[0, 2] == 1.0
    assert np.mean(ink.masks[0, 0] ^ ink.masks[0, 4]) < 0.02  # the hatching's share: about 0.15
    assert read_marks(face, grid, printed, ink=ink).state.tolist() == [[0, 1, 1, 0, 0]]
    first_only = replace(default_config(), spill_offset=1.0)
    assert read_marks(face, grid, printed, ink=ink, config=first_only).state.tolist() == [[0, 1, 1, 0, 0]]


def test_a_faint_mark_in_the_middle_of_a_cell_stays_uncertain() -> None:
    plain = np.array([["#", "#"]])
    face, grid = row_face(2, S)
    cv2.circle(face, (S // 2, S // 2), 4, PEN, -1)  # a small dot: less centre ink than plain_hi
    ink = cell_ink(face, grid, plain)
    cfg = default_config()
    assert cfg.plain_lo[0] < ink.centre[0, 0] < cfg.plain_hi[0]
    assert ink.offset is not None and ink.offset[0, 0] < 0.05 and ink.offset[0, 1] == 0.0
    assert read_marks(face, grid, plain, ink=ink).state.tolist() == [[-1, 0]]


M = default_config().mask_px


def test_the_print_is_compared_with_each_cell_after_the_best_small_shift() -> None:
    cfg = default_config()
    assert cfg.print_shift_px >= 2
    # five cells of one class, their prints up to two mask pixels off each other
    shifts = [(0, 0), (2, 0), (-2, 1), (0, -2), (1, 2)]
    ink = masks_ink([x_mask(dx, dy, width=3) for dx, dy in shifts])
    printed = np.array([["X"] * len(shifts)])
    tpl = print_templates([(ink, printed)])
    fitted = [pooled_residual(ink, (0, c), tpl["X"]) for c in range(len(shifts))]
    fixed = [pooled_residual(ink, (0, c), tpl["X"], reach=0) for c in range(len(shifts))]
    assert max(fitted) < cfg.pooled_hi / 4
    assert max(fixed) > max(fitted)  # held in place, the print's edges would look like pen
    # a pen stroke beyond the print is still residual ink after the shift
    pen = x_mask(2, 0, width=3).astype(np.uint8)
    cv2.line(pen, (4, M // 2), (M - 5, M // 2), 1, 3)
    assert pooled_residual(masks_ink([pen.astype(bool)]), (0, 0), tpl["X"]) >= cfg.pooled_hi
