"""Token models: JSON round trip, validation, enrolment."""

from __future__ import annotations

import json

import numpy as np
import pytest

from vision.board import TokenModel, TokenModelError, default_layout, default_model, learn_tokens
from vision.synth.board import render_board_scene
from vision.synth.camera import table_texture


def test_default_layout_uses_every_kind_within_the_game_supply() -> None:
    rows = default_layout()
    assert len(rows) == 5 and all(len(r) == 5 for r in rows)
    letters = "".join(rows)
    supply = {"W": 4, "U": 4, "G": 4, "R": 4, "K": 4, "P": 2, "Y": 3}
    for k, n in supply.items():
        assert 1 <= letters.count(k) <= n
    assert "." in letters


def test_json_round_trip() -> None:
    model = default_model()
    data = json.loads(json.dumps(model.to_json()))
    back = TokenModel.from_json(data)
    assert back.kinds == model.kinds and not back.calibrated
    assert np.allclose(back.means, model.means, atol=1e-4)


def test_a_model_saved_with_an_empty_spread_still_loads() -> None:
    # profiles enrolled earlier store the empty print's spread, which the reader no longer uses
    data = {**default_model().to_json(), "empty": [0.01, 0.0, -0.01], "empty_spread": 0.05}
    assert TokenModel.from_json(data).empty == pytest.approx((0.01, 0.0, -0.01))


def test_gains_round_trip_and_set_each_channels_noise_floor_and_clip_level() -> None:
    import dataclasses

    model = dataclasses.replace(default_model(), gains=(2.5, 1.25, 0.8))
    back = TokenModel.from_json(json.loads(json.dumps(model.to_json())))
    assert back.gains == pytest.approx((2.5, 1.25, 0.8))
    # the camera's noise floor scales with the gain; a channel turned down by the correction
    # shows the camera's clipping below the image's full scale
    assert back.channel_eps(0.02) == pytest.approx([0.05, 0.025, 0.016])
    assert back.clip_levels(0.96) == pytest.approx([0.96, 0.96, 0.768])
    plain = default_model()
    assert plain.gains is None and TokenModel.from_json(plain.to_json()).gains is None
    assert plain.channel_eps(0.02) == pytest.approx([0.02] * 3)
    assert plain.clip_levels(0.96) == pytest.approx([0.96] * 3)


def test_the_correction_matrix_shows_which_channels_the_camera_clipped() -> None:
    import dataclasses

    # the correction takes a third of the camera's red off the corrected blue, and halves red
    m = ((0.9, 0.0, -0.3), (0.0, 0.8, 0.0), (0.0, 0.0, 0.5))
    model = dataclasses.replace(default_model(), gains=(0.9, 0.8, 0.5), correction=m)
    back = TokenModel.from_json(json.loads(json.dumps(model.to_json())))
    assert back.correction is not None and np.allclose(back.correction, m)
    camera = np.array([[0.5, 0.6, 1.0], [0.5, 0.6, 0.7], [1.0, 0.3, 0.2]])
    shown = camera @ np.asarray(m).T
    assert back.to_camera(shown) == pytest.approx(camera)
    got = back.clipped(shown, 0.98, 0.1)
    # the camera's clipped red reaches the corrected blue it feeds; blue alone feeds only blue
    assert got.tolist() == [[True, False, True], [False, False, False], [True, False, False]]
    # by the gains alone, only the red channel itself would be known to be clipped
    diag = dataclasses.replace(back, correction=None)
    assert diag.clipped(shown, 0.98, 0.1)[0].tolist() == [False, False, True]
    # an uncorrected image clips at the saturation level
    assert default_model().clipped(np.array([0.99, 0.5, 0.2]), 0.98, 0.1).tolist() == [True, False, False]


@pytest.mark.parametrize(("doc", "field"), [
    ([], "token_model"),
    ({"kinds": "WX", "means": [], "spreads": []}, "token_model.kinds"),
    ({"kinds": "WU", "means": [[0, 0, 0]], "spreads": [0, 0]}, "token_model.means"),
    ({"kinds": "WU", "means": [[0, 0, 0], [0, 0, "a"]], "spreads": [0, 0]}, r"token_model.means\[1\]"),
    ({"kinds": "WU", "means": [[0, 0, 0], [0, 0, 0]], "spreads": [0]}, "token_model.spreads"),
    ({"kinds": "WU", "means": [[0, 0, 0], [0, 0, 0]], "spreads": [0, 0], "calibrated": "yes"},
     "token_model.calibrated"),
    ({"kinds": "WU", "means": [[0, 0, 0], [0, 0, 0]], "spreads": [0, 0], "gains": [1, 0, 1]},
     "token_model.gains"),
    ({"kinds": "WU", "means": [[0, 0, 0], [0, 0, 0]], "spreads": [0, 0], "gains": [1, 1]},
     "token_model.gains"),
    ({"kinds": "WU", "means": [[0, 0, 0], [0, 0, 0]], "spreads": [0, 0], "correction": [[1, 0, 0]]},
     "token_model.correction"),
    ({"kinds": "WU", "means": [[0, 0, 0], [0, 0, 0]], "spreads": [0, 0],
      "correction": [[1, 0, 0], [1, 0, 0], [0, 0, 1]]}, "token_model.correction"),
])
def test_bad_models_name_the_field(doc: object, field: str) -> None:
    with pytest.raises(TokenModelError, match=field):
        TokenModel.from_json(doc)  # type: ignore[arg-type]


def test_enrolment_learns_every_kind_and_the_empty_spot() -> None:
    scene = render_board_scene(np.random.default_rng(21), "easy", (1280, 720), layout=default_layout(),
                               hand=False)
    model = learn_tokens(scene.image, scene.cells)
    assert model.calibrated and set(model.kinds) == set("WUGRKPY")
    assert model.empty is not None
    means = dict(zip(model.kinds, np.asarray(model.means), strict=True))
    # white is brighter than black, gold is yellower (less blue) than white
    assert means["W"].mean() > means["K"].mean() + 1.0
    assert means["Y"][0] - means["Y"][2] < means["W"][0] - means["W"][2] - 0.5


@pytest.mark.parametrize("layout", [("WUGRK",) * 4, ("WUGRK", "WUGRK", "WUGRK", "WUGRK", "WUGRQ")])
def test_enrolment_rejects_a_bad_layout(layout: tuple[str, ...]) -> None:
    with pytest.raises(TokenModelError, match="layout"):
        learn_tokens(np.zeros((64, 64, 3), np.uint8), layout)


def test_enrolment_needs_every_kind() -> None:
    scene = render_board_scene(np.random.default_rng(22), "easy", (1280, 720), hand=False,
                               layout=("WUGRK", "WUGRK", "WUGRK", "WUGRK", "....."))
    with pytest.raises(TokenModelError, match="P"):
        learn_tokens(scene.image, scene.cells)


def test_enrolment_without_a_board(rng: np.random.Generator) -> None:
    with pytest.raises(TokenModelError, match="no token board"):
        learn_tokens(table_texture(rng, (640, 360)), default_layout())
