"""Stage 2: the upright card face.

The quadrilateral is warped to a portrait face of ``card_mm`` at ``px_per_mm`` straight from the
full-resolution photo. Which short side is the top is decided from the face itself: the points
numeral sits in the top-left corner and, on some cards, a badge in the top-right, so the top
corners carry more printed detail than the bottom ones. Only 0/180 degrees is in question for a
portrait card.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.config import load_config


@dataclass(frozen=True)
class RectifyConfig:
    px_per_mm: float
    card_mm: tuple[float, float]
    corner_patch_mm: float
    corner_inset_mm: float
    min_margin: float


@cache
def default_config() -> RectifyConfig:
    return load_config("cards", RectifyConfig, section="rectify")


@dataclass(frozen=True)
class Face:
    """An upright card face.

    ``image`` is ``(H, W, 3)`` BGR uint8 with ``H > W``; ``corners`` ``(4, 2)`` float64 are the
    photo pixels of the face's TL (numeral), TR, BR, BL corners; ``to_face`` ``(3, 3)`` maps
    photo pixels to face pixels. ``upright_confidence`` in [0, 1] says how clearly the face
    decided the 180-degree question.
    """

    image: NDArray[np.uint8]
    corners: NDArray[np.float64]
    to_face: NDArray[np.float64]
    upright_confidence: float


def _detail(face: NDArray[np.uint8], x0: int, y0: int, s: int) -> float:
    """Mean gradient magnitude of the grey levels of a ``s`` x ``s`` patch of a BGR face."""
    patch = cv2.cvtColor(face[y0:y0 + s, x0:x0 + s], cv2.COLOR_BGR2GRAY).astype(np.float32)
    gx = cv2.Sobel(patch, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(patch, cv2.CV_32F, 0, 1, ksize=3)
    return float(np.mean(np.sqrt(gx * gx + gy * gy)))


def _corner_details(face: NDArray[np.uint8], cfg: RectifyConfig) -> tuple[float, float, float, float]:
    """Printed detail in the TL, TR, BR, BL corner patches."""
    h, w = face.shape[:2]
    s = round(cfg.corner_patch_mm * cfg.px_per_mm)
    i = round(cfg.corner_inset_mm * cfg.px_per_mm)
    # grey levels are per pixel: only the patches are converted
    return (_detail(face, i, i, s), _detail(face, w - i - s, i, s),
            _detail(face, w - i - s, h - i - s, s), _detail(face, i, h - i - s, s))


def warp_face(image: NDArray[np.uint8], corners: NDArray[np.float64],
              config: RectifyConfig | None = None) -> tuple[NDArray[np.uint8], NDArray[np.float64]]:
    """Warp the quad ``corners`` (TL, TR, BR, BL photo pixels) to a face; returns it and the
    photo-to-face homography."""
    cfg = config or default_config()
    w = round(cfg.card_mm[0] * cfg.px_per_mm)
    h = round(cfg.card_mm[1] * cfg.px_per_mm)
    dst = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)
    m = cv2.getPerspectiveTransform(corners.astype(np.float32), dst)
    face = cv2.warpPerspective(image, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return face, m.astype(np.float64)


def rectify(image: NDArray[np.uint8], corners: NDArray[np.float64],
            config: RectifyConfig | None = None) -> Face:
    """Bring a card upright.

    Parameters
    ----------
    image : (H, W, 3) uint8 array
        The full-resolution BGR photo.
    corners : (4, 2) float array
        The card's corners in photo pixels, clockwise, starting anywhere.
    """
    cfg = config or default_config()
    q = np.asarray(corners, np.float64)
    sides = [float(np.hypot(*(q[(i + 1) % 4] - q[i]))) for i in range(4)]
    # start so that the first side (TL -> TR) is a short side
    start = 0 if sides[0] + sides[2] <= sides[1] + sides[3] else 1
    q = np.roll(q, -start, axis=0)
    face, m = warp_face(image, q, cfg)
    tl, tr, br, bl = _corner_details(face, cfg)
    score = ((tl - br) + 0.5 * (tr - bl)) / max(1e-6, tl + br + 0.5 * (tr + bl))
    if score < 0:
        q = np.roll(q, -2, axis=0)
        face = np.ascontiguousarray(face[::-1, ::-1])
        flip = np.array([[-1, 0, face.shape[1] - 1], [0, -1, face.shape[0] - 1], [0, 0, 1]], np.float64)
        m = flip @ m
    conf = float(min(1.0, abs(score) / max(cfg.min_margin, 1e-6) * 0.5))
    return Face(face, q, m, conf)
