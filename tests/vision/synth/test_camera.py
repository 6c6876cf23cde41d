"""The camera and light core of the renderer, on tiny scenes."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.synth.camera import (
    Conditions,
    Placement,
    camera_homography,
    photograph,
    project,
    sample_conditions,
    strong_cast,
    table_texture,
)

SMALL = (240, 160)


def _grey_table(value: int = 60) -> np.ndarray:
    return np.full((60, 90, 3), value, np.uint8)


def _square(x: float, y: float, side: float) -> tuple[tuple[float, float], ...]:
    return ((x, y), (x + side, y), (x + side, y + side), (x, y + side))


def test_straight_down_maps_table_centre_to_image_centre() -> None:
    cond = Conditions(size=SMALL)
    hom = camera_homography(cond)
    centre = project(hom, (450.0, 300.0))[0]
    assert np.allclose(centre, (SMALL[0] / 2, SMALL[1] / 2))
    # straight down, the table area just fits: its corners land on the frame's edges
    corners = project(hom, [(0, 0), (900, 600)])
    assert np.allclose(corners, [(0, 0), (SMALL[0], SMALL[1])], atol=1e-6)


@pytest.mark.parametrize("tilt, yaw", [(0.0, 0.0), (30.0, 40.0), (35.0, -120.0)])
def test_placed_square_lands_on_its_homography_corners(
    tilt: float, yaw: float, rng: np.random.Generator
) -> None:
    cond = Conditions(size=SMALL, tilt_deg=tilt, yaw_deg=yaw, zoom=1.3)
    face = np.full((40, 40, 3), 250, np.uint8)
    photo = photograph([Placement(face, _square(350, 200, 200))], cond, rng, table=_grey_table())
    quad = np.asarray(photo.quads[0])
    assert np.allclose(quad, project(photo.homography, _square(350, 200, 200)))
    # inside the quad (shrunk toward its centre) is white, just outside is the table
    centre = quad.mean(axis=0)
    for corner in quad:
        inner = centre + (corner - centre) * 0.85
        outer = centre + (corner - centre) * 1.15
        assert photo.image[round(inner[1]), round(inner[0])].min() > 230
        assert photo.image[round(outer[1]), round(outer[0])].max() < 80


def test_tilt_makes_the_far_side_smaller(rng: np.random.Generator) -> None:
    hom = camera_homography(Conditions(size=SMALL, tilt_deg=30.0))
    top = project(hom, [(300, 100), (600, 100)])
    bottom = project(hom, [(300, 500), (600, 500)])
    assert np.ptp(top[:, 0]) != pytest.approx(np.ptp(bottom[:, 0]), rel=0.05)


def test_cast_multiplies_a_white_patch(rng: np.random.Generator) -> None:
    face = np.full((20, 20, 3), 200, np.uint8)
    placement = [Placement(face, _square(300, 150, 300))]
    cast = (0.5, 1.0, 1.2)
    plain = photograph(placement, Conditions(size=SMALL), rng, table=_grey_table())
    tinted = photograph(placement, Conditions(size=SMALL, cast=cast, brightness=0.9), rng,
                        table=_grey_table())
    c = (SMALL[1] // 2, SMALL[0] // 2)
    assert tuple(plain.image[c]) == (200, 200, 200)
    expected = np.clip(np.array(cast) * 0.9 * 200, 0, 255)
    assert np.allclose(tinted.image[c].astype(float), expected, atol=1.0)
    # the table below takes the same light
    assert np.allclose(tinted.image[5, 5].astype(float), np.array(cast) * 0.9 * 60, atol=1.0)


def test_later_placements_cover_earlier_ones_and_alpha_cuts_out(rng: np.random.Generator) -> None:
    red = np.zeros((20, 20, 3), np.uint8)
    red[:, :, 2] = 255
    blue = np.zeros((20, 20, 4), np.uint8)
    blue[:, :, 0] = 255
    blue[:10, :, 3] = 255  # only the top half is opaque
    cond = Conditions(size=SMALL)
    photo = photograph([Placement(red, _square(300, 150, 300)), Placement(blue, _square(300, 150, 300))],
                       cond, rng, table=_grey_table())
    q = np.asarray(photo.quads[0])
    top = q[0] + (q[3] - q[0]) * 0.25 + (q[1] - q[0]) * 0.5
    low = q[0] + (q[3] - q[0]) * 0.75 + (q[1] - q[0]) * 0.5
    assert tuple(photo.image[round(top[1]), round(top[0])]) == (255, 0, 0)
    assert tuple(photo.image[round(low[1]), round(low[0])]) == (0, 0, 255)


def test_effects_change_the_image_and_are_seeded() -> None:
    face = np.full((30, 30, 3), 220, np.uint8)
    cond = Conditions(size=SMALL, light_gradient=0.8, shadow=0.7, glare=0.9, blur_sigma=1.0,
                      motion_blur_px=3.0, noise_sigma=5.0, jpeg_quality=60, tilt_deg=20.0)
    pl = [Placement(face, _square(300, 150, 300))]
    a = photograph(pl, cond, np.random.default_rng(5), table=_grey_table())
    b = photograph(pl, cond, np.random.default_rng(5), table=_grey_table())
    plain = Conditions(size=SMALL, tilt_deg=20.0)
    clean = photograph(pl, plain, np.random.default_rng(5), table=_grey_table())
    assert a.image.shape == (SMALL[1], SMALL[0], 3) and a.image.dtype == np.uint8
    assert np.array_equal(a.image, b.image)
    assert np.abs(a.image.astype(int) - clean.image.astype(int)).mean() > 3


@pytest.mark.parametrize("tier", ["easy", "typical", "hard"])
def test_sample_conditions_respects_the_tier(tier: str, rng: np.random.Generator) -> None:
    for _ in range(20):
        c = sample_conditions(rng, tier, size=SMALL)
        assert c.size == SMALL
        assert 0 <= c.tilt_deg <= 35
        if tier == "easy":
            assert c.tilt_deg <= 10 and c.glare == 0
    hard = [sample_conditions(rng, "hard") for _ in range(20)]
    if tier == "hard":
        assert min(c.tilt_deg for c in hard) >= 15
        assert all(c.jpeg_quality is not None for c in hard)


def test_sample_conditions_rejects_unknown_tier(rng: np.random.Generator) -> None:
    with pytest.raises(ValueError, match="tier"):
        sample_conditions(rng, "brutal")


def test_strong_cast_is_strong(rng: np.random.Generator) -> None:
    for _ in range(10):
        cast = np.array(strong_cast(rng))
        assert cast.max() / cast.min() > 1.3


def test_table_textures_vary(rng: np.random.Generator) -> None:
    textures = [table_texture(rng, (80, 50)) for _ in range(6)]
    assert all(t.shape == (50, 80, 3) and t.dtype == np.uint8 for t in textures)
    means = {tuple(np.round(t.reshape(-1, 3).mean(axis=0) / 20)) for t in textures}
    assert len(means) > 2


def test_bad_face_is_a_clear_error(rng: np.random.Generator) -> None:
    with pytest.raises(ValueError, match="placement 0"):
        photograph([Placement(np.zeros((5, 5), np.uint8), _square(0, 0, 10))], Conditions(size=SMALL), rng)


def test_a_raised_object_casts_a_longer_shadow_than_a_flat_card() -> None:
    face = np.full((20, 20, 3), 250, np.uint8)
    cond = Conditions(size=SMALL, shadow=1.0)
    table = _grey_table(200)

    def shot(height: float, shadow: bool) -> tuple[np.ndarray, np.ndarray]:
        pl = [Placement(face, _square(400, 250, 100), casts_shadow=shadow, height_mm=height)]
        photo = photograph(pl, cond, np.random.default_rng(8), table=table)
        return photo.image.astype(float), np.asarray(photo.quads[0])

    base, quad = shot(0.0, False)
    mask = np.zeros(SMALL[::-1], np.uint8)
    cv2.fillConvexPoly(mask, np.round(quad).astype(np.int32), 1)
    outside = cv2.dilate(mask, np.ones((3, 3), np.uint8)) == 0
    flat = (base - shot(0.0, True)[0])[outside].sum()
    raised = (base - shot(40.0, True)[0])[outside].sum()
    assert flat > 0
    assert raised > 3 * flat
