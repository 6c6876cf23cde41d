"""Each reader stage on small images drawn in a plain look of the tests' own."""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np
import pytest

from vision.cards.catalog import builtin_catalog
from vision.cards.detect import detect
from vision.cards.grid import locate_grid
from vision.cards.identify import identify, observe
from vision.cards.marks import read_marks
from vision.cards.read import to_catalog_frame
from vision.cards.rectify import rectify, warp_face

from .conftest import PX_PER_MM, Face, place, place_quad, table

FACE_PPM = 4.0


def _face(face_maker: Callable[..., Face], rng: np.random.Generator, card_id: str, rotation: int = 0,
          marked: frozenset[tuple[int, int]] = frozenset(), **kw: float) -> tuple[Face, np.ndarray]:
    card = builtin_catalog().get(card_id)
    assert card is not None
    f = face_maker(card, rotation, marked, rng, **kw)
    small = cv2.resize(f.image, (round(63 * FACE_PPM), round(88 * FACE_PPM)), interpolation=cv2.INTER_AREA)
    return f, small


def _corner_error(found: np.ndarray, truth: np.ndarray) -> float:
    return min(float(np.abs(np.roll(found, k, axis=0) - truth).max()) for k in range(4))


def test_detect_two_cards_and_a_partial(face_maker: Callable[..., Face], rng: np.random.Generator) -> None:
    canvas = table(rng)
    a, _ = _face(face_maker, rng, "t1")
    b, _ = _face(face_maker, rng, "t30", 1)
    c, _ = _face(face_maker, rng, "t40", 2)
    qa = place(canvas, a.image, (200, 260), 20, 0.5)
    qb = place(canvas, b.image, (480, 300), -65, 0.5)
    place(canvas, c.image, (880, 330), 10, 0.5)  # cut by the right border
    quads = detect(canvas)
    full = [q for q in quads if not q.partial]
    partial = [q for q in quads if q.partial]
    assert len(full) == 2 and len(partial) == 1
    errs = sorted(min(_corner_error(q.corners, t) for q in full) for t in (qa, qb))
    assert errs[-1] < 4.0
    assert partial[0].corners[:, 0].max() > 880


def test_detect_touching_cards(face_maker: Callable[..., Face], rng: np.random.Generator) -> None:
    canvas = table(rng)
    a, _ = _face(face_maker, rng, "t13")
    b, _ = _face(face_maker, rng, "t27")
    scale = 0.5
    w = 63 * PX_PER_MM * scale
    place(canvas, a.image, (400, 320), 0, scale)
    place(canvas, b.image, (400 + w + 1, 320), 0, scale)
    full = [q for q in detect(canvas) if not q.partial]
    assert len(full) == 2


def test_empty_table_has_no_cards(rng: np.random.Generator) -> None:
    assert detect(table(rng)) == ()


@pytest.mark.parametrize("angle", [0, 90, 180, 270, 37])
def test_rectify_puts_the_numeral_top_left(face_maker: Callable[..., Face], rng: np.random.Generator,
                                           angle: float) -> None:
    canvas = table(rng)
    f, _ = _face(face_maker, rng, "t2")
    truth = place(canvas, f.image, (450, 320), angle, 0.55)
    quad = next(q for q in detect(canvas) if not q.partial)
    face = rectify(canvas, quad.corners)
    assert face.image.shape[0] > face.image.shape[1]
    assert np.abs(face.corners - truth).max() < 4.0


def test_grid_from_outlines_with_enclosed_water(face_maker: Callable[..., Face],
                                                rng: np.random.Generator) -> None:
    f, small = _face(face_maker, rng, "t11", rotation=1)
    grid = locate_grid(small, FACE_PPM)
    assert grid is not None and grid.shape == (4, 4)
    is_cell = f.printed != "."
    assert grid.presence[is_cell].min() > grid.presence[~is_cell].max()


@pytest.mark.parametrize(("card_id", "top_mm", "grid_mm"), [("t25", 30.0, 44.0), ("t41", 40.0, 36.0)])
def test_grid_position_is_not_fixed(face_maker: Callable[..., Face], rng: np.random.Generator,
                                    card_id: str, top_mm: float, grid_mm: float) -> None:
    f, small = _face(face_maker, rng, card_id, top_mm=top_mm, grid_mm=grid_mm)
    grid = locate_grid(small, FACE_PPM)
    assert grid is not None and grid.shape == f.printed.shape
    assert abs(grid.ys[0] - top_mm * FACE_PPM) < 3


