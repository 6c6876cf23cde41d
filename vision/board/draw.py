"""Debug overlay of a board reading (never called by the reader itself)."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.types import BoardReading

# BGR colours of the labels drawn for each letter
_LABEL_BGR: dict[str, tuple[int, int, int]] = {
    "W": (255, 255, 255), "U": (255, 120, 40), "G": (60, 200, 60), "R": (60, 60, 255),
    "K": (40, 40, 40), "P": (220, 170, 255), "Y": (0, 215, 255), ".": (160, 160, 160), "?": (0, 0, 255),
}


def spot_centres(reading: BoardReading, margin: float = 0.12) -> NDArray[np.float64]:
    """Image positions of the 25 spots, for drawing.

    The spot centres the reader measured, when the reading has them; otherwise (a reading made
    elsewhere, with corners only) a lattice inset by ``margin`` of the board side.

    Returns
    -------
    (5, 5, 2) float64 array of ``(x, y)`` image pixels
    """
    if reading.spots is not None:
        return np.asarray(reading.spots, np.float64).reshape(5, 5, 2)
    quad = np.asarray(reading.corners, np.float32)
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    hom = cv2.getPerspectiveTransform(unit, quad)
    t = margin + (np.arange(5) + 0.5) * (1 - 2 * margin) / 5
    grid = np.stack(np.meshgrid(t, t), axis=-1).reshape(-1, 1, 2).astype(np.float32)
    return cv2.perspectiveTransform(grid, hom).reshape(5, 5, 2).astype(np.float64)


def draw_board(image: NDArray[np.uint8], reading: BoardReading | None) -> NDArray[np.uint8]:
    """Draw the board outline, a label per spot and the unknown spots on a copy of ``image``.

    A doubtful spot (``reading.doubtful``: read with low confidence) gets a dashed orange ring
    round its token: worth a look.

    Parameters
    ----------
    image : (H, W, 3) uint8 BGR array
    reading : BoardReading or None (then the image is returned unchanged, as a copy)

    Returns
    -------
    (H, W, 3) uint8 BGR array
    """
    out = image.copy()
    if reading is None:
        return out
    quad = np.round(np.asarray(reading.corners)).astype(np.int32)
    scale = max(1.0, float(np.linalg.norm(quad[1] - quad[0])) / 400.0)
    thick = max(1, round(2 * scale))
    cv2.polylines(out, [quad.reshape(-1, 1, 2)], True, (0, 255, 255), thick, cv2.LINE_AA)
    cv2.circle(out, (int(quad[0][0]), int(quad[0][1])), round(6 * scale), (0, 255, 255), -1, cv2.LINE_AA)
    centres = spot_centres(reading)
    # a ring just round a token: a little under half the spacing of neighbouring spots
    pitch = float(np.median(np.linalg.norm(np.diff(centres, axis=1), axis=-1)))
    ring_r = max(4, round(0.45 * pitch))
    doubtful = set(reading.doubtful)
    for r in range(5):
        for c in range(5):
            letter = reading.cells[r][c]
            x, y = (int(v) for v in centres[r, c])
            colour = _LABEL_BGR.get(letter, (0, 0, 255))
            if letter == "?":
                d = round(12 * scale)
                cv2.line(out, (x - d, y - d), (x + d, y + d), colour, thick, cv2.LINE_AA)
                cv2.line(out, (x - d, y + d), (x + d, y - d), colour, thick, cv2.LINE_AA)
            elif (r, c) in doubtful:
                _dashed_ring(out, (x, y), ring_r, (0, 165, 255), thick)
            font = 0.6 * scale
            (tw, th), _ = cv2.getTextSize(letter, cv2.FONT_HERSHEY_SIMPLEX, font, thick)
            org = (x - tw // 2, y + th // 2)
            cv2.putText(out, letter, org, cv2.FONT_HERSHEY_SIMPLEX, font, (0, 0, 0), thick + 2, cv2.LINE_AA)
            cv2.putText(out, letter, org, cv2.FONT_HERSHEY_SIMPLEX, font, colour, thick, cv2.LINE_AA)
    return out


def _dashed_ring(out: NDArray[np.uint8], centre: tuple[int, int], radius: int,
                 colour: tuple[int, int, int], thick: int) -> None:
    """A ring of 8 dashes round ``centre``, drawn into ``out``."""
    for k in range(8):
        cv2.ellipse(out, centre, (radius, radius), 0.0, 45.0 * k, 45.0 * k + 25.0, colour, thick, cv2.LINE_AA)
