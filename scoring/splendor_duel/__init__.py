"""Splendor Duel: the full rules engine, the board-change reader and final scoring."""
