"""Every map card of the game is printed once: two faces of one photo are never given the same name."""

from __future__ import annotations

import importlib

import numpy as np

from vision.cards.catalog import load_catalog
from vision.cards.grid import Grid
from vision.cards.identify import identify
from vision.cards.rectify import Face

from .conftest import clean_observation

read_mod = importlib.import_module("vision.cards.read")


def _prepared(card_id: str, seen_as: str, rng: np.random.Generator, colour: str) -> object:
    """A face showing card ``seen_as`` cleanly, but named ``card_id`` (as a doubtful lattice may)."""
    cat = load_catalog()
    shown = cat.get(seen_as)
    assert shown is not None
    obs = clean_observation(shown.grid(0), {colour: 1.0}, rng)
    named = identify(obs, cat)
    assert named.card is not None and named.card.id == seen_as
    card = cat.get(card_id)
    assert card is not None
    ident = read_mod.identify_mod.Identity(card, 0, named.confidence, named.score, named.margin, card)
    rows, cols = obs.presence.shape
    grid = Grid(np.arange(cols + 1) * 40.0, np.arange(rows + 1) * 40.0, obs.presence, np.full(3, 230.0))
    face = Face(np.zeros((352, 252, 3), np.uint8), np.zeros((4, 2)), np.eye(3), 1.0)
    return read_mod._Prepared(face, grid, obs, ident, card.grid(0), None, None)


def test_a_name_given_twice_goes_to_the_better_match(rng: np.random.Generator) -> None:
    cat = load_catalog()
    t12, t13 = cat.get("t12"), cat.get("t13")
    assert t12 is not None and t13 is not None
    sure = _prepared("t12", "t12", rng, t12.colour)
    # a second face shows t13, yet its lattice named it t12 with a weaker match
    doubtful = _prepared("t12", "t13", rng, t13.colour)
    doubtful = read_mod.dataclasses.replace(
        doubtful, ident=read_mod.dataclasses.replace(doubtful.ident, score=sure.ident.score - 0.2))
    out = read_mod._one_card_each([doubtful, sure], cat, read_mod.default_config())
    assert out[1] is sure  # the better match keeps its name, untouched
    renamed = out[0]
    assert renamed.ident.card is not None and renamed.ident.card.id == "t13"
    assert renamed.printed.tolist() == t13.grid(renamed.ident.rotation).tolist()


def test_a_second_face_no_other_card_fits_is_unknown(rng: np.random.Generator) -> None:
    cat = load_catalog()
    t12 = cat.get("t12")
    assert t12 is not None
    a = _prepared("t12", "t12", rng, t12.colour)
    b = _prepared("t12", "t12", rng, t12.colour)
    out = read_mod._one_card_each([a, b], cat, read_mod.default_config())
    names = [p.ident.card.id if p.ident.card is not None else None for p in out]
    assert sorted(names, key=str) == [None, "t12"]
    unknown = out[names.index(None)]
    assert set(unknown.printed.ravel()) <= {"#", "."}


def test_distinct_names_are_left_alone(rng: np.random.Generator) -> None:
    cat = load_catalog()
    t12, t13 = cat.get("t12"), cat.get("t13")
    assert t12 is not None and t13 is not None
    ps = [_prepared("t12", "t12", rng, t12.colour), _prepared("t13", "t13", rng, t13.colour)]
    out = read_mod._one_card_each(ps, cat, read_mod.default_config())
    assert all(a is b for a, b in zip(out, ps, strict=True))
