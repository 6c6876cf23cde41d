"""The lattice search skips lattices with a line off the face without changing what it finds."""

from __future__ import annotations

import numpy as np
import pytest

from vision.cards import grid as grid_mod

from .conftest import blank_face, outline_cell, with_noise

CFG = grid_mod.default_config()
PPM = 4.0


def test_on_face_rounds_like_the_coverage() -> None:
    assert grid_mod._on_face(np.array([-0.4, 50.0, 251.4]), 252)
    assert not grid_mod._on_face(np.array([-0.6, 50.0, 200.0]), 252)
    assert not grid_mod._on_face(np.array([10.0, 50.0, 251.6]), 252)
    assert grid_mod._on_face(np.array([0.0, 251.0]), 252)


def _face(rng: np.random.Generator, x0: int, y0: int, pitch: int, rows: int, cols: int) -> np.ndarray:
    face = blank_face((60, 150, 210))
    for r in range(rows):
        for c in range(cols):
            if rng.random() < 0.8 or r == c:
                x, y = x0 + pitch * c, y0 + pitch * r
                outline_cell(face, x, y, x + pitch, y + pitch)
    return with_noise(face, rng)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_skipping_lattices_off_the_face_finds_the_same(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(seed)
    # grids near the face's edges, so that many candidate lattices reach past them
    pitch = int(rng.integers(44, 60))
    rows, cols = int(rng.integers(3, 5)), int(rng.integers(3, 5))
    x0 = int(rng.integers(2, max(3, 250 - cols * pitch)))
    y0 = int(rng.integers(2, max(3, 350 - rows * pitch)))
    face = _face(rng, x0, y0, pitch, rows, cols)
    lines = grid_mod.face_lines(face, PPM, CFG)
    skipped = grid_mod.locate_grids(face, PPM, CFG, limit=3, lines=lines)
    assert skipped
    monkeypatch.setattr(grid_mod, "_on_face", lambda lines, size: True)  # measure every lattice
    plain = grid_mod.locate_grids(face, PPM, CFG, limit=3, lines=lines)
    assert len(plain) == len(skipped)
    for a, b in zip(plain, skipped, strict=True):
        assert np.array_equal(a.xs, b.xs) and np.array_equal(a.ys, b.ys)
        assert np.array_equal(a.presence, b.presence) and a.whole == b.whole


@pytest.mark.parametrize("seed", [0, 1])
def test_lattices_off_the_face_have_an_uncovered_line(seed: int) -> None:
    """What the skip relies on: a lattice :func:`grid._on_face` puts off the face has a line of
    coverage 0 (always below min_coverage), and one it keeps is measured on the face."""
    rng = np.random.default_rng(seed)
    face = _face(rng, 30, 60, 50, 4, 4)
    lines = grid_mod.face_lines(face, PPM, CFG)
    hm, vm = grid_mod._widen(lines.hmap, lines.vmap)
    h, w = hm.shape
    off = kept = 0
    for _ in range(400):
        step = float(rng.uniform(30.0, 70.0))
        xs = float(rng.uniform(-60.0, w - 60.0)) + step * np.arange(int(rng.integers(4, 6)))
        ys = float(rng.uniform(-60.0, h - 60.0)) + step * np.arange(int(rng.integers(4, 6)))
        cov, _ = grid_mod._lattice_cover(hm, vm, xs, ys, CFG)
        if grid_mod._on_face(xs, w) and grid_mod._on_face(ys, h):
            kept += 1
        else:
            off += 1
            assert cov.min() == 0.0
    assert off > 50 and kept > 50
    assert CFG.min_coverage > 0


def test_coverage_on_8_bit_maps_is_the_same(rng: np.random.Generator) -> None:
    face = _face(rng, 30, 60, 50, 4, 4)
    lines = grid_mod.face_lines(face, PPM, CFG)
    wide = grid_mod._widen(lines.hmap, lines.vmap)
    narrow = grid_mod._widen(lines.hmap.astype(np.uint8), lines.vmap.astype(np.uint8))
    assert np.array_equal(wide[0], narrow[0]) and np.array_equal(wide[1], narrow[1])
    for x0, y0 in ((30.0, 60.0), (-20.0, 60.0), (30.4, 110.6), (80.0, 10.0)):
        xs, ys = x0 + 50.0 * np.arange(5), y0 + 50.0 * np.arange(5)
        a, on_a = grid_mod._lattice_cover(wide[0], wide[1], xs, ys, CFG)
        b, on_b = grid_mod._lattice_cover(narrow[0], narrow[1], xs, ys, CFG)
        assert np.array_equal(a, b)
        assert (on_a is None) == (on_b is None)
        if on_a is not None and on_b is not None:
            assert all(np.array_equal(p, q) for p, q in zip(on_a, on_b, strict=True))
            assert grid_mod._lattice_whole(on_a, CFG) == grid_mod._lattice_whole(on_b, CFG)
