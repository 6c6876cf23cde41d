"""Two cards lying side by side or end to end, touching, are two cards.

With frames of one colour and a little blur the joint between them shows no edge. Side by side
(touching along their long sides) the pair closes one outline of about a card's aspect (126x88 mm
against 63x88), which the reader used to take for one card, named after one of the two. End to end
it closes one outline twice a card long, no card's shape, and one card or both were lost.
"""

from __future__ import annotations

import importlib
import math

import cv2
import numpy as np
import pytest

from vision.cards import read
from vision.cards.detect import CardQuad, detect, outline_support, split_pair
from vision.synth.camera import Conditions
from vision.synth.scene import CardSpec, Scene, render_cards_photo

read_mod = importlib.import_module("vision.cards.read")  # the module, not the package's read()


def _quad(corners: list[list[float]]) -> CardQuad:
    c = np.array(corners, np.float64)
    return CardQuad(c, False, float(cv2.contourArea(c.astype(np.float32))))


def test_split_pair_cuts_across_the_long_sides() -> None:
    # long sides on top and bottom, starting at the top-left corner
    left, right = split_pair(_quad([[0, 0], [200, 0], [200, 140], [0, 140]]))
    np.testing.assert_allclose(left.corners, [[0, 0], [100, 0], [100, 140], [0, 140]], atol=1e-4)
    np.testing.assert_allclose(right.corners, [[100, 0], [200, 0], [200, 140], [100, 140]], atol=1e-4)
    assert not left.partial and not right.partial
    assert left.area == pytest.approx(14000.0) and right.area == pytest.approx(14000.0)
    # the same quad starting at a corner of a short side: the cut still crosses the long sides
    top, bottom = split_pair(_quad([[200, 0], [200, 140], [0, 140], [0, 0]]))
    cuts = {tuple(np.round(p, 3)) for p in (*top.corners, *bottom.corners)}
    assert (100.0, 0.0) in cuts and (100.0, 140.0) in cuts


def test_split_pair_cuts_at_the_middle_of_the_table_not_of_the_image() -> None:
    # a 2:1 rectangle on the table seen in perspective, its left end near the camera: the cut
    # falls where the table's middle line is imaged, far right of the middle of each imaged side
    table = np.float32([[0, 0], [2, 0], [2, 1], [0, 1]])
    image = np.float32([[100, 60], [500, 150], [500, 250], [100, 340]])
    h = cv2.getPerspectiveTransform(table, image)
    mid = cv2.perspectiveTransform(np.float32([[[1, 0], [1, 1]]]), h)[0]
    left, right = split_pair(_quad(image.tolist()))
    np.testing.assert_allclose(left.corners[1:3], mid, atol=1e-3)
    np.testing.assert_allclose(right.corners[[0, 3]], mid, atol=1e-3)
    naive = (image[0] + image[1]) / 2
    assert mid[0][0] - naive[0] > 80.0


@pytest.mark.parametrize(("style", "seed", "angle"), [("classic", 0, 0.0), ("classic", 1, 0.0),
                                                      ("modern", 0, 30.0), ("modern", 2, 100.0)])
def test_two_cards_side_by_side_are_both_read(style: str, seed: int, angle: float) -> None:
    across = (63.0 * math.cos(math.radians(angle)), 63.0 * math.sin(math.radians(angle)))
    specs = [CardSpec("t15", (200.0, 140.0), angle, ((0, 0), (1, 1)), style, 1, "cross", "black"),
             CardSpec("t22", (200.0 + across[0], 140.0 + across[1]), angle, ((0, 0),), style, 0,
                      "scribble", "blue")]
    cond = Conditions(size=(1280, 720), table_mm=(700.0, 400.0), blur_sigma=1.0, noise_sigma=3.0,
                      jpeg_quality=85)
    scene = render_cards_photo(specs, cond, np.random.default_rng(seed))
    readings = read(scene.image)
    assert sorted(r.id or "?" for r in readings) == ["t15", "t22"]
    by_id = {r.id: r for r in readings}
    for truth in scene.cards:
        got = by_id[truth.id]
        assert sorted(got.marked) == sorted(truth.marked), truth.id
        assert np.abs(np.array(got.corners) - np.array(truth.corners)).max() < 12, truth.id


def _end_to_end(style: str, seed: int, angle: float) -> Scene:
    a = math.radians(angle)
    along = (-88.0 * math.sin(a), 88.0 * math.cos(a))  # one card's length down its own long axis
    specs = [CardSpec("t15", (200.0, 140.0), angle, ((0, 0), (1, 1)), style, 1, "cross", "black"),
             CardSpec("t22", (200.0 + along[0], 140.0 + along[1]), angle, ((0, 0),), style, 0,
                      "scribble", "blue")]
    cond = Conditions(size=(1280, 720), table_mm=(700.0, 400.0), blur_sigma=1.0, noise_sigma=3.0,
                      jpeg_quality=85)
    return render_cards_photo(specs, cond, np.random.default_rng(seed))


