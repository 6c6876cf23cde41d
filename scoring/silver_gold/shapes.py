"""Grid geometry for Silver & Gold: quarter turns and mirror images of card grids, cell sets and
expedition shapes.

Cells are ``(row, col)`` tuples, row 0 being the first string of a card's ``rows``. A quarter turn
is clockwise: on a grid of ``height`` rows and ``width`` columns the cell ``(r, c)`` goes to
``(c, height - 1 - r)`` and the grid becomes ``width`` rows by ``height`` columns.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

Cell = tuple[int, int]

__all__ = [
    "Cell",
    "Shape",
    "mirror_cell",
    "mirror_rows",
    "normalise",
    "rotate_cell",
    "rotate_rows",
    "symmetries",
    "transform_cells",
    "unrotate_cell",
]


def rotate_rows(rows: Sequence[str], k: int) -> tuple[str, ...]:
    """Turn a grid of strings ``k`` quarter turns clockwise (``k`` may be negative).

    Examples
    --------
    >>> rotate_rows(("ab", "cd", "ef"), 1)
    ('eca', 'fdb')
    """
    grid = tuple(rows)
    for _ in range(k % 4):
        height = len(grid)
        width = len(grid[0]) if height else 0
        grid = tuple("".join(grid[height - 1 - r][c] for r in range(height)) for c in range(width))
    return grid


def mirror_rows(rows: Sequence[str]) -> tuple[str, ...]:
    """Mirror a grid of strings left to right."""
    return tuple(row[::-1] for row in rows)


def rotate_cell(cell: Cell, k: int, size: tuple[int, int]) -> Cell:
    """Where ``cell`` of a grid of ``size = (height, width)`` lands after ``k`` clockwise quarter turns.

    The inverse is :func:`unrotate_cell`.
    """
    r, c = cell
    height, width = size
    for _ in range(k % 4):
        r, c = c, height - 1 - r
        height, width = width, height
    return r, c


def unrotate_cell(cell: Cell, k: int, size: tuple[int, int]) -> Cell:
    """The cell of the unturned grid of ``size = (height, width)`` that ``k`` clockwise quarter turns
    moved to ``cell``: map a mark read on a turned card back to the card's own frame."""
    turns = k % 4
    height, width = size
    turned_size = (height, width) if turns % 2 == 0 else (width, height)
    return rotate_cell(cell, 4 - turns, turned_size)


def mirror_cell(cell: Cell, width: int) -> Cell:
    """Mirror ``cell`` left to right in a grid ``width`` columns wide."""
    return cell[0], width - 1 - cell[1]


def normalise(cells: Iterable[Cell]) -> frozenset[Cell]:
    """Shift a cell set so that its smallest row and smallest column are 0."""
    cells = tuple(cells)
    if not cells:
        return frozenset()
    r0 = min(r for r, _ in cells)
    c0 = min(c for _, c in cells)
    return frozenset((r - r0, c - c0) for r, c in cells)


def transform_cells(cells: Iterable[Cell], k: int, mirror: bool = False) -> frozenset[Cell]:
    """Mirror (first, if asked) and then turn a cell set ``k`` quarter turns; the result is normalised."""
    pts = [(r, -c) if mirror else (r, c) for r, c in cells]
    for _ in range(k % 4):
        pts = [(c, -r) for r, c in pts]
    return normalise(pts)


def symmetries(cells: Iterable[Cell]) -> tuple[frozenset[Cell], ...]:
    """The distinct normalised images of a cell set under its 8 rotations and mirror images,
    in a fixed order (unturned first)."""
    cells = tuple(cells)
    seen: list[frozenset[Cell]] = []
    for mirror in (False, True):
        for k in range(4):
            image = transform_cells(cells, k, mirror)
            if image not in seen:
                seen.append(image)
    return tuple(seen)


@dataclass(frozen=True)
class Shape:
    """An expedition card's pattern (or any cell pattern to be placed on one map card).

    Attributes
    ----------
    id : str
        ``"e1"`` … ``"e8"`` for the expedition cards, or a free label for an inline pattern.
    name : str
        A player-readable name, e.g. ``"T-tetromino"``.
    cells : frozenset of Cell
        The normalised cells of the pattern as printed.
    """

    id: str
    name: str
    cells: frozenset[Cell]

    @classmethod
    def from_cells(cls, cells: Iterable[Cell], id: str = "custom", name: str = "") -> Shape:
        norm = normalise(cells)
        return cls(id, name or f"{len(norm)}-cell pattern", norm)

    @property
    def size(self) -> int:
        return len(self.cells)

    @cached_property
    def orientations(self) -> tuple[frozenset[Cell], ...]:
        """Every distinct rotation and mirror image of :attr:`cells`, normalised."""
        return symmetries(self.cells)

    def placements(self, free: Iterable[Cell]) -> tuple[frozenset[Cell], ...]:
        """Every placement of the shape, in any orientation, lying wholly on the ``free`` cells.

        Returns the distinct placed cell sets, sorted by their sorted cells.
        """
        free_set = frozenset(free)
        found: set[frozenset[Cell]] = set()
        for image in self.orientations:
            anchor = min(image)
            for fr, fc in free_set:
                dr, dc = fr - anchor[0], fc - anchor[1]
                placed = frozenset((r + dr, c + dc) for r, c in image)
                if placed <= free_set:
                    found.add(placed)
        return tuple(sorted(found, key=sorted))

    def to_json(self) -> dict[str, object]:
        return {"id": self.id, "name": self.name, "cells": [list(c) for c in sorted(self.cells)]}
