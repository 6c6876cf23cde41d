"""Live tracking: from a stream of per-frame readings to a stable table state and events.

:class:`Tracker` accepts a change only when it has been read the same way in ``min_frames``
consecutive readings spanning at least ``min_seconds`` (``min_fresh`` of them real readings, not
re-fed ones). Cards are matched across frames by id, else by position. A hand over a card (the card read as
partial, or not found for a moment) or over the board (spots read as ``?``) holds the last stable
state, so nothing flickers. Each accepted change becomes a :class:`TrackEvent` such as
"cells marked on card t12 by seat 2" or "tokens taken at (1,1),(1,2)".

:class:`LiveReader` sits in front of the tracker for video: it runs the full (slow) reader only
when a cheap thumbnail test says the picture changed and has stopped moving, every ``every_k``
frames at most, and re-feeds the last reading while the picture stays the same.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.board.doubt import keep_doubtful_kinds
from vision.config import load_config
from vision.sources import Frame
from vision.types import BoardReading, CardReading, Cell, Point, Quad, SceneReading

__all__ = [
    "LiveConfig",
    "LiveReader",
    "LiveStats",
    "TableState",
    "TrackEvent",
    "TrackUpdate",
    "TrackedCard",
    "Tracker",
    "TrackerConfig",
]

SeatOf = Callable[[Point], "str | None"]


@dataclass(frozen=True)
class TrackerConfig:
    """Stability settings (``track.json``, section ``tracker``); see the comments in that file."""

    min_frames: int = 3
    min_seconds: float = 0.5
    min_fresh: int = 2
    removal_seconds: float = 2.5
    match_radius: float = 0.06
    min_card_confidence: float = 0.3
    min_spot_confidence: float = 0.0


@dataclass(frozen=True)
class LiveConfig:
    """When :class:`LiveReader` runs the full reader (``track.json``, section ``live``)."""

    every_k: int = 5
    max_skip: int = 60
    confirm_every: int = 4
    confirm_max: int = 4
    thumb_width: int = 160
    pixel_threshold: int = 14
    change_min_pixels: int = 2
    motion_fraction: float = 0.01


def tracker_config() -> TrackerConfig:
    return load_config("track", TrackerConfig, section="tracker")


def live_config() -> LiveConfig:
    return load_config("track", LiveConfig, section="live")


def _cells(cells: Any) -> list[list[int]]:
    return [[int(r), int(c)] for r, c in sorted(cells)]


def _point(p: Point) -> list[float]:
    return [round(float(p[0]), 1), round(float(p[1]), 1)]


def _cells_text(cells: Any) -> str:
    return ",".join(f"({r},{c})" for r, c in sorted(cells))


@dataclass(frozen=True)
class TrackedCard:
    """A map card in the stable state.

    ``key`` identifies the track: the card id when it is known, else ``card@N``.
    ``centre`` and ``corners`` are image pixels; ``seat`` comes from the tracker's ``seat_of``.
    """

    key: str
    id: str | None
    colour: str | None
    marked: tuple[Cell, ...]
    complete: bool
    centre: Point
    corners: Quad
    seat: str | None = None

    @property
    def label(self) -> str:
        return self.id or self.key

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "id": self.id,
            "colour": self.colour,
            "marked": _cells(self.marked),
            "complete": self.complete,
            "centre": _point(self.centre),
            "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in self.corners],
            "seat": self.seat,
        }


@dataclass(frozen=True)
class TableState:
    """The last stable view of the table.

    ``board`` holds 5 strings of 5 letters (``WUGRKPY.``) or is ``None`` when no board is in view;
    ``t`` is the time of the last accepted change.
    """

    cards: tuple[TrackedCard, ...] = ()
    board: tuple[str, ...] | None = None
    expedition: str | None = None
    t: float = 0.0

    def card(self, key: str) -> TrackedCard | None:
        """The card tracked under ``key`` (its id, or ``card@N``)."""
        return next((c for c in self.cards if c.key == key), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "cards": [c.to_json() for c in self.cards],
            "board": list(self.board) if self.board is not None else None,
            "expedition": self.expedition,
            "t": round(float(self.t), 3),
        }


@dataclass(frozen=True)
class TrackEvent:
    """One accepted change.

    ``kind`` is one of ``card_appeared``, ``card_removed``, ``card_identified``, ``cells_marked``,
    ``cells_erased``, ``card_completed``, ``board_appeared``, ``board_removed``, ``tokens_taken``,
    ``board_refilled``, ``tokens_changed``, ``expedition_changed``. ``t`` is when it was accepted;
    ``data["since"]`` is when the change was first read. ``data`` is JSON-able.
    """

    kind: str
    t: float
    data: dict[str, Any] = field(compare=True)
    message: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "t": round(float(self.t), 3), "data": self.data, "message": self.message}


@dataclass(frozen=True)
class TrackUpdate:
    """What one :meth:`Tracker.update` produced: the stable state and the new events.

    ``analysed`` is false when :class:`LiveReader` reused the last reading for this frame.
    """

    state: TableState
    events: tuple[TrackEvent, ...] = ()
    analysed: bool = True


@dataclass
class _Candidate:
    """A change seen in consecutive readings (mutable tracker bookkeeping)."""

    value: Any
    first_t: float
    count: int = 1
    fresh: int = 1


@dataclass
class _Pending:
    """A card that is not (yet) part of the stable state."""

    key: str
    centre: Point
    cand: _Candidate
    reading: CardReading


def _centre(q: Quad) -> Point:
    return (sum(p[0] for p in q) / 4.0, sum(p[1] for p in q) / 4.0)


class Tracker:
    """Turns per-frame :class:`SceneReading` objects into a stable :class:`TableState` and events.

    Parameters
    ----------
    config : TrackerConfig, optional
        Defaults from ``track.json``.
    seat_of : callable, optional
        ``seat_of((x, y)) -> str | None`` names the seat whose zone holds an image point; cards
        and their ``cells_marked`` events carry that seat.
    """

    def __init__(self, config: TrackerConfig | None = None, seat_of: SeatOf | None = None) -> None:
        self.config = config or tracker_config()
        self.seat_of = seat_of
        self.reset()

    def reset(self) -> None:
        """Forget everything (a new game)."""
        self._state = TableState()
        self._card_cands: dict[str, _Candidate] = {}
        self._missing: dict[str, _Candidate] = {}
        self._pending: list[_Pending] = []
        self._next_anon = 1
        self._board_cand: _Candidate | None = None
        self._exp_cand: _Candidate | None = None
        self._fresh = 1

    @property
    def state(self) -> TableState:
        """The last stable state."""
        return self._state

    @property
    def confirming(self) -> bool:
        """True while a new reading waits for more fresh readings (vanished things not counted)."""
        need = min(self.config.min_fresh, self.config.min_frames)
        cands = [*self._card_cands.values(), *(p.cand for p in self._pending), self._board_cand,
                 self._exp_cand]
        return any(c is not None and c.fresh < need for c in cands)

    @property
    def pending(self) -> bool:
        """True while some change is being confirmed (or something vanished and may be removed)."""
        return bool(self._card_cands or self._pending or self._missing
                    or self._board_cand is not None or self._exp_cand is not None)

    # -- stability ------------------------------------------------------------------------------

    def _stable(self, cand: _Candidate, t: float, seconds: float | None = None) -> bool:
        need = self.config.min_seconds if seconds is None else seconds
        return (cand.count >= self.config.min_frames and cand.fresh >= min(self.config.min_fresh,
                                                                            self.config.min_frames)
                and t - cand.first_t >= need)

    def _observe(self, cand: _Candidate | None, value: Any, t: float) -> _Candidate:
        if cand is not None and cand.value == value:
            cand.count += 1
            cand.fresh += self._fresh
            return cand
        return _Candidate(value, t, 1, self._fresh)

    def _seat(self, point: Point) -> str | None:
        return self.seat_of(point) if self.seat_of is not None else None

    # -- the update -----------------------------------------------------------------------------

    def update(self, reading: SceneReading, t: float, fresh: bool = True) -> TrackUpdate:
        """Feed one reading taken at time ``t`` (seconds, non-decreasing).

        ``fresh=False`` marks a reading reused for a frame that did not change since it was read
        (see :class:`LiveReader`): it counts towards ``min_frames`` and ``min_seconds``, but a
        change also needs ``min_fresh`` readings the reader really made.

        Returns
        -------
        TrackUpdate
            The stable state after this reading and the events it caused (usually none).
        """
        self._fresh = 1 if fresh else 0
        events: list[TrackEvent] = []
        diag = math.hypot(reading.width, reading.height) or 1.0
        cards = self._update_cards(reading.cards, t, self.config.match_radius * diag, events)
        board = self._update_board(reading.board, t, events)
        expedition = self._update_expedition(reading, t, events)
        if events:
            self._state = TableState(cards=cards, board=board, expedition=expedition, t=t)
        elif cards != self._state.cards:
            self._state = replace(self._state, cards=cards)
        return TrackUpdate(self._state, tuple(events))

    # -- cards ----------------------------------------------------------------------------------

    def _match(self, r: CardReading, stable: dict[str, TrackedCard], used: set[str],
               radius: float) -> str | None:
        if r.id is not None and r.id in stable and r.id not in used:
            return r.id
        c = _centre(r.corners)
        best, best_d = None, radius
        for key, card in stable.items():
            if key in used or (r.id is not None and card.id is not None and card.id != r.id):
                continue
            d = math.dist(c, card.centre)
            if d <= best_d:
                best, best_d = key, d
        return best

    def _card_value(self, r: CardReading, held: TrackedCard | None) -> tuple[Any, ...]:
        seen = set(r.marked) - set(r.uncertain)
        if held is not None:
            seen |= set(held.marked) & set(r.uncertain)
        return (r.id, tuple(sorted(seen)), bool(r.complete))

    def _usable(self, r: CardReading, held: TrackedCard | None = None) -> bool:
        """Whether a reading may change the state. An unidentified reading cannot change a card
        known by id (its cells are in another frame), but may start or update an anonymous one."""
        if r.partial:
            return False
        if r.id is None:
            return held is None or held.id is None
        return r.confidence >= self.config.min_card_confidence

    def _update_cards(self, readings: tuple[CardReading, ...], t: float, radius: float,
                      events: list[TrackEvent]) -> tuple[TrackedCard, ...]:
        stable = {c.key: c for c in self._state.cards}
        used: set[str] = set()
        seen: dict[str, CardReading] = {}
        held: set[str] = set()
        fresh: list[CardReading] = []
        for r in readings:
            key = self._match(r, stable, used, radius)
            if key is None:
                # a second reading of a card already seen elsewhere in this frame is ignored
                duplicate = r.id is not None and (r.id in stable or any(f.id == r.id for f in fresh))
                if self._usable(r) and not duplicate:
                    fresh.append(r)
                continue
            used.add(key)
            if self._usable(r, stable[key]):
                seen[key] = r
            else:
                held.add(key)
        out: dict[str, TrackedCard] = {}
        for key, card in stable.items():
            if key in seen:
                r = seen[key]
                self._missing.pop(key, None)
                value = self._card_value(r, card)
                moved = replace(card, centre=_centre(r.corners), corners=r.corners)
                if value == (card.id, card.marked, card.complete):
                    self._card_cands.pop(key, None)
                    out[key] = moved
                    continue
                cand = self._observe(self._card_cands.get(key), value, t)
                self._card_cands[key] = cand
                if self._stable(cand, t):
                    del self._card_cands[key]
                    new = replace(moved, id=value[0], marked=value[1], complete=value[2],
                                  colour=r.colour or card.colour)
                    if new.id is not None and new.id != key and new.id not in stable:
                        new = replace(new, key=new.id)
                    events.extend(self._card_events(card, new, t, cand.first_t))
                    out[new.key] = new
                else:
                    out[key] = moved
            elif key in held:
                self._missing.pop(key, None)
                self._card_cands.pop(key, None)
                out[key] = card
            else:
                self._card_cands.pop(key, None)
                gone = self._observe(self._missing.get(key), None, t)
                self._missing[key] = gone
                if self._stable(gone, t, self.config.removal_seconds):
                    del self._missing[key]
                    events.append(self._removed(card, t, gone.first_t))
                else:
                    out[key] = card
        self._update_pending(fresh, t, radius, out, events)
        return tuple(sorted(out.values(), key=lambda c: c.key))

    def _update_pending(self, fresh: list[CardReading], t: float, radius: float,
                        out: dict[str, TrackedCard], events: list[TrackEvent]) -> None:
        still: list[_Pending] = []
        taken: set[int] = set()
        for r in fresh:
            c = _centre(r.corners)
            match = None
            for i, p in enumerate(self._pending):
                same_id = r.id is not None and p.reading.id == r.id
                if i not in taken and (same_id or math.dist(p.centre, c) <= radius):
                    match = i
                    break
            value = self._card_value(r, None)
            if match is None:
                key = r.id if r.id is not None and r.id not in out else self._anon_key()
                pend = _Pending(key, c, _Candidate(value, t), r)
            else:
                taken.add(match)
                pend = self._pending[match]
                pend.cand = self._observe(pend.cand, value, t)
                pend.centre, pend.reading = c, r
            if self._stable(pend.cand, t) and pend.key not in out:
                card = TrackedCard(key=pend.key, id=r.id, colour=r.colour, marked=value[1],
                                   complete=value[2], centre=c, corners=r.corners, seat=self._seat(c))
                # a new card lying where a vanished one was replaces it at once
                for old_key, old in list(out.items()):
                    if old_key in self._missing and math.dist(old.centre, c) <= radius:
                        del out[old_key]
                        gone = self._missing.pop(old_key)
                        events.append(self._removed(old, t, gone.first_t))
                out[card.key] = card
                events.append(self._appeared(card, t, pend.cand.first_t))
            else:
                still.append(pend)
        self._pending = still

    def _anon_key(self) -> str:
        key = f"card@{self._next_anon}"
        self._next_anon += 1
        return key

    def _appeared(self, card: TrackedCard, t: float, since: float) -> TrackEvent:
        where = f" at seat {card.seat}" if card.seat is not None else ""
        data = {"card": card.key, "id": card.id, "colour": card.colour, "marked": _cells(card.marked),
                "seat": card.seat, "centre": _point(card.centre), "since": round(since, 3)}
        return TrackEvent("card_appeared", t, data, f"card {card.label} appeared{where}")

    def _removed(self, card: TrackedCard, t: float, since: float) -> TrackEvent:
        data = {"card": card.key, "id": card.id, "marked": _cells(card.marked), "complete": card.complete,
                "seat": card.seat, "centre": _point(card.centre), "since": round(since, 3)}
        return TrackEvent("card_removed", t, data, f"card {card.label} removed")

    def _card_events(self, old: TrackedCard, new: TrackedCard, t: float, since: float) -> list[TrackEvent]:
        out: list[TrackEvent] = []
        base = {"card": new.key, "id": new.id, "centre": _point(new.centre), "since": round(since, 3)}
        if old.id is None and new.id is not None:
            out.append(TrackEvent("card_identified", t, {**base, "was": old.key},
                                  f"card {old.key} identified as {new.id}"))
        added = set(new.marked) - set(old.marked)
        erased = set(old.marked) - set(new.marked)
        if added:
            seat = self._seat(new.centre)
            who = f" by seat {seat}" if seat is not None else ""
            out.append(TrackEvent("cells_marked", t,
                                  {**base, "cells": _cells(added), "seat": seat, "complete": new.complete},
                                  f"cells marked on card {new.label}{who}: {_cells_text(added)}"))
        if erased:
            out.append(TrackEvent("cells_erased", t, {**base, "cells": _cells(erased)},
                                  f"cells erased on card {new.label}: {_cells_text(erased)}"))
        if new.complete and not old.complete:
            out.append(TrackEvent("card_completed", t, {**base, "seat": new.seat},
                                  f"card {new.label} completed"))
        return out

    # -- board ----------------------------------------------------------------------------------

    def _update_board(self, board: BoardReading | None, t: float,
                      events: list[TrackEvent]) -> tuple[str, ...] | None:
        old = self._state.board
        if board is None:
            self._board_cand = None
            if old is None:
                self._missing.pop("@board", None)
                return None
            gone = self._observe(self._missing.get("@board"), None, t)
            self._missing["@board"] = gone
            if self._stable(gone, t, self.config.removal_seconds):
                del self._missing["@board"]
                events.append(TrackEvent("board_removed", t, {"since": round(gone.first_t, 3)},
                                         "board removed"))
                return None
            return old
        self._missing.pop("@board", None)
        low = self.config.min_spot_confidence
        occluded = bool(board.unknown) or any("?" in row for row in board.cells) or (
            low > 0 and any(v < low for row in board.confidence for v in row))
        if occluded:
            self._board_cand = None
            return old
        value = tuple(board.cells)
        if old is not None and board.doubtful:
            # a doubtful kind shows no change of kind (a white or a pearl under a strong cast)
            value = keep_doubtful_kinds(old, value, board.doubtful)
        if value == old:
            self._board_cand = None
            return old
        cand = self._observe(self._board_cand, value, t)
        self._board_cand = cand
        if not self._stable(cand, t):
            return old
        self._board_cand = None
        events.extend(self._board_events(old, value, t, cand.first_t))
        return value

    @staticmethod
    def _board_events(old: tuple[str, ...] | None, new: tuple[str, ...], t: float,
                      since: float) -> list[TrackEvent]:
        s = round(since, 3)
        if old is None:
            count = sum(ch != "." for row in new for ch in row)
            return [TrackEvent("board_appeared", t, {"cells": list(new), "since": s},
                               f"board in view with {count} tokens")]
        taken, placed, changed = [], [], []
        for r, (a, b) in enumerate(zip(old, new, strict=True)):
            for c, (x, y) in enumerate(zip(a, b, strict=True)):
                if x == y:
                    continue
                if y == ".":
                    taken.append(((r, c), x))
                elif x == ".":
                    placed.append(((r, c), y))
                else:
                    changed.append(((r, c), x, y))
        out: list[TrackEvent] = []
        if taken:
            cells = [rc for rc, _ in taken]
            out.append(TrackEvent("tokens_taken", t,
                                  {"cells": _cells(cells), "tokens": [tok for _, tok in sorted(taken)],
                                   "since": s},
                                  f"tokens taken at {_cells_text(cells)}"))
        if placed:
            cells = [rc for rc, _ in placed]
            out.append(TrackEvent("board_refilled", t,
                                  {"cells": _cells(cells), "tokens": [tok for _, tok in sorted(placed)],
                                   "since": s},
                                  f"board refilled: {len(placed)} tokens placed"))
        if changed:
            cells = [rc for rc, _, _ in changed]
            out.append(TrackEvent("tokens_changed", t,
                                  {"cells": _cells(cells), "from": [a for _, a, _ in sorted(changed)],
                                   "to": [b for _, _, b in sorted(changed)], "since": s},
                                  f"tokens changed at {_cells_text(cells)}"))
        return out

    # -- expedition -----------------------------------------------------------------------------

    def _update_expedition(self, reading: SceneReading, t: float, events: list[TrackEvent]) -> str | None:
        old = self._state.expedition
        exp = reading.expedition
        if exp is None:
            self._exp_cand = None
            if old is None:
                self._missing.pop("@expedition", None)
                return None
            gone = self._observe(self._missing.get("@expedition"), None, t)
            self._missing["@expedition"] = gone
            if not self._stable(gone, t, self.config.removal_seconds):
                return old
            del self._missing["@expedition"]
            data: dict[str, Any] = {"id": None, "previous": old, "cells": [], "since": round(gone.first_t, 3)}
            events.append(TrackEvent("expedition_changed", t, data, f"expedition card {old} taken away"))
            return None
        self._missing.pop("@expedition", None)
        if exp.id == old:
            self._exp_cand = None
            return old
        cand = self._observe(self._exp_cand, exp.id, t)
        self._exp_cand = cand
        if not self._stable(cand, t):
            return old
        self._exp_cand = None
        was = f" (was {old})" if old is not None else ""
        events.append(TrackEvent("expedition_changed", t,
                                 {"id": exp.id, "previous": old, "cells": _cells(exp.cells),
                                  "since": round(cand.first_t, 3)},
                                 f"expedition card {exp.id} turned up{was}"))
        return exp.id


# -- the live reader ------------------------------------------------------------------------------


def _signature(reading: SceneReading, min_confidence: float) -> tuple[Any, ...]:
    """What the tracker cares about in a reading (positions left out)."""
    cards = tuple(sorted((c.id or "", tuple(sorted(c.marked)), tuple(sorted(c.uncertain)), c.partial,
                          c.complete, c.confidence >= min_confidence) for c in reading.cards))
    board = tuple(reading.board.cells) if reading.board is not None else None
    expedition = reading.expedition.id if reading.expedition is not None else None
    return (cards, board, expedition)


@dataclass(frozen=True)
class LiveStats:
    """Counters of a :class:`LiveReader`: frames seen, readings run, and total ms per stage."""

    frames: int
    analysed: int
    stage_ms: dict[str, float]

    def mean_ms(self) -> dict[str, float]:
        """Mean milliseconds per frame for each stage."""
        n = max(1, self.frames)
        return {k: v / n for k, v in self.stage_ms.items()}


class LiveReader:
    """Runs the full reader on some frames and cheap change detection on the others.

    Parameters
    ----------
    analyze_fn : callable
        ``analyze_fn(image) -> SceneReading`` for a ``(H, W, 3)`` ``uint8`` BGR image, for example
        ``functools.partial(vision.analyze.analyze, game="auto", profile=p)``.
    tracker : Tracker
        Receives every fresh reading, and the last reading again for unchanged frames.
    every_k : int, optional
        Minimum number of frames between two readings of a changed picture (``live.every_k``).
    config : LiveConfig, optional

    A frame is analysed when it is the first one; when ``max_skip`` frames passed; when the tracker
    waits for a fresh confirmation of a change, or the last two readings disagreed, and
    ``confirm_every`` frames passed (at most ``confirm_max`` times in a row, so a reader that keeps
    changing its mind cannot make every frame slow); or when ``every_k`` frames passed and the
    thumbnail differs from the last analysed one while the picture has stopped moving.

    ``last_reading`` is the latest full reading (for overlays); :meth:`reset` forgets the picture
    (after a reconnect), keeping the tracker's state.
    """

    def __init__(self, analyze_fn: Callable[[NDArray[np.uint8]], SceneReading], tracker: Tracker,
                 every_k: int | None = None, config: LiveConfig | None = None) -> None:
        self.config = config or live_config()
        self.every_k = int(every_k if every_k is not None else self.config.every_k)
        if self.every_k < 1:
            raise ValueError("every_k must be at least 1")
        self.analyze_fn = analyze_fn
        self.tracker = tracker
        self.last_reading: SceneReading | None = None
        self._ref: NDArray[np.uint8] | None = None
        self._prev: NDArray[np.uint8] | None = None
        self._since = 0
        self._confirms = 0
        self._unsure = False
        self._signature: tuple[Any, ...] | None = None
        self._frames = 0
        self._analysed = 0
        self._ms: dict[str, float] = {"thumb": 0.0, "analyze": 0.0, "track": 0.0}

    def _thumb(self, image: NDArray[np.uint8]) -> NDArray[np.uint8]:
        h, w = image.shape[:2]
        tw = min(self.config.thumb_width, w)
        th = max(1, round(h * tw / w))
        small = cv2.resize(image, (tw, th), interpolation=cv2.INTER_AREA)
        grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY) if small.ndim == 3 else small
        return np.asarray(grey, dtype=np.uint8)

    def _changed(self, a: NDArray[np.uint8], b: NDArray[np.uint8] | None) -> int:
        if b is None or a.shape != b.shape:
            return a.size
        return int(np.count_nonzero(cv2.absdiff(a, b) > self.config.pixel_threshold))

    def _schedule(self, thumb: NDArray[np.uint8]) -> str:
        """``"analyse"``, ``"reuse"`` (the picture is still the analysed one) or ``"hold"``."""
        cfg = self.config
        if self._ref is None or self._since >= cfg.max_skip:
            self._confirms = 0
            return "analyse"
        moving = self._changed(thumb, self._prev) > cfg.motion_fraction * thumb.size
        changed = self._changed(thumb, self._ref) >= cfg.change_min_pixels
        if ((self.tracker.confirming or self._unsure) and self._since >= cfg.confirm_every
                and self._confirms < cfg.confirm_max):
            self._confirms += 1
            return "analyse"
        if changed and not moving and self._since >= self.every_k:
            self._confirms = 0
            return "analyse"
        return "reuse" if not changed and not moving else "hold"

    def should_analyse(self, thumb: NDArray[np.uint8]) -> bool:
        """The scheduling rule (see the class docstring) for a frame's grey thumbnail."""
        return self._schedule(thumb) == "analyse"

    def process(self, frame: Frame) -> TrackUpdate:
        """Handle one frame; returns the tracker's stable state and any new events.

        Between full readings, a frame whose thumbnail still matches the last analysed frame
        re-feeds the last reading to the tracker (so stability time passes), and a frame that
        moves or changed waits for the next reading.
        """
        t0 = time.perf_counter()
        thumb = self._thumb(frame.image)
        action = self._schedule(thumb)
        self._prev = thumb
        self._frames += 1
        t1 = time.perf_counter()
        self._ms["thumb"] += (t1 - t0) * 1000.0
        if action != "analyse":
            self._since += 1
            if action == "hold" or self.last_reading is None:
                return TrackUpdate(self.tracker.state, (), analysed=False)
            update = self.tracker.update(self.last_reading, frame.timestamp, fresh=False)
            self._ms["track"] += (time.perf_counter() - t1) * 1000.0
            return replace(update, analysed=False)
        reading = self.analyze_fn(frame.image)
        t2 = time.perf_counter()
        self._ms["analyze"] += (t2 - t1) * 1000.0
        for stage, ms in reading.stage_ms.items():
            self._ms[f"analyze.{stage}"] = self._ms.get(f"analyze.{stage}", 0.0) + ms
        self.last_reading = reading
        signature = _signature(reading, self.tracker.config.min_card_confidence)
        # two readings of the same picture that disagree: the reader is unsure, read again soon
        self._unsure = action == "analyse" and self._signature is not None and signature != self._signature
        self._signature = signature
        self._ref = thumb
        self._since = 1
        self._analysed += 1
        update = self.tracker.update(reading, frame.timestamp)
        self._ms["track"] += (time.perf_counter() - t2) * 1000.0
        return update

    def reset(self) -> None:
        """Forget the reference picture, so the next frame is read in full."""
        self._ref = None
        self._prev = None
        self._since = 0
        self._confirms = 0
        self._unsure = False
        self._signature = None

    def stats(self) -> LiveStats:
        """A snapshot of the counters."""
        return LiveStats(self._frames, self._analysed, dict(self._ms))
