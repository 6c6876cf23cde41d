"""Per-cell verdicts on small drawn faces: strokes traced across the outlines, rings drawn on the
outline, and symbols whose print leaves off-hue ink in every cell (learnt from the photo)."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from vision.cards.marks import CellInk, PrintTemplates, cell_ink, default_config, print_templates, read_marks

from .conftest import row_face

S = 48  # cell size in face pixels
BLUE = (150, 60, 20)


def _tail(face: np.ndarray) -> None:
    """Two short strokes in the right-hand corners of the first cell's inside."""
    cv2.line(face, (34, 8), (46, 4), BLUE, 3)
    cv2.line(face, (34, 40), (46, 44), BLUE, 3)


def test_a_neighbours_overshooting_stroke_is_not_the_cells_ring_ink() -> None:
    plain = np.array([["#", "#", "#"]])
    # the same ink in the first cell's corners: once the tails of a cross drawn in the second
    # cell (overshooting its outline), once two short strokes of the first cell's own
    face, grid = row_face(3, S)
    cv2.line(face, (34, 8), (S + 38, S - 8), BLUE, 3)
    cv2.line(face, (34, S - 8), (S + 38, 8), BLUE, 3)
    own_face, _ = row_face(3, S)
    _tail(own_face)
    tails = cell_ink(face, grid, plain)
    own = cell_ink(own_face, grid, plain)
    assert own.corner_ink is not None and tails.corner_ink is not None
    assert own.corner_ink[0, 0] == 0.5 and own.ring[0, 0] > 0.0
    assert tails.corner_ink[0, 0] == 0.0 and tails.ring[0, 0] == 0.0
    assert tails.centre[0, 1] > default_config().plain_hi[0]
    assert read_marks(face, grid, plain).state.tolist() == [[0, 1, 0]]


def test_a_neighbours_stroke_reaching_into_the_centre_is_not_the_cells_ink() -> None:
    plain = np.array([["#", "#", "#"]])
    face, grid = row_face(3, S)
    # hatching drawn in the second cell, its strokes overshooting far into the first cell's centre
    # disc from its right-hand side
    for k in range(4):
        cv2.line(face, (30, 10 + 9 * k), (2 * S - 8, 14 + 9 * k), BLUE, 3)
    ink = cell_ink(face, grid, plain)
    assert ink.centre[0, 0] == 0.0 and ink.ring[0, 0] == 0.0
    assert ink.centre[0, 1] > default_config().plain_hi[0]
    assert read_marks(face, grid, plain, ink=ink).state.tolist() == [[0, 1, 0]]


