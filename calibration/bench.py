"""Profiles for the benchmarks: calibrate from the sheet photographed under the scene's light.

``goldtable bench silver-gold --profile auto`` and ``goldtable bench splendor-duel --profile
auto`` call :func:`profile_for_conditions` with the conditions of their scenes. It photographs the
calibration sheet (and, when the board reader is installed, the token board in the default
enrolment layout) under the same camera and light, and calibrates a profile from those photos
exactly as ``goldtable calibrate`` and ``goldtable calibrate tokens`` would.
"""

from __future__ import annotations

import dataclasses
import importlib.util
from typing import TYPE_CHECKING

import numpy as np

from calibration.errors import CalibrationError
from calibration.profile import Profile, calibrate_image
from calibration.sheet import render_sheet, sheet_geometry
from calibration.tokens import default_layout, enrol_tokens
from vision.synth.camera import Conditions, Photo, Placement, photograph

if TYPE_CHECKING:
    from vision.synth.board import BoardStyle

# Resolution of the sheet face handed to the renderer (the camera sees it at ~2 px/mm at most).
SHEET_PX_PER_MM = 3.0


def _board_available() -> bool:
    try:
        return (importlib.util.find_spec("vision.board.learn") is not None
                and importlib.util.find_spec("vision.synth.board") is not None)
    except ImportError:
        return False


def photograph_sheet(conditions: Conditions, rng: np.random.Generator, paper: str = "a4") -> Photo:
    """Photograph the calibration sheet lying flat in the middle of the table under ``conditions``.

    The sheet is matte paper (no glare) and keeps the conditions' light; the camera is not
    zoomed so the whole sheet stays in view. ``Photo.quads[0]`` holds the sheet's corners.
    """
    geo = sheet_geometry(paper)
    w, h = geo.size_mm
    tw, th = conditions.table_mm
    ang = float(rng.uniform(-12.0, 12.0))
    c, s = np.cos(np.radians(ang)), np.sin(np.radians(ang))
    centre = np.array([tw / 2.0, th / 2.0]) + rng.uniform(-0.05, 0.05, 2) * np.array([tw, th])
    local = np.array(geo.corners_mm, np.float64) - np.array([w / 2.0, h / 2.0])
    corners = local @ np.array([[c, s], [-s, c]]) + centre
    placement = Placement(render_sheet(paper, SHEET_PX_PER_MM),
                          tuple((float(x), float(y)) for x, y in corners), glossy=False)
    return photograph([placement], dataclasses.replace(conditions, zoom=1.0), rng)


def _softened(conditions: Conditions) -> Conditions:
    """The same light with a steadier camera: what a player does when the first photo fails."""
    return dataclasses.replace(conditions, blur_sigma=0.0, motion_blur_px=0.0,
                               noise_sigma=conditions.noise_sigma / 2.0, jpeg_quality=None,
                               tilt_deg=min(conditions.tilt_deg, 20.0))


def profile_for_conditions(
    conditions: Conditions,
    rng: np.random.Generator,
    tokens: bool | None = None,
    paper: str = "a4",
    name: str = "auto",
    board_style: BoardStyle | str | None = None,
) -> Profile:
    """Calibrate a profile for benchmark scenes rendered under ``conditions``.

    Parameters
    ----------
    conditions : Conditions
        The scenes' camera and light (a strong cast, typically).
    rng : numpy.random.Generator
    tokens : bool, optional
        Enrol the tokens from a board photographed under the same light. ``True``: enrolment
        must succeed; ``None`` (default): enrol when the board reader and renderer are
        installed, and return the profile without a token model if enrolment fails.
    paper : {"a4", "letter"}
    name : str
        The profile's name.
    board_style : vision.synth.board.BoardStyle or str, optional
        The enrolment board (a real table has one board: pass the scenes' ``BoardStyle`` so the
        enrolled token and empty-spot colours are learnt on the same board), a style name, or
        random when ``None``.

    Raises
    ------
    CalibrationError
        When the sheet cannot be calibrated even with a steadier camera, or (with
        ``tokens=True``) enrolment fails.
    """
    photo = photograph_sheet(conditions, rng, paper)
    try:
        profile = calibrate_image(photo.image, name).profile
    except CalibrationError:
        photo = photograph_sheet(_softened(conditions), rng, paper)
        profile = calibrate_image(photo.image, name).profile
    required = bool(tokens)
    if tokens is None:
        tokens = _board_available()
    if tokens:
        from vision.synth.board import render_board_scene

        layout = default_layout()
        board_conditions = dataclasses.replace(conditions, zoom=max(1.0, conditions.zoom))
        for attempt in (board_conditions, _softened(board_conditions)):
            scene = render_board_scene(rng, "typical", conditions.size, layout=layout, style=board_style,
                                       conditions=attempt, hand=False)
            try:
                return enrol_tokens(scene.image, layout, profile)
            except CalibrationError:
                if required and attempt is not board_conditions:
                    raise
    return profile
