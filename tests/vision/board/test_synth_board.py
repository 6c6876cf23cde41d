"""The board renderer: styles, truth in the reported frame, hands, equal seeds."""

from __future__ import annotations

import numpy as np
import pytest

from vision.synth.board import (
    ALL_STYLES,
    HELD_OUT_STYLES,
    STYLES,
    TOKEN_SUPPLY,
    random_layout,
    render_board_face,
    render_board_scene,
)

LAYOUT = ("WUGRK", "PY.WU", "GRKPY", "UG.RK", "WUGRY")
SIZE = (1280, 720)


def test_face_has_shape_and_spots(rng: np.random.Generator) -> None:
    face = render_board_face(LAYOUT, "night", rng)
    assert face.image.shape == (660, 660, 3) and face.image.dtype == np.uint8
    assert face.spots.shape == (5, 5, 2)
    pitch = face.spots[0, 1, 0] - face.spots[0, 0, 0]
    assert 0.3 * pitch < face.token_radius < 0.5 * pitch


def test_styles_look_clearly_different(rng: np.random.Generator) -> None:
    empty = (".....",) * 5
    means = [render_board_face(empty, s, rng).image.reshape(-1, 3).mean(axis=0) for s in ALL_STYLES]
    for i in range(len(means)):
        for j in range(i + 1, len(means)):
            assert np.abs(means[i] - means[j]).max() > 25


def test_the_held_out_board_is_drawn_only_when_asked_for(rng: np.random.Generator) -> None:
    assert set(HELD_OUT_STYLES).isdisjoint(STYLES)
    drawn = {render_board_face(LAYOUT, None, np.random.default_rng(k)).style.name for k in range(30)}
    assert drawn == set(STYLES)
    scene = render_board_scene(rng, "easy", SIZE, style="slate")
    assert scene.style == "slate"
    with pytest.raises(ValueError, match="unknown board style"):
        render_board_face(LAYOUT, "marble", rng)


@pytest.mark.parametrize("bad", [("WUGRK",) * 4, ("WUGRKX",) + ("WUGRK",) * 4, ("WUGRZ",) * 5])
def test_face_rejects_a_bad_layout(bad: tuple[str, ...], rng: np.random.Generator) -> None:
    with pytest.raises(ValueError, match="layout"):
        render_board_face(bad, None, rng)


def test_random_layout_uses_the_game_supply(rng: np.random.Generator) -> None:
    rows = random_layout(rng, empty=5)
    letters = "".join(rows)
    assert letters.count(".") == 5
    for k in "WUGRKPY":
        assert letters.count(k) <= TOKEN_SUPPLY.count(k)


def test_scene_truth_is_the_layout_turned_into_the_seen_frame() -> None:
    for seed in range(3):
        scene = render_board_scene(np.random.default_rng(seed), "typical", SIZE, layout=LAYOUT, hand=False)
        turned = np.rot90(np.array([list(r) for r in LAYOUT]), k=scene.rotation)
        assert scene.cells == tuple("".join(r) for r in turned)
        quad = np.asarray(scene.corners)
        # corner 0 is the one nearest the image's top-left direction
        d = quad - quad.mean(axis=0)
        assert d[0, 0] < 0 and d[0, 1] < 0
        assert scene.image.shape == (SIZE[1], SIZE[0], 3)


def test_equal_seeds_give_the_same_pose_for_different_tokens() -> None:
    other = ("UWGRK", "PY.WU", "GRKPY", "UG.RK", "WUG.Y")
    a = render_board_scene(np.random.default_rng(7), "easy", SIZE, layout=LAYOUT, hand=False)
    b = render_board_scene(np.random.default_rng(7), "easy", SIZE, layout=other, hand=False)
    assert a.corners == b.corners and a.style == b.style
    assert not np.array_equal(a.image, b.image)


def test_a_hand_covers_spots_that_become_unknown() -> None:
    covered = 0
    for seed in range(6):
        scene = render_board_scene(np.random.default_rng(seed), "typical", SIZE, layout=LAYOUT, hand=True)
        for r, c in scene.occluded:
            assert scene.cells[r][c] == "?"
        assert not set(scene.occluded) & set(scene.partly_occluded)
        covered += len(scene.occluded)
    assert covered > 0
