"""Games, players, events and final results in SQLite.

The database runs in WAL mode with ``synchronous=FULL``; every public method that writes runs in a
single ``BEGIN IMMEDIATE`` transaction, so a request either records all it meant to or nothing,
and a server killed mid-game restarts with every committed turn in place.

Each call opens its own short-lived connection, so one :class:`Store` is safe to share between
request threads and the capture thread.
"""

from __future__ import annotations

import csv
import io
import json
import os
import sqlite3
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from webui import InvalidField, NotFound

__all__ = ["EVENT_KINDS", "GAMES", "Store", "StoreLimits", "default_db_path", "validate_players"]

GAMES: tuple[str, ...] = ("silver-gold", "splendor-duel", "fools-gold", "valdora", "my-gold-mine")
EVENT_KINDS: tuple[str, ...] = ("setup", "turn", "move", "correction", "reading", "note", "finish")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'finished')),
    created REAL NOT NULL,
    updated REAL NOT NULL,
    state TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS players (
    session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    seat INTEGER NOT NULL,
    name TEXT NOT NULL,
    start_player INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (session_id, seat)
);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    created REAL NOT NULL,
    UNIQUE (session_id, seq)
);
CREATE TABLE IF NOT EXISTS results (
    session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    seat INTEGER NOT NULL,
    name TEXT NOT NULL,
    score REAL,
    rank INTEGER,
    winner INTEGER NOT NULL DEFAULT 0,
    breakdown TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (session_id, seat)
);
"""


@dataclass(frozen=True)
class StoreLimits:
    """Size limits applied to what a request may store."""

    max_players: int = 6
    max_name_length: int = 40
    max_payload_bytes: int = 65536


def default_db_path() -> Path:
    """``$XDG_DATA_HOME/goldtable/goldtable.db``, with ``~/.local/share`` when the variable is unset."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "goldtable" / "goldtable.db"


def _now() -> float:
    return time.time()


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, tz=UTC).strftime("%Y-%m-%d %H:%M:%S")


def _dump(value: Any, field: str, limit: int) -> str:
    if not isinstance(value, Mapping):
        raise InvalidField(field, "expected a JSON object")
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False, sort_keys=True)
    except (TypeError, ValueError) as exc:
        raise InvalidField(field, f"not storable as JSON ({exc})") from exc
    if len(text.encode("utf-8")) > limit:
        raise InvalidField(field, f"larger than {limit} bytes")
    return text


def validate_players(players: Any, limits: StoreLimits) -> list[dict[str, Any]]:
    """Check a list of ``{"name", "seat"?, "start_player"?}`` and fill in seats 1, 2, ...

    Raises
    ------
    InvalidField
        Naming the offending entry, e.g. ``players[1].name``.
    """
    if not isinstance(players, list) or not players:
        raise InvalidField("players", "expected a non-empty list of players")
    if len(players) > limits.max_players:
        raise InvalidField("players", f"at most {limits.max_players} players")
    out: list[dict[str, Any]] = []
    seats: set[int] = set()
    starts = 0
    for i, p in enumerate(players):
        where = f"players[{i}]"
        if not isinstance(p, Mapping):
            raise InvalidField(where, "expected an object with a name")
        name = p.get("name")
        if not isinstance(name, str) or not name.strip():
            raise InvalidField(f"{where}.name", "a non-empty name is required")
        name = " ".join(name.split())
        if len(name) > limits.max_name_length:
            raise InvalidField(f"{where}.name", f"at most {limits.max_name_length} characters")
        seat = p.get("seat", i + 1)
        if isinstance(seat, str) and seat.strip().isdigit():
            seat = int(seat)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= limits.max_players:
            raise InvalidField(f"{where}.seat", f"expected a seat number from 1 to {limits.max_players}")
        if seat in seats:
            raise InvalidField(f"{where}.seat", f"seat {seat} is taken twice")
        seats.add(seat)
        start = p.get("start_player", False)
        if not isinstance(start, bool):
            raise InvalidField(f"{where}.start_player", "expected true or false")
        starts += start
        out.append({"seat": seat, "name": name, "start_player": start})
    if starts > 1:
        raise InvalidField("players", "only one start player")
    names = [p["name"].casefold() for p in out]
    if len(set(names)) != len(names):
        raise InvalidField("players", "two players have the same name")
    return out


