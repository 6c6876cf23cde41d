"""``goldtable judge BEFORE AFTER --game splendor-duel``: what happened on the token board
between two photos, and whether it was legal."""

from __future__ import annotations

from typing import Any

import click

from webui.commands._common import BadInput, echo_json, friendly_errors


def _rotate(rows: tuple[str, ...], k: int) -> tuple[str, ...]:
    """The 5x5 letters turned ``k`` quarter turns anticlockwise."""
    grid = [list(r) for r in rows]
    for _ in range(k % 4):
        grid = [list(col) for col in zip(*grid, strict=True)][::-1]
    return tuple("".join(r) for r in grid)


def _unrotate_cell(cell: tuple[int, int], k: int) -> tuple[int, int]:
    """A cell of ``_rotate(rows, k)`` back in the frame of ``rows``."""
    r, c = cell
    for _ in range(k % 4):
        r, c = c, 4 - r
    return r, c


def judge_readings(before: tuple[str, ...], after: tuple[str, ...],
                   privileges: int | None = None) -> tuple[Any, int]:
    """Explain the change between two readings in the frame "as seen".

    The readings carry no print orientation, so the refill's spiral may start in any of the four
    directions: when the change reads as illegal as seen, each quarter turn is tried as well and
    the first legal reading is kept.

    ``privileges`` is how many privileges the moving player held (unknown: up to 3), which
    decides whether tokens beyond one straight take can be privilege uses.

    Returns
    -------
    (BoardChange, k)
        ``k`` quarter turns under which the change was explained (cells are in that frame).

    Raises
    ------
    scoring.errors.InvalidInput
        When a reading is not a valid board.
    """
    from scoring.splendor_duel import Board
    from scoring.splendor_duel.infer import infer_board_change

    first = None
    for k in range(4):
        b = Board.parse(list(_rotate(before, k)), "before", allow_unknown=True)
        a = Board.parse(list(_rotate(after, k)), "after", allow_unknown=True)
        change = infer_board_change(b, a, privileges=privileges)
        if first is None:
            first = change
        if change.legal:
            return change, k
        if "refill" not in change.action and "refill" not in change.reason:
            break
    assert first is not None
    return first, 0


def describe(change: Any, before: tuple[str, ...], k: int) -> str:
    """One line such as ``took W,W,W in a row: legal — opponent takes a privilege``."""
    rows = _rotate(before, k)
    parts = []
    if change.privilege_cells:
        letters = ",".join(rows[r][c] for r, c in change.privilege_cells)
        parts.append(f"used {len(change.privilege_cells)} privilege(s) for {letters}")
    if change.refill_cells:
        parts.append(f"refilled {len(change.refill_cells)} cell(s)")
    if change.take_cells:
        letters = ",".join(rows[r][c] for r, c in change.take_cells)
        if "reserve_gold" in change.action:
            parts.append(f"took {letters} with a reservation")
        else:
            parts.append(f"took {letters} in a row" if len(change.take_cells) > 1 else f"took {letters}")
    if not parts and change.cells:
        letters = ",".join(rows[r][c] if rows[r][c] != "." else "?" for r, c in change.cells)
        refill = change.action == "refill"
        parts.append(f"refilled {len(change.cells)} cell(s)" if refill else f"took {letters}")
    what = ", then ".join(parts) if parts else change.action.replace("+", ", ")
    if change.legal:
        verdict = "legal"
        if change.privileges_to_opponent:
            n = change.privileges_to_opponent
            verdict += " — opponent takes a privilege" if n == 1 else f" — opponent takes {n} privileges"
    else:
        verdict = f"illegal — {change.reason}"
    note = f" ({len(change.unknown_cells)} cell(s) unreadable)" if change.unknown_cells else ""
    return f"{what}: {verdict}{note}"


def _doubts(change: Any, k: int, before: Any, after: Any) -> str:
    """A note naming the changed spots that either photo read with low confidence (their reading
    decides the verdict), or nothing."""
    changed = {_unrotate_cell((r, c), k) for r, c in change.cells}
    unsure = [f"({r},{c}) in the {which} photo" for which, reading in (("before", before), ("after", after))
              for r, c in sorted(reading.doubtful) if (r, c) in changed]
    return f" — check {', '.join(unsure)}: read with low confidence" if unsure else ""


def _read_board(path: str, profile: Any) -> Any:
    from vision.board import read
    from vision.imageio import read_image

    decoded = read_image(path)
    image = decoded.image if profile is None else profile.prepare(decoded.image)
    reading = read(image, profile=profile)
    if reading is None:
        raise BadInput(f"{path}: no Splendor Duel board found in the photo")
    return reading


@click.command("judge")
@click.argument("before", type=click.Path(dir_okay=False))
@click.argument("after", type=click.Path(dir_okay=False))
@click.option("--game", type=click.Choice(["splendor-duel"]), default="splendor-duel", show_default=True,
              help="The game whose board is judged.")
@click.option("--profile", "profile_arg", default=None, help="A calibrated table profile, NAME or PATH.")
@click.option("--privileges", type=click.IntRange(0, 3), default=None,
              help="Privileges the moving player held before the move (default: unknown, up to 3).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of one line.")
@friendly_errors
def judge(before: str, after: str, game: str, profile_arg: str | None, privileges: int | None,
          as_json: bool) -> None:
    """Read the token board in BEFORE and AFTER and say what happened and whether it was legal."""
    profile = None
    if profile_arg is not None:
        from calibration.profile import resolve_profile

        profile = resolve_profile(profile_arg)
    first = _read_board(before, profile)
    second = _read_board(after, profile)
    from vision.board.doubt import keep_doubtful_kinds

    # a doubtful kind shows no change of kind (see keep_doubtful_kinds)
    after_cells = keep_doubtful_kinds(first.cells, second.cells, {*first.doubtful, *second.doubtful})
    change, k = judge_readings(first.cells, after_cells, privileges)
    text = describe(change, first.cells, k) + _doubts(change, k, first, second)
    if as_json:
        data = change.to_json()
        for key in ("cells", "take_cells", "privilege_cells", "refill_cells", "unknown_cells"):
            data[key] = [list(_unrotate_cell((r, c), k)) for r, c in data[key]]
        echo_json({"game": game, "before": first.to_json(), "after": second.to_json(), **data,
                   "summary": text})
    else:
        click.echo(text)
