"""Every JSON API route through the Flask test client, good input and bad."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from flask import Flask
from flask.testing import FlaskClient

from scoring import GAMES
from webui.app import create_app


def test_health(client: FlaskClient) -> None:
    res = client.get("/api/health")
    assert res.status_code == 200
    assert res.json["status"] == "ok"
    assert res.json["games"] == list(GAMES)
    assert res.json["source"]["source"] == "none"


def test_games_and_templates(client: FlaskClient) -> None:
    games = {g["game"]: g for g in client.get("/api/games").json}
    assert games["silver-gold"]["camera"] and not games["valdora"]["camera"]
    assert client.get("/api/template/valdora").json["game"] == "valdora"
    res = client.get("/api/template/chess")
    assert res.status_code == 400 and res.json["field"] == "game"


def test_silver_gold_card_table(client: FlaskClient) -> None:
    data = client.get("/api/catalog/silver-gold").json
    cards = {c["id"]: c for c in data["cards"]}
    assert len(cards) == 47
    assert cards["t4"]["rows"] == [".C#.", "P###", "####", "C##X"]
    assert [e["id"] for e in data["expeditions"]] == [f"e{i}" for i in range(1, 9)]


# -- analyze -------------------------------------------------------------------------------------

def test_analyze_answers_like_the_command_line(client: FlaskClient, tmp_path: Any,
                                               rng: np.random.Generator) -> None:
    import cv2
    from click.testing import CliRunner

    from webui.cli import main

    # Wider than the decoder's max_side, so positions must be mapped back to the upload's pixels.
    ramp = np.linspace(0, 255, 2800, dtype=np.float64)[None, :, None]
    image = np.clip(ramp + rng.normal(0, 3, size=(120, 2800, 3)), 0, 255).astype(np.uint8)
    path = tmp_path / "wide.png"
    cv2.imwrite(str(path), image)
    for game in ("silver-gold", "auto"):
        res = upload(client, path.read_bytes(), game=game)
        assert res.status_code == 200, res.json
        cli = CliRunner().invoke(main, ["analyze", str(path), "--game", game, "--json"])
        assert cli.exit_code == 0, cli.output
        expected = json.loads(cli.output)
        got = dict(res.json)
        assert got.pop("elapsed_ms") >= 0 and expected.pop("elapsed_ms") >= 0
        assert got == expected
        assert got["image"] == {"width": 2800, "height": 120}


def upload(client: FlaskClient, data: bytes, **form: str) -> Any:
    import io

    return client.post("/api/analyze", data={"image": (io.BytesIO(data), "photo.jpg"), **form},
                       content_type="multipart/form-data")


def test_analyze_bad_inputs(client: FlaskClient, helpers: Any, rng: np.random.Generator) -> None:
    res = client.post("/api/analyze", json={"image": "x"})
    assert res.status_code == 400 and "multipart/form-data" in res.json["error"]
    res = client.post("/api/analyze", data={"game": "auto"}, content_type="multipart/form-data")
    assert res.status_code == 400 and res.json["field"] == "image"
    res = upload(client, b"this is not an image at all")
    assert res.status_code == 400 and res.json["field"] == "image"
    assert "not a readable image" in res.json["error"]
    truncated = helpers.png(rng)[:60]
    assert upload(client, truncated).status_code == 400
    assert upload(client, b"").status_code == 400
    res = upload(client, helpers.png(rng), game="chess")
    assert res.status_code == 400 and res.json["field"] == "game"


def test_oversize_upload_is_413(tmp_path: Any, helpers: Any, rng: np.random.Generator) -> None:
    app = create_app({"DATABASE": str(tmp_path / "g.db"), "TESTING": True, "MAX_CONTENT_LENGTH": 4000})
    client = app.test_client()
    res = upload(client, bytes(8000))
    assert res.status_code == 413
    assert "limit" in res.json["error"]
    assert client.post("/api/frame", data=bytes(8000), content_type="image/jpeg").status_code == 413


def test_default_cap_is_20_mb(app: Flask) -> None:
    assert app.config["MAX_CONTENT_LENGTH"] == 20 * 1024 * 1024


def test_browser_frame(client: FlaskClient, helpers: Any, rng: np.random.Generator) -> None:
    res = client.post("/api/frame?game=silver-gold", data=helpers.png(rng), content_type="image/png")
    assert res.status_code == 200
    assert res.json["reading"]["image"] == {"width": 96, "height": 72}
    assert client.post("/api/frame", data=b"garbage", content_type="image/jpeg").status_code == 400
    assert client.post("/api/frame", data="x", content_type="text/plain").status_code == 400


# -- score and check -----------------------------------------------------------------------------

@pytest.mark.parametrize("game", list(GAMES))
def test_score_matches_the_rules(client: FlaskClient, game: str) -> None:
    doc = GAMES[game].template()
    res = client.post("/api/score", json=doc)
    assert res.status_code == 200, res.json
    assert res.json == json.loads(json.dumps(GAMES[game].score(doc)))


def test_score_bad_inputs(client: FlaskClient) -> None:
    res = client.post("/api/score", data="{not json", content_type="application/json")
    assert res.status_code == 400 and "not valid JSON" in res.json["error"]
    res = client.post("/api/score", data="game=valdora", content_type="application/x-www-form-urlencoded")
    assert res.status_code == 400 and "application/json" in res.json["error"]
    res = client.post("/api/score", json={"game": "chess"})
    assert res.status_code == 400 and res.json["field"] == "game"
    doc = GAMES["silver-gold"].template()
    doc["players"][0]["coins"] = 13
    res = client.post("/api/score", json=doc)
    assert res.status_code == 400 and res.json["field"] == "players[0].coins"
    res = client.post("/api/score", json=[1, 2])
    assert res.status_code == 400


def test_check(client: FlaskClient) -> None:
    from scoring.silver_gold.api import check_template

    res = client.post("/api/check", json=check_template())
    assert res.status_code == 200 and res.json["legal"] is True
    res = client.post("/api/check", json={"game": "valdora"})
    assert res.status_code == 400 and res.json["field"] == "game"
    bad = check_template() | {"shape": "e99"}
    res = client.post("/api/check", json=bad)
    assert res.status_code == 400 and res.json["field"] == "shape"


# -- sessions ------------------------------------------------------------------------------------

def test_session_lifecycle(client: FlaskClient, helpers: Any) -> None:
    from scoring.silver_gold.api import check_template

    s = helpers.session(client)
    sid = s["id"]
    assert client.get(f"/api/sessions/{sid}").json == s
    doc = check_template()
    res = client.post(f"/api/sessions/{sid}/turns", json={"check": doc, "seat": 1})
    assert res.status_code == 200 and res.json["verdict"]["legal"] is True
    assert res.json["event"]["kind"] == "turn"
    bad_turn = dict(doc, cards=[{"id": "t4", "before": [], "after": [[0, 1], [2, 2], [3, 3]]},
                                {"id": "t40", "before": [], "after": []}])
    res = client.post(f"/api/sessions/{sid}/turns", json={"check": bad_turn, "seat": 2})
    assert res.status_code == 200 and res.json["verdict"]["legal"] is False and res.json["verdict"]["reason"]
    res = client.post(f"/api/sessions/{sid}/events", json={
        "kind": "correction", "payload": {"seat": 1, "set": {"coins": 3, "palms": [2], "completed": ["t4"]}}})
    assert res.status_code == 200
    stored = client.get(f"/api/sessions/{sid}").json
    assert [e["kind"] for e in stored["events"]] == ["setup", "turn", "turn", "correction"]
    final = GAMES["silver-gold"].template()
    final["players"][0]["name"], final["players"][1]["name"] = "Ann", "Ben"
    res = client.post(f"/api/sessions/{sid}/finish", json={"score": final})
    assert res.status_code == 200
    results = [(r["name"], r["score"], r["winner"]) for r in res.json["results"]]
    assert results == [("Ann", 95, True), ("Ben", 66, False)]
    res = client.post(f"/api/sessions/{sid}/events", json={"kind": "note", "payload": {"text": "late"}})
    assert res.status_code == 400 and "finished" in res.json["error"]
    listed = client.get("/api/sessions").json
    assert listed[0]["id"] == sid and listed[0]["winners"] == ["Ann"] and listed[0]["turns"] == 2
    csv_text = client.get(f"/api/sessions/{sid}/export.csv").get_data(as_text=True)
    assert csv_text.splitlines()[1].startswith(f"{sid},silver-gold,")
    assert client.get("/api/export.csv").status_code == 200
    play = client.get(f"/api/sessions/{sid}/bgstats.json").json
    assert [(p["name"], p["score"], p["winner"], p["startPlayer"]) for p in play["players"]] == [
        ("Ann", 95, True, True), ("Ben", 66, False, False)]


def test_session_bad_inputs(client: FlaskClient, helpers: Any) -> None:
    assert client.get("/api/sessions/999").status_code == 404
    assert client.get("/api/sessions/999").json["error"] == "no session 999"
    assert client.post("/api/sessions/999/events", json={"kind": "note", "payload": {}}).status_code == 404
    assert client.get("/api/sessions/abc").status_code == 404
    assert client.get("/api/sessions/../../etc/passwd").status_code == 404
    res = client.post("/api/sessions", json={"game": "silver-gold", "players": [{"name": ""}]})
    assert res.status_code == 400 and res.json["field"] == "players[0].name"
    res = client.post("/api/sessions", data="[", content_type="application/json")
    assert res.status_code == 400
    assert client.get("/api/sessions?limit=abc").json["field"] == "limit"
    sid = helpers.session(client, "splendor-duel")["id"]
    url = f"/api/sessions/{sid}"
    cases: list[tuple[dict[str, Any], str]] = [
        ({"kind": "delete", "payload": {}}, "kind"),
        ({"kind": "note", "payload": {"board": ["WWWWW"]}}, "payload.board"),
        ({"kind": "note", "payload": {"board": ["WWWWX"] * 5}}, "payload.board"),
        ({"kind": "note", "payload": {"turn": 7}}, "payload.turn"),
        ({"kind": "correction", "payload": {"privileges": {"1": 4}}}, "payload.privileges.1"),
        ({"kind": "correction", "payload": {"set": {"coins": 3}}}, "payload.seat"),
        ({"kind": "correction", "payload": {"seat": 1, "set": {"gold": 3}}}, "payload.set.gold"),
        ({"kind": "correction", "payload": {"seat": 1, "set": {"cards": [{"id": "../x"}]}}},
         "payload.set.cards[0].id"),
        ({"kind": "note", "payload": {"path": "/etc/passwd"}}, "payload.path"),
        ({"kind": "note", "payload": "text"}, "payload"),
    ]
    for body, field in cases:
        res = client.post(f"{url}/events", json=body)
        assert res.status_code == 400, body
        assert res.json["field"] == field, (body, res.json)
    res = client.post(f"{url}/turns", json={"check": {"game": "silver-gold"}})
    assert res.status_code == 400 and res.json["field"] == "check.game"
    bad_board = {"game": "splendor-duel", "before": ["W"], "after": ["W"]}
    res = client.post(f"{url}/turns", json={"check": bad_board, "seat": 1})
    assert res.status_code == 400
    res = client.post(f"{url}/turns", json={"check": {"game": "splendor-duel"}, "seat": 5})
    assert res.status_code == 400 and res.json["field"] == "seat"
    res = client.post(f"{url}/finish", json={"score": {"game": "valdora", "players": []}})
    assert res.status_code == 400 and res.json["field"] == "score.game"
    assert len(client.get(url).json["events"]) == 1


def test_score_pad_saved_in_one_request(client: FlaskClient) -> None:
    doc = GAMES["fools-gold"].template()
    players = [{"name": p["name"]} for p in doc["players"]]
    res = client.post("/api/sessions", json={"game": "fools-gold", "players": players, "score": doc})
    assert res.status_code == 201
    assert res.json["status"] == "finished"
    assert {r["name"]: r["score"] for r in res.json["results"]} == {"Ann": 17, "Ben": 13, "Cas": 13}
    bad = json.loads(json.dumps(doc))
    bad["players"][0]["gems"] = ["ruby", "ruby"]
    res = client.post("/api/sessions", json={"game": "fools-gold", "players": players, "score": bad})
    assert res.status_code == 400 and res.json["field"].startswith("players[0].gems")
    assert len(client.get("/api/sessions").json) == 1


def test_unknown_api_route_is_json_404(client: FlaskClient) -> None:
    res = client.get("/api/nothing-here")
    assert res.status_code == 404 and "error" in res.json
    assert client.get("/api/score").status_code == 405


def test_server_sent_events(app: Flask, helpers: Any) -> None:
    client = app.test_client()
    res = client.get("/api/events")
    assert res.mimetype == "text/event-stream"
    chunks = iter(res.response)
    assert b": connected" in next(chunks)
    helpers.session(app.test_client())
    chunk = next(chunks)
    text = chunk.decode() if isinstance(chunk, bytes) else chunk
    assert text.startswith("event: session\n")
    event = json.loads(text.split("data: ", 1)[1])
    assert event["event"]["kind"] == "setup"
    res.close()
    assert app.extensions["goldtable.capture"].hub.listeners == 0


def test_silver_gold_sheets_claim_trophies_in_turn_order(client: FlaskClient, helpers: Any) -> None:
    s = helpers.session(client)
    url = f"/api/sessions/{s['id']}"
    seats = [p["seat"] for p in s["players"]]
    start = next(p["seat"] for p in s["players"] if p["start_player"])
    other = next(seat for seat in seats if seat != start)
    assert client.get(f"{url}/sheets").json["turn"] == 0
    one_cell = {"game": "silver-gold", "shape": "e1", "coins": 3,
                "cards": [{"id": "t4", "before": [], "after": [[0, 1]]}]}  # (0,1) of t4 is a coin
    for seat in seats:
        fix = {"seat": seat, "set": {"coins": 3}}
        res = client.post(f"{url}/events", json={"kind": "correction", "payload": fix})
        assert res.status_code == 200
    client.post(f"{url}/events", json={"kind": "note", "payload": {"expedition": "e1"}})
    # the second seat's verdict is recorded first; the start player still claims the higher trophy
    for seat in (other, start):
        res = client.post(f"{url}/turns", json={"check": one_cell, "seat": seat})
        assert res.json["verdict"]["legal"] is True and res.json["verdict"]["coins"] == 1
    sheets = client.get(f"{url}/sheets").json
    assert sheets["turn"] == 1 and sheets["start_seat"] == start
    assert sheets["players"][str(start)]["trophies"] == [6]
    assert sheets["players"][str(other)]["trophies"] == [5]
    assert sheets["players"][str(start)]["coins"] == 4 and sheets["trophies_left"] == [4, 3, 2, 1]
    # a hand correction gives the trophy back to the track
    fix = {"seat": other, "set": {"trophies": []}}
    client.post(f"{url}/events", json={"kind": "correction", "payload": fix})
    sheets = client.get(f"{url}/sheets").json
    assert sheets["players"][str(other)]["trophies"] == [] and sheets["trophies_left"] == [5, 4, 3, 2, 1]
    # a second expedition note before any verdict corrects the expedition; it is not a new turn
    client.post(f"{url}/events", json={"kind": "note", "payload": {"expedition": "e2"}})
    client.post(f"{url}/events", json={"kind": "note", "payload": {"expedition": "e3"}})
    sheets = client.get(f"{url}/sheets").json
    assert sheets["turn"] == 2 and sheets["start_seat"] == other
    pad = helpers.session(client, "fools-gold")
    assert client.get(f"/api/sessions/{pad['id']}/sheets").status_code == 400
    assert client.get("/api/sessions/999/sheets").status_code == 404
