"""The board's corners from its spot lattice (vision.board.lattice)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.board import default_config, locate
from vision.board.detect import rectify
from vision.board.lattice import find_lattice_candidates, lattice_corners, spot_centres
from vision.board.spots import fit_grid

# a board face of side 400 with its 5x5 spots (pitch 64, radius 22) and a 40 px frame
FACE = 400
PITCH = 64.0
RADIUS = 22.0


def _face(rng: np.random.Generator) -> np.ndarray:
    face = np.full((FACE, FACE, 3), 150, np.uint8)
    for r in range(5):
        for c in range(5):
            # darker or lighter than the board, as tokens and printed spots are
            colour = tuple(int(v) for v in rng.integers(20, 90, 3) + 160 * int(rng.integers(2)))
            centre = (round(40 + (c + 0.5) * PITCH), round(40 + (r + 0.5) * PITCH))
            cv2.circle(face, centre, round(RADIUS), colour, -1, cv2.LINE_AA)
    return face


def _photo(rng: np.random.Generator, corners: np.ndarray, table_grey: int = 60) -> np.ndarray:
    """The face warped onto ``corners`` of a 640x480 table."""
    square = np.float32([[0, 0], [FACE, 0], [FACE, FACE], [0, FACE]])
    hom = cv2.getPerspectiveTransform(square, corners.astype(np.float32))
    table = np.full((480, 640, 3), table_grey, np.uint8)
    return cv2.warpPerspective(_face(rng), hom, (640, 480), dst=table, borderMode=cv2.BORDER_TRANSPARENT)


TRUE = np.array([[150.0, 60.0], [520.0, 80.0], [500.0, 430.0], [130.0, 410.0]])


def _pitch_px() -> float:
    return float(np.linalg.norm(TRUE[1] - TRUE[0])) / FACE * PITCH


def test_spot_centres_find_the_discs(rng: np.random.Generator) -> None:
    cfg = default_config()
    size = 300
    face = cv2.resize(_face(rng), (size, size), interpolation=cv2.INTER_AREA)
    # move the spots off the fitted lattice: shift the whole face by a few pixels
    shifted = cv2.warpAffine(face, np.float32([[1, 0, 4], [0, 1, -3]]), (size, size),
                             borderMode=cv2.BORDER_REPLICATE)
    grid = fit_grid(face, cfg)
    centres, strength = spot_centres(shifted, grid, cfg)
    scale = size / FACE
    truth = np.array([[40 + (c + 0.5) * PITCH, 40 + (r + 0.5) * PITCH] for r in range(5) for c in range(5)])
    assert np.abs(centres - (truth * scale + [4, -3])).max() < 1.5
    assert strength.min() > cfg.lattice_min_edge


def test_a_wrong_corner_is_moved_onto_the_lattice(rng: np.random.Generator) -> None:
    cfg = default_config()
    image = _photo(rng, TRUE)
    wrong = TRUE.copy()
    wrong[2] += [0.5 * _pitch_px(), 0.3 * _pitch_px()]  # a hand hid the bottom-right corner
    rect, _ = rectify(image, wrong, cfg.rect_size)
    grid = fit_grid(rect, cfg)
    fixed = lattice_corners(image, wrong, rect, grid, cfg)
    assert fixed is not None
    assert np.linalg.norm(fixed[0] - TRUE, axis=1).max() < 0.15 * _pitch_px()
    assert np.array_equal(fixed[1], rectify(image, fixed[0], cfg.rect_size)[0])


def test_right_corners_are_kept(rng: np.random.Generator) -> None:
    cfg = default_config()
    image = _photo(rng, TRUE)
    rect, _ = rectify(image, TRUE, cfg.rect_size)
    assert lattice_corners(image, TRUE, rect, fit_grid(rect, cfg), cfg) is None


@pytest.mark.parametrize("least", [26, 40])
def test_too_few_spots_give_no_correction(rng: np.random.Generator, least: int) -> None:
    import dataclasses

    cfg = dataclasses.replace(default_config(), lattice_min_spots=least)
    image = _photo(rng, TRUE)
    wrong = TRUE.copy()
    wrong[2] += [0.5 * _pitch_px(), 0.3 * _pitch_px()]
    rect, _ = rectify(image, wrong, cfg.rect_size)
    assert lattice_corners(image, wrong, rect, fit_grid(rect, cfg), cfg) is None


def test_a_blank_board_gives_no_correction() -> None:
    cfg = default_config()
    image = np.full((480, 640, 3), 60, np.uint8)
    cv2.fillConvexPoly(image, TRUE.astype(np.int32), (150, 150, 150))
    wrong = TRUE.copy()
    wrong[2] += [30.0, 20.0]
    rect, _ = rectify(image, wrong, cfg.rect_size)
    assert lattice_corners(image, wrong, rect, fit_grid(rect, cfg), cfg) is None


# a smaller board, tilted, on a table of the board's own colour: no outline to find
SMALL = np.array([[200.0, 120.0], [450.0, 140.0], [440.0, 380.0], [190.0, 370.0]])


def test_a_board_without_outline_is_found_from_its_spots(rng: np.random.Generator) -> None:
    image = _photo(rng, SMALL, table_grey=150)
    image = (image.astype(np.int16) + rng.integers(-6, 7, image.shape)).clip(0, 255).astype(np.uint8)
    pitch = float(np.linalg.norm(SMALL[1] - SMALL[0])) / FACE * PITCH
    cands = find_lattice_candidates(image, default_config())
    assert cands
    # the spots fix the board up to its frame's width, which has no edge to find here
    assert np.linalg.norm(cands[0].mean(axis=0) - SMALL.mean(axis=0)) < 0.2 * pitch
    found = locate(image)
    assert found is not None
    face_square = np.float32([[0, 0], [FACE, 0], [FACE, FACE], [0, FACE]])
    on_face = np.array([[40 + (c + 0.5) * PITCH, 40 + (r + 0.5) * PITCH] for r in range(5) for c in range(5)])
    to_photo = cv2.getPerspectiveTransform(face_square, SMALL.astype(np.float32))
    truth = cv2.perspectiveTransform(on_face.reshape(-1, 1, 2), to_photo).reshape(5, 5, 2)
    side = default_config().rect_size
    rect_square = np.float32([[0, 0], [side, 0], [side, side], [0, side]])
    back = cv2.getPerspectiveTransform(rect_square, found.corners.astype(np.float32))
    spots = cv2.perspectiveTransform(found.grid.centres.reshape(-1, 1, 2), back).reshape(5, 5, 2)
    assert np.linalg.norm(spots - truth, axis=-1).max() < 0.2 * pitch


def test_scattered_discs_are_no_lattice(rng: np.random.Generator) -> None:
    image = np.full((480, 640, 3), 150, np.uint8)
    for _ in range(25):
        centre = (int(rng.integers(20, 620)), int(rng.integers(20, 460)))
        cv2.circle(image, centre, 9, (40, 40, 40), -1, cv2.LINE_AA)
    assert find_lattice_candidates(image, default_config()) == []


def test_a_near_miss_is_rescued_by_its_spots(rng: np.random.Generator) -> None:
    from vision.board.read import Located, _rescue

    cfg = default_config()
    image = _photo(rng, TRUE)
    wrong = TRUE.copy()
    wrong[2] += [0.5 * _pitch_px(), 0.3 * _pitch_px()]
    rect, _ = rectify(image, wrong, cfg.rect_size)
    near = Located(wrong, rect, fit_grid(rect, cfg))
    got = _rescue(image, [near], cfg)
    assert len(got) == 1
    assert np.linalg.norm(got[0].corners - TRUE, axis=1).max() < 0.15 * _pitch_px()
    assert got[0].grid.quality >= cfg.min_grid_quality
    # a quadrilateral whose spots already sit on its lattice has nothing to rescue
    rect, _ = rectify(image, TRUE, cfg.rect_size)
    assert _rescue(image, [Located(TRUE, rect, fit_grid(rect, cfg))], cfg) == []


def test_window_holds_the_densest_five_by_five() -> None:
    from vision.board.lattice import _window

    block = np.array([(i, j) for i in range(3, 8) for j in range(-2, 3)], np.int64)
    stray = np.array([(0, 0), (9, 9), (2, 5)], np.int64)
    count, i0, j0 = _window(np.vstack([stray, block]))
    assert (count, i0, j0) == (25, 3, -2)


def test_blobs_sit_on_discs_at_their_scale(rng: np.random.Generator) -> None:
    from vision.board.lattice import _blobs

    image = np.full((270, 480, 3), 120, np.uint8)
    centres = [(100, 80), (300, 150), (400, 220)]
    for x, y in centres:
        colour = tuple(int(v) for v in rng.integers(0, 60, 3))
        cv2.circle(image, (x, y), 8, colour, -1, cv2.LINE_AA)
    pts, sig = _blobs(image, default_config())
    for x, y in centres:
        d = np.hypot(pts[:, 0] - x, pts[:, 1] - y)
        k = int(d.argmin())
        assert d[k] <= 1.5
        # a disc of radius r answers most at sigma r / sqrt(2)
        assert 8 / np.sqrt(2) / 1.5 <= sig[k] <= 8 / np.sqrt(2) * 1.5


def _lattice_to_photo(corners: np.ndarray) -> np.ndarray:
    """Lattice coordinates (the spots at 0..4) -> photo pixels, for the face warped onto ``corners``."""
    face_square = np.float32([[0, 0], [FACE, 0], [FACE, FACE], [0, FACE]])
    to_photo = cv2.getPerspectiveTransform(face_square, corners.astype(np.float32)).astype(np.float64)
    to_face = np.array([[PITCH, 0.0, 40 + PITCH / 2], [0.0, PITCH, 40 + PITCH / 2], [0.0, 0.0, 1.0]])
    return to_photo @ to_face


@pytest.mark.parametrize("off", [(1, 0), (0, -1), (-1, 1)])
def test_a_lattice_off_the_board_is_ranked_after_the_board(rng: np.random.Generator,
                                                            off: tuple[int, int]) -> None:
    from vision.board.lattice import _shift_order

    image = _photo(rng, TRUE, table_grey=150)
    gray = cv2.GaussianBlur(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32), (0, 0), 1.0)
    grads = cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3)
    hom = _lattice_to_photo(TRUE)
    # the window found one row or column off: shifting it back by -off puts it on the board
    moved = hom @ np.array([[1.0, 0.0, off[0]], [0.0, 1.0, off[1]], [0.0, 0.0, 1.0]])
    order = _shift_order(grads, moved, default_config())
    assert sorted(order) == sorted((di, dj) for di in (-1, 0, 1) for dj in (-1, 0, 1))
    assert order[0] == (-off[0], -off[1])
    assert _shift_order(grads, hom, default_config())[0] == (0, 0)


def test_hypotheses_are_distinct_lattices(rng: np.random.Generator) -> None:
    from vision.board.lattice import _GRID, _blobs, _hypotheses, _same_places

    cfg = default_config()
    image = _photo(rng, SMALL, table_grey=150)
    pts, sig = _blobs(image, cfg)
    hyps = _hypotheses(pts, sig, cfg)
    assert hyps
    places = [cv2.perspectiveTransform(_GRID.reshape(-1, 1, 2), h).reshape(25, 2) for _, h in hyps]
    pitch = float(np.linalg.norm(SMALL[1] - SMALL[0])) / FACE * PITCH
    # many triples of blobs span the board's lattice: it is offered once
    for i, a in enumerate(places):
        for b in places[i + 1:]:
            assert not _same_places(a, b, cfg.lattice_residual * pitch)
    truth = cv2.perspectiveTransform(
        (np.array([[40 + (x + 0.5) * PITCH, 40 + (y + 0.5) * PITCH] for x, y in _GRID])).reshape(-1, 1, 2),
        cv2.getPerspectiveTransform(np.float32([[0, 0], [FACE, 0], [FACE, FACE], [0, FACE]]),
                                    SMALL.astype(np.float32))).reshape(25, 2)
    assert sum(_same_places(p, truth, 0.2 * pitch) for p in places) == 1


def test_same_places_ignores_order_and_tells_a_shift() -> None:
    from vision.board.lattice import _GRID, _same_places

    a = _GRID * 30.0 + 100.0
    assert _same_places(a, a[::-1].copy(), 3.0)
    assert not _same_places(a, a + np.array([30.0, 0.0]), 3.0)


def _crowded(rng: np.random.Generator, distractors: int) -> np.ndarray:
    """A board of faint spots (no outline) on a table strewn with dark discs, which make most of
    the strongest blobs of the photo."""
    face = np.full((FACE, FACE, 3), 150, np.uint8)
    for r in range(5):
        for c in range(5):
            colour = tuple(int(v) for v in 150 + rng.choice([-1, 1]) * rng.integers(25, 35, 3))
            centre = (round(40 + (c + 0.5) * PITCH), round(40 + (r + 0.5) * PITCH))
            cv2.circle(face, centre, round(RADIUS), colour, -1, cv2.LINE_AA)
    table = np.full((480, 640, 3), 150, np.uint8)
    placed = 0
    while placed < distractors:
        x, y = int(rng.integers(8, 632)), int(rng.integers(8, 472))
        if 170 < x < 470 and 100 < y < 400:
            continue
        colour = tuple(int(v) for v in rng.integers(0, 60, 3))
        cv2.circle(table, (x, y), int(rng.integers(4, 10)), colour, -1, cv2.LINE_AA)
        placed += 1
    square = np.float32([[0, 0], [FACE, 0], [FACE, FACE], [0, FACE]])
    hom = cv2.getPerspectiveTransform(square, SMALL.astype(np.float32))
    return cv2.warpPerspective(face, hom, (640, 480), dst=table, borderMode=cv2.BORDER_TRANSPARENT)


def test_ranked_blobs_within_a_rank_are_what_that_limit_keeps(rng: np.random.Generator) -> None:
    from vision.board.lattice import _ranked_blobs

    cfg = default_config()
    small = cv2.resize(_crowded(rng, 60), (480, 360), interpolation=cv2.INTER_AREA)
    pts, sig, rank = _ranked_blobs(small, cfg, 300)
    assert (rank >= 150).any()
    few_pts, few_sig, few_rank = _ranked_blobs(small, cfg, 150)
    first = rank < 150
    np.testing.assert_array_equal(pts[first], few_pts)
    np.testing.assert_array_equal(sig[first], few_sig)
    np.testing.assert_array_equal(rank[first], few_rank)


def test_a_board_crowded_out_of_the_strongest_blobs_is_found_by_the_wider_search(
        rng: np.random.Generator) -> None:
    import dataclasses

    cfg = default_config()
    image = _crowded(rng, 60)
    # the strongest blobs hold too few of the board's spots
    narrow = dataclasses.replace(cfg, lattice_wide_blobs=cfg.lattice_max_blobs)
    assert find_lattice_candidates(image, narrow) == []
    cands = find_lattice_candidates(image, cfg)
    assert cands
    pitch = float(np.linalg.norm(SMALL[1] - SMALL[0])) / FACE * PITCH
    assert np.linalg.norm(cands[0].mean(axis=0) - SMALL.mean(axis=0)) < 0.2 * pitch


def test_the_wider_search_takes_no_weak_lattice(rng: np.random.Generator) -> None:
    import dataclasses

    cfg = default_config()
    image = _crowded(rng, 60)
    # a wider search that asks for more spots than a lattice holds keeps the strongest blobs' answer
    strict = dataclasses.replace(cfg, lattice_wide_min_spots=26)
    assert find_lattice_candidates(image, strict) == []
    # a table strewn with discs and no board gives nothing either way
    table = np.full((480, 640, 3), 150, np.uint8)
    for _ in range(250):
        centre = (int(rng.integers(8, 632)), int(rng.integers(8, 472)))
        cv2.circle(table, centre, int(rng.integers(4, 10)), tuple(int(v) for v in rng.integers(0, 60, 3)), -1,
                   cv2.LINE_AA)
    assert find_lattice_candidates(table, cfg) == []
