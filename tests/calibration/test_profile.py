"""Profiles: JSON round trip, atomic save under XDG_CONFIG_HOME, corrupt and missing files."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from calibration.bench import photograph_sheet
from calibration.colour import ColourCorrection
from calibration.errors import CalibrationError, ProfileError
from calibration.lens import LensModel
from calibration.profile import (
    Profile,
    VideoConfig,
    calibrate_frames,
    calibrate_image,
    identity_profile,
    list_profiles,
    load_profile,
    profile_path,
    profiles_dir,
    save_profile,
)
from calibration.zones import SeatZones
from vision.profile import ProfileLike
from vision.synth.camera import Conditions


@pytest.fixture
def config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    return tmp_path / "cfg"


def _profile() -> Profile:
    lens = LensModel((640, 480), ((500.0, 0.0, 320.0), (0.0, 500.0, 240.0), (0.0, 0.0, 1.0)),
                     (0.01, -0.02, 0.0, 0.0, 0.0), 0.2, 12)
    seats = SeatZones.from_json({"Ann": [[0, 0], [100, 0], [100, 100]],
                                 "Bob": [[200, 0], [300, 0], [300, 90]]})
    return Profile(name="kitchen", image_size=(640, 480),
                   image_to_table=((0.5, 0.01, -10.0), (0.0, 0.52, -5.0), (1e-5, 2e-5, 1.0)),
                   mm_per_px=1.1, reprojection_px=0.3, oblique_deg=12.0,
                   colour=ColourCorrection((1.2, 1.0, 0.8),
                                           ((1.0, 0.02, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))),
                   lens=lens, token_model={"kinds": ["W"], "anything": 1},
                   token_layout=("WUGRK", "PY.WU", "GRKPY", "UG.RK", "WUGRY"), seats=seats,
                   created="2026-01-01T00:00:00+00:00")


def test_profile_is_profile_like_and_identity_is_a_no_op() -> None:
    p = identity_profile()
    assert isinstance(p, ProfileLike) and isinstance(_profile(), ProfileLike)
    img = np.full((8, 8, 3), 77, np.uint8)
    assert p.prepare(img) is img
    assert p.token_model is None and p.seat_of((1.0, 1.0)) is None
    with pytest.raises(CalibrationError, match="no table view"):
        p.to_table([[0, 0]])


def test_json_round_trip() -> None:
    p = _profile()
    back = Profile.from_json(json.loads(json.dumps(p.to_json())))
    assert back.to_json() == p.to_json()
    assert back.seat_of((60, 20)) == "Ann"
    pts = np.array([[10.0, 20.0], [300.0, 400.0]])
    assert np.allclose(back.to_image(back.to_table(pts)), pts)


def test_seats_in_mm_inside_a_profile_file() -> None:
    data = _profile().to_json()
    data["seats"] = {"units": "mm", "seats": {"Ann": [[0, 0], [50, 0], [50, 50], [0, 50]]}}
    p = Profile.from_json(data)
    inside = p.to_image([[25.0, 25.0]])[0]
    assert p.seat_of((float(inside[0]), float(inside[1]))) == "Ann"
    data["image_to_table"] = None
    with pytest.raises(CalibrationError, match="calibrated table"):
        Profile.from_json(data)


def test_scaled_to_a_smaller_frame() -> None:
    p = _profile()
    half = p.scaled_to((320, 240))
    assert half.image_size == (320, 240)
    assert half.seat_of((30, 10)) == "Ann" and p.seat_of((30, 10)) == "Ann"
    assert half.seat_of((140, 20)) == "Bob" and p.seat_of((140, 20)) is None
    pts = np.array([[100.0, 80.0], [400.0, 300.0]])
    assert np.allclose(half.to_table(pts / 2), p.to_table(pts))
    assert half.mm_per_px == pytest.approx(2.2)
    assert p.scaled_to((640, 480)) is p


def test_save_is_atomic_and_under_xdg(config_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = save_profile(_profile(), "kitchen")
    assert path == config_home / "goldtable" / "profiles" / "kitchen.json"
    assert profiles_dir() == path.parent
    assert list_profiles() == ["kitchen"]
    original = path.read_bytes()

    def broken_replace(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    changed = _profile().with_seats({})
    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(ProfileError, match=r"kitchen\.json: cannot write"):
        save_profile(changed, "kitchen")
    assert path.read_bytes() == original  # the old profile is untouched
    assert [p.name for p in path.parent.iterdir()] == ["kitchen.json"]  # no temporary file left


def test_home_config_is_the_default(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert profiles_dir() == tmp_path / ".config" / "goldtable" / "profiles"


def test_load_by_name_and_by_path(config_home: Path, tmp_path: Path) -> None:
    save_profile(_profile(), "kitchen")
    assert load_profile("kitchen").name == "kitchen"
    other = save_profile(_profile(), tmp_path / "elsewhere.json")
    assert load_profile(str(other)).mm_per_px == pytest.approx(1.1)


@pytest.mark.parametrize(("content", "problem"), [
    (b"{not json", "broken JSON"),
    (b"\xff\xfe\x00", "not UTF-8"),
    (b"[1, 2]", "expected a JSON object"),
    (b'{"version": 99}', "version 99 is not supported"),
    (b'{"name": "x"}', "version: missing"),
    (b'{"version": 1, "colour": {"white_balance": [1, 1], "matrix": []}}', "colour.white_balance"),
    (b'{"version": 1, "image_to_table": [[0, 0, 0], [0, 0, 0], [0, 0, 0]]}', "singular"),
    (b'{"version": 1, "seats": {"units": "px", "seats": {"A": [[0, 0], [1, 1]]}}}', "seats.A"),
    (b'{"version": 1, "token_layout": ["WWWWW", "WWWWW", "WWWWW", "WWWWW", "WWWWW"]}', "only 4"),
])
def test_corrupt_profiles_name_the_file(config_home: Path, content: bytes, problem: str) -> None:
    path = profile_path("broken")
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    with pytest.raises(ProfileError) as info:
        load_profile("broken")
    assert str(path) in str(info.value)
    assert problem in str(info.value)


def test_missing_profile_is_an_error_not_the_default(config_home: Path) -> None:
    with pytest.raises(ProfileError, match=r"nothere\.json: no such profile"):
        load_profile("nothere")
    assert load_profile("default") == identity_profile()


def test_default_and_bad_names_cannot_be_saved(config_home: Path) -> None:
    with pytest.raises(ProfileError, match="reserved"):
        save_profile(identity_profile())
    with pytest.raises(ProfileError, match=r"must end in \.json"):
        save_profile(_profile(), "../escape")
    with pytest.raises(ProfileError, match="profile name"):
        load_profile("a b")


def test_calibrated_profile_prepares_images(rng: np.random.Generator) -> None:
    cond = Conditions(size=(800, 450), cast=(1.25, 1.0, 0.72), table_mm=(700.0, 450.0))
    photo = photograph_sheet(cond, rng)
    seats = {"units": "mm", "seats": {"sheet": [[0, 0], [210, 0], [210, 297]]}}
    cal = calibrate_image(photo.image, "t", seats=seats)
    p = cal.profile
    assert p.calibrated and p.verdict == "good"
    prepared = p.prepare(photo.image)
    assert prepared.shape == photo.image.shape
    # a grey table pixel under the cast becomes neutral again
    grey = np.full((1, 1, 3), (125, 100, 72), np.uint8)
    b, g, r = (int(v) for v in p.prepare(grey)[0, 0])
    assert abs(b - g) <= 3 and abs(g - r) <= 3
    # the seat polygon given in mm lies on the sheet's top-right half in the image
    corner_px = p.to_image([[200.0, 10.0]])[0]
    assert p.seat_of((float(corner_px[0]), float(corner_px[1]))) == "sheet"


def test_frames_pick_a_good_view(rng: np.random.Generator) -> None:
    cond = Conditions(size=(640, 360), table_mm=(700.0, 450.0))
    good = photograph_sheet(cond, rng).image
    empty = np.full_like(good, 100)
    seen: list[int] = []
    every = VideoConfig(max_frames=10, frame_step=1, good_frames_wanted=1)
    cal = calibrate_frames([empty, good, good], "v", config=every, on_frame=seen.append)
    assert cal.view.good and seen == [1, 2]  # stops at the first good frame
    with pytest.raises(CalibrationError, match="no frame showed the calibration sheet"):
        calibrate_frames([empty, empty], "v", config=every)


def test_prepare_cards_balances_and_keeps_brightness() -> None:
    colour = ColourCorrection((2.5, 1.1, 0.45), ((1.1, -0.1, 0.0), (0.0, 1.0, 0.0), (0.0, -0.1, 1.1)))
    p = Profile(name="lamp", colour=colour)
    rng = np.random.default_rng(4)
    grey = rng.integers(60, 110, (12, 16, 1)).astype(np.float64)
    img = np.clip(grey * np.array([0.4, 0.9, 2.2]), 0, 255).astype(np.uint8)  # warm cast on grey paper
    cards, board = p.prepare_cards(img).astype(float), p.prepare(img).astype(float)
    harmonic = 3.0 / np.sum(1.0 / img.astype(float), axis=2)  # a grey keeps its harmonic mean level
    assert np.abs(cards.mean(axis=2) - harmonic).max() < 0.1 * harmonic.mean()
    assert board.mean() < 0.75 * cards.mean()  # prepare is unchanged: scaled for headroom
    assert np.abs(cards - cards.mean(axis=2, keepdims=True)).max() < 8  # grey again
    assert identity_profile().prepare_cards(img) is img
    with pytest.raises(CalibrationError, match="prepare_cards"):
        p.prepare_cards(np.zeros((4, 4), np.uint8))
