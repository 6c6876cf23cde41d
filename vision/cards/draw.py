"""Debug overlays for the map-card reader (never called inside a stage)."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.types import CardReading, ExpeditionReading

_GOOD = (60, 200, 60)
_UNKNOWN = (0, 165, 255)
_PARTIAL = (160, 160, 160)
_MARK = (40, 40, 230)
_UNSURE = (0, 220, 255)


def _printed_cell(cell: tuple[int, int], shape: tuple[int, int], rotation: int,
                  identified: bool) -> tuple[int, int]:
    """A reported cell (catalog frame when identified) in the printed frame of ``shape``."""
    if not identified:
        return cell
    rows, cols = shape
    cat_shape = (rows, cols) if rotation % 2 == 0 else (cols, rows)
    idx = np.rot90(np.arange(cat_shape[0] * cat_shape[1]).reshape(cat_shape), -(rotation % 4))
    hit = np.argwhere(idx == cell[0] * cat_shape[1] + cell[1])
    return (int(hit[0][0]), int(hit[0][1])) if len(hit) else cell


def _label(out: NDArray[np.uint8], text: str, org: tuple[int, int], colour: tuple[int, int, int],
           thick: int) -> None:
    scale = 0.5 * thick + 0.2
    cv2.putText(out, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), 3 * thick, cv2.LINE_AA)
    cv2.putText(out, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thick, cv2.LINE_AA)


def _cell_quad(grid: NDArray[np.float64], shape: tuple[int, int], r: int, c: int) -> NDArray[np.int32]:
    rows, cols = shape
    src = np.array([[0, 0], [cols, 0], [cols, rows], [0, rows]], np.float32)
    m = cv2.getPerspectiveTransform(src, grid.astype(np.float32))
    pts = np.array([[[c, r], [c + 1, r], [c + 1, r + 1], [c, r + 1]]], np.float32)
    return np.round(cv2.perspectiveTransform(pts, m).reshape(4, 2)).astype(np.int32)


def draw_cards(image: NDArray[np.uint8], readings: Sequence[CardReading]) -> NDArray[np.uint8]:
    """The photo with card outlines, ids and per-cell verdicts drawn on it.

    Parameters
    ----------
    image : (H, W, 3) uint8 array
        The BGR photo the readings were made on.

    Returns
    -------
    (H, W, 3) uint8 array
        A copy: green outline for an identified card, orange for unknown, grey for partial; the
        top-left corner dotted; a doubtful card's id followed by "check"; marked cells crossed in
        red, uncertain cells boxed in yellow.
    """
    out = image.copy()
    thick = max(1, round(max(image.shape[:2]) / 800))
    for rd in readings:
        quad = np.round(np.array(rd.corners)).astype(np.int32)
        colour = _PARTIAL if rd.partial else (_GOOD if rd.id else _UNKNOWN)
        cv2.polylines(out, [quad], True, colour, thick + 1, cv2.LINE_AA)
        cv2.circle(out, tuple(int(v) for v in quad[0]), 3 * thick + 2, colour, -1, cv2.LINE_AA)
        label = (rd.id + " check" if rd.doubtful else rd.id) if rd.id else ("partial" if rd.partial else "?")
        org = (int(quad[:, 0].min()), max(12, int(quad[:, 1].min()) - 6))
        _label(out, label, org, colour, thick)
        if rd.grid_corners is None or rd.grid_shape is None:
            continue
        grid = np.array(rd.grid_corners, np.float64)
        for cells, col in ((rd.marked, _MARK), (rd.uncertain, _UNSURE)):
            for cell in cells:
                r, c = _printed_cell(cell, rd.grid_shape, rd.grid_rotation, rd.id is not None)
                q = _cell_quad(grid, rd.grid_shape, r, c)
                if col == _MARK:
                    cv2.line(out, tuple(map(int, q[0])), tuple(map(int, q[2])), col, thick, cv2.LINE_AA)
                    cv2.line(out, tuple(map(int, q[1])), tuple(map(int, q[3])), col, thick, cv2.LINE_AA)
                cv2.polylines(out, [q], True, col, thick, cv2.LINE_AA)
    return out


def draw_expedition(image: NDArray[np.uint8], reading: ExpeditionReading | None) -> NDArray[np.uint8]:
    """The photo with the expedition card outlined and its id written; a copy."""
    out = image.copy()
    if reading is None:
        return out
    thick = max(1, round(max(image.shape[:2]) / 800))
    quad = np.round(np.array(reading.corners)).astype(np.int32)
    cv2.polylines(out, [quad], True, (255, 160, 0), thick + 1, cv2.LINE_AA)
    org = (int(quad[:, 0].min()), max(12, int(quad[:, 1].min()) - 6))
    _label(out, reading.id, org, (255, 160, 0), thick)
    return out
