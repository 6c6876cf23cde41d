"""A small pen dot in the middle of a plain cell: marked when it is as strong as the pen of the
card's clear marks, left uncertain when it is fainter (residue of a mark wiped off) or when the
card has no clear mark to compare it with."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision.cards.marks import CellInk, _settle_dots, cell_ink, default_config, read_marks

from .conftest import row_face

S = 48
PEN = (150, 60, 20)  # blue dry-erase ink, BGR
PAPER = (235, 235, 235)


def _face(dot_colour: tuple[int, int, int], marks: int = 2) -> tuple[np.ndarray, object, np.ndarray]:
    """Four plain cells: the first ``marks`` crossed through with the pen, a dot of
    ``dot_colour`` in the middle of the third, the fourth clean."""
    plain = np.array([["#"] * 4])
    face, grid = row_face(4, S, paper=PAPER)
    for k in range(marks):
        cv2.line(face, (k * S + 8, 8), (k * S + S - 9, S - 9), PEN, 3)
        cv2.line(face, (k * S + S - 9, 8), (k * S + 8, S - 9), PEN, 3)
    cv2.circle(face, (2 * S + S // 2, S // 2), 4, dot_colour, -1)
    return face, grid, plain


def test_a_dot_of_the_cards_pen_is_a_mark() -> None:
    face, grid, plain = _face(PEN)
    ink = cell_ink(face, grid, plain)
    cfg = default_config()
    # the premise: the dot alone leaves the cell between the thresholds
    assert cfg.plain_lo[0] < ink.centre[0, 2] < cfg.plain_hi[0]
    assert read_marks(face, grid, plain, ink=ink, config=replace(cfg, dot_share=10.0)).state.tolist() \
        == [[1, 1, -1, 0]]
    assert read_marks(face, grid, plain, ink=ink).state.tolist() == [[1, 1, 1, 0]]


def test_a_faint_dot_beside_clear_marks_stays_uncertain() -> None:
    # the pen blended a little over half into the fill: still ink, but weaker than the clear marks
    faint = tuple(round(0.45 * p + 0.55 * q) for p, q in zip(PEN, PAPER, strict=True))
    face, grid, plain = _face(faint)
    ink = cell_ink(face, grid, plain)
    cfg = default_config()
    assert cfg.plain_lo[0] < ink.centre[0, 2] < cfg.plain_hi[0]
    assert ink.strength is not None and ink.strength[0, 2] < cfg.dot_share * ink.strength[0, 0]
    assert read_marks(face, grid, plain, ink=ink).state.tolist() == [[1, 1, -1, 0]]


def test_a_dot_on_a_card_without_clear_marks_stays_uncertain() -> None:
    face, grid, plain = _face(PEN, marks=0)
    assert read_marks(face, grid, plain).state.tolist() == [[0, 0, -1, 0]]


@pytest.mark.parametrize(("ring", "marked"), [(0.03, True), (0.2, False)])
def test_a_dot_is_denser_in_the_centre_than_in_the_ring(ring: float, marked: bool) -> None:
    # strokes overshooting from the neighbours on two sides reach the centre disc from the ring,
    # their centre of mass in the middle: ink no denser in the centre than in the ring is no dot
    cfg = default_config()
    shape = (1, 3)
    zeros = np.zeros(shape)
    centre = np.array([[0.6, 0.6, 0.5 * (cfg.plain_lo[0] + cfg.plain_hi[0])]])
    ink = CellInk(ring=np.array([[0.3, 0.3, ring]]), centre=centre, ring_res=zeros, centre_res=zeros,
                  sectors=zeros, sectors_res=zeros, corners=zeros, spread=zeros,
                  masks=np.zeros((*shape, cfg.mask_px, cfg.mask_px), bool), corner_ink=zeros,
                  offset=np.array([[0.02, 0.02, 0.02]]), strength=np.array([[2.0, 2.0, 2.0]]))
    state = np.array([[1, 1, -1]], np.int8)
    score, conf = np.array([[2.0, 2.0, 0.6]]), np.array([[1.0, 1.0, 0.0]])
    _settle_dots(state, score, conf, ink, np.array([["#"] * 3]), cfg)
    assert state.tolist() == [[1, 1, 1 if marked else -1]]
