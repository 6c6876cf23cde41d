"""Profiles for the benchmarks: calibrated from the sheet under the scenes' own light."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from calibration.bench import photograph_sheet, profile_for_conditions
from calibration.errors import CalibrationError
from calibration.homography import find_table
from vision.synth.camera import (
    Conditions,
    Placement,
    photograph,
    sample_conditions,
    strong_cast,
    table_texture,
)


def test_profile_undoes_a_strong_cast(rng: np.random.Generator) -> None:
    cast = strong_cast(rng)
    cond = Conditions(size=(960, 540), cast=cast, brightness=0.85, noise_sigma=2.0, jpeg_quality=85)
    profile = profile_for_conditions(cond, rng, tokens=False)
    assert profile.verdict == "good"
    expected = np.diag(1.0 / (np.asarray(cast) * 0.85))
    assert np.abs(profile.colour.combined - expected).max() < 0.06 * expected.max()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_profile_makes_a_cast_scene_look_like_the_neutral_one(seed: int) -> None:
    """The same scene photographed under a strong cast and under neutral light: after the
    profile's correction the two agree to about one grey level (the cast is undone)."""
    rng = np.random.default_rng(seed)
    face = table_texture(rng, (300, 200))
    face[40:160, 60:240] = rng.integers(30, 200, 3, dtype=np.uint8)  # a coloured block
    placement = Placement(face, ((300.0, 200.0), (600.0, 200.0), (600.0, 400.0), (300.0, 400.0)))
    base = Conditions(size=(640, 360), tilt_deg=12.0)
    lit = dataclasses.replace(base, cast=strong_cast(rng), brightness=float(rng.uniform(0.7, 1.0)))
    neutral = photograph([placement], base, np.random.default_rng(50)).image
    cast = photograph([placement], lit, np.random.default_rng(50)).image
    profile = profile_for_conditions(dataclasses.replace(lit, size=(960, 540)), rng, tokens=False)
    region = np.s_[140:220, 240:400]
    raw = np.abs(cast[region].astype(int) - neutral[region].astype(int)).mean()
    # the correction keeps every highlight (no channel gain above 1): compare at the neutral brightness
    scale = max(1.0, float(np.max(np.diag(profile.colour.combined))))
    restored = np.clip(profile.prepare(cast)[region].astype(float) * scale, 0, 255)
    fixed = np.abs(restored - neutral[region].astype(float)).mean()
    assert raw > 8.0
    assert fixed < 2.0, (raw, fixed)


def test_hard_conditions_still_calibrate(rng: np.random.Generator) -> None:
    for _ in range(3):
        cond = dataclasses.replace(sample_conditions(rng, "hard", (960, 540)), cast=strong_cast(rng))
        profile = profile_for_conditions(cond, rng, tokens=False)
        assert profile.calibrated
        # the white balance moves each channel the opposite way of the cast
        wb = np.asarray(profile.colour.white_balance)
        assert np.argmax(wb) == np.argmin(cond.cast)


def test_sheet_photo_keeps_the_whole_sheet_in_view(rng: np.random.Generator) -> None:
    cond = Conditions(size=(960, 540), zoom=1.4, tilt_deg=30.0)
    photo = photograph_sheet(cond, rng)
    quad = np.asarray(photo.quads[0])
    assert quad[:, 0].min() > 0 and quad[:, 1].min() > 0
    assert quad[:, 0].max() < 960 and quad[:, 1].max() < 540
    assert find_table(photo.image).good


def test_tokens_are_enrolled_when_the_board_reader_is_there(rng: np.random.Generator) -> None:
    pytest.importorskip("vision.board.learn")
    pytest.importorskip("vision.synth.board")
    cond = Conditions(size=(960, 540), cast=(1.25, 1.0, 0.72))
    profile = profile_for_conditions(cond, rng, tokens=True)
    assert profile.token_model is not None
    assert profile.token_layout is not None and len(profile.token_layout) == 5


def test_failed_optional_enrolment_keeps_the_colour_profile(rng: np.random.Generator,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    import calibration.bench as bench

    calls: list[int] = []

    def refuse(*_: object) -> None:
        calls.append(1)
        raise CalibrationError("token enrolment failed: test")

    monkeypatch.setattr(bench, "_board_available", lambda: True)
    monkeypatch.setattr(bench, "enrol_tokens", refuse)
    cond = Conditions(size=(960, 540), cast=(1.25, 1.0, 0.72))
    profile = profile_for_conditions(cond, rng)
    assert profile.token_model is None and profile.calibrated
    assert len(calls) == 2  # tried again with a steadier camera
    with pytest.raises(CalibrationError, match="test"):
        profile_for_conditions(cond, rng, tokens=True)
