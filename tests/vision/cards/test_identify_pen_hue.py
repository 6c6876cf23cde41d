"""A pen of a symbol's hue (a red marker) over most of a card's cells looks like that symbol
everywhere; the card is still named from the positions where the hue stands out."""

from __future__ import annotations

import dataclasses

import numpy as np

from vision.cards.catalog import builtin_catalog
from vision.cards.identify import Observation, _symbol_evidence, default_config, identify


def test_no_card_prints_one_symbol_in_most_of_its_positions() -> None:
    """The premise of the rule: a symbol's median likeness over a clean card's positions is 0."""
    for card in builtin_catalog().cards:
        grid = card.grid(0)
        for ch in "XCP":
            assert float(np.mean(grid == ch)) <= 0.2, (card.id, ch)


def test_a_hue_in_most_positions_counts_only_above_its_median() -> None:
    cfg = default_config()
    clean = np.zeros((4, 4, 3))
    clean[0, 1, 0] = clean[2, 2, 0] = 0.3  # two red X's
    ev = _symbol_evidence(clean, cfg.symbol_share, cfg.symbol_common)
    # a clean card's evidence is the plain shares' likeness
    np.testing.assert_allclose(ev[..., 1], np.clip(clean[..., 0] / cfg.symbol_share, 0, 1))
    penned = clean.copy()
    penned[..., 0] = np.maximum(penned[..., 0], 0.08)  # red pen over every cell, under a print's share
    ev = _symbol_evidence(penned, cfg.symbol_share, cfg.symbol_common)
    assert ev[0, 1, 1] == 1.0 and ev[2, 2, 1] == 1.0  # the printed X's still stand out
    others = np.ones((4, 4), bool)
    others[0, 1] = others[2, 2] = False
    assert float(ev[..., 1][others].max()) == 0.0  # the pen alone is no X
    np.testing.assert_allclose(ev[..., 0][others], 1.0)


def _penned(grid: np.ndarray, rng: np.random.Generator) -> Observation:
    """A card's observation with a weakly read layout and a red pen over most of its cells (as
    strong as a print's share in some)."""
    cell = grid != "."
    presence = np.clip(cell * 0.8 + 0.1 + rng.normal(0.0, 0.12, grid.shape), 0.0, 1.0)
    symbols = np.zeros((*grid.shape, 3))
    for k, ch in enumerate("XCP"):
        symbols[..., k] = (grid == ch) * rng.uniform(0.2, 0.4, grid.shape)
    pen = cell & (rng.random(grid.shape) < 0.9)
    symbols[..., 0] = np.maximum(symbols[..., 0], pen * rng.uniform(0.15, 0.3, grid.shape))
    return Observation(presence, symbols, dict.fromkeys(("grey", "purple", "orange", "green"), 0.0))


def test_a_card_marked_all_over_in_red_is_still_named(rng: np.random.Generator) -> None:
    cfg = default_config()
    blind = dataclasses.replace(cfg, symbol_common=1.0)  # every hue counts as seen
    catalog = builtin_catalog()
    right = {"rule": 0, "blind": 0}
    wrong = {"rule": 0, "blind": 0}
    for card in catalog.cards:
        for _ in range(3):
            obs = _penned(card.grid(int(rng.integers(4))), rng)
            for name, c in (("rule", cfg), ("blind", blind)):
                found = identify(obs, catalog, c).card
                if found is not None:
                    right[name] += found.id == card.id
                    wrong[name] += found.id != card.id
    n = 3 * len(catalog.cards)
    assert right["rule"] >= 0.95 * n
    assert right["rule"] >= right["blind"] + 0.03 * n
    assert wrong["rule"] <= wrong["blind"]
