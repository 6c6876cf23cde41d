"""The board reader: find, rectify, fit the spot lattice, measure, classify."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.board.classify import classify
from vision.board.config import BoardConfig, default_config
from vision.board.detect import edge_source, find_candidates, rectify, refine_corners
from vision.board.lattice import find_lattice_candidates, lattice_corners
from vision.board.learn import TokenModel, default_model
from vision.board.spots import Grid, fit_grid, sample_spots
from vision.errors import ImageError
from vision.profile import ProfileLike
from vision.types import BoardReading

# A candidate whose lattice fits at least this share of the best fit counts as the same board;
# the largest such candidate is the board's outer edge rather than a printed inner frame.
_SAME_BOARD = 0.8


@dataclass(frozen=True)
class Located:
    """A board found in an image: ``corners`` (4, 2) image px (TL, TR, BR, BL as seen),
    ``rect`` the rectified ``(S, S, 3)`` BGR uint8 board, ``grid`` its spot lattice."""

    corners: NDArray[np.float64]
    rect: NDArray[np.uint8]
    grid: Grid


def check_image(image: object) -> NDArray[np.uint8]:
    """Return ``image`` if it is an ``(H, W, 3)`` uint8 array, else raise :class:`ImageError`."""
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3:
        raise ImageError("image: expected an (H, W, 3) uint8 BGR array")
    if image.shape[0] < 16 or image.shape[1] < 16:
        raise ImageError("image: too small to hold a board")
    return image


def _likely(image: NDArray[np.uint8], candidates: list[NDArray[np.float64]],
            cfg: BoardConfig, seen: dict[bytes, float] | None = None) -> list[NDArray[np.float64]]:
    """The ``max_candidates`` most board-like candidates (in their order), by a quick lattice fit
    on a small rectification; ``seen`` keeps the fits by the candidate's corners (several edge
    passes find the same quadrilateral)."""
    if len(candidates) <= cfg.max_candidates:
        return candidates
    seen = {} if seen is None else seen
    quick = []
    for q in candidates:
        key = q.tobytes()
        if key not in seen:
            seen[key] = fit_grid(rectify(image, q, cfg.screen_size)[0], cfg).score
        quick.append(seen[key])
    keep = sorted(np.argsort(quick)[::-1][: cfg.max_candidates])
    return [candidates[i] for i in keep]


def _screen(image: NDArray[np.uint8], candidates: list[NDArray[np.float64]], cfg: BoardConfig,
            seen: dict[bytes, Located] | None = None) -> tuple[list[Located], list[Located]]:
    """The candidates, refined and rectified, on which a 5x5 spot lattice fits well enough; and
    those on which it nearly does (grid quality from ``lattice_rescue_quality``). ``seen`` keeps
    each screened candidate by its coarse corners, for the next edge pass."""
    seen = {} if seen is None else seen
    fits, near = [], []
    for coarse in candidates:
        key = coarse.tobytes()
        if key not in seen:
            corners = refine_corners(image, coarse, cfg)
            rect, _ = rectify(image, corners, cfg.rect_size)
            seen[key] = Located(corners, rect, fit_grid(rect, cfg))
        found = seen[key]
        if found.grid.quality >= cfg.min_grid_quality:
            fits.append(found)
        elif found.grid.quality >= cfg.lattice_rescue_quality:
            near.append(found)
    return fits, near


def _rescue(image: NDArray[np.uint8], near: list[Located], cfg: BoardConfig) -> list[Located]:
    """Near misses whose corners, moved onto their spots, carry a lattice well enough (a hand
    over a corner bends the lattice of the outline's quadrilateral)."""
    fits = []
    for cand in sorted(near, key=lambda f: -f.grid.quality)[: cfg.max_candidates]:
        fixed = lattice_corners(image, cand.corners, cand.rect, cand.grid, cfg)
        if fixed is None:
            continue
        grid = fit_grid(fixed[1], cfg)
        if grid.quality >= cfg.min_grid_quality:
            fits.append(Located(fixed[0], fixed[1], grid))
    return fits


def locate(image: NDArray[np.uint8], config: BoardConfig | None = None) -> Located | None:
    """Find the board and its spot lattice.

    Parameters
    ----------
    image : (H, W, 3) uint8 BGR array
    config : BoardConfig, optional

    Returns
    -------
    Located or None
        None when no quadrilateral carries a 5x5 spot lattice.
    """
    cfg = config or default_config()
    img = check_image(image)
    fits: list[Located] = []
    near: list[Located] = []
    source = edge_source(img, cfg)
    # the edge passes find many of the same quadrilaterals: each is fitted once
    quick: dict[bytes, float] = {}
    screened: dict[bytes, Located] = {}
    for sensitivity, median in zip(cfg.edge_sensitivity, cfg.edge_median, strict=True):
        outlines = find_candidates(img, cfg, sensitivity, bool(median), source)
        cands = _likely(img, outlines[: cfg.max_screened], cfg, quick)
        got, almost = _screen(img, cands, cfg, screened)
        fits.extend(got)
        near.extend(almost)
        # a weak lattice may sit in a wrong quadrilateral: try the next edge pass too
        if fits and max(f.grid.quality for f in fits) >= cfg.good_grid_quality:
            break
    if not fits:
        fits = _rescue(img, near, cfg)
    if not fits:
        # no outline carries a lattice (a board blending into the table, a hand over a corner):
        # look for the lattice of round spots itself
        fits = _screen(img, _likely(img, find_lattice_candidates(img, cfg), cfg), cfg)[0]
    if not fits:
        return None
    best = max(f.grid.quality for f in fits)
    found = next(f for f in fits if f.grid.quality >= _SAME_BOARD * best)
    # a corner the outline got wrong (a hand over it) bends the lattice: its spots straighten it
    fixed = lattice_corners(img, found.corners, found.rect, found.grid, cfg)
    return found if fixed is None else Located(*fixed)


def token_model_of(profile: ProfileLike | None) -> TokenModel:
    """The profile's enrolled token model, or the default colours."""
    data = None if profile is None else profile.token_model
    return default_model() if data is None else TokenModel.from_json(data)


def read(image: NDArray[np.uint8], profile: ProfileLike | None = None,
         config: BoardConfig | None = None) -> BoardReading | None:
    """Read the Splendor Duel token board in a photo.

    Parameters
    ----------
    image : (H, W, 3) uint8 BGR array
        Already prepared by ``profile.prepare`` when a profile is given.
    profile : ProfileLike, optional
        Its ``token_model`` (when set) replaces the default token colours.
    config : BoardConfig, optional

    Returns
    -------
    BoardReading or None
        ``cells`` in the grid as seen: row 0 runs from ``corners[0]`` (the board corner nearest
        the image's top-left direction) to ``corners[1]``, clockwise. None without a board.

    Raises
    ------
    ImageError
        When ``image`` is not an image array.
    vision.board.TokenModelError
        When the profile's token model is malformed.
    """
    cfg = config or default_config()
    model = token_model_of(profile)
    found = locate(image, cfg)
    if found is None:
        return None
    samples = sample_spots(found.rect, found.grid, cfg)
    result = classify(samples, model, cfg)
    unknown = tuple((r, c) for r in range(5) for c in range(5) if result.cells[r][c] == "?")
    unsure = result.confidence < cfg.doubtful_confidence
    doubtful = tuple((r, c) for r in range(5) for c in range(5) if result.cells[r][c] != "?" and unsure[r, c])
    corners = tuple((float(x), float(y)) for x, y in found.corners)
    return BoardReading(
        corners=corners,  # type: ignore[arg-type]
        cells=result.cells,
        confidence=tuple(tuple(float(v) for v in row) for row in result.confidence),
        unknown=unknown,
        spots=_spots_in_image(found),
        doubtful=doubtful,
    )


def _spots_in_image(found: Located) -> tuple[tuple[tuple[float, float], ...], ...]:
    """The image positions of the lattice's 25 spot centres (rows as in the reading)."""
    size = float(found.rect.shape[0])
    square = np.array([[0, 0], [size, 0], [size, size], [0, size]], np.float32)
    to_image = cv2.getPerspectiveTransform(square, np.asarray(found.corners, np.float32))
    pts = cv2.perspectiveTransform(found.grid.centres.reshape(-1, 1, 2).astype(np.float64), to_image)
    xy = pts.reshape(5, 5, 2)
    return tuple(tuple((float(x), float(y)) for x, y in row) for row in xy)
