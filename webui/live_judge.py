"""Verdicts on the live table: the tracker's confirmed changes, judged by the rules in the order
they happened.

:class:`LiveJudge` follows the events of :class:`vision.track.Tracker` (in their JSON form) and
asks the rules (the same ``check`` as ``goldtable check`` and ``POST /api/check``) about each
move:

- **Silver & Gold.** A turn starts when an expedition card is turned up. Each seat's marks since
  then, on that seat's cards, are checked as one turn against that expedition card. Marks
  confirmed in pieces (a pen stroke read a moment later) re-judge the whole turn: the new verdict
  *revises* the earlier one. Events confirmed in the same update are taken in the order they
  were first seen, so marks made just before the next expedition card was turned up stay with
  the card they were made for. When the same expedition card comes up twice in a row (the
  camera then sees no change), a seat's second legal placement starts its next turn.
- **Splendor Duel.** Each confirmed change of the board is explained by ``infer_board_change``.
  A board whose tokens mostly changed colour in place (at least ``new_board_fraction`` of the
  spots holding a token before and after) was set up for a new game: it is not a move, and it is
  reported as not judged.

Nothing here decides a rule: the verdicts are the rules' answers.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["LiveJudge"]

Cell = tuple[int, int]


@dataclass
class _Card:
    id: str | None
    seat: str | None
    marked: set[Cell] = field(default_factory=set)


def _cells(value: Any) -> set[Cell]:
    return {(int(r), int(c)) for r, c in (value or [])}


def _listed(cells: Iterable[Cell]) -> list[list[int]]:
    return [[r, c] for r, c in sorted(cells)]


def _check(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The rules' verdict; a document the rules refuse (an unknown card, a misread board) is not
    judged: ``legal`` is ``None`` and ``reason`` says why."""
    from scoring import game_entry
    from scoring.errors import ScoringError

    try:
        verdict: dict[str, Any] = game_entry(doc).check(doc)
    except ScoringError as exc:
        return {"legal": None, "reason": str(exc)}
    return verdict


