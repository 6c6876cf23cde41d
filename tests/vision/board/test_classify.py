"""Per-spot classification, in particular white vs pearl and gold vs a yellow cast."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision.board import default_config, default_model
from vision.board.classify import board_glare, classify, split_light_tokens
from vision.board.learn import TokenModel
from vision.board.spots import Grid, SpotSamples, fit_grid, sample_spots, spot_features
from vision.synth.board import render_board_face
from vision.synth.camera import cast_config

# both pearls next to whites, gold next to empty spots, every other kind present
LAYOUT = ("WPW.Y", "P.WYU", "GRKWY", "UG.RK", "RUGK.")
FaceRect = Callable[..., tuple[np.ndarray, Grid]]  # the face_rect fixture (conftest)
CASTS = [tuple(g) for g in cast_config().gains]


def _light_kinds() -> tuple[TokenModel, np.ndarray, int, int]:
    """The default token model, its kinds' mean log colours (kinds, 3) float64, and the indices of
    white and pearl among its kinds."""
    model = default_model()
    return model, np.asarray(model.means, np.float64), model.kinds.index("W"), model.kinds.index("P")


def _read_face(face_img: np.ndarray, cast: tuple[float, float, float],
               brightness: float = 1.0) -> tuple[str, ...]:
    cfg = default_config()
    lit = np.clip(face_img.astype(np.float32) * np.asarray(cast, np.float32) * brightness, 0, 255)
    rect = cv2.resize(lit.astype(np.uint8), (cfg.rect_size, cfg.rect_size), interpolation=cv2.INTER_AREA)
    samples = sample_spots(rect, fit_grid(rect, cfg), cfg)
    return classify(samples, default_model(), cfg).cells


@pytest.mark.parametrize("style", ["night", "parchment", "wood"])
@pytest.mark.parametrize("cast", CASTS)
def test_white_pearl_gold_and_empty_under_strong_casts(style: str, cast: tuple[float, float, float]) -> None:
    face = render_board_face(LAYOUT, style, np.random.default_rng(11))
    assert _read_face(face.image, cast, 0.8) == LAYOUT


def test_white_alone_under_a_pink_cast_stays_white() -> None:
    layout = ("W.W.W", ".UGR.", "K.Y.G", ".RUK.", "W....")
    face = render_board_face(layout, "night", np.random.default_rng(12))
    assert _read_face(face.image, (1.06, 0.92, 1.08), 0.85) == layout


def test_gold_under_a_warm_lamp_on_a_light_board() -> None:
    layout = ("Y...W", ".Y.W.", "..Y..", ".U.G.", "R...K")
    face = render_board_face(layout, "parchment", np.random.default_rng(13))
    assert _read_face(face.image, (0.55, 0.85, 1.15), 0.9) == layout


def test_confidence_is_in_unit_range() -> None:
    cfg = default_config()
    face = render_board_face(LAYOUT, "wood", np.random.default_rng(14))
    rect = cv2.resize(face.image, (cfg.rect_size, cfg.rect_size), interpolation=cv2.INTER_AREA)
    result = classify(sample_spots(rect, fit_grid(rect, cfg), cfg), default_model(), cfg)
    assert result.confidence.shape == (5, 5)
    assert result.confidence.min() >= 0.0 and result.confidence.max() <= 1.0
    assert result.confidence.mean() > 0.3


def test_supply_assignment_moves_a_fifth_white_to_its_next_kind() -> None:
    from vision.board.classify import assign_with_supply

    # six light spots, all nearest to white; the game has 4 whites and 2 pearls
    d = np.array([[0.05, 0.30], [0.06, 0.31], [0.07, 0.30], [0.05, 0.29], [0.10, 0.12], [0.09, 0.13]])
    kinds = assign_with_supply(d, np.array([4.0, 2.0]))
    assert list(kinds) == [0, 0, 0, 0, 1, 1]


def test_supply_assignment_keeps_nearest_kinds_within_supply() -> None:
    from vision.board.classify import assign_with_supply

    rng = np.random.default_rng(7)
    d = rng.uniform(0.0, 1.0, (5, 7))
    assert list(assign_with_supply(d, np.full(7, 5.0))) == list(d.argmin(axis=1))
    few = np.array([1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    assert list(assign_with_supply(d, few)) == list(d.argmin(axis=1))  # more spots than slots
    assert assign_with_supply(np.zeros((0, 7)), np.full(7, 3.0)).shape == (0,)


@pytest.mark.parametrize("style", ["night", "parchment", "wood"])
def test_a_finger_over_a_token_edge_makes_it_unknown(style: str, face_rect: FaceRect) -> None:
    import dataclasses

    cfg = default_config()
    rect, grid = face_rect(LAYOUT, style, 15)
    # a finger (skin, as wide as a third of a token) across the outer part of the red token at (2, 1)
    x, y = grid.centres[2, 1]
    r = grid.radius
    width = round(0.7 * r)
    edge = round(float(y) + 0.8 * r)
    cv2.line(rect, (int(x - 0.6 * r), edge), (int(x + 0.6 * r), edge), (95, 125, 180), width, cv2.LINE_AA)
    samples = sample_spots(rect, grid, cfg)
    cells = classify(samples, default_model(), cfg).cells
    assert cells[2][1] == "?"
    assert cells[:2] + cells[3:] == LAYOUT[:2] + LAYOUT[3:]
    # without the ring test the covered token is guessed
    off = dataclasses.replace(cfg, rim_enabled=False)
    assert classify(samples, default_model(), off).cells[2][1] == "R"


def test_white_and_pearl_are_split_by_their_tints_relative_to_each_other() -> None:
    model, means, iw, ip = _light_kinds()
    # the light left a residual pinkish tint of 0.45 of the white-to-pearl step on every token:
    # one white and two pearls, all read as white so far
    step = means[ip] - means[iw]
    x = np.array([means[iw] + 0.45 * step, means[iw] + 1.45 * step, means[iw] + 1.35 * step])
    best = np.array([iw, iw, iw])
    out = split_light_tokens(x, best, np.ones(3, bool), model, np.zeros(3), 1.0)
    assert list(out) == [iw, ip, ip]
    # six light tokens: exactly 4 whites and 2 pearls, the two most tinted being pearls
    tints = np.array([0.1, 0.9, 0.2, 0.0, 0.6, 0.3])
    x6 = means[iw] + tints[:, None] * step
    out6 = split_light_tokens(x6, np.full(6, ip), np.ones(6, bool), model, np.zeros(3), 1.0)
    assert list(out6) == [iw, ip, iw, iw, ip, iw]


def test_an_enrolled_model_keeps_the_light_it_was_learnt_under() -> None:
    import dataclasses

    from vision.board.config import default_learn_config
    from vision.board.learn import default_layout, model_from_features
    from vision.board.spots import chroma, spot_features

    cfg = default_config()
    lcfg = default_learn_config()
    cast = (1.2, 0.95, 0.75)

    def samples_of(layout: tuple[str, ...], seed: int, brightness: float) -> SpotSamples:
        face = render_board_face(layout, "wood", np.random.default_rng(seed))
        lit = np.clip(face.image.astype(np.float32) * np.asarray(cast, np.float32) * brightness, 0, 255)
        rect = cv2.resize(lit.astype(np.uint8), (cfg.rect_size, cfg.rect_size), interpolation=cv2.INTER_AREA)
        return sample_spots(rect, fit_grid(rect, cfg), cfg)

    enrol = default_layout()
    f = spot_features(samples_of(enrol, 21, 0.85), cfg)
    model = model_from_features(enrol, f["x"], f["e"], lcfg.spread_floor, lcfg.min_spots)
    # a board of mostly light tokens: a light's chroma fitted to them could absorb a pearl's tint
    layout = ("WPW.Y", "W.P.U", "GR.WY", "U..RK", "R.G.K")
    samples = samples_of(layout, 22, 0.75)
    result = classify(samples, model, cfg)
    assert result.cells == layout
    # only the brightness of the enrolment light may change
    assert np.abs(chroma(result.shift)).max() < 1e-12
    free = classify(samples, model, dataclasses.replace(cfg, calibrated_neutral_light=False))
    assert np.abs(chroma(free.shift)).max() > 1e-6


def test_missing_rings_need_a_group_reaching_in_from_the_border() -> None:
    from vision.board.classify import missing_rings

    cfg = default_config()
    rng = np.random.default_rng(21)
    ring = rng.uniform(0.8, 1.2, (5, 5))
    ring[2, 2] = 0.01  # one edgeless spot inside: blur or glare, not a hand
    ring[0, 4] = 0.02  # a lone edgeless spot on the border
    ring[3:, 0] = 0.0  # an arm over two spots at the left edge
    out = missing_rings(ring, cfg)
    want = np.zeros((5, 5), bool)
    want[3:, 0] = True
    assert (out == want).all()
    # an interior group touching no border is not a hand either
    ring2 = rng.uniform(0.8, 1.2, (5, 5))
    ring2[1:4, 2] = 0.0
    assert not missing_rings(ring2, cfg).any()



def test_a_light_token_with_one_clipped_channel_is_told_by_the_other_two() -> None:
    cfg = default_config()
    model, means, iw, ip = _light_kinds()
    # red clipped on both: a pearl keeps its lower green against blue, a white does not
    x = np.stack([means[ip], means[iw]]) + 0.05
    x[:, 2] = max(means[iw, 2], means[ip, 2]) - 0.2  # the clipped channel tells nothing
    sat = np.array([[False, False, True], [False, False, True]])

    def split(xs: np.ndarray, best: np.ndarray, clipped: np.ndarray) -> list[int]:
        return split_light_tokens(xs, best, np.ones(len(xs), bool), model, np.zeros(3), 1.0, sat=clipped,
                                  ratio_min=cfg.clip_ratio_min).tolist()

    # read the wrong way round so far
    assert split(x, np.array([iw, ip]), sat) == [ip, iw]
    # judged on all three channels, the clipped red hides the pearl
    assert split(x, np.array([iw, ip]), np.zeros((2, 3), bool)) != [ip, iw]
    # with both pearls clearly seen elsewhere, the pearl-like clipped spot is a white
    x4 = np.vstack([x, means[ip], means[ip]])
    sat4 = np.vstack([sat, np.zeros((2, 3), bool)])
    assert split(x4, np.array([iw, iw, iw, iw]), sat4) == [iw, iw, ip, ip]


def test_light_tints_weigh_what_the_unclipped_channels_tell() -> None:
    from vision.board.classify import light_tints

    model, means, iw, ip = _light_kinds()
    x = np.stack([means[iw], means[ip], means[ip], means[ip]])
    sat = np.array([[False] * 3, [False] * 3, [False, False, True], [True, False, True]])
    t, w = light_tints(x, sat, model, np.zeros(3), 0.04)
    assert t[:3] == pytest.approx([0.0, 1.0, 1.0])
    assert w[0] == w[1] == 1.0 and 0.0 < w[2] < 1.0 and w[3] == 0.0
    # a ratio in which the two kinds barely differ tells nothing
    _, w_blind = light_tints(x, sat, model, np.zeros(3), 1.0)
    assert w_blind[2] == 0.0


def test_a_light_token_clipped_in_two_channels_is_unknown_unless_the_supply_decides() -> None:
    from vision.board.classify import _clipped_light

    cfg = default_config()
    model = default_model()
    iw, ip = model.kinds.index("W"), model.kinds.index("P")
    # both fit alike: white and pearl cannot be told apart
    d = np.full((3, len(model.kinds)), 1.0)
    d[:, iw] = d[:, ip] = 0.1
    sat = np.array([[True, True, True], [False, False, False], [False, False, False]])
    best = np.array([iw, iw, iw])
    assert _clipped_light(d, best, sat, model, cfg).tolist() == [True, False, False]
    # both pearls are read clearly elsewhere: the clipped light token is a white
    assert not _clipped_light(d, np.array([iw, ip, ip]), sat, model, cfg).any()
    # one clipped channel still leaves two to tell them by
    sat1 = np.array([[False, False, True], [False, False, False], [False, False, False]])
    assert not _clipped_light(d, best, sat1, model, cfg).any()


@pytest.mark.parametrize("style", ["night", "parchment", "wood"])
def test_a_hand_darkened_by_the_profiles_headroom_is_still_a_hand(style: str, face_rect: FaceRect) -> None:
    import dataclasses

    cfg = default_config()
    rect, grid = face_rect(LAYOUT, style, 16)
    # a fingertip (skin) over the whole red token at (2, 1), under a warm lamp
    x, y = grid.centres[2, 1]
    cv2.circle(rect, (int(x), int(y)), int(1.3 * grid.radius), (95, 125, 180), -1, cv2.LINE_AA)
    cast = np.array([0.42, 0.77, 1.2])
    lit = np.clip(rect.astype(np.float32) * cast * 0.7, 0, 255)
    # the profile's correction with headroom: the lamp undone, no gain above 1 (the image darkens)
    gains = (1.0 / cast) / (1.0 / cast).max()
    prepared = np.clip(np.round(lit * gains), 0, 255).astype(np.uint8)
    samples = sample_spots(prepared, grid, cfg)
    model = dataclasses.replace(default_model(), gains=tuple(float(g) for g in gains))
    want = (*LAYOUT[:2], "G?KWY", *LAYOUT[3:])
    assert classify(samples, model, cfg).cells == want
    if style != "night":
        # judged by the darkened image's own brightness, the skin is taken for the board
        assert classify(samples, default_model(), cfg).cells[2][1] == "."


def _fingers(rect: np.ndarray, grid: Grid, from_edge: bool) -> np.ndarray:
    """Two skin strokes along rows 1 and 2 to the centres of column 1, from the board's left
    edge or starting just left of column 0."""
    out = rect.copy()
    for row in (1, 2):
        y = int(grid.centres[row, 0, 1])
        x0 = 0 if from_edge else int(grid.centres[row, 0, 0] - 0.3 * grid.pitch)
        x1 = int(grid.centres[row, 1, 0])
        cv2.line(out, (x0, y), (x1, y), (110, 140, 200), int(0.9 * grid.radius), cv2.LINE_AA)
    return out


@pytest.mark.parametrize("style", ["night", "parchment", "wood"])
def test_a_hand_reaching_in_from_the_edge_makes_the_spots_it_covers_unknown(
        style: str, face_rect: FaceRect) -> None:
    import dataclasses

    from vision.board.classify import hand_cover

    cfg = default_config()
    model = default_model()
    rect, grid = face_rect(LAYOUT, style, 17)
    samples = sample_spots(_fingers(rect, grid, True), grid, cfg)
    want = (LAYOUT[0], "??WYU", "??KWY", *LAYOUT[3:])
    assert classify(samples, model, cfg).cells == want
    # the red token at (2, 1), a third under the finger tip, is guessed without the hand's region
    assert classify(samples, model, dataclasses.replace(cfg, hand_cover_min=1.1)).cells[2][1] == "R"
    eps, white = model.channel_eps(cfg.eps), np.asarray(model.means[0])
    cover = hand_cover(samples, eps, white, model, cfg)
    assert cover[2, 1] >= cfg.hand_cover_min and cover[3:].max() == 0.0 and cover[:, 2:].max() == 0.0
    # the same skin strokes inside the board, not reaching in from its edge, are no hand region
    inside = sample_spots(_fingers(rect, grid, False), grid, cfg)
    assert hand_cover(inside, eps, white, model, cfg).max() == 0.0


@pytest.mark.parametrize("style", ["night", "parchment", "wood"])
def test_a_glow_over_the_board_around_a_spot_leaves_the_spot_readable(style: str) -> None:
    import dataclasses

    from vision.board.spots import spot_features

    cfg = default_config()
    face = render_board_face(LAYOUT, style, np.random.default_rng(18))
    rect = cv2.resize(face.image, (cfg.rect_size, cfg.rect_size), interpolation=cv2.INTER_AREA)
    samples = sample_spots(rect, fit_grid(rect, cfg), cfg)
    # the board patches round the token at (2, 2) change hue (a coloured reflection or highlight
    # over the board beside it): they look shifted, as they would under a hand
    bg = samples.background.copy()
    bg[2, 2] = np.clip(bg[2, 2] * np.array([2.0, 1.0, 0.5]), 0.0, 1.0)
    glow = dataclasses.replace(samples, background=bg)
    assert (spot_features(glow, cfg)["bg_dev"][2, 2] > cfg.background_shift_max).sum() >= 2
    # the spot keeps its circular edge: it is read, not taken for covered
    assert classify(glow, default_model(), cfg).cells[2][2] == LAYOUT[2][2]
    # without its edge, the same spot is covered
    assert samples.ring is not None
    ring = samples.ring.copy()
    ring[2, 2] = 0.0
    hidden = dataclasses.replace(glow, ring=ring)
    assert classify(hidden, default_model(), cfg).cells[2][2] == "?"


def test_a_clipped_pearl_is_judged_against_the_light_the_clear_whites_show() -> None:
    cfg = default_config()
    model, means, iw, ip = _light_kinds()
    v = (means[ip] - means[ip].mean()) - (means[iw] - means[iw].mean())
    # the light's estimate is off by a tint ``d`` that leaves the clear whites' white-to-pearl
    # tint at zero but moves the blue/green ratio by a full white-to-pearl step
    rows = np.array([[1.0, 1.0, 1.0], v, [1.0, -1.0, 0.0]])
    d = np.linalg.solve(rows, np.array([0.0, 0.0, -(v[0] - v[1])]))
    x = np.stack([means[iw] + d, means[iw] + d, means[ip] + d])
    x[2, 2] -= 0.3  # the pearl's red is clipped
    sat = np.zeros((3, 3), bool)
    sat[2, 2] = True
    got = split_light_tokens(x, np.array([iw, iw, iw]), np.ones(3, bool), model, np.zeros(3), cfg.light_prior,
                             sat=sat, ratio_min=cfg.clip_ratio_min)
    # by its blue/green ratio alone the pearl looks white; against the ratio the whites show, it is
    # a step pinker than they are
    assert got.tolist() == [iw, iw, ip]
    # with nothing clipped, the same spots are read by their full chroma
    x_clear = np.stack([means[iw] + d, means[iw] + d, means[ip] + d])
    clear = split_light_tokens(x_clear, np.array([iw, iw, iw]), np.ones(3, bool), model, np.zeros(3),
                               cfg.light_prior, sat=np.zeros((3, 3), bool))
    assert clear.tolist() == [iw, iw, ip]
    # a model enrolled under this light fits the residual tint along the white-to-pearl step only
    along = split_light_tokens(x, np.array([iw, iw, iw]), np.ones(3, bool), model, np.zeros(3),
                               cfg.light_prior, sat=sat, ratio_min=cfg.clip_ratio_min, common_tint=False)
    assert along.tolist() == [iw, iw, iw]


@pytest.mark.parametrize("style", ["night", "parchment", "wood"])
def test_a_skin_coloured_region_the_spots_show_through_is_no_hand(style: str, face_rect: FaceRect) -> None:
    import dataclasses

    from vision.board.classify import hand_cover

    cfg = default_config()
    model = default_model()
    rect, grid = face_rect(LAYOUT, style, 17)
    samples = sample_spots(_fingers(rect, grid, True), grid, cfg)
    eps, white = model.channel_eps(cfg.eps), np.asarray(model.means[0])
    assert samples.board_map is not None and samples.map_discs is not None
    under = hand_cover(samples, eps, white, model, cfg) >= cfg.hand_cover_min
    assert under.any()
    # the same skin-coloured region, but the spots under it stay lighter than the board between
    # them (a warm glow over the board, not a hand hiding it)
    shape = samples.board_map.shape[:2]
    spots = samples.map_discs[under.ravel()].any(axis=0).reshape(shape)
    glow = samples.board_map.copy()
    glow[spots] = np.minimum(glow[spots] * 1.25, 1.0)
    seen = dataclasses.replace(samples, board_map=glow)
    assert hand_cover(seen, eps, white, model, cfg).max() == 0.0
    # ... unless they differ from it by no more than the configured contrast
    loose = dataclasses.replace(cfg, hand_board_contrast=0.5)
    assert (hand_cover(seen, eps, white, model, loose) >= cfg.hand_cover_min).any()


def test_a_clipped_channel_is_read_from_the_spots_less_lit_part() -> None:
    from vision.board.classify import _unclip

    cfg = default_config()
    model = default_model()
    eps = model.channel_eps(cfg.eps)
    pearl = np.array([0.85, 0.75, 0.95])
    # spot 0: blue and red clipped, its shade clear; spot 1: red clipped, shade clear;
    # spot 2: the shade is clipped too; spot 3: nothing clipped
    inner = np.array([[0.99, 0.88, 0.99], [0.9, 0.8, 0.99], [0.99, 0.99, 0.99], [0.5, 0.4, 0.45]])
    shade = np.array([pearl * 0.8, pearl * 0.8, [0.98, 0.97, 0.99], [0.4, 0.3, 0.35]])
    x = np.log(inner + eps)
    sat = model.clipped(inner, cfg.saturation, cfg.clip_feed)
    assert sat.tolist() == [[True, False, True], [False, False, True], [True, True, True], [False] * 3]
    got, got_sat = _unclip(x, sat, shade, eps, model, cfg)
    ls = np.log(shade + eps)
    # the clipped channels follow the shade's ratios to the clear channel(s), never below the clip
    assert np.allclose(got[0] - got[0, 1], ls[0] - ls[0, 1])
    assert np.allclose(got[1, :2], x[1, :2])
    assert got[1, 2] >= x[1, 2]
    assert got[1, 2] == pytest.approx(x[1, :2].mean() + ls[1, 2] - ls[1, :2].mean())
    assert not got_sat[:2].any()
    # a shade as clipped as the spot, and a clear spot, are left alone
    assert np.array_equal(got[2:], x[2:]) and got_sat[2].all() and not got_sat[3].any()
    # nothing changes in place
    assert np.array_equal(sat, model.clipped(inner, cfg.saturation, cfg.clip_feed))


@pytest.mark.parametrize(("style", "cast", "brightness"), [
    ("wood", (1.0, 1.0, 1.0), 1.3),
    ("night", (1.1, 0.8, 1.1), 1.2),
    ("wood", (1.15, 0.9, 0.9), 1.2),
])
def test_overexposed_light_tokens_are_read_by_their_less_lit_parts(
        style: str, cast: tuple[float, float, float], brightness: float) -> None:
    # the light tokens' faces clip one or two channels; their curved edges do not
    face = render_board_face(LAYOUT, style, np.random.default_rng(11))
    assert _read_face(face.image, cast, brightness) == LAYOUT


def test_a_token_paled_by_glare_fits_its_kind_once_paled_as_much_as_it_is_lifted() -> None:
    from vision.board.classify import _distances

    cfg = default_config()
    model = default_model()
    means = np.asarray(model.means)
    kinds = "".join(model.kinds)
    limit = cfg.reject_distance
    # blue and gold tokens with white light as bright as they are added
    spots = []
    for k in "UY":
        lin = np.exp(means[kinds.index(k)])
        spots.append(np.log(lin + lin.mean()))
    x = np.stack(spots)
    plain = _distances(x, means, np.zeros(3), cfg)
    paled = _distances(x, means, np.zeros(3), cfg, glare=True)
    for i, k in enumerate("UY"):
        j = kinds.index(k)
        # too pale for its kind as printed, but it still is its own kind's hue
        assert plain[i].argmin() == j and plain[i, j] > limit
        assert paled[i].argmin() == j and paled[i, j] <= limit
    # a spot as pale but no brighter than blue gets no allowance for blue
    iu = kinds.index("U")
    pale = (means[iu].mean() + 0.2 * (means[iu] - means[iu].mean()))[None]
    assert _distances(pale, means, np.zeros(3), cfg, glare=True)[0, iu] == pytest.approx(
        _distances(pale, means, np.zeros(3), cfg)[0, iu])
    assert _distances(pale, means, np.zeros(3), cfg)[0, iu] > limit


def _glared(style: str, spot: tuple[float, float], amount: float,
            width: float = 0.45) -> tuple[np.ndarray, Grid]:
    """LAYOUT in ``style`` at 0.8 of full light, with a round glare (white light ``amount`` of full
    scale at its peak, ``width`` pitches wide) centred on ``spot`` (row, column; fractions lie
    between spots)."""
    cfg = default_config()
    face = render_board_face(LAYOUT, style, np.random.default_rng(11))
    rect = cv2.resize(face.image, (cfg.rect_size, cfg.rect_size), interpolation=cv2.INTER_AREA)
    plain = fit_grid(rect, cfg)
    cy = plain.centres[0, 0, 1] + spot[0] * (plain.centres[1, 0, 1] - plain.centres[0, 0, 1])
    cx = plain.centres[0, 0, 0] + spot[1] * (plain.centres[0, 1, 0] - plain.centres[0, 0, 0])
    yy, xx = np.mgrid[0:cfg.rect_size, 0:cfg.rect_size]
    blob = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * (width * plain.pitch) ** 2))
    lit = np.clip(rect.astype(np.float32) * 0.8 + 255.0 * amount * blob[..., None], 0, 255).astype(np.uint8)
    return lit, fit_grid(lit, cfg)


@pytest.mark.parametrize("spot", [(1, 1), (3, 2), (0, 3)])
@pytest.mark.parametrize("amount", [0.3, 0.45])
def test_an_empty_place_on_a_dark_board_under_a_glare_is_empty(spot: tuple[int, int], amount: float) -> None:
    cfg = default_config()
    rect, grid = _glared("night", spot, amount)
    # the glare pales the dark print towards grey: it is the print plus white light, no black token
    assert classify(sample_spots(rect, grid, cfg), default_model(), cfg).cells == LAYOUT


@pytest.mark.parametrize("amount", [0.2, 0.45, 0.6])
def test_a_black_token_under_a_glare_is_no_empty_place(amount: float) -> None:
    cfg = default_config()
    rect, grid = _glared("night", (2, 2), amount)
    assert classify(sample_spots(rect, grid, cfg), default_model(), cfg).cells[2][2] in "K?"


def test_a_glared_empty_place_is_the_boards_print_plus_white_light_and_nothing_else() -> None:
    import dataclasses

    from vision.board.classify import glared_empty

    cfg = default_config()
    rect, grid = _glared("night", (1, 1), 0.45)
    samples = sample_spots(rect, grid, cfg)
    assert samples.ring is not None
    model = default_model()
    eps = model.channel_eps(cfg.eps)
    shift = classify(samples, model, cfg).shift
    light = np.exp(shift + np.asarray(model.means)[model.kinds.index("W")])
    kinds = np.full((25, 3), np.nan)
    # the board's clear empty places: their print against the board, and their circular edge
    clear = [(0, 3), (3, 2), (4, 4)]
    e = spot_features(samples, cfg, eps)["e"]
    print_log = np.median([e[p] for p in clear], axis=0)
    edge = float(np.median([samples.ring[p] for p in clear]))
    glared, residual = glared_empty(samples, eps, print_log, edge, light, kinds, cfg)
    assert glared[6] and residual[6] <= cfg.glare_empty_residual
    assert glared.sum() == 1  # tokens and clear empty places are not print plus white light
    # the light-coloured half of the fit alone is no print seen through a glare
    drowned = dataclasses.replace(cfg, glare_empty_print=1.0)
    assert not glared_empty(samples, eps, print_log, edge, light, kinds, drowned)[0].any()
    # a spot with a token's rim is no empty place, whatever its colour
    assert not glared_empty(samples, eps, print_log, samples.ring[1, 1] / (2 * cfg.glare_empty_ring),
                            light, kinds, cfg)[0].any()
    # a grey board: its print plus white light is grey, like a white or black token under a glare
    grey = samples.background.mean(-1, keepdims=True).repeat(3, -1)
    greyed = dataclasses.replace(samples, background=grey)
    assert not glared_empty(greyed, eps, np.zeros(3), edge, light, kinds, cfg)[0].any()
    # a kind that, plus white light, explains the spot as well is no reason to call it empty
    close = kinds.copy()
    close[6] = samples.inner[1, 1]
    assert not glared_empty(samples, eps, print_log, edge, light, close, cfg)[0][6]


def test_white_mix_finds_the_colour_and_the_white_light_added_to_it() -> None:
    from vision.board.spots import white_mix

    base = np.array([[0.2, 0.1, 0.05], [0.3, 0.3, 0.3], [0.1, 0.4, 0.2]])
    target = np.array([0.8, 1.5, 0.5])[:, None] * base + np.array([0.3, 0.0, 0.2])[:, None]
    a, b, cost = white_mix(target, base)
    assert cost == pytest.approx(0.0, abs=1e-9)
    assert (a[0], b[0], a[2], b[2]) == pytest.approx((0.8, 0.3, 0.5, 0.2))
    # a grey base and white light are one direction: the fit explains it either way
    assert a[1] * 0.3 + b[1] == pytest.approx(0.45)
    # no negative light: a colour darker than the base in one channel is explained by the base
    # scaled down, not by white light taken away
    a, b, _ = white_mix(np.array([[0.2, 0.05, 0.05]]), np.array([[0.2, 0.1, 0.05]]))
    assert a[0] >= 0.0 and b[0] >= 0.0
    # a clipped channel only has to be reached: the true value is at least what it shows
    clip = np.array([[False, False, True]])
    base = np.array([[0.4, 0.2, 0.1]])
    assert white_mix(np.array([[0.4, 0.2, 0.05]]), base, clip)[2][0] == pytest.approx(0.0, abs=1e-9)
    assert white_mix(np.array([[0.4, 0.2, 0.05]]), base)[2][0] > 0.04


@pytest.mark.parametrize("spot", [(0, 0), (1, 2), (2, 0), (0, 4)])
def test_a_token_under_a_glare_on_a_dark_board_is_no_empty_place(spot: tuple[int, int]) -> None:
    cfg = default_config()
    for amount in (0.3, 0.6):
        rect, grid = _glared("night", spot, amount)
        # a white token is mostly white light under a glare: no print shows through it
        assert classify(sample_spots(rect, grid, cfg), default_model(), cfg).cells[spot[0]][spot[1]] == \
            LAYOUT[spot[0]][spot[1]]


@pytest.mark.parametrize("cast", [(1.0, 1.0, 1.0), *CASTS])
@pytest.mark.parametrize("brightness", [0.8, 1.0])
def test_a_light_token_on_a_light_board_without_empty_places_is_read_as_its_kind(
        cast: tuple[float, float, float], brightness: float) -> None:
    # a pearl on a light board looks nearly like the board's print; no other empty place shows
    # what the board's empty places look like, so the pearl's own kind must win when it fits better
    layout = ("GGWWK", "RWGRP", "YUKWK", "KRPRY", "UUGYU")
    face = render_board_face(layout, "parchment", np.random.default_rng(3))
    assert _read_face(face.image, cast, brightness) == layout


@pytest.mark.parametrize("style", ["parchment", "wood"])
def test_a_hand_in_the_boards_own_colour_over_empty_places_makes_them_unknown(
        style: str, face_rect: FaceRect) -> None:
    import dataclasses

    cfg = default_config()
    layout = ("WPW.Y", ".YWRU", ".RKWY", "UG.RK", "RUGK.")
    rect, grid = face_rect(layout, style, 19)
    # a hand of the board's own colour reaching in over the left edge covers the empty places at
    # (1, 0) and (2, 0); their printed edge shows through it only faintly
    margin = rect[:, : int(grid.centres[0, 0, 0] - 0.5 * grid.pitch)].reshape(-1, 3)
    board = np.median(margin, axis=0)
    x1 = int(grid.centres[1, 0, 0] + 0.5 * grid.pitch)
    y0, y1 = (int(grid.centres[r, 0, 1] + s * 0.5 * grid.pitch) for r, s in ((1, -1), (2, 1)))
    out = rect.astype(np.float64)
    out[y0:y1, :x1] = 0.85 * board + 0.15 * out[y0:y1, :x1]
    samples = sample_spots(np.clip(out, 0, 255).astype(np.uint8), grid, cfg)
    cells = classify(samples, default_model(), cfg).cells
    assert cells == (layout[0], "?YWRU", "?RKWY", *layout[3:])
    # kept as empty places when a trace of the print's edge were enough
    loose = dataclasses.replace(cfg, ring_empty_keep=cfg.ring_missing)
    assert [r[0] for r in classify(samples, default_model(), loose).cells[1:3]] == [".", "."]


@pytest.mark.parametrize("spot", [(1, 1), (0, 3), (4, 4)])
@pytest.mark.parametrize("amount", [0.2, 0.45])
def test_an_empty_place_on_a_wood_board_under_a_glare_is_empty_not_a_hand(
        spot: tuple[int, int], amount: float) -> None:
    import dataclasses

    cfg = default_config()
    rect, grid = _glared("wood", spot, amount)
    samples = sample_spots(rect, grid, cfg)
    # white light pales the wood's print to skin's hue; the print plus white light explains the
    # spot and its printed edge shows, so it is an empty place
    assert classify(samples, default_model(), cfg).cells == LAYOUT
    # ... which the spot's hue alone would call a hand
    hue_only = dataclasses.replace(cfg, glare_hand_edge=float("inf"))
    assert classify(samples, default_model(), hue_only).cells[spot[0]][spot[1]] == "?"


@pytest.mark.parametrize("common_tint", [True, False])
def test_a_clipped_channel_is_a_lower_bound_on_a_light_tokens_tint(common_tint: bool) -> None:
    cfg = default_config()
    model, means, iw, ip = _light_kinds()
    # two clear whites and a light token whose blue and green are a white's but whose red is
    # clipped at a value 0.1 (log) above a white's red under this light
    x = np.stack([means[iw], means[iw] + 0.02, means[iw]])
    x[2, 2] += 0.1
    sat = np.zeros((3, 3), bool)
    sat[2, 2] = True

    def split(xs: np.ndarray) -> list[int]:
        return split_light_tokens(xs, np.array([iw, iw, iw]), np.ones(3, bool), model, np.zeros(3), 1.0,
                                  sat=sat, ratio_min=cfg.clip_ratio_min, common_tint=common_tint).tolist()

    # its red is at least that: more than a white's can be, so it is the pearl
    assert split(x) == [iw, iw, ip]
    # clipped lower than a white's red, the bound says nothing and its other channels call it white
    low = x.copy()
    low[2, 2] -= 0.2
    assert split(low) == [iw, iw, iw]


@pytest.mark.parametrize("common_tint", [True, False])
def test_a_light_token_with_two_clipped_channels_is_judged_by_their_bounds(common_tint: bool) -> None:
    cfg = default_config()
    model, means, iw, ip = _light_kinds()

    def split(lift: float) -> tuple[list[int], list[bool], list[bool]]:
        # two clear whites and a light token whose blue and red are clipped ``lift`` (log) above a
        # white's against its green
        x = np.stack([means[iw], means[iw] + 0.02, means[iw]])
        x[2, [0, 2]] += lift
        sat = np.zeros((3, 3), bool)
        sat[2, [0, 2]] = True
        ties, judged = np.zeros(3, bool), np.zeros(3, bool)
        out = split_light_tokens(x, np.array([iw, iw, iw]), np.ones(3, bool), model, np.zeros(3), 1.0,
                                 tie=cfg.split_tie, ties=ties, sat=sat, ratio_min=cfg.clip_ratio_min,
                                 common_tint=common_tint, judged=judged)
        return out.tolist(), ties.tolist(), judged.tolist()

    # blue and red at least that far above the green: more than a white's can be, a pearl
    assert split(0.12) == ([iw, iw, ip], [False, False, False], [True, True, True])
    # bounds a white meets tell nothing: the spot's label is a tie (unknown), not a guess
    assert split(-0.1)[1] == [False, False, True]


@pytest.mark.parametrize(("amount", "width"), [(0.3, 0.8), (0.45, 0.8)])
def test_a_black_token_under_a_broad_glare_is_read_black(amount: float, width: float) -> None:
    cfg = default_config()
    rect, grid = _glared("parchment", (2, 2), amount, width)
    samples = sample_spots(rect, grid, cfg)
    # the glare lifts the black token past every kind; the white light the board patches round
    # it show, taken away, leaves a black token
    assert classify(samples, default_model(), cfg).cells == LAYOUT
    assert classify(samples, default_model(), replace(cfg, deglare_min=0.0)).cells[2][2] != "K"


@pytest.mark.parametrize(("amount", "width"), [(0.3, 0.6), (0.45, 0.6)])
def test_a_black_token_under_a_narrower_glare_is_black_or_unknown(amount: float, width: float) -> None:
    cfg = default_config()
    rect, grid = _glared("parchment", (2, 2), amount, width)
    # the glare's blob shows on fewer patches: the light taken away is less sure, and a second
    # reading that is no more than a guess leaves the spot unknown
    cells = classify(sample_spots(rect, grid, cfg), default_model(), cfg).cells
    assert cells[2][2] in "K?"
    assert cells[:2] + cells[3:] == LAYOUT[:2] + LAYOUT[3:]
    assert cells[2][:2] + cells[2][3:] == LAYOUT[2][:2] + LAYOUT[2][3:]


@pytest.mark.parametrize("style", ["night", "wood"])
def test_a_small_glare_beside_a_white_token_leaves_it_white(style: str) -> None:
    cfg = default_config()
    # a sharp highlight on the board between four spots: the white token next to it shows none
    rect, grid = _glared(style, (0.5, 0.5), 0.6, 0.3)
    assert classify(sample_spots(rect, grid, cfg), default_model(), cfg).cells == LAYOUT


def test_board_glare_is_a_round_blob_fitted_to_the_patches() -> None:
    cfg = default_config()
    model = default_model()
    eps = model.channel_eps(cfg.eps)
    board = np.array([0.30, 0.20, 0.12])
    light = np.ones(3)
    # the patches sit on the 6x6 lattice between the spots: up-left, up-right, down-right, down-left
    rows = np.arange(5)[:, None, None] + np.array([0, 0, 1, 1])
    cols = np.arange(5)[None, :, None] + np.array([0, 1, 1, 0])
    peak, centre, sigma = 0.4, (2.5, 3.0), 0.6  # on spot (2, 2.5), in spot pitches

    def blob(r: np.ndarray, c: np.ndarray) -> np.ndarray:
        return peak * np.exp(-((r - centre[0]) ** 2 + (c - centre[1]) ** 2) / (2 * sigma ** 2))

    white = blob(rows.astype(float), cols.astype(float))  # (5, 5, 4)
    samples = SpotSamples(inner=np.full((5, 5, 3), 0.5), sectors=np.full((5, 5, 8, 3), 0.5),
                          texture=np.zeros((5, 5)), background=board + white[..., None] * light)
    patches, spots = board_glare(samples, eps, light, cfg)
    np.testing.assert_allclose(patches, white, atol=0.01)
    ci, cj = np.mgrid[0:5, 0:5] + 0.5
    np.testing.assert_allclose(spots, blob(ci, cj), atol=0.02)
    # no glare: none found
    plain = SpotSamples(inner=samples.inner, sectors=samples.sectors, texture=samples.texture,
                        background=np.broadcast_to(board, (5, 5, 4, 3)).copy())
    assert board_glare(plain, eps, light, cfg)[1].max() < 1e-6


def test_faint_empty_places_beside_a_hidden_spot_are_hidden_too() -> None:
    from vision.board.classify import _hidden_beside

    hidden = np.zeros((5, 5), bool)
    hidden[0, 3] = True
    faint = np.zeros((5, 5), bool)
    faint[0, 4] = faint[1, 4] = faint[2, 4] = True  # a chain along the edge from the hidden spot
    faint[4, 0] = True  # a faint empty place far from any hidden spot stays empty
    got = _hidden_beside(hidden.reshape(25), faint.reshape(25)).reshape(5, 5)
    assert {tuple(map(int, rc)) for rc in np.argwhere(got)} == {(0, 4), (1, 4), (2, 4)}
    # diagonal neighbours do not count, and nothing hidden reaches nothing
    diag = np.zeros((5, 5), bool)
    diag[1, 2] = True
    assert not _hidden_beside(hidden.reshape(25), diag.reshape(25)).any()
    assert not _hidden_beside(np.zeros(25, bool), faint.reshape(25)).any()


def test_a_spot_the_glare_left_unknown_takes_the_reading_with_the_glare_taken_away() -> None:
    cfg = default_config()
    rect, grid = _glared("night", (1, 1), 0.6, 0.45)
    samples = sample_spots(rect, grid, cfg)
    # the glare takes the empty place past every kind; with its white light taken away, it is
    # the board's empty print again
    assert classify(samples, default_model(), cfg).cells == LAYOUT
    assert classify(samples, default_model(), replace(cfg, deglare_hand_max=-1.0)).cells[1][1] == "?"


def test_a_light_token_drowned_by_a_glare_is_no_empty_place() -> None:
    cfg = default_config()
    rect, grid = _glared("parchment", (0, 0), 0.8, 0.8)
    samples = sample_spots(rect, grid, cfg)
    # the white token is clipped all over: the light taken away from its clipped channels leaves
    # too little, and that reading (an empty place) is no evidence
    assert classify(samples, default_model(), cfg).cells[0][0] in "W?"


@pytest.mark.parametrize(("seed", "cast"), [(3, (0.85, 1.2, 0.8)), (5, (1.25, 1.0, 0.72))])
def test_a_light_token_the_clear_empty_places_vouch_for_only_loosely_is_read_as_its_kind(
        seed: int, cast: tuple[float, float, float]) -> None:
    # under this cast a light token on the parchment board comes near the board's empty print in
    # colour, but shows much more texture than its clear empty places: it is judged as a token
    face = render_board_face(LAYOUT, "parchment", np.random.default_rng(seed))
    lit = np.clip(face.image.astype(np.float32) * np.asarray(cast, np.float32), 0, 255).astype(np.uint8)
    cfg = default_config()
    rect = cv2.resize(lit, (cfg.rect_size, cfg.rect_size), interpolation=cv2.INTER_AREA)
    samples = sample_spots(rect, fit_grid(rect, cfg), cfg)
    assert classify(samples, default_model(), cfg).cells == LAYOUT
    loose = replace(cfg, empty_doubt_texture=float("inf"))
    misread = [(r, c) for r in range(5) for c in range(5)
               if classify(samples, default_model(), loose).cells[r][c] != LAYOUT[r][c]]
    assert misread and all(LAYOUT[r][c] in "WP" for r, c in misread)


def test_board_glare_puts_no_light_on_spots_whose_patches_show_none() -> None:
    cfg = default_config()
    eps = default_model().channel_eps(cfg.eps)
    board = np.array([0.30, 0.20, 0.12])
    light = np.ones(3)
    white = np.zeros((5, 5, 4))
    # a glare over the patches round spots (3, 1) and (3, 2), and a pale object over the corner
    # patch of spot (0, 0): a blob fitted to both spans the board between them
    white[3, 1, 1] = white[3, 1, 2] = white[3, 2, 0] = white[3, 2, 3] = 0.5
    white[2, 1, 2] = white[2, 2, 3] = white[4, 1, 1] = white[4, 2, 0] = 0.3
    white[0, 0, 0] = white[0, 0, 1] = white[0, 0, 3] = 0.2
    samples = SpotSamples(inner=np.full((5, 5, 3), 0.5), sectors=np.full((5, 5, 8, 3), 0.5),
                          texture=np.zeros((5, 5)), background=board + white[..., None] * light)
    _, spots = board_glare(samples, eps, light, cfg)
    near = (white >= cfg.deglare_min).any(axis=-1)
    assert spots[3, 1] > 0.2 and spots[3, 2] > 0.2
    # the spots between the two, with no lit patch of their own, take none
    np.testing.assert_allclose(spots[~near], 0.0, atol=1e-6)


@pytest.mark.parametrize(("style", "spot", "amount"), [("night", (3, 4), 0.8), ("night", (1, 2), 1.0),
                                                        ("wood", (2, 3), 1.0)])
def test_a_clipped_token_a_glare_left_unknown_is_read_as_its_colour(
        style: str, spot: tuple[int, int], amount: float) -> None:
    cfg = default_config()
    rect, grid = _glared(style, spot, amount, 0.8)
    # a broad glare clips the tokens round its centre; with its light taken away, the yellow and
    # white tokens among them are their kinds again (only an empty place or a black token is no
    # evidence from a clipped spot)
    assert classify(sample_spots(rect, grid, cfg), default_model(), cfg).cells == LAYOUT
