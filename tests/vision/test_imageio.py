"""Safe decoding: formats, caps, downscaling, and clear errors for bad data."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from vision.errors import ImageError
from vision.imageio import decode_image, default_config, read_image


def _encode(image: np.ndarray, ext: str = ".png") -> bytes:
    ok, buf = cv2.imencode(ext, image)
    assert ok
    return buf.tobytes()


def test_png_round_trip(rng: np.random.Generator) -> None:
    image = rng.integers(0, 256, size=(40, 60, 3), dtype=np.uint8)
    decoded = decode_image(_encode(image))
    assert decoded.image.shape == (40, 60, 3)
    assert decoded.original_size == (60, 40)
    assert decoded.scale == 1.0
    np.testing.assert_array_equal(decoded.image, image)


def test_grey_and_alpha_become_bgr(rng: np.random.Generator) -> None:
    grey = rng.integers(0, 256, size=(10, 12), dtype=np.uint8)
    assert decode_image(_encode(grey)).image.shape == (10, 12, 3)
    bgra = rng.integers(0, 256, size=(10, 12, 4), dtype=np.uint8)
    assert decode_image(_encode(bgra)).image.shape == (10, 12, 3)


def test_large_photo_is_downscaled_with_scale_reported() -> None:
    cfg = dataclasses.replace(default_config(), max_side=200)
    image = np.zeros((450, 900, 3), np.uint8)
    cv2.rectangle(image, (300, 100), (600, 300), (255, 255, 255), -1)
    decoded = decode_image(_encode(image, ".jpg"), cfg)
    assert max(decoded.image.shape[:2]) == 200
    assert decoded.scale == pytest.approx(900 / 200)
    # the white rectangle is still where it was, in original pixels
    ys, xs = np.nonzero(decoded.image[:, :, 0] > 128)
    assert xs.min() * decoded.scale == pytest.approx(300, abs=10)
    assert ys.max() * decoded.scale == pytest.approx(300, abs=10)


def test_phone_panorama_is_read_reduced() -> None:
    """A 12000x9000 JPEG is decoded at a reduced scale, not as a 300 MB array."""
    big = np.zeros((9000, 12000, 3), np.uint8)
    big[::50] = 255
    data = _encode(big, ".jpg")
    del big
    decoded = decode_image(data)
    assert max(decoded.image.shape[:2]) == default_config().max_side
    assert decoded.original_size == (12000, 9000)
    assert decoded.scale == pytest.approx(12000 / decoded.image.shape[1])


def _with_orientation(image: np.ndarray, orientation: int) -> bytes:
    """``image`` (BGR) stored as a JPEG whose EXIF orientation tag is ``orientation``."""
    import io

    from PIL import Image

    stored = Image.fromarray(np.ascontiguousarray(image[:, :, ::-1]))
    exif = stored.getexif()
    exif[0x0112] = orientation
    buf = io.BytesIO()
    stored.save(buf, format="JPEG", quality=95, exif=exif.tobytes())
    return buf.getvalue()


@pytest.mark.parametrize(("orientation", "turn"), [(1, None), (3, cv2.ROTATE_180),
                                                   (6, cv2.ROTATE_90_CLOCKWISE),
                                                   (8, cv2.ROTATE_90_COUNTERCLOCKWISE)])
@pytest.mark.parametrize("max_side", [None, 150])
def test_a_phone_photo_is_read_upright_in_its_own_pixels(orientation: int, turn: int | None,
                                                         max_side: int | None) -> None:
    """A photo stored sideways with an EXIF orientation is read as every viewer shows it, and
    positions scale back onto that upright photo (also when it is read reduced)."""
    stored = np.zeros((300, 600, 3), np.uint8)
    cv2.rectangle(stored, (40, 30), (160, 110), (255, 255, 255), -1)  # near the stored top-left
    upright = stored if turn is None else cv2.rotate(stored, turn)
    cfg = default_config() if max_side is None else dataclasses.replace(default_config(), max_side=max_side)
    decoded = decode_image(_with_orientation(stored, orientation), cfg)
    h, w = upright.shape[:2]
    assert decoded.original_size == (w, h)
    assert decoded.image.shape[1] * decoded.scale == pytest.approx(w, abs=1)
    assert decoded.image.shape[0] * decoded.scale == pytest.approx(h, abs=1)
    # the white patch is where the upright photo has it, in the upright photo's pixels
    ys, xs = np.nonzero(decoded.image[:, :, 0] > 128)
    ty, tx = np.nonzero(upright[:, :, 0] > 128)
    tol = 2 * decoded.scale + 2
    assert xs.min() * decoded.scale == pytest.approx(tx.min(), abs=tol)
    assert ys.min() * decoded.scale == pytest.approx(ty.min(), abs=tol)
    assert xs.max() * decoded.scale == pytest.approx(tx.max(), abs=tol)


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"", "empty"),
        (b"this is not an image at all", "not a readable image"),
        (b"%PDF-1.4 not an image", "not a readable image"),
        # an iPhone's HEIC photo: its file-type box, then data no decoder here reads
        (b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + bytes(64), "HEIC"),
    ],
)
def test_bad_data_raises_clear_error(data: bytes, words: str) -> None:
    with pytest.raises(ImageError, match=words):
        decode_image(data)


def test_truncated_jpeg_is_an_error(rng: np.random.Generator) -> None:
    image = rng.integers(0, 256, size=(64, 64, 3), dtype=np.uint8)
    data = _encode(image, ".jpg")
    with pytest.raises(ImageError):
        decode_image(data[:40])


def test_oversized_bytes_rejected_before_decoding() -> None:
    cfg = dataclasses.replace(default_config(), max_bytes=100)
    with pytest.raises(ImageError, match="limit"):
        decode_image(b"\x89PNG" + b"0" * 200, cfg)


def test_pixel_bomb_header_rejected() -> None:
    cfg = dataclasses.replace(default_config(), max_header_pixels=1000)
    with pytest.raises(ImageError, match="pixels"):
        decode_image(_encode(np.zeros((100, 100, 3), np.uint8)), cfg)


def test_read_image_names_the_file(tmp_path) -> None:
    bad = tmp_path / "broken.jpg"
    bad.write_bytes(b"garbage")
    with pytest.raises(ImageError, match=r"broken\.jpg"):
        read_image(bad)
    with pytest.raises(ImageError, match=r"missing\.png"):
        read_image(tmp_path / "missing.png")
