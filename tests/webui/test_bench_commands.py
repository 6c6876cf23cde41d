"""The benchmark commands' wiring (the benchmarks themselves are tested under tests/vision)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest


def test_card_bench_auto_profile_enrols_no_board(monkeypatch: pytest.MonkeyPatch) -> None:
    import calibration.bench
    from webui.commands.bench_cards import _auto_profile_factory

    calls: list[tuple[Any, Any, dict[str, Any]]] = []

    def fake(conditions: Any, rng: Any, **kw: Any) -> str:
        calls.append((conditions, rng, kw))
        return "profile"

    monkeypatch.setattr(calibration.bench, "profile_for_conditions", fake)
    rng = np.random.default_rng(1)
    assert _auto_profile_factory()("conditions", rng) == "profile"
    assert calls == [("conditions", rng, {"tokens": False})]
