"""Dependencies flow one way: webui -> calibration -> vision -> scoring, and scoring stays pure."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# package -> top-level modules it must never import
FORBIDDEN: dict[str, set[str]] = {
    "scoring": {"vision", "calibration", "webui", "cv2", "numpy", "flask", "skimage"},
    "vision": {"calibration", "webui", "flask"},
    "calibration": {"webui", "flask"},
}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text("utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_package_imports_respect_the_layers(package: str) -> None:
    files = sorted((ROOT / package).rglob("*.py"))
    assert files
    offenders = {
        str(f.relative_to(ROOT)): sorted(_imports(f) & FORBIDDEN[package]) for f in files
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_scoring_does_no_io() -> None:
    for f in sorted((ROOT / "scoring").rglob("*.py")):
        text = f.read_text("utf-8")
        for word in ("open(", "print(", "requests", "urllib", "socket"):
            assert word not in text, f"{f.relative_to(ROOT)} uses {word}"
