"""A water position walled in by its neighbours' outlines reads as a cell by its sides: its fill
tells it from one, for the cards with water there."""

from __future__ import annotations

import numpy as np

from vision.cards.catalog import Catalog, CatalogCard
from vision.cards.identify import Observation, default_config, identify

LAKE = ("###", "#.#", "###")  # water in the middle, walled in by eight cells
FULL = ("###", "###", "###")


def _catalog() -> Catalog:
    return Catalog(cards=(CatalogCard("lake", "green", 8, None, LAKE),
                          CatalogCard("full", "green", 9, None, FULL)),
                   refs={}, source="test")


def _observed(centre_presence: float, centre_fill: float | None) -> Observation:
    """Every position outlined (the middle one by its neighbours' outlines), the outer ones
    showing the cells' fill."""
    presence = np.full((3, 3), 0.95)
    presence[1, 1] = centre_presence
    fill = None
    if centre_fill is not None:
        fill = np.full((3, 3), 0.9)
        fill[1, 1] = centre_fill
    scores = dict.fromkeys(("grey", "purple", "orange", "green"), 0.0)
    scores["green"] = 0.95
    return Observation(presence, np.zeros((3, 3, 3)), scores, fill)


def test_a_walled_in_lake_is_told_by_its_fill() -> None:
    cfg = default_config()
    # by the sides alone the middle reads as a cell: the lake card is not named
    blind = identify(_observed(0.6, None), _catalog(), cfg)
    assert blind.card is None or blind.card.id == "full"
    # its inside band shows no cell fill: water, and the lake card is named
    seen = identify(_observed(0.6, 0.05), _catalog(), cfg)
    assert seen.card is not None and seen.card.id == "lake"


def test_a_walled_in_cell_showing_its_fill_stays_a_cell() -> None:
    cfg = default_config()
    got = identify(_observed(0.95, 0.9), _catalog(), cfg)
    assert got.card is not None and got.card.id == "full"


def test_only_water_with_a_cell_on_each_side_is_walled_in() -> None:
    from vision.cards.identify import _variants

    cards = (CatalogCard("lake", "green", 8, None, LAKE),
             CatalogCard("bay", "green", 8, None, ("###", "#..", "###")),  # open to the right
             CatalogCard("big", "green", 8, None, ("####", "#..#", "####")))  # two lakes side by side
    var = _variants(cards)
    walled = {(card.id, k): np.flatnonzero(w).tolist() for card, k, w in
              zip(var[(3, 3)].cards, var[(3, 3)].turns, var[(3, 3)].walled, strict=True)}
    assert walled[("lake", 0)] == [4]
    assert all(not w for (cid, _), w in walled.items() if cid == "bay")
    # each of two water positions side by side has water on one side: neither is walled in
    assert not var[(3, 4)].walled.any() and not var[(4, 3)].walled.any()
