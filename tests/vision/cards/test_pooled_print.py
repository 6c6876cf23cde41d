"""The print of each symbol learnt from all of a photo's cells of that symbol (second mark stage)."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from vision.cards.grid import Grid
from vision.cards.marks import (
    cell_ink,
    default_config,
    pooled_residual,
    print_templates,
    print_turn_lead,
    read_marks,
)

from .conftest import jittered_x_mask, masks_ink

S = default_config().mask_px


def _with_stroke(mask: np.ndarray) -> np.ndarray:
    img = mask.astype(np.uint8).copy()
    cv2.circle(img, (S // 2, S // 2), S // 2 - 3, 1, 2)  # a pen ring round the symbol
    return img.astype(bool)


def test_template_is_the_shared_print_and_a_stroke_is_residual(rng: np.random.Generator) -> None:
    cards = []
    for k in range(3):
        printed = np.array([["X", "X", "#", "C" if k else "#"]])
        masks = [jittered_x_mask(rng), jittered_x_mask(rng), np.zeros((S, S), bool), jittered_x_mask(rng)]
        if k == 1:
            masks[0] = _with_stroke(masks[0])
        cards.append((masks_ink(masks), printed))
    tpl = print_templates(cards)
    assert default_config().min_pool == 3
    # two C cells learn only a pair's print, plain cells print nothing
    assert set(tpl) == {"X", "C"} and tpl.paired == {"C"}
    assert set(tpl.typical) == {"X"}  # no typical residual is learnt from two cells
    cfg = default_config()
    marked = pooled_residual(cards[1][0], (0, 0), tpl["X"])
    clean = [pooled_residual(ink, (0, c), tpl["X"]) for k, (ink, _) in enumerate(cards) for c in (0, 1)
             if (k, c) != (1, 0)]
    assert marked >= cfg.pooled_hi
    assert max(clean) < cfg.pooled_hi / 2


def test_the_print_of_a_class_mostly_marked_alike_leaves_the_pen_out(rng: np.random.Generator) -> None:
    # five X cells, three of them ringed alike (a player marks the same way every time): the
    # ring is in most of the class's cells, yet it only adds ink to the print
    masks = [jittered_x_mask(rng) for _ in range(5)]
    for k in (1, 2, 4):
        masks[k] = _with_stroke(masks[k])
    ink = masks_ink(masks)
    printed = np.array([["X"] * 5])
    cfg = default_config()
    tpl = print_templates([(ink, printed)])
    residual = [pooled_residual(ink, (0, c), tpl["X"]) for c in range(5)]
    assert min(residual[k] for k in (1, 2, 4)) >= cfg.pooled_hi
    assert max(residual[k] for k in (0, 3)) < cfg.pooled_hi / 2
    # learnt from every cell, the print takes the ring in and the marked cells show no residual
    everyone = print_templates([(ink, printed)], replace(cfg, print_cells=1.0))
    assert max(pooled_residual(ink, (0, c), everyone["X"]) for c in range(5)) < cfg.pooled_hi


def test_second_stage_marks_a_symbol_cell_the_first_missed(rng: np.random.Generator) -> None:
    printed = np.array([["X", "X", "X", "X"]])
    masks = [jittered_x_mask(rng) for _ in range(4)]
    masks[2] = _with_stroke(masks[2])
    ink = masks_ink(masks)  # the first stage's features show nothing (a pen of the print's hue)
    grid = Grid(np.arange(5) * 40.0, np.array([0.0, 40.0]), np.ones((1, 4)), np.full(3, 200.0))
    face = np.zeros((40, 160, 3), np.uint8)
    tpl = print_templates([(ink, printed)])
    with_print = read_marks(face, grid, printed, templates=tpl, ink=ink)
    assert with_print.state.tolist() == [[0, 0, 1, 0]]
    assert with_print.ink[0, 2] >= 1.0
    first_only = read_marks(face, grid, printed, ink=ink)
    assert first_only.state.tolist() == [[0, 0, 0, 0]]


def test_a_symbol_printed_in_two_cells_learns_the_ink_both_show(rng: np.random.Generator) -> None:
    # one X cell on each of two cards, one of them ringed in the print's own hue: the print is the
    # ink the two cells share, and the ring is beyond it
    plain, ringed = jittered_x_mask(rng), _with_stroke(jittered_x_mask(rng))
    cards = [(masks_ink([plain, np.zeros((S, S), bool)]), np.array([["X", "#"]])),
             (masks_ink([ringed]), np.array([["X"]]))]
    cfg = default_config()
    tpl = print_templates(cards)
    assert tpl.paired == {"X"}
    assert pooled_residual(cards[1][0], (0, 0), tpl["X"]) >= cfg.pair_pooled_hi
    assert pooled_residual(cards[0][0], (0, 0), tpl["X"]) < cfg.pair_pooled_hi / 2
    grid = Grid(np.array([0.0, 40.0]), np.array([0.0, 40.0]), np.ones((1, 1)), np.full(3, 200.0))
    face = np.zeros((40, 40, 3), np.uint8)
    assert read_marks(face, grid, cards[1][1], templates=tpl, ink=cards[1][0]).state.tolist() == [[1]]
    assert read_marks(face, grid, cards[1][1], ink=cards[1][0]).state.tolist() == [[0]]
    # a symbol printed once in the photo learns nothing
    assert "X" not in print_templates(cards[1:])


def test_a_pair_print_tells_the_turns_of_a_grid_apart(rng: np.random.Generator) -> None:
    # a card whose grid reads alike turned: where the turns print X and a plain cell, the X's
    # shape in the ink says which turn is read, also when the print is learnt from two cells
    ink = masks_ink([jittered_x_mask(rng), np.zeros((S, S), bool)])
    other = masks_ink([jittered_x_mask(rng)])
    tpl = print_templates([(ink, np.array([["X", "#"]])), (other, np.array([["X"]]))])
    assert tpl.paired == {"X"}
    mine, theirs = np.array([["X", "#"]]), np.array([["#", "X"]])
    lead = print_turn_lead(ink, mine, theirs, tpl)
    assert lead is not None and lead >= default_config().turn_print_lead
    back = print_turn_lead(ink, theirs, mine, tpl)
    assert back is not None and back <= -default_config().turn_print_lead


def _with_wedge(mask: np.ndarray) -> np.ndarray:
    """``mask`` with a neighbour's hatching reaching in at its lower left corner (short strokes
    hugging the left side, none of them along its whole length)."""
    img = mask.astype(np.uint8).copy()
    for y in range(S // 2, S + 4, 3):
        cv2.line(img, (0, y), (5, y - 5), 1, 2)
    return img.astype(bool)


def test_ink_beyond_the_print_along_one_side_is_no_mark(rng: np.random.Generator) -> None:
    printed = np.array([["X", "X", "X", "X"]])
    masks = [jittered_x_mask(rng) for _ in range(4)]
    masks[1] = _with_wedge(masks[1])
    masks[2] = _with_stroke(masks[2])
    ink = masks_ink(masks)
    grid = Grid(np.arange(5) * 40.0, np.array([0.0, 40.0]), np.ones((1, 4)), np.full(3, 200.0))
    face = np.zeros((40, 160, 3), np.uint8)
    tpl = print_templates([(ink, printed)])
    cfg = default_config()
    # the premise: the wedge is ink beyond the print, as much as a mark's
    assert pooled_residual(ink, (0, 1), tpl["X"]) >= cfg.pooled_hi
    assert read_marks(face, grid, printed, templates=tpl, ink=ink).state.tolist() == [[0, 0, 1, 0]]
    anywhere = replace(cfg, pooled_aside=1.0)
    assert read_marks(face, grid, printed, templates=tpl, ink=ink, config=anywhere).state.tolist() \
        == [[0, 1, 1, 0]]


def _plain_face() -> tuple[np.ndarray, Grid]:
    """Four outlined plain cells of 48 px: a stroke spilt over the left side of the first, a ring
    in the second, a slash across the third, nothing in the fourth."""
    face = np.full((48, 4 * 48, 3), 235, np.uint8)
    for k in range(5):
        cv2.line(face, (k * 48, 0), (k * 48, 47), (40, 40, 40), 1)
    cv2.rectangle(face, (0, 0), (4 * 48 - 1, 47), (40, 40, 40), 1)
    ink = (150, 60, 20)
    for k in range(10, 48, 5):  # a neighbour's hatching reaching in over the left and bottom sides
        cv2.line(face, (2, k), (11, k - 9), ink, 2)
        cv2.line(face, (k - 8, 46), (k + 1, 37), ink, 2)
    cv2.circle(face, (48 + 24, 24), 15, ink, 3)
    cv2.line(face, (96 + 8, 40), (96 + 40, 8), ink, 3)
    grid = Grid(np.arange(5) * 48.0, np.array([0.0, 48.0]), np.ones((1, 4)), np.full(3, 235.0))
    return face, grid


def test_ink_on_one_side_of_a_plain_cell_is_not_a_mark() -> None:
    face, grid = _plain_face()
    printed = np.array([["#", "#", "#", "#"]])
    ink = cell_ink(face, grid, printed)
    cfg = default_config()
    assert ink.spread[0, 0] <= cfg.spill_arc < ink.spread[0, 1]
    assert ink.spread[0, 3] == 0.0
    v = read_marks(face, grid, printed)
    assert v.state[0, 0] != 1
    assert v.state[0, 1:].tolist() == [1, 1, 0]
    # the one-sided ink is enough for the first stage's sector test alone
    assert read_marks(face, grid, printed, config=replace(cfg, spill_arc=0.0)).state[0, 0] == 1
