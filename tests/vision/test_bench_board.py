"""The board benchmark: scoring, rows, and the ``goldtable bench splendor-duel`` command."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from vision.bench.board import LABELS, format_rows, run_tier, score_reading
from vision.synth.board import render_board_scene
from webui.cli import main

SIZE = (960, 540)


def test_score_reading_counts_errors_and_abstentions() -> None:
    scene = render_board_scene(np.random.default_rng(2), "easy", SIZE, hand=False)
    assert score_reading(scene, scene.cells)[:2] == (0, 0)
    errors, abstained, pairs = score_reading(scene, None)
    assert errors == 25 and abstained == 25 and len(pairs) == 25
    cells = [list(r) for r in scene.cells]
    cells[0][0] = "?"
    cells[4][4] = "W" if scene.cells[4][4] != "W" else "U"
    errors, abstained, _ = score_reading(scene, tuple("".join(r) for r in cells))
    assert (errors, abstained) == (2, 1)


class _Identity:
    def prepare(self, image: np.ndarray) -> np.ndarray:
        return image

    @property
    def token_model(self) -> None:
        return None


def test_run_tier_gives_one_row_per_profile() -> None:
    rows = run_tier("easy", 2, seed=5, size=SIZE, profiles=(("none", None), ("same", _Identity())))
    assert [r.label for r in rows] == ["none", "same"]
    for r in rows:
        assert r.scenes == 2 and len(r.ms) == 2
        assert sum(map(sum, r.confusion)) == r.spots <= 50
        assert 0 <= r.errors <= r.spots and r.abstained <= r.errors
        assert len(r.confusion) == len(LABELS)
        data = r.to_json()
        assert {"spot_error", "exact", "W/P", "Y/.", "ms_median", "ms_p95", "confusion"} <= set(data)
    # the identity profile changes nothing
    assert rows[0].confusion == rows[1].confusion
    text = format_rows(rows)
    assert "W/P" in text and "Y/." in text and "confusion" in text


def test_scenes_do_not_depend_on_n() -> None:
    a = run_tier("easy", 1, seed=9, size=SIZE)[0]
    b = run_tier("easy", 2, seed=9, size=SIZE)[0]
    first = np.array(a.confusion)
    assert (np.array(b.confusion) >= first).all()


def test_cli_json() -> None:
    args = ["bench", "splendor-duel", "--n", "1", "--tier", "easy", "--size", "960x540", "--cast", "strong",
            "--json"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.output[result.output.index("{"):])
    assert data["cast"] is not None and len(data["rows"]) == 1
    assert data["rows"][0]["tier"] == "easy"


def test_cli_style_reads_every_scene_on_that_board() -> None:
    args = ["bench", "splendor-duel", "--n", "1", "--tier", "easy", "--size", "960x540", "--style", "slate"]
    result = CliRunner().invoke(main, [*args, "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output[result.output.index("{"):])["board"] == "slate"
    table = CliRunner().invoke(main, args)
    assert table.exit_code == 0 and "board style of every scene: slate (held out)" in table.output


def test_cli_style_choices_are_the_renderers_styles() -> None:
    from vision.synth.board import ALL_STYLES
    from webui.commands.bench_board import bench_board

    option = next(p for p in bench_board.params if p.name == "style")
    assert list(option.type.choices) == ["mixed", *ALL_STYLES]


@pytest.mark.parametrize("args", [["--size", "big"], ["--cast", "1,2"], ["--cast", "0,1,1"], ["--n", "0"],
                                  ["--style", "marble"]])
def test_cli_bad_options_exit_2(args: list[str]) -> None:
    result = CliRunner().invoke(main, ["bench", "splendor-duel", "--tier", "easy", *args])
    assert result.exit_code == 2
    assert "Traceback" not in result.output
