"""``goldtable bench silver-gold``: the map-card reader on seeded generated scenes."""

from __future__ import annotations

import sys
from typing import Any

import click

from webui.commands._common import BadInput, echo_json, friendly_errors, parse_cast


def _auto_profile_factory() -> Any:
    """``profile_for(conditions, rng)``: the sheet calibration only; map cards need no token model,
    so no board is rendered and enrolled."""
    try:
        from calibration.bench import profile_for_conditions
    except ImportError as exc:
        raise BadInput("--profile auto needs calibration.bench.profile_for_conditions, which is not "
                       "available in this installation") from exc

    def profile_for(conditions: Any, rng: Any) -> Any:
        return profile_for_conditions(conditions, rng, tokens=False)

    return profile_for


def _light_words(light: bool | tuple[float, float, float]) -> str:
    if isinstance(light, tuple):
        return ", light cast (B,G,R) " + ", ".join(f"{g:.2f}" for g in light)
    return ", strong colour casts" if light else ""


@click.command("silver-gold")
@click.option("--n", "n", type=click.IntRange(1, 100000), default=200, show_default=True,
              help="Scenes per tier.")
@click.option("--size", default="1920x1080", show_default=True, help="Image size WIDTHxHEIGHT.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the scenes.")
@click.option("--tier", type=click.Choice(["easy", "typical", "hard", "all"]), default="all",
              show_default=True, help="Difficulty tier(s) of camera and light.")
@click.option("--cast", default=None, metavar="none|strong|B,G,R",
              help="Light for every scene: none (the tier's own), strong (each scene its own strong "
                   "colour cast), or B,G,R gains for all scenes. --profile auto implies strong.")
@click.option("--profile", "profile_arg", default=None, metavar="NAME|PATH|auto",
              help="Also read every scene through a table profile and print both rows. 'auto' calibrates "
                   "a profile from the calibration sheet photographed under each scene's own light "
                   "(implies --cast strong).")
@click.option("--style", type=click.Choice(["mixed", "classic", "modern", "stamped"]), default="mixed",
              show_default=True,
              help="Face style of the cards: mixed (each scene one of classic and modern, the styles the "
                   "readers were developed on), one of those, or stamped: held-out art no reader "
                   "threshold was set on.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of tables.")
@friendly_errors
def bench_cards(n: int, size: str, seed: int, tier: str, cast: str | None, profile_arg: str | None,
                style: str, as_json: bool) -> None:
    """Card recall and precision, id accuracy, per-cell error, whole-card exact rate and ms per
    image per stage (median, p95; one OpenCV thread), per tier, on seeded generated scenes."""
    from vision.bench.cards import format_results, run_tier
    from vision.bench.common import parse_size
    from vision.synth.camera import TIERS
    from vision.synth.cards import HELD_OUT_STYLES

    try:
        wh = parse_size(size)
    except ValueError as exc:
        raise BadInput(f"--size: {exc}") from exc
    kind, gains = parse_cast(cast)
    light: bool | tuple[float, float, float] = gains if gains is not None else kind == "strong"
    profile = None
    profile_for = None
    if profile_arg == "auto":
        profile_for = _auto_profile_factory()
        if gains is None:
            light = True
    elif profile_arg is not None:
        from calibration.profile import resolve_profile

        profile = resolve_profile(profile_arg)
    tiers = TIERS if tier == "all" else (tier,)
    results = []
    with click.progressbar(length=n * len(tiers), label="scenes", file=sys.stderr) as bar:
        for t in tiers:
            results.extend(run_tier(t, n, seed=seed, size=wh, cast=light, profile=profile,
                                    profile_for=profile_for, progress=bar.update,
                                    style=None if style == "mixed" else style))
    cast_json: Any = list(light) if isinstance(light, tuple) else light
    if as_json:
        echo_json({
            "settings": {"n": n, "size": list(wh), "seed": seed, "tiers": list(tiers), "cast": cast_json,
                         "profile": profile_arg, "style": style},
            "results": [r.to_json() for r in results],
        })
    else:
        held = " (held out)" if style in HELD_OUT_STYLES else ""
        styles = "" if style == "mixed" else f", {style} faces{held}"
        click.echo(f"Silver & Gold map cards: {n} scenes per tier, {wh[0]}x{wh[1]}, seed {seed}"
                   + styles + _light_words(light))
        click.echo(format_results(results))
