"""Real headless Chromium against ``goldtable serve --demo``: live view, photo upload, the browser
camera (a generated .y4m as Chromium's fake camera), a Silver & Gold turn, a score pad, history.

Screenshots of the main pages go to ``tests/artifacts/`` (not committed) for the README.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import pytest

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-dev-shm-usage",
        "--disable-extensions", "--mute-audio"]
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
GOLDTABLE = str(Path(sys.executable).with_name("goldtable"))
TIMEOUT_MS = 90_000


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def get_json(url: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as res:
        return json.loads(res.read())


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: the browser tests need Debian's Chromium "
                    "(apt-get install chromium)")
    folder = tmp_path_factory.mktemp("serve")
    port = free_port()
    env = dict(os.environ, XDG_DATA_HOME=str(folder / "xdg"))
    proc = subprocess.Popen([GOLDTABLE, "serve", "--demo", "--port", str(port), "--db", str(folder / "g.db")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                get_json(base + "/api/health")
                break
            except (urllib.error.URLError, ConnectionError):
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError("goldtable serve --demo did not start") from None
                time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.fixture(scope="module")
def fake_camera(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from vision.synth.demo import DemoTable

    path = tmp_path_factory.mktemp("camera") / "table.y4m"
    DemoTable(3, size=(960, 540)).write_y4m(path, seconds=1.0, fps=5)
    return path


@pytest.fixture(scope="module")
def browser(fake_camera: Path) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=[
            *ARGS, "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
            f"--use-file-for-fake-video-capture={fake_camera}"])
        yield b
        b.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.grant_permissions(["camera"])
    p = context.new_page()
    p.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    p.on("pageerror", lambda exc: errors.append(str(exc)))
    yield p
    context.close()
    assert errors == [], errors


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def test_live_demo_table_shows_cards_and_a_score(server: str, page: Any) -> None:
    page.goto(server + "/")
    page.wait_for_function("document.getElementById('live-view').naturalWidth > 0")
    page.wait_for_selector("#live-reading[data-ready] .cards-count")
    assert re.match(r"\d+ map card\(s\) recognised", page.inner_text("#live-reading .cards-count"))
    page.wait_for_selector("#live-reading .card-read")
    assert re.search(r"t\d+", page.inner_text("#live-reading .card-read"))
    page.wait_for_selector("#live-score .total")
    assert page.inner_text("#live-score .total").strip().isdigit()
    assert "demo table" in page.inner_text("#camera-status-text")
    # The demo plays on: the next confirmed board change is judged by the rules.
    page.wait_for_selector("#live-verdicts .verdict-line")
    assert re.search(
        r"(Splendor Duel board|Silver & Gold, seat \d+ \(e\d\)): (legal|illegal|not judged)",
        page.inner_text("#live-verdicts"),
    )
    shot(page, "live-table")
    page.set_viewport_size({"width": 390, "height": 844})  # a phone on the same network
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    shot(page, "phone-live-table")


def test_photo_upload_gets_the_reading(server: str, page: Any, tmp_path: Path) -> None:
    from vision.analyze import analyze
    from vision.synth.demo import DemoTable

    frame = next(iter(DemoTable(5, size=(1280, 720)).frames(realtime=False)))
    photo = tmp_path / "table.jpg"
    cv2.imwrite(str(photo), frame.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    decoded = cv2.imread(str(photo))
    expected = analyze(decoded, "auto").to_json("auto")
    page.goto(server + "/history")
    page.set_input_files("#upload-file", str(photo))
    page.click("#upload-form button[type=submit]")
    page.wait_for_selector("#upload-result[data-done]")
    text = page.inner_text("#upload-result")
    assert f"{len(expected['cards'])} map card(s) recognised" in text
    for card in expected["cards"]:
        if card["id"]:
            assert card["id"] in text
    assert ("Splendor Duel board" in text) == (expected["board"] is not None)
    shot(page, "photo-upload")


def _upload(server: str, page: Any, photo: Path, image: Any) -> dict[str, Any]:
    """Save ``image`` as the JPEG ``photo``, upload it on the history page and wait for the answer;
    returns the reading the server should give (``goldtable analyze`` of the same file)."""
    from vision.analyze import analyze

    cv2.imwrite(str(photo), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    expected: dict[str, Any] = analyze(cv2.imread(str(photo)), "auto").to_json("auto")
    page.goto(server + "/history")
    page.set_input_files("#upload-file", str(photo))
    page.click("#upload-form button[type=submit]")
    page.wait_for_selector("#upload-result[data-done]")
    return expected


def test_a_card_named_with_low_confidence_asks_for_a_check(server: str, page: Any, tmp_path: Path) -> None:
    from vision.bench.cards import bench_rng
    from vision.synth.camera import TIERS
    from vision.synth.scene import render_scene

    scene = render_scene(bench_rng(0, TIERS.index("typical"), 13), "typical")
    cards = _upload(server, page, tmp_path / "cards.jpg", scene.image)["cards"]
    doubtful = [c["id"] for c in cards if c["doubtful"]]
    assert doubtful, "the scene has cards named on a thin lead"
    lines = page.locator("#upload-result li.card-read")
    asked = {lines.nth(i).get_attribute("data-card") for i in range(lines.count())
             if "check the card" in lines.nth(i).inner_text()}
    assert asked == set(doubtful)


def test_doubtful_tokens_are_marked_on_the_uploaded_board(server: str, page: Any, tmp_path: Path) -> None:
    """A board photo under a warm lamp with a glare: the tokens read with low confidence are
    outlined on the page, the others not."""
    from vision.bench.board import TIERS, bench_rng, scene_conditions
    from vision.synth.board import render_board_scene

    rng = bench_rng(1, TIERS.index("hard"), 11)
    conditions = scene_conditions(rng, "hard", (1920, 1080), None)
    scene = render_board_scene(rng, "hard", (1920, 1080), conditions=conditions)
    board = _upload(server, page, tmp_path / "board.jpg", scene.image)["board"]
    assert board is not None
    doubtful = {(r, c) for r, c in board["doubtful"]}
    assert doubtful, "the scene has doubtful tokens"
    spans = page.locator("#upload-result .board span")
    assert spans.count() == 25
    marked = {divmod(i, 5) for i in range(25) if "doubt" in (spans.nth(i).get_attribute("class") or "")}
    assert marked == doubtful
    first = min(doubtful)
    assert "low confidence" in (spans.nth(5 * first[0] + first[1]).get_attribute("title") or "")


def test_bad_upload_shows_the_message(server: str, page: Any, tmp_path: Path) -> None:
    bogus = tmp_path / "notes.jpg"
    bogus.write_bytes(b"this is not a photo")
    page.goto(server + "/pads/valdora")
    page.set_input_files("#upload-file", str(bogus))
    page.click("#upload-form button[type=submit]")
    page.wait_for_selector("#upload-result .upload-error")
    assert "not a readable image" in page.inner_text("#upload-result")


def test_browser_camera_reaches_a_reading(server: str, page: Any) -> None:
    page.goto(server + "/")
    page.click("#cam-start")
    page.wait_for_selector("#cam-status[data-frames]")
    assert re.match(r"Browser camera: \d+ frame\(s\) read", page.inner_text("#cam-status"))
    page.wait_for_selector("#cam-reading[data-ready] .cards-count")
    assert re.match(r"\d+ map card\(s\) recognised", page.inner_text("#cam-reading .cards-count"))
    assert "read in" in page.inner_text("#cam-reading")
    shot(page, "browser-camera")
    page.click("#cam-stop")


def test_silver_gold_turns_are_judged(server: str, page: Any) -> None:
    page.goto(server + "/silver-gold")
    page.fill("#setup-rows tr:nth-child(1) [name=name]", "Ann")
    page.fill("#setup-rows tr:nth-child(2) [name=name]", "Ben")
    page.click("#setup-form button[type=submit]")
    page.wait_for_url(re.compile(r"/silver-gold/\d+$"))
    # The demo table keeps playing its own game; this one is entered by hand.
    page.goto(page.url + "?manual=1")
    assert not page.is_checked("#follow-camera")
    page.click("[data-shape=e1]")
    page.wait_for_selector("[data-shape=e1].on")
    ann = page.locator(".player[data-seat='1']")
    ann.locator("input[aria-label='Ann card 1']").fill("t4")
    ann.locator("input[aria-label='Ann card 1']").press("Enter")
    page.wait_for_selector(".player[data-seat='1'] .mapcard[data-card=t4]")
    ann = page.locator(".player[data-seat='1']")
    for cell in ("0,1", "0,2"):
        ann.locator(f".mapcard[data-card=t4] [aria-label='cell {cell}']").click()
    ann.locator(".check-turn").click()
    page.wait_for_selector("#verdict.legal")
    assert "Legal" in page.inner_text("#verdict") and "coin" in page.inner_text("#verdict")
    ann = page.locator(".player[data-seat='1']")
    assert ann.locator("input[aria-label='Ann coins']").input_value() == "1"
    assert page.inner_text("#trophies-left") == "6, 5, 4, 3, 2, 1"
    for cell in ("1,0", "2,2", "3,1"):
        ann.locator(f".mapcard[data-card=t4] [aria-label='cell {cell}']").click()
    ann.locator(".check-turn").click()
    page.wait_for_selector("#verdict.illegal")
    assert "Illegal" in page.inner_text("#verdict")
    assert page.locator(".mapgrid button.illegal").count() == 3
    shot(page, "silver-gold")
    page.reload()
    page.wait_for_selector("#turns li")
    assert page.locator(".mapcard[data-card=t4] .water").count() == 2  # t4 has two water cells
    assert page.locator("#turns li").count() == 2  # both verdicts survive a reload


def test_score_pad_explains_the_tie_break(server: str, page: Any) -> None:
    page.goto(server + "/pads/fools-gold")
    # Two players tied on 13, separated by the second-highest site.
    sheets = {"Ben": ("2", "3, 3", "1", "5", "2, 2", "ruby"),
              "Cas": ("6", "1", "2", "4, 3", "1", "diamond, topaz")}
    for i, (name, values) in enumerate(sheets.items(), start=1):
        fs = page.locator(f".pad-player:nth-of-type({i})")
        fs.locator("[name=name]").fill(name)
        names = ("hills", "forest", "mountains", "river", "lake", "gems")
        for field, value in zip(names, values, strict=True):
            fs.locator(f"[name={field}]").fill(value)
    page.click("#pad-form button[type=submit]")
    page.wait_for_selector("#pad-result .ranking")
    rows = page.locator("#pad-result .ranking tbody tr")
    assert [rows.nth(i).locator("td").nth(1).inner_text() for i in range(2)] == ["Cas", "Ben"]
    assert "second-highest site, 6 to 5" in page.inner_text("#pad-result .tiebreak")
    shot(page, "score-pad")
    page.locator(".pad-player:nth-of-type(1) [name=gems]").fill("ruby, ruby")
    page.click("#pad-form button[type=submit]")
    page.wait_for_function("document.getElementById('pad-error').textContent.includes('gems')")
    history = get_json(server + "/api/sessions")
    assert history[0]["game"] == "fools-gold" and history[0]["winners"] == ["Cas"]


def test_splendor_duel_page_and_history(server: str, page: Any) -> None:
    players = [{"name": "Ann", "start_player": True}, {"name": "Ben"}]
    duel = get_json(server + "/api/sessions", {"game": "splendor-duel", "players": players})
    board = ["WUGRK", "PYWUG", "RKWUG", "RKPYW", "UGRK."]
    get_json(f"{server}/api/sessions/{duel['id']}/events", {"kind": "note", "payload": {"board": board}})
    page.goto(f"{server}/splendor-duel/{duel['id']}?manual=1")
    page.wait_for_selector("#board-edit input")
    rows = ["WUGRK", "PYWUG", "RK.UG", "RK.YW", "UG.K."]
    inputs = page.locator("#board-edit input")
    for i, row in enumerate(rows):
        inputs.nth(i).fill(row)
    page.click("#judge")
    page.wait_for_selector("#verdict.legal")
    assert "Ben to play" in page.inner_text("#whose-turn")
    assert "took (2,2), (3,2), (4,2)" in page.inner_text("#moves")
    from scoring import GAMES

    template = GAMES["splendor-duel"].template()
    for i, player in enumerate(template["players"]):
        cards = ", ".join(c if isinstance(c, str) else f"{c['id']}={c['colour']}" for c in player["cards"])
        fs = page.locator(f"#final-form fieldset:nth-of-type({i + 1})")
        fs.locator("[name=cards]").fill(cards)
        fs.locator("[name=royals]").fill(", ".join(player["royals"]))
    page.click("#confirm-final")
    page.wait_for_selector("#final-result .ranking")
    assert "Ann" in page.inner_text("#final-result .winners")
    assert "colour:blue" in page.inner_text("#final-result")
    shot(page, "splendor-duel")
    page.goto(server + "/history")
    page.wait_for_selector("#history-table")
    assert "splendor-duel" in page.inner_text("#history-table")
    shot(page, "history")


def test_silver_gold_page_follows_the_demo_table(server: str, page: Any) -> None:
    players = [{"name": "Ann", "seat": 1, "start_player": True}, {"name": "Ben", "seat": 2}]
    game = get_json(server + "/api/sessions", {"game": "silver-gold", "players": players})
    page.goto(f"{server}/silver-gold/{game['id']}")
    assert page.is_checked("#follow-camera")
    page.wait_for_selector(".player[data-seat='1'] .mapcard[data-card^=t]")
    page.wait_for_selector(".player[data-seat='2'] .mapcard[data-card^=t]")
    stored = get_json(f"{server}/api/sessions/{game['id']}")
    assert any(e["kind"] == "correction" and e["payload"].get("source") == "camera" for e in stored["events"])
    shot(page, "silver-gold-live")
