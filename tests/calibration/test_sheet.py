"""The printable sheet: geometry, rendering, files."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from calibration.errors import CalibrationError
from calibration.homography import detect_markers
from calibration.lens import detect_charuco
from calibration.sheet import (
    charuco_spec,
    load_section,
    render_charuco,
    render_sheet,
    sheet_geometry,
    write_sheet,
)


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_geometry_fits_the_page_without_overlaps(paper: str) -> None:
    geo = sheet_geometry(paper)
    w, h = geo.size_mm
    boxes = [(m.corners_mm[0][0], m.corners_mm[0][1], m.corners_mm[2][0], m.corners_mm[2][1])
             for m in geo.markers]
    boxes += [p.rect_mm for p in geo.patches]
    boxes.append(geo.scale_bar_mm)
    for i, a in enumerate(boxes):
        assert 0 < a[0] < a[2] < w and 0 < a[1] < a[3] < h
        for b in boxes[i + 1:]:
            assert not _overlap(a, b)
    assert geo.scale_bar_mm[2] - geo.scale_bar_mm[0] == pytest.approx(100.0)
    names = [p.name for p in geo.patches]
    assert names[:4] == ["white", "grey75", "grey50", "grey25"]
    assert set("WUGRKPY") <= set(names)
    assert [m.number for m in geo.markers] == [1, 2, 3, 4]


def test_papers_use_different_markers() -> None:
    a4 = {m.id for m in sheet_geometry("a4").markers}
    letter = {m.id for m in sheet_geometry("letter").markers}
    assert len(a4) == 4 and len(letter) == 4 and not a4 & letter


def test_rendered_sheet_shows_its_markers_and_patches() -> None:
    px = 2.0
    page = render_sheet("a4", px)
    assert page.shape == (594, 420, 3) and page.dtype == np.uint8
    paper, markers = detect_markers(page)
    assert paper == "a4" and len(markers) == 4
    for m, spec in zip(markers, sheet_geometry("a4").markers, strict=True):
        assert np.allclose(np.asarray(m.corners_px), np.asarray(spec.corners_mm) * px - 0.5, atol=1.0)
    for p in sheet_geometry("a4").patches:
        x0, y0, x1, y1 = (round(v * px) for v in p.rect_mm)
        centre = page[(y0 + y1) // 2, (x0 + x1) // 2]
        assert tuple(int(v) for v in centre) == p.bgr


def test_write_png_and_pdf(tmp_path) -> None:
    png = write_sheet(tmp_path / "sheet.png", "letter", dpi=100)
    with Image.open(png) as im:
        assert im.size == (round(215.9 * 100 / 25.4), round(279.4 * 100 / 25.4))
        assert round(im.info["dpi"][0]) == 100
    pdf = write_sheet(tmp_path / "sheet.pdf", "a4", dpi=100)
    assert pdf.read_bytes()[:5] == b"%PDF-"
    board = write_sheet(tmp_path / "board.png", "a4", charuco=True, dpi=100)
    assert board.stat().st_size > 1000


def test_bad_requests_are_named(tmp_path) -> None:
    with pytest.raises(CalibrationError, match=r"\.png or \.pdf"):
        write_sheet(tmp_path / "sheet.jpg")
    with pytest.raises(CalibrationError, match="unknown paper"):
        sheet_geometry("a3")
    with pytest.raises(CalibrationError, match="dpi"):
        write_sheet(tmp_path / "sheet.png", dpi=10)
    with pytest.raises(CalibrationError, match="cannot write"):
        write_sheet(tmp_path / "missing" / "sheet.png", dpi=72)


def test_charuco_page_is_detectable() -> None:
    page = render_charuco("a4", 3.0)
    found = detect_charuco(page)
    assert found is not None
    obj, img = found
    cols, rows = charuco_spec("a4").squares
    assert len(obj) == (cols - 1) * (rows - 1)
    assert obj.shape[1] == 3 and img.shape[1] == 2


def test_config_sections_reject_unknown_keys() -> None:
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class Tiny:
        min_markers: int

    with pytest.raises(CalibrationError, match="unknown key"):
        load_section("calibration", "table", Tiny)
