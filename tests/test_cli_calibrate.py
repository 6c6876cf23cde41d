"""``goldtable calibration-sheet`` and ``goldtable calibrate`` end to end on generated photos."""

from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from calibration.bench import photograph_sheet
from calibration.profile import load_profile, profile_path
from calibration.sheet import render_charuco, render_sheet, sheet_geometry
from vision.synth.camera import Conditions, Placement, photograph
from webui.cli import main

SIZE = (960, 540)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    return tmp_path


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.output


def _one_line_error(code: int, out: str, *fragments: str) -> None:
    assert code == 2, out
    last = out.strip().splitlines()[-1]
    assert last.startswith("goldtable: ")
    assert "Traceback" not in out
    for f in fragments:
        assert f in last, last


def _sheet_photo(path: Path, rng: np.random.Generator, **kw: object) -> Path:
    cond = Conditions(size=SIZE, **kw)  # type: ignore[arg-type]
    cv2.imwrite(str(path), photograph_sheet(cond, rng).image)
    return path


def _oblique_photo(path: Path) -> Path:
    face = render_sheet("a4", 3.0)
    w, h = sheet_geometry("a4").size_mm
    t = math.radians(65.0)
    rot = np.array([[1, 0, 0], [0, math.cos(t), -math.sin(t)], [0, math.sin(t), math.cos(t)]])
    k = np.array([[900.0, 0, SIZE[0] / 2], [0, 900.0, SIZE[1] / 2], [0, 0, 1]])
    hom = k @ np.column_stack([rot[:, 0], rot[:, 1], [0, 0, 600.0]]) @ np.array(
        [[1, 0, -w / 2], [0, 1, -h / 2], [0, 0, 1]])
    out = np.full((SIZE[1], SIZE[0], 3), 90, np.uint8)
    img = cv2.warpPerspective(face, hom @ np.diag([1 / 3.0, 1 / 3.0, 1.0]), SIZE, dst=out,
                              borderMode=cv2.BORDER_TRANSPARENT)
    cv2.imwrite(str(path), img)
    return path


def test_calibration_sheet_files(tmp_path: Path) -> None:
    code, out = _run("calibration-sheet", str(tmp_path / "s.pdf"), "--dpi", "100")
    assert code == 0 and "calibration sheet (a4)" in out
    assert (tmp_path / "s.pdf").read_bytes()[:5] == b"%PDF-"
    code, out = _run("calibration-sheet", str(tmp_path / "b.png"), "--charuco", "--paper", "letter",
                     "--dpi", "100")
    assert code == 0 and "ChArUco" in out
    _one_line_error(*_run("calibration-sheet", str(tmp_path / "s.gif")), ".png or .pdf")
    code, out = _run("calibration-sheet", str(tmp_path / "s.png"), "--paper", "a3")
    assert code == 2


