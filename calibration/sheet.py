"""The printable calibration sheet and the ChArUco lens-calibration board.

The sheet (A4 or US letter, portrait) carries four ArUco markers near its corners, eleven
colour patches (white, three greys and the seven Splendor Duel token colours), a 100 mm scale
bar and one line of instructions. Its geometry lives in ``calibration/data/sheet.json`` and
the patch colours in ``calibration/data/patches.json``; every position is in millimetres from
the sheet's top-left corner, which is also the origin of the table frame after calibration.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

import cv2
import numpy as np
from numpy.typing import NDArray
from PIL import Image

from calibration.errors import CalibrationError
from vision.config import from_mapping

PAPERS: tuple[str, ...] = ("a4", "letter")
T = TypeVar("T")

PointMM = tuple[float, float]
RectMM = tuple[float, float, float, float]


@cache
def _load(name: str) -> str:
    return resources.files("calibration").joinpath("data", f"{name}.json").read_text("utf-8")


def load_data(name: str) -> dict[str, Any]:
    """Return a fresh copy of ``calibration/data/<name>.json``.

    Raises
    ------
    CalibrationError
        When the file is missing or is not a JSON object.
    """
    try:
        data = json.loads(_load(name))
    except (OSError, json.JSONDecodeError) as exc:
        raise CalibrationError(f"calibration/data/{name}.json: cannot be read ({exc})") from exc
    if not isinstance(data, dict):
        raise CalibrationError(f"calibration/data/{name}.json: expected an object")
    return data


def load_section(name: str, section: str, cls: type[T]) -> T:
    """Build the frozen config dataclass ``cls`` from ``section`` of ``calibration/data/<name>.json``.

    Keys starting with ``_`` are comments; an unknown key is an error.
    """
    data = load_data(name).get(section)
    if not isinstance(data, dict):
        raise CalibrationError(f"calibration/data/{name}.json: no section {section!r}")
    try:
        return from_mapping(cls, data, f"calibration/data/{name}.json: {section}")
    except ValueError as exc:
        raise CalibrationError(str(exc)) from exc


def aruco_dictionary(name: str) -> cv2.aruco.Dictionary:
    """The predefined ArUco dictionary called ``name`` (e.g. ``"DICT_4X4_50"``)."""
    code = getattr(cv2.aruco, name, None)
    if not isinstance(code, int):
        raise CalibrationError(f"unknown ArUco dictionary {name!r}")
    return cv2.aruco.getPredefinedDictionary(code)


def hex_to_rgb(text: str) -> tuple[int, int, int]:
    """``"#RRGGBB"`` -> ``(r, g, b)``."""
    s = text.lstrip("#")
    if len(s) != 6:
        raise CalibrationError(f"bad colour {text!r}: expected #RRGGBB")
    return int(s[0:2], 16), int(s[2:4], 16), int(s[4:6], 16)


@dataclass(frozen=True)
class Patch:
    """One colour patch: its name, printed sRGB colour and rectangle ``(x0, y0, x1, y1)`` in mm."""

    name: str
    rgb: tuple[int, int, int]
    neutral: bool
    rect_mm: RectMM

    @property
    def bgr(self) -> tuple[int, int, int]:
        r, g, b = self.rgb
        return b, g, r


@dataclass(frozen=True)
class Marker:
    """One ArUco marker: id, 1-based number printed beside it, and its corners (TL, TR, BR, BL) in mm."""

    id: int
    number: int
    corners_mm: tuple[PointMM, PointMM, PointMM, PointMM]


@dataclass(frozen=True)
class SheetGeometry:
    """Where everything lies on a calibration sheet of one paper size, in mm."""

    paper: str
    size_mm: tuple[float, float]
    dictionary: str
    markers: tuple[Marker, ...]
    patches: tuple[Patch, ...]
    scale_bar_mm: RectMM
    text_origin_mm: PointMM
    text_height_mm: float
    instructions: str

    @property
    def corners_mm(self) -> tuple[PointMM, PointMM, PointMM, PointMM]:
        """The sheet's own corners (TL, TR, BR, BL)."""
        w, h = self.size_mm
        return (0.0, 0.0), (w, 0.0), (w, h), (0.0, h)

    def marker_points(self) -> dict[int, NDArray[np.float64]]:
        """Marker id -> ``(4, 2)`` float64 corner positions in mm."""
        return {m.id: np.asarray(m.corners_mm, dtype=np.float64) for m in self.markers}


def _paper_size(data: dict[str, Any], paper: str) -> tuple[float, float]:
    papers = data["papers"]
    if paper not in papers:
        raise CalibrationError(f"unknown paper {paper!r}; choose one of {', '.join(sorted(papers))}")
    w, h = papers[paper]["size_mm"]
    return float(w), float(h)