def test_two_cards_end_to_end_close_one_double_outline() -> None:
    scene = _end_to_end("modern", 1, 0.0)
    found = detect(scene.image)
    centres = [tuple(map(float, np.mean(t.corners, axis=0))) for t in scene.cards]

    def spans(quad: CardQuad) -> bool:  # each card's centre lies in one of its halves, in order
        return all(cv2.pointPolygonTest(half.corners.astype(np.float32), centre, False) > 0
                   for half, centre in zip(split_pair(quad), centres, strict=True))

    (double,) = [q for q in found.doubles if spans(q)]
    both = np.concatenate([np.array(t.corners) for t in scene.cards])
    assert double.area == pytest.approx(float(cv2.contourArea(cv2.convexHull(both.astype(np.float32)))),
                                        rel=0.15)


@pytest.mark.parametrize(("style", "seed", "angle"), [("classic", 0, 30.0), ("classic", 2, 100.0),
                                                      ("modern", 0, 100.0), ("modern", 1, 30.0)])
def test_two_cards_end_to_end_are_both_read(style: str, seed: int, angle: float) -> None:
    scene = _end_to_end(style, seed, angle)
    readings = read(scene.image)
    assert sorted(r.id or "?" for r in readings) == ["t15", "t22"]
    by_id = {r.id: r for r in readings}
    for truth in scene.cards:
        assert sorted(by_id[truth.id].marked) == sorted(truth.marked), truth.id


def test_outline_support_follows_the_edges() -> None:
    img = np.zeros((300, 400, 3), np.uint8)
    cv2.rectangle(img, (100, 80), (260, 200), (230, 230, 230), -1)
    on = outline_support(img, _quad([[100, 80], [260, 80], [260, 200], [100, 200]]))
    assert on.min() > 0.9
    # the same quad moved down by a third of its height: its sides across the card and the table
    # run along no edge, the two others half along the card's sides
    off = outline_support(img, _quad([[100, 120], [260, 120], [260, 240], [100, 240]]))
    assert off[0] < 0.2 and off[2] < 0.2
    assert 0.3 < off[1] < 0.8 and 0.3 < off[3] < 0.8


def test_two_cards_side_by_side_but_shifted_are_not_cut_in_halves() -> None:
    # shifted 20 mm along their joint, the pair's outline cuts across the cards' corners; its
    # halves hold a part of each card and of the table, yet the catalog names both: their marks
    # would be read in the wrong cells
    specs = [CardSpec("t40", (450.0, 250.0), 10.0, (), "classic", 0, None, None),
             CardSpec("t15", (200.0, 140.0), 0.0, ((0, 0), (1, 1)), "classic", 1, "cross", "black"),
             CardSpec("t22", (263.0, 160.0), 0.0, ((0, 0),), "classic", 0, "scribble", "blue")]
    cond = Conditions(size=(1280, 720), table_mm=(700.0, 400.0), blur_sigma=1.0, noise_sigma=3.0,
                      jpeg_quality=85)
    scene = render_cards_photo(specs, cond, np.random.default_rng(0))
    found = detect(scene.image)
    (pair,) = [q for q in found if q.area > 30000]
    cfg, catalog = read_mod.default_config(), read_mod.load_catalog()
    halves = [read_mod._prepare(scene.image, h, catalog, cfg) for h in split_pair(pair)]
    assert sorted(p.ident.card.id for p in halves if isinstance(p, read_mod._Prepared) and p.ident.card) == \
        ["t15", "t22"]
    assert outline_support(scene.image, pair, canny=found.canny).min() < cfg.detect.side_support
    assert read_mod._named_pair(scene.image, pair, catalog, cfg, found.canny) is None


@pytest.mark.parametrize("seed", [3, 4])
def test_a_block_of_touching_cards_is_read_card_by_card(seed: int) -> None:
    # two orange cards side by side, two green ones end to end below the first, all touching, on a
    # plain dark cloth: one loop spans the two green cards, one the orange pair, and the pair gives
    # way to the one orange card outlined on its own
    specs = [CardSpec("t15", (200.0, 140.0), 0.0, ((0, 0), (1, 1)), "modern", 1, "cross", "black"),
             CardSpec("t22", (263.0, 140.0), 0.0, ((0, 0),), "modern", 0, "scribble", "blue"),
             CardSpec("t30", (200.0, 228.0), 0.0, ((0, 0),), "modern", 0, "dot", "black"),
             CardSpec("t31", (200.0, 316.0), 0.0, (), "modern", 0, None, None)]
    cond = Conditions(size=(1280, 720), table_mm=(700.0, 400.0), blur_sigma=1.0, noise_sigma=3.0,
                      jpeg_quality=85)
    cloth = np.full((720, 1280, 3), (60, 40, 30), np.uint8)
    scene = render_cards_photo(specs, cond, np.random.default_rng(seed), table=cloth)
    assert detect(scene.image).doubles  # the loops of two cards are reported apart
    readings = read(scene.image)
    assert sorted(r.id or "?" for r in readings) == ["t15", "t22", "t30", "t31"]
    by_id = {r.id: r for r in readings}
    for truth in scene.cards:
        assert sorted(by_id[truth.id].marked) == sorted(truth.marked), truth.id
