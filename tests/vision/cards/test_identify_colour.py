"""The printed grid settles a card before its colour: a faded frame read as grey does not hide it."""

from __future__ import annotations

import numpy as np

from vision.cards.catalog import builtin_catalog
from vision.cards.identify import Observation, default_config, identify


def _observation(grid: np.ndarray, colour: str, rng: np.random.Generator) -> Observation:
    """A clean view of a printed grid with some noise on each cue, its colour read as ``colour``."""
    presence = np.clip((grid != ".") * 0.8 + 0.1 + rng.normal(0.0, 0.03, grid.shape), 0.0, 1.0)
    symbols = np.zeros((*grid.shape, 3))
    for k, ch in enumerate("XCP"):
        symbols[..., k] = (grid == ch) * 0.3
    scores = dict.fromkeys(("grey", "purple", "orange", "green"), 0.0)
    scores[colour] = 1.0
    return Observation(presence, symbols, scores)


def test_faded_colour_does_not_hide_a_clear_grid(rng: np.random.Generator) -> None:
    catalog = builtin_catalog()
    card = next(c for c in catalog.cards if c.id == "t28")
    assert card.colour != "grey"
    # the premise: grey cards of the same shape exist, so a grey reading favours them
    assert any(c.colour == "grey" and c.shape == card.shape for c in catalog.cards)
    for turn in range(4):
        ident = identify(_observation(card.grid(turn), "grey", rng), catalog, default_config())
        assert ident.card is not None and ident.card.id == "t28"
        assert ident.rotation == turn or np.array_equal(card.grid(ident.rotation), card.grid(turn))


def test_every_card_is_still_recognised_with_its_own_colour(rng: np.random.Generator) -> None:
    catalog = builtin_catalog()
    for card in catalog.cards:
        ident = identify(_observation(card.grid(0), card.colour, rng), catalog, default_config())
        assert ident.card is not None and ident.card.id == card.id
