"""Token enrolment: learn each Splendor Duel token kind's appearance under this table's light.

The player lays the tokens on the board in a known arrangement (``default_layout()`` or their
own: 5 strings of 5 letters from ``WUGRKPY.``) and photographs it. :func:`enrol_tokens` applies
the profile's colour correction (so the model is learnt on the same pixels the reader will see),
runs :func:`vision.board.learn_tokens` and stores the model's JSON in the profile.

Which side of the board counts as the top is up to the reader, so all four quarter turns of the
layout are tried; the learnt colours must read the enrolment photo back as the layout, which
also catches a mistyped layout or a photo of something else.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from calibration.errors import CalibrationError
from calibration.sheet import load_section

if TYPE_CHECKING:
    from calibration.profile import Profile

KINDS = "WUGRKPY"
LETTERS = KINDS + "."
# How many tokens of each kind the game has (4 of each gem colour, 2 pearls, 3 gold).
TOKEN_COUNTS: dict[str, int] = {"W": 4, "U": 4, "G": 4, "R": 4, "K": 4, "P": 2, "Y": 3}
SIZE = 5


@dataclass(frozen=True)
class TokensConfig:
    """Tunables of enrolment (``calibration.json``, section ``tokens``): how many spots of the
    enrolment photo may read differently from the layout with the learnt colours; ``pearl_sheet_weight``
    (0..1) is the share of the sheet's pearl patch in the white-to-pearl tint step of the model."""

    max_mismatches: int
    pearl_sheet_weight: float


def default_layout() -> tuple[str, ...]:
    """The default enrolment arrangement (from the board reader), 5 strings of 5 letters."""
    try:
        from vision.board import default_layout as board_default
    except ImportError as exc:
        raise CalibrationError("token enrolment is not available: the board reader is not installed") from exc
    return tuple(str(row) for row in board_default())


def format_layout(layout: Sequence[str]) -> str:
    """The layout as 5 lines of spaced letters, for printing."""
    return "\n".join(" ".join(row) for row in layout)


def parse_layout(text: str | Sequence[str]) -> tuple[str, ...]:
    """Parse and check an enrolment layout.

    Parameters
    ----------
    text : str or sequence of str
        ``"default"``; 5 rows separated by commas, slashes, spaces or newlines
        (``"WUGRK,PY.WU,..."``); 25 letters in one string; or a sequence of 5 strings.
        Letters are case-insensitive; ``-`` and ``_`` also mean an empty spot.

    Returns
    -------
    tuple of 5 str
        Upper-case rows of 5 letters from ``WUGRKPY.``.

    Raises
    ------
    CalibrationError
        Saying what is wrong: row count, row length, unknown letters, or more tokens of a kind
        than the game has.
    """
    if isinstance(text, str):
        if text.strip().lower() == "default":
            return default_layout()
        parts = [p for p in re.split(r"[\s,;/|]+", text.strip()) if p]
        if len(parts) == 1 and len(parts[0]) == SIZE * SIZE:
            parts = [parts[0][i:i + SIZE] for i in range(0, SIZE * SIZE, SIZE)]
    else:
        parts = [str(p) for p in text]
    rows = tuple(p.upper().replace("-", ".").replace("_", ".") for p in parts)
    if len(rows) != SIZE:
        raise CalibrationError(f"layout: expected {SIZE} rows of {SIZE} letters, got {len(rows)} rows")
    for i, row in enumerate(rows, start=1):
        if len(row) != SIZE:
            raise CalibrationError(f"layout row {i} {row!r}: expected {SIZE} letters, got {len(row)}")
        bad = sorted({ch for ch in row if ch not in LETTERS})
        if bad:
            raise CalibrationError(f"layout row {i} {row!r}: unknown letter(s) {''.join(bad)}; "
                                   f"use {LETTERS} (. = empty spot)")
    counts = Counter("".join(rows))
    for kind, limit in TOKEN_COUNTS.items():
        if counts[kind] > limit:
            raise CalibrationError(f"layout: {counts[kind]} {kind} tokens, but the game has only {limit}")
    if sum(counts[k] for k in KINDS) == 0:
        raise CalibrationError("layout: no tokens on the board")
    return rows


def rotations(layout: Sequence[str]) -> tuple[tuple[str, ...], ...]:
    """The layout and its three quarter turns (clockwise), without repeats."""
    grid = [list(row) for row in layout]
    out: list[tuple[str, ...]] = []
    for _ in range(4):
        rows = tuple("".join(r) for r in grid)
        if rows not in out:
            out.append(rows)
        grid = [list(r) for r in zip(*grid[::-1], strict=True)]
    return tuple(out)


def missing_kinds(layout: Sequence[str]) -> tuple[str, ...]:
    """Token kinds absent from ``layout`` (their appearance cannot be learnt from it)."""
    present = set("".join(layout))
    return tuple(k for k in KINDS if k not in present)


