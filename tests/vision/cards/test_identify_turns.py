"""The quarter turn of an identified card: the cells where two turns print different symbols
settle it, however few of the card's cells they are."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from vision.cards.catalog import builtin_catalog
from vision.cards.identify import Observation, default_config, identify

from .conftest import clean_observation


def _seen(x_share_at_03: float, rng: np.random.Generator) -> Observation:
    """Card t2 under turn 0 (its turns 0 and 2 differ in two cells of fourteen: an X at (0, 3)
    or at (3, 0)), its X at (0, 3) seen with ``x_share_at_03`` of red (the others clearly)."""
    card = builtin_catalog().get("t2")
    assert card is not None
    g0, g2 = card.grid(0), card.grid(2)
    # the premise: the same water layout, symbols different in just those two cells
    assert np.array_equal(g0 != ".", g2 != ".")
    assert sorted(zip(*np.nonzero(g0 != g2), strict=True)) == [(0, 3), (3, 0)]
    obs = clean_observation(g0, {card.colour: 1.0}, rng)
    symbols = obs.symbols.copy()
    symbols[0, 3, 0] = x_share_at_03
    return Observation(obs.presence, symbols, obs.colour_scores)


def test_symbols_seen_where_two_turns_differ_settle_the_turn(rng: np.random.Generator) -> None:
    cfg = default_config()
    obs = _seen(0.5 * cfg.symbol_share, rng)  # the X at (0, 3) half hidden (by pen, say)
    catalog = builtin_catalog()
    ident = identify(obs, catalog, cfg)
    assert ident.card is not None and ident.card.id == "t2"
    assert np.array_equal(ident.card.grid(ident.rotation), ident.card.grid(0))
    # the two turns differ by less than min_turn_margin in the card score (two cells of
    # fourteen), yet where they differ the symbols fit turn 0 clearly better
    assert ident.rival_turns == ()
    blind = identify(obs, catalog, replace(cfg, turn_evidence=1.01))
    assert blind.rival_turns == (2,)


def test_a_turn_the_symbols_cannot_tell_apart_stays_in_doubt(rng: np.random.Generator) -> None:
    obs = _seen(0.0, rng)  # no X seen at (0, 3): turns 0 and 2 each explain one of the two cells
    ident = identify(obs, builtin_catalog(), default_config())
    assert ident.card is not None and ident.card.id == "t2"
    # whichever of the two turns is chosen, the other is its rival
    assert {ident.rotation, *ident.rival_turns} >= {0, 2}
