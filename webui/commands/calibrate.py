"""``goldtable calibration-sheet`` and ``goldtable calibrate``.

``calibrate`` is a group whose subcommands are ``table`` (the default: ``goldtable calibrate
PHOTO`` means ``goldtable calibrate table PHOTO``), ``tokens``, ``seats`` and ``show``.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any

import click

from webui.commands._common import BadInput, echo_json, friendly_errors, read_json

PAPER = click.Choice(["a4", "letter"])


@click.command("calibration-sheet")
@click.argument("out", type=click.Path(dir_okay=False))
@click.option("--paper", type=PAPER, default="a4", show_default=True, help="Paper size.")
@click.option("--charuco", is_flag=True, help="Print the ChArUco board for lens calibration instead.")
@click.option("--dpi", type=click.IntRange(72, 1200), default=None, help="Resolution (default 300).")
@friendly_errors
def calibration_sheet(out: str, paper: str, charuco: bool, dpi: int | None) -> None:
    """Write the printable calibration sheet to OUT (.pdf or .png).

    Print it at 100 % scale (the bar must measure 100 mm), lay it flat on the table in view of
    the camera and run `goldtable calibrate`.
    """
    from calibration.sheet import write_sheet

    path = write_sheet(out, paper=paper, charuco=charuco, dpi=dpi)
    what = "ChArUco lens board" if charuco else "calibration sheet"
    click.echo(f"wrote the {what} ({paper}) to {path}")


class _DefaultTableGroup(click.Group):
    """A group where an unknown first word (a photo, or an option) means the ``table`` command."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        help_opts = set(ctx.help_option_names)
        if args and args[0] not in self.commands and args[0] not in help_opts:
            args = ["table", *args]
        return super().parse_args(ctx, args)


@click.group(cls=_DefaultTableGroup, context_settings={"help_option_names": ["-h", "--help"]})
def calibrate() -> None:
    """Calibrate a table from the printed sheet, enrol token colours, set seats.

    \b
    goldtable calibrate PHOTO [--name NAME]          (same as `calibrate table PHOTO`)
    goldtable calibrate --camera 0 [--lens]
    goldtable calibrate --video FILE
    goldtable calibrate tokens PHOTO --layout default [--profile NAME]
    goldtable calibrate tokens --show-default
    goldtable calibrate seats SEATS.json [--profile NAME]
    goldtable calibrate show [NAME]
    """


def _photo_frames(paths: tuple[str, ...]) -> Iterator[Any]:
    from vision.imageio import read_image

    for p in paths:
        yield read_image(p).image


@contextlib.contextmanager
def _stream(camera: int | None, video: str | None) -> Iterator[Any]:
    from vision.sources import CameraSource, VideoFileSource

    source = CameraSource(camera) if camera is not None else VideoFileSource(str(video))
    try:
        yield (frame.image for frame in source.frames())
    finally:
        source.close()


def _collect_lens(photos: tuple[str, ...], camera: int | None, video: str | None, paper: str) -> Any:
    from calibration.lens import LensCollector

    collector = LensCollector(paper)

    def feed(frames: Any, stop_when_enough: bool) -> None:
        with click.progressbar(length=collector.config.min_views, label="lens views", show_pos=True) as bar:
            collector.progress = lambda count, needed: bar.update(1) if count <= needed else None
            for image in frames:
                collector.add(image)
                if collector.count >= collector.config.max_views or (stop_when_enough and collector.enough):
                    break

    if photos:
        feed(_photo_frames(photos), False)
    else:
        with _stream(camera, video) as frames:
            if camera is not None:
                click.echo("show the ChArUco board to the camera from 10+ positions and angles", err=True)
            feed(frames, camera is not None)
    return collector.fit()


