"""The Silver & Gold benchmark: the map-card reader on seeded generated scenes.

Each tier (easy, typical, hard) renders ``n`` scenes with :func:`vision.synth.scene.render_scene`
and reads them with :func:`vision.analyze.analyze` (``game="silver-gold"``). Readings are matched
to the truth by the distance between card centres (for a card cut by the image edge, the centre of
its part in the photo, which is all a reading of it can outline).

Measures, per tier:

recall
    complete (uncut) cards matched by a reading / complete cards.
precision
    readings matched to a card (complete or cut) / readings.
id accuracy
    matched complete cards read with the right id / matched complete cards.
misnamed
    matched complete cards named with a wrong id / matched complete cards (a player names an
    unknown card on the game page; a wrong name silently scores another card).
cell error
    wrong definite verdicts (marked vs. unmarked) / cells, over matched complete cards with the
    right id; an ``uncertain`` cell is not an error but is counted in ``uncertain``.
exact
    complete cards read with the right id, every cell right and none uncertain / complete cards.
missed marks
    per pen gesture (cross, slash, ...) and the cell's print (plain, X, C, P): marked cells read
    unmarked / marked cells, over the cards of the cell error; an ``uncertain`` cell is not missed.
    Also, for X and P cells, the marks in a pen of the print's own hue (red on X, green on P),
    and, for each print, the hidden marks: those that changed under ``HIDDEN_SHARE`` of their
    cell's face pixels (a pen of the print's colour over the print), which no photo may show.
false marks
    per cell print: unmarked cells read marked / unmarked cells, over the same cards.
partial flagged
    matched cut cards reported as ``partial`` / matched cut cards.
expedition
    scenes whose uncut expedition card is read with the right shape / such scenes (cards of equal
    shape, e2/e3 and e4/e5, differ only in art).

When a card's grid looks the same under a quarter or half turn, marks read in any of those
equivalent frames count as right.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from vision.bench.common import (
    TimingStats,
    bench_rng,
    fmt_ms,
    fmt_rate,
    format_table,
    rate,
    single_thread,
    stage_stats,
    timed,
)
from vision.cards.expedition import same_shape
from vision.profile import ProfileLike
from vision.synth.camera import TIERS, Conditions
from vision.synth.cards import map_card
from vision.synth.marks import MARK_KINDS
from vision.synth.scene import CardTruth, Scene, render_scene
from vision.types import CardReading, SceneReading

__all__ = [
    "CardCounts",
    "TierResult",
    "format_pens",
    "format_results",
    "match_readings",
    "run_tier",
    "score_scene",
]

Cell = tuple[int, int]
ProfileFactory = Callable[[Conditions, np.random.Generator], ProfileLike]
Reader = Callable[[np.ndarray, ProfileLike | None], SceneReading]

PRINTS: tuple[str, ...] = ("plain", "X", "C", "P")  # a cell's print: none, cross, coin, palm
SAME_HUE: dict[str, str] = {"X": "red", "P": "green"}  # the pen ink of each print's own hue
HIDDEN_SHARE = 0.05  # a mark that changed less of its cell's face pixels is hidden (see CardTruth.pens)
MATCH_SHARE = 0.4  # a reading matches a card when the centres are closer than this share of its short side


@dataclass
class CardCounts:
    """Running counts of one tier (see the module docstring for the measures)."""

    images: int = 0
    truth_complete: int = 0
    truth_partial: int = 0
    readings: int = 0
    matched_complete: int = 0
    matched_partial: int = 0
    matched_readings: int = 0
    id_right: int = 0
    misnamed: int = 0
    cells: int = 0
    cells_wrong: int = 0
    cells_uncertain: int = 0
    exact: int = 0
    partial_flagged: int = 0
    expedition_total: int = 0
    expedition_right: int = 0
    failures: int = 0
    first_failure: str = ""
    # (gesture, print) -> marked cells / those read unmarked; print -> unmarked cells / read marked
    pen_cells: Counter[tuple[str, str]] = field(default_factory=Counter)
    pen_missed: Counter[tuple[str, str]] = field(default_factory=Counter)
    clean_cells: Counter[str] = field(default_factory=Counter)
    false_marks: Counter[str] = field(default_factory=Counter)
    # print -> marked cells in a pen of the print's own hue (SAME_HUE) / those read unmarked
    hue_cells: Counter[str] = field(default_factory=Counter)
    hue_missed: Counter[str] = field(default_factory=Counter)
    # print -> marked cells whose mark changed under HIDDEN_SHARE of the cell / those read unmarked
    hidden_cells: Counter[str] = field(default_factory=Counter)
    hidden_missed: Counter[str] = field(default_factory=Counter)

    def add(self, other: CardCounts) -> None:
        for name in self.__dataclass_fields__:
            if name == "first_failure":
                self.first_failure = self.first_failure or other.first_failure
            elif isinstance(getattr(self, name), Counter):
                getattr(self, name).update(getattr(other, name))
            else:
                setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass(frozen=True)
class TierResult:
    """The measures of one tier, with or without a profile."""

    tier: str
    profile: str
    counts: CardCounts
    ms: dict[str, TimingStats] = field(default_factory=dict)

    @property
    def recall(self) -> float | None:
        return rate(self.counts.matched_complete, self.counts.truth_complete)

    @property
    def precision(self) -> float | None:
        return rate(self.counts.matched_readings, self.counts.readings)

    @property
    def id_accuracy(self) -> float | None:
        return rate(self.counts.id_right, self.counts.matched_complete)

    @property
    def misnamed(self) -> float | None:
        return rate(self.counts.misnamed, self.counts.matched_complete)

    @property
    def cell_error(self) -> float | None:
        return rate(self.counts.cells_wrong, self.counts.cells)

    @property
    def cell_uncertain(self) -> float | None:
        return rate(self.counts.cells_uncertain, self.counts.cells)

    @property
    def exact(self) -> float | None:
        return rate(self.counts.exact, self.counts.truth_complete)

    @property
    def partial_flagged(self) -> float | None:
        return rate(self.counts.partial_flagged, self.counts.matched_partial)

    @property
    def expedition(self) -> float | None:
        return rate(self.counts.expedition_right, self.counts.expedition_total)

    def to_json(self) -> dict[str, Any]:
        def r(v: float | None) -> float | None:
            return None if v is None else round(v, 5)

        c = self.counts
        return {
            "tier": self.tier,
            "profile": self.profile,
            "images": c.images,
            "cards": c.truth_complete,
            "cut_cards": c.truth_partial,
            "readings": c.readings,
            "recall": r(self.recall),
            "precision": r(self.precision),
            "id_accuracy": r(self.id_accuracy),
            "misnamed": r(self.misnamed),
            "cell_error": r(self.cell_error),
            "cell_uncertain": r(self.cell_uncertain),
            "exact": r(self.exact),
            "partial_flagged": r(self.partial_flagged),
            "expedition_accuracy": r(self.expedition),
            "missed_marks": {
                kind: {p: [c.pen_missed[(kind, p)], c.pen_cells[(kind, p)]]
                       for p in PRINTS if c.pen_cells[(kind, p)]}
                for kind in _gestures(c)
            },
            "missed_in_own_hue": {p: [c.hue_missed[p], c.hue_cells[p]] for p in SAME_HUE if c.hue_cells[p]},
            "missed_hidden": {p: [c.hidden_missed[p], c.hidden_cells[p]]
                              for p in PRINTS if c.hidden_cells[p]},
            "false_marks": {p: [c.false_marks[p], c.clean_cells[p]] for p in PRINTS if c.clean_cells[p]},
            "failures": c.failures,
            "first_failure": c.first_failure or None,
            "ms": {k: v.to_json() for k, v in self.ms.items()},
        }


def _gestures(c: CardCounts) -> list[str]:
    """The pen gestures counted in ``c``, in the order of :data:`MARK_KINDS` (others after)."""
    seen = {kind for kind, _ in c.pen_cells}
    return [k for k in MARK_KINDS if k in seen] + sorted(seen - set(MARK_KINDS))


# ----------------------------------------------------------------------------------------- scoring


def _centre(quad: Sequence[Sequence[float]]) -> np.ndarray:
    return np.asarray(quad, np.float64).reshape(4, 2).mean(axis=0)


def _short_side(quad: Sequence[Sequence[float]]) -> float:
    q = np.asarray(quad, np.float64).reshape(4, 2)
    return float(min(np.linalg.norm(q[(i + 1) % 4] - q[i]) for i in range(4)))


def _visible_centre(quad: Sequence[Sequence[float]], size: tuple[int, int]) -> np.ndarray:
    """The centroid of the part of ``quad`` inside an image of ``size`` ``(width, height)``
    (the quad's own centre when none of it is inside)."""
    w, h = size
    frame = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)
    area, part = cv2.intersectConvexConvex(np.asarray(quad, np.float32).reshape(4, 2), frame)
    if part is None or area <= 0:
        return _centre(quad)
    m = cv2.moments(part.reshape(-1, 1, 2).astype(np.float32))
    return np.array([m["m10"] / m["m00"], m["m01"] / m["m00"]]) if m["m00"] > 0 else _centre(quad)


