"""The ink is measured in the window of the face that holds the cells, with batched per-cell
measures: each must read exactly what a whole-face, cell-by-cell measure reads."""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np
import pytest

from vision.cards.catalog import builtin_catalog
from vision.cards.grid import Grid
from vision.cards.marks import (
    _cell_geometry,
    _lab_distance,
    _linked_corners,
    _sectors_on,
    _zones,
    cell_ink,
    default_config,
)

from .conftest import PX_PER_MM, Face


def _face_grid(face: Face, grid_mm: float = 44.0, top_mm: float = 30.0) -> Grid:
    """The grid :func:`conftest.draw_face` drew (its cell size and placement)."""
    w = face.image.shape[1]
    rows, cols = face.printed.shape
    s = grid_mm * PX_PER_MM / 4
    gx, gy = (w - cols * s) / 2, top_mm * PX_PER_MM
    return Grid(gx + s * np.arange(cols + 1), gy + s * np.arange(rows + 1),
                (face.printed != ".").astype(np.float64), np.array([225.0, 240.0, 245.0]))


def test_the_ink_does_not_depend_on_what_lies_outside_the_cells(
        face_maker: Callable[..., Face], rng: np.random.Generator) -> None:
    card = builtin_catalog().get("t12")
    assert card is not None
    cells = list(card.cells)
    marked = frozenset(cells[k] for k in rng.choice(len(cells), 4, replace=False))
    face = face_maker(card, 1, marked, rng)
    grid = _face_grid(face)
    here = cell_ink(face.image, grid, face.printed)
    assert here.centre.max() > default_config().plain_hi[0]  # the premise: some cells carry pen
    # the same face pasted into a larger, noisy canvas, the grid moved with it (by even offsets:
    # the grid lines of this face fall on half pixels, which round to the even neighbour)
    dy, dx = 36, 12
    h, w = face.image.shape[:2]
    canvas = rng.integers(0, 256, (h + 2 * dy, w + 2 * dx, 3), dtype=np.uint8)
    canvas[dy:dy + h, dx:dx + w] = face.image
    moved = Grid(grid.xs + dx, grid.ys + dy, grid.presence, grid.paper)
    there = cell_ink(canvas, moved, face.printed)
    for name in ("ring", "centre", "ring_res", "centre_res", "sectors", "sectors_res", "corners",
                 "spread", "masks", "corner_ink"):
        np.testing.assert_array_equal(getattr(here, name), getattr(there, name), err_msg=name)


@pytest.mark.parametrize("shift", [(-20.0, -13.0), (0.4, 0.6), (150.0, 230.0)])
def test_the_window_holds_each_part_of_a_cell_as_the_face_does(shift: tuple[float, float]) -> None:
    """Grids reaching past the face's edges: every part of every cell, read in the window, holds
    the pixels the same slice of the whole face holds."""
    cfg = default_config()
    h, w = 240, 300
    face = np.arange(h * w * 3, dtype=np.int64).reshape(h, w, 3)
    s = 31.3
    grid = Grid(shift[0] + s * np.arange(6), shift[1] + s * np.arange(5), np.ones((4, 5)),
                np.ones(3))
    printed = np.full((4, 5), "#")
    printed[1, 2] = "."
    cells, window = _cell_geometry(grid, printed, (h, w), cfg)
    assert any(face[window].shape[k] < face.shape[k] for k in (0, 1))  # the premise: a window
    assert [c.rc for c in cells] == [rc for rc in np.ndindex(4, 5) if rc != (1, 2)]
    part = face[window]
    m = cfg.inner_frac
    for cell in cells:
        x0, y0, x1, y1 = grid.cell_box(*cell.rc)
        cw, ch = x1 - x0, y1 - y0
        box = (slice(max(0, round(y0)), min(h, round(y1))), slice(max(0, round(x0)), min(w, round(x1))))
        inner = (slice(max(0, round(y0 + m * ch)), round(y1 - m * ch)),
                 slice(max(0, round(x0 + m * cw)), round(x1 - m * cw)))
        contrast = (slice(round(y0 + m * ch), round(y1 - m * ch)),
                    slice(round(x0 + m * cw), round(x1 - m * cw)))
        # an empty part is empty alike (its shape does not matter)
        for mine, theirs in ((cell.box, box), (cell.inner, inner), (cell.contrast, contrast)):
            np.testing.assert_array_equal(part[mine].reshape(-1, 3), face[theirs].reshape(-1, 3))
            if face[theirs].size:
                assert part[mine].shape == face[theirs].shape
        q = 0.12 * cw
        centres = ((x0 + 2 * q, y0 + 2 * q), (x1 - 2 * q, y0 + 2 * q), (x0 + 2 * q, y1 - 2 * q),
                   (x1 - 2 * q, y1 - 2 * q))
        for sl, (cx, cy) in zip(cell.fill, centres, strict=True):
            theirs = face[round(cy - q):round(cy + q), round(cx - q):round(cx + q)]
            np.testing.assert_array_equal(part[sl].reshape(-1, 3), theirs.reshape(-1, 3))