def _summary(cal: Any, path: Any) -> dict[str, Any]:
    p, v = cal.profile, cal.view
    return {
        "profile": p.name,
        "file": None if path is None else str(path),
        "paper": v.paper,
        "markers_found": [m.number for m in v.markers],
        "markers_missing": list(v.missing),
        "reprojection_px": round(v.reprojection_px, 3),
        "mm_per_px": round(v.mm_per_px, 4),
        "oblique_deg": round(v.oblique_deg, 1),
        "colour": p.colour.to_json(),
        "lens": None if p.lens is None else p.lens.to_json(),
        "seats": list(p.seats.names),
        "verdict": v.verdict,
    }


@calibrate.command("table")
@click.argument("photos", nargs=-1, type=click.Path(dir_okay=False))
@click.option("--camera", type=click.IntRange(0, 99), default=None, help="Camera index to read.")
@click.option("--video", type=click.Path(dir_okay=False), default=None, help="Video file to read.")
@click.option("--name", default="table", show_default=True, help="Profile name (or a .json path).")
@click.option("--lens", is_flag=True, help="Also fit the lens from 10+ views of the ChArUco board.")
@click.option("--paper", type=PAPER, default="a4", show_default=True,
              help="Paper the ChArUco board was printed on (for --lens).")
@click.option("--seats", "seats_file", type=click.Path(dir_okay=False), default=None,
              help="JSON file with seat polygons (px or mm).")
