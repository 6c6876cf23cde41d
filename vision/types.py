"""Frozen result types shared by the vision stages, the tracker and the web layer.

Coordinates are image pixels ``(x, y)``; grid cells are ``(row, col)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

Point = tuple[float, float]
Quad = tuple[Point, Point, Point, Point]
Cell = tuple[int, int]


def _score(value: float) -> float:
    """A confidence for JSON: rounded, and never NaN or infinite (browsers reject those)."""
    v = float(value)
    return round(v, 3) if math.isfinite(v) else 0.0


def _quad_json(q: Quad | None) -> list[list[float]] | None:
    if q is None:
        return None
    return [[round(float(x), 1), round(float(y), 1)] for x, y in q]


def _cells_json(cells: tuple[Cell, ...]) -> list[list[int]]:
    return [[int(r), int(c)] for r, c in sorted(cells)]


@dataclass(frozen=True)
class CardReading:
    """One treasure-map card seen in an image.

    ``corners`` start at the card's top-left corner (the points numeral) and go clockwise.
    ``marked`` and ``uncertain`` are cells in the catalog's frame (``rows`` of the card data)
    when the card was identified, else in the frame of the grid as seen upright.
    ``grid_rotation`` is the number of quarter turns (0-3, clockwise) that take the catalog
    grid to the grid printed on the card.
    """

    id: str | None
    colour: str | None
    confidence: float
    corners: Quad
    marked: tuple[Cell, ...]
    uncertain: tuple[Cell, ...]
    complete: bool
    partial: bool
    grid_rotation: int = 0
    grid_shape: tuple[int, int] | None = None
    grid_corners: Quad | None = None  # the printed grid box (TL, TR, BR, BL as seen upright), image px
    doubtful: bool = False  # named, but with a confidence low enough to ask for a check

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "colour": self.colour,
            "confidence": _score(self.confidence),
            "corners": _quad_json(self.corners),
            "marked": _cells_json(self.marked),
            "uncertain": _cells_json(self.uncertain),
            "complete": bool(self.complete),
            "partial": bool(self.partial),
            "grid_rotation": int(self.grid_rotation),
            "doubtful": bool(self.doubtful),
        }


@dataclass(frozen=True)
class ExpeditionReading:
    """The face-up expedition card: which of the shapes it shows."""

    id: str
    confidence: float
    corners: Quad
    cells: tuple[Cell, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "confidence": _score(self.confidence),
            "corners": _quad_json(self.corners),
        }


@dataclass(frozen=True)
class BoardReading:
    """The Splendor Duel token board.

    ``cells`` holds 5 strings of 5 letters from ``WUGRKPY.``; an unknown (occluded) spot
    holds ``?`` and is listed in ``unknown``. ``confidence[r][c]`` lies in ``[0, 1]``.
    ``spots[r][c]``, when known, is the image position of spot ``(r, c)``'s centre, where the
    reader measured it. ``doubtful`` lists the spots read with a confidence under the reader's
    ``doubtful_confidence``: worth a look before a verdict is trusted.
    """

    corners: Quad
    cells: tuple[str, ...]
    confidence: tuple[tuple[float, ...], ...]
    unknown: tuple[Cell, ...] = ()
    spots: tuple[tuple[Point, ...], ...] | None = None
    doubtful: tuple[Cell, ...] = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "corners": _quad_json(self.corners),
            "cells": list(self.cells),
            "confidence": [[_score(v) for v in row] for row in self.confidence],
            "unknown": _cells_json(self.unknown),
            "doubtful": _cells_json(self.doubtful),
        }
        if self.spots is not None:
            out["spots"] = [[[round(float(x), 1), round(float(y), 1)] for x, y in row] for row in self.spots]
        return out


@dataclass(frozen=True)
class SceneReading:
    """Everything read from one image."""

    width: int
    height: int
    cards: tuple[CardReading, ...] = ()
    expedition: ExpeditionReading | None = None
    board: BoardReading | None = None
    elapsed_ms: float = 0.0
    stage_ms: dict[str, float] = field(default_factory=dict)

    def to_json(self, game: str = "auto") -> dict[str, Any]:
        out: dict[str, Any] = {"image": {"width": self.width, "height": self.height}}
        if game in ("auto", "silver-gold"):
            out["cards"] = [c.to_json() for c in self.cards]
            out["expedition"] = self.expedition.to_json() if self.expedition else None
        if game in ("auto", "splendor-duel"):
            out["board"] = self.board.to_json() if self.board else None
        out["elapsed_ms"] = round(float(self.elapsed_ms), 1)
        return out
