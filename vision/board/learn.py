"""Token appearance: the default model and enrolment from a photo of a known arrangement."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision.errors import VisionError

KINDS = "WUGRKPY"
LETTERS = KINDS + "."


class TokenModelError(VisionError):
    """A token model or enrolment layout that cannot be used; the message names the field."""


@dataclass(frozen=True)
class TokenModel:
    """What each token kind looks like, as light-normalised log BGR colours.

    ``means[i]`` is the mean feature of kind ``kinds[i]`` (natural log of BGR in 0..1 over the
    local board brightness) and ``spreads[i]`` its spread. ``calibrated`` models were learned
    under the table's own light (after the profile's colour correction), so the reader does not
    search for a colour cast. ``empty`` is the mean log colour of an empty spot relative to the
    board around it, when enrolled. ``gains`` are the per-channel (B, G, R) gains of the colour
    correction applied to the camera's image before the model was learnt (and before every image
    the reader sees with it): the camera's noise floor and clipping level in each channel are
    scaled by them. None for an uncorrected image. ``correction`` is that correction's whole 3x3
    matrix (BGR in, BGR out; its diagonal is ``gains``), when known: through it the reader
    recovers the camera's own colour of a spot, and so which channels the camera clipped.
    """

    kinds: tuple[str, ...]
    means: tuple[tuple[float, float, float], ...]
    spreads: tuple[float, ...]
    calibrated: bool = False
    empty: tuple[float, float, float] | None = None
    gains: tuple[float, float, float] | None = None
    correction: tuple[tuple[float, float, float], ...] | None = None

    def channel_eps(self, eps: float) -> NDArray[np.float64]:
        """(3,) float64: the log offset of each channel, ``eps`` of the camera's range."""
        return eps * (np.ones(3) if self.gains is None else np.asarray(self.gains, np.float64))

    def clip_levels(self, saturation: float) -> NDArray[np.float64]:
        """(3,) float64: the level (0..1) from which each channel of the reader's image is clipped,
        by the camera (its full range times the gain) or by the 8-bit image."""
        if self.gains is None:
            return np.full(3, saturation)
        return saturation * np.minimum(1.0, np.asarray(self.gains, np.float64))

    def to_camera(self, bgr: NDArray[np.float64]) -> NDArray[np.float64]:
        """The camera's own colours (before the colour correction) of the reader's colours.

        Parameters
        ----------
        bgr : (..., 3) float64 array, BGR in 0..1 after the correction

        Returns
        -------
        (..., 3) float64 array, in the camera's range (1 is its top)
        """
        bgr = np.asarray(bgr, np.float64)
        if self.correction is not None:
            return bgr @ np.linalg.inv(np.asarray(self.correction, np.float64)).T
        if self.gains is not None:
            return bgr / np.asarray(self.gains, np.float64)
        return bgr

    def clipped(self, bgr: NDArray[np.float64], saturation: float, feed: float) -> NDArray[np.bool_]:
        """Channels of the reader's colours that a clip made a lower bound.

        The 8-bit image clips a channel at ``saturation``; the camera clipped a channel of its
        own colour (:meth:`to_camera`) at ``saturation`` of its range before the correction, and
        that clip reaches every corrected channel the camera channel feeds with at least ``feed``
        of the corrected channel's own weight. Without the matrix each channel is fed by itself
        alone (its level then is ``saturation`` times its gain).

        Parameters
        ----------
        bgr : (..., 3) float64 array, BGR in 0..1 after the correction
        saturation : float
        feed : float

        Returns
        -------
        (..., 3) bool array
        """
        bgr = np.asarray(bgr, np.float64)
        if self.correction is None:
            return bgr >= self.clip_levels(saturation)
        m = np.abs(np.asarray(self.correction, np.float64))
        feeds = m >= feed * np.diag(m)[:, None]  # [corrected channel, camera channel]
        camera = self.to_camera(bgr) >= saturation
        return (bgr >= saturation) | (camera[..., None, :] & feeds).any(axis=-1)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict; :meth:`from_json` reads it back."""
        return {
            "kinds": "".join(self.kinds),
            "means": [[round(float(v), 5) for v in m] for m in self.means],
            "spreads": [round(float(s), 5) for s in self.spreads],
            "calibrated": bool(self.calibrated),
            "empty": None if self.empty is None else [round(float(v), 5) for v in self.empty],
            "gains": None if self.gains is None else [round(float(v), 5) for v in self.gains],
            "correction": None if self.correction is None else [[round(float(v), 6) for v in row]
                                                                for row in self.correction],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TokenModel:
        """Build a model from :meth:`to_json` output.

        Raises
        ------
        TokenModelError
            Naming the bad field.
        """
        if not isinstance(data, Mapping):
            raise TokenModelError("token_model: expected an object")
        kinds = data.get("kinds")
        if (not isinstance(kinds, str) or not kinds or set(kinds) - set(KINDS)
                or len(set(kinds)) != len(kinds)):
            raise TokenModelError(f"token_model.kinds: expected distinct letters from {KINDS}, got {kinds!r}")
        means = _vectors(data.get("means"), len(kinds), "token_model.means")
        spreads = data.get("spreads")
        if (not isinstance(spreads, list) or len(spreads) != len(kinds)
                or not all(_finite(s) and s >= 0 for s in spreads)):
            raise TokenModelError(f"token_model.spreads: expected {len(kinds)} non-negative numbers")
        empty = data.get("empty")
        empty_vec = None if empty is None else _vectors([empty], 1, "token_model.empty")[0]
        calibrated = data.get("calibrated", False)
        if not isinstance(calibrated, bool):
            raise TokenModelError("token_model.calibrated: expected true or false")
        gains = data.get("gains")
        gains_vec = None if gains is None else _vectors([gains], 1, "token_model.gains")[0]
        if gains_vec is not None and min(gains_vec) <= 0:
            raise TokenModelError("token_model.gains: expected 3 positive numbers")
        correction = data.get("correction")
        matrix = None if correction is None else _vectors(correction, 3, "token_model.correction")
        if matrix is not None and (min(matrix[i][i] for i in range(3)) <= 0
                                   or abs(np.linalg.det(np.asarray(matrix))) < 1e-9):
            raise TokenModelError("token_model.correction: expected an invertible 3x3 matrix "
                                  "with a positive diagonal")
        return cls(tuple(kinds), means, tuple(float(s) for s in spreads), calibrated, empty_vec, gains_vec,
                   matrix)


def _finite(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def _vectors(value: Any, n: int, name: str) -> tuple[tuple[float, float, float], ...]:
    if not isinstance(value, list) or len(value) != n:
        raise TokenModelError(f"{name}: expected {n} lists of 3 numbers")
    out = []
    for i, v in enumerate(value):
        if not isinstance(v, list) or len(v) != 3 or not all(_finite(x) for x in v):
            raise TokenModelError(f"{name}[{i}]: expected 3 numbers")
        out.append((float(v[0]), float(v[1]), float(v[2])))
    return tuple(out)


@cache
def _default_colours() -> dict[str, tuple[float, float, float]]:
    text = resources.files("vision").joinpath("data", "config", "board.json").read_text("utf-8")
    tokens = json.loads(text)["tokens"]
    return {k: tuple(float(v) for v in tokens[k]) for k in KINDS}  # type: ignore[misc]


def default_model(eps: float = 0.02) -> TokenModel:
    """The token model from the default colours in ``board.json`` (not calibrated)."""
    cols = _default_colours()
    means = tuple(tuple(float(np.log(c + eps)) for c in cols[k]) for k in KINDS)
    return TokenModel(tuple(KINDS), means, tuple(0.0 for _ in KINDS), calibrated=False)  # type: ignore[arg-type]


def default_layout() -> tuple[str, ...]:
    """An enrolment arrangement using all seven kinds (and empty spots), 5 strings of 5 letters."""
    return ("WUGRK", "PY.WU", "GRKPY", "UG.RK", "WUGRY")


def check_layout(layout: Sequence[str], name: str = "layout") -> tuple[str, ...]:
    """Validate 5 strings of 5 letters from ``WUGRKPY.``.

    Raises
    ------
    TokenModelError
        Naming the bad row.
    """
    if isinstance(layout, str) or len(layout) != 5:
        raise TokenModelError(f"{name}: expected 5 rows of 5 letters")
    rows = []
    for i, row in enumerate(layout):
        if not isinstance(row, str) or len(row) != 5 or set(row.upper()) - set(LETTERS):
            raise TokenModelError(f"{name}[{i}]: expected 5 letters from {LETTERS}, got {row!r}")
        rows.append(row.upper())
    return tuple(rows)


def model_from_features(layout: Sequence[str], x: NDArray[np.float64], e: NDArray[np.float64],
                        spread_floor: float, min_spots: int,
                        gains: tuple[float, float, float] | None = None,
                        correction: tuple[tuple[float, float, float], ...] | None = None) -> TokenModel:
    """Average the features of each kind over the spots of a known arrangement.

    Parameters
    ----------
    layout : 5 strings of 5 letters
    x : (5, 5, 3) float64 light-normalised log colours of the spots
    e : (5, 5, 3) float64 log colours of the spots relative to the board around them
    spread_floor : smallest spread stored
    min_spots : spots a kind needs to be learned
    gains : the colour correction's (B, G, R) gains the features were measured after, if any
    correction : that correction's 3x3 matrix, if known

    Raises
    ------
    TokenModelError
        When the arrangement lacks a kind.
    """
    rows = check_layout(layout)
    means, spreads = [], []
    for k in KINDS:
        sel = np.array([[rows[r][c] == k for c in range(5)] for r in range(5)])
        if sel.sum() < min_spots:
            raise TokenModelError(f"layout: needs at least {min_spots} {k} token(s) to learn them")
        v = x[sel]
        m = np.median(v, axis=0)
        means.append(tuple(float(a) for a in m))
        spread = float(np.sqrt(((v - m) ** 2).sum(-1)).max()) if len(v) > 1 else 0.0
        spreads.append(max(spread_floor, spread))
    empty = None
    sel = np.array([[rows[r][c] == "." for c in range(5)] for r in range(5)])
    if sel.any():
        m = np.median(e[sel], axis=0)
        empty = (float(m[0]), float(m[1]), float(m[2]))
    return TokenModel(tuple(KINDS), tuple(means), tuple(spreads), calibrated=True,  # type: ignore[arg-type]
                      empty=empty, gains=gains, correction=correction)


def learn_tokens(image: NDArray[np.uint8], layout: Sequence[str], config: Any | None = None,
                 gains: Sequence[float] | None = None,
                 correction: Sequence[Sequence[float]] | NDArray[np.float64] | None = None) -> TokenModel:
    """Learn each token kind's appearance under this light from a photo of a known arrangement.

    Parameters
    ----------
    image : (H, W, 3) uint8 BGR array
        The board with tokens placed as ``layout`` (prepared by the profile's colour correction
        when the model is to be used with that profile).
    layout : 5 strings of 5 letters from ``WUGRKPY.``, in the grid as seen (row 0 runs from the
        board corner nearest the image's top-left); see :func:`default_layout`.
    config : vision.board.config.BoardConfig, optional
    gains : (B, G, R) gains of the colour correction ``image`` was prepared with, optional
        Stored in the model: the reader then knows each channel's noise floor and clipping level.
    correction : (3, 3) the whole colour correction ``image`` was prepared with, optional
        Stored in the model (its diagonal is the gains when ``gains`` is not given): the reader
        then knows which channels the camera clipped before the correction mixed them.

    Returns
    -------
    TokenModel
        ``calibrated`` is true.

    Raises
    ------
    TokenModelError
        For a bad layout, a layout lacking a kind, or no board in the photo.
    """
    from vision.board.config import default_config, default_learn_config
    from vision.board.read import locate
    from vision.board.spots import sample_spots, spot_features

    rows = check_layout(layout)
    cfg = config or default_config()
    lcfg = default_learn_config()
    found = locate(image, cfg)
    if found is None:
        raise TokenModelError("image: no token board found")
    g = None
    matrix = None
    if correction is not None:
        mv = np.asarray(correction, np.float64)
        if (mv.shape != (3, 3) or not np.all(np.isfinite(mv)) or np.diag(mv).min() <= 0
                or abs(np.linalg.det(mv)) < 1e-9):
            raise TokenModelError("correction: expected an invertible 3x3 matrix with a positive diagonal")
        matrix = tuple((float(r[0]), float(r[1]), float(r[2])) for r in mv)
        if gains is None:
            gains = np.diag(mv)
    if gains is not None:
        gv = np.asarray(gains, np.float64)
        if gv.shape != (3,) or not np.all(np.isfinite(gv)) or gv.min() <= 0:
            raise TokenModelError("gains: expected 3 positive numbers")
        g = (float(gv[0]), float(gv[1]), float(gv[2]))
    samples = sample_spots(found.rect, found.grid, cfg)
    eps = TokenModel(tuple(KINDS), (), (), gains=g).channel_eps(cfg.eps)
    f = spot_features(samples, cfg, eps)
    return model_from_features(rows, f["x"], f["e"], lcfg.spread_floor, lcfg.min_spots, g, matrix)
