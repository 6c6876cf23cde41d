"""A thick blurred cell outline (a blurred or tilted view) reaches past the band the ring leaves
out on every side of every cell: the outline shared by the lattice is learnt from all its
segments and left out, while pen drawn against it still counts."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from vision.cards.grid import Grid
from vision.cards.marks import default_config, read_marks

CELL = 46
MARGIN = 20
FILL = (190, 215, 225)  # BGR cream


def _face(rng: np.random.Generator, line_px: int, blur: float, shift: int = 0,
          ring: tuple[int, int] | None = None, ring_gap: int = 0) -> tuple[NDArray[np.uint8], Grid]:
    """A 3 x 3 lattice of plain cells with outlines ``line_px`` thick, blurred by ``blur`` (sigma,
    px), optionally a blue pen ring in cell ``ring`` ``ring_gap`` px inside the outline's edge;
    the grid's lines lie ``shift`` px off the drawn ones."""
    size = 2 * MARGIN + 3 * CELL
    img = np.empty((size, size, 3), np.uint8)
    img[:] = FILL
    lines = [MARGIN + k * CELL for k in range(4)]
    for p in lines:
        cv2.line(img, (p, MARGIN), (p, MARGIN + 3 * CELL), (40, 50, 60), line_px)
        cv2.line(img, (MARGIN, p), (MARGIN + 3 * CELL, p), (40, 50, 60), line_px)
    if ring is not None:
        r, c = ring
        cx, cy = MARGIN + c * CELL + CELL // 2, MARGIN + r * CELL + CELL // 2
        radius = CELL // 2 - line_px // 2 - ring_gap - 2
        cv2.circle(img, (cx, cy), radius, (150, 60, 20), 3, cv2.LINE_AA)
    img = cv2.GaussianBlur(img, (0, 0), blur)
    noise = rng.normal(0.0, 2.0, img.shape)
    img = np.clip(img + noise, 0, 255).astype(np.uint8)
    at = np.array(lines, float) + shift
    return img, Grid(at, at, np.ones((3, 3)), np.array(FILL, float))


PRINTED = np.full((3, 3), "#")


@pytest.mark.parametrize(("line_px", "shift"), [(9, 0), (9, 1), (11, 2)])
def test_a_thick_blurred_outline_is_no_pen(rng: np.random.Generator, line_px: int, shift: int) -> None:
    # the grid's lines a pixel or two off the outline's centre move its ink to one side
    face, grid = _face(rng, line_px=line_px, blur=2.0, shift=shift)
    cfg = default_config()
    # the premise: read with the outline left in, its frame in every ring reads as pen somewhere
    kept = read_marks(face, grid, PRINTED, config=replace(cfg, outline_depth=0.0))
    assert (kept.state != 0).any()
    assert (read_marks(face, grid, PRINTED).state == 0).all()


def test_a_thin_outline_reads_the_same(rng: np.random.Generator) -> None:
    face, grid = _face(rng, line_px=3, blur=0.8)
    cfg = default_config()
    off = read_marks(face, grid, PRINTED, config=replace(cfg, outline_depth=0.0)).state
    assert (off == 0).all()
    assert (read_marks(face, grid, PRINTED).state == 0).all()


@pytest.mark.parametrize("gap", [0, 2])
def test_a_ring_drawn_against_a_blurred_outline_stays_a_mark(rng: np.random.Generator, gap: int) -> None:
    face, grid = _face(rng, line_px=9, blur=2.0, ring=(1, 1), ring_gap=gap)
    state = read_marks(face, grid, PRINTED).state
    assert state[1, 1] == 1
    assert (np.delete(state.ravel(), 4) == 0).all()


def test_rings_in_every_cell_are_not_taken_for_the_outline(rng: np.random.Generator) -> None:
    # every segment of the lattice touched by a ring: no pair of sides shows the bare outline
    size = 2 * MARGIN + 3 * CELL
    faces = []
    for rc in [(r, c) for r in range(3) for c in range(3)]:
        face, grid = _face(rng, line_px=5, blur=1.5, ring=rc, ring_gap=0)
        faces.append(face.astype(np.int32))
    # each cell's ring is drawn on its own copy; the darkest of them holds all nine
    face = np.min(faces, axis=0).astype(np.uint8)
    assert face.shape[:2] == (size, size)
    assert (read_marks(face, grid, PRINTED).state == 1).all()


def _uneven_face(rng: np.random.Generator, widths: list[int], blur: float, shift: int,
                 ring: tuple[int, int] | None = None) -> tuple[NDArray[np.uint8], Grid]:
    """A 3 x 3 lattice whose lines (the same four across and down) are ``widths`` px thick, as a
    view foreshortened across the face and blurred unevenly draws them; the grid's lines lie
    ``shift`` px off the drawn ones; optionally a blue pen ring in cell ``ring``."""
    size = 2 * MARGIN + 3 * CELL
    img = np.empty((size, size, 3), np.uint8)
    img[:] = FILL
    lines = [MARGIN + k * CELL for k in range(4)]
    for p, t in zip(lines, widths, strict=True):
        cv2.line(img, (p, MARGIN), (p, MARGIN + 3 * CELL), (40, 50, 60), t)
        cv2.line(img, (MARGIN, p), (MARGIN + 3 * CELL, p), (40, 50, 60), t)
    if ring is not None:
        r, c = ring
        cx, cy = MARGIN + c * CELL + CELL // 2, MARGIN + r * CELL + CELL // 2
        cv2.circle(img, (cx, cy), CELL // 2 - max(widths) // 2 - 4, (150, 60, 20), 3, cv2.LINE_AA)
    img = cv2.GaussianBlur(img, (0, 0), blur)
    img = np.clip(img + rng.normal(0.0, 2.0, img.shape), 0, 255).astype(np.uint8)
    at = np.array(lines, float) + shift
    return img, Grid(at, at, np.ones((3, 3)), np.array(FILL, float))


@pytest.mark.parametrize("seed", range(10))
def test_lines_wider_than_the_narrowest_are_no_pen(seed: int) -> None:
    # one inner line drawn thinner than the others sets the narrowest width; the grid lies a
    # pixel off, so a wider line's ink leans into the cell after it past that width's share
    # (seeds 0, 4, 5 and 6 made a cell read as pen while only the width less the other side's
    # share of the line was cleared)
    rng = np.random.default_rng(seed)
    face, grid = _uneven_face(rng, widths=[9, 5, 9, 9], blur=2.0, shift=1)
    assert (read_marks(face, grid, PRINTED).state == 0).all()
    # a pen ring in a cell of those lines still reads as a mark
    face, grid = _uneven_face(rng, widths=[9, 5, 9, 9], blur=2.0, shift=1, ring=(2, 2))
    state = read_marks(face, grid, PRINTED).state
    assert state[2, 2] == 1 and (np.delete(state.ravel(), 8) == 0).all()
