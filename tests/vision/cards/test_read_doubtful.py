"""A card named with low confidence is flagged doubtful in its reading, and only such a card."""

from __future__ import annotations

from vision.analyze import analyze
from vision.bench.cards import bench_rng
from vision.cards.identify import default_config
from vision.synth.camera import TIERS
from vision.synth.scene import render_scene


def test_cards_named_with_low_confidence_are_flagged() -> None:
    limit = default_config().doubtful_confidence
    flagged = sure = 0
    for i in (5, 7):  # typical bench scenes with cards named on a thin lead
        scene = render_scene(bench_rng(0, TIERS.index("typical"), i), "typical")
        for card in analyze(scene.image, "silver-gold").cards:
            assert card.doubtful == (card.id is not None and card.confidence < limit), card
            assert card.to_json()["doubtful"] is card.doubtful
            flagged += card.doubtful
            sure += card.id is not None and not card.doubtful
    assert flagged >= 2 and sure >= 2
