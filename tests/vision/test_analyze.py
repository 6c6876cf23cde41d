"""vision.analyze.scale_reading: positions back in the original image's pixels."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.typing import NDArray

from vision.analyze import analyze, scale_reading
from vision.profile import card_view_of
from vision.types import BoardReading, CardReading, ExpeditionReading, SceneReading

QUAD = ((10.0, 20.0), (40.0, 20.0), (40.0, 60.0), (10.0, 60.0))


def _reading() -> SceneReading:
    card = CardReading(id="t4", colour="green", confidence=0.9, corners=QUAD, marked=((0, 1),), uncertain=(),
                       complete=False, partial=False, grid_corners=QUAD)
    bare = CardReading(id=None, colour=None, confidence=0.2, corners=QUAD, marked=(), uncertain=(),
                       complete=False, partial=True)
    exp = ExpeditionReading("e2", 0.8, QUAD, ((0, 0), (0, 1), (0, 2)))
    spots = tuple(tuple((10.0 + 6 * c, 20.0 + 8 * r) for c in range(5)) for r in range(5))
    board = BoardReading(QUAD, ("WUGRK",) * 5, ((1.0,) * 5,) * 5, spots=spots)
    return SceneReading(width=80, height=60, cards=(card, bare), expedition=exp, board=board, elapsed_ms=5.0)


def test_positions_map_pixel_centre_to_pixel_centre() -> None:
    scaled = scale_reading(_reading(), 2.0, (160, 120))
    assert (scaled.width, scaled.height) == (160, 120)
    want = ((20.5, 40.5), (80.5, 40.5), (80.5, 120.5), (20.5, 120.5))
    assert scaled.cards[0].corners == want and scaled.cards[0].grid_corners == want
    assert scaled.cards[1].corners == want and scaled.cards[1].grid_corners is None
    assert scaled.expedition is not None and scaled.expedition.corners == want
    assert scaled.board is not None and scaled.board.corners == want
    assert scaled.board.spots is not None
    assert scaled.board.spots[0][0] == (20.5, 40.5) and scaled.board.spots[4][4] == (68.5, 104.5)
    # everything that is not a position stays as read
    assert scaled.cards[0].marked == ((0, 1),) and scaled.board.cells == ("WUGRK",) * 5
    assert scaled.expedition.cells == ((0, 0), (0, 1), (0, 2)) and scaled.elapsed_ms == 5.0
    same = scale_reading(_reading(), 1.0, (80, 60))
    assert same == _reading()


def test_bad_scale_or_size() -> None:
    with pytest.raises(ValueError, match="positive"):
        scale_reading(_reading(), 0.0, (80, 60))
    with pytest.raises(ValueError, match="positive"):
        scale_reading(_reading(), 1.0, (0, 60))


class _Profile:
    """Marks each view with its own value, so the reader that saw it can be told."""

    token_model = None

    def __init__(self) -> None:
        self.calls: list[str] = []

    def prepare(self, image: NDArray[np.uint8]) -> NDArray[np.uint8]:
        self.calls.append("prepare")
        return np.full_like(image, 10)


class _CardProfile(_Profile):
    def prepare_cards(self, image: NDArray[np.uint8]) -> NDArray[np.uint8]:
        self.calls.append("prepare_cards")
        return np.full_like(image, 200)


def test_card_view_is_the_profiles_card_view_when_it_has_one(monkeypatch: pytest.MonkeyPatch) -> None:
    image = np.random.default_rng(0).integers(0, 255, (24, 32, 3)).astype(np.uint8)
    prepared = np.zeros_like(image)
    assert card_view_of(_Profile(), image, prepared) is prepared
    assert int(card_view_of(_CardProfile(), image, prepared)[0, 0, 0]) == 200
    seen: dict[str, int] = {}
    from vision import cards
    from vision.cards import detect

    monkeypatch.setattr(detect, "detect", lambda img: seen.setdefault("detect", int(img[0, 0, 0])) and [])
    monkeypatch.setattr(cards, "read", lambda img, **kw: seen.setdefault("cards", int(img[0, 0, 0])) and [])
    monkeypatch.setattr(cards, "read_expedition", lambda img, **kw: None)
    with_view, without = _CardProfile(), _Profile()
    analyze(image, "silver-gold", profile=with_view)
    # the board's view is not made when no board is read
    assert seen == {"detect": 200, "cards": 200} and with_view.calls == ["prepare_cards"]
    seen.clear()
    analyze(image, "silver-gold", profile=without)
    assert seen == {"detect": 10, "cards": 10} and without.calls == ["prepare"]
    from vision import board

    monkeypatch.setattr(board, "read", lambda img, **kw: seen.setdefault("board", int(img[0, 0, 0])) and None)
    seen.clear()
    both = _CardProfile()
    analyze(image, "auto", profile=both)
    assert seen == {"detect": 200, "cards": 200, "board": 10} and both.calls == ["prepare", "prepare_cards"]
    seen.clear()
    plain = _Profile()
    analyze(image, "auto", profile=plain)
    assert seen == {"detect": 10, "cards": 10, "board": 10} and plain.calls == ["prepare"]
