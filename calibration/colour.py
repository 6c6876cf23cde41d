"""Colour correction from the sheet's patches: white balance, then a 3x3 colour matrix.

The correction works on BGR values in 0..255: ``out = M @ (wb * pixel)``. The white balance
``wb`` comes from the neutral patches (white and the greys); the matrix is then fitted by
ridge-regularised least squares to all usable patches (pulled towards the identity so a few
patches cannot bend the colours of everything else). Clipped and nearly black patches are left
out of the fit.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.errors import CalibrationError
from calibration.sheet import Patch, load_section, sheet_geometry

Matrix3 = tuple[tuple[float, float, float], tuple[float, float, float], tuple[float, float, float]]
IDENTITY: Matrix3 = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))


@dataclass(frozen=True)
class ColourConfig:
    """Tunables of the colour fit (``calibration.json``, section ``colour``).

    ``saturation_level``: a patch with any channel at or above it is clipped and not used.
    ``dark_level``: a patch with every channel below it carries no colour information.
    ``ridge``: strength of the pull of the matrix towards the identity.
    """

    saturation_level: float
    dark_level: float
    ridge: float
    min_neutral: int
    min_patches: int


def default_config() -> ColourConfig:
    return load_section("calibration", "colour", ColourConfig)


@dataclass(frozen=True)
class ColourCorrection:
    """White balance gains (BGR) and the 3x3 matrix applied after them (BGR in, BGR out).

    ``residual`` is the RMS error over the fitted patches after correction, in 0..255 units;
    ``used`` names the patches that took part in the fit.
    """

    white_balance: tuple[float, float, float] = (1.0, 1.0, 1.0)
    matrix: Matrix3 = IDENTITY
    residual: float = 0.0
    used: tuple[str, ...] = ()

    @property
    def combined(self) -> NDArray[np.float64]:
        """``(3, 3)`` float64: ``matrix @ diag(white_balance)``."""
        return np.asarray(self.matrix, np.float64) @ np.diag(np.asarray(self.white_balance, np.float64))

    @property
    def is_identity(self) -> bool:
        return bool(np.allclose(self.combined, np.eye(3), atol=1e-9))

    def with_headroom(self) -> ColourCorrection:
        """The same correction scaled so that no channel's gain exceeds 1.

        A warm lamp can need a gain of 2 or more on blue: applied to an 8-bit photo, that gain
        saturates every bright pixel and erases the faint tint that tells a pearl from white.
        Scaled down, the colours keep their ratios (which is what the readers compare), the
        highlights keep their detail, and only the overall brightness drops.
        """
        scale = max(1.0, float(np.max(np.diag(self.combined))))
        if scale == 1.0:
            return self
        matrix = np.asarray(self.matrix, np.float64) / scale
        return dataclasses.replace(self, matrix=tuple(tuple(float(v) for v in row) for row in matrix))

    def balance_keeping_brightness(self) -> ColourCorrection:
        """The white balance alone, its gains scaled to average 1 (no colour matrix).

        The map-card readers set every threshold from each card's own pixels, so they need the
        cast gone but not the matrix's saturation: and :meth:`with_headroom` darkens a photo under
        a strong cast (a warm lamp that needs x2.5 on blue leaves red and green at 0.4), which
        crushes pen strokes and outlines into a few 8-bit levels. With gains averaging 1, a grey
        comes out at the harmonic mean of its three channels in the photo (with headroom: at the
        darkest of them); only the few highlights of the channel boosted most may clip.
        """
        wb = np.asarray(self.white_balance, np.float64)
        gains = wb / float(np.mean(wb))
        return ColourCorrection(white_balance=(float(gains[0]), float(gains[1]), float(gains[2])),
                                residual=self.residual, used=self.used)

    def apply(self, image: NDArray[np.uint8]) -> NDArray[np.uint8]:
        """Correct a BGR image.

        Parameters
        ----------
        image : (H, W, 3) uint8 array

        Returns
        -------
        (H, W, 3) uint8 array
            The corrected image, saturated to 0..255 (the input when the correction is the identity).
        """
        if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
            raise CalibrationError("colour correction needs an (H, W, 3) uint8 image")
        if self.is_identity:
            return image
        return cv2.transform(image, self.combined.astype(np.float32))

    def apply_colours(self, bgr: NDArray[np.float64]) -> NDArray[np.float64]:
        """Correct ``(N, 3)`` float BGR colours (no clipping)."""
        return np.asarray(bgr, np.float64).reshape(-1, 3) @ self.combined.T

    def to_json(self) -> dict[str, Any]:
        return {
            "white_balance": [round(float(v), 6) for v in self.white_balance],
            "matrix": [[round(float(v), 6) for v in row] for row in self.matrix],
            "residual": round(float(self.residual), 3),
            "used": list(self.used),
        }

    @classmethod
    def from_json(cls, data: Any) -> ColourCorrection:
        """Inverse of :meth:`to_json`.

        Raises
        ------
        CalibrationError
            Naming the field that is missing or malformed.
        """
        if not isinstance(data, Mapping):
            raise CalibrationError("colour: expected an object")
        wb = _floats(data.get("white_balance"), 3, "colour.white_balance")
        rows = data.get("matrix")
        if not isinstance(rows, Sequence) or len(rows) != 3:
            raise CalibrationError("colour.matrix: expected 3 rows of 3 numbers")
        matrix = tuple(_floats(r, 3, "colour.matrix") for r in rows)
        if any(g <= 0 for g in wb):
            raise CalibrationError("colour.white_balance: gains must be positive")
        residual = data.get("residual", 0.0)
        if not isinstance(residual, int | float):
            raise CalibrationError("colour.residual: expected a number")
        used = data.get("used", [])
        if not isinstance(used, list) or not all(isinstance(u, str) for u in used):
            raise CalibrationError("colour.used: expected a list of patch names")
        return cls(wb, matrix, float(residual), tuple(used))  # type: ignore[arg-type]


def _floats(value: Any, n: int, field: str) -> tuple[float, ...]:
    ok = isinstance(value, Sequence) and not isinstance(value, str) and len(value) == n
    if not ok or not all(isinstance(v, int | float) and np.isfinite(v) for v in value):
        raise CalibrationError(f"{field}: expected {n} finite numbers")
    return tuple(float(v) for v in value)


def reference_patches(paper: str = "a4") -> tuple[Patch, ...]:
    """The sheet's patches with their printed colours."""
    return sheet_geometry(paper).patches


