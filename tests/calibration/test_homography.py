"""Finding the sheet: table homography, scale, verdicts; the sheet round trip under a cast."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from calibration.bench import photograph_sheet
from calibration.errors import PoorView, SheetNotFound
from calibration.homography import (
    apply_homography,
    detect_markers,
    draw_table_view,
    find_table,
    require_good,
    sample_patches,
    table_view,
)
from calibration.profile import calibrate_image
from calibration.sheet import render_sheet, sheet_geometry
from vision.synth.camera import Conditions, Placement, photograph, project, table_texture

SIZE = (960, 540)


def _truth_sheet_to_image(photo_quad: tuple[tuple[float, float], ...], paper: str = "a4") -> np.ndarray:
    """The true sheet-mm -> image-px homography from the sheet's rendered corners."""
    corners = np.asarray(sheet_geometry(paper).corners_mm, np.float32)
    return cv2.getPerspectiveTransform(corners, np.asarray(photo_quad, np.float32)).astype(np.float64)


def _oblique_photo(tilt_deg: float, size: tuple[int, int] = SIZE) -> np.ndarray:
    """The A4 sheet seen by a pinhole camera tilted ``tilt_deg`` from straight down."""
    face = render_sheet("a4", 3.0)
    w, h = sheet_geometry("a4").size_mm
    t = math.radians(tilt_deg)
    rot = np.array([[1, 0, 0], [0, math.cos(t), -math.sin(t)], [0, math.sin(t), math.cos(t)]])
    k = np.array([[900.0, 0, size[0] / 2], [0, 900.0, size[1] / 2], [0, 0, 1]])
    hom = k @ np.column_stack([rot[:, 0], rot[:, 1], [0, 0, 600.0]]) @ np.array(
        [[1, 0, -w / 2], [0, 1, -h / 2], [0, 0, 1]])
    face_to_mm = np.diag([1 / 3.0, 1 / 3.0, 1.0])
    out = np.full((size[1], size[0], 3), 90, np.uint8)
    return cv2.warpPerspective(face, hom @ face_to_mm, size, dst=out, borderMode=cv2.BORDER_TRANSPARENT,
                               flags=cv2.INTER_AREA)


@pytest.mark.parametrize("case", range(3))
def test_sheet_round_trip_recovers_homography_and_colour(case: int) -> None:
    rng = np.random.default_rng(100 + case)
    cast = [(0.55, 0.85, 1.15), (1.25, 1.0, 0.72), (0.85, 1.2, 0.8)][case]
    brightness = [1.0, 0.8, 0.9][case]
    cond = Conditions(size=SIZE, tilt_deg=[5.0, 20.0, 32.0][case], yaw_deg=[0.0, 40.0, -120.0][case],
                      cast=cast, brightness=brightness, noise_sigma=1.5, blur_sigma=0.5)
    photo = photograph_sheet(cond, rng)
    cal = calibrate_image(photo.image, "test")
    view = cal.view
    assert view.good, view.verdict
    assert view.paper == "a4"
    truth = _truth_sheet_to_image(photo.quads[0])
    pts = np.array([[0, 0], [210, 0], [210, 297], [0, 297], [105, 148.5], [30, 250]], np.float64)
    err = np.abs(apply_homography(view.table_to_image, pts) - apply_homography(truth, pts)).max()
    assert err < 1.0, err
    assert view.reprojection_px < 1.0
    # the scale at the sheet centre matches the truth
    centre = apply_homography(truth, [[105, 148.5]])[0]
    step = apply_homography(truth, [[106, 148.5], [105, 149.5]]) - centre
    true_mm_per_px = 1.0 / math.sqrt(abs(step[0, 0] * step[1, 1] - step[0, 1] * step[1, 0]))
    assert view.mm_per_px == pytest.approx(true_mm_per_px, rel=0.03)
    # the colour correction undoes the light: about diag(1 / (cast * brightness))
    combined = cal.profile.colour.combined
    expected = np.diag(1.0 / (np.asarray(cast) * brightness))
    assert np.abs(combined - expected).max() < 0.06 * expected.max(), combined
    # and the corrected patches that were not clipped by the camera come out close to the print
    corrected = cal.profile.colour.apply(photo.image)
    measured = sample_patches(corrected, view)
    checked = 0
    for patch in sheet_geometry("a4").patches:
        if patch.name in measured and max(cal.patches[patch.name]) < 250:
            assert np.abs(np.subtract(measured[patch.name], patch.bgr)).max() < 12, patch.name
            checked += 1
    assert checked >= 8


def test_photo_without_the_sheet_says_so(rng: np.random.Generator) -> None:
    photo = photograph([], Conditions(size=SIZE), rng)
    with pytest.raises(SheetNotFound, match="no calibration sheet found"):
        find_table(photo.image)


