"""The command line answers --help at every level without a traceback."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from webui.cli import COMMANDS, main
from webui.commands.bench import BENCHES


def test_top_level_help_lists_every_command() -> None:
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    for name in COMMANDS:
        assert name in result.output


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_command_has_help(name: str) -> None:
    result = CliRunner().invoke(main, [name, "--help"])
    assert result.exit_code == 0, result.output
    assert "Usage:" in result.output


@pytest.mark.parametrize("name", sorted(BENCHES))
def test_each_benchmark_has_help(name: str) -> None:
    result = CliRunner().invoke(main, ["bench", name, "--help"])
    assert result.exit_code == 0, result.output
    assert "--seed" in result.output or "--seconds" in result.output


def _paths(group: click.Group, prefix: list[str]) -> list[list[str]]:
    ctx = click.Context(group)
    out: list[list[str]] = []
    for name in group.list_commands(ctx):
        cmd = group.get_command(ctx, name)
        assert cmd is not None, name
        out.append([*prefix, name])
        if isinstance(cmd, click.Group):
            out.extend(_paths(cmd, [*prefix, name]))
    return out


def test_help_at_every_level() -> None:
    paths = _paths(main, [])
    assert ["bench", "live"] in paths and ["calibrate", "tokens"] in paths
    for path in paths:
        result = CliRunner().invoke(main, [*path, "--help"])
        assert result.exit_code == 0, (path, result.output)
        assert "Usage:" in result.output


def test_unknown_command_is_a_usage_error() -> None:
    result = CliRunner().invoke(main, ["frobnicate"])
    assert result.exit_code == 2
