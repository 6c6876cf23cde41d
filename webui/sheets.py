"""Silver & Gold score sheets of a session, replayed from its recorded events.

The rules decide everything: each recorded turn carries the verdict of
:func:`scoring.silver_gold.api.check` (coins crossed, palm values), and trophies are claimed by
:func:`scoring.silver_gold.game.claim_trophies` in turn order from the turn's start player. This
module only replays the bookkeeping: which turn a verdict belongs to, and the user's corrections.

A turn starts with an expedition note (``{"expedition": id}``) recorded after at least one turn
verdict of the previous expedition; a second note before any verdict corrects the expedition of
the same turn. The start player is the session's start player on turn 1 and passes to the next
seat (clockwise, in seat order) each turn. A correction ``{"seat", "set": {...}}`` overrides a
player's coins, palms or trophies; trophies set by hand are taken off the track, and trophies
removed by hand go back to it (and are not claimed again for the same rows).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

__all__ = ["silver_gold_sheets"]


def _track(session: Mapping[str, Any]) -> tuple[int, ...]:
    from scoring import fields
    from scoring.silver_gold.catalog import load_rules

    state = session.get("state") or {}
    raw = state.get("trophy_track") if isinstance(state, Mapping) else None
    if raw is None:
        return load_rules().trophy_track
    return fields.integer_list(raw, "state.trophy_track", low=0)


def silver_gold_sheets(session: Mapping[str, Any]) -> dict[str, Any]:
    """Each player's coins, palms and trophies, the trophies left and the current turn.

    Parameters
    ----------
    session : mapping
        A session as :meth:`webui.store.Store.get_session` returns it.

    Returns
    -------
    dict
        ``{"turn": n, "start_seat": seat, "track": [...], "trophies_left": [...],
        "players": {seat: {"coins", "palms", "trophies", "rows_scored"}}}`` (seats as strings);
        ``turn`` is 0 before the first expedition card.
    """
    from scoring.silver_gold.game import claim_trophies

    seats = [int(p["seat"]) for p in session["players"]]
    first = next((i for i, p in enumerate(session["players"]) if p.get("start_player")), 0)
    track = _track(session)
    sheets: dict[int, dict[str, Any]] = {
        s: {"coins": 0, "palms": [], "trophies": [], "rows_scored": 0} for s in seats}
    turn = 0
    judged = False

    def start_index() -> int:
        return (first + max(0, turn - 1)) % len(seats)

    def trophies_left() -> list[int]:
        left = Counter(track)
        for sheet in sheets.values():
            left.subtract(sheet["trophies"])
        return sorted(left.elements(), reverse=True)

    def resolve() -> None:
        k = start_index()
        order = seats[k:] + seats[:k]
        claims = claim_trophies(trophies_left(), [sheets[s]["rows_scored"] for s in order],
                                [sheets[s]["coins"] for s in order])
        for s, won, rows in zip(order, claims.trophies, claims.rows_scored, strict=True):
            sheets[s]["trophies"] = [*sheets[s]["trophies"], *won]
            sheets[s]["rows_scored"] = rows

    def seat_of(payload: Mapping[str, Any]) -> int | None:
        value = payload.get("seat")
        if isinstance(value, str) and value.isdigit():
            value = int(value)
        return value if isinstance(value, int) and value in sheets else None

    for event in session.get("events", []):
        payload = event.get("payload") or {}
        kind = event.get("kind")
        seat = seat_of(payload)
        if kind == "note" and payload.get("expedition"):
            if judged or turn == 0:
                resolve()
                turn += 1
                judged = False
        elif kind == "correction" and seat is not None and isinstance(payload.get("set"), Mapping):
            sheet, values = sheets[seat], payload["set"]
            for key in ("coins", "palms"):
                if key in values:
                    sheet[key] = values[key]
            if "trophies" in values:
                resolve()  # rows completed so far claim first; the hand's values then replace them
                sheet["trophies"] = list(values["trophies"])
                sheet["rows_scored"] = max(sheet["rows_scored"], len(sheet["trophies"]))
        elif kind == "turn" and seat is not None:
            judged = True
            verdict = payload.get("verdict") or {}
            if verdict.get("legal"):
                sheet = sheets[seat]
                sheet["coins"] += int(verdict.get("coins") or 0)
                sheet["palms"] = [*sheet["palms"], *(verdict.get("palms") or [])]
    resolve()
    return {
        "turn": turn,
        "start_seat": seats[start_index()] if seats else None,
        "track": list(track),
        "trophies_left": trophies_left(),
        "players": {str(s): sheet for s, sheet in sheets.items()},
    }
