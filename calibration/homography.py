"""Find the calibration sheet in a photo: the table homography, the scale and a verdict.

The table frame is the sheet's frame: millimetres from the sheet's top-left corner, x right,
y down. :func:`find_table` detects the sheet's ArUco markers (either paper size; each has its
own marker ids), fits the image-to-table homography to every marker corner, and judges the
view: ``"good"``, or what to fix ("sheet too small in view", "markers 2 and 4 not found",
"sheet seen too obliquely").
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.errors import CalibrationError, PoorView, SheetNotFound
from calibration.sheet import PAPERS, aruco_dictionary, load_section, sheet_geometry

PointPx = tuple[float, float]
Matrix3x3 = tuple[tuple[float, float, float], ...]


@dataclass(frozen=True)
class TableConfig:
    """Tunables of the table fit (``calibration.json``, section ``table``).

    ``max_mm_per_px`` and ``min_marker_px`` decide "too small in view"; ``max_oblique_deg`` "too
    oblique"; ``sample_px_per_mm`` is the resolution of the top-down view used to read the
    patches, of which the central part (``patch_inset`` trimmed from each side) is measured; a
    patch whose spread exceeds ``max_patch_spread`` (glare, a finger) is not used.
    """

    min_markers: int
    max_mm_per_px: float
    min_marker_px: float
    max_oblique_deg: float
    max_reprojection_px: float
    sample_px_per_mm: float
    patch_inset: float
    max_patch_spread: float


def default_config() -> TableConfig:
    return load_section("calibration", "table", TableConfig)


@dataclass(frozen=True)
class MarkerView:
    """One detected sheet marker: ArUco id, its number on the sheet (1-4), corners in image px."""

    id: int
    number: int
    corners_px: tuple[PointPx, PointPx, PointPx, PointPx]


@dataclass(frozen=True)
class TableView:
    """The sheet as seen in one image, and what it tells about the table.

    Attributes
    ----------
    paper : str
        Which sheet was found (``"a4"`` or ``"letter"``).
    image_size : (width, height)
    image_to_table : 3x3 nested tuple
        Homography from image px to table mm (the sheet's frame).
    markers : tuple of MarkerView
    missing : tuple of int
        Numbers (1-4) of the markers not found.
    reprojection_px : float
        RMS distance between detected marker corners and the fitted homography's, in px.
    mm_per_px : float
        Scale at the sheet centre.
    oblique_deg : float
        How far from straight-on the sheet is seen, from the anisotropy of the local scale.
    problems : tuple of str
        What to fix; empty when the view is good.
    """

    paper: str
    image_size: tuple[int, int]
    image_to_table: Matrix3x3
    markers: tuple[MarkerView, ...]
    missing: tuple[int, ...]
    reprojection_px: float
    mm_per_px: float
    oblique_deg: float
    problems: tuple[str, ...]

    @property
    def verdict(self) -> str:
        return "good" if not self.problems else "; ".join(self.problems)

    @property
    def good(self) -> bool:
        return not self.problems

    @property
    def homography(self) -> NDArray[np.float64]:
        """``(3, 3)`` float64: image px -> table mm."""
        return np.asarray(self.image_to_table, np.float64)

    @property
    def table_to_image(self) -> NDArray[np.float64]:
        """``(3, 3)`` float64: table mm -> image px."""
        inv = np.linalg.inv(self.homography)
        return inv / inv[2, 2]

    def sheet_quad_px(self) -> NDArray[np.float64]:
        """``(4, 2)`` float64: the sheet's corners (TL, TR, BR, BL) in image px."""
        return apply_homography(self.table_to_image, sheet_geometry(self.paper).corners_mm)


def apply_homography(homography: NDArray[np.float64], points: object) -> NDArray[np.float64]:
    """Map ``(N, 2)`` points through a ``(3, 3)`` homography; returns ``(N, 2)`` float64."""
    pts = np.asarray(points, np.float64).reshape(-1, 2)
    h = np.column_stack([pts, np.ones(len(pts))]) @ np.asarray(homography, np.float64).T
    return h[:, :2] / h[:, 2:3]


def _jacobian(homography: NDArray[np.float64], point: NDArray[np.float64]) -> NDArray[np.float64]:
    """``(2, 2)`` derivative of the homography at ``point``."""
    x, y = float(point[0]), float(point[1])
    h = homography
    w = h[2, 0] * x + h[2, 1] * y + h[2, 2]
    u = h[0, 0] * x + h[0, 1] * y + h[0, 2]
    v = h[1, 0] * x + h[1, 1] * y + h[1, 2]
    return np.array([
        [(h[0, 0] * w - u * h[2, 0]) / w**2, (h[0, 1] * w - u * h[2, 1]) / w**2],
        [(h[1, 0] * w - v * h[2, 0]) / w**2, (h[1, 1] * w - v * h[2, 1]) / w**2],
    ])


def _gray(image: NDArray[np.uint8]) -> NDArray[np.uint8]:
    if image.ndim == 2:
        return image
    if image.ndim == 3 and image.shape[2] == 3:
        return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    raise CalibrationError("expected an (H, W, 3) BGR or (H, W) grey uint8 image")


def _check_image(image: NDArray[np.uint8]) -> None:
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8 or image.size == 0:
        raise CalibrationError("expected a non-empty uint8 image")


def detect_markers(image: NDArray[np.uint8]) -> tuple[str, tuple[MarkerView, ...]]:
    """Detect the sheet markers of either paper size.

    Parameters
    ----------
    image : (H, W, 3) or (H, W) uint8 array

    Returns
    -------
    (paper, markers)
        The paper whose markers were found most (``"a4"`` on a tie or when none were found),
        and its markers sorted by number.
    """
    _check_image(image)
    gray = _gray(image)
    best: tuple[str, tuple[MarkerView, ...]] = (PAPERS[0], ())
    by_dict: dict[str, tuple[NDArray[np.float32], ...] | None] = {}
    for paper in PAPERS:
        geo = sheet_geometry(paper)
        if geo.dictionary not in by_dict:
            params = cv2.aruco.DetectorParameters()
            params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
            detector = cv2.aruco.ArucoDetector(aruco_dictionary(geo.dictionary), params)
            corners, ids, _ = detector.detectMarkers(gray)
            by_dict[geo.dictionary] = None if ids is None else (corners, ids)  # type: ignore[assignment]
        found = by_dict[geo.dictionary]
        if found is None:
            continue
        corners, ids = found
        numbers = {m.id: m.number for m in geo.markers}
        views: dict[int, MarkerView] = {}
        for c, i in zip(corners, np.asarray(ids).reshape(-1), strict=True):
            mid = int(i)
            if mid in numbers and numbers[mid] not in views:
                pts = tuple((float(x), float(y)) for x, y in np.asarray(c).reshape(4, 2))
                views[numbers[mid]] = MarkerView(mid, numbers[mid], pts)  # type: ignore[arg-type]
        if len(views) > len(best[1]):
            best = (paper, tuple(views[k] for k in sorted(views)))
    return best


def _and_list(numbers: list[int]) -> str:
    words = [str(n) for n in numbers]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def find_table(image: NDArray[np.uint8], config: TableConfig | None = None) -> TableView:
    """Find the calibration sheet and fit the table homography.

    Parameters
    ----------
    image : (H, W, 3) uint8 array
        BGR photo with the sheet lying flat on the table (lens distortion already undone).
    config : TableConfig, optional

    Returns
    -------
    TableView
        The fit and its verdict; ``problems`` lists what to fix.

    Raises
    ------
    SheetNotFound
        When fewer than ``min_markers`` sheet markers are visible.
    PoorView
        When the markers cannot give a homography (degenerate geometry).
    """
    cfg = config or default_config()
    paper, markers = detect_markers(image)
    geo = sheet_geometry(paper)
    all_numbers = [m.number for m in geo.markers]
    missing = [n for n in all_numbers if n not in {m.number for m in markers}]
    if not markers:
        raise SheetNotFound("no calibration sheet found in the image: none of its four corner markers is "
                            "visible (print it with `goldtable calibration-sheet` and lay it flat in view)")
    if len(markers) < cfg.min_markers:
        seen = _and_list([m.number for m in markers])
        raise SheetNotFound(f"calibration sheet not found: only marker {seen} is visible; "
                            f"markers {_and_list(missing)} not found")
    mm_by_number = {m.number: np.asarray(m.corners_mm, np.float64) for m in geo.markers}
    img_pts = np.concatenate([np.asarray(m.corners_px, np.float64) for m in markers])
    mm_pts = np.concatenate([mm_by_number[m.number] for m in markers])
    hom, _ = cv2.findHomography(img_pts, mm_pts, 0)
    if hom is None or not np.all(np.isfinite(hom)) or abs(np.linalg.det(hom)) < 1e-15:
        raise PoorView("the sheet's markers do not give a usable table view (are they all on one line?)")
    hom = hom / hom[2, 2]
    inv = np.linalg.inv(hom)
    inv /= inv[2, 2]
    back = apply_homography(inv, mm_pts)
    reproj = float(np.sqrt(np.mean(np.sum((back - img_pts) ** 2, axis=1))))
    centre_mm = np.asarray(geo.size_mm, np.float64) / 2.0
    centre_px = apply_homography(inv, centre_mm)[0]
    mm_per_px = float(math.sqrt(abs(np.linalg.det(_jacobian(hom, centre_px)))))
    sv = np.linalg.svd(_jacobian(inv, centre_mm), compute_uv=False)
    oblique = float(math.degrees(math.acos(float(np.clip(sv[1] / max(sv[0], 1e-12), 0.0, 1.0)))))
    marker_px = min(float(np.linalg.norm(np.subtract(m.corners_px[1], m.corners_px[0]))) for m in markers)

    problems: list[str] = []
    if missing:
        problems.append(f"markers {_and_list(missing)} not found" if len(missing) > 1
                        else f"marker {missing[0]} not found")
    if oblique > cfg.max_oblique_deg:
        problems.append(f"sheet seen too obliquely ({oblique:.0f} degrees from straight on; at most "
                        f"{cfg.max_oblique_deg:.0f}): look down on the table more steeply")
    if mm_per_px > cfg.max_mm_per_px or marker_px < cfg.min_marker_px:
        problems.append(f"sheet too small in view ({mm_per_px:.2f} mm per pixel; at most "
                        f"{cfg.max_mm_per_px:.2f}): move the camera closer or raise its resolution")
    if reproj > cfg.max_reprojection_px:
        problems.append(f"markers do not line up (reprojection error {reproj:.1f} px): lay the sheet flat")
    h, w = image.shape[:2]
    return TableView(
        paper=paper,
        image_size=(int(w), int(h)),
        image_to_table=tuple(tuple(float(v) for v in row) for row in hom),
        markers=markers,
        missing=tuple(missing),
        reprojection_px=reproj,
        mm_per_px=mm_per_px,
        oblique_deg=oblique,
        problems=tuple(problems),
    )


def table_view(
    image: NDArray[np.uint8],
    view: TableView,
    px_per_mm: float,
    region_mm: tuple[float, float, float, float] | None = None,
) -> NDArray[np.uint8]:
    """The top-down view of a region of the table.

    Parameters
    ----------
    image : (H, W, 3) uint8 array
    view : TableView
    px_per_mm : float
        Output resolution.
    region_mm : (x0, y0, x1, y1), optional
        Table rectangle in mm; the sheet by default.

    Returns
    -------
    (h, w, 3) uint8 array
        ``h = round((y1 - y0) * px_per_mm)``, ``w`` likewise.
    """
    if px_per_mm <= 0:
        raise CalibrationError("px_per_mm must be positive")
    if region_mm is None:
        sw, sh = sheet_geometry(view.paper).size_mm
        region_mm = (0.0, 0.0, sw, sh)
    x0, y0, x1, y1 = region_mm
    if x1 <= x0 or y1 <= y0:
        raise CalibrationError("region_mm must have x1 > x0 and y1 > y0")
    out_w, out_h = max(1, round((x1 - x0) * px_per_mm)), max(1, round((y1 - y0) * px_per_mm))
    # output pixel centre (i, j) lies at table mm (x0 + (i + 0.5) / s, y0 + (j + 0.5) / s)
    s = px_per_mm
    out_to_mm = np.array([[1 / s, 0, x0 + 0.5 / s], [0, 1 / s, y0 + 0.5 / s], [0, 0, 1.0]])
    m = view.table_to_image @ out_to_mm
    return cv2.warpPerspective(image, m, (out_w, out_h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))


def sample_patches(
    image: NDArray[np.uint8], view: TableView, config: TableConfig | None = None
) -> dict[str, tuple[float, float, float]]:
    """Measure each colour patch of the sheet.

    The median colour of the central part of each patch in the top-down view. Patches partly
    outside the image, or with a large spread (glare, a finger), are left out.

    Returns
    -------
    dict
        Patch name -> BGR floats in 0..255.
    """
    cfg = config or default_config()
    s = cfg.sample_px_per_mm
    top = table_view(image, view, s)
    inside = table_view(np.full((*image.shape[:2], 3), 255, np.uint8), view, s)[:, :, 0]
    out: dict[str, tuple[float, float, float]] = {}
    for p in sheet_geometry(view.paper).patches:
        x0, y0, x1, y1 = p.rect_mm
        dx, dy = (x1 - x0) * cfg.patch_inset, (y1 - y0) * cfg.patch_inset
        c0, c1 = round((x0 + dx) * s), round((x1 - dx) * s)
        r0, r1 = round((y0 + dy) * s), round((y1 - dy) * s)
        if c1 - c0 < 2 or r1 - r0 < 2:
            continue
        if r0 < 0 or c0 < 0 or r1 > top.shape[0] or c1 > top.shape[1]:
            continue
        if int(inside[r0:r1, c0:c1].min()) < 255:
            continue
        pix = top[r0:r1, c0:c1].reshape(-1, 3).astype(np.float64)
        lo, hi = np.percentile(pix, [10, 90], axis=0)
        if float((hi - lo).max()) > cfg.max_patch_spread:
            continue
        med = np.median(pix, axis=0)
        out[p.name] = (float(med[0]), float(med[1]), float(med[2]))
    return out


def require_good(view: TableView) -> TableView:
    """Return ``view`` if its verdict is good, else raise :class:`PoorView` with the verdict."""
    if view.problems:
        raise PoorView(view.verdict)
    return view


def draw_table_view(image: NDArray[np.uint8], view: TableView) -> NDArray[np.uint8]:
    """Debug overlay: the sheet outline, the markers with their numbers, and the verdict.

    Returns
    -------
    (H, W, 3) uint8 array
        A copy of ``image`` with the overlay drawn.
    """
    out = image.copy()
    quad = view.sheet_quad_px().astype(np.int32)
    colour = (0, 200, 0) if view.good else (0, 0, 230)
    cv2.polylines(out, [quad], True, colour, 2, cv2.LINE_AA)
    for m in view.markers:
        pts = np.asarray(m.corners_px, np.int32)
        cv2.polylines(out, [pts], True, (255, 128, 0), 2, cv2.LINE_AA)
        cv2.putText(out, str(m.number), tuple(int(v) for v in pts[0]), cv2.FONT_HERSHEY_SIMPLEX, 1.0,
                    (255, 128, 0), 2, cv2.LINE_AA)
    cv2.putText(out, view.verdict[:80], (10, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.8, colour, 2, cv2.LINE_AA)
    return out


__all__ = [
    "MarkerView",
    "TableConfig",
    "TableView",
    "apply_homography",
    "detect_markers",
    "draw_table_view",
    "find_table",
    "require_good",
    "sample_patches",
    "table_view",
]
