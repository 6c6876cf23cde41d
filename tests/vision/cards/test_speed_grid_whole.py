"""The lattices found are judged whole best first only until ``limit`` pass: the grids returned are
those of judging every lattice kept and taking the first ``limit`` that pass."""

from __future__ import annotations

import numpy as np
import pytest

from vision.cards import grid as grid_mod

from .conftest import blank_face, outline_cell

PPM = 4.0
PITCH = 48  # 12 mm cells


def _face(rng: np.random.Generator) -> np.ndarray:
    """A face with a 4x3 lattice of outlined cells, a few of them water, and noise."""
    face = blank_face((40, 140, 220))
    x0, y0 = int(rng.integers(30, 60)), int(rng.integers(60, 110))
    water = {(int(rng.integers(0, 4)), int(rng.integers(0, 3)))}
    for r in range(4):
        for c in range(3):
            if (r, c) not in water:
                outline_cell(face, x0 + PITCH * c, y0 + PITCH * r, x0 + PITCH * (c + 1), y0 + PITCH * (r + 1))
    noise = rng.normal(0.0, 6.0, face.shape)
    return np.clip(face.astype(np.float64) + noise, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_whole_lattices_are_judged_only_until_the_limit(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    face = _face(np.random.default_rng(seed))
    cfg = grid_mod.default_config()
    lines = grid_mod.face_lines(face, PPM, cfg)
    judged: list[bool] = []
    plain = grid_mod._lattice_whole

    def counted(on: object, config: grid_mod.GridConfig) -> bool:
        judged.append(plain(on, config))  # type: ignore[arg-type]
        return judged[-1]

    monkeypatch.setattr(grid_mod, "_lattice_whole", counted)
    every = grid_mod.locate_grids(face, PPM, cfg, limit=cfg.max_checked, lines=lines)
    n_whole = sum(judged)
    assert n_whole >= 2 and len(judged) == min(cfg.max_checked, len(judged))
    for limit in (1, 2):
        judged.clear()
        found = grid_mod.locate_grids(face, PPM, cfg, limit=limit, lines=lines)
        assert sum(judged) == limit and judged[-1]  # the last lattice judged is the limit-th to pass
        assert len(found) == limit
        for g, e in zip(found, every[:limit], strict=True):
            assert g.xs.tobytes() == e.xs.tobytes() and g.ys.tobytes() == e.ys.tobytes()
            assert g.presence.tobytes() == e.presence.tobytes() and g.paper.tobytes() == e.paper.tobytes()