class Store:
    """The session database at ``path`` (created with its folder when missing).

    Parameters
    ----------
    path : str or Path
        The SQLite file.
    limits : StoreLimits, optional
        Size limits for stored names and payloads.
    """

    def __init__(self, path: str | Path, limits: StoreLimits | None = None) -> None:
        self.path = Path(path)
        self.limits = limits or StoreLimits()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InvalidField("DATABASE", f"{self.path.parent}: cannot create the folder ({exc})") from exc
        with self._read() as conn:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.executescript(_SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(self.path, timeout=10.0, isolation_level=None)
        except sqlite3.Error as exc:
            raise InvalidField("DATABASE", f"{self.path}: cannot open ({exc})") from exc
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute("PRAGMA foreign_keys=ON")
        return conn

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        conn = self._connect()
        try:
            yield conn
        finally:
            conn.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` transaction: committed on success, rolled back on any error."""
        conn = self._connect()
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        finally:
            conn.close()

    # -- sessions ---------------------------------------------------------------------------------

    def create_session(
        self,
        game: str,
        players: Any,
        state: Mapping[str, Any] | None = None,
        final: tuple[Mapping[str, Any], Mapping[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """Create a game session with its players; returns it as :meth:`get_session` does.

        ``final`` = ``(scored, document)`` records a finished game in the same transaction
        (a score pad saved to the history), as :meth:`finish` would.
        """
        if game not in GAMES:
            raise InvalidField("game", f"unknown game {game!r}; expected one of {', '.join(GAMES)}")
        checked = validate_players(players, self.limits)
        state_text = _dump(state or {}, "state", self.limits.max_payload_bytes)
        final_text = self._final_payload(*final) if final is not None else None
        now = _now()
        with self._write() as conn:
            cur = conn.execute(
                "INSERT INTO sessions (game, status, created, updated, state) VALUES (?, 'active', ?, ?, ?)",
                (game, now, now, state_text),
            )
            sid = int(cur.lastrowid or 0)
            conn.executemany(
                "INSERT INTO players (session_id, seat, name, start_player) VALUES (?, ?, ?, ?)",
                [(sid, p["seat"], p["name"], int(p["start_player"])) for p in checked],
            )
            conn.execute(
                "INSERT INTO events (session_id, seq, kind, payload, created) VALUES (?, 1, 'setup', ?, ?)",
                (sid, json.dumps({"players": checked}, ensure_ascii=False), now),
            )
            if final is not None and final_text is not None:
                self._finish(conn, sid, final[0], final_text, now)
        return self.get_session(sid)

    def _session_row(self, conn: sqlite3.Connection, session_id: int) -> sqlite3.Row:
        row = conn.execute("SELECT * FROM sessions WHERE id = ?", (session_id,)).fetchone()
        if row is None:
            raise NotFound(f"no session {session_id}")
        return row

    def get_session(self, session_id: int) -> dict[str, Any]:
        """The session with its players, events (oldest first), state and results.

        Raises
        ------
        NotFound
            When there is no such session.
        """
        with self._read() as conn:
            row = self._session_row(conn, session_id)
            players = conn.execute(
                "SELECT seat, name, start_player FROM players WHERE session_id = ? ORDER BY seat",
                (session_id,),
            ).fetchall()
            events = conn.execute(
                "SELECT seq, kind, payload, created FROM events WHERE session_id = ? ORDER BY seq",
                (session_id,),
            ).fetchall()
            results = conn.execute(
                "SELECT seat, name, score, rank, winner, breakdown FROM results WHERE session_id = ? "
                "ORDER BY rank, seat",
                (session_id,),
            ).fetchall()
        return {
            "id": int(row["id"]),
            "game": row["game"],
            "status": row["status"],
            "created": _iso(row["created"]),
            "updated": _iso(row["updated"]),
            "players": [
                {"seat": p["seat"], "name": p["name"], "start_player": bool(p["start_player"])}
                for p in players
            ],
            "state": json.loads(row["state"]),
            "events": [
                {"seq": e["seq"], "kind": e["kind"], "payload": json.loads(e["payload"]),
                 "at": _iso(e["created"])}
                for e in events
            ],
            "results": [
                {
                    "seat": r["seat"],
                    "name": r["name"],
                    "score": r["score"],
                    "rank": r["rank"],
                    "winner": bool(r["winner"]),
                    "breakdown": json.loads(r["breakdown"]),
                }
                for r in results
            ],
        }

    def list_sessions(self, limit: int = 50, offset: int = 0) -> list[dict[str, Any]]:
        """Sessions, newest first, each with players and (when finished) winners; no events."""
        with self._read() as conn:
            rows = conn.execute(
                "SELECT id, game, status, created, updated FROM sessions ORDER BY id DESC LIMIT ? OFFSET ?",
                (int(limit), int(offset)),
            ).fetchall()
            out = []
            for row in rows:
                names = [
                    r["name"]
                    for r in conn.execute(
                        "SELECT name FROM players WHERE session_id = ? ORDER BY seat", (row["id"],)
                    )
                ]
                winners = [
                    r["name"]
                    for r in conn.execute(
                        "SELECT name FROM results WHERE session_id = ? AND winner = 1 ORDER BY seat",
                        (row["id"],),
                    )
                ]
                turns = conn.execute(
                    "SELECT COUNT(*) FROM events WHERE session_id = ? AND kind IN ('turn', 'move')",
                    (row["id"],),
                ).fetchone()[0]
                out.append({
                    "id": int(row["id"]),
                    "game": row["game"],
                    "status": row["status"],
                    "created": _iso(row["created"]),
                    "updated": _iso(row["updated"]),
                    "players": names,
                    "winners": winners,
                    "turns": int(turns),
                })
        return out

    # -- events and state -------------------------------------------------------------------------

    def add_event(
        self,
        session_id: int,
        kind: str,
        payload: Mapping[str, Any],
        state: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Append an event and, in the same transaction, merge ``state`` (top-level keys) into the
        session state. Returns the stored event.

        Raises
        ------
        InvalidField
            For an unknown kind or an oversized payload/state.
        NotFound
            When there is no such session.
        """
        if kind not in EVENT_KINDS or kind == "finish":
            known = ", ".join(EVENT_KINDS[:-1])
            raise InvalidField("kind", f"unknown event kind {kind!r}; expected one of {known}")
        text = _dump(payload, "payload", self.limits.max_payload_bytes)
        if state is not None:
            _dump(state, "state", self.limits.max_payload_bytes)
        now = _now()
        with self._write() as conn:
            row = self._session_row(conn, session_id)
            if row["status"] != "active":
                raise InvalidField("session", f"session {session_id} is finished")
            seq = self._append(conn, session_id, kind, text, now)
            if state is not None:
                merged = json.loads(row["state"])
                merged.update(state)
                merged_text = _dump(merged, "state", self.limits.max_payload_bytes)
                conn.execute("UPDATE sessions SET state = ? WHERE id = ?", (merged_text, session_id))
        return {"seq": seq, "kind": kind, "payload": json.loads(text), "at": _iso(now)}

    @staticmethod
    def _append(conn: sqlite3.Connection, session_id: int, kind: str, text: str, now: float) -> int:
        seq = int(conn.execute(
            "SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE session_id = ?", (session_id,)
        ).fetchone()[0])
        conn.execute(
            "INSERT INTO events (session_id, seq, kind, payload, created) VALUES (?, ?, ?, ?, ?)",
            (session_id, seq, kind, text, now),
        )
        conn.execute("UPDATE sessions SET updated = ? WHERE id = ?", (now, session_id))
        return seq

    def finish(
        self, session_id: int, scored: Mapping[str, Any], document: Mapping[str, Any]
    ) -> dict[str, Any]:
        """Store the final results of a session and mark it finished, in one transaction.

        ``scored`` is the output of ``scoring`` (``players[{name, total, rank, breakdown}]``,
        ``winners``); ``document`` the input it was computed from (kept in the ``finish`` event).
        Finishing again replaces the results (a correction after the fact).
        """
        payload = self._final_payload(scored, document)
        now = _now()
        with self._write() as conn:
            self._session_row(conn, session_id)
            self._finish(conn, session_id, scored, payload, now)
        return self.get_session(session_id)

    def _final_payload(self, scored: Mapping[str, Any], document: Mapping[str, Any]) -> str:
        if not isinstance(scored.get("players"), list):
            raise InvalidField("players", "the score has no players list")
        return _dump({"input": dict(document), "result": dict(scored)}, "document",
                     self.limits.max_payload_bytes * 4)

    def _finish(self, conn: sqlite3.Connection, session_id: int, scored: Mapping[str, Any],
                payload: str, now: float) -> None:
        players = scored["players"]
        winners = set(scored.get("winners") or [])
        seats = {
            r["name"].casefold(): int(r["seat"])
            for r in conn.execute("SELECT seat, name FROM players WHERE session_id = ?", (session_id,))
        }
        conn.execute("DELETE FROM results WHERE session_id = ?", (session_id,))
        used = set(seats.values())
        for i, p in enumerate(players):
            name = str(p.get("name", f"player {i + 1}"))
            seat = seats.get(name.casefold())
            if seat is None:
                seat = max(used, default=0) + 1
                used.add(seat)
            total = p.get("total")
            rank = p.get("rank")
            conn.execute(
                "INSERT INTO results (session_id, seat, name, score, rank, winner, breakdown) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (session_id, seat, name, total if isinstance(total, int | float) else None,
                 rank if isinstance(rank, int) else None, int(name in winners),
                 json.dumps(p.get("breakdown", {}), ensure_ascii=False)),
            )
        self._append(conn, session_id, "finish", payload, now)
        conn.execute("UPDATE sessions SET status = 'finished' WHERE id = ?", (session_id,))

    # -- exports ----------------------------------------------------------------------------------

    def export_csv(self, session_ids: Sequence[int] | None = None) -> str:
        """One row per player of each session (all sessions when ``session_ids`` is None)."""
        buf = io.StringIO()
        writer = csv.writer(buf)
        writer.writerow(["session", "game", "date", "status", "seat", "player", "start_player",
                         "score", "rank", "winner"])
        ids = list(session_ids) if session_ids is not None else [
            s["id"] for s in self.list_sessions(limit=1_000_000)
        ]
        for sid in sorted(ids):
            s = self.get_session(sid)
            results = {r["seat"]: r for r in s["results"]}
            for p in s["players"]:
                r = results.get(p["seat"], {})
                writer.writerow([s["id"], s["game"], s["created"], s["status"], p["seat"], p["name"],
                                 int(p["start_player"]), r.get("score", ""), r.get("rank", ""),
                                 int(r.get("winner", False)) if r else ""])
        return buf.getvalue()

    def export_bgstats(self, session_id: int, bgg_ids: Mapping[str, int | None],
                       names: Mapping[str, str]) -> dict[str, Any]:
        """A BG Stats style play document for one session."""
        s = self.get_session(session_id)
        results = {r["seat"]: r for r in s["results"]}
        game: dict[str, Any] = {"name": names.get(s["game"], s["game"]), "sourceGame": s["game"]}
        bgg = bgg_ids.get(s["game"])
        if bgg is not None:
            game["bggId"] = bgg
        created = datetime.strptime(s["created"], "%Y-%m-%d %H:%M:%S")
        updated = datetime.strptime(s["updated"], "%Y-%m-%d %H:%M:%S")
        return {
            "about": "A play recorded by goldtable, in the field layout of Board Game Stats play files.",
            "game": game,
            "playDate": s["created"],
            "durationMin": max(0, round((updated - created).total_seconds() / 60)),
            "ignored": False,
            "manualWinner": False,
            "players": [
                {
                    "name": p["name"],
                    "score": results.get(p["seat"], {}).get("score"),
                    "winner": bool(results.get(p["seat"], {}).get("winner", False)),
                    "startPlayer": p["start_player"],
                    "seatOrder": p["seat"],
                    "rank": results.get(p["seat"], {}).get("rank"),
                }
                for p in s["players"]
            ],
        }
