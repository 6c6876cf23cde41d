"""``goldtable analyze`` and ``goldtable enroll`` from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from webui.cli import main


def _photo(tmp_path: Path, rng: np.random.Generator, name: str = "scene.png") -> tuple[Path, object]:
    from vision.synth.scene import render_scene

    scene = render_scene(rng, "easy", size=(960, 540), n_cards=3, style="modern", expedition=False)
    path = tmp_path / name
    cv2.imwrite(str(path), scene.image)
    return path, scene


def test_analyze_json_shape(tmp_path: Path, rng: np.random.Generator) -> None:
    path, _ = _photo(tmp_path, rng)
    res = CliRunner().invoke(main, ["analyze", str(path), "--game", "silver-gold", "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert doc["image"] == {"width": 960, "height": 540}
    assert set(doc) == {"image", "cards", "expedition", "elapsed_ms"}
    assert doc["cards"], "the generated cards are found"
    for card in doc["cards"]:
        assert set(card) >= {"id", "colour", "confidence", "corners", "marked", "uncertain", "complete",
                             "partial"}
        assert len(card["corners"]) == 4 and all(len(p) == 2 for p in card["corners"])
        assert all(len(c) == 2 for c in card["marked"])


def test_analyze_reports_original_pixels(tmp_path: Path, rng: np.random.Generator) -> None:
    from vision.synth.scene import render_scene

    scene = render_scene(rng, "easy", size=(1600, 900), n_cards=2, style="classic", expedition=False)
    big = cv2.resize(scene.image, (3200, 1800), interpolation=cv2.INTER_LINEAR)
    path = tmp_path / "big.jpg"
    cv2.imwrite(str(path), big, [cv2.IMWRITE_JPEG_QUALITY, 90])
    res = CliRunner().invoke(main, ["analyze", str(path), "--game", "silver-gold", "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert doc["image"] == {"width": 3200, "height": 1800}
    truth = [np.array(c.corners) * 2 for c in scene.cards if not c.partial]
    found = [np.array(c["corners"]) for c in doc["cards"] if not c["partial"]]
    assert found
    for f in found:
        assert min(np.abs(f - t).max() for t in truth) < 30


def test_analyze_table_and_overlay(tmp_path: Path, rng: np.random.Generator) -> None:
    path, _ = _photo(tmp_path, rng)
    out = tmp_path / "overlay.png"
    res = CliRunner().invoke(main, ["analyze", str(path), "--game", "silver-gold", "--overlay", str(out)])
    assert res.exit_code == 0, res.output
    assert "card" in res.output and "expedition" in res.output
    img = cv2.imread(str(out))
    assert img is not None and img.shape == (540, 960, 3)


def test_photo_without_cards_answers_an_empty_list(tmp_path: Path, rng: np.random.Generator) -> None:
    img = np.full((300, 400, 3), (70, 100, 140), np.uint8)
    img += rng.integers(0, 6, img.shape, dtype=np.uint8)
    path = tmp_path / "empty.png"
    cv2.imwrite(str(path), img)
    res = CliRunner().invoke(main, ["analyze", str(path), "--game", "silver-gold", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["cards"] == []


@pytest.mark.parametrize("content", [b"", b"this is not an image", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"])
def test_bad_files_exit_2(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "bad.png"
    path.write_bytes(content)
    res = CliRunner().invoke(main, ["analyze", str(path)])
    assert res.exit_code == 2
    assert "bad.png" in res.output and "Traceback" not in res.output


def test_truncated_jpeg_and_missing_file_exit_2(tmp_path: Path, rng: np.random.Generator) -> None:
    ok, buf = cv2.imencode(".jpg", rng.integers(0, 255, (200, 300, 3), dtype=np.uint8))
    assert ok
    path = tmp_path / "cut.jpg"
    path.write_bytes(buf.tobytes()[:300])
    for target in (path, tmp_path / "missing.jpg"):
        res = CliRunner().invoke(main, ["analyze", str(target), "--json"])
        assert res.exit_code == 2, res.output
        assert len(res.output.strip().splitlines()) == 1


def test_bad_catalog_exits_2(tmp_path: Path, rng: np.random.Generator) -> None:
    path, _ = _photo(tmp_path, rng)
    cat = tmp_path / "cat"
    cat.mkdir()
    (cat / "cards.json").write_text("{", "utf-8")
    res = CliRunner().invoke(main, ["analyze", str(path), "--catalog", str(cat)])
    assert res.exit_code == 2 and "cards.json" in res.output


def test_enroll_writes_references(tmp_path: Path, rng: np.random.Generator) -> None:
    from vision.synth.camera import Conditions
    from vision.synth.scene import CardSpec, render_cards_photo

    cond = Conditions(size=(1280, 720), table_mm=(600.0, 340.0))
    scene = render_cards_photo([CardSpec("t13", (200.0, 170.0), 5.0, style="classic"),
                                CardSpec("t30", (400.0, 170.0), -8.0, style="modern")], cond, rng)
    photo = tmp_path / "clean.png"
    cv2.imwrite(str(photo), scene.image)
    cat = tmp_path / "mine"
    res = CliRunner().invoke(main, ["enroll", str(photo), "--catalog", str(cat)])
    assert res.exit_code == 0, res.output
    refs = sorted(p.name for p in (cat / "refs").glob("*.png"))
    assert refs and set(refs) <= {"t13.png", "t30.png"}
    res = CliRunner().invoke(main, ["analyze", str(photo), "--catalog", str(cat), "--game", "silver-gold",
                                    "--json"])
    assert res.exit_code == 0, res.output
    ids = {c["id"] for c in json.loads(res.output)["cards"]}
    assert {p[:-4] for p in refs} <= ids


def test_enroll_without_cards_exits_2(tmp_path: Path) -> None:
    photo = tmp_path / "blank.png"
    cv2.imwrite(str(photo), np.full((200, 300, 3), 90, np.uint8))
    res = CliRunner().invoke(main, ["enroll", str(photo), "--catalog", str(tmp_path / "c")])
    assert res.exit_code == 2
