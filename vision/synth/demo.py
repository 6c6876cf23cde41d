"""The built-in demo table: a scripted game that plays itself in front of a virtual camera.

Two players (seats ``"1"`` at the bottom edge, ``"2"`` at the top edge) each keep two Silver & Gold
map cards; an expedition card lies between them and a Splendor Duel board beside them. Turn by
turn an expedition card is turned up, each player marks a legal placement of its shape on one of
their cards, a completed card is replaced from the deck, and tokens are taken from the board and
refilled. Every few moves a hand reaches over the card or the board first. When the deck or the
turns run out, a new game starts; the demo never ends.

Everything is deterministic for a seed. Each distinct table state is photographed once (through
:func:`vision.synth.camera.photograph`) and cached; frames add cheap sensor noise on top, so the
demo runs in real time. :meth:`DemoTable.truth_at` and :meth:`DemoTable.changes` give the exact
truth for tests and benchmarks.
"""

from __future__ import annotations

import math
import threading
import time
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.config import load_config
from vision.errors import SourceError
from vision.sources import Frame
from vision.synth import board as synth_board
from vision.synth import camera
from vision.synth import cards as synth_cards
from vision.types import BoardReading, CardReading, Cell, ExpeditionReading, Quad, SceneReading

__all__ = [
    "DemoCard",
    "DemoConfig",
    "DemoState",
    "DemoTable",
    "DemoTruth",
    "Hand",
    "TruthChange",
]


@dataclass(frozen=True)
class DemoConfig:
    """The demo's layout, camera, light and pace (``vision/data/config/demo.json``)."""

    table_mm: tuple[float, float]
    tilt_deg: float
    yaw_deg: float
    zoom: float
    cast: tuple[float, float, float]
    brightness: float
    light_gradient: float
    shadow: float
    card_style: str
    card_mm: tuple[float, float]
    card_slots_mm: tuple[tuple[float, float], ...]
    slot_seats: tuple[str, ...]
    turned_seats: tuple[str, ...]
    expedition_mm: tuple[float, float]
    expedition_at_mm: tuple[float, float]
    board_mm: float
    board_at_mm: tuple[float, float]
    hand_mm: tuple[float, float]
    hand_height_mm: float
    step_seconds: float
    first_step_seconds: float
    hand_every: int
    hand_steps: tuple[float, ...]
    hand_step_seconds: float
    hand_cover_from: float
    refill_when_empty: int
    turns_per_game: int
    mark_styles: tuple[tuple[str, str, str], ...]
    mark_bgr: tuple[int, int, int]
    mark_width_frac: float
    expedition_cell_bgr: tuple[int, int, int]
    expedition_bgr: tuple[int, int, int]
    frame_noise_sigma: float
    noise_frames: int
    cache_states: int


def demo_config() -> DemoConfig:
    cfg = load_config("demo", DemoConfig)
    slots = tuple((float(x), float(y)) for x, y in cfg.card_slots_mm)
    pens = tuple((str(seat), str(kind), str(ink)) for seat, kind, ink in cfg.mark_styles)
    return replace(cfg, card_slots_mm=slots, mark_styles=pens,
                   turned_seats=tuple(str(seat) for seat in cfg.turned_seats))


@dataclass(frozen=True)
class DemoCard:
    """A map card on the demo table: which slot (and so which seat) holds it, and its marks."""

    id: str
    slot: int
    seat: str
    marked: frozenset[Cell]


@dataclass(frozen=True)
class Hand:
    """A hand reaching from ``seat``'s edge towards ``target`` (a card id, ``"board"``), ``reach``
    being the fraction of the way (1 = over the target)."""

    target: str
    reach: float
    seat: str


@dataclass(frozen=True)
class DemoState:
    """One table state: the cards, the board (5 strings over ``WUGRKPY.``), the expedition id."""

    cards: tuple[DemoCard, ...]
    board: tuple[str, ...]
    expedition: str
    hand: Hand | None = None

    def card(self, card_id: str) -> DemoCard | None:
        return next((c for c in self.cards if c.id == card_id), None)


@dataclass(frozen=True)
class _Segment:
    start: float
    end: float
    state: DemoState
    game: int
    index: int


@dataclass(frozen=True)
class _Game:
    number: int
    start: float
    segments: tuple[_Segment, ...]

    @property
    def end(self) -> float:
        return self.segments[-1].end


