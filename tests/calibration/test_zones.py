"""Seat zones and assigning cards to seats."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.errors import CalibrationError
from calibration.zones import SeatZones, assign_seats
from vision.types import CardReading


def _card(cx: float, cy: float, card_id: str | None) -> CardReading:
    corners = ((cx - 20, cy - 30), (cx + 20, cy - 30), (cx + 20, cy + 30), (cx - 20, cy + 30))
    return CardReading(id=card_id, colour=None, confidence=0.9, corners=corners, marked=(), uncertain=(),
                       complete=False, partial=False)


ZONES = SeatZones.from_json({"units": "px", "seats": {
    "Ann": [[0, 0], [500, 0], [500, 300], [0, 300]],
    "Bob": [[0, 300], [500, 300], [500, 600], [0, 600]],
    "Cat": [[400, 200], [800, 200], [800, 400], [400, 400]],
}})


def test_seat_of_points() -> None:
    assert ZONES.seat_of((100, 100)) == "Ann"
    assert ZONES.seat_of((100, 500)) == "Bob"
    assert ZONES.seat_of((900, 900)) is None
    # where zones overlap, the one the point lies deepest in wins
    assert ZONES.seat_of((700, 300)) == "Cat"
    assert ZONES.seat_of((420, 100)) == "Ann"


def test_assign_cards_by_id_or_index() -> None:
    cards = [_card(100, 100, "S01"), _card(100, 500, None), _card(700, 300, "G07"),
             _card(950, 950, "B02"), _card(120, 520, "S09"), _card(110, 110, "S09")]
    got = assign_seats(cards, ZONES)
    assert got == {"S01": "Ann", 1: "Bob", "G07": "Cat", 4: "Bob", 5: "Ann"}


def test_list_form_and_mm_units() -> None:
    zones = SeatZones.from_json({"seats": [{"name": "Ann", "polygon": [[0, 0], [10, 0], [10, 10], [0, 10]]}]})
    assert zones.names == ("Ann",)
    scale = np.diag([2.0, 2.0, 1.0])  # 2 px per mm
    mm = SeatZones.from_json({"units": "mm", "seats": {"Ann": [[0, 0], [10, 0], [10, 10]]}}, scale)
    assert mm.zones[0].polygon[1] == (20.0, 0.0)
    assert SeatZones.from_json(mm.to_json()) == mm


@pytest.mark.parametrize(("data", "message"), [
    ({"units": "cm", "seats": {}}, "seats.units"),
    ({"seats": {"A": [[0, 0], [1, 1]]}}, "at least 3"),
    ({"seats": {"A": [[0, 0], [1, 1], [2, 2]]}}, "no area"),
    ({"seats": {"A": [[0, 0], [1, "x"], [2, 0]]}}, "finite numbers"),
    ({"seats": {"": [[0, 0], [1, 0], [0, 1]]}}, "bad seat name"),
    ({"seats": [{"name": "A", "polygon": [[0, 0], [1, 0], [0, 1]]},
                {"name": "A", "polygon": [[0, 0], [1, 0], [0, 1]]}]}, "twice"),
    ({"units": "mm", "seats": {"A": [[0, 0], [1, 0], [0, 1]]}}, "calibrated table"),
    ("nonsense", "expected an object"),
])
def test_bad_seats(data: object, message: str) -> None:
    with pytest.raises(CalibrationError, match=message):
        SeatZones.from_json(data)


def test_draw_zones_marks_the_outline() -> None:
    from calibration.zones import draw_zones

    img = np.zeros((700, 900, 3), np.uint8)
    out = draw_zones(img, ZONES)
    assert out.shape == img.shape and not img.any()
    assert out[300, 250].any()  # on the Ann/Bob border
    assert not out[100, 100].any()  # inside a zone, away from edges and names
