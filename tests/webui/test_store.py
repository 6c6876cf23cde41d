"""The SQLite session store: validation, atomic writes, exports."""

from __future__ import annotations

import csv
import io
import sqlite3
from pathlib import Path

import pytest

from webui import InvalidField, NotFound
from webui.store import Store, StoreLimits, default_db_path

SCORED = {"game": "valdora", "players": [
    {"name": "Ann", "total": 64, "rank": 1, "breakdown": {"contracts": 19}},
    {"name": "Ben", "total": 44, "rank": 2, "breakdown": {"contracts": 11}}], "winners": ["Ann"]}


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "sub" / "games.db", StoreLimits(max_players=4, max_name_length=12,
                                                            max_payload_bytes=2000))


def players(*names: str) -> list[dict[str, object]]:
    return [{"name": n} for n in names]


def test_default_path_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_db_path() == tmp_path / "goldtable" / "goldtable.db"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert default_db_path() == Path.home() / ".local" / "share" / "goldtable" / "goldtable.db"


def test_database_is_wal_and_created_with_folder(store: Store) -> None:
    assert store.path.is_file()
    conn = sqlite3.connect(store.path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


def test_create_and_read_session(store: Store) -> None:
    s = store.create_session("silver-gold", [{"name": "  Ann  Lee ", "start_player": True}, {"name": "Ben"}])
    assert s["status"] == "active"
    assert s["players"] == [{"seat": 1, "name": "Ann Lee", "start_player": True},
                            {"seat": 2, "name": "Ben", "start_player": False}]
    assert [e["kind"] for e in s["events"]] == ["setup"]
    assert store.get_session(s["id"]) == s


@pytest.mark.parametrize(("bad", "field"), [
    ([], "players"),
    ("Ann", "players"),
    ([{"name": ""}], "players[0].name"),
    ([{"name": "A" * 13}], "players[0].name"),
    ([{"name": "Ann", "seat": 9}], "players[0].seat"),
    ([{"name": "Ann", "seat": 1}, {"name": "Ben", "seat": 1}], "players[1].seat"),
    ([{"name": "Ann", "start_player": "yes"}], "players[0].start_player"),
    ([{"name": "Ann", "start_player": True}, {"name": "Ben", "start_player": True}], "players"),
    ([{"name": "Ann"}, {"name": "ann"}], "players"),
    ([{"name": n} for n in "ABCDE"], "players"),
])
def test_bad_players_are_refused_by_field(store: Store, bad: object, field: str) -> None:
    with pytest.raises(InvalidField) as err:
        store.create_session("valdora", bad)
    assert err.value.field == field
    assert store.list_sessions() == []


def test_unknown_game_and_session(store: Store) -> None:
    with pytest.raises(InvalidField, match="unknown game"):
        store.create_session("chess", players("Ann"))
    with pytest.raises(NotFound):
        store.get_session(42)
    with pytest.raises(NotFound):
        store.add_event(42, "note", {})


def test_events_append_in_order_and_merge_state(store: Store) -> None:
    sid = store.create_session("splendor-duel", players("Ann", "Ben"), {"a": 1})["id"]
    e1 = store.add_event(sid, "move", {"n": 1}, {"b": 2})
    e2 = store.add_event(sid, "correction", {"n": 2})
    assert (e1["seq"], e2["seq"]) == (2, 3)
    s = store.get_session(sid)
    assert [e["payload"] for e in s["events"][1:]] == [{"n": 1}, {"n": 2}]
    assert s["state"] == {"a": 1, "b": 2}


def test_a_failing_write_leaves_nothing_behind(store: Store) -> None:
    sid = store.create_session("silver-gold", players("Ann"))["id"]
    with pytest.raises(InvalidField, match="state"):
        store.add_event(sid, "turn", {"ok": True}, {"big": "x" * 5000})
    with pytest.raises(InvalidField, match="kind"):
        store.add_event(sid, "explode", {})
    with pytest.raises(InvalidField, match="payload"):
        store.add_event(sid, "note", ["not", "an", "object"])  # type: ignore[arg-type]
    assert len(store.get_session(sid)["events"]) == 1


def test_finish_stores_results_and_closes_the_session(store: Store) -> None:
    sid = store.create_session("valdora", players("Ann", "Ben"))["id"]
    done = store.finish(sid, SCORED, {"game": "valdora"})
    assert done["status"] == "finished"
    assert [(r["name"], r["score"], r["rank"], r["winner"]) for r in done["results"]] == [
        ("Ann", 64, 1, True), ("Ben", 44, 2, False)]
    assert done["events"][-1]["kind"] == "finish"
    with pytest.raises(InvalidField, match="finished"):
        store.add_event(sid, "note", {})
    listed = store.list_sessions()
    assert listed[0]["winners"] == ["Ann"] and listed[0]["status"] == "finished"


def test_create_finished_in_one_step(store: Store) -> None:
    s = store.create_session("valdora", players("Ann", "Ben"), final=(SCORED, {"game": "valdora"}))
    assert s["status"] == "finished" and len(s["results"]) == 2


def test_csv_and_bgstats_exports(store: Store) -> None:
    duel = [{"name": "Ann"}, {"name": "Ben", "start_player": True}]
    sid = store.create_session("splendor-duel", duel)["id"]
    result = {"players": [{"name": "Ann", "total": 21, "rank": 1}, {"name": "Ben", "total": 12, "rank": 2}],
              "winners": ["Ann"]}
    store.finish(sid, result, {"game": "splendor-duel"})
    other = store.create_session("valdora", players("Cy"))["id"]
    rows = list(csv.DictReader(io.StringIO(store.export_csv())))
    assert [(r["session"], r["player"], r["score"], r["winner"]) for r in rows] == [
        (str(sid), "Ann", "21.0", "1"), (str(sid), "Ben", "12.0", "0"), (str(other), "Cy", "", "")]
    play = store.export_bgstats(sid, {"splendor-duel": 364073}, {"splendor-duel": "Splendor Duel"})
    assert play["game"] == {"name": "Splendor Duel", "sourceGame": "splendor-duel", "bggId": 364073}
    assert play["players"][0] | {} == {"name": "Ann", "score": 21.0, "winner": True, "startPlayer": False,
                                       "seatOrder": 1, "rank": 1}
    assert play["players"][1]["startPlayer"] is True
    assert "bggId" not in store.export_bgstats(other, {"valdora": None}, {})["game"]
