"""Lens calibration from ChArUco views."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from calibration.errors import CalibrationError
from calibration.lens import LensCollector, LensConfig, LensModel, calibrate_lens
from calibration.sheet import render_charuco
from vision.synth.camera import Conditions, Placement, camera_config, photograph

SIZE = (640, 480)


def _views(rng: np.random.Generator, n: int) -> list[np.ndarray]:
    face = render_charuco("a4", 3.0)
    out = []
    for _ in range(n):
        cond = Conditions(size=SIZE, table_mm=(400.0, 300.0), tilt_deg=float(rng.uniform(15, 35)),
                          yaw_deg=float(rng.uniform(-180, 180)), zoom=float(rng.uniform(0.9, 1.2)))
        x, y = rng.uniform(60, 130), rng.uniform(0, 20)
        corners = ((x, y), (x + 210, y), (x + 210, y + 297), (x, y + 297))
        out.append(photograph([Placement(face, corners, glossy=False)], cond, rng).image)
    return out


def test_lens_fit_recovers_the_focal_length(rng: np.random.Generator) -> None:
    counts: list[tuple[int, int]] = []
    model = calibrate_lens(_views(rng, 14), progress=lambda c, n: counts.append((c, n)))
    true_f = (SIZE[0] / 2) / math.tan(math.radians(camera_config().hfov_deg) / 2)
    k = np.asarray(model.camera_matrix)
    assert k[0, 0] == pytest.approx(true_f, rel=0.03)
    assert k[1, 1] == pytest.approx(true_f, rel=0.03)
    assert model.rms_px < 0.5 and model.views >= 10
    assert counts[0] == (1, 10) and counts[-1][0] == model.views
    back = LensModel.from_json(model.to_json())
    assert back.camera_matrix == model.camera_matrix and back.dist_coeffs == model.dist_coeffs


def test_repeated_views_do_not_count(rng: np.random.Generator) -> None:
    view = _views(rng, 1)[0]
    collector = LensCollector()
    assert collector.add(view)
    assert not collector.add(view)
    assert not collector.add(np.zeros_like(view))
    with pytest.raises(CalibrationError, match="needs 10 views"):
        collector.fit()
    with pytest.raises(CalibrationError, match="same size"):
        collector.add(np.zeros((10, 10, 3), np.uint8))


def test_undistort_removes_known_distortion() -> None:
    k = ((400.0, 0.0, 160.0), (0.0, 400.0, 120.0), (0.0, 0.0, 1.0))
    model = LensModel((320, 240), k, (-0.3, 0.0, 0.0, 0.0, 0.0), 0.1, 10)
    # a straight line bent by the lens is straight again after undistortion
    straight = np.zeros((240, 320, 3), np.uint8)
    cv2.line(straight, (10, 20), (310, 20), (255, 255, 255), 3)
    kk = np.asarray(k)
    ys, xs = np.mgrid[0:240, 0:320].astype(np.float32)
    pts = np.stack([xs.ravel(), ys.ravel()], 1).reshape(-1, 1, 2)
    # for every distorted pixel, where it comes from in the ideal image
    ideal = cv2.undistortPoints(pts, kk, np.asarray(model.dist_coeffs), P=kk).reshape(240, 320, 2)
    bent = cv2.remap(straight, ideal[..., 0], ideal[..., 1], cv2.INTER_LINEAR)
    fixed = model.undistort(bent)
    assert fixed.shape == bent.shape

    def rows_hit(img: np.ndarray) -> int:
        return int(np.ptp(np.nonzero(img[:, 40:280, 0] > 128)[0]))

    assert rows_hit(bent) >= rows_hit(straight) + 3
    assert rows_hit(fixed) <= rows_hit(straight) + 1
    # a resized frame of the same camera uses a scaled matrix
    assert model.matrix_for((640, 480))[0, 0] == pytest.approx(800.0)


def test_bad_lens_json() -> None:
    with pytest.raises(CalibrationError, match=r"lens\.dist_coeffs"):
        LensModel.from_json({"image_size": [640, 480], "camera_matrix": [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
                             "dist_coeffs": [1]})
    with pytest.raises(CalibrationError, match=r"lens\.image_size"):
        LensModel.from_json({"image_size": [0, 480]})


def test_config_is_data() -> None:
    cfg = LensCollector().config
    assert isinstance(cfg, LensConfig) and cfg.min_views >= 10