def test_calibrate_photo_saves_a_profile(home: Path, rng: np.random.Generator) -> None:
    photo = _sheet_photo(home / "sheet.png", rng, cast=(0.55, 0.85, 1.15), tilt_deg=15.0)
    code, out = _run("calibrate", str(photo), "--name", "kitchen", "--overlay", str(home / "ov.png"))
    assert code == 0, out
    for text in ("reprojection error:", "mm per pixel:", "verdict: good", "saved profile 'kitchen'"):
        assert text in out
    p = load_profile("kitchen")
    assert p.calibrated and p.colour.white_balance[0] > 1.5
    assert cv2.imread(str(home / "ov.png")) is not None
    # the explicit subcommand and JSON output
    code, out = _run("calibrate", "table", str(photo), "--name", "k2", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["verdict"] == "good" and data["markers_found"] == [1, 2, 3, 4]
    assert data["file"] == str(profile_path("k2"))


def test_photo_without_the_sheet(home: Path, rng: np.random.Generator) -> None:
    path = home / "table.png"
    cv2.imwrite(str(path), photograph([], Conditions(size=(480, 270)), rng).image)
    _one_line_error(*_run("calibrate", str(path)), "no calibration sheet found")
    assert not profile_path("table").exists()


def test_oblique_sheet_is_refused_unless_forced(home: Path) -> None:
    photo = _oblique_photo(home / "oblique.png")
    code, out = _run("calibrate", str(photo), "--name", "slanted")
    _one_line_error(code, out, "profile not saved", "too obliquely", "--force")
    assert "verdict: sheet seen too obliquely" in out
    assert not profile_path("slanted").exists()
    code, out = _run("calibrate", str(photo), "--name", "slanted", "--force")
    assert code == 0 and profile_path("slanted").exists()
    assert "too obliquely" in load_profile("slanted").verdict


def test_bad_arguments(home: Path, rng: np.random.Generator) -> None:
    _one_line_error(*_run("calibrate", "--name", "x"), "exactly one of PHOTO, --camera N or --video FILE")
    _one_line_error(*_run("calibrate", str(home / "nope.jpg")), "nope.jpg")
    photo = _sheet_photo(home / "sheet.png", rng)
    _one_line_error(*_run("calibrate", str(photo), "--name", "default"), "reserved")
    _one_line_error(*_run("calibrate", str(photo), "--name", "a b"), "profile name")
    (home / "seats.json").write_text("{broken")
    _one_line_error(*_run("calibrate", str(photo), "--seats", str(home / "seats.json")), "not valid JSON")
    _one_line_error(*_run("calibrate", str(photo), "--video", "x.avi"), "exactly one")
    _one_line_error(*_run("calibrate", "--camera", "97"), "camera 97")


def test_seats_in_mm_and_the_seats_command(home: Path, rng: np.random.Generator) -> None:
    photo = _sheet_photo(home / "sheet.png", rng)
    seats = home / "seats.json"
    seats.write_text(json.dumps({"units": "mm", "seats": {"Ann": [[-300, -200], [105, -200], [105, 500],
                                                                   [-300, 500]],
                                                          "Bob": [[105, -200], [500, -200], [500, 500],
                                                                  [105, 500]]}}))
    code, out = _run("calibrate", str(photo), "--seats", str(seats))
    assert code == 0 and "seats: Ann, Bob" in out
    p = load_profile("table")
    left = p.to_image([[20.0, 150.0]])[0]
    right = p.to_image([[190.0, 150.0]])[0]
    assert p.seat_of(tuple(left)) == "Ann" and p.seat_of(tuple(right)) == "Bob"
    px = home / "px.json"
    px.write_text(json.dumps({"Cat": [[0, 0], [100, 0], [100, 100]]}))
    code, out = _run("calibrate", "seats", str(px))
    assert code == 0 and load_profile("table").seats.names == ("Cat",)
    _one_line_error(*_run("calibrate", "seats", str(px), "--profile", "missing"), "missing.json")


def test_show_and_corrupt_profiles(home: Path, rng: np.random.Generator) -> None:
    code, out = _run("calibrate", "show")
    assert code == 0 and "(none)" in out
    _run("calibrate", str(_sheet_photo(home / "sheet.png", rng)))
    code, out = _run("calibrate", "show", "table")
    assert code == 0 and json.loads(out)["version"] == 1
    path = profile_path("table")
    path.write_text('{"version": 1, "colour": 5}')
    _one_line_error(*_run("calibrate", "show", "table"), str(path), "not a valid profile")


def test_video_source(home: Path, rng: np.random.Generator) -> None:
    video = home / "sheet.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (640, 400))
    assert writer.isOpened()
    cond = Conditions(size=(640, 400), table_mm=(420.0, 330.0))
    blank = np.full((400, 640, 3), 120, np.uint8)
    for i in range(8):
        writer.write(blank if i < 3 else photograph_sheet(cond, rng).image)
    writer.release()
    code, out = _run("calibrate", "--video", str(video), "--name", "vid")
    assert code == 0, out
    assert "verdict: good" in out and profile_path("vid").exists()
    _one_line_error(*_run("calibrate", "--video", str(home / "none.avi")), "none.avi")


def test_lens_from_photos(home: Path, rng: np.random.Generator) -> None:
    face = render_charuco("a4", 3.0)
    paths = []
    for i in range(12):
        cond = Conditions(size=(640, 480), table_mm=(400.0, 300.0), tilt_deg=float(rng.uniform(15, 35)),
                          yaw_deg=float(rng.uniform(-180, 180)), zoom=float(rng.uniform(0.9, 1.2)))
        x, y = rng.uniform(60, 130), rng.uniform(0, 20)
        img = photograph([Placement(face, ((x, y), (x + 210, y), (x + 210, y + 297), (x, y + 297)),
                                    glossy=False)], cond, rng).image
        paths.append(home / f"lens{i}.png")
        cv2.imwrite(str(paths[-1]), img)
    cond = Conditions(size=(640, 480), table_mm=(420.0, 330.0))
    sheet = home / "sheet.png"
    cv2.imwrite(str(sheet), photograph_sheet(cond, rng).image)
    code, out = _run("calibrate", *map(str, paths), str(sheet), "--lens", "--name", "lensed")
    assert code == 0, out
    assert "lens: fit error" in out
    assert load_profile("lensed").lens is not None
    # too few views is a clear error
    _one_line_error(*_run("calibrate", *map(str, paths[:3]), str(sheet), "--lens"), "needs 10 views")


def test_tokens_commands(home: Path, rng: np.random.Generator) -> None:
    code, out = _run("calibrate", "tokens", "--show-default")
    assert code == 0 and len(out.strip().splitlines()) == 5
    _one_line_error(*_run("calibrate", "tokens", "x.png", "--layout", "WUGRK"), "expected 5 rows")
    _one_line_error(*_run("calibrate", "tokens", "x.png"), "--layout is required")
    _one_line_error(*_run("calibrate", "tokens", "x.png", "--layout", "default", "--profile", "nothere"),
                    "nothere.json: no such profile")
    synth_board = pytest.importorskip("vision.synth.board")
    pytest.importorskip("vision.board.learn")
    cond = Conditions(size=SIZE, cast=(1.25, 1.0, 0.72))
    sheet = home / "sheet.png"
    cv2.imwrite(str(sheet), photograph_sheet(cond, rng).image)
    assert _run("calibrate", str(sheet), "--name", "lamp")[0] == 0
    from calibration.tokens import default_layout

    scene = synth_board.render_board_scene(rng, "easy", SIZE, layout=default_layout(), conditions=cond,
                                           hand=False)
    board = home / "board.png"
    cv2.imwrite(str(board), scene.image)
    layout = ",".join(scene.cells)
    code, out = _run("calibrate", "tokens", str(board), "--layout", layout, "--profile", "lamp")
    assert code == 0, out
    assert "learned the token colours" in out
    assert load_profile("lamp").token_model is not None
    _one_line_error(*_run("calibrate", "tokens", str(sheet), "--layout", "default", "--profile", "lamp"),
                    "token enrolment failed")
