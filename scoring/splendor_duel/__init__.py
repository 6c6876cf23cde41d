"""Splendor Duel: the full rules engine, the board-change reader and final scoring.

Modules
-------
tokens
    Token kinds (letters W U G R K P Y) and token multisets.
board
    The 5x5 board, the spiral refill order and the take rule.
cards
    The 67 jewel cards and 4 royal cards (package data ``data/cards.json``).
final
    Points, crowns, points per colour, bonuses and victory conditions of a player's cards.
game
    The game state, legal actions, validation and ``apply``.
infer
    ``infer_board_change(before, after)``: what happened between two board readings.
api
    JSON ``score``, ``check`` and ``template`` for the ``goldtable`` command line.
"""

from __future__ import annotations

from scoring.splendor_duel.board import Board, Cell, TakeVerdict, check_take, spiral
from scoring.splendor_duel.cards import JewelCard, RoyalCard, catalog
from scoring.splendor_duel.final import OwnedCard, Tally, tally
from scoring.splendor_duel.game import (
    Action,
    Buy,
    ChooseRoyal,
    Discard,
    IllegalAction,
    Pass,
    PlayerState,
    Refill,
    Reserve,
    State,
    Steal,
    Take,
    TakeMatching,
    UsePrivilege,
    apply,
    legal_actions,
    new_game,
    random_refill,
    validate,
)
from scoring.splendor_duel.infer import BoardChange, infer_board_change
from scoring.splendor_duel.tokens import Token, Tokens

__all__ = [
    "Action", "Board", "BoardChange", "Buy", "Cell", "ChooseRoyal", "Discard", "IllegalAction",
    "JewelCard", "OwnedCard", "Pass", "PlayerState", "Refill", "Reserve", "RoyalCard", "State", "Steal",
    "Take", "TakeMatching", "TakeVerdict", "Tally", "Token", "Tokens", "UsePrivilege", "apply", "catalog",
    "check_take", "infer_board_change", "legal_actions", "new_game", "random_refill", "spiral", "tally",
    "validate",
]
