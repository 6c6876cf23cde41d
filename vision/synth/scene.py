"""Silver & Gold table scenes with exact truth.

:func:`render_scene` lays out 1-12 random map cards (any rotation, some touching, some cut by the
image edge), an optional expedition card and dry-erase marks on a table texture, and photographs
them under the conditions of a difficulty tier. :func:`render_cards_photo` renders a given set of
cards with given marks at given positions (for demo games and page tests).

Truth corners are image pixels (pixel centres at integer coordinates), starting at the card's
top-left corner (the points numeral) and going clockwise. Marked cells are in the catalog frame.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.config import load_config
from vision.synth.camera import (
    Conditions,
    Placement,
    camera_homography,
    photograph,
    project,
    sample_conditions,
    strong_cast,
)
from vision.synth.cards import ALL_STYLES, STYLES, face_geometry, map_card, map_cards, render_card_face
from vision.synth.expedition import expedition_card, expedition_cards, render_expedition_face
from vision.synth.marks import MARK_KINDS, changed_share, draw_mark, sample_mark_style

__all__ = [
    "CardSpec",
    "CardTruth",
    "ExpeditionSpec",
    "ExpeditionTruth",
    "Scene",
    "SceneConfig",
    "draw_truth",
    "render_cards_photo",
    "render_scene",
]

Cell = tuple[int, int]
Point = tuple[float, float]
Quad = tuple[Point, Point, Point, Point]
Pen = tuple[Cell, str, str, float]  # a marked cell, its pen gesture and ink, the share of it changed


@dataclass(frozen=True)
class SceneConfig:
    """Scene layout tunables (``synth.json``, section ``scene``)."""

    max_cards: int
    table_margin_px: float
    touch_prob: float
    touch_gap_mm: tuple[float, float]
    edge_prob: float
    min_visible: float
    overlap_mm2: float
    placement_tries: int
    expedition_prob: float
    unmarked_prob: float
    complete_prob: float
    main_kind_share: float


@cache
def scene_config() -> SceneConfig:
    return load_config("synth", SceneConfig, section="scene")


@dataclass(frozen=True)
class CardSpec:
    """A map card to put on the table.

    ``centre_mm`` is where its centre lies on the table; ``angle_deg`` turns it clockwise (0 =
    upright, numeral towards the table's top-left). ``marked`` holds catalog cells. ``style``,
    ``grid_rotation``, ``mark_kind`` and ``ink`` are random when ``None``.
    """

    id: str
    centre_mm: Point
    angle_deg: float = 0.0
    marked: tuple[Cell, ...] = ()
    style: str | None = None
    grid_rotation: int | None = None
    mark_kind: str | None = None
    ink: str | None = None


@dataclass(frozen=True)
class ExpeditionSpec:
    """The face-up expedition card to put on the table."""

    id: str
    centre_mm: Point
    angle_deg: float = 0.0
    style: str | None = None


@dataclass(frozen=True)
class CardTruth:
    """What a perfect reader reports for one map card in the photo.

    ``marked`` holds catalog cells; ``pens`` each marked cell's gesture (one of
    :data:`vision.synth.marks.MARK_KINDS`), ink and the share of the cell's pixels its mark
    changed (:func:`vision.synth.marks.changed_share`), as ``(cell, kind, ink, changed)`` sorted
    by cell, for benchmarks that tell which marks a reader misses.
    """

    id: str
    colour: str
    corners: Quad
    corners_mm: Quad
    marked: tuple[Cell, ...]
    grid_rotation: int
    grid_shape: tuple[int, int]
    partial: bool
    visible: float
    style: str
    pens: tuple[Pen, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "colour": self.colour,
            "corners": [[round(x, 2), round(y, 2)] for x, y in self.corners],
            "marked": [list(c) for c in sorted(self.marked)],
            "grid_rotation": self.grid_rotation,
            "partial": self.partial,
            "visible": round(self.visible, 3),
            "style": self.style,
            "pens": [[list(c), kind, ink, round(seen, 3)] for c, kind, ink, seen in self.pens],
        }


@dataclass(frozen=True)
class ExpeditionTruth:
    """The expedition card in the photo."""

    id: str
    corners: Quad
    partial: bool

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "corners": [[round(x, 2), round(y, 2)] for x, y in self.corners],
                "partial": self.partial}


@dataclass(frozen=True)
class Scene:
    """A rendered photo with its truth.

    Attributes
    ----------
    image : (H, W, 3) uint8 array
        BGR.
    conditions : Conditions
    homography : (3, 3) float64 array
        Table millimetres to image pixels.
    cards : tuple of CardTruth
        Every map card at least partly in the frame.
    expedition : ExpeditionTruth or None
    """

    image: NDArray[np.uint8]
    conditions: Conditions
    homography: NDArray[np.float64]
    cards: tuple[CardTruth, ...]
    expedition: ExpeditionTruth | None = None

    def truth_json(self) -> dict[str, Any]:
        h, w = self.image.shape[:2]
        return {
            "image": {"width": w, "height": h},
            "cards": [c.to_json() for c in self.cards],
            "expedition": self.expedition.to_json() if self.expedition else None,
        }


# ---------------------------------------------------------------------------------------- geometry


def card_corners_mm(centre: Point, angle_deg: float, size_mm: tuple[float, float]) -> Quad:
    """The TL, TR, BR, BL corners (table millimetres) of a card of ``size_mm`` (width, height)
    centred at ``centre`` and turned ``angle_deg`` clockwise."""
    w, h = size_mm
    a = math.radians(angle_deg)
    ca, sa = math.cos(a), math.sin(a)
    out = []
    for x, y in ((-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2)):
        out.append((centre[0] + x * ca - y * sa, centre[1] + x * sa + y * ca))
    return (out[0], out[1], out[2], out[3])


def _visible_fraction(quad: NDArray[np.float64], size: tuple[int, int]) -> float:
    w, h = size
    area = abs(cv2.contourArea(quad.astype(np.float32)))
    if area <= 0:
        return 0.0
    frame = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)
    inter, _ = cv2.intersectConvexConvex(quad.astype(np.float32), frame)
    return float(np.clip(inter / area, 0.0, 1.0))


def _overlaps(a: Quad, b: Quad, limit: float) -> bool:
    inter, _ = cv2.intersectConvexConvex(np.asarray(a, np.float32), np.asarray(b, np.float32))
    return bool(inter > limit)


def _inside(quad: NDArray[np.float64], size: tuple[int, int]) -> bool:
    w, h = size
    return bool((quad[:, 0] >= 0).all() and (quad[:, 0] <= w - 1).all()
                and (quad[:, 1] >= 0).all() and (quad[:, 1] <= h - 1).all())


# ------------------------------------------------------------------------------------------ render


def _card_face_with_marks(spec: CardSpec, rng: np.random.Generator
                          ) -> tuple[NDArray[np.uint8], int, str, tuple[Pen, ...]]:
    """The face with its marks drawn, its grid rotation and style, and each marked cell's pen
    ``(cell, kind, ink, changed)`` (see :class:`CardTruth`), in the order of ``spec.marked``."""
    card = map_card(spec.id)
    face = render_card_face(card, rng, style=spec.style, grid_rotation=spec.grid_rotation)
    img = face.image
    bad = [c for c in spec.marked if c not in face.cells]
    if bad:
        raise ValueError(f"card {spec.id}: cells {bad} are not cells of this card")
    pens: list[Pen] = []
    if spec.marked:
        cfg = scene_config()
        main = sample_mark_style(rng, face.px_per_mm, kind=spec.mark_kind, ink=spec.ink)
        for cell in spec.marked:
            style = main
            if spec.mark_kind is None and rng.random() > cfg.main_kind_share:
                style = replace(main, kind=MARK_KINDS[int(rng.integers(len(MARK_KINDS)))])
            before = img
            img = draw_mark(img, face.cells[cell], rng, style)
            pens.append((cell, style.kind, style.ink, changed_share(before, img, face.cells[cell])))
    return img, face.grid_rotation, face.style, tuple(pens)


def render_cards_photo(
    cards: Sequence[CardSpec],
    conditions: Conditions,
    rng: np.random.Generator,
    expedition: ExpeditionSpec | None = None,
    table: NDArray[np.uint8] | None = None,
) -> Scene:
    """Photograph given cards with given marks at given places.

    Parameters
    ----------
    cards : sequence of CardSpec
    conditions : Conditions
    rng : numpy.random.Generator
    expedition : ExpeditionSpec, optional
    table : (h, w, 3) uint8 array, optional
        The table surface; random when ``None``.

    Returns
    -------
    Scene
        Truth lists the cards at least partly in the frame, in the order given.

    Raises
    ------
    KeyError
        For an unknown card id.
    ValueError
        For a marked cell the card does not have.
    """
    geo = face_geometry()
    hom = camera_homography(conditions)
    placements: list[Placement] = []
    meta: list[tuple[str, Quad, int, str, tuple[Pen, ...]]] = []
    exp_quad: Quad | None = None
    if expedition is not None:
        exp_card = expedition_card(expedition.id)
        corners = card_corners_mm(expedition.centre_mm, expedition.angle_deg, geo.expedition_mm)
        placements.append(Placement(render_expedition_face(exp_card, rng, expedition.style), corners))
        exp_quad = corners
    for spec in cards:
        img, rot, style, pens = _card_face_with_marks(spec, rng)
        corners = card_corners_mm(spec.centre_mm, spec.angle_deg, geo.card_mm)
        placements.append(Placement(img, corners))
        meta.append((spec.id, corners, rot, style, pens))
    photo = photograph(placements, conditions, rng, table=table)
    size = conditions.size
    truths: list[CardTruth] = []
    offset = 1 if expedition is not None else 0
    for i, (spec, (cid, corners_mm, rot, style, pens)) in enumerate(zip(cards, meta, strict=True)):
        quad = np.asarray(photo.quads[i + offset])
        vis = _visible_fraction(quad, size)
        if vis <= 0:
            continue
        card = map_card(cid)
        truths.append(CardTruth(
            id=cid, colour=card.colour,
            corners=_as_quad(quad), corners_mm=corners_mm,
            marked=tuple(sorted(set(spec.marked))), grid_rotation=rot, grid_shape=card.shape,
            partial=not _inside(quad, size), visible=vis, style=style,
            pens=tuple(sorted(dict((pen[0], pen) for pen in pens).values())),
        ))
    exp_truth: ExpeditionTruth | None = None
    if expedition is not None and exp_quad is not None:
        quad = np.asarray(photo.quads[0])
        if _visible_fraction(quad, size) > 0:
            exp_truth = ExpeditionTruth(expedition.id, _as_quad(quad), not _inside(quad, size))
    return Scene(image=photo.image, conditions=conditions, homography=hom, cards=tuple(truths),
                 expedition=exp_truth)


def _point(p: NDArray[np.float64]) -> Point:
    return (float(p[0]), float(p[1]))


def _as_quad(q: NDArray[np.float64]) -> Quad:
    pts = [(float(x), float(y)) for x, y in q]
    return (pts[0], pts[1], pts[2], pts[3])


def _random_marks(rng: np.random.Generator, cells: Sequence[Cell], cfg: SceneConfig) -> tuple[Cell, ...]:
    u = rng.random()
    if u < cfg.unmarked_prob:
        return ()
    if u < cfg.unmarked_prob + cfg.complete_prob:
        return tuple(cells)
    k = int(rng.integers(1, len(cells)))
    idx = rng.choice(len(cells), size=k, replace=False)
    return tuple(cells[int(i)] for i in sorted(idx))


def _layout(
    rng: np.random.Generator, n: int, with_expedition: bool, conditions: Conditions, cfg: SceneConfig
) -> list[tuple[Point, float]]:
    """Non-overlapping card positions ``(centre_mm, angle_deg)``; the first is the expedition
    card when ``with_expedition``."""
    geo = face_geometry()
    hom = camera_homography(conditions)
    inv = np.linalg.inv(hom)
    w, h = conditions.size
    m = cfg.table_margin_px
    placed: list[tuple[Point, float, Quad]] = []
    total = n + (1 if with_expedition else 0)
    for _ in range(total):
        for _try in range(cfg.placement_tries):
            mode = rng.random()
            if placed and mode < cfg.touch_prob:
                (cx, cy), ang, _ = placed[int(rng.integers(len(placed)))]
                a = math.radians(ang)
                gap = float(rng.uniform(*cfg.touch_gap_mm))
                side = int(rng.integers(4))
                dx, dy = [(geo.card_mm[0] + gap, 0.0), (-geo.card_mm[0] - gap, 0.0),
                          (0.0, geo.card_mm[1] + gap), (0.0, -geo.card_mm[1] - gap)][side]
                slide = float(rng.uniform(-0.3, 0.3)) * (geo.card_mm[1] if side < 2 else geo.card_mm[0])
                if side < 2:
                    dy += slide
                else:
                    dx += slide
                centre = (cx + dx * math.cos(a) - dy * math.sin(a), cy + dx * math.sin(a) + dy * math.cos(a))
                want_inside = rng.random() > cfg.edge_prob
            elif mode < cfg.touch_prob + cfg.edge_prob:
                edge = int(rng.integers(4))
                t = float(rng.uniform(0.05, 0.95))
                px = [(t * w, 0.0), (w - 1.0, t * h), (t * w, h - 1.0), (0.0, t * h)][edge]
                centre = _point(project(inv, px)[0])
                ang = float(rng.uniform(0, 360))
                want_inside = False
            else:
                px = (float(rng.uniform(m, w - m)), float(rng.uniform(m, h - m)))
                centre = _point(project(inv, px)[0])
                ang = float(rng.uniform(0, 360))
                want_inside = True
            corners = card_corners_mm(centre, ang, geo.card_mm)
            quad = project(hom, corners)
            if want_inside and not _inside(quad, (w, h)):
                continue
            if not want_inside and _visible_fraction(quad, (w, h)) < cfg.min_visible:
                continue
            if any(_overlaps(corners, q, cfg.overlap_mm2) for _, _, q in placed):
                continue
            placed.append((centre, ang, corners))
            break
    return [(c, a) for c, a, _ in placed]


def render_scene(
    rng: np.random.Generator,
    tier: str,
    size: tuple[int, int] = (1920, 1080),
    n_cards: int | None = None,
    style: str | None = None,
    expedition: bool | None = None,
    cast: bool | tuple[float, float, float] = False,
    conditions: Conditions | None = None,
) -> Scene:
    """A random Silver & Gold table photo with exact truth.

    Parameters
    ----------
    rng : numpy.random.Generator
    tier : {"easy", "typical", "hard"}
        The camera and light difficulty (see :func:`vision.synth.camera.sample_conditions`).
    size : (width, height)
    n_cards : int, optional
        How many map cards to try to place (1-12 when ``None``); fewer fit on a crowded table.
    style : {"classic", "modern", "stamped"}, optional
        The face style of every card; random per scene among :data:`vision.synth.cards.STYLES`
        when ``None`` (``stamped`` is drawn only when asked for).
    expedition : bool, optional
        Whether to add a face-up expedition card; random when ``None``.
    cast : bool or (b, g, r) gains
        ``True`` lights the scene with a strong colour cast drawn from ``rng``; three gains light it
        with exactly that cast.
    conditions : Conditions, optional
        Use these instead of drawing them from the tier.

    Returns
    -------
    Scene
    """
    cfg = scene_config()
    cond = conditions if conditions is not None else sample_conditions(rng, tier, size)
    if isinstance(cast, tuple):
        cond = replace(cond, cast=cast)
    elif cast:
        cond = replace(cond, cast=strong_cast(rng))
    if style is not None and style not in ALL_STYLES:
        raise ValueError(f"unknown card style {style!r}; expected one of {', '.join(ALL_STYLES)}")
    scene_style = style if style is not None else STYLES[int(rng.integers(len(STYLES)))]
    n = int(n_cards) if n_cards is not None else int(rng.integers(1, cfg.max_cards + 1))
    with_exp = bool(rng.random() < cfg.expedition_prob) if expedition is None else expedition
    spots = _layout(rng, n, with_exp, cond, cfg)
    exp_spec: ExpeditionSpec | None = None
    if with_exp and spots:
        pool = expedition_cards()
        centre, ang = spots.pop(0)
        exp_spec = ExpeditionSpec(pool[int(rng.integers(len(pool)))].id, centre, ang, scene_style)
    catalog = map_cards()
    chosen = rng.choice(len(catalog), size=min(len(spots), len(catalog)), replace=False)
    specs = []
    for (centre, ang), idx in zip(spots, chosen, strict=False):
        card = catalog[int(idx)]
        specs.append(CardSpec(card.id, centre, ang, _random_marks(rng, card.cells, cfg), scene_style))
    return render_cards_photo(specs, cond, rng, expedition=exp_spec)


def draw_truth(scene: Scene) -> NDArray[np.uint8]:
    """A debug overlay: the scene's photo with each card's true outline, its first corner (the
    points numeral) as a dot, and its id, rotation and marked-cell count.

    Returns
    -------
    (H, W, 3) uint8 array
        A new BGR image.
    """
    out = scene.image.copy()
    items: list[tuple[Quad, str, bool]] = [
        (c.corners, f"{c.id} r{c.grid_rotation} m{len(c.marked)}", c.partial) for c in scene.cards
    ]
    if scene.expedition is not None:
        items.append((scene.expedition.corners, scene.expedition.id, scene.expedition.partial))
    for corners, label, partial in items:
        q = np.round(np.asarray(corners) * 16).astype(np.int32)
        colour = (0, 200, 255) if partial else (0, 255, 0)
        cv2.polylines(out, [q], True, colour, 2, cv2.LINE_AA, 4)
        cv2.circle(out, (int(q[0][0]), int(q[0][1])), 5 * 16, (0, 0, 255), -1, cv2.LINE_AA, 4)
        cx, cy = np.asarray(corners).mean(axis=0)
        org = (int(cx) - 30, int(cy))
        cv2.putText(out, label, org, cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 2, cv2.LINE_AA)
        cv2.putText(out, label, org, cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 1, cv2.LINE_AA)
    return out
