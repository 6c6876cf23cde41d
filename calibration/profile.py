"""Table profiles: what calibration learnt about one table, saved as JSON.

A :class:`Profile` implements :class:`vision.profile.ProfileLike`: ``prepare(image)`` undoes the
lens distortion (when calibrated) and the colour cast; ``token_model`` is the learnt token
appearance. It also holds the table homography, the scale and the seat zones.

Profiles live in ``$XDG_CONFIG_HOME/goldtable/profiles/NAME.json`` (``~/.config`` when the
variable is unset); any ``--profile`` option takes a NAME or a path to a ``.json`` file. The
special name ``default`` is the identity profile (no correction); it is used only when asked
for by name, never as a fallback for a missing or broken file.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import re
import tempfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from calibration.colour import ColourConfig, ColourCorrection, fit_colour
from calibration.errors import CalibrationError, ProfileError, SheetNotFound
from calibration.homography import TableConfig, TableView, apply_homography, find_table, sample_patches
from calibration.lens import LensModel
from calibration.sheet import load_section, sheet_geometry
from calibration.zones import Point, SeatZones

VERSION = 1
DEFAULT_NAME = "default"
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")

Matrix3x3 = tuple[tuple[float, float, float], ...]


@dataclass(frozen=True)
class Profile:
    """A calibrated table.

    Attributes
    ----------
    name : str
    image_size : (width, height) or None
        Size of the calibration image; the homography and seats are in its pixels.
    image_to_table : 3x3 nested tuple or None
        Homography from image px to table mm (the sheet's frame); ``None`` when uncalibrated.
    mm_per_px, reprojection_px, oblique_deg : float or None
        Measured at calibration.
    verdict : str
        The calibration verdict (``"good"`` or what to fix).
    colour : ColourCorrection
    lens : LensModel or None
    token_model : dict or None
        JSON of :class:`vision.board.TokenModel`.
    token_layout : tuple of 5 str or None
        The arrangement the tokens were enrolled in.
    seats : SeatZones
    created : str
        ISO 8601 UTC time of calibration.
    """

    name: str = DEFAULT_NAME
    image_size: tuple[int, int] | None = None
    image_to_table: Matrix3x3 | None = None
    mm_per_px: float | None = None
    reprojection_px: float | None = None
    oblique_deg: float | None = None
    verdict: str = "good"
    colour: ColourCorrection = field(default_factory=ColourCorrection)
    lens: LensModel | None = None
    token_model: dict[str, Any] | None = None
    token_layout: tuple[str, ...] | None = None
    seats: SeatZones = field(default_factory=SeatZones)
    created: str = ""

    # ----------------------------------------------------------------- ProfileLike
    def prepare(self, image: NDArray[np.uint8]) -> NDArray[np.uint8]:
        """Undo the lens distortion and the colour cast (scaled so that no highlight clips).

        Parameters
        ----------
        image : (H, W, 3) uint8 array
            BGR.

        Returns
        -------
        (H, W, 3) uint8 array
            Same shape; the input itself for the identity profile.
        """
        return self._corrected(image, self.colour.with_headroom(), "prepare")

    def prepare_cards(self, image: NDArray[np.uint8]) -> NDArray[np.uint8]:
        """The view the map-card readers read: lens undone, white balance keeping the brightness.

        Unlike :meth:`prepare`, no colour matrix and no headroom scaling (see
        :meth:`ColourCorrection.balance_keeping_brightness`): on strongly cast photos those darken
        the cards and cost more marks than the colour accuracy they buy. Same parameters and
        result as :meth:`prepare`.
        """
        return self._corrected(image, self.colour.balance_keeping_brightness(), "prepare_cards")

    def _corrected(self, image: NDArray[np.uint8], colour: ColourCorrection, what: str) -> NDArray[np.uint8]:
        """``image`` (H, W, 3) uint8 BGR with the lens undone and ``colour`` applied."""
        ok = isinstance(image, np.ndarray) and image.ndim == 3 and image.dtype == np.uint8
        if not ok or image.shape[2] != 3:
            raise CalibrationError(f"profile.{what} needs an (H, W, 3) uint8 BGR image")
        out = image
        if self.lens is not None:
            out = self.lens.undistort(out)
        return colour.apply(out)

    # ----------------------------------------------------------------- geometry
    @property
    def calibrated(self) -> bool:
        return self.image_to_table is not None

    @property
    def homography(self) -> NDArray[np.float64] | None:
        """``(3, 3)`` float64 image px -> table mm, or ``None``."""
        return None if self.image_to_table is None else np.asarray(self.image_to_table, np.float64)

    @property
    def table_to_image(self) -> NDArray[np.float64] | None:
        """``(3, 3)`` float64 table mm -> image px, or ``None``."""
        h = self.homography
        if h is None:
            return None
        inv = np.linalg.inv(h)
        return inv / inv[2, 2]

    def to_table(self, points_px: object) -> NDArray[np.float64]:
        """Image px ``(N, 2)`` -> table mm ``(N, 2)``; raises if the profile has no table view."""
        h = self.homography
        if h is None:
            raise CalibrationError(f"profile {self.name!r} has no table view; run `goldtable calibrate`")
        return apply_homography(h, points_px)

    def to_image(self, points_mm: object) -> NDArray[np.float64]:
        """Table mm ``(N, 2)`` -> image px ``(N, 2)``; raises if the profile has no table view."""
        h = self.table_to_image
        if h is None:
            raise CalibrationError(f"profile {self.name!r} has no table view; run `goldtable calibrate`")
        return apply_homography(h, points_mm)

    def scaled_to(self, size: tuple[int, int]) -> Profile:
        """A copy whose homography and seat polygons refer to images of ``size`` (width, height).

        Frames of the same camera may arrive resized (a downscaled upload, a lower stream
        resolution); the colour and lens corrections do not depend on size.
        """
        if self.image_size is None or tuple(size) == tuple(self.image_size):
            return self
        w, h = int(size[0]), int(size[1])
        if w <= 0 or h <= 0:
            raise CalibrationError("scaled_to: the size must be positive")
        sx, sy = w / self.image_size[0], h / self.image_size[1]
        hom = None
        if self.image_to_table is not None:
            m = np.asarray(self.image_to_table, np.float64) @ np.diag([1 / sx, 1 / sy, 1.0])
            m = m / m[2, 2]
            hom = tuple(tuple(float(v) for v in row) for row in m)
        zones = SeatZones(tuple(
            dataclasses.replace(z, polygon=tuple((x * sx, y * sy) for x, y in z.polygon))
            for z in self.seats.zones))
        mm = None if self.mm_per_px is None else self.mm_per_px / float(np.sqrt(sx * sy))
        return dataclasses.replace(self, image_size=(w, h), image_to_table=hom, seats=zones,  # type: ignore[arg-type]
                                   mm_per_px=mm)

    def seat_of(self, point: Point) -> str | None:
        """The seat whose zone holds ``point`` (image px), or ``None``."""
        return self.seats.seat_of(point)

    def with_seats(self, seats: SeatZones | Mapping[str, Any]) -> Profile:
        """A copy with new seat zones (a :class:`SeatZones` or its JSON; mm needs a table view)."""
        zones = seats if isinstance(seats, SeatZones) else SeatZones.from_json(seats, self.table_to_image)
        return dataclasses.replace(self, seats=zones)

    # ----------------------------------------------------------------- JSON
    def to_json(self) -> dict[str, Any]:
        return {
            "version": VERSION,
            "name": self.name,
            "created": self.created,
            "image_size": list(self.image_size) if self.image_size else None,
            "image_to_table": None if self.image_to_table is None
            else [[float(v) for v in row] for row in self.image_to_table],
            "mm_per_px": self.mm_per_px,
            "reprojection_px": self.reprojection_px,
            "oblique_deg": self.oblique_deg,
            "verdict": self.verdict,
            "colour": self.colour.to_json(),
            "lens": None if self.lens is None else self.lens.to_json(),
            "token_model": self.token_model,
            "token_layout": None if self.token_layout is None else list(self.token_layout),
            "seats": self.seats.to_json(),
        }

    @classmethod
    def from_json(cls, data: Any) -> Profile:
        """Inverse of :meth:`to_json`.

        Raises
        ------
        CalibrationError
            Naming the field that is missing or malformed, or an unsupported version.
        """
        if not isinstance(data, Mapping):
            raise CalibrationError("expected a JSON object")
        version = data.get("version")
        if not isinstance(version, int) or isinstance(version, bool):
            raise CalibrationError("version: missing or not a whole number")
        if version > VERSION or version < 1:
            raise CalibrationError(f"version {version} is not supported "
                                   f"(this goldtable reads version {VERSION})")
        name = data.get("name", DEFAULT_NAME)
        if not isinstance(name, str):
            raise CalibrationError("name: expected a string")
        size = data.get("image_size")
        if size is not None and (not isinstance(size, list) or len(size) != 2
                                 or not all(isinstance(v, int) and v > 0 for v in size)):
            raise CalibrationError("image_size: expected [width, height]")
        hom = data.get("image_to_table")
        matrix: Matrix3x3 | None = None
        if hom is not None:
            if (not isinstance(hom, list) or len(hom) != 3 or not all(
                    isinstance(r, list) and len(r) == 3
                    and all(isinstance(v, int | float) and np.isfinite(v) for v in r) for r in hom)):
                raise CalibrationError("image_to_table: expected 3 rows of 3 finite numbers")
            if abs(np.linalg.det(np.asarray(hom, np.float64))) < 1e-15:
                raise CalibrationError("image_to_table: the homography is singular")
            matrix = tuple(tuple(float(v) for v in r) for r in hom)  # type: ignore[misc]
        nums: dict[str, float | None] = {}
        for key in ("mm_per_px", "reprojection_px", "oblique_deg"):
            v = data.get(key)
            if v is not None and not _is_number(v):
                raise CalibrationError(f"{key}: expected a number")
            nums[key] = None if v is None else float(v)
        verdict = data.get("verdict", "good")
        if not isinstance(verdict, str):
            raise CalibrationError("verdict: expected a string")
        colour = ColourCorrection.from_json(data["colour"]) if data.get("colour") is not None \
            else ColourCorrection()
        lens = LensModel.from_json(data["lens"]) if data.get("lens") is not None else None
        token_model = data.get("token_model")
        if token_model is not None and not isinstance(token_model, dict):
            raise CalibrationError("token_model: expected an object")
        layout = data.get("token_layout")
        if layout is not None:
            if not isinstance(layout, list) or not all(isinstance(r, str) for r in layout):
                raise CalibrationError("token_layout: expected 5 strings")
            from calibration.tokens import parse_layout

            layout = parse_layout(layout)
        seats_data = data.get("seats")
        to_image = None if matrix is None else np.linalg.inv(np.asarray(matrix, np.float64))
        seats = SeatZones() if seats_data is None else SeatZones.from_json(seats_data, to_image)
        created = data.get("created", "")
        if not isinstance(created, str):
            raise CalibrationError("created: expected a string")
        return cls(
            name=name,
            image_size=None if size is None else (int(size[0]), int(size[1])),
            image_to_table=matrix,
            mm_per_px=nums["mm_per_px"],
            reprojection_px=nums["reprojection_px"],
            oblique_deg=nums["oblique_deg"],
            verdict=verdict,
            colour=colour,
            lens=lens,
            token_model=token_model,
            token_layout=None if layout is None else tuple(layout),
            seats=seats,
            created=created,
        )


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and bool(np.isfinite(v))


def identity_profile() -> Profile:
    """The ``default`` profile: no lens, no colour correction, no table view, no seats."""
    return Profile(name=DEFAULT_NAME)


# --------------------------------------------------------------------------- calibration


@dataclass(frozen=True)
class Calibration:
    """The result of calibrating from one photo: the profile and the view it was made from."""

    profile: Profile
    view: TableView
    patches: dict[str, tuple[float, float, float]]


def calibrate_image(
    image: NDArray[np.uint8],
    name: str = "table",
    lens: LensModel | None = None,
    seats: SeatZones | Mapping[str, Any] | None = None,
    table_config: TableConfig | None = None,
    colour_config: ColourConfig | None = None,
) -> Calibration:
    """Calibrate a table from a photo of the sheet lying on it.

    Parameters
    ----------
    image : (H, W, 3) uint8 array
        BGR photo with the calibration sheet in view.
    name : str
        The profile's name.
    lens : LensModel, optional
        Applied before the sheet is measured, and stored in the profile.
    seats : SeatZones or its JSON, optional
        Seat zones (JSON in mm is converted through the new homography).

    Raises
    ------
    SheetNotFound, PoorView
        When the sheet is not found or gives no usable view.
    CalibrationError
        When too few colour patches are usable.
    """
    undistorted = image if lens is None else lens.undistort(image)
    view = find_table(undistorted, table_config)
    patches = sample_patches(undistorted, view, table_config)
    colour = fit_colour(patches, sheet_geometry(view.paper).patches, colour_config)
    profile = Profile(
        name=name,
        image_size=view.image_size,
        image_to_table=view.image_to_table,
        mm_per_px=view.mm_per_px,
        reprojection_px=view.reprojection_px,
        oblique_deg=view.oblique_deg,
        verdict=view.verdict,
        colour=colour,
        lens=lens,
        created=datetime.now(UTC).isoformat(timespec="seconds"),
    )
    if seats is not None:
        profile = profile.with_seats(seats)
    return Calibration(profile, view, patches)


@dataclass(frozen=True)
class VideoConfig:
    """How frames of a camera or video are searched for the sheet (``calibration.json``, ``video``).

    Every ``frame_step``-th frame is examined, at most ``max_frames`` frames are read, and the
    search stops once ``good_frames_wanted`` frames gave a good verdict.
    """

    max_frames: int
    frame_step: int
    good_frames_wanted: int


def default_video_config() -> VideoConfig:
    return load_section("calibration", "video", VideoConfig)


def calibrate_frames(
    frames: Iterable[NDArray[np.uint8]],
    name: str = "table",
    lens: LensModel | None = None,
    seats: SeatZones | Mapping[str, Any] | None = None,
    config: VideoConfig | None = None,
    on_frame: Callable[[int], None] | None = None,
) -> Calibration:
    """Calibrate from a stream of frames (a camera or a video): the best view of the sheet wins.

    Frames with a good verdict beat the others; among equals the lowest reprojection error wins.

    Parameters
    ----------
    frames : iterable of (H, W, 3) uint8 arrays
    on_frame : callable(frames_read), optional
        Called after each frame read (for a progress bar).

    Raises
    ------
    SheetNotFound
        When no frame shows the sheet; the message of the last failure is kept.
    """
    cfg = config or default_video_config()
    best: Calibration | None = None
    last_error: CalibrationError | None = None
    good = 0
    for i, image in enumerate(frames):
        if on_frame is not None:
            on_frame(i + 1)
        if i >= cfg.max_frames:
            break
        if i % max(1, cfg.frame_step):
            continue
        try:
            cal = calibrate_image(image, name, lens, seats)
        except CalibrationError as exc:
            last_error = exc
            continue
        key = (not cal.view.good, cal.view.reprojection_px)
        if best is None or key < (not best.view.good, best.view.reprojection_px):
            best = cal
        good += int(cal.view.good)
        if good >= cfg.good_frames_wanted:
            break
    if best is None:
        detail = f": {last_error}" if last_error is not None else ""
        raise SheetNotFound(f"no frame showed the calibration sheet{detail}")
    return best


# --------------------------------------------------------------------------- storage


def profiles_dir() -> Path:
    """``$XDG_CONFIG_HOME/goldtable/profiles`` (``~/.config/goldtable/profiles`` by default)."""
    base = os.environ.get("XDG_CONFIG_HOME") or ""
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".config"
    return root / "goldtable" / "profiles"


def profile_path(name_or_path: str | os.PathLike[str]) -> Path:
    """Where the profile ``name_or_path`` lives.

    A value ending in ``.json`` is a path; anything else is a profile name (letters, digits,
    ``_``, ``-``, ``.``; up to 64 characters).

    Raises
    ------
    ProfileError
        For a name with other characters, or a path not ending in ``.json``.
    """
    text = os.fspath(name_or_path)
    if text.lower().endswith(".json"):
        return Path(text).expanduser()
    if "/" in text or os.sep in text:
        raise ProfileError(f"{text}: a profile path must end in .json")
    if not _NAME_RE.match(text):
        raise ProfileError(f"profile name {text!r}: use letters, digits, '_', '-' or '.' (up to 64), "
                           "or give a path to a .json file")
    return profiles_dir() / f"{text}.json"


def list_profiles() -> list[str]:
    """Names of the saved profiles, sorted."""
    d = profiles_dir()
    if not d.is_dir():
        return []
    return sorted(p.stem for p in d.glob("*.json") if _NAME_RE.match(p.stem))


def save_profile(profile: Profile, name_or_path: str | os.PathLike[str] | None = None) -> Path:
    """Write ``profile`` atomically: a temporary file in the same folder, then ``os.replace``.

    Parameters
    ----------
    profile : Profile
    name_or_path : str or path, optional
        A profile name or a ``.json`` path; ``profile.name`` by default.

    Returns
    -------
    Path
        The file written.

    Raises
    ------
    ProfileError
        For the reserved name ``default``, a bad name, or a file that cannot be written (named).
    """
    target = os.fspath(name_or_path) if name_or_path is not None else profile.name
    if target == DEFAULT_NAME:
        raise ProfileError("the name 'default' is reserved for the uncorrected profile; choose another name")
    path = profile_path(target)
    text = json.dumps(profile.to_json(), indent=1)
    tmp: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        tmp = None
    except OSError as exc:
        raise ProfileError(f"{path}: cannot write the profile ({exc.strerror or exc})") from exc
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    return path


def load_profile(name_or_path: str | os.PathLike[str]) -> Profile:
    """Read a saved profile; ``"default"`` gives the identity profile.

    Raises
    ------
    ProfileError
        When the file is missing, unreadable, not JSON or not a valid profile; the message
        names the file.
    """
    text_arg = os.fspath(name_or_path)
    if text_arg == DEFAULT_NAME:
        return identity_profile()
    path = profile_path(text_arg)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        hint = "" if path.suffix == ".json" and "/" in text_arg else \
            f" (run `goldtable calibrate --name {text_arg}` first, or pass --profile default)"
        raise ProfileError(f"{path}: no such profile{hint}") from exc
    except OSError as exc:
        raise ProfileError(f"{path}: cannot read the profile ({exc.strerror or exc})") from exc
    except UnicodeDecodeError as exc:
        raise ProfileError(f"{path}: not a valid profile (not UTF-8 text)") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ProfileError(f"{path}: not a valid profile (broken JSON at line {exc.lineno}, "
                           f"column {exc.colno})") from exc
    try:
        return Profile.from_json(data)
    except CalibrationError as exc:
        raise ProfileError(f"{path}: not a valid profile ({exc})") from exc


def resolve_profile(name_or_path: str | os.PathLike[str] | None) -> Profile | None:
    """``None`` -> ``None`` (no profile); anything else -> :func:`load_profile`."""
    return None if name_or_path is None else load_profile(name_or_path)


__all__ = [
    "Calibration",
    "Profile",
    "VideoConfig",
    "calibrate_frames",
    "calibrate_image",
    "identity_profile",
    "list_profiles",
    "load_profile",
    "profile_path",
    "profiles_dir",
    "resolve_profile",
    "save_profile",
]