def enrol_tokens(image: NDArray[np.uint8], layout: str | Sequence[str], profile: Profile) -> Profile:
    """Learn the token kinds from a photo of the board in ``layout`` and store them in ``profile``.

    Parameters
    ----------
    image : (H, W, 3) uint8 array
        BGR photo of the board, taken under the light the profile was calibrated in.
    layout : str or sequence of str
        See :func:`parse_layout`.
    profile : Profile
        Its ``prepare`` is applied first; the result is a copy with ``token_model`` set and
        ``token_layout`` holding the layout in the orientation the reader sees it.

    Raises
    ------
    CalibrationError
        For a bad layout (or one lacking a kind), or when the board reader cannot learn from
        the photo (for example no board in view); the reader's message is kept.
    """
    rows = parse_layout(layout)
    absent = missing_kinds(rows)
    if absent:
        raise CalibrationError(f"layout: no {', '.join(absent)} token; enrolment needs at least one of "
                               f"every kind ({KINDS})")
    try:
        from vision.board import learn_tokens
    except ImportError as exc:
        raise CalibrationError("token enrolment is not available: the board reader is not installed") from exc
    from vision.board import read
    from vision.errors import VisionError

    prepared = profile.prepare(image)
    cfg = load_section("calibration", "tokens", TokensConfig)
    # The player knows the arrangement but not which board edge the reader calls the top, so
    # every quarter turn of the layout is tried: each is learnt, the photo is read back with
    # the learnt colours, and the turn that reads back best wins. A wrong layout or a photo of
    # something else reads back badly in every turn and is refused.
    best: tuple[list[tuple[int, int]], tuple[str, ...], dict[str, Any]] | None = None
    failure: Exception | None = None
    # the colour correction: the reader scales the camera's noise floor with the gain of each
    # channel, and through the whole matrix finds which channels the camera clipped
    matrix = np.asarray(profile.colour.with_headroom().combined, np.float64)
    usable = bool(np.all(np.isfinite(matrix)) and np.diag(matrix).min() > 0
                  and abs(np.linalg.det(matrix)) > 1e-9)
    correction = matrix if usable else None
    gains = tuple(float(v) for v in np.diag(matrix)) if usable else (1.0, 1.0, 1.0)
    for turn in rotations(rows):
        try:
            model = learn_tokens(prepared, list(turn), gains=gains, correction=correction)
        except (VisionError, ValueError) as exc:
            failure = exc
            continue
        model_json = dict(model.to_json())
        reading = read(prepared, profile=dataclasses.replace(profile, token_model=model_json))
        if reading is None:
            continue
        wrong = [(r, c) for r in range(SIZE) for c in range(SIZE) if reading.cells[r][c] != turn[r][c]]
        if best is None or len(wrong) < len(best[0]):
            best = (wrong, turn, model_json)
        if not wrong:
            break
    if best is None:
        detail = str(failure) if failure is not None else "no token board found in the photo"
        raise CalibrationError(f"token enrolment failed: {detail}")
    wrong, turn, model_json = best
    if len(wrong) > cfg.max_mismatches:
        where = " ".join(f"({r + 1},{c + 1})" for r, c in wrong[:6]) + (" ..." if len(wrong) > 6 else "")
        raise CalibrationError(
            f"token enrolment failed: the board in the photo does not match the layout at {len(wrong)} "
            f"spots {where}; check the layout and that every token lies on its spot")
    model_json = with_sheet_pearl(model_json, cfg.pearl_sheet_weight)
    return dataclasses.replace(profile, token_model=model_json, token_layout=turn)


def with_sheet_pearl(model_json: dict[str, Any], weight: float) -> dict[str, Any]:
    """Steady the enrolled pearl's tint with the sheet's pearl patch.

    A pearl differs from a white token only by a faint pinkish tint, and the enrolment photo
    shows just two pearls, so the learnt white-to-pearl step is noisy. After the profile's colour
    correction the sheet's ``P`` and ``W`` patches show that step without noise: the model's step
    (the chroma of the log colour, brightness left out) becomes ``(1 - weight)`` of the learnt one
    plus ``weight`` of the sheet's; the pearl keeps its learnt brightness.

    Parameters
    ----------
    model_json : dict
        JSON of :class:`vision.board.TokenModel` (``kinds``, ``means`` as log colours).
    weight : float
        0 keeps the learnt pearl, 1 takes the sheet's step alone.

    Returns
    -------
    dict
        A copy with the pearl's mean replaced (unchanged without both W and P).
    """
    from calibration.colour import reference_patches
    from vision.board.spots import chroma

    kinds = str(model_json.get("kinds", ""))
    if "W" not in kinds or "P" not in kinds or weight <= 0:
        return model_json
    means = np.asarray(model_json["means"], np.float64)
    iw, ip = kinds.index("W"), kinds.index("P")
    ref = {p.name: np.log(np.asarray(p.bgr, np.float64)) for p in reference_patches()}

    step = (1.0 - weight) * chroma(means[ip] - means[iw]) + weight * chroma(ref["P"] - ref["W"])
    pearl = means[iw] + step
    pearl += means[ip].mean() - pearl.mean()
    out = dict(model_json)
    out["means"] = [[round(float(v), 5) for v in (pearl if k == ip else m)] for k, m in enumerate(means)]
    return out
