"""A clear hue of another colour on the frame turns down the card the printed grid names."""

from __future__ import annotations

import numpy as np
import pytest

from vision.cards.catalog import builtin_catalog
from vision.cards.identify import Observation, contradicts, default_config, identify

from .conftest import clean_observation


def _clean(grid: np.ndarray, hue: dict[str, float], rng: np.random.Generator) -> Observation:
    """A clean view of a printed grid with the frame's likeness ``hue`` to each card colour."""
    return clean_observation(grid, hue, rng)


@pytest.mark.parametrize("card_id", ["t5", "t20", "t30", "t40"])
def test_a_clear_hue_of_another_colour_names_no_card(card_id: str, rng: np.random.Generator) -> None:
    catalog, cfg = builtin_catalog(), default_config()
    card = catalog.get(card_id)
    assert card is not None
    other = next(name for name in cfg.hue_centres if name != card.colour)
    # the premise: the grid alone names the card, with its own colour or none read
    for hue in ({}, {card.colour: 1.0}):
        ident = identify(_clean(card.grid(1), hue, rng), catalog, cfg)
        assert ident.card is not None and ident.card.id == card_id
    clear = _clean(card.grid(1), {other: cfg.clear_hue}, rng)
    assert contradicts(clear, card.colour, cfg)
    ident = identify(clear, catalog, cfg)
    assert ident.card is None and ident.best is not None and ident.best.id == card_id
    # a hue washed out below the clear level is no verdict against the card
    faint = _clean(card.grid(1), {other: 0.9 * cfg.clear_hue}, rng)
    assert not contradicts(faint, card.colour, cfg)
    ident = identify(faint, catalog, cfg)
    assert ident.card is not None and ident.card.id == card_id
