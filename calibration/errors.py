"""The typed errors of :mod:`calibration`."""

from __future__ import annotations


class CalibrationError(Exception):
    """Base class of every error raised by :mod:`calibration`."""


class SheetNotFound(CalibrationError):
    """The calibration sheet (or some of its markers) is not visible in the image."""


class PoorView(CalibrationError):
    """The sheet is visible but the view is unusable (too small, too oblique)."""


class ProfileError(CalibrationError):
    """A profile file that cannot be read or written; the message names the file."""