@click.option("--force", is_flag=True, help="Save the profile even when the verdict is not good.")
@click.option("--overlay", type=click.Path(dir_okay=False), default=None,
              help="Write the photo with the found sheet drawn on it.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@friendly_errors
def table(photos: tuple[str, ...], camera: int | None, video: str | None, name: str, lens: bool,
          paper: str, seats_file: str | None, force: bool, overlay: str | None, as_json: bool) -> None:
    """Find the sheet in PHOTO (or --camera N / --video FILE) and save a table profile.

    With --lens and photos, the photos showing the ChArUco board fit the lens and the last
    photo must show the calibration sheet.
    """
    from calibration.errors import CalibrationError
    from calibration.profile import (
        calibrate_frames,
        calibrate_image,
        default_video_config,
        profile_path,
        save_profile,
    )

    given = sum([bool(photos), camera is not None, video is not None])
    if given != 1:
        raise BadInput("give exactly one of PHOTO, --camera N or --video FILE")
    if name == "default":
        raise BadInput("--name: 'default' is reserved for the uncorrected profile; choose another name")
    profile_path(name)  # a bad name fails before any work
    seats = read_json(seats_file) if seats_file else None
    lens_model = _collect_lens(photos[:-1] or photos, camera, video, paper) if lens else None
    if photos:
        from vision.imageio import read_image

        image = read_image(photos[-1]).image
        cal = calibrate_image(image, name, lens_model, seats)
    else:
        limit = default_video_config().max_frames
        with _stream(camera, video) as frames:
            if camera is not None:
                click.echo("lay the calibration sheet flat on the table in view of the camera", err=True)
            with click.progressbar(length=limit, label="looking for the sheet", show_pos=True) as bar:
                cal = calibrate_frames(frames, name, lens_model, seats, on_frame=lambda _: bar.update(1))
        image = None
    if overlay:
        if image is None:
            raise BadInput("--overlay works with a PHOTO")
        _write_overlay(overlay, image, cal.view)
    path = None
    if cal.view.good or force:
        try:
            path = save_profile(cal.profile, name)
        except CalibrationError as exc:
            raise BadInput(str(exc)) from exc
    if as_json:
        echo_json(_summary(cal, path))
    else:
        _print_summary(cal, path)
    if path is None:
        raise BadInput(f"profile not saved: {cal.view.verdict} (fix it and retry, or pass --force)")


def _write_overlay(out: str, image: Any, view: Any) -> None:
    import cv2

    from calibration.homography import draw_table_view

    if not cv2.imwrite(out, draw_table_view(image, view)):
        raise BadInput(f"{out}: cannot write the overlay image (use .png or .jpg)")


def _print_summary(cal: Any, path: Any) -> None:
    s = _summary(cal, path)
    wb = s["colour"]["white_balance"]
    click.echo(f"sheet: {s['paper']}, markers found: {' '.join(map(str, s['markers_found']))}")
    click.echo(f"reprojection error: {s['reprojection_px']:.2f} px")
    click.echo(f"mm per pixel: {s['mm_per_px']:.3f}")
    click.echo(f"view angle: {s['oblique_deg']:.0f} degrees from straight on")
    click.echo(f"white balance (B G R): {wb[0]:.3f} {wb[1]:.3f} {wb[2]:.3f}; "
               f"colour fit residual {s['colour']['residual']:.1f}")
    if s["lens"]:
        click.echo(f"lens: fit error {s['lens']['rms_px']:.2f} px from {s['lens']['views']} views")
    if s["seats"]:
        click.echo(f"seats: {', '.join(s['seats'])}")
    click.echo(f"verdict: {s['verdict']}")
    if path is not None:
        click.echo(f"saved profile {s['profile']!r} to {path}")


@calibrate.command("tokens")
@click.argument("photo", required=False, type=click.Path(dir_okay=False))
@click.option("--layout", default=None, help="5 rows of WUGRKPY. (e.g. WUGRK,PYWUG,...), or 'default'.")
@click.option("--profile", "profile_name", default="table", show_default=True,
              help="Profile to store the token colours in (name or .json path).")
@click.option("--show-default", is_flag=True, help="Print the default layout and exit.")
@friendly_errors
def tokens(photo: str | None, layout: str | None, profile_name: str, show_default: bool) -> None:
    """Learn the token colours from PHOTO of the board laid out as --layout.

    Any side of the board may be the top row: the orientation is found from the photo. The
    learnt colours must read the photo back as the layout, or nothing is saved.
    """
    from calibration.profile import load_profile, save_profile
    from calibration.tokens import default_layout, enrol_tokens, format_layout, parse_layout

    if show_default:
        click.echo(format_layout(default_layout()))
        return
    if photo is None:
        raise BadInput("give the PHOTO of the board (or --show-default)")
    if layout is None:
        raise BadInput("--layout is required: 5 rows of WUGRKPY. or 'default' (see --show-default)")
    rows = parse_layout(layout)
    if profile_name == "default":
        raise BadInput("--profile: token colours cannot be stored in 'default'; calibrate a table first")
    from vision.imageio import read_image

    profile = load_profile(profile_name)
    image = read_image(photo).image
    updated = enrol_tokens(image, rows, profile)
    path = save_profile(updated, profile_name)
    click.echo(f"learned the token colours from {photo} (layout {','.join(rows)})")
    click.echo(f"saved profile {updated.name!r} to {path}")


@calibrate.command("seats")
@click.argument("seats_file", type=click.Path(dir_okay=False))
@click.option("--profile", "profile_name", default="table", show_default=True,
              help="Profile to store the seats in (name or .json path).")
@friendly_errors
def seats(seats_file: str, profile_name: str) -> None:
    """Set the seat zones of a profile from a JSON file (polygons in image px or table mm)."""
    from calibration.profile import load_profile, save_profile

    if profile_name == "default":
        raise BadInput("--profile: seats cannot be stored in 'default'; calibrate a table first")
    profile = load_profile(profile_name).with_seats(read_json(seats_file))
    path = save_profile(profile, profile_name)
    click.echo(f"seats {', '.join(profile.seats.names) or '(none)'} saved to {path}")


@calibrate.command("show")
@click.argument("name", required=False)
@friendly_errors
def show(name: str | None) -> None:
    """Print a saved profile as JSON, or list the saved profiles."""
    from calibration.profile import list_profiles, load_profile, profiles_dir

    if name is None:
        names = list_profiles()
        click.echo(f"profiles in {profiles_dir()}: {', '.join(names) if names else '(none)'}")
        return
    data = load_profile(name).to_json()
    if data.get("token_model") is not None:
        data["token_model"] = f"<{len(json.dumps(data['token_model']))} bytes>"
    echo_json(data)
