"""Doubtful readings between two views of one board."""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def keep_doubtful_kinds(old: Sequence[str], new: Sequence[str],
                        doubtful: Iterable[tuple[int, int]]) -> tuple[str, ...]:
    """``new`` with each doubtful spot that shows a token in both readings, of another kind in
    each, given back its ``old`` letter.

    A doubtful kind (white against pearl under a strong cast, read with no confidence) cannot
    show that a token changed its kind, which no move does; a token taken or placed still shows.

    Parameters
    ----------
    old, new : 5 strings of 5 letters from ``WUGRKPY.?``
    doubtful : spots ``(r, c)`` read doubtfully in either reading

    Returns
    -------
    tuple of 5 str
    """
    rows = [list(r) for r in new]
    for r, c in doubtful:
        x, y = old[r][c], rows[r][c]
        if x != y and x not in ".?" and y not in ".?":
            rows[r][c] = x
    return tuple("".join(r) for r in rows)
