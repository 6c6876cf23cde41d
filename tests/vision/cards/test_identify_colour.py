"""The printed grid settles a card before its colour: a faded frame read as grey does not hide it."""

from __future__ import annotations

import numpy as np

from vision.cards.catalog import builtin_catalog
from vision.cards.identify import Observation, default_config, identify

from .conftest import clean_observation


def _observation(grid: np.ndarray, colour: str, rng: np.random.Generator) -> Observation:
    """A clean view of a printed grid, its colour read as ``colour``."""
    return clean_observation(grid, {colour: 1.0}, rng)


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
