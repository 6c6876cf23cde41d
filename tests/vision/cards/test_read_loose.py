"""A detected card quad on whose face no lattice passes the outline coverage floor: it is read on
the lattice found without the floor, and kept only when the catalog names it with full confidence
on a lattice that confirms the named card's layout (and its face shows no expedition pattern)."""

from __future__ import annotations

import dataclasses
import importlib
from types import SimpleNamespace

import numpy as np
import pytest

from vision.cards.catalog import builtin_catalog
from vision.cards.grid import Grid
from vision.cards.identify import Identity
from vision.cards.rectify import Face
from vision.types import ExpeditionReading

read_mod = importlib.import_module("vision.cards.read")
detect_mod = importlib.import_module("vision.cards.detect")

_FACE = (352, 252)  # (H, W) face pixels of a 63 x 88 mm card at 4 px/mm
def _printed() -> np.ndarray:
    """The cells of the card read: a ring of eight cells round a water position."""
    return builtin_catalog().get("t39").grid(0)


def _face() -> Face:
    corners = np.array([[0.0, 0.0], [251.0, 0.0], [251.0, 351.0], [0.0, 351.0]])
    return Face(np.zeros((*_FACE, 3), np.uint8), corners, np.eye(3), 1.0)


def _grid(presence: np.ndarray) -> Grid:
    rows, cols = presence.shape
    xs = 50.0 + 50.0 * np.arange(cols + 1)
    ys = 80.0 + 50.0 * np.arange(rows + 1)
    return Grid(xs, ys, presence, np.full(3, 235.0), whole=False)


def _prepared(grid: Grid, margin: float, named: bool = True) -> object:
    card = SimpleNamespace(id="t7") if named else None
    ident = Identity(card, 0, 0.5 if named else 0.0, 0.8, margin)  # type: ignore[arg-type]
    return read_mod._Prepared(_face(), grid, SimpleNamespace(colour="green"), ident,  # type: ignore[arg-type]
                              _printed(), None, None)


def _quad() -> detect_mod.CardQuad:
    return detect_mod.CardQuad(np.array([[10.0, 10.0], [73.0, 10.0], [73.0, 98.0], [10.0, 98.0]]), False,
                               63.0 * 88.0)


def _confirming(rng: np.random.Generator) -> np.ndarray:
    """Presence that shows a cell at every printed cell and none at the water positions."""
    cells, water = rng.uniform(0.6, 1.0, _printed().shape), rng.uniform(0.0, 0.3, _printed().shape)
    return np.where(_printed() != ".", cells, water)


def _found() -> object:
    """A face on which no lattice passes the coverage floor."""
    return read_mod._Lattices(_face(), None, [])  # type: ignore[arg-type]


@pytest.fixture
def loose_lattice(monkeypatch: pytest.MonkeyPatch) -> tuple[list[float], list[np.ndarray]]:
    """The lattice found without the coverage floor, of the presence put in the returned list
    (the floor of every search recorded in the other)."""
    floors: list[float] = []
    presences: list[np.ndarray] = []

    def locate(face: np.ndarray, ppm: float, cfg: object, limit: int = 1, lines: object = None) -> list[Grid]:
        floors.append(cfg.min_coverage)  # type: ignore[attr-defined]
        return [_grid(p) for p in presences]

    monkeypatch.setattr(read_mod.grid_mod, "locate_grids", locate)
    return floors, presences


@pytest.mark.parametrize(("margin", "named", "confirmed", "kept"), [
    (0.2, True, True, True),     # named with full confidence on a lattice that shows its layout
    (0.03, True, True, False),   # named, but not with full confidence
    (0.2, True, False, False),   # a printed cell does not show on the lattice read
    (0.0, False, True, False),   # no card named
])
def test_kept_only_when_named_and_confirmed(rng: np.random.Generator, monkeypatch: pytest.MonkeyPatch,
                                            loose_lattice: tuple[list[float], list[np.ndarray]],
                                            margin: float, named: bool, confirmed: bool, kept: bool) -> None:
    cfg = read_mod.default_config()
    catalog = builtin_catalog()
    floors, presences = loose_lattice
    presences.append(_confirming(rng))  # the lattice found shows the layout of _printed()
    read_presence = _confirming(rng)
    if not confirmed:
        read_presence[0, 0] = cfg.grid.extend_presence * 0.5
    p = _prepared(_grid(read_presence), margin, named)
    lattices: list[object] = []

    def prepare_quad(image: object, quad: object, cat: object, c: object, seen: object = None) -> object:
        lattices.append(seen)
        return p

    monkeypatch.setattr(read_mod, "_prepare_quad", prepare_quad)
    got = read_mod._named_anyway(np.zeros((8, 8, 3), np.uint8), _quad(), catalog, cfg, _found())
    assert (got is p) is kept
    assert got is None or got is p
    # the lattice was searched again without the coverage floor, and read there
    assert floors == [0.0] and cfg.grid.min_coverage > 0
    assert len(lattices) == 1 and lattices[0].grids[0].shape == _printed().shape  # type: ignore[attr-defined]