def test_a_ring_joined_to_a_neighbours_mark_is_the_cells_own() -> None:
    plain = np.array([["#", "#", "#"]])
    face, grid = row_face(3, S)
    for y in range(6, S - 5, 4):
        cv2.line(face, (S + 4, y), (2 * S - 5, y), BLUE, 3)  # the second cell inked through
    # a ring round the first cell's centre (outside its centre disc), joined to that ink across the
    # outline: most of the joined ink lies in the second cell, yet the ring is centred in the first
    cv2.circle(face, (S // 2, S // 2), 16, BLUE, 2)
    cv2.line(face, (S // 2 + 16, S // 2), (S + 6, S // 2), BLUE, 2)
    ink = cell_ink(face, grid, plain)
    assert ink.centre[0, 0] == 0.0 and ink.sectors[0, 0] == 1.0
    assert read_marks(face, grid, plain, ink=ink).state.tolist() == [[1, 1, 0]]


def test_a_strokes_overshoot_stays_its_own_when_its_cell_holds_under_half_of_it() -> None:
    plain = np.array([["#", "#", "#"]])
    face, grid = row_face(3, S)
    # a stroke drawn along the top of the middle cell, overshooting far into both neighbours: the
    # middle cell holds less than half of it, each neighbour less than own_share
    cv2.line(face, (S - 28, 9), (2 * S + 28, 9), BLUE, 3)
    ink = cell_ink(face, grid, plain)
    assert default_config().stroke_home <= default_config().own_share
    assert ink.ring[0, 1] > 0.0
    assert ink.ring[0, 0] == 0.0 and ink.ring[0, 2] == 0.0


def test_a_ring_drawn_on_the_outline_is_a_mark() -> None:
    plain = np.array([["#", "#", "#"]])
    face, grid = row_face(3, S)
    cv2.ellipse(face, (S // 2, S // 2), (S // 2 - 2, S // 2 - 2), 0, 0, 360, BLUE, 2)
    cv2.line(face, (2 * S + 34, 40), (2 * S + 46, 44), BLUE, 3)  # ink in one corner only
    ink = cell_ink(face, grid, plain)
    assert ink.corner_ink is not None
    assert ink.corner_ink[0].tolist() == [1.0, 0.0, 0.25]
    # the ring runs along the outline, outside the centre and the ring band: only the corners
    assert ink.centre[0, 0] == 0.0 and ink.sectors[0, 0] == 0.0
    state = read_marks(face, grid, plain, ink=ink).state
    assert state[0, 0] == 1 and state[0, 1] == 0 and state[0, 2] != 1
    no_loop = replace(default_config(), loop_corners=2.0)
    assert read_marks(face, grid, plain, ink=ink, config=no_loop).state[0, 0] == 0


def _x_cell(face: np.ndarray, x0: int) -> None:
    """A printed X: red strokes with dark, colourless edges (as blur and a cast leave them)."""
    a, b = 10, S - 11
    for p, q in (((x0 + a, a), (x0 + b, b)), ((x0 + b, a), (x0 + a, b))):
        cv2.line(face, p, q, (70, 70, 80), 5)
        cv2.line(face, p, q, (40, 40, 200), 3)


def test_a_symbol_learnt_from_the_photo_sets_its_own_residual_ink() -> None:
    printed = np.array([["X", "X", "#"]])
    cards = []
    for k in range(3):
        face, grid = row_face(3, S)
        _x_cell(face, 0)
        _x_cell(face, S)
        if k == 1:
            cv2.circle(face, (S + S // 2, S // 2), 9, BLUE, -1)  # a pen dot on the print
        cards.append((face, grid))
    inks = [cell_ink(f, g, printed) for f, g in cards]
    tpl = print_templates([(ink, printed) for ink in inks])
    assert isinstance(tpl, PrintTemplates) and set(tpl) == {"X"}
    assert tpl.typical["X"][1] > 0.0  # the print's off-hue edges fill part of the ring in every cell
    assert all(ink.ring_res[0, 0] > 0.0 for ink in inks)
    states = [read_marks(f, g, printed, templates=tpl, ink=ink).state[0].tolist()
              for (f, g), ink in zip(cards, inks, strict=True)]
    assert states == [[0, 0, 0], [0, 1, 0], [0, 0, 0]]


def test_dark_pen_over_a_symbol_of_its_own_hue_is_residual_ink() -> None:
    printed = np.array([["C", "C", "C"]])
    face, grid = row_face(3, S)
    for k in range(3):
        cv2.circle(face, (k * S + S // 2, S // 2), 14, (40, 200, 230), -1)  # a yellow coin
    # a dark pen cross over the middle coin, half transparent: it keeps some of the coin's hue
    layer = face.copy()
    cv2.line(layer, (S + 12, 12), (2 * S - 13, S - 13), (20, 60, 70), 4)
    cv2.line(layer, (2 * S - 13, 12), (S + 12, S - 13), (20, 60, 70), 4)
    face = cv2.addWeighted(face, 0.35, layer, 0.65, 0)
    ink = cell_ink(face, grid, printed)
    cfg = default_config()
    assert ink.centre_res[0, 1] - max(ink.centre_res[0, 0], ink.centre_res[0, 2]) >= cfg.symbol_hi[0]
    assert read_marks(face, grid, printed, ink=ink).state[0].tolist() == [0, 1, 0]


def test_one_washed_out_print_is_no_baseline_for_its_class() -> None:
    # four coins on a card, not learnt from the photo: the first washed out by a glare, the last
    # gone over in the coin's own colour past its print
    printed = np.array([["C", "C", "C", "C"]])
    face, grid = row_face(4, S)
    for k in range(4):
        colour = (185, 235, 245) if k == 0 else (40, 200, 230)
        cv2.circle(face, (k * S + S // 2, S // 2), 14 if k == 3 else 12, colour, -1)
    ink = cell_ink(face, grid, printed)
    assert ink.centre[0, 0] == 0.0 and ink.centre[0, 1] == ink.centre[0, 2] > 0.5
    # the clean prints are compared with the second cleanest cell, not the washed-out one
    assert read_marks(face, grid, printed, ink=ink).state[0].tolist() == [0, 0, 0, 1]


def test_corners_a_symbols_print_leaves_clear_are_learnt_from_two_clean_cells() -> None:
    # five coins in a photo, three of them crossed out to their corners: the print's clear
    # corners are those two of its cells show, not the typical of a mostly marked class
    n = 5
    corner = np.array([[1.0, 1.0, 1.0, 0.0, 0.0]])
    z = np.zeros((1, n))
    masks = np.zeros((1, n, default_config().mask_px, default_config().mask_px), bool)
    ink = CellInk(z, z, z, z, z, z, z, z, masks, corner)
    printed = np.array([["C"] * n])
    tpl = print_templates([(ink, printed)])
    assert tpl.typical["C"][2] == 0.0
    face, grid = row_face(n, S)
    assert read_marks(face, grid, printed, templates=tpl, ink=ink).state[0].tolist() == [1, 1, 1, 0, 0]
    # one clean cell alone proves nothing: a misread cell is no print
    lone = CellInk(z, z, z, z, z, z, z, z, masks, np.array([[1.0, 1.0, 1.0, 1.0, 0.0]]))
    assert print_templates([(lone, printed)]).typical["C"][2] == 1.0
