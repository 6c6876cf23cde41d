"""Tunable numbers come from data, and a typo in the data is an error, not a silent default."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from calibration.errors import CalibrationError
from calibration.sheet import load_section
from vision.config import from_mapping


@dataclass(frozen=True)
class _Demo:
    size: int
    steps: tuple[float, ...]


def test_comments_skipped_and_lists_become_tuples() -> None:
    got = from_mapping(_Demo, {"_about": "x", "size": 3, "steps": [0.5, 1.0]}, "demo.json")
    assert got == _Demo(3, (0.5, 1.0))


def test_unknown_key_names_the_source() -> None:
    with pytest.raises(ValueError, match=r"demo\.json: unknown key 'sise'"):
        from_mapping(_Demo, {"sise": 3, "steps": []}, "demo.json")


def test_calibration_sections_use_the_same_rule() -> None:
    with pytest.raises(CalibrationError, match="unknown key"):
        load_section("calibration", "lens", _Demo)
