"""``goldtable analyze`` and ``goldtable enroll``: read a photo, add card references."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from webui.commands._common import BadInput, echo_json, friendly_errors

GAME_CHOICES = ("auto", "silver-gold", "splendor-duel")


def _load_profile(arg: str) -> Any:
    try:
        from calibration.profile import load_profile
    except ImportError as exc:
        raise BadInput("--profile: table profiles are not available in this installation") from exc
    return load_profile(arg)


def _overlay(image: Any, scene: Any, path: str) -> None:
    import cv2

    from vision.cards.draw import draw_cards, draw_expedition

    out = draw_expedition(draw_cards(image, scene.cards), scene.expedition)
    if scene.board is not None:
        try:
            from vision.board.draw import draw_board
        except ImportError:
            draw_board = None
        if draw_board is not None:
            out = draw_board(out, scene.board)
    try:
        ok = cv2.imwrite(path, out)
    except cv2.error as exc:
        reason = exc.msg.strip() or "unsupported format"
        raise BadInput(f"{path}: cannot write the overlay ({reason})") from exc
    if not ok:
        raise BadInput(f"{path}: cannot write the overlay (unknown extension or unwritable folder)")


def _table(scene: Any, game: str) -> None:
    click.echo(f"image {scene.width}x{scene.height}, read in {scene.elapsed_ms:.0f} ms")
    if game in ("auto", "silver-gold"):
        if not scene.cards:
            click.echo("no map cards found")
        else:
            click.echo(f"{'card':<8}{'colour':<8}{'conf':>6}  {'marked':<32} {'uncertain':<16} state")
        for c in scene.cards:
            state = "partial" if c.partial else ("complete" if c.complete else "")
            marked = " ".join(f"{r},{k}" for r, k in c.marked) or "-"
            unsure = " ".join(f"{r},{k}" for r, k in c.uncertain) or "-"
            click.echo(f"{c.id or '?':<8}{c.colour or '?':<8}{c.confidence:>6.2f}  "
                       f"{marked:<32} {unsure:<16} {state}")
        exp = scene.expedition
        click.echo(f"expedition: {exp.id} ({exp.confidence:.2f})" if exp else "expedition: none")
    if game in ("auto", "splendor-duel"):
        if scene.board is None:
            click.echo("board: not found")
        else:
            click.echo("board:")
            for row in scene.board.cells:
                click.echo("  " + " ".join(row))


@click.command()
@click.argument("photo", type=click.Path(dir_okay=False))
@click.option("--game", type=click.Choice(GAME_CHOICES), default="auto", show_default=True,
              help="Which readers to run.")
@click.option("--catalog", "catalog_dir", type=click.Path(), default=None, metavar="DIR",
              help="A user card catalog: cards.json and refs/<id>.png.")
@click.option("--profile", "profile_arg", default=None, metavar="NAME|PATH",
              help="A calibrated table profile.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--overlay", type=click.Path(dir_okay=False), default=None, metavar="OUT.png",
              help="Write the photo with outlines, ids and per-cell verdicts drawn on it.")
@friendly_errors
def analyze(photo: str, game: str, catalog_dir: str | None, profile_arg: str | None, as_json: bool,
            overlay: str | None) -> None:
    """Read the map cards, the expedition card and/or the token board in PHOTO."""
    from vision.analyze import analyze as run
    from vision.analyze import scale_reading
    from vision.cards.catalog import load_catalog
    from vision.imageio import read_image

    catalog = load_catalog(catalog_dir) if catalog_dir else None
    profile = _load_profile(profile_arg) if profile_arg else None
    decoded = read_image(photo)
    scene = run(decoded.image, game=game, catalog=catalog, profile=profile)
    if overlay:
        _overlay(decoded.image, scene, overlay)
    scene = scale_reading(scene, decoded.scale, decoded.original_size)
    if as_json:
        echo_json(scene.to_json(game))
    else:
        _table(scene, game)


@click.command()
@click.argument("photos", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--catalog", "catalog_dir", type=click.Path(file_okay=False), required=True, metavar="DIR",
              help="The user catalog to add refs/<id>.png to (created when missing).")
@friendly_errors
def enroll(photos: tuple[str, ...], catalog_dir: str) -> None:
    """Add reference faces to a user catalog from PHOTOS of unmarked cards."""
    from vision.cards.catalog import load_catalog
    from vision.cards.enroll import enroll as find
    from vision.cards.enroll import save_reference
    from vision.imageio import read_image

    root = Path(catalog_dir)
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BadInput(f"{root}: cannot create the catalog folder ({exc.strerror or exc})") from exc
    catalog = load_catalog(root)
    total = 0
    for photo in photos:
        decoded = read_image(photo)
        found = find(decoded.image, catalog)
        for item in found:
            path = save_reference(root, item)
            click.echo(f"{photo}: {item.id} -> {path}")
        if not found:
            click.echo(f"{photo}: no identified unmarked card", err=True)
        total += len(found)
    if total == 0:
        raise BadInput("no reference added: no identified, unmarked card was found in the photos")
    click.echo(f"{total} reference(s) in {root / 'refs'}")
