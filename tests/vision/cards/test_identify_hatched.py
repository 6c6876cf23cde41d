"""A heavily marked card: hatching hides its cells' outlines and paper, so its layout reads only
fair; a clear lead over the rest of the catalog still names it, a narrow one does not."""

from __future__ import annotations

import dataclasses

import numpy as np

from vision.cards.catalog import builtin_catalog
from vision.cards.identify import Observation, default_config, identify


def _hatched(grid: np.ndarray, hidden: int, rng: np.random.Generator) -> Observation:
    """A printed grid whose first ``hidden`` cells (reading order) look like water (hatched over)."""
    cell = grid != "."
    presence = cell * 0.9 + 0.05
    idx = np.flatnonzero(cell.ravel())[:hidden]
    presence.ravel()[idx] = 0.1
    presence = np.clip(presence + rng.normal(0.0, 0.02, grid.shape), 0.0, 1.0)
    symbols = np.zeros((*grid.shape, 3))
    for k, ch in enumerate("XCP"):
        symbols[..., k] = (grid == ch) * 0.3
    return Observation(presence, symbols, dict.fromkeys(("grey", "purple", "orange", "green"), 0.0))


def test_a_clear_lead_names_a_card_whose_layout_reads_only_fair(rng: np.random.Generator) -> None:
    cfg = default_config()
    strict = dataclasses.replace(cfg, clear_layout=cfg.min_layout)
    catalog = builtin_catalog()
    named = 0
    for card in catalog.cards:
        grid = card.grid(0)
        for hidden in range(1, int(np.sum(grid != ".")) + 1):
            obs = _hatched(grid, hidden, rng)
            if identify(obs, catalog, strict).card is not None:
                continue  # a good layout: the single-stage rule names it already
            ident = identify(obs, catalog, cfg)
            if ident.card is None:
                continue
            # named only by the second way in: a clear margin, the right card, some confidence
            assert ident.margin >= 3.0 * cfg.min_margin
            assert ident.card.id == card.id
            assert ident.confidence > 0.0
            named += 1
    assert named > 0
