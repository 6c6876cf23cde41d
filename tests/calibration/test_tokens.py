"""Token enrolment: layouts, and the round trip photo -> model -> reading."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from calibration.errors import CalibrationError
from calibration.profile import Profile
from calibration.tokens import (
    default_layout,
    enrol_tokens,
    format_layout,
    missing_kinds,
    parse_layout,
    rotations,
)

LAYOUT = ("WUGRK", "PY.WU", "GRKPY", "UG.RK", "WUGRY")


@pytest.mark.parametrize("text", [
    "WUGRK,PY.WU,GRKPY,UG.RK,WUGRY",
    "wugrk py.wu grkpy ug.rk wugry",
    "WUGRK/PY-WU/GRKPY/UG_RK/WUGRY",
    "WUGRKPY.WUGRKPYUG.RKWUGRY",
    "WUGRK\nPY.WU\nGRKPY\nUG.RK\nWUGRY\n",
])
def test_layout_forms(text: str) -> None:
    assert parse_layout(text) == LAYOUT
    assert parse_layout(list(LAYOUT)) == LAYOUT


@pytest.mark.parametrize(("text", "message"), [
    ("WUGRK,PY.WU,GRKPY,UG.RK", "got 4 rows"),
    ("WUGRK,PY.WU,GRKPY,UG.RK,WUGR", "row 5 'WUGR': expected 5 letters"),
    ("WUGRK,PY.WU,GRKPX,UG.RK,WUGRY", "unknown letter"),
    ("WWWWW,.....,.....,.....,.....", "5 W tokens, but the game has only 4"),
    ("PPP..,.....,.....,.....,.....", "only 2"),
    (".....,.....,.....,.....,.....", "no tokens"),
])
def test_bad_layouts_say_why(text: str, message: str) -> None:
    with pytest.raises(CalibrationError, match=message):
        parse_layout(text)


def test_rotations() -> None:
    turns = rotations(LAYOUT)
    assert len(turns) == 4 and turns[0] == LAYOUT
    assert turns[1][0] == "WUGPW"  # the left column read bottom-up becomes the top row
    assert rotations(turns[1])[3] == LAYOUT
    assert rotations(("W....", ".....", "..K..", ".....", "....W")) == (
        ("W....", ".....", "..K..", ".....", "....W"), ("....W", ".....", "..K..", ".....", "W...."))


def test_default_layout_is_valid_and_complete() -> None:
    rows = parse_layout("default")
    assert rows == default_layout()
    assert missing_kinds(rows) == ()
    assert len(format_layout(rows).splitlines()) == 5


def test_enrolment_needs_every_kind() -> None:
    img = np.zeros((10, 10, 3), np.uint8)
    with pytest.raises(CalibrationError, match="no P token"):
        enrol_tokens(img, "WUGRK,.Y.WU,GRK.Y,UG.RK,WUGRY", Profile(name="t"))


def test_enrolment_without_a_board_is_a_clear_error(rng: np.random.Generator) -> None:
    img = rng.integers(0, 255, (120, 160, 3), dtype=np.uint8)
    with pytest.raises(CalibrationError, match="token enrolment failed"):
        enrol_tokens(img, "default", Profile(name="t"))


def test_enrolment_round_trip_under_a_cast(rng: np.random.Generator) -> None:
    board = pytest.importorskip("vision.board")
    synth_board = pytest.importorskip("vision.synth.board")
    from calibration.bench import profile_for_conditions
    from vision.synth.camera import Conditions

    cond = Conditions(size=(960, 540), cast=(0.55, 0.85, 1.15), brightness=0.9, noise_sigma=1.0)
    profile = profile_for_conditions(cond, rng, tokens=False)
    assert profile.token_model is None
    scene = synth_board.render_board_scene(rng, "easy", cond.size, layout=default_layout(), conditions=cond,
                                           hand=False)
    enrolled = enrol_tokens(scene.image, default_layout(), profile)
    # the reader decides which board edge is the top: the layout is stored in its orientation
    assert enrolled.token_layout in rotations(scene.cells)
    assert enrolled.colour == profile.colour
    model = board.TokenModel.from_json(enrolled.token_model)
    assert model.to_json() == enrolled.token_model
    # the model is learnt on the prepared image, exactly what the reader sees with the profile
    # (the pearl's tint then steadied by the sheet's pearl patch)
    from calibration.sheet import load_section
    from calibration.tokens import TokensConfig, with_sheet_pearl

    # learnt with the colour correction (its matrix and channel gains), which the model keeps
    matrix = profile.colour.with_headroom().combined
    gains = tuple(float(v) for v in np.diag(matrix))
    direct = board.learn_tokens(profile.prepare(scene.image), enrolled.token_layout, correction=matrix)
    assert model.gains == pytest.approx(gains, abs=1e-4)
    assert model.correction is not None and np.allclose(model.correction, matrix, atol=1e-5)
    weight = load_section("calibration", "tokens", TokensConfig).pearl_sheet_weight
    assert with_sheet_pearl(direct.to_json(), weight) == enrolled.token_model
    # and reading the enrolment photo with the profile gives the layout back: no wrong letter,
    # at most a few spots left unknown
    reading = board.read(enrolled.prepare(scene.image), profile=enrolled)
    assert reading is not None
    got = "".join(reading.cells)
    want = "".join(enrolled.token_layout)
    assert all(g in ("?", w) for g, w in zip(got, want, strict=True)), (reading.cells, enrolled.token_layout)
    assert sum(g == "?" for g in got) <= 4
    # the stored model survives a save/load cycle
    again = Profile.from_json(enrolled.to_json())
    assert dataclasses.replace(again, seats=enrolled.seats).token_model == enrolled.token_model


def test_the_sheet_steadies_the_enrolled_pearl_tint() -> None:
    from calibration.colour import reference_patches
    from calibration.tokens import with_sheet_pearl

    ref = {p.name: np.log(np.asarray(p.bgr, np.float64)) for p in reference_patches()}
    white = np.array([-0.3, -0.2, -0.2])
    sheet_step = ref["P"] - ref["W"]
    sheet_step -= sheet_step.mean()
    # a noisy enrolment: the pearl came out three times as tinted as the sheet shows, and darker
    learnt = white + 3.0 * sheet_step - 0.05
    means = [list(white), [0.0, 0.0, 0.0], list(learnt)]
    model = {"kinds": "WUP", "means": means}
    out = np.asarray(with_sheet_pearl(model, 0.5)["means"], np.float64)
    step = out[2] - out[0]
    assert np.allclose(step - step.mean(), 2.0 * sheet_step, atol=1e-4)
    assert out[2].mean() == pytest.approx(learnt.mean(), abs=1e-4)  # brightness kept
    assert np.allclose(out[:2], np.asarray(means[:2]))
    assert with_sheet_pearl(model, 0.0) is model
    assert with_sheet_pearl({"kinds": "WU", "means": means[:2]}, 0.5)["means"] == means[:2]
