"""A frame read grey is no evidence: it does not settle a card between a grey and a coloured rival."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from vision.cards.catalog import CatalogCard, builtin_catalog
from vision.cards.identify import Observation, colour_evidence, default_config, identify


def _between(a: np.ndarray, b: np.ndarray, colour: str) -> Observation:
    """A view halfway between two printed grids of one shape (each differing position half seen),
    its frame read as ``colour``."""
    presence = 0.1 + 0.8 * 0.5 * ((a != ".").astype(float) + (b != ".").astype(float))
    symbols = np.zeros((*a.shape, 3))
    for k, ch in enumerate("XCP"):
        symbols[..., k] = 0.3 * 0.5 * ((a == ch).astype(float) + (b == ch).astype(float))
    scores = dict.fromkeys(("grey", "purple", "orange", "green"), 0.0)
    scores[colour] = 1.0
    return Observation(presence, symbols, scores)


def _card(card_id: str) -> CatalogCard:
    card = builtin_catalog().get(card_id)
    assert card is not None
    return card


# (grey card, its turn, coloured card, its turn): printed grids of one shape that a view halfway
# between them leaves open
PAIRS = [("t37", 0, "t26", 0), ("t37", 1, "t27", 3)]


@pytest.mark.parametrize(("grey_id", "grey_turn", "coloured_id", "coloured_turn"), PAIRS)
def test_a_grey_reading_names_no_card_between_a_grey_and_a_coloured_one(
        grey_id: str, grey_turn: int, coloured_id: str, coloured_turn: int) -> None:
    catalog, cfg = builtin_catalog(), default_config()
    grey, coloured = _card(grey_id), _card(coloured_id)
    assert grey.colour not in cfg.hue_centres and coloured.colour in cfg.hue_centres
    obs = _between(grey.grid(grey_turn), coloured.grid(coloured_turn), "grey")
    # the premise: the printed grid alone leaves the two cards open
    unread = replace(obs, colour_scores=dict.fromkeys(obs.colour_scores, 0.0))
    assert identify(unread, catalog, cfg).card is None
    # a washed-out coloured frame reads grey too: no guess for the grey card
    assert identify(obs, catalog, cfg).card is None
    assert colour_evidence(obs, grey.colour, cfg) == colour_evidence(obs, coloured.colour, cfg) == 0.0


@pytest.mark.parametrize(("grey_id", "grey_turn", "coloured_id", "coloured_turn"), PAIRS)
def test_a_hue_still_settles_the_card_of_that_hue(
        grey_id: str, grey_turn: int, coloured_id: str, coloured_turn: int) -> None:
    catalog, cfg = builtin_catalog(), default_config()
    grey, coloured = _card(grey_id), _card(coloured_id)
    obs = _between(grey.grid(grey_turn), coloured.grid(coloured_turn), coloured.colour)
    ident = identify(obs, catalog, cfg)
    assert ident.card is not None and ident.card.id == coloured.id
    assert np.array_equal(coloured.grid(ident.rotation), coloured.grid(coloured_turn))
    assert colour_evidence(obs, coloured.colour, cfg) == 1.0
