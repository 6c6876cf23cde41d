"""``goldtable score`` and ``goldtable check`` on the Splendor Duel formats."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from webui.cli import main

BOARD = ["WUGRK", "KPPYW", ".....", "UUU..", "GRKW."]


def run(args: list[str], stdin: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, args, input=stdin)
    return result.exit_code, result.stdout, result.stderr


def test_template_round_trips_through_score(tmp_path: Path) -> None:
    code, out, _ = run(["score", "--template", "splendor-duel"])
    assert code == 0
    path = tmp_path / "game.json"
    path.write_text(out, encoding="utf-8")
    code, out, _ = run(["score", str(path)])
    assert code == 0
    result = json.loads(out)
    assert result["winners"] == ["Ann"]
    assert result["players"][0]["victory"] == ["colour:blue"]
    assert set(result["players"][0]) >= {"name", "total", "rank", "points", "crowns", "points_by_colour",
                                         "victory", "breakdown"}


def test_score_reads_standard_input() -> None:
    doc = {"game": "splendor-duel", "players": [{"name": "Ann", "cards": ["L3-13"], "royals": []}]}
    code, out, _ = run(["score", "-"], json.dumps(doc))
    assert code == 0 and json.loads(out)["players"][0]["points"] == 6


def test_check_take_legal_and_illegal_both_exit_0() -> None:
    doc = {"game": "splendor-duel", "board": BOARD, "take": [[3, 0], [3, 1], [3, 2]]}
    code, out, _ = run(["check", "-"], json.dumps(doc))
    assert code == 0
    assert json.loads(out)["legal"] is True and json.loads(out)["privilege_to_opponent"] is True
    doc["take"] = [[0, 0], [0, 2]]
    code, out, _ = run(["check", "-"], json.dumps(doc))
    assert code == 0 and json.loads(out)["legal"] is False


def test_check_change_form() -> None:
    after = ["WUGRK", "KPP.W", ".....", "UUU..", "GRKW."]
    doc = {"game": "splendor-duel", "before": BOARD, "after": after}
    code, out, _ = run(["check", "-"], json.dumps(doc))
    assert code == 0
    result = json.loads(out)
    assert (result["action"], result["cells"], result["legal"]) == ("reserve_gold", [[1, 3]], True)
    assert result["reason"]


def test_bad_board_row_exits_2_with_one_line() -> None:
    doc = {"game": "splendor-duel", "board": ["WUGRK", "KPPYWW", ".....", "UUU..", "GRKW."], "take": [[0, 0]]}
    code, _, err = run(["check", "-"], json.dumps(doc))
    assert code == 2
    assert err.strip() == "goldtable: board[1]: 6 letters, expected 5"


def test_unknown_card_exits_2_naming_the_field() -> None:
    doc = {"game": "splendor-duel", "players": [{"name": "Ann", "cards": ["L1-99"]}]}
    code, _, err = run(["score", "-"], json.dumps(doc))
    assert code == 2
    assert "players[0].cards[0]" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
