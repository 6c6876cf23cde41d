"""The card reader's shortcuts read the same: the cells' ink is measured for the kept readings
only, and the expedition readings of the quads the reader searched are handed over."""

from __future__ import annotations

import importlib
from itertools import combinations

import numpy as np
import pytest

from vision.cards import read
from vision.cards.catalog import load_catalog
from vision.cards.detect import CardQuad, detect
from vision.cards.expedition import read_expedition
from vision.types import ExpeditionReading

from .conftest import draw_face, expedition_face_with_art, place, table

read_mod = importlib.import_module("vision.cards.read")


def _scene(rng: np.random.Generator) -> np.ndarray:
    """Two map cards and two expedition faces of different shapes on a table."""
    canvas = table(rng, (1100, 700))
    cat = load_catalog()
    for cid, centre in (("t12", (180, 200)), ("t5", (450, 480))):
        card = cat.get(cid)
        assert card is not None
        place(canvas, draw_face(card, 0, frozenset({(0, 0)}), rng).image, centre, float(rng.uniform(-20, 20)),
              0.55)
    shapes = (([(0, 0), (1, 0), (1, 1), (2, 0)], (750, 220)), ([(0, 0), (1, 0), (1, 1)], (900, 500)))
    for cells, centre in shapes:
        place(canvas, expedition_face_with_art(cells), centre, float(rng.uniform(0, 90)), 0.55)
    return canvas



def test_expedition_of_reads_as_read_expedition(rng: np.random.Generator) -> None:
    canvas = _scene(rng)
    quads = tuple(detect(canvas))
    whole = [q for q in quads if not q.partial]
    assert len(whole) >= 3
    want = read_expedition(canvas, quads=quads)
    assert want is not None
    alone = {q.corners.tobytes(): read_expedition(canvas, quads=(q,)) for q in whole}
    assert sum(r is not None for r in alone.values()) >= 2
    # whichever quads were searched already, the reading is the one of all the quads
    for k in range(len(whole) + 1):
        for known in combinations(whole, k):
            seen = {q.corners.tobytes(): alone[q.corners.tobytes()] for q in known}
            assert read_mod.expedition_of(canvas, quads, seen) == want


def _quad(x: float) -> CardQuad:
    return CardQuad(np.array([[x, 0.0], [x + 63, 0.0], [x + 63, 88.0], [x, 88.0]]), False, 63.0 * 88.0)


def _reading(q: CardQuad, conf: float) -> ExpeditionReading:
    return ExpeditionReading("e1", conf, read_mod._quad(q.corners), ((0, 0), (1, 0), (1, 1)))


@pytest.mark.parametrize("seen_at", [0, 1, 2])
def test_expedition_of_keeps_the_first_of_the_best(seen_at: int) -> None:
    quads = (_quad(0.0), _quad(100.0), _quad(200.0))
    readings = [_reading(quads[0], 0.5), _reading(quads[1], 0.75), _reading(quads[2], 0.75)]

    at = {q.corners.tobytes(): r for q, r in zip(quads, readings, strict=True)}

    def reader(image: np.ndarray, quads: tuple[CardQuad, ...]) -> ExpeditionReading | None:
        # read_expedition's rule: the first reading of the best rank
        best = None
        for q in quads:
            r = at[q.corners.tobytes()]
            if best is None or r.confidence > best.confidence:
                best = r
        return best

    seen = {quads[seen_at].corners.tobytes(): readings[seen_at]}
    assert read_mod.expedition_of(np.zeros((4, 4, 3), np.uint8), quads, seen, reader=reader) is readings[1]


def test_reader_hands_over_what_it_searched(rng: np.random.Generator) -> None:
    canvas = _scene(rng)
    quads = tuple(detect(canvas))
    seen: dict[bytes, ExpeditionReading | None] = {}
    cards = read(canvas, quads=quads, expedition_seen=seen)
    assert cards == read(canvas, quads=quads)
    assert {c.id for c in cards} == {"t12", "t5"}
    # the expedition faces look like doubtful map cards: they were searched, and turned down
    assert sum(r is not None for r in seen.values()) >= 2
    for key, r in seen.items():
        (q,) = [q for q in quads if q.corners.tobytes() == key] or [None]
        if q is not None:
            assert r == read_expedition(canvas, quads=(q,))


def test_ink_is_measured_for_kept_cards_only(rng: np.random.Generator,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    canvas = _scene(rng)
    quads = tuple(detect(canvas))
    want = read(canvas, quads=quads)
    calls: list[int] = []
    cell_ink = read_mod.marks_mod.cell_ink

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return cell_ink(*args, **kwargs)

    monkeypatch.setattr(read_mod.marks_mod, "cell_ink", counted)
    assert read(canvas, quads=quads) == want
    # one measurement per map card read (the expedition faces, turned down, are not measured)
    assert len(calls) == len(want) == 2
