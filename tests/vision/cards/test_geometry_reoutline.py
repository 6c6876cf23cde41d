"""A card's outline found again from its square lattice when the face was cut from a wrong one."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.cards.grid import default_config as grid_config
from vision.cards.rectify import default_config, lattice_homography, reoutline, warp_face

PPM = 4.0  # px per mm of the drawn card
GRID_MM = (8.5, 24.0, 12.0, 4)  # grid left, top, cell side, cells per side (mm)
# the card's corners in the photo (TL, TR, BR, BL): tilted and seen in perspective
PHOTO = np.array([[150.0, 70.0], [330.0, 95.0], [318.0, 345.0], [120.0, 325.0]])


def _scene(rng: np.random.Generator, table: tuple[int, int, int],
           panel: bool = True) -> tuple[NDArray[np.uint8], NDArray[np.float64]]:
    """A (400, 460, 3) photo of a 4x4-grid card (with a lighter inner panel 4 mm in) on a noisy
    table; and the card-mm -> photo map."""
    w, h = round(63 * PPM), round(88 * PPM)
    card = np.empty((h, w, 3), np.uint8)
    card[:] = (60, 140, 200)  # frame
    b = round(4 * PPM)
    if panel:
        card[b:h - b, b:w - b] = (200, 225, 235)  # lighter inner panel: an edge inside the card
    x0, y0, s, n = GRID_MM
    for i in range(n + 1):
        a = round((x0 + i * s) * PPM)
        cv2.line(card, (a, round(y0 * PPM)), (a, round((y0 + n * s) * PPM)), (40, 40, 40), 2)
        a = round((y0 + i * s) * PPM)
        cv2.line(card, (round(x0 * PPM), a), (round((x0 + n * s) * PPM), a), (40, 40, 40), 2)
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    m = cv2.getPerspectiveTransform(src, PHOTO.astype(np.float32))
    photo = np.empty((400, 460, 3), np.uint8)
    photo[:] = table
    photo = np.clip(photo + rng.normal(0, 4, photo.shape), 0, 255).astype(np.uint8)
    warped = cv2.warpPerspective(card, m, (460, 400), flags=cv2.INTER_LINEAR)
    mask = cv2.warpPerspective(np.full((h, w), 255, np.uint8), m, (460, 400)) > 127
    photo[mask] = warped[mask]
    return photo, m.astype(np.float64) @ np.diag([PPM, PPM, 1.0])


def _wrong_face(to_photo: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64],
                                                       NDArray[np.float64]]:
    """The face of the inner panel plus one grid line (cells come out non-square) and the grid's
    lines on it."""
    x0, y0, s, n = GRID_MM
    inner_mm = np.array([[[4.0, 4.0], [59.0, 4.0], [59.0, y0 + 3 * s], [4.0, y0 + 3 * s]]])
    quad = cv2.perspectiveTransform(inner_mm, to_photo).reshape(4, 2)
    _, to_face = warp_face(np.zeros((400, 460, 3), np.uint8), quad, default_config())
    mm_to_face = to_face @ to_photo
    lines = cv2.perspectiveTransform(
        np.array([[[x0 + i * s, y0 + i * s] for i in range(n + 1)]], np.float64), mm_to_face).reshape(-1, 2)
    return to_face, lines[:, 0], lines[:, 1]


def test_lattice_homography_maps_the_square_lattice_onto_the_grid(rng: np.random.Generator) -> None:
    _, to_photo = _scene(rng, (90, 80, 70))
    to_face, xs, ys = _wrong_face(to_photo)
    assert abs(np.diff(xs).mean() / np.diff(ys).mean() - 1.0) > 0.2  # the cut face's cells are not square
    lat = lattice_homography(to_face, xs, ys)
    x0, y0, s, _ = GRID_MM
    got = cv2.perspectiveTransform(np.array([[[0.0, 0.0], [4.0, 4.0], [1.0, 3.0]]]), lat).reshape(3, 2)
    want = cv2.perspectiveTransform(
        np.array([[[x0, y0], [x0 + 4 * s, y0 + 4 * s], [x0 + s, y0 + 3 * s]]]), to_photo).reshape(3, 2)
    assert np.abs(got - want).max() < 1.0


def test_card_outline_is_found_again(rng: np.random.Generator) -> None:
    photo, to_photo = _scene(rng, (90, 80, 70))
    to_face, xs, ys = _wrong_face(to_photo)
    corners = reoutline(photo, to_face, xs, ys, grid_config().cell_mm_range, default_config())
    assert corners is not None
    # the corners come in the lattice's order (its top-left first), clockwise
    assert np.abs(corners - PHOTO).max() < 4.0


def test_no_outline_when_the_card_has_no_edge(rng: np.random.Generator) -> None:
    # a plain card on a table of its own colour: no side of the card shows
    photo, to_photo = _scene(rng, (60, 140, 200), panel=False)
    to_face, xs, ys = _wrong_face(to_photo)
    assert reoutline(photo, to_face, xs, ys, grid_config().cell_mm_range, default_config()) is None


def test_reader_reads_the_card_through_its_found_outline(rng: np.random.Generator) -> None:
    # the detected quad runs along the inner panel's sides, a line of the art above the grid and
    # the grid's last line: the cells come out non-square and a row short
    from vision.cards.catalog import load_catalog
    from vision.cards.detect import CardQuad
    from vision.cards.read import default_config as cards_config
    from vision.cards.read import read_one

    from .conftest import PX_PER_MM, draw_face, place, table

    catalog = load_catalog()
    card = next(c for c in catalog.cards if c.shape == (4, 4))
    face = draw_face(card, 0, frozenset(), rng)
    canvas = table(rng)
    true = place(canvas, face.image, (450.0, 320.0), 20.0, 0.9)
    h, w = face.image.shape[:2]
    to_canvas = cv2.getPerspectiveTransform(
        np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32), true.astype(np.float32))
    cut_mm = np.array([[[4.0, 10.0], [59.0, 10.0], [59.0, 74.0], [4.0, 74.0]]]) * PX_PER_MM
    cut = cv2.perspectiveTransform(cut_mm, to_canvas.astype(np.float64)).reshape(4, 2)
    quad = CardQuad(cut, False, float(cv2.contourArea(cut.astype(np.float32))))
    reading = read_one(canvas, quad, catalog, cards_config())
    assert reading is not None and reading.id == card.id
    got = np.asarray(reading.corners)
    err = min(float(np.abs(np.roll(got, k, axis=0) - true).max()) for k in range(4))
    assert err < 6.0
