"""A card of a colour the frame's clear hue rules out is no rival: it could not be named, so it
does not narrow the margin of the card of the frame's colour."""

from __future__ import annotations

import numpy as np

from vision.cards.catalog import Catalog, CatalogCard
from vision.cards.identify import IdentifyConfig, Observation, default_config, identify

ROWS = ("####", "####", "####", "###.")
NEAR = ("####", "####", "####", "##..")  # one cell fewer: (3, 2)


def _catalog() -> Catalog:
    """A green card, a grey card of the same grid and a green card one cell short of it."""
    return Catalog(cards=(CatalogCard("g1", "green", 10, None, ROWS),
                          CatalogCard("k1", "grey", 8, None, ROWS),
                          CatalogCard("g2", "green", 10, None, NEAR)),
                   refs={}, source="test")


def _observed(cfg: IdentifyConfig, hue: str) -> Observation:
    """The grid of ``ROWS`` seen plainly, its cell (3, 2) faint enough that the grid alone puts
    g1 just past ``min_margin`` ahead of g2 (and the colour, shared by both, then dilutes that lead
    below it); the frame read as ``hue``."""
    grid = np.array([list(r) for r in ROWS])
    presence = np.where(grid != ".", 0.95, 0.05)
    n = grid.size
    lead = 1.1 * cfg.min_margin * (cfg.w_layout + cfg.w_symbol) / cfg.w_layout  # layout lead wanted
    presence[3, 2] = 0.5 + lead * n / 2  # its layout lead over g2 is (2p - 1) / n
    scores = dict.fromkeys(("grey", "purple", "orange", "green"), 0.0)
    scores[hue] = 0.95
    return Observation(presence, np.zeros((*grid.shape, 3)), scores)


def test_a_clear_hue_leaves_the_card_of_its_colour_without_the_rival_it_rules_out() -> None:
    cfg = default_config()
    got = identify(_observed(cfg, "green"), _catalog(), cfg)
    assert got.card is not None and got.card.id == "g1"
    assert got.margin >= cfg.min_margin


def test_without_a_hue_two_cards_of_one_grid_stay_unknown() -> None:
    # a frame read grey is no evidence (a faded frame reads grey): g1 and k1 tie
    cfg = default_config()
    assert identify(_observed(cfg, "grey"), _catalog(), cfg).card is None