def match_readings(truth: Sequence[CardTruth], readings: Sequence[CardReading],
                   size: tuple[int, int] | None = None) -> list[tuple[int, int]]:
    """Pairs ``(truth index, reading index)``, closest centres first, each used once.

    A pair needs its centres closer than ``MATCH_SHARE`` of the true card's shorter side. With the
    image ``size`` ``(width, height)``, a card cut by the image edge is placed at the centre of its
    part inside the photo: a reading of a cut card outlines only that part.
    """
    pairs: list[tuple[float, int, int]] = []
    for i, t in enumerate(truth):
        tc = _visible_centre(t.corners, size) if size is not None and t.partial else _centre(t.corners)
        limit = MATCH_SHARE * _short_side(t.corners)
        for j, rd in enumerate(readings):
            d = float(np.linalg.norm(_centre(rd.corners) - tc))
            if d < limit:
                pairs.append((d, i, j))
    pairs.sort()
    used_t: set[int] = set()
    used_r: set[int] = set()
    out: list[tuple[int, int]] = []
    for _, i, j in pairs:
        if i not in used_t and j not in used_r:
            used_t.add(i)
            used_r.add(j)
            out.append((i, j))
    return out


def _symmetries(card_id: str) -> list[np.ndarray]:
    """Index grids of the quarter turns that leave the card's symbol grid unchanged.

    Each is an array ``(rows, cols)`` whose entry at a cell is the flat index of the cell it
    maps to.
    """
    card = map_card(card_id)
    base = card.grid(0)
    rows, cols = base.shape
    out = []
    for k in range(4):
        turned = card.grid(k)
        if turned.shape == base.shape and np.array_equal(turned, base):
            out.append(np.rot90(np.arange(rows * cols).reshape(rows, cols), -k))
    return out