def test_a_printed_x_is_not_a_mark(face_maker: Callable[..., Face], rng: np.random.Generator) -> None:
    # t1 has four printed X; none is marked, one plain cell is
    f, small = _face(face_maker, rng, "t1", marked=frozenset({(0, 1)}))
    grid = locate_grid(small, FACE_PPM)
    assert grid is not None
    v = read_marks(small, grid, f.printed)
    assert {(int(r), int(c)) for r, c in np.argwhere(v.state == 1)} == {(0, 1)}
    assert not np.any(v.state == -1)
    x_cells = np.argwhere(f.printed == "X")
    assert all(v.state[r, c] == 0 for r, c in x_cells)


def test_marks_on_symbol_cells_are_read(face_maker: Callable[..., Face], rng: np.random.Generator) -> None:
    marked = frozenset({(0, 0), (2, 0), (1, 1), (3, 3)})  # two X cells of t1, two plain cells
    f, small = _face(face_maker, rng, "t1", marked=marked)
    grid = locate_grid(small, FACE_PPM)
    assert grid is not None
    v = read_marks(small, grid, f.printed)
    assert {(int(r), int(c)) for r, c in np.argwhere(v.state == 1)} == set(marked)


@pytest.mark.parametrize("rotation", [0, 1, 2, 3])
def test_identify_under_every_grid_rotation(face_maker: Callable[..., Face], rng: np.random.Generator,
                                            rotation: int) -> None:
    for card_id in ("t5", "t8", "t33", "t44"):
        _, small = _face(face_maker, rng, card_id, rotation=rotation)
        grid = locate_grid(small, FACE_PPM)
        assert grid is not None
        ident = identify(observe(small, grid, FACE_PPM), builtin_catalog())
        assert ident.card is not None and ident.card.id == card_id
        assert ident.card.grid(ident.rotation).tolist() == ident.card.grid(rotation).tolist()


def test_unknown_card_is_not_guessed(face_maker: Callable[..., Face], rng: np.random.Generator) -> None:
    from vision.cards.catalog import Catalog

    only_grey = Catalog(tuple(c for c in builtin_catalog().cards if c.colour == "grey"))
    _, small = _face(face_maker, rng, "t1")
    grid = locate_grid(small, FACE_PPM)
    assert grid is not None
    assert identify(observe(small, grid, FACE_PPM), only_grey).card is None


def test_to_catalog_frame_inverts_the_rotation() -> None:
    card = builtin_catalog().get("t27")
    assert card is not None
    for k in range(4):
        printed = card.grid(k)
        cells = [(int(r), int(c)) for r, c in np.argwhere(printed == "X")]
        back = to_catalog_frame(cells, card.shape, k)
        assert all(card.rows[r][c] == "X" for r, c in back)


def test_warp_face_shape(rng: np.random.Generator) -> None:
    img = table(rng)
    face, m = warp_face(img, np.array([[10, 10], [110, 10], [110, 150], [10, 150]], float))
    assert face.shape == (352, 252, 3) and m.shape == (3, 3)


def test_detect_a_card_seen_at_a_slant(face_maker: Callable[..., Face], rng: np.random.Generator) -> None:
    # a tilted, turned camera: the card is a sheared trapezoid that fills its bounding rectangle
    # poorly, yet it is four-sided
    canvas = table(rng)
    f, _ = _face(face_maker, rng, "t12")
    quad = np.array([[320, 190], [450, 215], [470, 430], [250, 380]], np.float64)
    (_, _), (rw, rh), _ = cv2.minAreaRect(quad.astype(np.float32))
    assert cv2.contourArea(quad.astype(np.float32)) / (rw * rh) < 0.85  # the case at hand
    place_quad(canvas, f.image, quad)
    full = [q for q in detect(canvas) if not q.partial]
    assert len(full) == 1 and _corner_error(full[0].corners, quad) < 4.0


def test_detect_touching_cards_offset_along_their_side(face_maker: Callable[..., Face],
                                                        rng: np.random.Generator) -> None:
    # side by side but shifted: together they still look like one four-sided card
    canvas = table(rng)
    a, _ = _face(face_maker, rng, "t13")
    b, _ = _face(face_maker, rng, "t27")
    c, _ = _face(face_maker, rng, "t30")
    scale = 0.45
    w, h = 63 * PX_PER_MM * scale, 88 * PX_PER_MM * scale
    qa = place(canvas, a.image, (300, 300), 0, scale)
    qb = place(canvas, b.image, (300 + w + 1, 300 + 0.35 * h), 0, scale)
    place(canvas, c.image, (700, 300), 15, scale)
    full = [q for q in detect(canvas) if not q.partial]
    assert len(full) == 3
    # each card on its own (taken together, corners would be off by half a card)
    assert max(min(_corner_error(q.corners, t) for q in full) for t in (qa, qb)) < 0.1 * w
