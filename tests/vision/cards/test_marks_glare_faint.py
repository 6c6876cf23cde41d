"""Faint pen under a glare: a washed-out part of the face lowers the contrast of its printed
outline and of the pen on it alike, so a plain cell there is judged against its own
neighbourhood's contrast. Faint ink that crosses such a cell leaves it uncertain; it is marked
when it is as strong, for that contrast, as the pen of the card's clear marks, and stays
uncertain when it is weaker or the card has no clear mark. A clean cell under the same glare
stays unmarked, and so does one a neighbour's stroke reaches into from one side."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision.cards.marks import CellInk, _faint_reading, _settle_faint, cell_ink, default_config, read_marks

from .conftest import row_face

S = 48
PEN = (60, 150, 40)  # green dry-erase ink, BGR
PAPER = (200, 215, 225)


def _glared(cross: bool, keep: float = 0.3) -> tuple[np.ndarray, object, np.ndarray]:
    """Five plain cells: the first two crossed through with the pen; a glare washes out the last
    two (outline and all: ``keep`` of their contrast is left), the fourth crossed through with the
    pen when ``cross``."""
    plain = np.array([["#"] * 5])
    face, grid = row_face(5, S, paper=PAPER)
    for k in (0, 1, 3) if cross else (0, 1):
        cv2.line(face, (k * S + 10, 10), (k * S + S - 11, S - 11), PEN, 3)
        cv2.line(face, (k * S + S - 11, 10), (k * S + 10, S - 11), PEN, 3)
    part = face[:, 3 * S:].astype(np.float32)
    face[:, 3 * S:] = np.round(keep * part + (1.0 - keep) * 255).astype(np.uint8)
    return face, grid, plain


def test_faint_pen_under_a_glare_is_uncertain() -> None:
    # a glare that leaves less of the contrast than faint_floor: the faint ink, judged against the
    # floored thresholds, is weaker than the card's clear marks
    face, grid, plain = _glared(cross=True, keep=0.2)
    cfg = default_config()
    assert cfg.faint_floor > 0.2
    # the premise: judged against the whole card's contrast, the pen under the glare is no ink
    off = replace(cfg, glare_ratio=0.0)
    assert read_marks(face, grid, plain, config=off).state.tolist() == [[1, 1, 0, 0, 0]]
    ink = cell_ink(face, grid, plain)
    assert ink.faint is not None and ink.faint[0][0, 3] > cfg.plain_lo[0]
    assert ink.strength is not None and ink.faint[3][0, 3] < cfg.dot_share * ink.strength[0, 0]
    assert read_marks(face, grid, plain, ink=ink).state.tolist() == [[1, 1, 0, -1, 0]]


@pytest.mark.parametrize("keep", [0.3, 0.45])
def test_faint_pen_as_strong_as_the_cards_marks_is_marked(keep: float) -> None:
    # glares that leave at least faint_floor of the contrast: the faint ink keeps the pen's strength.
    # The glare here is flat, so the first stage is asked not to follow its light (glare_lift):
    # this is the fifth stage's own reading
    face, grid, plain = _glared(cross=True, keep=keep)
    cfg = replace(default_config(), glare_lift=1e9)
    assert keep >= cfg.faint_floor
    # the premise: judged against the whole card's contrast, the pen under the glare is no ink
    off = replace(cfg, glare_ratio=0.0)
    assert read_marks(face, grid, plain, config=off).state.tolist() == [[1, 1, 0, 0, 0]]
    ink = cell_ink(face, grid, plain, cfg)
    assert ink.faint is not None and ink.strength is not None
    assert ink.faint[3][0, 3] >= cfg.dot_share * ink.strength[0, 0]
    assert read_marks(face, grid, plain, ink=ink, config=cfg).state.tolist() == [[1, 1, 0, 1, 0]]
    # the same ink asked to be far stronger than the card's pen stays open
    strict = replace(cfg, dot_share=10.0)
    assert read_marks(face, grid, plain, ink=ink, config=strict).state.tolist() == [[1, 1, 0, -1, 0]]


def test_pen_under_a_flat_glare_is_read_against_the_glares_light() -> None:
    # the first stage measures the pen against the glare's own lightness (glare_lift), not the
    # paper's: under a glare that leaves 0.45 of the contrast, the pen is marked with the faint
    # stage off, and the clean glared cell stays unmarked
    face, grid, plain = _glared(cross=True, keep=0.45)
    off = replace(default_config(), glare_ratio=0.0)
    assert read_marks(face, grid, plain, config=off).state.tolist() == [[1, 1, 0, 1, 0]]
    face, grid, plain = _glared(cross=False, keep=0.45)
    assert read_marks(face, grid, plain, config=off).state.tolist() == [[1, 1, 0, 0, 0]]


def test_a_faint_open_case_or_a_card_without_clear_marks_stays_uncertain() -> None:
    # faint ink that reads as an open case (-1), however strong, is not settled, nor is ink on a
    # card without a clear plain mark (no pen to compare with); ink that reads as a mark (1) and
    # is as strong as the card's pen is
    cfg = default_config()
    shape = (1, 2)
    zeros = np.zeros(shape)
    ink = CellInk(ring=zeros, centre=zeros, ring_res=zeros, centre_res=zeros, sectors=zeros,
                  sectors_res=zeros, corners=zeros, spread=zeros,
                  masks=np.zeros((*shape, cfg.mask_px, cfg.mask_px), bool),
                  strength=np.array([[2.0, 0.0]]),
                  faint=(zeros, zeros, zeros, np.array([[0.0, 3.0]])))
    for read, pen, settled in ((-1, 2.0, -1), (1, None, -1), (1, 2.0, 1)):
        state = np.array([[1, -1]], np.int8)
        score, conf = np.array([[2.0, 0.5]]), np.array([[1.0, 0.0]])
        _settle_faint(state, score, conf, ink, np.array([[0, read]], np.int8), pen, cfg)
        assert state.tolist() == [[1, settled]]


def test_a_clean_cell_under_a_glare_stays_unmarked() -> None:
    face, grid, plain = _glared(cross=False)
    ink = cell_ink(face, grid, plain)
    assert ink.faint is not None
    assert float(ink.faint[0][0, 3]) == 0.0 and float(ink.faint[1][0, 3]) == 0.0
    assert read_marks(face, grid, plain, ink=ink).state.tolist() == [[1, 1, 0, 0, 0]]


def test_one_sided_faint_ink_is_no_doubt() -> None:
    # a neighbour's stroke or the blurred outline on one side of the ring, none in the centre
    cfg = default_config()
    one_side = (np.array([[0.0]]), np.array([[0.5]]), np.array([[cfg.spill_arc]]))
    around = (np.array([[0.0]]), np.array([[0.75]]), np.array([[0.875]]))
    crossing = (np.array([[0.3]]), np.array([[0.25]]), np.array([[0.375]]))
    assert _faint_reading(one_side, (0, 0), cfg) == 0
    assert _faint_reading(around, (0, 0), cfg) != 0
    assert _faint_reading(crossing, (0, 0), cfg) != 0


def test_cell_ink_without_faint_measure_reads_as_before() -> None:
    # a CellInk made without the faint measure (older callers) leaves the verdicts unchanged
    face, grid, plain = _glared(cross=True)
    ink = cell_ink(face, grid, plain)
    bare = CellInk(*(getattr(ink, f) for f in ("ring", "centre", "ring_res", "centre_res", "sectors",
                                               "sectors_res", "corners", "spread", "masks", "corner_ink",
                                               "offset", "strength")))
    assert read_marks(face, grid, plain, ink=bare).state.tolist() == [[1, 1, 0, 0, 0]]
