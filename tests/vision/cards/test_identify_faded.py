"""Faded light lowers every colour of a card alike: the symbols still settle the grid's turn."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision.cards.catalog import builtin_catalog
from vision.cards.grid import balanced_lab, locate_grid
from vision.cards.identify import default_config, identify, observe

from .conftest import Face

FACE_PPM = 4.0


def _faded(image: np.ndarray, keep: float) -> np.ndarray:
    """The face with its colours pulled towards grey (``keep`` of the chroma left)."""
    grey = cv2.cvtColor(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR).astype(np.float32)
    return np.clip(grey + keep * (image.astype(np.float32) - grey), 0, 255).astype(np.uint8)


@pytest.mark.parametrize("rotation", [0, 1, 2, 3])
def test_a_faded_card_keeps_its_turn(face_maker: Callable[..., Face], rng: np.random.Generator,
                                     rotation: int) -> None:
    catalog = builtin_catalog()
    card = catalog.get("t21")  # its water layout looks the same under every quarter turn
    assert card is not None
    layouts = {(card.grid(k) != ".").tobytes() for k in range(4)}
    assert len(layouts) == 1
    face = face_maker(card, rotation, frozenset(), rng)
    small = cv2.resize(face.image, (round(63 * FACE_PPM), round(88 * FACE_PPM)), interpolation=cv2.INTER_AREA)
    faded = _faded(small, 0.3)
    grid = locate_grid(faded, FACE_PPM)
    assert grid is not None
    cfg = default_config()
    # the premise: the printed symbols' colours fall below the fixed strong-colour bound
    lab = balanced_lab(faded, grid.paper)
    assert np.percentile(np.hypot(lab[..., 1], lab[..., 2]), 99.9) < 2 * cfg.grey_chroma
    ident = identify(observe(faded, grid, FACE_PPM, cfg), catalog, cfg)
    assert ident.card is not None and ident.card.id == "t21"
    assert ident.card.grid(ident.rotation).tolist() == card.grid(rotation).tolist()
    assert ident.rival_turns == ()
    # with the fixed bound the symbols vanish and every turn fits alike
    fixed = replace(cfg, chroma_share=1e9)
    blind = identify(observe(faded, grid, FACE_PPM, fixed), catalog, fixed)
    assert blind.card is None or len(blind.rival_turns) == 3
