"""``goldtable judge``: two rendered photos -> board readings -> infer_board_change -> verdict."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from vision.synth.board import render_board_scene
from vision.synth.camera import Conditions, table_texture
from webui.cli import main

SIZE = (1280, 720)
LIGHT = Conditions(size=SIZE, tilt_deg=8.0, yaw_deg=5.0, cast=(1.02, 1.0, 0.97), noise_sigma=1.5)
BOARD = ("WWW.U", "UGRKP", "Y.GRK", "KUGRY", "P.YWK")
# a board with empty cells for refills: the centre (2, 2) is the first cell of the spiral in every
# orientation, then (2, 1) comes next in this one
HOLES = ("WWW.U", "UG.KP", "Y....", "KUGRY", "P.YW.")


def _photo(tmp_path: Path, name: str, layout: tuple[str, ...], seed: int = 4) -> str:
    # equal seeds: the same table, board and camera; only the tokens differ
    scene = render_board_scene(np.random.default_rng(seed), "easy", SIZE, layout=layout, style="night",
                               conditions=LIGHT, hand=False)
    path = tmp_path / f"{name}.png"
    cv2.imwrite(str(path), scene.image)
    return str(path)


def _judge(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["judge", *args])
    return result.exit_code, result.output


@pytest.mark.parametrize(("after", "privileges", "legal", "text"), [
    (("....U", "UGRKP", "Y.GRK", "KUGRY", "P.YWK"), "0", True,
     "took W,W,W in a row: legal — opponent takes a privilege"),
    ((".W..U", "UGRKP", "Y.GRK", "KUGRY", "P.YWK"), "0", False, "not adjacent"),
    (("WWW.U", "U..KP", "Y..RK", "KUGRY", "P.YWK"), "0", False, "not adjacent"),
    (("WWW.U", ".GRKP", "..GRK", "KUGRY", "P.YWK"), "0", False, "illegal"),
])
def test_takes_from_two_photos(tmp_path: Path, after: tuple[str, ...], privileges: str, legal: bool,
                               text: str) -> None:
    code, out = _judge(_photo(tmp_path, "before", BOARD), _photo(tmp_path, "after", after),
                       "--game", "splendor-duel", "--privileges", privileges)
    assert code == 0, out
    assert (": legal" in out) == legal
    assert text in out


def test_refill_in_spiral_order_is_legal(tmp_path: Path) -> None:
    after = ("WWW.U", "UG.KP", "YRR..", "KUGRY", "P.YW.")
    code, out = _judge(_photo(tmp_path, "before", HOLES), _photo(tmp_path, "after", after), "--json")
    assert code == 0, out
    data = json.loads(out)
    assert data["legal"] is True and data["action"] == "refill"
    assert sorted(map(tuple, data["refill_cells"])) == [(2, 1), (2, 2)]
    assert data["privilege_to_opponent"] is True
    assert data["after"]["cells"] == list(after)


def test_refill_out_of_spiral_order_is_illegal(tmp_path: Path) -> None:
    after = ("WWW.U", "UG.KP", "Y.R.R", "KUGRY", "P.YW.")
    code, out = _judge(_photo(tmp_path, "before", HOLES), _photo(tmp_path, "after", after))
    assert code == 0, out
    assert "illegal" in out and "spiral" in out


def test_a_gold_in_a_take_is_illegal_in_json(tmp_path: Path) -> None:
    after = ("WWW.U", ".GRKP", "..GRK", "KUGRY", "P.YWK")
    code, out = _judge(_photo(tmp_path, "before", BOARD), _photo(tmp_path, "after", after), "--json",
                       "--privileges", "0")
    assert code == 0, out
    data = json.loads(out)
    assert data["legal"] is False
    assert data["before"]["cells"] == list(BOARD)


def test_missing_file_is_exit_2(tmp_path: Path) -> None:
    code, out = _judge(_photo(tmp_path, "before", BOARD), str(tmp_path / "nope.jpg"))
    assert code == 2
    assert "nope.jpg" in out and "Traceback" not in out


def test_corrupt_file_is_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jpg"
    bad.write_bytes(b"\xff\xd8 not really a jpeg")
    code, out = _judge(str(bad), str(bad))
    assert code == 2 and "bad.jpg" in out


def test_no_board_is_exit_2(tmp_path: Path, rng: np.random.Generator) -> None:
    empty = tmp_path / "table.png"
    cv2.imwrite(str(empty), table_texture(rng, (640, 360)))
    code, out = _judge(str(empty), str(empty))
    assert code == 2 and "no Splendor Duel board" in out


def test_unknown_game_is_a_usage_error(tmp_path: Path) -> None:
    code, _ = _judge("a.jpg", "b.jpg", "--game", "silver-gold")
    assert code == 2


def test_a_changed_spot_read_with_low_confidence_is_named() -> None:
    """The verdict rests on the changed spots: one read with low confidence is named for a check,
    a doubtful spot the move did not touch is not."""
    from vision.types import BoardReading
    from webui.commands.judge import _doubts, judge_readings

    quad = ((0.0, 0.0), (10.0, 0.0), (10.0, 10.0), (0.0, 10.0))
    conf = ((1.0,) * 5,) * 5
    after_rows = ("....U", "UGRKP", "Y.GRK", "KUGRY", "P.YWK")
    before = BoardReading(quad, BOARD, conf, doubtful=((4, 4),))  # untouched by the take
    after = BoardReading(quad, after_rows, conf, doubtful=((0, 1), (4, 4)))
    change, k = judge_readings(BOARD, after_rows, 0)
    assert change.legal and (0, 1) in {tuple(c) for c in change.cells}
    note = _doubts(change, k, before, after)
    assert note == " — check (0,1) in the after photo: read with low confidence"
    assert _doubts(change, k, before, BoardReading(quad, after_rows, conf)) == ""


def test_a_doubtful_kind_shows_no_change_but_a_doubtful_token_taken_does() -> None:
    from vision.board.doubt import keep_doubtful_kinds
    from webui.commands.judge import judge_readings

    # three whites taken from the top row; the pearl at (4, 0) read as white, doubtfully, after
    after = ("....U", "UGRKP", "Y.GRK", "KUGRY", "W.YWK")
    kept = keep_doubtful_kinds(BOARD, after, {(0, 1), (4, 0)})
    assert kept[4][0] == "P"  # the doubtful kind: no change there
    assert kept[0] == "....U"  # the doubtful white taken still counts
    change, _ = judge_readings(BOARD, kept, 0)
    assert change.legal and change.action == "take"
    # without the doubt the pearl turned white, which no move does
    assert not judge_readings(BOARD, after, 0)[0].legal
