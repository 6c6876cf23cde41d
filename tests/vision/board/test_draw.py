"""The debug overlay."""

from __future__ import annotations

import numpy as np

from vision.board.draw import draw_board, spot_centres
from vision.types import BoardReading


def _reading() -> BoardReading:
    return BoardReading(
        corners=((20.0, 20.0), (220.0, 25.0), (215.0, 225.0), (18.0, 220.0)),
        cells=("WUGRK", "PY.?U", "GRKPY", "UG.RK", "WUGRY"),
        confidence=tuple(tuple(0.9 for _ in range(5)) for _ in range(5)),
        unknown=((1, 3),),
    )


def test_overlay_draws_on_a_copy() -> None:
    image = np.full((240, 240, 3), 100, np.uint8)
    out = draw_board(image, _reading())
    assert out.shape == image.shape and out.dtype == np.uint8
    assert (image == 100).all()
    assert (out != 100).any(axis=2).sum() > 500


def test_overlay_without_a_reading_is_unchanged() -> None:
    image = np.full((50, 60, 3), 7, np.uint8)
    out = draw_board(image, None)
    assert np.array_equal(out, image) and out is not image


def test_spot_centres_lie_inside_the_board() -> None:
    centres = spot_centres(_reading())
    assert centres.shape == (5, 5, 2)
    assert (centres > 18).all() and (centres < 225).all()
    assert centres[0, 0, 0] < centres[0, 4, 0] and centres[0, 0, 1] < centres[4, 0, 1]
