"""The typed errors of :mod:`vision`."""

from __future__ import annotations


class VisionError(Exception):
    """Base class of every error raised by :mod:`vision`."""


class ImageError(VisionError):
    """An image that cannot be used: unreadable, corrupt, empty, or not an image at all."""


class SourceError(VisionError):
    """A frame source that cannot be opened or has stopped delivering frames."""


class CatalogError(VisionError):
    """A user card catalog that is missing or malformed; the message names the file."""
