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


def test_labels_sit_on_the_measured_spots_and_doubtful_ones_are_ringed() -> None:
    spots = tuple(tuple((40.0 + 30 * c, 50.0 + 28 * r) for c in range(5)) for r in range(5))
    conf = [[0.9] * 5 for _ in range(5)]
    conf[2][2] = 0.05  # a doubtful white
    reading = BoardReading(corners=((20.0, 20.0), (220.0, 25.0), (215.0, 225.0), (18.0, 220.0)),
                           cells=("WWWWW",) * 5, confidence=tuple(tuple(r) for r in conf), spots=spots,
                           doubtful=((2, 2),))
    np.testing.assert_allclose(spot_centres(reading), np.asarray(spots))
    image = np.full((240, 240, 3), 100, np.uint8)
    out = draw_board(image, reading)
    # each white label is drawn at its measured spot
    for r, c in ((0, 0), (4, 4), (1, 3)):
        x, y = (int(v) for v in spots[r][c])
        patch = out[y - 6:y + 7, x - 6:x + 7]
        assert (patch.min(axis=2) > 200).any(), (r, c)
    # the doubtful spot gets an orange ring (B 0, G 165, R 255) round its token (under half the
    # 28-30 px spacing), the others none
    def orange(x: int, y: int) -> int:
        ring = out[y - 15:y + 16, x - 15:x + 16].astype(int)
        return int(((ring[..., 2] > 200) & (ring[..., 0] < 80) & (abs(ring[..., 1] - 165) < 50)).sum())
    assert orange(100, 106) > 20
    assert orange(40, 50) == 0 and orange(160, 162) == 0
