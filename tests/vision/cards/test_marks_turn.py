"""A card whose grid reads almost alike under two quarter turns (they print an X and a coin in
swapped places): pen of another colour over both symbols hides their hues, but not the shapes of
their prints, which the photo's pooled prints tell apart."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.cards.marks import default_config, print_turn_lead

from .conftest import jittered_x_mask, masks_ink, x_mask

S = default_config().mask_px


def _disc(rng: np.random.Generator) -> NDArray[np.bool_]:
    img = np.zeros((S, S), np.uint8)
    dx, dy = (int(v) for v in rng.integers(-1, 2, size=2))
    cv2.circle(img, (S // 2 + dx, S // 2 + dy), S // 4, 1, -1)
    return img.astype(bool)


def _slash(mask: NDArray[np.bool_]) -> NDArray[np.bool_]:
    img = mask.astype(np.uint8).copy()
    cv2.line(img, (3, S - 4), (S - 4, 3), 1, 3)  # a pen stroke across the cell
    return img.astype(bool)


def _coin_print() -> NDArray[np.bool_]:
    img = np.zeros((S, S), np.uint8)
    cv2.circle(img, (S // 2, S // 2), S // 4, 1, -1)
    return img.astype(bool)


TEMPLATES = {"X": x_mask(), "C": _coin_print()}
MINE = np.array([["#", "X", "C"]])
THEIRS = np.array([["#", "C", "X"]])


def test_the_prints_under_the_pen_tell_the_turn(rng: np.random.Generator) -> None:
    # the X printed where this turn prints it, the coin beside it, both crossed by pen
    ink = masks_ink([np.zeros((S, S), bool), _slash(jittered_x_mask(rng)), _slash(_disc(rng))])
    lead = print_turn_lead(ink, MINE, THEIRS, TEMPLATES)
    assert lead is not None and lead >= default_config().turn_print_lead
    # the other turn, read on the same ink, is as far behind
    back = print_turn_lead(ink, THEIRS, MINE, TEMPLATES)
    assert back is not None and back <= -default_config().turn_print_lead


def test_cells_inked_all_over_tell_nothing(rng: np.random.Generator) -> None:
    full = np.ones((S, S), bool)
    ink = masks_ink([np.zeros((S, S), bool), full, full])
    lead = print_turn_lead(ink, MINE, THEIRS, TEMPLATES)
    assert lead is not None and abs(lead) < 0.05


def test_no_pooled_print_no_answer(rng: np.random.Generator) -> None:
    ink = masks_ink([np.zeros((S, S), bool), jittered_x_mask(rng), _disc(rng)])
    assert print_turn_lead(ink, MINE, THEIRS, {"X": TEMPLATES["X"]}) is None
    assert print_turn_lead(ink, MINE, MINE, TEMPLATES) is None  # the turns print alike


def test_a_plain_cell_against_a_symbol(rng: np.random.Generator) -> None:
    # this turn prints an X where the other prints nothing: the X seen there speaks for this turn
    ink = masks_ink([jittered_x_mask(rng)])
    lead = print_turn_lead(ink, np.array([["X"]]), np.array([["#"]]), TEMPLATES)
    assert lead is not None and lead >= default_config().turn_print_lead
    blank = masks_ink([np.zeros((S, S), bool)])
    lead = print_turn_lead(blank, np.array([["X"]]), np.array([["#"]]), TEMPLATES)
    assert lead is not None and lead <= -default_config().turn_print_lead
