"""The Silver & Gold benchmark: its scoring, its helpers and the command."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from vision.bench.cards import (
    HIDDEN_SHARE,
    CardCounts,
    TierResult,
    format_results,
    match_readings,
    run_tier,
    score_scene,
)
from vision.bench.common import format_table, parse_size, rate, stage_stats, timing_stats
from vision.synth.camera import Conditions
from vision.synth.cards import map_card
from vision.synth.scene import CardSpec, ExpeditionSpec, Scene, render_cards_photo
from vision.types import CardReading, ExpeditionReading, SceneReading
from webui.cli import main

SMALL = (320, 200)


def _scene(rng: np.random.Generator) -> Scene:
    t1 = map_card("t1")
    specs = [
        CardSpec("t1", (250.0, 300.0), 20.0, t1.cells[:4]),
        CardSpec("t20", (600.0, 300.0), -40.0, ()),
        CardSpec("t7", (-30.0, 100.0), 0.0, ()),  # cut by the image edge
    ]
    exp = ExpeditionSpec("e6", (450.0, 500.0))
    return render_cards_photo(specs, Conditions(size=SMALL), rng, expedition=exp)


def _perfect(scene: Scene) -> SceneReading:
    cards = tuple(
        CardReading(None if t.partial else t.id, t.colour, 1.0, t.corners, () if t.partial else t.marked, (),
                    not t.partial, t.partial, t.grid_rotation)
        for t in scene.cards
    )
    exp = scene.expedition
    found = ExpeditionReading(exp.id, 1.0, exp.corners) if exp is not None else None
    h, w = scene.image.shape[:2]
    return SceneReading(w, h, cards, found)


def test_a_perfect_reading_scores_perfectly(rng: np.random.Generator) -> None:
    scene = _scene(rng)
    assert [t.partial for t in scene.cards] == [False, False, True]
    result = TierResult("easy", "none", score_scene(scene, _perfect(scene)))
    assert result.recall == result.precision == result.id_accuracy == 1.0
    assert result.cell_error == 0.0 and result.exact == 1.0
    assert result.partial_flagged == 1.0 and result.expedition == 1.0
    assert result.counts.cells == len(map_card("t1").cells) + len(map_card("t20").cells)


def test_mistakes_are_counted(rng: np.random.Generator) -> None:
    scene = _scene(rng)
    perfect = _perfect(scene)
    first, second, cut = perfect.cards
    extra_cell = next(c for c in map_card("t1").cells if c not in first.marked)
    wrong = (
        replace(first, marked=(*first.marked, extra_cell), uncertain=(first.marked[0],)),
        replace(second, id="t21"),
        replace(cut, partial=False),
        replace(first, corners=((0.0, 0.0), (5.0, 0.0), (5.0, 5.0), (0.0, 5.0))),  # matches nothing
    )
    reading = replace(perfect, cards=wrong, expedition=None)
    result = TierResult("easy", "none", score_scene(scene, reading))
    assert result.recall == 1.0
    assert result.precision == pytest.approx(3 / 4)
    assert result.id_accuracy == pytest.approx(1 / 2)
    assert result.misnamed == pytest.approx(1 / 2)  # t21 named where t-second lies
    n = len(map_card("t1").cells)
    assert result.counts.cells == n
    assert result.cell_error == pytest.approx(1 / n)  # the uncertain cell is not an error ...
    assert result.cell_uncertain == pytest.approx(1 / n)  # ... but it is counted
    assert result.exact == 0.0
    assert result.partial_flagged == 0.0 and result.expedition == 0.0


def test_marks_in_a_symmetric_frame_count_as_right(rng: np.random.Generator) -> None:
    # t1's grid is a mirror image but not turn-symmetric; find a card that is, if any
    for card in (map_card(f"t{i}") for i in range(1, 48)):
        g = card.grid(0)
        if g.shape == card.grid(2).shape and np.array_equal(g, card.grid(2)):
            break
    else:
        pytest.skip("no card with a half-turn symmetric grid")
    rows, cols = card.shape
    marked = (card.cells[0],)
    turned = ((rows - 1 - marked[0][0], cols - 1 - marked[0][1]),)
    scene = render_cards_photo([CardSpec(card.id, (450.0, 300.0), 0.0, marked)], Conditions(size=SMALL), rng)
    reading = _perfect(scene)
    reading = replace(reading, cards=(replace(reading.cards[0], marked=turned),))
    assert score_scene(scene, reading).cells_wrong == 0


def test_matching_uses_centres_and_pairs_each_once(rng: np.random.Generator) -> None:
    scene = _scene(rng)
    readings = list(_perfect(scene).cards)
    assert sorted(match_readings(scene.cards, readings[::-1])) == [(0, 2), (1, 1), (2, 0)]
    pairs = match_readings(scene.cards, [readings[0], readings[0]])
    assert pairs == [(0, 0)]


def test_a_cut_card_is_matched_by_its_part_in_the_photo(rng: np.random.Generator) -> None:
    # a reading of a cut card outlines the part inside the photo, whose centre lies far from the
    # whole card's centre outside it
    specs = [CardSpec("t1", (250.0, 300.0), 20.0, ()), CardSpec("t20", (600.0, 300.0), -40.0, ()),
             CardSpec("t7", (-54.0, 100.0), 0.0, ())]  # a sixth of t7 inside the photo
    scene = render_cards_photo(specs, Conditions(size=SMALL), rng)
    cut = scene.cards[2]
    assert cut.partial
    w, h = SMALL
    frame = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)
    _, part = cv2.intersectConvexConvex(np.asarray(cut.corners, np.float32), frame)
    box = cv2.boxPoints(cv2.minAreaRect(part.reshape(-1, 2)))
    corners = tuple((float(x), float(y)) for x, y in box)
    q = np.asarray(cut.corners)
    short = min(float(np.linalg.norm(q[(i + 1) % 4] - q[i])) for i in range(4))
    assert np.linalg.norm(box.mean(axis=0) - q.mean(axis=0)) > 0.4 * short  # too far for the old rule
    perfect = _perfect(scene)
    reading = replace(perfect, cards=(*perfect.cards[:2], replace(perfect.cards[2], corners=corners)))
    assert (2, 2) not in match_readings(scene.cards, reading.cards)
    assert (2, 2) in match_readings(scene.cards, reading.cards, (w, h))
    result = TierResult("easy", "none", score_scene(scene, reading))
    assert result.precision == 1.0 and result.partial_flagged == 1.0


def test_common_helpers() -> None:
    assert parse_size("640x480") == (640, 480)
    for bad in ("640", "axb", "8x8"):
        with pytest.raises(ValueError, match="size"):
            parse_size(bad)
    assert rate(1, 4) == 0.25 and rate(1, 0) is None
    st = timing_stats([1.0, 2.0, 3.0, 4.0, 100.0])
    assert st is not None and st.median == 3.0 and 4.0 < st.p95 < 100.0 and st.n == 5
    assert timing_stats([]) is None
    stages = stage_stats([{"a": 1.0, "b": 2.0}, {"a": 3.0}])
    assert stages["a"].n == 2 and stages["b"].n == 1
    table = format_table(["name", "value"], [["x", 1], ["long name", 22]])
    lines = table.splitlines()
    assert len(lines) == 4 and len({len(line) for line in lines[:2]}) == 1
    with pytest.raises(ValueError):
        format_table(["a", "b"], [[1]])


def test_run_tier_with_the_real_reader_gives_well_formed_numbers() -> None:
    (row,) = run_tier("typical", 2, seed=3, size=(480, 270))
    data = row.to_json()
    assert data["images"] == 2 and data["tier"] == "typical" and data["profile"] == "none"
    for key in ("recall", "precision", "id_accuracy", "misnamed", "cell_error", "exact", "partial_flagged"):
        assert data[key] is None or 0.0 <= data[key] <= 1.0
    assert data["failures"] == 0, data["first_failure"]
    assert data["ms"]["total"]["n"] == 2 and data["ms"]["total"]["median"] > 0
    assert "cards" in data["ms"]
    assert "recall" in format_results([row])


class _Identity:
    token_model = None

    def __init__(self) -> None:
        self.calls = 0

    def prepare(self, image: np.ndarray) -> np.ndarray:
        self.calls += 1
        return image


def test_run_tier_adds_a_profile_row_and_counts_reader_failures() -> None:
    seen: list[object] = []

    def reader(image: np.ndarray, profile: object) -> SceneReading:
        seen.append(profile)
        if profile is None:
            raise RuntimeError("boom")
        return SceneReading(image.shape[1], image.shape[0], stage_ms={"cards": 1.0})

    prof = _Identity()
    plain, with_profile = run_tier("easy", 2, size=(320, 180), profile=prof, reader=reader)
    assert seen == [None, prof, None, prof]
    assert plain.counts.failures == 2 and "boom" in plain.counts.first_failure
    assert with_profile.profile == "saved" and with_profile.counts.failures == 0
    assert with_profile.precision is None and with_profile.ms["cards"].n == 2
    made: list[Conditions] = []

    def factory(cond: Conditions, rng: np.random.Generator) -> _Identity:
        made.append(cond)
        return _Identity()

    rows = run_tier("easy", 1, size=(320, 180), profile_for=factory, reader=reader)
    assert [r.profile for r in rows] == ["none", "auto"] and len(made) == 1


def test_same_seed_same_scenes_whatever_n() -> None:
    images: list[list[bytes]] = [[], []]

    def reader_for(k: int) -> Callable[[np.ndarray, object], SceneReading]:
        def reader(image: np.ndarray, profile: object) -> SceneReading:
            images[k].append(image.tobytes())
            return SceneReading(image.shape[1], image.shape[0])
        return reader

    run_tier("hard", 1, seed=5, size=(160, 90), reader=reader_for(0))
    run_tier("hard", 2, seed=5, size=(160, 90), reader=reader_for(1))
    assert images[0][0] == images[1][0] and images[1][0] != images[1][1]


def test_counts_add_up() -> None:
    a = CardCounts(images=1, cells=10, first_failure="")
    a.pen_cells[("dot", "X")] = 2
    b = CardCounts(images=2, cells=5, failures=1, first_failure="x")
    b.pen_cells[("dot", "X")] = 3
    b.false_marks["C"] = 1
    a.add(b)
    assert (a.images, a.cells, a.failures, a.first_failure) == (3, 15, 1, "x")
    assert a.pen_cells[("dot", "X")] == 5 and a.false_marks["C"] == 1


def test_marks_are_counted_by_gesture_and_print(rng: np.random.Generator) -> None:
    card = map_card("t1")  # rows X###, .##., X##X, ####
    marked = ((0, 0), (0, 1), (2, 0))  # two X cells and a plain one, red dots
    spec = CardSpec("t1", (450.0, 300.0), 0.0, marked, mark_kind="dot", ink="red")
    scene = render_cards_photo([spec], Conditions(size=SMALL), rng)
    perfect = _perfect(scene)
    # the reading misses one red dot on an X, leaves the plain one uncertain and reads a clean X
    # cell and a clean plain cell marked
    reading = replace(perfect, cards=(replace(perfect.cards[0], marked=((0, 0), (2, 3), (3, 0)),
                                              uncertain=((0, 1),)),))
    row = TierResult("easy", "none", score_scene(scene, reading))
    c = row.counts
    assert c.pen_cells == {("dot", "X"): 2, ("dot", "plain"): 1}
    assert c.pen_missed == {("dot", "X"): 1, ("dot", "plain"): 0}  # uncertain is not missed
    assert c.hue_cells["X"] == 2 and c.hue_missed["X"] == 1
    n_x = sum(ch == "X" for r in card.rows for ch in r)
    assert c.clean_cells["X"] == n_x - 2 and c.false_marks["X"] == 1
    assert c.clean_cells["plain"] == len(card.cells) - n_x - 1 and c.false_marks["plain"] == 1
    hidden = sum(pen[3] < HIDDEN_SHARE for pen in scene.cards[0].pens)
    assert sum(c.hidden_cells.values()) == hidden
    data = row.to_json()
    assert data["missed_marks"] == {"dot": {"plain": [0, 1], "X": [1, 2]}}
    assert data["missed_in_own_hue"] == {"X": [1, 2]}
    assert data["false_marks"]["X"] == [1, n_x - 2]
    text = format_results([row])
    assert "missed dot" in text and "1/2" in text and "false marks" in text


def test_command_prints_json_and_rejects_bad_input() -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["bench", "silver-gold", "--n", "1", "--size", "320x180", "--tier", "easy",
                                  "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout[result.stdout.index("{"):])
    assert doc["settings"]["n"] == 1 and doc["results"][0]["tier"] == "easy"
    bad = runner.invoke(main, ["bench", "silver-gold", "--size", "big"])
    assert bad.exit_code == 2 and "--size" in bad.output
    table = runner.invoke(main, ["bench", "silver-gold", "--n", "1", "--size", "320x180", "--tier", "hard"])
    assert table.exit_code == 0 and "cell err" in table.output and "ms per image" in table.output


def test_style_option_renders_every_card_in_that_style() -> None:
    from vision.synth.scene import render_scene

    scene = render_scene(np.random.default_rng(2), "easy", size=(320, 180), n_cards=3, style="stamped")
    assert scene.cards and {c.style for c in scene.cards} == {"stamped"}
    with pytest.raises(ValueError, match="unknown card style"):
        render_scene(np.random.default_rng(2), "easy", size=(320, 180), style="baroque")
    seen: list[bytes] = []

    def reader(image: np.ndarray, profile: object) -> SceneReading:
        seen.append(image.tobytes())
        return SceneReading(image.shape[1], image.shape[0])

    run_tier("easy", 1, seed=3, size=(320, 180), reader=reader)
    run_tier("easy", 1, seed=3, size=(320, 180), reader=reader, style="stamped")
    assert seen[0] != seen[1]
    runner = CliRunner()
    result = runner.invoke(main, ["bench", "silver-gold", "--n", "1", "--size", "320x180", "--tier", "easy",
                                  "--style", "stamped", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout[result.stdout.index("{"):])["settings"]["style"] == "stamped"
    table = runner.invoke(main, ["bench", "silver-gold", "--n", "1", "--size", "320x180", "--tier", "easy",
                                 "--style", "stamped"])
    assert table.exit_code == 0 and "stamped faces (held out)" in table.output
    refused = runner.invoke(main, ["bench", "silver-gold", "--style", "baroque"])
    assert refused.exit_code == 2


def test_style_choices_are_the_renderers_styles() -> None:
    from vision.synth.cards import ALL_STYLES
    from webui.commands.bench_cards import bench_cards

    option = next(p for p in bench_cards.params if p.name == "style")
    assert list(option.type.choices) == ["mixed", *ALL_STYLES]


def test_cast_option_takes_the_same_forms_as_the_board_bench() -> None:
    runner = CliRunner()
    base = ["bench", "silver-gold", "--n", "1", "--size", "320x180", "--tier", "easy", "--json"]
    fixed = runner.invoke(main, [*base, "--cast", "1.2,0.9,0.7"])
    assert fixed.exit_code == 0, fixed.output
    doc = json.loads(fixed.stdout[fixed.stdout.index("{"):])
    assert doc["settings"]["cast"] == [1.2, 0.9, 0.7]
    strong = runner.invoke(main, [*base, "--cast", "strong"])
    assert json.loads(strong.stdout[strong.stdout.index("{"):])["settings"]["cast"] is True
    for bad in ("1,2", "0,1,1", "warm"):
        refused = runner.invoke(main, [*base, "--cast", bad])
        assert refused.exit_code == 2 and "--cast" in refused.output


def test_a_fixed_cast_lights_the_scene() -> None:
    from vision.synth.scene import render_scene

    scene = render_scene(np.random.default_rng(4), "easy", size=(320, 180), cast=(1.3, 1.0, 0.6))
    assert scene.conditions.cast == (1.3, 1.0, 0.6)
    plain = render_scene(np.random.default_rng(4), "easy", size=(320, 180))
    assert plain.conditions.cast != (1.3, 1.0, 0.6)