def test_sheet_seen_too_obliquely_is_reported() -> None:
    view = find_table(_oblique_photo(65.0))
    assert not view.good
    assert "too obliquely" in view.verdict
    assert view.oblique_deg == pytest.approx(65.0, abs=2.0)
    with pytest.raises(PoorView, match="too obliquely"):
        require_good(view)
    assert find_table(_oblique_photo(30.0)).good


def test_sheet_too_small_in_view(rng: np.random.Generator) -> None:
    face = render_sheet("a4", 3.0)
    cond = Conditions(size=SIZE, table_mm=(1700.0, 1100.0))
    corners = ((745.0, 400.0), (955.0, 400.0), (955.0, 697.0), (745.0, 697.0))
    photo = photograph([Placement(face, corners, glossy=False)], cond, rng)
    view = find_table(photo.image)
    assert "sheet too small in view" in view.verdict
    assert view.mm_per_px > 1.6


def test_covered_markers_are_named(rng: np.random.Generator) -> None:
    face = render_sheet("a4", 3.0)
    geo = sheet_geometry("a4")
    ox, oy = 345.0, 150.0
    corners = tuple((x + ox, y + oy) for x, y in geo.corners_mm)
    patch = np.full((20, 20, 3), 120, np.uint8)
    covers = []
    for number in (2, 4):
        (x0, y0), _, (x1, y1), _ = geo.markers[number - 1].corners_mm
        box = ((x0 + ox - 3, y0 + oy - 3), (x1 + ox + 3, y0 + oy - 3),
               (x1 + ox + 3, y1 + oy + 3), (x0 + ox - 3, y1 + oy + 3))
        covers.append(Placement(patch, box, glossy=False))
    photo = photograph([Placement(face, corners, glossy=False), *covers], Conditions(size=SIZE), rng)
    view = find_table(photo.image)
    assert view.missing == (2, 4)
    assert view.verdict == "markers 2 and 4 not found"
    # two diagonal markers still give the table view
    truth = photo.homography @ np.array([[1, 0, ox], [0, 1, oy], [0, 0, 1.0]])
    pts = [[0, 0], [210, 297], [105, 148]]
    assert np.abs(apply_homography(view.table_to_image, pts) - project(truth, pts)).max() < 1.5


def test_one_marker_is_not_enough(rng: np.random.Generator) -> None:
    face = render_sheet("a4", 3.0)
    # only the top-left quarter of the sheet is in view
    crop = face[: face.shape[0] // 3, : face.shape[1] // 2]
    photo = photograph([Placement(crop, ((300, 200), (405, 200), (405, 299), (300, 299)), glossy=False)],
                       Conditions(size=SIZE), rng)
    with pytest.raises(SheetNotFound, match=r"only marker 1 .*markers 2, 3 and 4 not found"):
        find_table(photo.image)


def test_letter_sheet_is_told_from_a4() -> None:
    page = render_sheet("letter", 2.0)
    paper, markers = detect_markers(page)
    assert paper == "letter"
    assert [m.number for m in markers] == [1, 2, 3, 4]


def test_table_view_is_top_down(rng: np.random.Generator) -> None:
    cond = Conditions(size=SIZE, tilt_deg=25.0, yaw_deg=15.0)
    photo = photograph_sheet(cond, rng)
    view = find_table(photo.image)
    top = table_view(photo.image, view, 2.0)
    assert top.shape == (594, 420, 3)
    flat = render_sheet("a4", 2.0)
    # the marker squares line up with the flat render
    m = sheet_geometry("a4").markers[0]
    (x0, y0), _, (x1, y1), _ = m.corners_mm
    sl = np.s_[round(y0 * 2):round(y1 * 2), round(x0 * 2):round(x1 * 2)]
    a = cv2.cvtColor(top[sl], cv2.COLOR_BGR2GRAY).astype(float)
    b = cv2.cvtColor(flat[sl], cv2.COLOR_BGR2GRAY).astype(float)
    assert np.corrcoef(a.ravel(), b.ravel())[0, 1] > 0.8
    overlay = draw_table_view(photo.image, view)
    assert overlay.shape == photo.image.shape and not np.array_equal(overlay, photo.image)


def test_glare_on_a_patch_leaves_it_out(rng: np.random.Generator) -> None:
    cond = Conditions(size=SIZE)
    photo = photograph_sheet(cond, rng)
    view = find_table(photo.image)
    spoiled = photo.image.copy()
    patch = sheet_geometry("a4").patches[5]
    x0, y0, x1, y1 = patch.rect_mm
    quad = apply_homography(view.table_to_image, [[x0, y0], [(x0 + x1) / 2, y1]])
    a, b = (tuple(int(v) for v in q) for q in quad)
    cv2.rectangle(spoiled, a, b, (255, 255, 255), -1)
    assert patch.name in sample_patches(photo.image, view)
    assert patch.name not in sample_patches(spoiled, view)


def test_table_texture_alone_has_no_markers(rng: np.random.Generator) -> None:
    paper, markers = detect_markers(table_texture(rng, (320, 240)))
    assert markers == ()
    assert paper == "a4"