def _cell_errors(t: CardTruth, rd: CardReading, counts: CardCounts | None = None) -> tuple[int, int, int]:
    """(cells, wrong, uncertain) of a reading with the right id, best over the grid's symmetries.

    With ``counts``, each cell of that best frame is also counted by its pen gesture and print
    (``pen_cells``, ``pen_missed``, ``clean_cells``, ``false_marks``), by a pen of its print's
    own hue (``hue_cells``, ``hue_missed``) and as a hidden mark (``hidden_cells``,
    ``hidden_missed``).
    """
    card = map_card(t.id)
    cells = card.cells
    cols = card.shape[1]
    marked = set(rd.marked)
    uncertain = set(rd.uncertain)
    pens = {pen[0]: pen for pen in t.pens}  # cell -> (cell, gesture, ink, share changed)
    best: tuple[int, int, dict[Cell, Cell]] | None = None
    for index in _symmetries(t.id):
        mapped = {divmod(int(index[r, c]), cols): (r, c) for r, c in t.marked}
        wrong = sum(1 for cell in cells if cell not in uncertain and ((cell in mapped) != (cell in marked)))
        unc = sum(1 for cell in cells if cell in uncertain)
        if best is None or (wrong, unc) < best[:2]:
            best = (wrong, unc, mapped)
    assert best is not None  # the identity is always a symmetry
    if counts is not None:
        grid = card.grid(0)
        for cell in cells:
            # a symmetry maps each cell onto one of the same print
            print_ = "plain" if grid[cell] == "#" else str(grid[cell])
            origin = best[2].get(cell)
            if origin is not None:
                _, kind, ink, changed = pens.get(origin, (origin, "unknown", "", 1.0))
                key = (kind, print_)
                counts.pen_cells[key] += 1
                missed = int(cell not in marked and cell not in uncertain)
                counts.pen_missed[key] += missed
                if print_ in SAME_HUE and ink == SAME_HUE[print_]:
                    counts.hue_cells[print_] += 1
                    counts.hue_missed[print_] += missed
                if changed < HIDDEN_SHARE:
                    counts.hidden_cells[print_] += 1
                    counts.hidden_missed[print_] += missed
            else:
                counts.clean_cells[print_] += 1
                counts.false_marks[print_] += int(cell in marked)
    return len(cells), best[0], best[1]


