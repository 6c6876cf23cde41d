"""``goldtable score`` and ``goldtable check``: the rules engines on JSON files.

Both read a file or ``-`` (standard input) and print JSON. Exit 0 for every answer (an illegal move
included); exit 2 with a one-line message naming the field for bad input.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

import scoring
from webui.commands._common import BadInput, echo_json, friendly_errors, read_json


def _run(entry: scoring.GameEntry, action: Callable[[scoring.GameEntry], Any]) -> Any:
    """Call ``action(entry)``; a game whose engine is not installed is bad input, not a crash."""
    try:
        entry.load()
    except ModuleNotFoundError as exc:
        if exc.name and entry.module.startswith(exc.name):
            raise BadInput(f"game: {entry.name!r} has no rules engine in this installation") from exc
        raise
    return action(entry)


@click.command()
@click.argument("file", required=False, metavar="FILE|-")
@click.option("--template", "template_game", metavar="GAME",
              help="Print a filled example input for GAME instead of scoring "
                   f"({', '.join(scoring.GAMES)}).")
@friendly_errors
def score(file: str | None, template_game: str | None) -> None:
    """Score a finished game from a JSON file (or - for standard input).

    The input is {"game": GAME, "players": [...]} (My Gold Mine: {"game", "rounds": [...]});
    `goldtable score --template GAME` prints a filled example. The output gives each player's
    total, rank and breakdown, the winners and how ties were broken.
    """
    if template_game is not None:
        if file is not None:
            raise BadInput("give either FILE or --template GAME, not both")
        echo_json(_run(scoring.game_entry({"game": template_game}), lambda e: e.template()))
        return
    if file is None:
        raise BadInput("missing FILE (a JSON file, or - for standard input); see --help")
    data = read_json(file)
    echo_json(_run(scoring.game_entry(data), lambda e: e.score(data)))


@click.command()
@click.argument("file", required=False, metavar="FILE|-")
@click.option("--template", "template_game", metavar="GAME",
              help="Print a filled example input for GAME instead of checking.")
@friendly_errors
def check(file: str | None, template_game: str | None) -> None:
    """Check one move for legality from a JSON file (or - for standard input).

    Silver & Gold: {"game": "silver-gold", "shape": "e6", "cards": [{"id", "before", "after"}, ...]}.
    Splendor Duel: {"game": "splendor-duel", "board": [...], "take": [[r, c], ...]} or
    {"game": "splendor-duel", "before": [...], "after": [...]}. An illegal move is an answer
    (exit 0) with the reason in the output.
    """
    if template_game is not None:
        if file is not None:
            raise BadInput("give either FILE or --template GAME, not both")
        entry = scoring.game_entry({"game": template_game})
        if not entry.has_check:
            raise BadInput(f"game: {template_game!r} has no move checker")
        example = _run(entry, lambda e: getattr(e.load(), "check_template", None))
        if example is None:
            raise BadInput(f"game: {template_game!r} has no check example")
        echo_json(example())
        return
    if file is None:
        raise BadInput("missing FILE (a JSON file, or - for standard input); see --help")
    data = read_json(file)
    echo_json(_run(scoring.game_entry(data), lambda e: e.check(data)))
