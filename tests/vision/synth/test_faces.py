"""Card faces, marks and expedition faces of the renderer."""

from __future__ import annotations

import numpy as np
import pytest

from vision.synth.cards import ALL_STYLES, HELD_OUT_STYLES, STYLES, map_card, map_cards, render_card_face
from vision.synth.expedition import expedition_card, expedition_cards, render_expedition_face
from vision.synth.marks import MARK_KINDS, changed_share, draw_mark, mark_reach, sample_mark_style


def test_catalog_has_the_47_map_cards_and_8_expedition_cards() -> None:
    cards = map_cards()
    assert len(cards) == 47
    assert {c.colour for c in cards} == {"purple", "orange", "green", "grey"}
    assert all(3 <= c.shape[0] <= 4 and 3 <= c.shape[1] <= 4 for c in cards)
    assert len(expedition_cards()) == 8
    with pytest.raises(KeyError):
        map_card("t99")


@pytest.mark.parametrize("style", ALL_STYLES)
def test_face_has_card_aspect_rounded_corners_and_every_cell(style: str, rng: np.random.Generator) -> None:
    card = map_card("t4")
    face = render_card_face(card, rng, style=style, grid_rotation=1)
    h, w = face.image.shape[:2]
    assert face.image.shape[2] == 4 and face.image.dtype == np.uint8
    assert h / w == pytest.approx(88 / 63, rel=0.02)
    assert face.image[0, 0, 3] < 60 and face.image[h // 2, w // 2, 3] == 255
    assert set(face.cells) == set(card.cells)
    assert face.grid_rotation == 1 and face.style == style


def test_grid_rotation_moves_the_cells(rng: np.random.Generator) -> None:
    card = map_card("t1")  # a 4x4 grid with water at (1,0) and (1,3)
    seen = set()
    for rot in range(4):
        face = render_card_face(card, np.random.default_rng(1), style="classic", grid_rotation=rot)
        x0, y0, _, _ = face.cells[(0, 0)]
        seen.add((round(x0), round(y0)))
    assert len(seen) == 4  # catalog cell (0,0) sits in a different corner for each quarter turn


def test_a_quarter_turn_is_clockwise(rng: np.random.Generator) -> None:
    card = map_card("t1")
    rows = card.shape[0]
    face0 = render_card_face(card, np.random.default_rng(2), style="modern", grid_rotation=0)
    face1 = render_card_face(card, np.random.default_rng(2), style="modern", grid_rotation=1)
    # upright: (0,0) is top-left; one clockwise turn takes it to the top-right corner
    xs0 = sorted({b[0] for b in face0.cells.values()})
    xs1 = sorted({b[0] for b in face1.cells.values()})
    ys1 = sorted({b[1] for b in face1.cells.values()})
    assert face0.cells[(0, 0)][0] == xs0[0]
    assert face1.cells[(0, 0)][0] == pytest.approx(xs1[-1])
    assert face1.cells[(0, 0)][1] == pytest.approx(ys1[0])
    assert face1.cells[(rows - 1, 0)][0] == pytest.approx(xs1[0])


def test_styles_differ_clearly() -> None:
    card = map_card("t20")
    faces = {s: render_card_face(card, np.random.default_rng(3), style=s, grid_rotation=0) for s in STYLES}
    a, b = (faces[s] for s in STYLES)
    cell_a = a.cells[card.cells[0]][2] - a.cells[card.cells[0]][0]
    cell_b = b.cells[card.cells[0]][2] - b.cells[card.cells[0]][0]
    assert abs(cell_a - cell_b) > 0.5 * 8  # grid size differs by more than half a millimetre
    diff = np.abs(a.image[:, :, :3].astype(int) - b.image[:, :, :3].astype(int)).mean()
    assert diff > 30


def test_the_held_out_style_differs_from_both_and_is_never_drawn_at_random() -> None:
    card = map_card("t20")
    held = render_card_face(card, np.random.default_rng(3), style="stamped", grid_rotation=0)
    cell = held.cells[card.cells[0]][2] - held.cells[card.cells[0]][0]
    for s in STYLES:
        other = render_card_face(card, np.random.default_rng(3), style=s, grid_rotation=0)
        other_cell = other.cells[card.cells[0]][2] - other.cells[card.cells[0]][0]
        assert abs(cell - other_cell) > 0.5 * 6  # px_per_mm 6: grids differ by over half a millimetre
        diff = np.abs(held.image[:, :, :3].astype(int) - other.image[:, :, :3].astype(int)).mean()
        assert diff > 30
    assert set(HELD_OUT_STYLES).isdisjoint(STYLES)
    drawn = {render_card_face(card, np.random.default_rng(k), grid_rotation=0).style for k in range(40)}
    assert drawn == set(STYLES)
    with pytest.raises(ValueError, match="unknown card style"):
        render_card_face(card, np.random.default_rng(3), style="baroque")


def test_faces_vary_within_a_style() -> None:
    card = map_card("t30")
    a = render_card_face(card, np.random.default_rng(4), style="classic", grid_rotation=0)
    b = render_card_face(card, np.random.default_rng(5), style="classic", grid_rotation=0)
    assert not np.array_equal(a.image, b.image)


def test_printed_x_is_red_in_its_cell(rng: np.random.Generator) -> None:
    card = map_card("t1")  # (0,0) is an X
    face = render_card_face(card, rng, style="classic", grid_rotation=0)
    x0, y0, x1, y1 = (round(v) for v in face.cells[(0, 0)])
    patch = face.image[y0:y1, x0:x1, :3].astype(int)
    reddish = (patch[:, :, 2] > 150) & (patch[:, :, 1] < 90) & (patch[:, :, 0] < 90)
    assert reddish.mean() > 0.05


@pytest.mark.parametrize("kind", MARK_KINDS)
def test_mark_changes_only_pixels_near_the_cell(kind: str, rng: np.random.Generator) -> None:
    face = np.full((200, 200, 4), 230, np.uint8)
    box = (80.0, 80.0, 120.0, 120.0)
    style = sample_mark_style(rng, 8.0, kind=kind, ink="blue")
    out = draw_mark(face, box, rng, style)
    changed = np.abs(out.astype(int) - face.astype(int)).max(axis=2) > 0
    assert changed.sum() > 20
    ys, xs = np.nonzero(changed)
    reach = mark_reach(box, style)
    assert xs.min() >= box[0] - reach and xs.max() <= box[2] + reach
    assert ys.min() >= box[1] - reach and ys.max() <= box[3] + reach
    assert np.array_equal(out[:, :, 3], face[:, :, 3])


def test_ink_colour_shows(rng: np.random.Generator) -> None:
    face = np.full((120, 120, 3), 240, np.uint8)
    style = sample_mark_style(rng, 8.0, kind="dot", ink="red")
    out = draw_mark(face, (40.0, 40.0, 80.0, 80.0), rng, style)
    b, g, r = out[60, 60].astype(int)
    assert r > g + 40 and r > b + 40


def test_changed_share_counts_the_cell_pixels_a_mark_moved() -> None:
    before = np.full((10, 10, 4), 200, np.uint8)
    after = before.copy()
    after[2:4, 2:4, 0] = 100  # 4 pixels, one channel far off
    after[6, 6, 1] = 190  # a small change is no change
    after[:, :, 3] = 0  # alpha is not compared
    assert changed_share(before, after, (0.0, 0.0, 10.0, 10.0), delta=40) == pytest.approx(0.04)
    assert changed_share(before, after, (2.0, 2.0, 4.0, 4.0), delta=40) == 1.0
    assert changed_share(before, after, (0.0, 0.0, 10.0, 10.0), delta=5) == pytest.approx(0.05)
    assert changed_share(before, after, (20.0, 20.0, 30.0, 30.0)) == 0.0  # outside the face


def test_a_pen_of_the_prints_colour_hides_in_it(rng: np.random.Generator) -> None:
    face = np.full((120, 120, 3), 240, np.uint8)
    box = (40.0, 40.0, 80.0, 80.0)
    style = sample_mark_style(rng, 8.0, kind="dot", ink="red")
    printed = face.copy()
    printed[40:80, 40:80] = style.colour  # the cell printed all over in the pen's own colour
    on_paper = changed_share(face, draw_mark(face, box, np.random.default_rng(1), style), box)
    on_print = changed_share(printed, draw_mark(printed, box, np.random.default_rng(1), style), box)
    assert on_paper > 0.05 and on_print == 0.0


def test_strokes_overshoot_the_cell_sometimes() -> None:
    overshoots = 0
    for seed in range(20):
        rng = np.random.default_rng(seed)
        face = np.full((200, 200, 3), 230, np.uint8)
        style = sample_mark_style(rng, 8.0, kind="cross")
        out = draw_mark(face, (80.0, 80.0, 120.0, 120.0), rng, style)
        changed = np.abs(out.astype(int) - face.astype(int)).max(axis=2) > 10
        ys, xs = np.nonzero(changed)
        overshoots += int(xs.min() < 78 or xs.max() > 122 or ys.min() < 78 or ys.max() > 122)
    assert 0 < overshoots < 20


def test_unknown_mark_kind_is_an_error(rng: np.random.Generator) -> None:
    with pytest.raises(ValueError, match="kind"):
        sample_mark_style(rng, 8.0, kind="smiley")


@pytest.mark.parametrize("style", ALL_STYLES)
def test_expedition_face_shows_its_squares(style: str, rng: np.random.Generator) -> None:
    face = render_expedition_face(expedition_card("e6"), rng, style=style)
    assert face.shape[2] == 4 and face.dtype == np.uint8
    other = render_expedition_face(expedition_card("e1"), np.random.default_rng(0), style=style)
    assert face.shape == other.shape
    assert not np.array_equal(face, other)
