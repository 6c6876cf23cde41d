"""Small geometry helpers shared by the readers and the renderer's truth."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray


def seen_start(quad: NDArray[np.float64]) -> int:
    """Index of the corner of a clockwise ``(4, 2)`` quad that lies nearest the image's top-left
    direction from the quad's centre: the corner a reader reports first."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    d = q - q.mean(axis=0)
    ang = np.degrees(np.arctan2(d[:, 1], d[:, 0]))
    return int(np.argmin(np.abs((ang + 135.0 + 180.0) % 360.0 - 180.0)))


def order_corners(quad: NDArray[np.float64]) -> NDArray[np.float64]:
    """Order 4 image points clockwise (on screen) from the one nearest the top-left direction.

    This is the "grid as seen" convention: row 0 of a reading runs from corner 0 to corner 1.

    Parameters
    ----------
    quad : (4, 2) float array of ``(x, y)`` points of a convex quadrilateral, any order

    Returns
    -------
    (4, 2) float64 array
    """
    q = np.asarray(quad, np.float64).reshape(4, 2)
    centre = q.mean(axis=0)
    q = q[np.argsort(np.arctan2(q[:, 1] - centre[1], q[:, 0] - centre[0]))]  # clockwise, y down
    return np.roll(q, -seen_start(q), axis=0)
