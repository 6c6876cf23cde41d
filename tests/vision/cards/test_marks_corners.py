"""The blurred crossings of a thick lattice ink the inside corners of every cell alike. A ring
drawn on a cell's outline inks its four corners too, so a cell with all four corners inked is
read as ringed only where that is not true of most of the card's other plain cells; there, such
a cell is left uncertain instead."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.cards.grid import Grid
from vision.cards.marks import default_config, read_marks

CELL = 44
MARGIN = 24
N = 4
FILL = (185, 210, 225)  # BGR cream
PRINTED = np.full((N, N), "#")


def _face(rng: np.random.Generator, knot_px: int, ring: tuple[int, int] | None = None,
          line_px: int = 7) -> tuple[NDArray[np.uint8], Grid]:
    """A 4 x 4 lattice of plain cells with outlines ``line_px`` thick and a dark blot ``knot_px``
    in radius on every crossing (what a heavily blurred thick lattice leaves in the corners),
    blurred, optionally with a blue pen ring hugging the outline of cell ``ring``."""
    size = 2 * MARGIN + N * CELL
    img = np.empty((size, size, 3), np.uint8)
    img[:] = FILL
    at = [MARGIN + k * CELL for k in range(N + 1)]
    for p in at:
        cv2.line(img, (p, MARGIN), (p, MARGIN + N * CELL), (45, 55, 65), line_px)
        cv2.line(img, (MARGIN, p), (MARGIN + N * CELL, p), (45, 55, 65), line_px)
    if knot_px:
        for y in at:
            for x in at:
                cv2.circle(img, (x, y), knot_px, (45, 55, 65), -1, cv2.LINE_AA)
    if ring is not None:
        r, c = ring
        centre = (MARGIN + c * CELL + CELL // 2, MARGIN + r * CELL + CELL // 2)
        cv2.circle(img, centre, int(CELL * 0.52), (150, 60, 20), 4, cv2.LINE_AA)
    img = cv2.GaussianBlur(img, (0, 0), 2.0)
    img = np.clip(img + rng.normal(0.0, 2.0, img.shape), 0, 255).astype(np.uint8)
    lines = np.array(at, float)
    return img, Grid(lines, lines, np.ones((N, N)), np.array(FILL, float))


def test_knotted_crossings_are_no_rings(rng: np.random.Generator) -> None:
    face, grid = _face(rng, knot_px=10)
    cfg = default_config()
    # the premise: taken cell by cell, every cell's four corners read as a ring on its outline
    alone = read_marks(face, grid, PRINTED, config=replace(cfg, loop_common=2.0)).state
    assert (alone == 1).all()
    # neither seen nor ruled out: left to the player
    assert (read_marks(face, grid, PRINTED).state == -1).all()


def test_one_ring_among_clean_corners_is_a_mark(rng: np.random.Generator) -> None:
    face, grid = _face(rng, knot_px=0, ring=(1, 2), line_px=3)
    state = read_marks(face, grid, PRINTED).state
    assert state[1, 2] == 1
    assert (np.delete(state.ravel(), 1 * N + 2) == 0).all()
