"""``goldtable score`` and ``goldtable check``: JSON out, exit 0 for answers, exit 2 and one line for
bad input, templates that score."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from scoring import GAMES
from webui.cli import main


def run(args: list[str], stdin: str | None = None) -> Any:
    return CliRunner().invoke(main, args, input=stdin)


def installed(game: str) -> bool:
    try:
        importlib.import_module(GAMES[game].module)
    except ModuleNotFoundError:
        return False
    return True


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_template_scores(game: str) -> None:
    if not installed(game):
        pytest.skip(f"{game} has no engine in this checkout yet")
    shown = run(["score", "--template", game])
    assert shown.exit_code == 0, shown.output
    template = json.loads(shown.output)
    assert template["game"] == game
    scored = run(["score", "-"], stdin=shown.output)
    assert scored.exit_code == 0, scored.output
    result = json.loads(scored.output)
    assert result["game"] == game and result["winners"]
    assert all({"name", "total", "rank", "breakdown"} <= set(p) for p in result["players"])


def test_score_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps({"game": "fools-gold", "players": [
        {"name": "Ann", "gold": {"hills": [3, 2], "forest": [4], "mountains": [5, 4], "lake": [3, 4]},
         "gems": ["ruby", "emerald", "topaz"]}]}), encoding="utf-8")
    result = run(["score", str(path)])
    assert result.exit_code == 0
    assert json.loads(result.output)["players"][0]["total"] == 17


def test_check_answers_illegal_turns_with_exit_0() -> None:
    data = {"game": "silver-gold", "shape": "e8", "cards": [{"id": "t4", "before": [], "after": [[0, 3]]}]}
    result = run(["check", "-"], stdin=json.dumps(data))
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["legal"] is False and out["reason"] == "cell (0,3) of t4 is water"
    data["cards"][0]["after"] = [[1, 1], [1, 2], [2, 1], [2, 2]]
    out = json.loads(run(["check", "-"], stdin=json.dumps(data)).output)
    assert out["legal"] is True and out["shape_card"] == "t4"


@pytest.mark.parametrize(
    ("args", "stdin", "message"),
    [
        (["score", "-"], '{"game": "silver-gold", "players": [{"name": "A", "coins": 13}]}',
         "players[0].coins: 13 is more than 12"),
        (["score", "-"], '{"game": "silver-gold", "players": [{"name": "A", "completed": ["t99"]}]}',
         "players[0].completed[0]: unknown card id 't99'"),
        (["score", "-"], '{"game": "chess", "players": []}', "game: unknown game 'chess'"),
        (["score", "-"], "[1, 2]", "(document): expected a JSON object"),
        (["score", "-"], "{not json", "-: not valid JSON"),
        (["score"], None, "missing FILE"),
        (["score", "-", "--template", "valdora"], "{}", "give either FILE or --template GAME"),
        (["score", "--template", "chess"], None, "game: unknown game 'chess'"),
        (["score", "/nonexistent/game.json"], None, "/nonexistent/game.json: cannot read the file"),
        (["check", "-"], '{"game": "silver-gold", "shape": "e6", "cards": [{"id": "t4", "after": [[9, 9]]}]}',
         "cards[0].after[0]: cell (9,9) is outside the 4x4 grid of t4"),
        (["check", "-"], '{"game": "valdora"}', "game: 'valdora' has no move checker"),
    ],
)
def test_bad_input_exits_2_with_one_line(args: list[str], stdin: str | None, message: str) -> None:
    result = run(args, stdin)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("game", ["silver-gold", "splendor-duel"])
def test_check_template_round_trips(game: str) -> None:
    shown = run(["check", "--template", game])
    assert shown.exit_code == 0, shown.output
    out = json.loads(run(["check", "-"], stdin=shown.output).output)
    assert out["legal"] is True


def test_check_template_refused_without_checker() -> None:
    refused = run(["check", "--template", "valdora"])
    assert refused.exit_code == 2 and "has no move checker" in refused.output


def test_help_describes_the_formats() -> None:
    assert "--template" in run(["score", "--help"]).output
    assert "illegal" in run(["check", "--help"]).output
