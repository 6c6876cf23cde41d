"""A kept quad that borrows a side from something else (its opposite sides differ too much, see
``detect.plausible``) gives way to the card-like candidates it holds, and only to those."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.cards import detect as detect_mod

Cand = tuple[np.ndarray, bool, float]


def _cand(corners: list[list[float]], partial: bool = False) -> Cand:
    quad = np.array(corners, np.float64)
    return quad, partial, float(cv2.contourArea(quad.astype(np.float32)))


# a card of 63x88 mm at 1 px/mm, and a quad around it and a stretch of the table beside it
CARD = _cand([[100, 100], [163, 100], [163, 188], [100, 188]])
BORROWED = _cand([[90, 90], [320, 90], [210, 200], [90, 200]])
NEIGHBOUR = _cand([[400, 100], [463, 100], [463, 188], [400, 188]])


def _same(a: list[Cand], b: list[Cand]) -> bool:
    return len(a) == len(b) and all(np.array_equal(x[0], y[0]) for x, y in zip(a, b, strict=True))


def test_the_cases_at_hand() -> None:
    cfg = detect_mod.default_config()
    assert not detect_mod._sides_match(BORROWED[0], cfg)
    assert detect_mod._sides_match(CARD[0], cfg) and detect_mod._sides_match(NEIGHBOUR[0], cfg)
    assert detect_mod.plausible(detect_mod.CardQuad(*CARD), cfg)
    assert not detect_mod.plausible(detect_mod.CardQuad(*BORROWED), cfg)


def test_a_borrowed_quad_gives_way_to_the_card_it_holds() -> None:
    cfg = detect_mod.default_config()
    out = detect_mod._unborrowed([NEIGHBOUR, BORROWED], [CARD, NEIGHBOUR, BORROWED], CARD[2], cfg)
    assert _same(out, [NEIGHBOUR, CARD])


def test_the_outermost_of_nested_candidates_is_the_card() -> None:
    cfg = detect_mod.default_config()
    frame = _cand([[104, 104], [159, 104], [159, 184], [104, 184]])  # the card's printed frame
    out = detect_mod._unborrowed([BORROWED], [frame, CARD], CARD[2], cfg)
    assert _same(out, [CARD])


def test_a_plausible_quad_stays() -> None:
    cfg = detect_mod.default_config()
    outer = _cand([[90, 90], [173, 90], [173, 198], [90, 198]])  # a card-shaped loop around the card
    assert _same(detect_mod._unborrowed([outer], [CARD, outer], CARD[2], cfg), [outer])


def test_a_borrowed_quad_holding_no_card_stays() -> None:
    cfg = detect_mod.default_config()
    outside = _cand([[200, 300], [263, 300], [263, 388], [200, 388]])  # not inside the quad
    small = _cand([[100, 100], [130, 100], [130, 142], [100, 142]])  # inside, but no card's size
    partial = (CARD[0], True, CARD[2])
    for cands in ([outside], [small], [partial], []):
        assert _same(detect_mod._unborrowed([BORROWED], cands, CARD[2], cfg), [BORROWED])


def test_a_candidate_another_kept_quad_explains_is_not_freed() -> None:
    cfg = detect_mod.default_config()
    # the card inside the borrowed quad is already kept (found by another pass, say): nothing to free
    assert _same(detect_mod._unborrowed([CARD, BORROWED], [CARD], CARD[2], cfg), [CARD, BORROWED])


def _detect_with(monkeypatch: pytest.MonkeyPatch, card_rank: int) -> list[np.ndarray]:
    """``detect`` on a blank photo whose every pass finds the borrowed quad, three cards apart and
    ``CARD`` (inside the borrowed quad) at rank ``card_rank``."""
    apart = [_cand([[x, 300], [x + 63, 300], [x + 63, 388], [x, 388]]) for x in (300, 400, 500)]
    found = [(q, p, a, 0) for q, p, a in [*apart, BORROWED]] + [(*CARD, card_rank)]

    def candidates(edges: np.ndarray, cfg: detect_mod.DetectConfig) -> list:
        return [(q.copy(), p, a, r) for q, p, a, r in found]

    monkeypatch.setattr(detect_mod, "_candidates", candidates)
    return [q.corners for q in detect_mod.detect(np.zeros((480, 640, 3), np.uint8))]


def test_detect_frees_an_outlined_card_but_no_completed_guess(monkeypatch: pytest.MonkeyPatch) -> None:
    def has(quads: list[np.ndarray], cand: Cand) -> bool:
        return any(np.abs(q - cand[0]).max() < 1.0 for q in quads)

    weak = _detect_with(monkeypatch, 1)  # a card with a side along no edge: an outline of its own
    assert has(weak, CARD) and not has(weak, BORROWED)
    cut = _detect_with(monkeypatch, 3)  # completed over a lost corner: a guess, it frees nothing
    assert has(cut, BORROWED) and not has(cut, CARD)


def test_pieces_inside_an_outlined_card_give_way_to_it() -> None:
    cfg = detect_mod.default_config()
    # two parts of the card closed off by lines of its face, each with a borrowed side
    pieces = [_cand([[105, 105], [150, 105], [140, 150], [110, 150]]),
              _cand([[110, 155], [155, 155], [145, 185], [120, 185]])]
    assert not any(detect_mod._sides_match(p[0], cfg) for p in pieces)
    out = detect_mod._unborrowed([NEIGHBOUR, *pieces], [CARD, NEIGHBOUR], CARD[2], cfg, [CARD, NEIGHBOUR])
    assert _same(out, [NEIGHBOUR, CARD])
    # the card not outlined all round (a side along no edge): it may be two touching cards, the
    # pieces stay for the reader to judge
    out = detect_mod._unborrowed([NEIGHBOUR, *pieces], [CARD, NEIGHBOUR], CARD[2], cfg, [NEIGHBOUR])
    assert _same(out, [NEIGHBOUR, *pieces])