def test_lab_distance_is_numpy_norm(rng: np.random.Generator) -> None:
    diff = rng.normal(0.0, 60.0, (300, 200, 3)).astype(np.float32)
    np.testing.assert_array_equal(_lab_distance(diff), np.linalg.norm(diff, axis=2))
    flat = diff.reshape(-1, 3)[::7]
    np.testing.assert_array_equal(_lab_distance(flat), np.linalg.norm(flat, axis=1))


def _linked_one(ink: np.ndarray, inner: np.ndarray, corners: tuple[np.ndarray, ...]) -> float:
    """One cell at a time: the corners reached by ink joined to the centre's ink."""
    n, labels = cv2.connectedComponents(ink.astype(np.uint8), connectivity=8)
    central = [k for k in np.unique(labels[inner & ink]) if k > 0]
    if n <= 1 or not central:
        return 0.0
    joined = np.isin(labels, central)
    return sum(bool((joined & zone).any()) for zone in corners) / 4.0


def test_cells_labelled_together_join_as_each_alone(rng: np.random.Generator) -> None:
    cfg = default_config()
    z = _zones((27, 25), cfg)
    ink = np.zeros((40, 27, 25), bool)
    for k in range(40):
        # strokes from the centre towards some corners, ink touching the bottom and top rows (where
        # a neighbour in the stack would join it), and specks
        for _ in range(int(rng.integers(0, 4))):
            a = (int(rng.integers(8, 17)), int(rng.integers(8, 17)))
            b = (int(rng.integers(0, 25)), int(rng.integers(0, 27)))
            img = np.zeros((27, 25), np.uint8)
            cv2.line(img, a, b, 1, int(rng.integers(1, 3)))
            ink[k] |= img > 0
        ink[k] |= rng.random((27, 25)) < 0.03
        if k % 3 == 0:
            ink[k, 0, :] = ink[k, -1, :] = True
    got = _linked_corners(ink, z.inner, z.corners)
    want = [_linked_one(ink[k], z.inner, z.corners) for k in range(40)]
    assert got.tolist() == want
    assert len(set(want)) >= 3  # the premise: the cells reach different numbers of corners


def test_sectors_on_counts_each_sector(rng: np.random.Generator) -> None:
    cfg = default_config()
    z = _zones((30, 29), cfg)
    ring = rng.random((25, int(z.ring.sum()))) < rng.random((25, 1))
    got = _sectors_on(ring, z.sector, cfg.sector_on)
    for k in range(25):
        hits = np.bincount(z.sector, weights=ring[k].astype(np.float64), minlength=8)
        want = hits / np.maximum(np.bincount(z.sector, minlength=8), 1) > cfg.sector_on
        np.testing.assert_array_equal(got[k], want)
    assert 0 < got.sum() < got.size
