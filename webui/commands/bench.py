"""``goldtable bench``: speed and accuracy on generated scenes, one subcommand per reader."""

from __future__ import annotations

import importlib

import click

# subcommand -> (module, attribute, one-line help)
BENCHES: dict[str, tuple[str, str, str]] = {
    "silver-gold": ("webui.commands.bench_cards", "bench_cards",
                    "Map-card reader: recall, id accuracy, per-cell error, ms per stage."),
    "splendor-duel": ("webui.commands.bench_board", "bench_board",
                      "Token-board reader: per-spot error, confusions, whole-board exact, ms."),
    "live": ("webui.commands.bench_live", "bench_live",
             "Live tracker on a generated game video: fps and event latency."),
}


class _LazyBenches(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(BENCHES)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in BENCHES:
            return None
        module, attr, _ = BENCHES[cmd_name]
        cmd: click.Command = getattr(importlib.import_module(module), attr)
        return cmd

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Benchmarks"):
            formatter.write_dl([(name, short) for name, (_, _, short) in BENCHES.items()])


@click.group(cls=_LazyBenches)
def bench() -> None:
    """Measure speed and accuracy on seeded generated scenes (never on your own photos)."""
