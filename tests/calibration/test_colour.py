"""White balance and the 3x3 colour matrix fitted to the sheet's patches."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.colour import ColourCorrection, fit_colour, reference_patches
from calibration.errors import CalibrationError


def _observe(matrix: np.ndarray, noise: float, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """What a camera whose light maps colours by ``matrix`` measures on each patch."""
    out = {}
    for p in reference_patches():
        seen = matrix @ np.asarray(p.bgr, np.float64) + rng.normal(0, noise, 3)
        out[p.name] = np.clip(seen, 0, 255)
    return out


def test_diagonal_cast_is_undone_exactly(rng: np.random.Generator) -> None:
    cast = np.diag([0.6, 0.85, 0.95])
    fit = fit_colour(_observe(cast, 0.0, rng))
    assert np.allclose(fit.combined, np.linalg.inv(cast), atol=1e-3)
    assert fit.residual < 1e-6
    assert np.allclose(fit.white_balance, 1 / np.diag(cast), rtol=1e-6)


def test_crosstalk_is_mostly_recovered(rng: np.random.Generator) -> None:
    light = np.array([[0.7, 0.1, 0.0], [0.05, 0.8, 0.08], [0.0, 0.1, 0.75]])
    fit = fit_colour(_observe(light, 1.0, rng))
    for p in reference_patches():
        if p.name == "white":
            continue
        seen = light @ np.asarray(p.bgr, np.float64)
        assert np.abs(fit.apply_colours(seen)[0] - p.bgr).max() < 8, p.name
    # a white balance alone would leave larger errors than the full fit
    wb_only = ColourCorrection(white_balance=fit.white_balance)
    errs = [np.abs(wb_only.apply_colours(light @ np.asarray(p.bgr, float))[0] - p.bgr).max()
            for p in reference_patches()]
    assert max(errs) > 8


def test_clipped_patches_are_left_out(rng: np.random.Generator) -> None:
    cast = np.diag([0.6, 1.0, 1.4])  # the red channel of light patches clips
    fit = fit_colour(_observe(cast, 0.0, rng))
    assert "white" not in fit.used and "W" not in fit.used
    assert np.allclose(fit.combined, np.linalg.inv(cast), atol=0.02)


def test_apply_corrects_an_image() -> None:
    fit = ColourCorrection(white_balance=(2.0, 1.0, 0.5))
    img = np.full((4, 5, 3), (100, 100, 100), np.uint8)
    out = fit.apply(img)
    assert out.shape == img.shape and out.dtype == np.uint8
    assert tuple(out[0, 0]) == (200, 100, 50)
    assert ColourCorrection().apply(img) is img
    with pytest.raises(CalibrationError):
        fit.apply(np.zeros((4, 5), np.uint8))


def test_too_few_patches(rng: np.random.Generator) -> None:
    seen = _observe(np.eye(3), 0.0, rng)
    with pytest.raises(CalibrationError, match="usable colour patches"):
        fit_colour({k: seen[k] for k in ("grey50", "U", "G")})
    with pytest.raises(CalibrationError, match="white or grey"):
        fit_colour({k: seen[k] for k in ("W", "U", "G", "R", "K", "P", "Y")})


def test_json_round_trip_and_errors(rng: np.random.Generator) -> None:
    fit = fit_colour(_observe(np.diag([0.7, 0.9, 1.1]), 0.5, rng))
    back = ColourCorrection.from_json(fit.to_json())
    assert np.allclose(back.combined, fit.combined, atol=1e-5)
    with pytest.raises(CalibrationError, match=r"colour\.matrix"):
        ColourCorrection.from_json({"white_balance": [1, 1, 1], "matrix": [[1, 0]]})
    with pytest.raises(CalibrationError, match=r"colour\.white_balance"):
        ColourCorrection.from_json({"white_balance": [1, -1, 1], "matrix": [[1, 0, 0]] * 3})


def test_balance_keeping_brightness_neutralises_without_darkening(rng: np.random.Generator) -> None:
    cast = np.diag(rng.uniform([0.35, 0.8, 1.0], [0.5, 0.95, 1.1]))  # a warm lamp: blue weak, red strong
    fit = fit_colour(_observe(cast, 0.5, rng))
    bal = fit.balance_keeping_brightness()
    assert np.allclose(bal.matrix, np.eye(3)) and np.isclose(np.mean(bal.white_balance), 1.0)
    grey = np.clip(cast @ np.full(3, 120.0), 0, 255).round().astype(np.uint8)
    img = np.broadcast_to(grey, (6, 7, 3)).copy()
    out = bal.apply(img).astype(float)
    assert np.ptp(out[0, 0]) <= 2  # the grey comes out grey
    harmonic = 3.0 / np.sum(1.0 / grey.astype(float))  # at the harmonic mean of its channels
    assert abs(out.mean() - harmonic) < 0.03 * harmonic
    # the headroom-scaled full correction brings it down to its darkest channel
    assert fit.with_headroom().apply(img).astype(float).mean() < 1.03 * grey.min() < 0.8 * harmonic
