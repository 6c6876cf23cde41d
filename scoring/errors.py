"""The typed errors of :mod:`scoring`."""

from __future__ import annotations


class ScoringError(Exception):
    """Base class of every error raised by the rules engines."""


class InvalidInput(ScoringError):
    """Input data that no rule can accept. ``field`` names the offending field as a path,
    e.g. ``players[1].coins``; ``problem`` says what is wrong with it."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field
        self.problem = problem
