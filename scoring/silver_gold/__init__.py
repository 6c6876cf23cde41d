"""Silver & Gold rules: card catalog, grid geometry, placement check and hints, game state and
turns, final score.

The JSON entry points (``score``, ``check``, ``template``) live in :mod:`scoring.silver_gold.api`.
"""

from __future__ import annotations

from scoring.silver_gold.catalog import (
    SYMBOLS,
    Badge,
    Card,
    Catalog,
    Rules,
    catalog_from_json,
    load_catalog,
    load_rules,
)
from scoring.silver_gold.final import Breakdown, CompletedCard, FinalSheet, final_standings, score_sheet
from scoring.silver_gold.game import (
    DECK,
    ActiveCard,
    GameState,
    IllegalTurn,
    PlayerMove,
    PlayerState,
    ScoreSheet,
    TrophyClaims,
    apply_turn,
    claim_trophies,
    new_game,
    state_from_json,
    state_to_json,
)
from scoring.silver_gold.placement import CardTurn, Verdict, check_turn, legal_placements
from scoring.silver_gold.shapes import (
    Cell,
    Shape,
    mirror_cell,
    mirror_rows,
    normalise,
    rotate_cell,
    rotate_rows,
    symmetries,
    transform_cells,
    unrotate_cell,
)

__all__ = [
    "DECK",
    "SYMBOLS",
    "ActiveCard",
    "Badge",
    "Breakdown",
    "Card",
    "CardTurn",
    "Catalog",
    "Cell",
    "CompletedCard",
    "FinalSheet",
    "GameState",
    "IllegalTurn",
    "PlayerMove",
    "PlayerState",
    "Rules",
    "ScoreSheet",
    "Shape",
    "TrophyClaims",
    "Verdict",
    "apply_turn",
    "catalog_from_json",
    "check_turn",
    "claim_trophies",
    "final_standings",
    "legal_placements",
    "load_catalog",
    "load_rules",
    "mirror_cell",
    "mirror_rows",
    "new_game",
    "normalise",
    "rotate_cell",
    "rotate_rows",
    "score_sheet",
    "state_from_json",
    "state_to_json",
    "symmetries",
    "transform_cells",
    "unrotate_cell",
]
