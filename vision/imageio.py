"""Safe image decoding: bytes or a path in, a BGR ``uint8`` array out.

Large photos are decoded at a reduced scale (JPEG DCT scaling through OpenCV's
``IMREAD_REDUCED_*`` flags) and then resized so their longer side is at most
``ImageIOConfig.max_side``: a 12000x9000 phone panorama never becomes a 300 MB array.
"""

from __future__ import annotations

import io
import warnings
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray
from PIL import Image

from vision.config import load_config
from vision.errors import ImageError


@dataclass(frozen=True)
class ImageIOConfig:
    max_bytes: int
    max_side: int
    max_header_pixels: int


@dataclass(frozen=True)
class DecodedImage:
    """A decoded image and the factor that maps its pixels back to the original's."""

    image: NDArray[np.uint8]
    original_size: tuple[int, int]
    scale: float


def default_config() -> ImageIOConfig:
    return load_config("imageio", ImageIOConfig)


# ISO base media brands of HEIF stills (an iPhone's default photo format)
_HEIF_BRANDS = frozenset({b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"hevm", b"hevs",
                          b"mif1", b"msf1"})


def _turned(width: int, height: int, w: int, h: int) -> bool:
    """Whether a decoded ``w`` x ``h`` image is the ``width`` x ``height`` stored one turned a
    quarter (its sides swapped, up to the reduction while decoding)."""
    if width == height:
        return False
    return abs(w * width - h * height) < abs(w * height - h * width)


def decode_image(data: bytes, config: ImageIOConfig | None = None) -> DecodedImage:
    """Decode encoded image bytes (JPEG, PNG, WebP, BMP, TIFF ...) to BGR.

    A photo whose EXIF orientation asks for it (a phone held sideways or upside down) is turned
    upright, and ``original_size`` is the upright photo's: positions read on ``image`` and scaled
    by ``scale`` fall on the photo as every viewer shows it.

    Returns
    -------
    DecodedImage
        ``image`` has shape ``(H, W, 3)``, dtype ``uint8``, and ``max(H, W) <= max_side``.

    Raises
    ------
    ImageError
        For empty, oversized, truncated or non-image data.
    """
    cfg = config or default_config()
    if not data:
        raise ImageError("the file is empty")
    if len(data) > cfg.max_bytes:
        raise ImageError(f"the image is {len(data) / 1e6:.1f} MB; the limit is {cfg.max_bytes / 1e6:.0f} MB")
    try:
        with warnings.catch_warnings():
            # The pixel count is checked against our own limit just below.
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as probe:
                width, height = probe.size
    except Exception as exc:  # Pillow raises many types for bad data
        if data[4:8] == b"ftyp" and data[8:12] in _HEIF_BRANDS:
            raise ImageError("the photo is in HEIC/HEIF format, which cannot be read here; save it as "
                             "JPEG (on an iPhone: Settings > Camera > Formats > Most Compatible)") from exc
        raise ImageError("the data is not a readable image") from exc
    if width <= 0 or height <= 0:
        raise ImageError("the image has no pixels")
    if width * height > cfg.max_header_pixels:
        raise ImageError(f"the image claims {width}x{height} pixels, which is more than allowed")
    longest = max(width, height)
    flag = cv2.IMREAD_COLOR
    for factor, reduced in ((8, cv2.IMREAD_REDUCED_COLOR_8), (4, cv2.IMREAD_REDUCED_COLOR_4),
                            (2, cv2.IMREAD_REDUCED_COLOR_2)):
        if longest / factor >= cfg.max_side:
            flag = reduced
            break
    buf = np.frombuffer(data, dtype=np.uint8)
    image = cv2.imdecode(buf, flag)
    if image is None or image.size == 0:
        raise ImageError("the image data is corrupt or in an unsupported format")
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    elif image.shape[2] == 4:
        image = cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    h, w = image.shape[:2]
    if _turned(width, height, w, h):
        # the decoder turned the photo upright as its EXIF orientation asks (a phone held
        # sideways): the photo's own pixels are the turned ones
        width, height = height, width
    if max(h, w) > cfg.max_side:
        f = cfg.max_side / max(h, w)
        image = cv2.resize(image, (max(1, round(w * f)), max(1, round(h * f))),
                           interpolation=cv2.INTER_AREA)
    scale = width / image.shape[1]
    return DecodedImage(np.ascontiguousarray(image), (width, height), scale)


def read_image(path: str | Path, config: ImageIOConfig | None = None) -> DecodedImage:
    """Read and decode an image file; see :func:`decode_image`.

    Raises
    ------
    ImageError
        When the file cannot be read or decoded; the message names the file.
    """
    p = Path(path)
    cfg = config or default_config()
    try:
        size = p.stat().st_size
        if size > cfg.max_bytes:
            raise ImageError(f"{p}: {size / 1e6:.1f} MB is more than the {cfg.max_bytes / 1e6:.0f} MB limit")
        data = p.read_bytes()
    except OSError as exc:
        raise ImageError(f"{p}: cannot read the file ({exc.strerror or exc})") from exc
    try:
        return decode_image(data, cfg)
    except ImageError as exc:
        raise ImageError(f"{p}: {exc}") from exc