def score_scene(scene: Scene, reading: SceneReading) -> CardCounts:
    """Compare one reading with the scene's truth."""
    c = CardCounts(images=1)
    truth = scene.cards
    readings = reading.cards
    c.truth_complete = sum(not t.partial for t in truth)
    c.truth_partial = sum(t.partial for t in truth)
    c.readings = len(readings)
    h, w = scene.image.shape[:2]
    pairs = match_readings(truth, readings, (w, h))
    c.matched_readings = len(pairs)
    for i, j in pairs:
        t, rd = truth[i], readings[j]
        if t.partial:
            c.matched_partial += 1
            c.partial_flagged += int(bool(rd.partial))
            continue
        c.matched_complete += 1
        if rd.id != t.id:
            c.misnamed += int(rd.id is not None)
            continue
        c.id_right += 1
        n, wrong, unc = _cell_errors(t, rd, c)
        c.cells += n
        c.cells_wrong += wrong
        c.cells_uncertain += unc
        c.exact += int(wrong == 0 and unc == 0)
    if scene.expedition is not None and not scene.expedition.partial:
        c.expedition_total = 1
        found = reading.expedition
        # cards of one shape differ only in art: the shape is what a photo can tell
        c.expedition_right = int(found is not None and same_shape(found.id, scene.expedition.id))
    return c


# ----------------------------------------------------------------------------------------- running


def _analyze(image: np.ndarray, profile: ProfileLike | None) -> SceneReading:
    from vision.analyze import analyze

    return analyze(image, game="silver-gold", profile=profile)


def run_tier(
    tier: str,
    n: int,
    seed: int = 0,
    size: tuple[int, int] = (1920, 1080),
    cast: bool | tuple[float, float, float] = False,
    profile: ProfileLike | None = None,
    profile_for: ProfileFactory | None = None,
    progress: Callable[[int], None] | None = None,
    reader: Reader | None = None,
    style: str | None = None,
) -> list[TierResult]:
    """Render ``n`` seeded scenes of ``tier`` and measure the reader on them.

    Parameters
    ----------
    tier : {"easy", "typical", "hard"}
    n : int
        Scenes in this tier.
    seed : int
        Scene ``i`` of a tier is the same for a given seed, whatever ``n`` is.
    size : (width, height)
    cast : bool or (b, g, r) gains
        ``True`` lights every scene with its own strong colour cast; three gains light every scene
        with exactly that cast.
    profile : ProfileLike, optional
        A saved table profile: each scene is also read through it.
    profile_for : callable, optional
        ``profile_for(conditions, rng) -> ProfileLike`` calibrates a profile from the calibration
        sheet photographed under each scene's conditions (``--profile auto``).
    progress : callable, optional
        Called with 1 after each scene.
    reader : callable, optional
        ``reader(image, profile) -> SceneReading``; :func:`vision.analyze.analyze` by default.
    style : str, optional
        The face style of every card (one of :data:`vision.synth.cards.ALL_STYLES`; the held-out
        ``stamped`` is art no reader threshold was set on); each scene draws its own among
        :data:`vision.synth.cards.STYLES` when ``None``.

    Returns
    -------
    list of TierResult
        One row without a profile, plus one with it when a profile is given.
    """
    if tier not in TIERS:
        raise ValueError(f"unknown tier {tier!r}; expected one of {', '.join(TIERS)}")
    if n < 1:
        raise ValueError("n must be at least 1")
    read = reader or _analyze
    variants: list[str] = ["none"]
    if profile is not None or profile_for is not None:
        variants.append("auto" if profile_for is not None else "saved")
    counts = {v: CardCounts() for v in variants}
    times: dict[str, list[dict[str, float]]] = {v: [] for v in variants}
    t_index = TIERS.index(tier)
    with single_thread():
        for i in range(n):
            rng = bench_rng(seed, t_index, i)
            scene = render_scene(rng, tier, size=size, cast=cast, style=style)
            for v in variants:
                prof: ProfileLike | None = None
                if v == "saved":
                    prof = profile
                elif v == "auto" and profile_for is not None:
                    prof = profile_for(scene.conditions, bench_rng(seed, t_index, i, 1))
                stage: dict[str, float] = {}
                try:
                    with timed(stage, "total"):
                        result = read(scene.image, prof)
                except Exception as exc:  # a reader bug must not hide the other scenes' results
                    what = f"scene {i}: {type(exc).__name__}: {exc}"
                    fail = CardCounts(images=1, failures=1, first_failure=what)
                    fail.truth_complete = sum(not t.partial for t in scene.cards)
                    fail.truth_partial = sum(t.partial for t in scene.cards)
                    counts[v].add(fail)
                    continue
                stage.update(result.stage_ms)
                times[v].append(stage)
                counts[v].add(score_scene(scene, result))
            if progress is not None:
                progress(1)
    return [TierResult(tier, v, counts[v], stage_stats(times[v])) for v in variants]


