"""A virtual camera and light over a flat table: the shared core of every synthetic photo.

Objects are :class:`Placement` s lying on the table plane (coordinates in millimetres, x right,
y down, origin at the table's top-left). :func:`photograph` renders them as a webcam or phone
would see them under :class:`Conditions`, and returns the exact homography and corner positions
as truth.

Effects are applied in this order: geometry (perspective warp of each placement onto the table),
light (cast x brightness x gradient, shadows, glare), optics (defocus, motion blur), sensor (noise),
JPEG. The same light applies to everything in the photo.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.config import load_config

__all__ = [
    "CameraConfig",
    "CastConfig",
    "Conditions",
    "Photo",
    "Placement",
    "TierConfig",
    "camera_homography",
    "photograph",
    "project",
    "sample_conditions",
    "strong_cast",
    "table_texture",
]

TIERS: tuple[str, ...] = ("easy", "typical", "hard")
_TRI_STD = math.sqrt(2 * (256**2 - 1) / 12)  # standard deviation of the difference of two uniform bytes


@dataclass(frozen=True)
class CameraConfig:
    """Tunables of the camera and light model (``synth.json``, section ``camera``)."""

    hfov_deg: float
    max_tilt_deg: float
    downscale_margin: float
    table_px_per_mm: float
    gradient_min_gain: float
    vignette_share: float
    drop_shadow_mm: float
    drop_shadow_blur_mm: float
    shadow_slope: float
    shadow_penumbra: float
    drop_shadow_strength: float
    occluder_shadow_strength: float
    occluder_blur_frac: float
    glare_radius_frac: tuple[float, float]
    glare_gain: float
    shot_noise_share: float


@dataclass(frozen=True)
class CastConfig:
    """Strong colour casts (``synth.json``, section ``casts``): BGR gains and their jitter."""

    gains: tuple[tuple[float, float, float], ...]
    jitter: float


@dataclass(frozen=True)
class TierConfig:
    """Ranges ``(low, high)`` of :class:`Conditions` fields for one difficulty tier, and the
    probability that each optional effect is present at all."""

    tilt_deg: tuple[float, float]
    yaw_deg: tuple[float, float]
    zoom: tuple[float, float]
    cast_jitter: float
    strong_cast_prob: float
    brightness: tuple[float, float]
    light_gradient: tuple[float, float]
    glare: tuple[float, float]
    glare_prob: float
    shadow: tuple[float, float]
    shadow_prob: float
    blur_sigma: tuple[float, float]
    blur_prob: float
    motion_blur_px: tuple[float, float]
    motion_prob: float
    noise_sigma: tuple[float, float]
    jpeg_quality: tuple[int, int]
    jpeg_prob: float


@cache
def camera_config() -> CameraConfig:
    """The default :class:`CameraConfig` from ``vision/data/config/synth.json``."""
    return load_config("synth", CameraConfig, section="camera")


@cache
def cast_config() -> CastConfig:
    """The default :class:`CastConfig`."""
    return load_config("synth", CastConfig, section="casts")


@cache
def tier_config(tier: str) -> TierConfig:
    """The :class:`TierConfig` of ``tier`` (one of ``easy``, ``typical``, ``hard``)."""
    if tier not in TIERS:
        raise ValueError(f"unknown tier {tier!r}; expected one of {', '.join(TIERS)}")
    return load_config("synth", TierConfig, section=f"tier_{tier}")


@dataclass(frozen=True)
class Placement:
    """A flat object lying on the table.

    Attributes
    ----------
    face : (h, w, 3) or (h, w, 4) uint8 array
        BGR, or BGRA whose alpha cuts out round tokens, hands, scrolls.
    corners_mm : tuple of four (x, y) pairs
        Where the face's TL, TR, BR, BL corners lie on the table plane, in millimetres.
    glossy : bool
        May catch specular glare.
    casts_shadow : bool
        Drops a soft shadow on what lies below it.
    height_mm : float
        How high above the table the object floats (a hand: tens of millimetres); its shadow
        falls further away and softer. 0 for cards, sheets and tokens lying flat.

    Placements are drawn in order: later ones cover earlier ones.
    """

    face: NDArray[np.uint8]
    corners_mm: tuple[tuple[float, float], ...]
    glossy: bool = True
    casts_shadow: bool = True
    height_mm: float = 0.0


@dataclass(frozen=True)
class Conditions:
    """Camera and light. ``size`` is ``(width, height)`` in pixels.

    ``table_mm`` is the visible table area the camera centres on; ``tilt_deg`` (up to 35) tilts
    the camera away from straight down; ``yaw_deg`` rotates the view about the vertical axis;
    ``zoom`` > 1 moves closer. ``cast`` holds BGR gains of the light; ``light_gradient``,
    ``glare`` and ``shadow`` are strengths in 0..1; ``blur_sigma`` and ``motion_blur_px`` are in
    pixels; ``noise_sigma`` is in 0..255 units; ``jpeg_quality`` ``None`` means no compression.
    """

    size: tuple[int, int] = (1920, 1080)
    table_mm: tuple[float, float] = (900.0, 600.0)
    tilt_deg: float = 0.0
    yaw_deg: float = 0.0
    zoom: float = 1.0
    cast: tuple[float, float, float] = (1.0, 1.0, 1.0)
    brightness: float = 1.0
    light_gradient: float = 0.0
    glare: float = 0.0
    shadow: float = 0.0
    blur_sigma: float = 0.0
    motion_blur_px: float = 0.0
    noise_sigma: float = 0.0
    jpeg_quality: int | None = None


@dataclass(frozen=True)
class Photo:
    """A rendered photo and its truth.

    Attributes
    ----------
    image : (H, W, 3) uint8 array
        BGR.
    homography : (3, 3) float64 array
        Table millimetres to image pixels.
    quads : tuple
        Image-pixel corners (TL, TR, BR, BL) of each placement, in placement order.
    """

    image: NDArray[np.uint8]
    homography: NDArray[np.float64]
    quads: tuple[tuple[tuple[float, float], ...], ...]


# ----------------------------------------------------------------------------------------- sampling


def _uniform(rng: np.random.Generator, bounds: Sequence[float]) -> float:
    lo, hi = float(bounds[0]), float(bounds[1])
    return lo if hi <= lo else float(rng.uniform(lo, hi))


def strong_cast(rng: np.random.Generator) -> tuple[float, float, float]:
    """A strong colour cast: warm lamp, candle, blue daylight, green fluorescent or magenta LED.

    Returns
    -------
    tuple of 3 float
        BGR gains of the light.
    """
    cfg = cast_config()
    base = np.asarray(cfg.gains[int(rng.integers(len(cfg.gains)))], dtype=np.float64)
    gains = base * (1.0 + rng.uniform(-cfg.jitter, cfg.jitter, 3))
    return (float(gains[0]), float(gains[1]), float(gains[2]))


def sample_conditions(
    rng: np.random.Generator, tier: str, size: tuple[int, int] = (1920, 1080)
) -> Conditions:
    """Draw random :class:`Conditions` of a difficulty tier.

    Parameters
    ----------
    rng : numpy.random.Generator
    tier : {"easy", "typical", "hard"}
        ``hard`` means tilt up to 35 degrees, strong uneven light and casts, glare, shadows,
        blur, noise and JPEG.
    size : (width, height)
    """
    t = tier_config(tier)
    if rng.random() < t.strong_cast_prob:
        cast = strong_cast(rng)
    else:
        g = 1.0 + rng.uniform(-t.cast_jitter, t.cast_jitter, 3)
        cast = (float(g[0]), float(g[1]), float(g[2]))

    def maybe(prob: float, bounds: Sequence[float]) -> float:
        return _uniform(rng, bounds) if rng.random() < prob else 0.0

    jpeg = int(rng.integers(t.jpeg_quality[0], t.jpeg_quality[1] + 1)) if rng.random() < t.jpeg_prob else None
    return Conditions(
        size=(int(size[0]), int(size[1])),
        tilt_deg=_uniform(rng, t.tilt_deg),
        yaw_deg=_uniform(rng, t.yaw_deg),
        zoom=_uniform(rng, t.zoom),
        cast=cast,
        brightness=_uniform(rng, t.brightness),
        light_gradient=_uniform(rng, t.light_gradient),
        glare=maybe(t.glare_prob, t.glare),
        shadow=maybe(t.shadow_prob, t.shadow),
        blur_sigma=maybe(t.blur_prob, t.blur_sigma),
        motion_blur_px=maybe(t.motion_prob, t.motion_blur_px),
        noise_sigma=_uniform(rng, t.noise_sigma),
        jpeg_quality=jpeg,
    )


# ------------------------------------------------------------------------------------------ the table


def _smooth_noise(
    rng: np.random.Generator, size_px: tuple[int, int], cells: tuple[int, int]
) -> NDArray[np.float32]:
    """Low-frequency noise in ``[-1, 1]`` of shape ``(h, w)`` from a ``cells`` grid upsampled."""
    w, h = size_px
    small = rng.uniform(-1.0, 1.0, (max(2, cells[1]), max(2, cells[0]))).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def table_texture(rng: np.random.Generator, size_px: tuple[int, int]) -> NDArray[np.uint8]:
    """A table surface: wood, cloth or laminate, in a random colour.

    Parameters
    ----------
    rng : numpy.random.Generator
    size_px : (width, height)

    Returns
    -------
    (height, width, 3) uint8 array
        BGR.
    """
    w, h = int(size_px[0]), int(size_px[1])
    if w <= 0 or h <= 0:
        raise ValueError(f"size_px must be positive, got {size_px}")
    kind = int(rng.integers(3))
    if kind == 0:  # wood: planks with streaky grain and growth rings
        woods = ((110, 160, 200), (50, 80, 120), (60, 95, 160), (130, 180, 215), (150, 160, 165))
        base = np.array(woods[int(rng.integers(len(woods)))], np.float32) * rng.uniform(0.85, 1.15)
        streaks = rng.normal(0.0, 1.0, (h, w)).astype(np.float32)
        streaks = cv2.GaussianBlur(streaks, (0, 0), sigmaX=rng.uniform(12.0, 30.0), sigmaY=0.7)
        streaks /= float(streaks.std()) + 1e-6
        period = rng.uniform(10.0, 30.0)
        warp = _smooth_noise(rng, (w, h), (6, 4)) * period * rng.uniform(0.5, 1.5)
        ys = np.arange(h, dtype=np.float32)[:, None] + warp
        rings = np.sin(ys * (2 * np.pi / period)) ** 8
        shade = 1.0 + 0.07 * streaks - 0.12 * rings
        plank = int(rng.integers(90, 300))
        for top in range(0, h, plank):
            shade[top:top + plank] *= rng.uniform(0.9, 1.1)
            shade[top:top + 2] *= 0.55
        img = base[None, None, :] * shade[:, :, None]
    elif kind == 1:  # cloth / felt: saturated colour, fine weave noise
        palettes = ((60, 110, 40), (110, 60, 30), (40, 40, 120), (70, 70, 70), (90, 50, 80))
        base = np.array(palettes[int(rng.integers(len(palettes)))], np.float32) * rng.uniform(0.8, 1.3)
        weave = rng.normal(0.0, 1.0, (h, w)).astype(np.float32)
        weave = cv2.GaussianBlur(weave, (0, 0), 0.8)
        blotch = _smooth_noise(rng, (w, h), (8, 6))
        shade = 1.0 + 0.10 * weave + 0.06 * blotch
        img = base[None, None, :] * shade[:, :, None]
    else:  # laminate: light, nearly uniform, faint speckle
        grey = rng.uniform(150, 225)
        tint = rng.uniform(-12, 12, 3)
        base = np.array([grey + tint[0], grey + tint[1], grey + tint[2]], np.float32)
        speckle = rng.normal(0.0, 1.0, (h, w)).astype(np.float32)
        blotch = _smooth_noise(rng, (w, h), (5, 4))
        shade = 1.0 + 0.025 * speckle + 0.03 * blotch
        img = base[None, None, :] * shade[:, :, None]
    return np.clip(img, 0, 255).astype(np.uint8)


# ----------------------------------------------------------------------------------------- geometry


def _rotation(tilt_deg: float, yaw_deg: float) -> NDArray[np.float64]:
    t, y = math.radians(tilt_deg), math.radians(yaw_deg)
    rx = np.array([[1, 0, 0], [0, math.cos(t), -math.sin(t)], [0, math.sin(t), math.cos(t)]])
    rz = np.array([[math.cos(y), -math.sin(y), 0], [math.sin(y), math.cos(y), 0], [0, 0, 1]])
    return rx @ rz


def camera_homography(conditions: Conditions, config: CameraConfig | None = None) -> NDArray[np.float64]:
    """The homography from table millimetres to image pixels of a pinhole camera.

    The camera looks at the centre of ``conditions.table_mm`` from a distance at which, looking
    straight down with ``zoom`` 1, that area just fits the frame; ``zoom`` moves it closer.

    Returns
    -------
    (3, 3) float64 array
        Normalised so that ``H[2, 2] == 1``.
    """
    cfg = config or camera_config()
    w, h = conditions.size
    tw, th = conditions.table_mm
    if w <= 0 or h <= 0 or tw <= 0 or th <= 0:
        raise ValueError("conditions.size and conditions.table_mm must be positive")
    if conditions.zoom <= 0:
        raise ValueError("conditions.zoom must be positive")
    tilt = float(np.clip(conditions.tilt_deg, -cfg.max_tilt_deg, cfg.max_tilt_deg))
    f = (w / 2.0) / math.tan(math.radians(cfg.hfov_deg) / 2.0)
    px_per_mm = min(w / tw, h / th)
    dist = f / px_per_mm / conditions.zoom
    k = np.array([[f, 0, w / 2.0], [0, f, h / 2.0], [0, 0, 1.0]])
    r = _rotation(tilt, conditions.yaw_deg)
    t = np.array([0.0, 0.0, dist])
    centre = np.array([[1, 0, -tw / 2.0], [0, 1, -th / 2.0], [0, 0, 1.0]])
    hom = k @ np.column_stack([r[:, 0], r[:, 1], t]) @ centre
    return hom / hom[2, 2]


def project(homography: NDArray[np.float64], points_mm: object) -> NDArray[np.float64]:
    """Map table points (millimetres) to image pixels.

    Parameters
    ----------
    homography : (3, 3) float array
    points_mm : array-like of shape (N, 2) or (2,)

    Returns
    -------
    (N, 2) float64 array
    """
    pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2)
    homog = np.column_stack([pts, np.ones(len(pts))]) @ np.asarray(homography, np.float64).T
    return homog[:, :2] / homog[:, 2:3]


# ------------------------------------------------------------------------------------------ drawing


def _check_placement(i: int, p: Placement) -> None:
    face = p.face
    ok = isinstance(face, np.ndarray) and face.dtype == np.uint8 and face.ndim == 3
    if not ok or face.shape[2] not in (3, 4):
        raise ValueError(f"placement {i}: face must be a (h, w, 3|4) uint8 array")
    if face.shape[0] < 2 or face.shape[1] < 2:
        raise ValueError(f"placement {i}: face is too small")
    if len(p.corners_mm) != 4:
        raise ValueError(f"placement {i}: corners_mm must hold 4 points")


def _warp_into(
    canvas: NDArray[np.float32],
    face: NDArray[np.uint8],
    quad: NDArray[np.float64],
    margin: float,
) -> tuple[tuple[int, int, int, int], NDArray[np.float32], NDArray[np.float32]] | None:
    """Warp ``face`` onto the image quad; returns the bbox, warped colour and coverage."""
    hc, wc = canvas.shape[:2]
    x0 = max(0, math.floor(quad[:, 0].min()) - 1)
    y0 = max(0, math.floor(quad[:, 1].min()) - 1)
    x1 = min(wc, math.ceil(quad[:, 0].max()) + 2)
    y1 = min(hc, math.ceil(quad[:, 1].max()) + 2)
    if x1 <= x0 or y1 <= y0:
        return None
    fh, fw = face.shape[:2]
    # pre-shrink a face much finer than its footprint (warpPerspective would alias it)
    side = max(np.linalg.norm(quad[1] - quad[0]), np.linalg.norm(quad[2] - quad[3]))
    tall = max(np.linalg.norm(quad[3] - quad[0]), np.linalg.norm(quad[2] - quad[1]))
    scale = min(1.0, margin * max(side / fw, tall / fh))
    src = face
    if scale < 0.999:
        nw, nh = max(2, round(fw * scale)), max(2, round(fh * scale))
        src = cv2.resize(face, (nw, nh), interpolation=cv2.INTER_AREA)
    sh, sw = src.shape[:2]
    # pixel centres sit at integer coordinates, so the face's outer corners are at -0.5
    src_quad = np.array([[-0.5, -0.5], [sw - 0.5, -0.5], [sw - 0.5, sh - 0.5], [-0.5, sh - 0.5]], np.float32)
    dst = (quad - np.array([x0, y0])).astype(np.float32)
    m = cv2.getPerspectiveTransform(src_quad, dst).astype(np.float64)
    size = (x1 - x0, y1 - y0)
    colour = src[:, :, :3]
    alpha = src[:, :, 3] if src.shape[2] == 4 else np.full((sh, sw), 255, np.uint8)
    # pad by one transparent pixel so the outline is anti-aliased
    colour = cv2.copyMakeBorder(colour, 1, 1, 1, 1, cv2.BORDER_REPLICATE)
    alpha = cv2.copyMakeBorder(alpha, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    shift = np.array([[1, 0, 1], [0, 1, 1], [0, 0, 1]], np.float64)
    m = m @ np.linalg.inv(shift)
    warped = cv2.warpPerspective(colour, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    cover = cv2.warpPerspective(alpha, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    return (x0, y0, x1, y1), warped.astype(np.float32), cover.astype(np.float32) / 255.0


def _gradient_map(rng: np.random.Generator, size: tuple[int, int], strength: float,
                  cfg: CameraConfig) -> NDArray[np.float32]:
    """Uneven light: a directional ramp times a vignette, in ``[1 - k*strength, 1]``."""
    w, h = size
    sw, sh = 64, max(2, round(64 * h / w))
    ys, xs = np.mgrid[0:sh, 0:sw].astype(np.float32)
    xs = xs / (sw - 1) - 0.5
    ys = ys / (sh - 1) - 0.5
    ang = rng.uniform(0, 2 * math.pi)
    ramp = (xs * math.cos(ang) + ys * math.sin(ang)) + 0.5  # 0..1 roughly
    ramp = np.clip(ramp, 0.0, 1.0)
    cx, cy = rng.uniform(-0.3, 0.3, 2)
    radial = np.clip(((xs - cx) ** 2 + (ys - cy) ** 2) / 0.5, 0.0, 1.0)
    falloff = (1 - cfg.vignette_share) * ramp + cfg.vignette_share * radial
    gain = 1.0 - strength * (1.0 - cfg.gradient_min_gain) * falloff
    return cv2.resize(gain.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)


def _occluder_shadow(
    rng: np.random.Generator, size: tuple[int, int], cfg: CameraConfig
) -> NDArray[np.float32]:
    """A soft shadow of something above the table (an arm, a head, a lamp arm), in 0..1."""
    w, h = size
    sw, sh = 160, max(2, round(160 * h / w))
    mask = np.zeros((sh, sw), np.uint8)
    n = int(rng.integers(1, 3))
    for _ in range(n):
        # an elongated blob entering from an image edge
        edge = int(rng.integers(4))
        t = rng.uniform(0.1, 0.9)
        start = [(t * sw, 0), (sw, t * sh), (t * sw, sh), (0, t * sh)][edge]
        ang = rng.uniform(0, 2 * math.pi)
        length = rng.uniform(0.3, 0.7) * sw
        end = (start[0] + math.cos(ang) * length * 0.3 + (sw / 2 - start[0]) * 0.6,
               start[1] + math.sin(ang) * length * 0.3 + (sh / 2 - start[1]) * 0.6)
        thick = max(2, int(rng.uniform(0.08, 0.2) * sw))
        cv2.line(mask, (int(start[0]), int(start[1])), (int(end[0]), int(end[1])), 255, thick)
    soft = cv2.GaussianBlur(mask.astype(np.float32) / 255.0, (0, 0), cfg.occluder_blur_frac * sw)
    return cv2.resize(soft, (w, h), interpolation=cv2.INTER_LINEAR)


def _motion_kernel(length: float, angle: float) -> NDArray[np.float32]:
    n = max(3, math.ceil(length) | 1)
    k = np.zeros((n, n), np.float32)
    c = n // 2
    dx, dy = math.cos(angle) * length / 2, math.sin(angle) * length / 2
    cv2.line(k, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1.0, 1, cv2.LINE_AA)
    s = float(k.sum())
    if s <= 0:
        k[c, c] = 1.0
        s = 1.0
    return k / s


def photograph(
    placements: Sequence[Placement],
    conditions: Conditions,
    rng: np.random.Generator,
    table: NDArray[np.uint8] | None = None,
) -> Photo:
    """Render ``placements`` lying on a table as a camera sees them.

    Parameters
    ----------
    placements : sequence of Placement
        Drawn in order; later ones cover earlier ones.
    conditions : Conditions
    rng : numpy.random.Generator
        Draws the light direction, glare spot, shadows and noise.
    table : (h, w, 3) uint8 array, optional
        The table surface covering ``conditions.table_mm`` (mirrored beyond it); a random
        :func:`table_texture` when ``None``.

    Returns
    -------
    Photo
        The ``(H, W, 3)`` BGR uint8 image, the table-to-image homography and each placement's
        image quad.
    """
    cfg = camera_config()
    w, h = conditions.size
    tw, th = conditions.table_mm
    hom = camera_homography(conditions, cfg)
    for i, p in enumerate(placements):
        _check_placement(i, p)

    # --- geometry: the table, then each placement
    if table is None:
        tex_size = (max(2, round(tw * cfg.table_px_per_mm)), max(2, round(th * cfg.table_px_per_mm)))
        table = table_texture(rng, tex_size)
    if table.ndim != 3 or table.shape[2] != 3 or table.dtype != np.uint8:
        raise ValueError("table must be a (h, w, 3) uint8 array")
    tex_h, tex_w = table.shape[:2]
    tex_to_mm = np.diag([tw / tex_w, th / tex_h, 1.0])
    half = np.array([[1, 0, 0.5], [0, 1, 0.5], [0, 0, 1]])
    m_table = hom @ tex_to_mm @ half
    canvas = cv2.warpPerspective(table, m_table, (w, h), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_REFLECT_101).astype(np.float32)

    mm_px = float(np.sqrt(abs(np.linalg.det(hom[:2, :2]))))  # rough image px per mm at the centre
    glossy = np.zeros((h, w), np.float32)
    shadow_dir = rng.uniform(0, 2 * math.pi)
    quads: list[tuple[tuple[float, float], ...]] = []
    for p in placements:
        quad = project(hom, p.corners_mm)
        quads.append(tuple((float(x), float(y)) for x, y in quad))
        out = _warp_into(canvas, p.face, quad, cfg.downscale_margin)
        if out is None:
            continue
        (x0, y0, x1, y1), colour, cover = out
        if p.casts_shadow and conditions.shadow > 0:
            lift = max(0.0, float(p.height_mm))
            off = max(cfg.drop_shadow_mm, lift * cfg.shadow_slope) * mm_px
            blur = max(0.5, (cfg.drop_shadow_blur_mm + lift * cfg.shadow_penumbra) * mm_px)
            pad = int(off + 3 * blur) + 1
            sx0, sy0, sx1, sy1 = max(0, x0 - pad), max(0, y0 - pad), min(w, x1 + pad), min(h, y1 + pad)
            sm = np.zeros((sy1 - sy0, sx1 - sx0), np.float32)
            sm[y0 - sy0:y1 - sy0, x0 - sx0:x1 - sx0] = cover
            shift = np.float32([[1, 0, off * math.cos(shadow_dir)], [0, 1, off * math.sin(shadow_dir)]])
            sm = cv2.warpAffine(sm, shift, (sx1 - sx0, sy1 - sy0))
            sm = cv2.GaussianBlur(sm, (0, 0), blur)
            k = conditions.shadow * cfg.drop_shadow_strength
            canvas[sy0:sy1, sx0:sx1] *= (1.0 - k * sm)[:, :, None]
        region = canvas[y0:y1, x0:x1]
        region += (colour - region) * cover[:, :, None]
        if p.glossy:
            g = glossy[y0:y1, x0:x1]
            np.maximum(g, cover, out=g)
        else:
            glossy[y0:y1, x0:x1] *= 1.0 - cover

    # --- light: cast x brightness x gradient, soft shadows, glare
    light = np.full((h, w), conditions.brightness, np.float32)
    if conditions.light_gradient > 0:
        light *= _gradient_map(rng, (w, h), float(np.clip(conditions.light_gradient, 0, 1)), cfg)
    if conditions.shadow > 0:
        light *= 1.0 - conditions.shadow * cfg.occluder_shadow_strength * _occluder_shadow(rng, (w, h), cfg)
    cast = np.asarray(conditions.cast, np.float32)
    gain = cv2.merge([light * cast[0], light * cast[1], light * cast[2]])
    cv2.multiply(canvas, gain, dst=canvas)
    if conditions.glare > 0 and quads and float(glossy.max()) > 0:
        glossy_idx = [i for i, p in enumerate(placements) if p.glossy]
        if glossy_idx:
            target = np.asarray(quads[glossy_idx[int(rng.integers(len(glossy_idx)))]])
            wts = rng.dirichlet(np.ones(4))
            cx, cy = wts @ target
            r = _uniform(rng, cfg.glare_radius_frac) * max(w, h)
            ar = rng.uniform(0.4, 1.0)
            ang = rng.uniform(0, math.pi)
            x0, x1 = max(0, int(cx - 3 * r)), min(w, int(cx + 3 * r) + 1)
            y0, y1 = max(0, int(cy - 3 * r)), min(h, int(cy + 3 * r) + 1)
            if x1 > x0 and y1 > y0:
                ys, xs = np.mgrid[y0:y1, x0:x1].astype(np.float32)
                dx, dy = xs - cx, ys - cy
                u = dx * math.cos(ang) + dy * math.sin(ang)
                v = (-dx * math.sin(ang) + dy * math.cos(ang)) / ar
                spot = np.exp(-(u * u + v * v) / (2 * (r / 2) ** 2)) * glossy[y0:y1, x0:x1]
                amount = conditions.glare * cfg.glare_gain * 255.0 * conditions.brightness * spot
                canvas[y0:y1, x0:x1] += amount[:, :, None] * cast[None, None, :]

    # --- optics
    if conditions.blur_sigma > 0:
        canvas = cv2.GaussianBlur(canvas, (0, 0), conditions.blur_sigma)
    if conditions.motion_blur_px > 0:
        kern = _motion_kernel(conditions.motion_blur_px, rng.uniform(0, math.pi))
        canvas = cv2.filter2D(canvas, -1, kern, borderType=cv2.BORDER_REFLECT_101)

    # --- sensor: read noise plus shot noise growing with the signal; the noise is the
    # difference of two uniform bytes (a triangular law, as good as a Gaussian here and
    # several times cheaper to draw), scaled to ``noise_sigma``
    np.clip(canvas, 0, 255, out=canvas)
    if conditions.noise_sigma > 0:
        pair = np.frombuffer(rng.bytes(2 * h * w * 3), np.uint8).reshape(2, h, w, 3)
        noise = cv2.subtract(pair[0], pair[1], dtype=cv2.CV_32F)
        level = cv2.sqrt(canvas * (cfg.shot_noise_share**2 / 128.0))
        level += 1 - cfg.shot_noise_share
        canvas += noise * level * np.float32(conditions.noise_sigma / _TRI_STD)
        np.maximum(canvas, 0, out=canvas)  # convertScaleAbs below would fold negatives up
    image = cv2.convertScaleAbs(canvas)  # rounds and saturates at 255

    # --- JPEG
    if conditions.jpeg_quality is not None:
        q = int(np.clip(conditions.jpeg_quality, 1, 100))
        ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, q])
        if ok:
            image = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return Photo(image=np.ascontiguousarray(image), homography=hom, quads=tuple(quads))