class LiveJudge:
    """Judges the live tracker's events (see the module docstring).

    Parameters
    ----------
    keep : int
        How many recent verdicts :attr:`recent` keeps.
    new_board_fraction : float
        Share of the spots holding a token in both readings that must change colour for a board
        change to count as a new set-up rather than a move.
    """

    def __init__(self, keep: int = 30, new_board_fraction: float = 0.5) -> None:
        self.new_board_fraction = new_board_fraction
        self._cards: dict[str, _Card] = {}
        self._baseline: dict[str, set[Cell]] = {}   # card key -> marks when the seat's turn began
        self._expedition: str | None = None
        self._turn = 0
        self._board: tuple[str, ...] | None = None
        self._last: dict[str, dict[str, Any]] = {}   # seat -> its last verdict this turn
        self._again: dict[str, int] = {}             # seat -> turns played on a repeated expedition
        self._seq = 0
        self._moves = 0
        self.recent: deque[dict[str, Any]] = deque(maxlen=max(1, keep))

    # -- feeding ----------------------------------------------------------------------------------

    def feed(self, events: Sequence[Mapping[str, Any]],
             state: Mapping[str, Any] | None) -> list[dict[str, Any]]:
        """Take the events of one tracker update and the stable state after it.

        Parameters
        ----------
        events : sequence of mapping
            :meth:`vision.track.TrackEvent.to_json` dicts, in any order (they are taken in the
            order they were first seen, ``data["since"]``).
        state : mapping or None
            :meth:`vision.track.TableState.to_json` after the update.

        Returns
        -------
        list of dict
            New verdicts: ``{"seq", "key", "game", "who", "seat", "t", "input", "verdict",
            "revises"}``; ``revises`` is the ``seq`` of the verdict a re-judged turn replaces.
        """
        out: list[dict[str, Any]] = []
        dirty: dict[str, float] = {}
        ordered = sorted(events, key=lambda e: float((e.get("data") or {}).get("since", e.get("t", 0.0))))
        for event in ordered:
            kind = event.get("kind")
            data = event.get("data") or {}
            t = float(event.get("t", 0.0))
            key = str(data.get("card", ""))
            if kind == "expedition_changed":
                out.extend(self._flush(dirty))
                if data.get("id"):
                    self._new_turn(str(data["id"]))
            elif kind == "card_appeared":
                marked = _cells(data.get("marked"))
                self._cards[key] = _Card(data.get("id"), data.get("seat"), set(marked))
                self._baseline[key] = set(marked)
            elif kind == "card_identified":
                was = str(data.get("was", ""))
                card = self._cards.pop(was, None) or _Card(None, None)
                card.id = data.get("id")
                self._cards[key] = card
                self._baseline[key] = self._baseline.pop(was, set(card.marked))
            elif kind == "cells_marked":
                card = self._cards.setdefault(key, _Card(data.get("id"), data.get("seat")))
                self._baseline.setdefault(key, set(card.marked))
                card.id = data.get("id") or card.id
                card.seat = data.get("seat") if data.get("seat") is not None else card.seat
                card.marked |= _cells(data.get("cells"))
                dirty.setdefault(self._seat_key(card.seat), t)
            elif kind == "cells_erased":
                gone = _cells(data.get("cells"))
                if key in self._cards:
                    self._cards[key].marked -= gone
                    self._baseline[key] = self._baseline.get(key, set()) - gone
            elif kind == "card_removed":
                self._cards.pop(key, None)
                self._baseline.pop(key, None)
        out.extend(self._flush(dirty))
        if state is not None:
            out.extend(self._board_change(state, float(state.get("t", 0.0))))
        return out

    # -- Silver & Gold ----------------------------------------------------------------------------

    @staticmethod
    def _seat_key(seat: Any) -> str:
        return "table" if seat is None else str(seat)

    def _new_turn(self, expedition: str) -> None:
        self._expedition = expedition
        self._turn += 1
        self._baseline = {k: set(c.marked) for k, c in self._cards.items()}
        self._last = {}
        self._again = {}

    def _seat_cards(self, seat: str) -> list[str]:
        mine = [k for k, c in self._cards.items() if c.id and self._seat_key(c.seat) == seat]
        changed = [k for k in mine if self._cards[k].marked != self._baseline.get(k, set())]
        return (changed + [k for k in mine if k not in changed])[:2]

    def _doc(self, seat: str, before: Mapping[str, set[Cell]]) -> dict[str, Any]:
        cards = [{"id": self._cards[k].id, "before": _listed(before.get(k, set())),
                  "after": _listed(self._cards[k].marked)} for k in self._seat_cards(seat)]
        return {"game": "silver-gold", "shape": self._expedition, "cards": cards}

    def _flush(self, dirty: dict[str, float]) -> list[dict[str, Any]]:
        out = [self._judge_seat(seat, t) for seat, t in dirty.items()]
        dirty.clear()
        return out

    def _judge_seat(self, seat: str, t: float) -> dict[str, Any]:
        who = "Silver & Gold" if seat == "table" else f"Silver & Gold, seat {seat}"
        doc = self._doc(seat, self._baseline)
        if self._expedition is None:
            return self._emit(f"sg:0:{seat}", "silver-gold", who, seat, t, doc,
                              {"legal": None, "reason": "no expedition card in view yet"}, None)
        verdict = _check(doc)
        last = self._last.get(seat)
        if verdict.get("legal") is False and last is not None and last["verdict"].get("legal"):
            # the same expedition card again: the marks since the last legal turn may be the next turn
            since = {k: set(v) for k, v in last["marks"].items()}
            alone = self._doc(seat, since)
            again = _check(alone)
            if again.get("legal"):
                for k in self._seat_cards(seat):
                    self._baseline[k] = since.get(k, set())
                self._again[seat] = self._again.get(seat, 0) + 1
                last = None
                doc, verdict = alone, again
        repeat = self._again.get(seat, 0)
        key = f"sg:{self._turn}:{seat}" + (f"+{repeat}" if repeat else "")
        revises = last["seq"] if last is not None else None
        item = self._emit(key, "silver-gold", who, seat, t, doc, verdict, revises)
        self._last[seat] = {"seq": item["seq"], "verdict": verdict,
                            "marks": {k: set(c.marked) for k, c in self._cards.items()}}
        return item

    # -- Splendor Duel ----------------------------------------------------------------------------

    def _board_change(self, state: Mapping[str, Any], t: float) -> list[dict[str, Any]]:
        rows = state.get("board")
        board = tuple(str(r) for r in rows) if rows else None
        old, self._board = self._board, board
        if old is None or board is None or old == board:
            return []
        self._moves += 1
        doc = {"game": "splendor-duel", "before": list(old), "after": list(board)}
        both = [(a, b) for ra, rb in zip(old, board, strict=True) for a, b in zip(ra, rb, strict=True)
                if a not in ".?" and b not in ".?"]
        recoloured = sum(a != b for a, b in both)
        if both and recoloured >= self.new_board_fraction * len(both):
            verdict: dict[str, Any] = {"legal": None, "action": "setup",
                                       "reason": "the board was set up anew (a new game): not a move"}
        else:
            verdict = _check(doc)
        return [self._emit(f"sd:{self._moves}", "splendor-duel", "Splendor Duel board", None, t, doc,
                           verdict, None)]

    # -- output -----------------------------------------------------------------------------------

    def _emit(self, key: str, game: str, who: str, seat: str | None, t: float, doc: Mapping[str, Any],
              verdict: Mapping[str, Any], revises: int | None) -> dict[str, Any]:
        self._seq += 1
        item = {"seq": self._seq, "key": key, "game": game, "who": who, "seat": seat, "t": round(t, 3),
                "input": dict(doc), "verdict": dict(verdict), "revises": revises}
        self.recent.append(item)
        return item