@dataclass(frozen=True)
class TruthChange:
    """A change of the visible table at time ``t``; ``kind`` uses the tracker's event names
    (``cells_marked``, ``card_appeared``, ``card_removed``, ``tokens_taken``, ``board_refilled``,
    ``board_appeared``, ``expedition_changed``) and ``key`` is a card id, ``"board"`` or
    ``"expedition"``."""

    t: float
    kind: str
    key: str


@dataclass(frozen=True)
class DemoTruth:
    """The exact table at time ``t``.

    ``card_quads`` maps card ids to image corners (TL, TR, BR, BL, in pixels); ``covered`` names
    what the hand hides (a card id or ``"board"``), if anything.
    """

    t: float
    game: int
    segment: int
    state: DemoState
    card_quads: dict[str, Quad]
    board_quad: Quad
    expedition_quad: Quad
    covered: str | None


def _rect(x: float, y: float, w: float, h: float) -> tuple[tuple[float, float], ...]:
    return ((x, y), (x + w, y), (x + w, y + h), (x, y + h))


@cache
def _shapes() -> dict[str, object]:
    """Expedition id -> rules Shape (from :mod:`scoring.silver_gold`), or a domino fallback."""
    try:
        from scoring.silver_gold.catalog import load_catalog
    except ImportError:
        return {}
    return {s.id: s for s in load_catalog().expeditions}


def _placements(card_id: str, marked: frozenset[Cell], shape_id: str,
                free: frozenset[Cell]) -> tuple[frozenset[Cell], ...]:
    """Legal placements of an expedition shape on a card, through the rules engine
    (:func:`scoring.silver_gold.placement.legal_placements`); single cells when it is missing."""
    shape = _shapes().get(shape_id)
    try:
        from scoring.silver_gold.catalog import load_catalog
        from scoring.silver_gold.placement import legal_placements
    except ImportError:
        shape = None
    if shape is None:
        return tuple(frozenset([c]) for c in sorted(free))
    card = load_catalog().get(card_id)
    if card is None:  # a card the rules do not know: place on the free cells directly
        return tuple(shape.placements(free))  # type: ignore[attr-defined]
    return tuple(legal_placements(card, marked, shape))  # type: ignore[arg-type]


def _shape_cells(shape_id: str) -> tuple[Cell, ...]:
    shape = _shapes().get(shape_id)
    return tuple(sorted(shape.cells)) if shape is not None else ((0, 0), (1, 0))  # type: ignore[attr-defined]


def _spiral() -> tuple[Cell, ...]:
    try:
        from scoring.splendor_duel.board import spiral
    except ImportError:
        return tuple((r, c) for r in range(5) for c in range(5))
    return spiral()


def _take_lines(rows: tuple[str, ...]) -> list[tuple[Cell, ...]]:
    try:
        from scoring.splendor_duel.board import Board, take_lines
    except ImportError:
        return [((r, c),) for r in range(5) for c in range(5) if rows[r][c] not in ".Y"]
    return list(take_lines(Board(rows)))