@cache
def sheet_geometry(paper: str = "a4") -> SheetGeometry:
    """The layout of the calibration sheet for ``paper`` (``"a4"`` or ``"letter"``)."""
    data = load_data("sheet")
    w, h = _paper_size(data, paper)
    m, s = float(data["margin_mm"]), float(data["marker_mm"])
    origins = ((m, m), (w - m - s, m), (w - m - s, h - m - s), (m, h - m - s))
    markers = tuple(
        Marker(int(mid), i + 1, ((x, y), (x + s, y), (x + s, y + s), (x, y + s)))
        for i, (mid, (x, y)) in enumerate(zip(data["papers"][paper]["marker_ids"], origins, strict=True))
    )
    ps, gap, cols = float(data["patch_mm"]), float(data["patch_gap_mm"]), int(data["patch_columns"])
    x0 = (w - (cols * ps + (cols - 1) * gap)) / 2.0
    y0 = float(data["patch_top_mm"])
    patches = []
    for i, p in enumerate(load_data("patches")["patches"]):
        r, c = divmod(i, cols)
        px, py = x0 + c * (ps + gap), y0 + r * (ps + gap)
        rect = (px, py, px + ps, py + ps)
        patches.append(Patch(str(p["name"]), hex_to_rgb(p["rgb"]), bool(p["neutral"]), rect))
    rows = -(-len(patches) // cols)
    bar_len, bar_h = float(data["scale_bar_mm"]), float(data["scale_bar_height_mm"])
    bar_y = y0 + rows * (ps + gap) + float(data["scale_bar_gap_mm"])
    bar = ((w - bar_len) / 2.0, bar_y, (w + bar_len) / 2.0, bar_y + bar_h)
    text_y = bar[3] + float(data["scale_bar_gap_mm"]) + float(data["text_height_mm"])
    return SheetGeometry(
        paper=paper,
        size_mm=(w, h),
        dictionary=str(data["aruco_dictionary"]),
        markers=markers,
        patches=tuple(patches),
        scale_bar_mm=bar,
        text_origin_mm=(m, text_y),
        text_height_mm=float(data["text_height_mm"]),
        instructions=str(data["instructions"]),
    )


def _put_text_fitted(canvas: NDArray[np.uint8], text: str, origin_px: tuple[int, int],
                     height_px: float, max_width_px: float) -> None:
    font = cv2.FONT_HERSHEY_SIMPLEX
    (tw, th), _ = cv2.getTextSize(text, font, 1.0, 1)
    scale = min(height_px / max(th, 1), max_width_px / max(tw, 1))
    thick = max(1, round(scale * 1.6))
    cv2.putText(canvas, text, origin_px, font, scale, (0, 0, 0), thick, cv2.LINE_AA)


def _blank(size_mm: tuple[float, float], px_per_mm: float) -> NDArray[np.uint8]:
    w, h = size_mm
    return np.full((round(h * px_per_mm), round(w * px_per_mm), 3), 255, dtype=np.uint8)


def render_sheet(paper: str = "a4", px_per_mm: float = 300 / 25.4) -> NDArray[np.uint8]:
    """Draw the calibration sheet.

    Parameters
    ----------
    paper : {"a4", "letter"}
    px_per_mm : float
        Resolution; 300 dpi is ``300 / 25.4``.

    Returns
    -------
    (H, W, 3) uint8 array
        BGR image of the whole page, white paper.
    """
    if px_per_mm <= 0:
        raise CalibrationError("px_per_mm must be positive")
    geo = sheet_geometry(paper)
    page = _blank(geo.size_mm, px_per_mm)
    dictionary = aruco_dictionary(geo.dictionary)

    def px(v: float) -> int:
        return round(v * px_per_mm)

    for mk in geo.markers:
        (x0, y0), _, (x1, y1), _ = mk.corners_mm
        side = px(x1) - px(x0)
        img = cv2.aruco.generateImageMarker(dictionary, mk.id, side, borderBits=1)
        page[px(y0):px(y0) + side, px(x0):px(x0) + side] = img[:, :, None]
        label_x = px(x1) + px(2.0) if mk.number in (1, 4) else px(x0) - px(8.0)
        _put_text_fitted(page, str(mk.number), (label_x, px(y0) + px(6.0)), px(5.0), px(6.0))
    for p in geo.patches:
        x0, y0, x1, y1 = p.rect_mm
        cv2.rectangle(page, (px(x0), px(y0)), (px(x1) - 1, px(y1) - 1), p.bgr, thickness=-1)
        # A thin outline so the white patch is visible on paper; it lies outside the sampled centre.
        cv2.rectangle(page, (px(x0), px(y0)), (px(x1) - 1, px(y1) - 1), (160, 160, 160), max(1, px(0.3)))
        _put_text_fitted(page, p.name, (px(x0), px(y1) + px(4.0)), px(2.5), px(x1 - x0))
    bx0, by0, bx1, by1 = geo.scale_bar_mm
    for i in range(10):
        colour = (0, 0, 0) if i % 2 == 0 else (255, 255, 255)
        xa, xb = bx0 + (bx1 - bx0) * i / 10.0, bx0 + (bx1 - bx0) * (i + 1) / 10.0
        cv2.rectangle(page, (px(xa), px(by0)), (px(xb), px(by1)), colour, thickness=-1)
    cv2.rectangle(page, (px(bx0), px(by0)), (px(bx1), px(by1)), (0, 0, 0), max(1, px(0.4)))
    _put_text_fitted(page, "100 mm", (px(bx1) + px(3.0), px(by1)), px(geo.text_height_mm), px(25.0))
    tx, ty = geo.text_origin_mm
    _put_text_fitted(page, geo.instructions, (px(tx), px(ty)), px(geo.text_height_mm),
                     px(geo.size_mm[0] - 2 * tx))
    return page


@dataclass(frozen=True)
class CharucoSpec:
    """The ChArUco lens board: squares (columns, rows), sizes in mm, dictionary, offset on the page."""

    squares: tuple[int, int]
    square_mm: float
    marker_mm: float
    dictionary: str
    offset_mm: PointMM
    instructions: str

    def board(self) -> cv2.aruco.CharucoBoard:
        """The OpenCV board object (object points in mm)."""
        return cv2.aruco.CharucoBoard(self.squares, self.square_mm, self.marker_mm,
                                      aruco_dictionary(self.dictionary))


def charuco_spec(paper: str = "a4") -> CharucoSpec:
    """The ChArUco board printed by ``goldtable calibration-sheet --charuco`` on ``paper``."""
    data = load_data("sheet")
    w, h = _paper_size(data, paper)
    c = data["charuco"]
    cols, rows = (int(v) for v in c["squares"])
    sq = float(c["square_mm"])
    return CharucoSpec((cols, rows), sq, float(c["marker_mm"]), str(c["dictionary"]),
                       ((w - cols * sq) / 2.0, (h - rows * sq) / 2.0), str(c["instructions"]))


def render_charuco(paper: str = "a4", px_per_mm: float = 300 / 25.4) -> NDArray[np.uint8]:
    """Draw the ChArUco lens-calibration page.

    Returns
    -------
    (H, W, 3) uint8 array
        BGR page with the board centred and one line of instructions above it.
    """
    if px_per_mm <= 0:
        raise CalibrationError("px_per_mm must be positive")
    data = load_data("sheet")
    size = _paper_size(data, paper)
    spec = charuco_spec(paper)
    page = _blank(size, px_per_mm)
    cols, rows = spec.squares
    bw, bh = round(cols * spec.square_mm * px_per_mm), round(rows * spec.square_mm * px_per_mm)
    board_img = spec.board().generateImage((bw, bh), marginSize=0, borderBits=1)
    ox, oy = round(spec.offset_mm[0] * px_per_mm), round(spec.offset_mm[1] * px_per_mm)
    page[oy:oy + bh, ox:ox + bw] = board_img[:, :, None]
    margin = float(data["margin_mm"])
    _put_text_fitted(page, spec.instructions, (round(margin * px_per_mm), oy - round(4 * px_per_mm)),
                     float(data["text_height_mm"]) * px_per_mm, (size[0] - 2 * margin) * px_per_mm)
    return page


def write_sheet(path: str | Path, paper: str = "a4", charuco: bool = False, dpi: int | None = None) -> Path:
    """Write the calibration sheet (or the ChArUco page) as PNG or PDF at ``dpi``.

    The file type follows the suffix (``.png`` or ``.pdf``). Printed at 100 % scale, the scale
    bar measures 100 mm.

    Raises
    ------
    CalibrationError
        For an unknown suffix or paper, or when the file cannot be written (the message names it).
    """
    out = Path(path)
    suffix = out.suffix.lower()
    if suffix not in (".png", ".pdf"):
        raise CalibrationError(f"{out}: the sheet is written as .png or .pdf")
    res = int(dpi if dpi is not None else load_data("sheet")["default_dpi"])
    if not 72 <= res <= 1200:
        raise CalibrationError(f"dpi {res} is out of range (72..1200)")
    page = (render_charuco if charuco else render_sheet)(paper, res / 25.4)
    img = Image.fromarray(cv2.cvtColor(page, cv2.COLOR_BGR2RGB))
    try:
        if suffix == ".pdf":
            img.save(out, "PDF", resolution=float(res))
        else:
            img.save(out, "PNG", dpi=(res, res))
    except OSError as exc:
        raise CalibrationError(f"{out}: cannot write the file ({exc.strerror or exc})") from exc
    return out
