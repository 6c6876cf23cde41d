"""The ``goldtable`` command line.

Subcommands live in :mod:`webui.commands`; they are imported only when used, so
``goldtable score`` never loads OpenCV.
"""

from __future__ import annotations

import importlib
from typing import Any

import click

# command name -> (module, attribute, one-line help shown by ``goldtable --help``)
COMMANDS: dict[str, tuple[str, str, str]] = {
    "serve": ("webui.commands.serve", "serve", "Start the companion web page."),
    "score": ("webui.commands.rules", "score", "Score a finished game from a JSON file."),
    "check": ("webui.commands.rules", "check", "Check one move for legality from a JSON file."),
    "analyze": ("webui.commands.look", "analyze", "Read the cards and/or board in a photo."),
    "judge": ("webui.commands.judge", "judge", "Judge the Splendor Duel move between two photos."),
    "enroll": ("webui.commands.look", "enroll", "Add reference images of cards to a user catalog."),
    "bench": ("webui.commands.bench", "bench", "Measure reader speed and accuracy on generated scenes."),
    "calibration-sheet": ("webui.commands.calibrate", "calibration_sheet",
                          "Write the printable calibration sheet."),
    "calibrate": ("webui.commands.calibrate", "calibrate", "Calibrate a table from the sheet."),
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        module, attr, _ = COMMANDS[cmd_name]
        cmd: click.Command = getattr(importlib.import_module(module), attr)
        return cmd

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, short) for name, (_, _, short) in COMMANDS.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="goldtable")
def main(**_: Any) -> None:
    """goldtable: a table companion for Silver & Gold, Splendor Duel, Fool's Gold, Valdora
    and My Gold Mine.

    It reads the table from a webcam or a photo, checks each move and scores the game.
    """