class DemoTable:
    """A self-playing demo table.

    Parameters
    ----------
    seed : int
        Everything (cards, moves, faces, light) follows from it.
    size : (width, height)
        Frame size in pixels.
    config : DemoConfig, optional
        Defaults from ``demo.json``.
    """

    def __init__(self, seed: int = 0, size: tuple[int, int] = (1280, 720),
                 config: DemoConfig | None = None) -> None:
        self.seed = int(seed)
        self.size = (int(size[0]), int(size[1]))
        if self.size[0] < 64 or self.size[1] < 64:
            raise SourceError(f"demo size {size!r}: at least 64x64 pixels")
        self.config = config or demo_config()
        cfg = self.config
        self.conditions = camera.Conditions(
            size=self.size, table_mm=cfg.table_mm, tilt_deg=cfg.tilt_deg, yaw_deg=cfg.yaw_deg,
            zoom=cfg.zoom, cast=cfg.cast, brightness=cfg.brightness, light_gradient=cfg.light_gradient,
            shadow=cfg.shadow)
        self.homography = camera.camera_homography(self.conditions)
        self._inverse = np.linalg.inv(self.homography)
        self._games: list[_Game] = []
        self._images: OrderedDict[tuple[int, int], NDArray[np.uint8]] = OrderedDict()
        self._faces: dict[tuple[int, str], synth_cards.CardFace] = {}
        self._noise: list[tuple[NDArray[np.uint8], NDArray[np.uint8]]] = []
        self._game_props: dict[int, tuple[NDArray[np.uint8], NDArray[np.uint8], synth_board.BoardStyle]] = {}
        self._board_faces: dict[tuple[int, tuple[str, ...]], NDArray[np.uint8]] = {}
        self._lock = threading.Lock()

    # -- the script -----------------------------------------------------------------------------

    def _rng(self, *keys: int) -> np.random.Generator:
        return np.random.default_rng([self.seed, *keys])

    def _script(self, number: int, start: float) -> _Game:
        cfg = self.config
        rng = self._rng(number, 1)
        deck = [c.id for c in synth_cards.map_cards()]
        rng.shuffle(deck)
        cells = {c.id: frozenset(c.cells) for c in synth_cards.map_cards()}
        shape_ids = sorted(_shapes()) or ["e1"]
        spiral = _spiral()
        hands = [0]
        cards = tuple(DemoCard(deck.pop(), slot, cfg.slot_seats[slot], frozenset())
                      for slot in range(len(cfg.card_slots_mm)))
        state = DemoState(cards, synth_board.random_layout(rng, empty=0), shape_ids[0])
        steps: list[tuple[float, DemoState]] = [(cfg.first_step_seconds, state)]

        def move(before: DemoState, after: DemoState, target: str, seat: str) -> DemoState:
            hands[0] += 1
            if cfg.hand_every > 0 and hands[0] % cfg.hand_every == 0:
                for reach in cfg.hand_steps:
                    steps.append((cfg.hand_step_seconds, replace(before, hand=Hand(target, reach, seat))))
            steps.append((cfg.step_seconds, after))
            return after

        bag: list[str] = []
        order: list[str] = []
        for turn in range(cfg.turns_per_game):
            if not order:
                order = [str(s) for s in rng.permutation(shape_ids)[: max(1, len(shape_ids) - 1)]]
            state = replace(state, expedition=order.pop(0))
            steps.append((cfg.step_seconds, state))
            ended = False
            for seat in ("1", "2"):
                own = [c for c in state.cards if c.seat == seat]
                options = [(c, p) for c in own
                           for p in _placements(c.id, c.marked, state.expedition, cells[c.id] - c.marked)]
                if not options:
                    options = [(c, frozenset([cell])) for c in own for cell in sorted(cells[c.id] - c.marked)]
                if not options:
                    continue
                card, placed = options[int(rng.integers(len(options)))]
                marked = replace(card, marked=card.marked | placed)
                after = replace(state, cards=tuple(marked if c.id == card.id else c for c in state.cards))
                state = move(state, after, card.id, seat)
                if marked.marked == cells[card.id]:
                    state = replace(state, cards=tuple(c for c in state.cards if c.id != card.id))
                    steps.append((cfg.step_seconds, state))
                    if not deck:
                        ended = True
                        break
                    fresh = DemoCard(deck.pop(), card.slot, card.seat, frozenset())
                    state = replace(state, cards=tuple(sorted((*state.cards, fresh), key=lambda c: c.slot)))
                    steps.append((cfg.step_seconds, state))
            if ended:
                break
            lines = _take_lines(state.board)
            if lines:
                take = lines[int(rng.integers(len(lines)))]
                rows = [list(r) for r in state.board]
                for r, c in take:
                    bag.append(rows[r][c])
                    rows[r][c] = "."
                after = replace(state, board=tuple("".join(r) for r in rows))
                state = move(state, after, "board", "1" if turn % 2 == 0 else "2")
            empties = [cell for cell in spiral if state.board[cell[0]][cell[1]] == "."]
            if bag and len(empties) >= cfg.refill_when_empty:
                rng.shuffle(bag)
                rows = [list(r) for r in state.board]
                for (r, c), tok in zip(empties, bag, strict=False):
                    rows[r][c] = tok
                bag = bag[len(empties):]
                state = replace(state, board=tuple("".join(r) for r in rows))
                steps.append((cfg.step_seconds, state))
        segments = []
        t = start
        for i, (seconds, st) in enumerate(steps):
            segments.append(_Segment(t, t + seconds, st, number, i))
            t += seconds
        return _Game(number, start, tuple(segments))

    def _game_at(self, t: float) -> _Game:
        with self._lock:
            if not self._games:
                self._games.append(self._script(0, 0.0))
            while self._games[-1].end <= t:
                last = self._games[-1]
                self._games.append(self._script(last.number + 1, last.end))
            lo, hi = 0, len(self._games) - 1
            while lo < hi:  # binary search: the game whose span holds t
                mid = (lo + hi) // 2
                if self._games[mid].end <= t:
                    lo = mid + 1
                else:
                    hi = mid
            return self._games[lo]

    def _segment_at(self, t: float) -> _Segment:
        if t < 0 or not math.isfinite(t):
            raise ValueError(f"time {t!r}: expected seconds >= 0")
        game = self._game_at(t)
        starts = [s.start for s in game.segments]
        i = int(np.searchsorted(starts, t, side="right")) - 1
        return game.segments[max(0, i)]

    def state_at(self, t: float) -> DemoState:
        """The scripted table state at ``t`` seconds."""
        return self._segment_at(t).state

    # -- truth ----------------------------------------------------------------------------------

    def _project(self, corners_mm: Sequence[tuple[float, float]]) -> Quad:
        pts = camera.project(self.homography, np.asarray(corners_mm, np.float64)).reshape(-1, 2)
        a, b, c, d = ((float(x), float(y)) for x, y in pts)
        return (a, b, c, d)

    def _card_corners_mm(self, slot: int) -> tuple[tuple[float, float], ...]:
        """Where the card's TL, TR, BR, BL corners lie; a seat in ``turned_seats`` sits across the
        table and turns its cards to face it (rotated 180 degrees)."""
        x, y = self.config.card_slots_mm[slot]
        tl, tr, br, bl = _rect(x, y, *self.config.card_mm)
        if self.config.slot_seats[slot] in self.config.turned_seats:
            return (br, bl, tl, tr)
        return (tl, tr, br, bl)

    def _board_corners_mm(self) -> tuple[tuple[float, float], ...]:
        x, y = self.config.board_at_mm
        return _rect(x, y, self.config.board_mm, self.config.board_mm)

    def _expedition_corners_mm(self) -> tuple[tuple[float, float], ...]:
        x, y = self.config.expedition_at_mm
        return _rect(x, y, *self.config.expedition_mm)

    def _covered(self, state: DemoState) -> str | None:
        hand = state.hand
        return hand.target if hand is not None and hand.reach >= self.config.hand_cover_from else None

    def truth_at(self, t: float) -> DemoTruth:
        """The exact table at ``t`` seconds (image positions included)."""
        seg = self._segment_at(t)
        quads = {c.id: self._project(self._card_corners_mm(c.slot)) for c in seg.state.cards}
        return DemoTruth(t, seg.game, seg.index, seg.state, quads, self._project(self._board_corners_mm()),
                         self._project(self._expedition_corners_mm()), self._covered(seg.state))

    def reading_at(self, t: float) -> SceneReading:
        """What a perfect reader would report at ``t``: covered things read as partial / ``?``."""
        truth = self.truth_at(t)
        w, h = self.size
        found = []
        for c in truth.state.cards:
            card = synth_cards.map_card(c.id)
            found.append(CardReading(
                id=c.id, colour=card.colour, confidence=1.0, corners=truth.card_quads[c.id],
                marked=tuple(sorted(c.marked)), uncertain=(), complete=c.marked == frozenset(card.cells),
                partial=truth.covered == c.id, grid_shape=card.shape))
        rows = truth.state.board
        unknown: tuple[Cell, ...] = ()
        if truth.covered == "board":
            unknown = tuple((r, c) for r in range(1, 4) for c in range(1, 4))
            rows = tuple("".join("?" if (r, c) in unknown else ch for c, ch in enumerate(row))
                         for r, row in enumerate(rows))
        conf = tuple(tuple(0.0 if (r, c) in unknown else 1.0 for c in range(5)) for r in range(5))
        board = BoardReading(truth.board_quad, rows, conf, unknown)
        exp = ExpeditionReading(truth.state.expedition, 1.0, truth.expedition_quad,
                                _shape_cells(truth.state.expedition))
        return SceneReading(width=w, height=h, cards=tuple(found), expedition=exp, board=board)

    def changes(self, until: float) -> list[TruthChange]:
        """Every visible change of the table from time 0 to ``until`` (hand passes excluded)."""
        self._game_at(until)
        out: list[TruthChange] = []
        prev: DemoState | None = None
        for game in list(self._games):
            for seg in game.segments:
                if seg.start > until:
                    return out
                if seg.state.hand is not None:
                    continue
                out.extend(_diff(prev, seg.state, seg.start))
                prev = seg.state
        return out

    def seat_of(self, point: tuple[float, float]) -> str | None:
        """The seat whose half of the table holds an image point (pixels): ``"2"`` top, ``"1"`` bottom."""
        p = self._inverse @ np.array([point[0], point[1], 1.0])
        if abs(p[2]) < 1e-12:
            return None
        y = p[1] / p[2]
        if not 0 <= y <= self.config.table_mm[1]:
            return None
        return "2" if y < self.config.table_mm[1] / 2 else "1"

    # -- rendering ------------------------------------------------------------------------------

    def _card_face(self, game: int, card: DemoCard) -> NDArray[np.uint8]:
        key = (game, card.id)
        face = self._faces.get(key)
        if face is None:
            if len(self._faces) > 64:
                self._faces.clear()
            rng = self._rng(game, 2, int(card.id.lstrip("t") or 0))
            face = synth_cards.render_card_face(synth_cards.map_card(card.id), rng,
                                                style=self.config.card_style, grid_rotation=0)
            self._faces[key] = face
        img = face.image.copy()
        try:
            from vision.synth import marks
        except ImportError:  # the pen renderer is optional: plain crosses instead
            marks = None  # type: ignore[assignment]
        colour = tuple(int(v) for v in self.config.mark_bgr)
        pens = {seat: (kind, ink) for seat, kind, ink in self.config.mark_styles}
        kind, ink = pens.get(card.seat, ("cross", None))
        num = int(card.id.lstrip("t") or 0)
        for cell in sorted(card.marked):
            box = face.cells.get(cell)
            if box is None:
                continue
            if marks is not None:
                rng = self._rng(game, 6, num, cell[0], cell[1])
                style = marks.sample_mark_style(rng, face.px_per_mm, kind=kind, ink=ink)
                img = marks.draw_mark(img, box, rng, style)
                continue
            x0, y0, x1, y1 = box
            pad = 0.18 * (x1 - x0)
            width = max(2, round(self.config.mark_width_frac * (x1 - x0)))
            a, b = (round(x0 + pad), round(y0 + pad)), (round(x1 - pad), round(y1 - pad))
            cv2.line(img, a, b, (*colour, 255), width, cv2.LINE_AA)
            cv2.line(img, (a[0], b[1]), (b[0], a[1]), (*colour, 255), width, cv2.LINE_AA)
        return img

    def _expedition_face(self, game: int, shape_id: str) -> NDArray[np.uint8]:
        cfg = self.config
        try:
            from vision.synth import expedition
        except ImportError:  # the expedition renderer is optional: a plain face instead
            expedition = None  # type: ignore[assignment]
        if expedition is not None:
            rng = self._rng(game, 7, int(shape_id.lstrip("e") or 0))
            return expedition.render_expedition_face(expedition.expedition_card(shape_id), rng,
                                                     style=cfg.card_style)
        px = 6.0
        w, h = round(cfg.expedition_mm[0] * px), round(cfg.expedition_mm[1] * px)
        img = np.empty((h, w, 3), np.uint8)
        img[:] = cfg.expedition_bgr
        cv2.rectangle(img, (4, 4), (w - 5, h - 5), (60, 60, 60), 3)
        cells = _shape_cells(shape_id)
        rows = 1 + max(r for r, _ in cells)
        cols = 1 + max(c for _, c in cells)
        unit = min((w * 0.6) / cols, (h * 0.6) / rows)
        ox, oy = (w - unit * cols) / 2, (h - unit * rows) / 2
        for r, c in cells:
            p0 = (round(ox + c * unit + 2), round(oy + r * unit + 2))
            p1 = (round(ox + (c + 1) * unit - 2), round(oy + (r + 1) * unit - 2))
            cv2.rectangle(img, p0, p1, cfg.expedition_cell_bgr, -1)
            cv2.rectangle(img, p0, p1, (40, 40, 40), 2)
        return img

    def _hand_corners_mm(self, hand: Hand, state: DemoState) -> tuple[tuple[float, float], ...]:
        cfg = self.config
        hw, hh = cfg.hand_mm
        if hand.target == "board":
            quad = self._board_corners_mm()
        else:
            card = state.card(hand.target)
            quad = self._card_corners_mm(card.slot) if card is not None else self._board_corners_mm()
        tx = sum(p[0] for p in quad) / 4
        ty = sum(p[1] for p in quad) / 4
        table_h = cfg.table_mm[1]
        if hand.seat == "1":  # from the bottom edge, fingertips up
            y0 = table_h + 0.15 * hh
            tip = ty - 0.25 * hh
            y = y0 + hand.reach * (tip - y0)
            return ((tx - hw / 2, y), (tx + hw / 2, y), (tx + hw / 2, y + hh), (tx - hw / 2, y + hh))
        y0 = -0.15 * hh
        tip = ty + 0.25 * hh
        y = y0 + hand.reach * (tip - y0)
        return ((tx + hw / 2, y), (tx - hw / 2, y), (tx - hw / 2, y - hh), (tx + hw / 2, y - hh))

    def _props(self, game: int) -> tuple[NDArray[np.uint8], NDArray[np.uint8], synth_board.BoardStyle]:
        """The table texture, the hand and the board style of a game (drawn once per game)."""
        props = self._game_props.get(game)
        if props is None:
            rng = self._rng(game, 3)
            style = synth_board.sample_style(rng)
            props = (camera.table_texture(rng, (960, 540)), synth_board.hand_face(rng), style)
            self._game_props = {game: props}
        return props

    def _board_face(self, game: int, rows: tuple[str, ...]) -> NDArray[np.uint8]:
        key = (game, rows)
        face = self._board_faces.get(key)
        if face is None:
            token_rng = self._rng(game, 4, zlib.crc32("".join(rows).encode("ascii")))
            face = synth_board.render_board_face(rows, self._props(game)[2], token_rng).image
            self._board_faces = {key: face}
        return face

    def _render(self, seg: _Segment) -> NDArray[np.uint8]:
        state = seg.state
        table, hand_face, _ = self._props(seg.game)
        placements = [camera.Placement(self._card_face(seg.game, c), self._card_corners_mm(c.slot))
                      for c in state.cards]
        placements.append(camera.Placement(self._expedition_face(seg.game, state.expedition),
                                           self._expedition_corners_mm()))
        placements.append(camera.Placement(self._board_face(seg.game, state.board), self._board_corners_mm(),
                                           glossy=False))
        if state.hand is not None:
            placements.append(camera.Placement(hand_face, self._hand_corners_mm(state.hand, state),
                                               glossy=False, height_mm=self.config.hand_height_mm))
        photo = camera.photograph(placements, self.conditions, self._rng(seg.game, 5), table=table)
        return photo.image

    def _image(self, seg: _Segment) -> NDArray[np.uint8]:
        key = (seg.game, seg.index)
        with self._lock:
            cached = self._images.get(key)
            if cached is not None:
                self._images.move_to_end(key)
                return cached
        image = self._render(seg)
        image.setflags(write=False)
        with self._lock:
            self._images[key] = image
            while len(self._images) > max(1, self.config.cache_states):
                self._images.popitem(last=False)
        return image

    def _noisy(self, image: NDArray[np.uint8], index: int) -> NDArray[np.uint8]:
        cfg = self.config
        if cfg.frame_noise_sigma <= 0 or cfg.noise_frames <= 0:
            return image.copy()
        if not self._noise or self._noise[0][0].shape != image.shape:
            rng = self._rng(99)
            self._noise = []
            for _ in range(cfg.noise_frames):
                n = rng.normal(0.0, cfg.frame_noise_sigma, image.shape)
                up, down = np.clip(n, 0, 255).astype(np.uint8), np.clip(-n, 0, 255).astype(np.uint8)
                self._noise.append((up, down))
        up, down = self._noise[index % len(self._noise)]
        return np.asarray(cv2.subtract(cv2.add(image, up), down), dtype=np.uint8)

    def image_at(self, t: float, index: int = 0, noisy: bool = True) -> NDArray[np.uint8]:
        """The frame at ``t`` seconds: ``(H, W, 3)`` BGR ``uint8``; ``index`` picks the noise pattern."""
        image = self._image(self._segment_at(t))
        return self._noisy(image, index) if noisy else image.copy()

    def frames(self, fps: float = 15.0, realtime: bool = False, stop: threading.Event | None = None,
               start: float = 0.0) -> Iterator[Frame]:
        """Endless frames from ``start`` seconds at ``fps``; paced in real time when ``realtime``.

        In real time a slow consumer skips frames (the index jumps) so the game keeps the clock's
        pace; otherwise every frame is delivered. ``stop`` (an event) ends the generator, also
        during a real-time wait.
        """
        if not fps > 0:
            raise ValueError(f"fps {fps!r}: expected a positive number")
        t0 = time.monotonic()
        i = 0
        while stop is None or not stop.is_set():
            if realtime:
                i = max(i, int((time.monotonic() - t0) * fps))
            t = start + i / fps
            if realtime:
                delay = t0 + i / fps - time.monotonic()
                if delay > 0 and stop is not None and stop.wait(delay):
                    return
                if delay > 0 and stop is None:
                    time.sleep(delay)
            yield Frame(self.image_at(t, index=i), t, i)
            i += 1

    # -- files ----------------------------------------------------------------------------------

    def write_video(self, path: str | Path, seconds: float, fps: float = 15.0,
                    progress: Callable[[int], None] | None = None) -> int:
        """Write ``seconds`` of the demo as an MJPG AVI; returns the number of frames.

        ``progress``, when given, is called with each frame index.
        """
        p = Path(path)
        writer = cv2.VideoWriter(str(p), cv2.VideoWriter.fourcc(*"MJPG"), float(fps), self.size)
        if not writer.isOpened():
            raise SourceError(f"{p}: cannot write an MJPG video here")
        n = max(1, round(seconds * fps))
        try:
            for frame in self.frames(fps=fps):
                if frame.index >= n:
                    break
                writer.write(frame.image)
                if progress is not None:
                    progress(frame.index)
        finally:
            writer.release()
        return n

    def write_y4m(self, path: str | Path, seconds: float, fps: int = 15,
                  size: tuple[int, int] | None = None) -> int:
        """Write ``seconds`` of the demo as YUV4MPEG2 (4:2:0), the format of Chromium's fake camera.

        Returns the number of frames. ``size`` (even width and height) defaults to the demo's size.
        """
        w, h = size or self.size
        if w % 2 or h % 2 or w <= 0 or h <= 0:
            raise ValueError(f"size {(w, h)!r}: width and height must be positive and even")
        n = max(1, round(seconds * fps))
        with open(path, "wb") as fh:
            fh.write(f"YUV4MPEG2 W{w} H{h} F{int(fps)}:1 Ip A1:1 C420jpeg\n".encode("ascii"))
            for frame in self.frames(fps=fps):
                if frame.index >= n:
                    break
                image = frame.image
                if image.shape[1] != w or image.shape[0] != h:
                    image = np.asarray(cv2.resize(image, (w, h), interpolation=cv2.INTER_AREA), np.uint8)
                fh.write(b"FRAME\n")
                fh.write(cv2.cvtColor(image, cv2.COLOR_BGR2YUV_I420).tobytes())
        return n


def _diff(prev: DemoState | None, cur: DemoState, t: float) -> list[TruthChange]:
    out: list[TruthChange] = []
    before = {c.id: c for c in prev.cards} if prev is not None else {}
    after = {c.id: c for c in cur.cards}
    for cid in sorted(before.keys() - after.keys()):
        out.append(TruthChange(t, "card_removed", cid))
    for cid in sorted(after.keys() - before.keys()):
        out.append(TruthChange(t, "card_appeared", cid))
    for cid in sorted(after.keys() & before.keys()):
        if after[cid].marked - before[cid].marked:
            out.append(TruthChange(t, "cells_marked", cid))
    if prev is None:
        out.append(TruthChange(t, "board_appeared", "board"))
    else:
        pairs = [(a, b) for ra, rb in zip(prev.board, cur.board, strict=True)
                 for a, b in zip(ra, rb, strict=True)]
        if any(a != "." and b == "." for a, b in pairs):
            out.append(TruthChange(t, "tokens_taken", "board"))
        if any(a == "." and b != "." for a, b in pairs):
            out.append(TruthChange(t, "board_refilled", "board"))
    if prev is None or prev.expedition != cur.expedition:
        out.append(TruthChange(t, "expedition_changed", "expedition"))
    return out