def format_results(results: Sequence[TierResult]) -> str:
    """The accuracy table and the timing table (median/p95 ms per stage) as text."""
    acc_rows = []
    for r in results:
        c = r.counts
        acc_rows.append([
            r.tier, r.profile, c.images, c.truth_complete, fmt_rate(r.recall), fmt_rate(r.precision),
            fmt_rate(r.id_accuracy), fmt_rate(r.misnamed), fmt_rate(r.cell_error, 2),
            fmt_rate(r.cell_uncertain, 2), fmt_rate(r.exact), fmt_rate(r.partial_flagged),
            fmt_rate(r.expedition), c.failures,
        ])
    acc = format_table(
        ["tier", "profile", "images", "cards", "recall", "precision", "id acc", "misnamed", "cell err",
         "uncertain", "exact", "cut flagged", "expedition", "failures"],
        acc_rows, align="ll" + "r" * 12,
    )
    stages: list[str] = []
    for r in results:
        stages.extend(k for k in r.ms if k not in stages)
    time_rows = [[r.tier, r.profile, *(fmt_ms(r.ms.get(s)) for s in stages)] for r in results]
    headers = ["tier", "profile", *(f"{s} ms" for s in stages)]
    tim = format_table(headers, time_rows, align="ll" + "r" * len(stages))
    notes = [f"{r.tier}/{r.profile}: {r.counts.first_failure}" for r in results if r.counts.first_failure]
    out = acc + "\n\nms per image, median/p95 (one OpenCV thread)\n" + tim
    pens = format_pens(results)
    if pens:
        out += "\n\n" + pens
    if notes:
        out += "\n\nfirst failure per row:\n" + "\n".join(notes)
    return out


def format_pens(results: Sequence[TierResult]) -> str:
    """Missed marks by pen gesture and cell print, and false marks by print, as text ("" when no
    card was scored): each entry is ``read wrong / cells``."""
    rows = []
    for r in results:
        c = r.counts
        for kind in _gestures(c):
            rows.append([r.tier, r.profile, f"missed {kind}",
                         *(f"{c.pen_missed[(kind, p)]}/{c.pen_cells[(kind, p)]}" for p in PRINTS)])
        if c.hue_cells:
            rows.append([r.tier, r.profile, "missed, pen of the print's hue",
                         *(f"{c.hue_missed[p]}/{c.hue_cells[p]}" if p in SAME_HUE else "" for p in PRINTS)])
        if c.hidden_cells:
            rows.append([r.tier, r.profile, f"missed, hidden (<{HIDDEN_SHARE:.0%} changed)",
                         *(f"{c.hidden_missed[p]}/{c.hidden_cells[p]}" for p in PRINTS)])
        if c.clean_cells:
            rows.append([r.tier, r.profile, "false marks",
                         *(f"{c.false_marks[p]}/{c.clean_cells[p]}" for p in PRINTS)])
    if not rows:
        return ""
    table = format_table(["tier", "profile", "cells", *PRINTS], rows, align="lll" + "r" * len(PRINTS))
    return ("marks by pen gesture and cell print: marked cells read unmarked, and unmarked cells read "
            "marked (wrong/cells); the print's hue is red on X, green on P\n" + table)
