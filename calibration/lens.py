"""Optional lens calibration from 10+ views of the ChArUco board.

``goldtable calibration-sheet --charuco`` prints the board. :class:`LensCollector` accepts
frames one by one, keeps those that show enough board corners from a new position, and
:meth:`LensCollector.fit` fits the pinhole camera matrix and distortion coefficients
(``cv2.calibrateCamera``). :class:`LensModel` undoes the distortion of later frames.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.errors import CalibrationError
from calibration.sheet import charuco_spec, load_section

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class LensConfig:
    """Tunables of lens calibration (``calibration.json``, section ``lens``).

    ``min_shift_frac``: a view is kept only if its board corners moved on average by at least
    this fraction of the image diagonal from every view kept so far.
    """

    min_views: int
    min_corners: int
    min_shift_frac: float
    max_rms_px: float
    max_views: int


def default_config() -> LensConfig:
    return load_section("calibration", "lens", LensConfig)


@dataclass(frozen=True)
class LensModel:
    """A fitted lens: camera matrix and distortion for images of ``image_size`` (width, height)."""

    image_size: tuple[int, int]
    camera_matrix: tuple[tuple[float, float, float], ...]
    dist_coeffs: tuple[float, ...]
    rms_px: float
    views: int
    _maps: dict[tuple[int, int], tuple[NDArray[np.float32], NDArray[np.float32]]] = field(
        default_factory=dict, compare=False, repr=False)

    def matrix_for(self, size: tuple[int, int]) -> NDArray[np.float64]:
        """``(3, 3)`` camera matrix scaled to an image of ``size`` (same camera, resized frames)."""
        k = np.asarray(self.camera_matrix, np.float64).copy()
        sx, sy = size[0] / self.image_size[0], size[1] / self.image_size[1]
        k[0] *= sx
        k[1] *= sy
        k[2] = (0.0, 0.0, 1.0)
        return k

    def undistort(self, image: NDArray[np.uint8]) -> NDArray[np.uint8]:
        """Undo the lens distortion.

        Parameters
        ----------
        image : (H, W, 3) uint8 array

        Returns
        -------
        (H, W, 3) uint8 array
            Same shape and camera matrix, distortion removed.
        """
        h, w = image.shape[:2]
        maps = self._maps.get((w, h))
        if maps is None:
            k = self.matrix_for((w, h))
            maps = cv2.initUndistortRectifyMap(k, np.asarray(self.dist_coeffs, np.float64), None, k,
                                               (w, h), cv2.CV_32FC1)
            self._maps[(w, h)] = maps
        return cv2.remap(image, maps[0], maps[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

    def to_json(self) -> dict[str, Any]:
        return {
            "image_size": list(self.image_size),
            "camera_matrix": [[float(v) for v in row] for row in self.camera_matrix],
            "dist_coeffs": [float(v) for v in self.dist_coeffs],
            "rms_px": round(float(self.rms_px), 4),
            "views": int(self.views),
        }

    @classmethod
    def from_json(cls, data: Any) -> LensModel:
        """Inverse of :meth:`to_json`; raises :class:`CalibrationError` naming the bad field."""
        if not isinstance(data, Mapping):
            raise CalibrationError("lens: expected an object")
        size = data.get("image_size")
        if (not isinstance(size, Sequence) or len(size) != 2
                or not all(isinstance(v, int) and v > 0 for v in size)):
            raise CalibrationError("lens.image_size: expected [width, height] in pixels")
        rows = data.get("camera_matrix")
        if not isinstance(rows, Sequence) or len(rows) != 3 or not all(
                isinstance(r, Sequence) and len(r) == 3 and all(isinstance(v, int | float) for v in r)
                for r in rows):
            raise CalibrationError("lens.camera_matrix: expected 3 rows of 3 numbers")
        dist = data.get("dist_coeffs")
        if not isinstance(dist, Sequence) or not 4 <= len(dist) <= 14 or not all(
                isinstance(v, int | float) for v in dist):
            raise CalibrationError("lens.dist_coeffs: expected 4 to 14 numbers")
        rms, views = data.get("rms_px", 0.0), data.get("views", 0)
        if not isinstance(rms, int | float) or not isinstance(views, int):
            raise CalibrationError("lens.rms_px / lens.views: expected numbers")
        return cls((int(size[0]), int(size[1])), tuple(tuple(float(v) for v in r) for r in rows),
                   tuple(float(v) for v in dist), float(rms), int(views))


def detect_charuco(image: NDArray[np.uint8], paper: str = "a4"
                   ) -> tuple[NDArray[np.float32], NDArray[np.float32]] | None:
    """Find the ChArUco board's inner corners.

    Parameters
    ----------
    image : (H, W, 3) or (H, W) uint8 array

    Returns
    -------
    (object_points, image_points) or None
        ``(N, 3)`` float32 board points in mm and ``(N, 2)`` float32 image points, or ``None``
        when the board is not in view.
    """
    board = charuco_spec(paper).board()
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    corners, ids, _, _ = cv2.aruco.CharucoDetector(board).detectBoard(gray)
    if ids is None or corners is None or len(ids) < 4:
        return None
    obj, img = board.matchImagePoints(corners, ids)
    if obj is None or img is None or len(obj) < 4:
        return None
    return np.asarray(obj, np.float32).reshape(-1, 3), np.asarray(img, np.float32).reshape(-1, 2)


class LensCollector:
    """Collects ChArUco views frame by frame, then fits the lens.

    Parameters
    ----------
    paper : {"a4", "letter"}
        The paper the ChArUco page was printed on.
    config : LensConfig, optional
    progress : callable(count, needed), optional
        Called each time a view is kept.
    """

    def __init__(self, paper: str = "a4", config: LensConfig | None = None,
                 progress: Progress | None = None) -> None:
        self.paper = paper
        self.config = config or default_config()
        self.progress = progress
        self._views: list[tuple[NDArray[np.float32], NDArray[np.float32]]] = []
        self._size: tuple[int, int] | None = None

    @property
    def count(self) -> int:
        return len(self._views)

    @property
    def enough(self) -> bool:
        return self.count >= self.config.min_views

    def add(self, image: NDArray[np.uint8]) -> bool:
        """Offer a frame; returns whether it was kept as a new view.

        Raises
        ------
        CalibrationError
            When the frame size differs from the earlier frames'.
        """
        h, w = image.shape[:2]
        if self._size is None:
            self._size = (w, h)
        elif self._size != (w, h):
            raise CalibrationError(f"lens views must all have the same size: {w}x{h} after "
                                   f"{self._size[0]}x{self._size[1]}")
        if self.count >= self.config.max_views:
            return False
        found = detect_charuco(image, self.paper)
        if found is None or len(found[0]) < self.config.min_corners:
            return False
        obj, img = found
        diag = float(np.hypot(w, h))
        for obj_prev, img_prev in self._views:
            shared = _shared_motion(obj, img, obj_prev, img_prev)
            if shared is not None and shared < self.config.min_shift_frac * diag:
                return False
        self._views.append((obj, img))
        if self.progress is not None:
            self.progress(self.count, self.config.min_views)
        return True

    def fit(self) -> LensModel:
        """Fit the lens from the kept views.

        Raises
        ------
        CalibrationError
            With fewer than ``min_views`` views, or when the fit error is too large.
        """
        if not self.enough or self._size is None:
            raise CalibrationError(f"lens calibration needs {self.config.min_views} views of the ChArUco "
                                   f"board from different positions; got {self.count}")
        objs = [v[0] for v in self._views]
        imgs = [v[1] for v in self._views]
        rms, k, dist, _, _ = cv2.calibrateCamera(objs, imgs, self._size, None, None)
        if not np.isfinite(rms) or rms > self.config.max_rms_px:
            raise CalibrationError(f"lens calibration failed: the fit error is {rms:.2f} px "
                                   f"(at most {self.config.max_rms_px}); hold the board flat and still")
        return LensModel(self._size, tuple(tuple(float(v) for v in row) for row in k),
                         tuple(float(v) for v in np.asarray(dist).reshape(-1)), float(rms), self.count)


def _shared_motion(obj: NDArray[np.float32], img: NDArray[np.float32], obj_prev: NDArray[np.float32],
                   img_prev: NDArray[np.float32]) -> float | None:
    """Mean image motion of the board corners seen in both views, or None if none are shared."""
    prev = {tuple(np.round(o, 3)): i for o, i in zip(obj_prev, img_prev, strict=True)}
    moves = [float(np.linalg.norm(i - prev[key])) for o, i in zip(obj, img, strict=True)
             if (key := tuple(np.round(o, 3))) in prev]
    return float(np.mean(moves)) if moves else None


def calibrate_lens(images: Iterable[NDArray[np.uint8]], paper: str = "a4", config: LensConfig | None = None,
                   progress: Progress | None = None) -> LensModel:
    """Fit the lens from frames showing the ChArUco board; stops reading once ``max_views`` are kept.

    Raises
    ------
    CalibrationError
        When too few usable views were found.
    """
    collector = LensCollector(paper, config, progress)
    for image in images:
        collector.add(image)
        if collector.count >= collector.config.max_views:
            break
    return collector.fit()