@pytest.mark.parametrize("presence", ["none", "no layout"])
def test_not_read_without_a_lattice_of_a_card_layout(rng: np.random.Generator,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     loose_lattice: tuple[list[float], list[np.ndarray]],
                                                     presence: str) -> None:
    cfg = read_mod.default_config()
    catalog = builtin_catalog()
    floors, presences = loose_lattice
    if presence == "no layout":
        # the ring of cells with a corner turned to water: no card's layout under any turn
        shown = _confirming(rng)
        shown[0, 0] = 0.1
        layout = shown >= cfg.grid.extend_presence
        assert not any(np.array_equal(c.grid(k) != ".", layout) for c in catalog.cards for k in range(4))
        presences.append(shown)
    monkeypatch.setattr(read_mod, "_prepare_quad", lambda *a, **k: pytest.fail("nothing to read"))
    assert read_mod._named_anyway(np.zeros((8, 8, 3), np.uint8), _quad(), catalog, cfg, _found()) is None
    assert floors == [0.0]


def test_not_asked_when_a_lattice_passes_the_floor(rng: np.random.Generator,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(read_mod.grid_mod, "locate_grids", lambda *a, **k: pytest.fail("searched"))
    found = read_mod._Lattices(_face(), None, [_grid(_confirming(rng))])  # type: ignore[arg-type]
    assert read_mod._named_anyway(np.zeros((8, 8, 3), np.uint8), _quad(), builtin_catalog(),
                                  read_mod.default_config(), found) is None


@pytest.mark.parametrize("expedition", [False, True])
def test_read_drops_a_loose_card_showing_the_expedition(rng: np.random.Generator,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        expedition: bool) -> None:
    """A card kept on a lattice below the coverage floor is searched for the expedition card's
    pattern whatever its confidence (the expedition's squares make a lattice too)."""
    cfg = read_mod.default_config()
    p = dataclasses.replace(_prepared(_grid(_confirming(rng)), 0.2), ink=object())  # type: ignore[type-var]
    assert not read_mod._doubtful(p, cfg.grid.map_doubt)  # the premise: fully confident
    monkeypatch.setattr(read_mod.detect_mod, "plausible", lambda *a, **k: True)
    monkeypatch.setattr(read_mod.detect_mod, "propose", lambda *a, **k: ())
    monkeypatch.setattr(read_mod, "_lattices", lambda *a, **k: _found())
    monkeypatch.setattr(read_mod, "_prepare", lambda *a, **k: None)
    monkeypatch.setattr(read_mod, "_named_anyway", lambda *a, **k: p)
    monkeypatch.setattr(read_mod, "_templates", lambda *a, **k: {})
    monkeypatch.setattr(read_mod, "_finish", lambda q, *a, **k: q)
    squares = tuple((0, k) for k in range(read_mod.expedition_mod.default_config().min_squares + 2))
    shown = ExpeditionReading("e1", 0.9, ((0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)), squares)
    asked: list[int] = []
    faces: list[object] = []

    def read_expedition(image: object, quads: tuple[object, ...] = ()) -> ExpeditionReading | None:
        asked.append(len(quads))
        return shown if expedition else None

    def map_face_reading(face: object, *a: object, **k: object) -> tuple[None, list[object]]:
        faces.append(face)
        return None, []

    monkeypatch.setattr(read_mod.expedition_mod, "read_expedition", read_expedition)
    monkeypatch.setattr(read_mod.expedition_mod, "map_face_reading", map_face_reading)
    got = read_mod.read(np.zeros((8, 8, 3), np.uint8), catalog=object(), quads=(_quad(),))  # type: ignore[arg-type]
    assert asked == [1]
    # a card kept is then, named under grid.expedition_doubt, read again on its own face as one
    # that may hold a map's grid (see read._expedition_named); that finds no squares here
    assert [f is p.face.image for f in faces] == ([] if expedition else [True])  # type: ignore[attr-defined]
    assert got == ([] if expedition else [p])
