"""``goldtable bench splendor-duel``: the token-board reader on seeded generated scenes."""

from __future__ import annotations

import sys
from typing import Any

import click

from webui.commands._common import BadInput, echo_json, friendly_errors, parse_cast


@click.command("splendor-duel")
@click.option("--n", "n", type=click.IntRange(1, 100000), default=40, show_default=True,
              help="Scenes per tier.")
@click.option("--size", default="1920x1080", show_default=True, help="Image size WIDTHxHEIGHT.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the scenes.")
@click.option("--tier", type=click.Choice(["easy", "typical", "hard", "all"]), default="all",
              show_default=True, help="Difficulty tier(s) of camera and light.")
@click.option("--cast", default=None,
              help="Light for every scene: none (the tier's own), strong (one strong cast drawn from the "
                   "seed), or B,G,R gains. --profile auto implies strong.")
@click.option("--profile", "profile_arg", default=None,
              help="A profile NAME|PATH, or 'auto' to calibrate one under the scenes' light; adds a row "
                   "read with the profile next to the row without it.")
@click.option("--style", type=click.Choice(["mixed", "night", "parchment", "wood", "slate"]), default="mixed",
              show_default=True,
              help="Board art: mixed (each scene one of night, parchment and wood, the styles the reader "
                   "was developed on), one of those, or slate: held-out art no reader threshold was set on.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@friendly_errors
def bench_board(n: int, size: str, seed: int, tier: str, cast: str | None, profile_arg: str | None,
                style: str, as_json: bool) -> None:
    """Per-spot error with the W/P and Y/. confusions, whole-board exact reads and ms per image
    (median, p95; one core), per tier, on seeded generated board scenes."""
    import numpy as np

    from vision.bench.board import TIERS, format_rows, run_tier, scene_conditions
    from vision.bench.common import parse_size
    from vision.synth.camera import strong_cast

    try:
        wh = parse_size(size)
    except ValueError as exc:
        raise BadInput(f"--size: {exc}") from exc
    kind, gains = parse_cast(cast)
    if profile_arg == "auto" and kind == "none":
        kind = "strong"
    if kind == "strong":
        gains = strong_cast(np.random.default_rng([seed, 99]))
    from vision.synth.board import HELD_OUT_STYLES

    profiles: list[tuple[str, Any]] = [("none", None)]
    named = None if style == "mixed" else style
    board = None  # the one board of the enrolment and of every scene, with --profile auto
    if profile_arg is not None:
        from calibration.profile import resolve_profile

        if profile_arg == "auto":
            from calibration.bench import profile_for_conditions
            from vision.synth.board import sample_style

            # a table has one board: the tokens are enrolled on the board every scene shows
            board = sample_style(np.random.default_rng([seed, 97]), named)
            rng = np.random.default_rng([seed, 98])
            cond = scene_conditions(rng, "typical", wh, gains)
            profile = profile_for_conditions(cond, rng, board_style=board)
        else:
            profile = resolve_profile(profile_arg)
        profiles.append((profile_arg if len(profile_arg) <= 10 else "profile", profile))
    tiers = TIERS if tier == "all" else (tier,)
    rows = []
    for t in tiers:
        with click.progressbar(length=n, label=f"{t:<8}", file=sys.stderr) as bar:
            last = [0]

            def step(done: int, bar: Any = bar, last: list[int] = last) -> None:
                bar.update(done - last[0])
                last[0] = done

            rows.extend(run_tier(t, n, seed, wh, gains, profiles, step,
                                 style=board if board is not None else named))
    if as_json:
        board_json = board.name if board is not None else named
        cast_json = None if gains is None else [round(g, 3) for g in gains]
        echo_json({"size": list(wh), "seed": seed, "cast": cast_json, "board": board_json,
                   "rows": [r.to_json() for r in rows]})
    else:
        if gains is not None:
            click.echo(f"light cast (B,G,R gains): {', '.join(f'{g:.2f}' for g in gains)}")
        if board is not None:
            click.echo(f"board (one for every scene and the enrolment): {board.name}")
        elif named is not None:
            held = " (held out)" if named in HELD_OUT_STYLES else ""
            click.echo(f"board style of every scene: {named}{held}")
        click.echo(format_rows(rows))