def fit_colour(
    observed: Mapping[str, Sequence[float]],
    patches: Sequence[Patch] | None = None,
    config: ColourConfig | None = None,
) -> ColourCorrection:
    """Fit white balance and a 3x3 matrix mapping observed patch colours to the printed ones.

    Parameters
    ----------
    observed : mapping of patch name -> (3,) BGR floats in 0..255
        The colour measured for each visible patch (missing patches are simply absent).
    patches : sequence of Patch, optional
        The reference patches; those of the A4 sheet (same colours on letter) by default.
    config : ColourConfig, optional

    Raises
    ------
    CalibrationError
        When too few usable patches (or no neutral one) were seen.
    """
    cfg = config or default_config()
    refs = {p.name: p for p in (patches if patches is not None else reference_patches())}
    names, obs, ref, neutral = [], [], [], []
    for name, colour in observed.items():
        if name not in refs:
            continue
        o = np.asarray(colour, np.float64).reshape(3)
        if o.max() >= cfg.saturation_level or o.max() < cfg.dark_level:
            continue
        names.append(name)
        obs.append(o)
        ref.append(np.asarray(refs[name].bgr, np.float64))
        neutral.append(refs[name].neutral)
    n_neutral = sum(neutral)
    if n_neutral < cfg.min_neutral:
        raise CalibrationError("no usable white or grey patch on the sheet "
                               "(covered, in glare or overexposed)")
    if len(names) < cfg.min_patches:
        raise CalibrationError(f"only {len(names)} usable colour patches on the sheet; "
                               f"at least {cfg.min_patches} are needed (are they covered or in glare?)")
    o_arr, r_arr = np.asarray(obs), np.asarray(ref)
    nm = np.asarray(neutral)
    on, rn = o_arr[nm], r_arr[nm]
    wb = (on * rn).sum(axis=0) / np.maximum((on * on).sum(axis=0), 1e-9)
    x = o_arr * wb
    lam = cfg.ridge * float(np.trace(x.T @ x)) / 3.0
    a = x.T @ x + lam * np.eye(3)
    b = x.T @ r_arr + lam * np.eye(3)
    mt = np.linalg.solve(a, b)
    matrix = mt.T
    resid = float(np.sqrt(np.mean((x @ mt - r_arr) ** 2)))
    return ColourCorrection(
        white_balance=(float(wb[0]), float(wb[1]), float(wb[2])),
        matrix=tuple(tuple(float(v) for v in row) for row in matrix),  # type: ignore[arg-type]
        residual=resid,
        used=tuple(names),
    )
