"""Cell or water on blurred and glare-washed faces: each side is judged against the card's own
sides of its direction, and a side the line maps miss but whose mean contrast shows is in doubt."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np

from vision.cards.grid import default_config, face_lines, line_contrast, measure_lattice

from .conftest import blank_face

PPM = 4.0
PITCH = 48  # 12 mm cells at 4 px/mm
XS = np.array([54.0 + PITCH * i for i in range(4)])
YS = np.array([80.0 + PITCH * i for i in range(5)])
WATER = (0, 0)


def _lattice_face(ink_of_row: dict[int, tuple[int, int, int]]) -> np.ndarray:
    """A 63x88 mm face holding a 4x3 lattice of plain cells (water at ``WATER``) outlined in dark
    grey, rows listed in ``ink_of_row`` outlined in that BGR ink instead; ``(352, 252, 3)`` uint8."""
    face = blank_face((40, 140, 220))
    cells = [(r, c) for r in range(4) for c in range(3) if (r, c) != WATER]
    for r, c in cells:
        cv2.rectangle(face, (int(XS[c]), int(YS[r])), (int(XS[c + 1]), int(YS[r + 1])), (235, 235, 235), -1)
    # the faint rows first: an outline shared with a dark row stays dark
    for r, c in sorted(cells, key=lambda rc: rc[0] not in ink_of_row):
        ink = ink_of_row.get(r, (55, 55, 55))
        cv2.rectangle(face, (int(XS[c]), int(YS[r])), (int(XS[c + 1]), int(YS[r + 1])), ink, 2)
    return face


def _noisy(face: np.ndarray, rng: np.random.Generator, sigma: float) -> np.ndarray:
    return np.clip(face.astype(np.float64) + rng.normal(0.0, sigma, face.shape), 0, 255).astype(np.uint8)


def test_line_contrast_reads_a_line_in_its_own_channel() -> None:
    face = np.full((40, 60, 3), 230, np.uint8)
    face[20, :, 2] = 100  # a line dark in red only (BGR), barely darker in grey
    horiz, vert = line_contrast(face, 3)
    assert horiz.dtype == np.uint8 and horiz.shape == (40, 60)
    assert int(horiz[20, 30]) == 130
    assert int(horiz[10, 30]) == 0 and int(vert[20, 30]) == 0
    # an edge between two fills is no line: darker than one side only
    step = np.full((40, 60, 3), 230, np.uint8)
    step[20:] = 120
    assert int(line_contrast(step, 3)[0].max()) == 0


def test_washed_row_reads_uncertain_not_water(rng: np.random.Generator) -> None:
    # the bottom row's outlines are washed to a faint red tint, then the face is blurred and noisy
    face = _lattice_face({3: (235, 235, 110)})
    face = _noisy(cv2.GaussianBlur(face, (0, 0), 2.0), rng, 8.0)
    cfg = default_config()
    lines = face_lines(face, PPM, cfg)
    grid = measure_lattice(lines, XS, YS, cfg)
    strict = measure_lattice(lines, XS, YS, dataclasses.replace(cfg, washed_side=0.0))
    # the line maps alone read the washed row as water; its contrast keeps it a cell in doubt
    assert np.all(strict.presence[3] < 0.5)
    assert np.all((grid.presence[3] >= 0.5) & (grid.presence[3] < 0.9))
    assert grid.presence[WATER] < 0.5
    clear = np.ones((3, 3), bool)
    clear[WATER] = False
    assert np.all(grid.presence[:3][clear] >= 0.9)
    # the share of each position's inside band showing the cells' fill is kept with the grid
    assert grid.fill is not None and grid.fill.shape == (4, 3)
    assert grid.fill[WATER] < 0.2 and np.all(grid.fill[:3][clear] > 0.8)


def test_sides_are_judged_against_their_own_direction(rng: np.random.Generator) -> None:
    # vertical motion blur spreads the horizontal outlines thin; the vertical ones stay sharp
    face = _lattice_face({})
    kernel = np.full((9, 1), 1.0 / 9.0, np.float32)
    face = _noisy(cv2.filter2D(face, -1, kernel), rng, 4.0)
    cfg = default_config()
    lines = face_lines(face, PPM, cfg)
    grid = measure_lattice(lines, XS, YS, cfg)
    cells = np.ones((4, 3), bool)
    cells[WATER] = False
    assert np.all(grid.presence[cells] >= 0.9)
    assert grid.presence[WATER] < 0.5
    # against one level for both directions, the weak horizontal sides would read as missing
    x, y = XS.astype(int), YS.astype(int)
    across = (lines.hsum[y[1:], x[-1]] - lines.hsum[y[1:], x[0]]) / (x[-1] - x[0])  # inner horizontal lines
    down = (lines.vsum[y[-1], x] - lines.vsum[y[0], x]) / (y[-1] - y[0])  # vertical lines
    assert float(np.median(across)) < cfg.side_present * float(np.median(down))


def _glared(face: np.ndarray, centre: tuple[float, float], radius: float, strength: float) -> np.ndarray:
    """``face`` under a round glare: each pixel moved towards white by up to ``strength``."""
    h, w = face.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w]
    g = strength * np.exp(-((xx - centre[0]) ** 2 + (yy - centre[1]) ** 2) / (2 * radius ** 2))
    out = face.astype(np.float64) + g[..., None] * (255.0 - face)
    return np.clip(out, 0, 255).astype(np.uint8)


def test_glare_washed_cells_read_in_doubt_not_water(rng: np.random.Generator) -> None:
    # pink cells on a brown face; a strong glare over the second row washes the fill towards
    # white and the outlines away
    face = _lattice_face({})
    cells = [(r, c) for r in range(4) for c in range(3) if (r, c) != WATER]
    for r, c in cells:
        cv2.rectangle(face, (int(XS[c]) + 2, int(YS[r]) + 2), (int(XS[c + 1]) - 2, int(YS[r + 1]) - 2),
                      (200, 160, 235), -1)
    centre = (float(XS[0] + XS[-1]) / 2, float(YS[1] + YS[2]) / 2)
    face = _noisy(cv2.GaussianBlur(_glared(face, centre, 50.0, 0.995), (0, 0), 1.0), rng, 3.0)
    cfg = default_config()
    lines = face_lines(face, PPM, cfg)
    grid = measure_lattice(lines, XS, YS, cfg)
    plain = measure_lattice(lines, XS, YS, dataclasses.replace(cfg, glare_cells=(30.0, 1.1, 0.5, 0.35)))
    # without the glare rule the cell under the glare's heart reads as water; with it, in doubt
    assert plain.presence[1, 1] < 0.45
    assert 0.5 <= grid.presence[1, 1] < 0.9
    assert np.all(grid.presence[1] >= 0.5)
    # the cells away from the glare keep their reading, and the water stays water
    assert np.all(grid.presence[3] >= 0.9)
    assert grid.presence[WATER] < 0.5
