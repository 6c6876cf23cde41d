"""Seat zones: named polygons on the table, one per player.

A card whose centre lies in a seat's polygon belongs to that player. Polygons are kept in image
pixels of the calibrated camera; they may be given in table millimetres and converted through
the table homography.

JSON (``--seats FILE`` and the profile)::

    {"units": "px" | "mm",
     "seats": {"Ann": [[x, y], [x, y], [x, y], ...], "Bob": [[x, y], ...]}}

A list form ``{"seats": [{"name": "Ann", "polygon": [[x, y], ...]}, ...]}`` is accepted too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.errors import CalibrationError
from vision.types import CardReading

Point = tuple[float, float]


@dataclass(frozen=True)
class Zone:
    """One seat: a name and a simple polygon (3+ points) in image px."""

    name: str
    polygon: tuple[Point, ...]

    def depth(self, point: Point) -> float:
        """Signed distance in px from ``point`` to the polygon's edge; positive inside."""
        contour = np.asarray(self.polygon, np.float32).reshape(-1, 1, 2)
        return float(cv2.pointPolygonTest(contour, (float(point[0]), float(point[1])), True))

    def contains(self, point: Point) -> bool:
        return self.depth(point) >= 0.0


@dataclass(frozen=True)
class SeatZones:
    """The seat zones of one table (possibly none)."""

    zones: tuple[Zone, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(z.name for z in self.zones)

    def seat_of(self, point: Point) -> str | None:
        """The seat whose zone contains ``point`` (image px); the deepest one where zones overlap."""
        best: tuple[float, str] | None = None
        for z in self.zones:
            d = z.depth(point)
            if d >= 0.0 and (best is None or d > best[0]):
                best = (d, z.name)
        return None if best is None else best[1]

    def to_json(self) -> dict[str, Any]:
        return {"units": "px",
                "seats": {z.name: [[round(x, 2), round(y, 2)] for x, y in z.polygon] for z in self.zones}}

    @classmethod
    def from_json(cls, data: Any, table_to_image: NDArray[np.float64] | None = None) -> SeatZones:
        """Parse the JSON form (see the module docstring).

        Parameters
        ----------
        data : object
            Parsed JSON.
        table_to_image : (3, 3) float64 array, optional
            Needed when ``units`` is ``"mm"``: the homography from table mm to image px.

        Raises
        ------
        CalibrationError
            Naming the seat or field that is malformed.
        """
        if isinstance(data, Mapping) and "seats" not in data and "units" not in data:
            data = {"units": "px", "seats": data}
        if not isinstance(data, Mapping):
            raise CalibrationError("seats: expected an object with 'seats'")
        units = data.get("units", "px")
        if units not in ("px", "mm"):
            raise CalibrationError(f"seats.units: expected 'px' or 'mm', got {units!r}")
        raw = data.get("seats")
        items: list[tuple[Any, Any]]
        if isinstance(raw, Mapping):
            items = list(raw.items())
        elif isinstance(raw, list):
            items = []
            for i, entry in enumerate(raw):
                if not isinstance(entry, Mapping):
                    raise CalibrationError(f"seats[{i}]: expected an object with 'name' and 'polygon'")
                items.append((entry.get("name"), entry.get("polygon")))
        else:
            raise CalibrationError("seats.seats: expected an object of name -> polygon, or a list")
        if units == "mm" and table_to_image is None:
            raise CalibrationError("seats: polygons in mm need a calibrated table "
                                   "(run `goldtable calibrate` first)")
        zones: list[Zone] = []
        seen: set[str] = set()
        for name, poly in items:
            if not isinstance(name, str) or not name.strip() or len(name) > 40:
                raise CalibrationError(f"seats: bad seat name {name!r} (1 to 40 characters)")
            if name in seen:
                raise CalibrationError(f"seats: seat {name!r} appears twice")
            seen.add(name)
            pts = _polygon(poly, f"seats.{name}")
            if units == "mm":
                assert table_to_image is not None
                pts = _map(table_to_image, pts)
            zones.append(Zone(name, pts))
        return cls(tuple(zones))


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and bool(np.isfinite(v))


def _polygon(value: Any, field: str) -> tuple[Point, ...]:
    if not isinstance(value, Sequence) or isinstance(value, str) or len(value) < 3:
        raise CalibrationError(f"{field}: expected a polygon of at least 3 [x, y] points")
    pts: list[Point] = []
    for p in value:
        if (not isinstance(p, Sequence) or isinstance(p, str) or len(p) != 2
                or not all(_is_number(v) for v in p)):
            raise CalibrationError(f"{field}: each point must be [x, y] with finite numbers")
        pts.append((float(p[0]), float(p[1])))
    area = cv2.contourArea(np.asarray(pts, np.float32))
    if area <= 0:
        raise CalibrationError(f"{field}: the polygon has no area")
    return tuple(pts)


def _map(homography: NDArray[np.float64], pts: tuple[Point, ...]) -> tuple[Point, ...]:
    a = np.column_stack([np.asarray(pts, np.float64), np.ones(len(pts))]) @ np.asarray(homography).T
    if np.any(a[:, 2] <= 0):
        raise CalibrationError("seats: a polygon corner lies behind the camera")
    xy = a[:, :2] / a[:, 2:3]
    return tuple((float(x), float(y)) for x, y in xy)


def card_centre(card: CardReading) -> Point:
    """The centre of a card's corners, in image px."""
    xs = [p[0] for p in card.corners]
    ys = [p[1] for p in card.corners]
    return float(sum(xs) / len(xs)), float(sum(ys) / len(ys))


def assign_seats(card_readings: Sequence[CardReading], zones: SeatZones) -> dict[str | int, str]:
    """Which seat each card lies in.

    Parameters
    ----------
    card_readings : sequence of CardReading
    zones : SeatZones

    Returns
    -------
    dict
        Card id (or the card's index in ``card_readings`` when unidentified or when its id
        occurs more than once) -> seat name. Cards outside every zone are left out.
    """
    ids = [c.id for c in card_readings]
    out: dict[str | int, str] = {}
    for i, card in enumerate(card_readings):
        seat = zones.seat_of(card_centre(card))
        if seat is None:
            continue
        key: str | int = card.id if card.id is not None and ids.count(card.id) == 1 else i
        out[key] = seat
    return out


def draw_zones(image: NDArray[np.uint8], zones: SeatZones) -> NDArray[np.uint8]:
    """Debug overlay: each seat's polygon and name.

    Parameters
    ----------
    image : (H, W, 3) uint8 array

    Returns
    -------
    (H, W, 3) uint8 array
        A copy of ``image`` with the zones drawn.
    """
    out = image.copy()
    palette = ((0, 200, 255), (255, 160, 0), (120, 220, 0), (200, 80, 255), (0, 80, 255), (255, 255, 0))
    for i, z in enumerate(zones.zones):
        colour = palette[i % len(palette)]
        pts = np.round(np.asarray(z.polygon)).astype(np.int32)
        cv2.polylines(out, [pts], True, colour, 2, cv2.LINE_AA)
        cx, cy = pts.mean(axis=0)
        cv2.putText(out, z.name, (int(cx), int(cy)), cv2.FONT_HERSHEY_SIMPLEX, 0.8, colour, 2, cv2.LINE_AA)
    return out
