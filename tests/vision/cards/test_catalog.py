"""The built-in and user card catalogs."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.cards.catalog import builtin_catalog, load_catalog
from vision.errors import CatalogError


def test_builtin_catalog_has_47_cards() -> None:
    cat = builtin_catalog()
    assert len(cat.cards) == 47
    t1 = cat.get("t1")
    assert t1 is not None and t1.colour == "purple" and t1.badge == ("orange", 2)
    assert t1.shape == (4, 4)


def test_grid_rotation_turns_clockwise() -> None:
    card = builtin_catalog().get("t25")
    assert card is not None
    g = card.grid(1)
    assert g.shape == (4, 3)
    assert "".join(g[0]) == "".join(np.array([list(r) for r in card.rows])[::-1, 0])


def test_user_catalog_overrides_and_adds(tmp_path: Path) -> None:
    doc = {"cards": [{"id": "t1", "colour": "purple", "points": 14, "badge": None,
                      "rows": ["####", ".##.", "X##X", "####"]},
                     {"id": "x1", "colour": "grey", "points": 8, "badge": None,
                      "rows": ["###", "#.#", "###"]}]}
    (tmp_path / "cards.json").write_text(json.dumps(doc), "utf-8")
    cat = load_catalog(tmp_path)
    assert cat.get("t1").rows[0] == "####"  # type: ignore[union-attr]
    assert cat.get("x1") is not None
    assert len(cat.cards) == 48


def test_refs_are_listed_and_read(tmp_path: Path) -> None:
    (tmp_path / "refs").mkdir()
    cv2.imwrite(str(tmp_path / "refs" / "t3.png"), np.full((88, 63, 3), 200, np.uint8))
    cat = load_catalog(tmp_path)
    ref = cat.reference("t3")
    assert ref is not None and ref.shape == (88, 63, 3)
    assert cat.reference("t4") is None


@pytest.mark.parametrize(("text", "needle"), [
    ("{not json", "not valid JSON"),
    (json.dumps({"cards": [{"id": "t1", "colour": "pink", "points": 1, "rows": ["#"]}]}), "colour"),
    (json.dumps({"cards": "nope"}), "cards"),
])
def test_bad_cards_json_names_the_file(tmp_path: Path, text: str, needle: str) -> None:
    (tmp_path / "cards.json").write_text(text, "utf-8")
    with pytest.raises(CatalogError) as err:
        load_catalog(tmp_path)
    assert "cards.json" in str(err.value) and needle in str(err.value)


def test_missing_dir_and_stray_ref(tmp_path: Path) -> None:
    with pytest.raises(CatalogError, match="not a directory"):
        load_catalog(tmp_path / "nope")
    (tmp_path / "refs").mkdir()
    (tmp_path / "refs" / "zz9.png").write_bytes(b"x")
    with pytest.raises(CatalogError, match=r"zz9\.png"):
        load_catalog(tmp_path)


def test_unreadable_reference_names_the_file(tmp_path: Path) -> None:
    (tmp_path / "refs").mkdir()
    (tmp_path / "refs" / "t2.png").write_bytes(b"not a png")
    cat = load_catalog(tmp_path)
    with pytest.raises(CatalogError, match=r"t2\.png"):
        cat.reference("t2")
