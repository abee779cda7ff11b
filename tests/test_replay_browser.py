"""A replay page in a real browser: headless Chromium from the system packages, driven by selenium.

The page of battlelore/spider_ford seed 7 is opened from disk; the test steps forward and back
with the arrow keys and reads the units drawn (their ``data-`` attributes) at each step it
visits, comparing them with the engine's own state after that entry (a separate game,
snapshotted as each log line is written). A screenshot of one step is compared with
tests/fixtures/replay/spider_ford_7_step_19.png within a small tolerance, and a 2,000-entry
page must step without delay. Pages full of hostile names (tests/hostile_page.py) must run no
script but the viewer's, show every name as the text it is, and still step; markup forced into
a page is stopped by its Content-Security-Policy (violations are collected by a listener the
browser adds to every document before the page's own code runs).

Chromium and chromedriver come from the distribution (``.ci/run`` installs them). Where they
are missing these tests are skipped, unless HEXLORE_SYSTEM_TOOLS=required (set by .ci/run),
which makes a missing browser a failure. To accept a deliberate change of the page's look,
delete the golden PNG and run the tests once (it is written, and the test fails to say so).
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import time

import pytest

from conftest import ROOT, need_program
from hexlore import api
from hexlore.look import look_of
from hexlore.markup import clean_text
from hexlore.replay.make import page_of, play_recorded
from hostile_page import HOSTILE, MARKS, MARKUP, write_project
from replay_browser import CHROMIUM, DRIVER, chromium, press, screenshot
from test_replay import engine_positions

# selenium is in the 'test' extra; without it, as without a browser
need_program(importlib.util.find_spec("selenium") is not None, "selenium", "pip install '.[test]'", module_level=True)

GOLDEN = ROOT / "tests" / "fixtures" / "replay" / "spider_ford_7_step_19.png"

need_program(bool(CHROMIUM and DRIVER), "Chromium with chromedriver", "apt-get install chromium chromium-driver",
             module_level=True)


@pytest.fixture(scope="module")
def browser():
    with chromium() as driver:
        yield driver


#: run before anything of each page (a DevTools script, which no page policy blocks)
WATCH = """window.__violations = [];
document.addEventListener('securitypolicyviolation', function (e) {
  window.__violations.push([e.violatedDirective, e.sample]); });"""


@pytest.fixture
def watched(browser):
    """The browser, noting every Content-Security-Policy violation of the pages it opens."""
    added = browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": WATCH})
    yield browser
    browser.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": added["identifier"]})


def _page(tmp_path, scenario: str, seed: int, policies: dict | None = None, name: str = "replay.html"):
    loaded = api.open_scenario(scenario)
    _, recording, diagnostics, _ = play_recorded(loaded, seed=seed, policies=policies, max_rounds=200)
    assert recording is not None, diagnostics
    path = tmp_path / name
    path.write_text(page_of(loaded, recording), encoding="utf-8")
    return path, recording


def _shown(driver) -> dict:
    """The units drawn now: id -> (hex, alive, figures), read from their data- attributes."""
    rows = driver.execute_script(
        "return Array.from(document.querySelectorAll('#units g[data-unit]')).map(function (g) {"
        " return [g.dataset.unit, g.dataset.hex, g.dataset.strength]; });")
    out = {}
    for uid, where, strength in rows:
        figures = dict(part.split("=") for part in strength.split()).get("figures")
        out[uid] = (where, True, int(figures) if figures is not None else None)
    return out


def _expected(board: dict) -> dict:
    return {uid: v for uid, v in board.items() if v[1] and v[0] is not None}


@pytest.mark.slow  # tens of seconds: run by CI (.ci/run: -m slow)
def test_stepping_with_the_keyboard_shows_the_engines_position(browser, tmp_path):
    from selenium.webdriver.common.keys import Keys

    path, recording = _page(tmp_path, "battlelore/spider_ford", 7)
    lines, boards = engine_positions("battlelore/spider_ford", 7)
    assert recording.lines == lines
    browser.get(path.as_uri())
    step = 0

    def check() -> None:
        assert browser.execute_script("return document.body.dataset.step") == str(step)
        assert _shown(browser) == _expected(boards[step]), f"step {step}"
        current = browser.execute_script("var c = document.querySelectorAll('#entries li.current');"
                                          " return [c.length, c[0].dataset.step];")
        assert current == [1, str(step)]

    check()
    visited = set()
    for key, times in [(Keys.ARROW_RIGHT, 13), (Keys.ARROW_RIGHT, 6), (Keys.ARROW_LEFT, 3), (Keys.ARROW_RIGHT, 280),
                       (Keys.ARROW_LEFT, 1), (Keys.END, 1), (Keys.ARROW_LEFT, 2)]:
        press(browser, key, times)
        step = len(lines) if key == Keys.END else step + (times if key == Keys.ARROW_RIGHT else -times)
        check()
        visited.add(step)
    # the board moved between the steps visited (the test would not notice a frozen board otherwise)
    assert len({repr(sorted(_expected(boards[s]).items())) for s in visited}) >= 4


def test_rolls_show_their_faces_and_decisions_what_was_offered(browser, tmp_path):
    import json

    from selenium.webdriver.common.keys import Keys

    path, recording = _page(tmp_path, "battlelore/spider_ford", 7)
    browser.get(path.as_uri())
    entries = [json.loads(line) for line in recording.lines]
    roll = next(i for i, e in enumerate(entries, 1) if e["type"] == "roll")
    press(browser, Keys.ARROW_RIGHT, roll)
    faces = browser.execute_script("return Array.from(document.querySelectorAll('#detail .die'))"
                                   ".map(function (d) { return [d.dataset.face, getComputedStyle(d).backgroundColor]; });")
    assert [f for f, _ in faces] == entries[roll - 1]["faces"]
    look = look_of(api.open_scenario("battlelore/spider_ford").rules)
    assert [c for _, c in faces] == [_css_rgb(look.faces.get(f, "#888")) for f, _ in faces]  # coloured, policy or not
    decision = next(i for i, e in enumerate(entries, 1) if e["type"] == "decision" and i > roll)
    press(browser, Keys.ARROW_RIGHT, decision - roll)
    offered, taken = browser.execute_script("return [document.querySelector('#detail .offered').textContent,"
                                            " document.querySelector('#detail .choice').textContent];")
    assert offered == str(entries[decision - 1]["options"]) and taken == str(entries[decision - 1]["choice"])
    chips, chosen = browser.execute_script(
        "return [Array.from(document.querySelectorAll('#detail .option')).map(function (o) { return o.textContent; }),"
        " Array.from(document.querySelectorAll('#detail .option.taken')).map(function (o) { return o.textContent; })];")
    assert chips == [str(o) for o in recording.offered[decision - 1]] and chosen == [taken]
    move = next(i for i, e in enumerate(entries, 1) if e.get("decision") == "move_to" and e["options"] > 3)
    press(browser, Keys.HOME, 1)
    press(browser, Keys.ARROW_RIGHT, move)
    rings = browser.execute_script("return Array.from(document.querySelectorAll('polygon.option'))"
                                   ".map(function (p) { return p.dataset.hex; }).sort();")
    assert rings == sorted(recording.offered[move - 1])  # the hexes a move could end on
    rule, line = browser.execute_script("var r = document.querySelector('#detail .rule');"
                                        " return [r.dataset.rule, r.dataset.line];")
    assert rule.startswith(("procedure ", "trigger ", "function ")) and int(line) > 0  # the rule that asked


def test_moves_show_their_way_and_terrain_changes_with_the_step(browser, tmp_path):
    from selenium.webdriver.common.keys import Keys

    def way_shown():
        return browser.execute_script(
            "return [Array.from(document.querySelectorAll('polygon.path')).map(function (p) { return p.dataset.hex; })"
            ".sort(), Array.from(document.querySelectorAll('#paths polyline')).map(function (l) {"
            " return [l.dataset.unit, l.dataset.way]; })];")

    path, recording = _page(tmp_path, "battlelore/spider_ford", 7)
    k, change = next((k, c) for k, frame in enumerate(recording.frames) for c in frame if len(c) > 4 and len(c[4]) >= 2)
    uid = recording.units[change[0]]["id"]
    browser.get(path.as_uri())
    press(browser, Keys.ARROW_RIGHT, k)
    assert way_shown() == [sorted(change[4]), [[uid, " ".join(change[4])]]]
    press(browser, Keys.ARROW_RIGHT, 1)  # the entry announcing the move still shows its way
    assert json.loads(recording.lines[k])["event"] == "unit_moved"
    assert way_shown()[1] == [[uid, " ".join(change[4])]]
    press(browser, Keys.HOME, 1)
    assert way_shown() == [[], []]

    path, recording = _page(tmp_path, "battlelore/ford_campaign/haunted_crossing", 1, name="tent.html")
    step, changes = min(recording.terrain_changes.items())
    hex_label = changes[0][0]
    browser.get(path.as_uri())

    def terrain_at(step: int) -> list:
        browser.execute_script(f"document.getElementById('slider').value = '{step}';"
                               "document.getElementById('slider').dispatchEvent(new Event('input'));")
        return browser.execute_script(f"var p = document.querySelector('polygon[data-hex=\"{hex_label}\"]');"
                                      " return [p.dataset.terrain, p.getAttribute('fill')];")

    before, at, after = terrain_at(step - 1), terrain_at(step), terrain_at(len(recording.lines))
    assert before[0] == recording.terrain_at_start[hex_label] and at[0] == after[0] == "command_tent"
    assert before[1] != at[1]
    assert terrain_at(0) == before  # and back


def test_a_screenshot_of_a_step_matches_the_golden_picture(browser, tmp_path):
    from PIL import Image, ImageChops

    path, _ = _page(tmp_path, "battlelore/spider_ford", 7)
    shot = tmp_path / "step19.png"
    screenshot(browser, path, 19, shot)
    if not GOLDEN.exists():
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, GOLDEN)
        pytest.fail(f"no golden picture: wrote {GOLDEN.relative_to(ROOT)}; look at it, then run again")
    now, golden = Image.open(shot).convert("RGB"), Image.open(GOLDEN).convert("RGB")
    assert now.size == golden.size
    diff = ImageChops.difference(now, golden).convert("L").point(lambda v: 255 if v > 40 else 0)
    changed = diff.histogram()[255]
    assert changed <= 0.005 * now.size[0] * now.size[1], f"{changed} pixels differ from {GOLDEN.name}"


def test_a_long_game_steps_without_delay(browser, tmp_path):
    path, recording = _page(tmp_path, "battlelore/spider_ford", 3, {"north": "random", "south": "random"},
                            "long.html")
    assert len(recording.lines) >= 2000
    started = time.perf_counter()
    browser.get(path.as_uri())
    loaded = time.perf_counter() - started
    ms = browser.execute_script(
        "var t = performance.now();"
        "for (var i = 0; i < 300; i++) {"
        "  document.body.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight', bubbles: true})); }"
        "document.body.dispatchEvent(new KeyboardEvent('keydown', {key: 'End', bubbles: true}));"
        "return (performance.now() - t) / 301;")
    assert browser.execute_script("return document.body.dataset.step") == str(len(recording.lines))
    assert loaded < 10 and ms < 30, (loaded, ms)  # a step well under a frame or two on a shared CI core


def _css_rgb(colour: str) -> str:
    if len(colour) == 4:
        colour = "#" + "".join(c * 2 for c in colour[1:])
    return "rgb({}, {}, {})".format(*(int(colour[i:i + 2], 16) for i in (1, 3, 5)))


def _hostile_pages(tmp_path) -> list:
    """(page, recording) of a real game whose scenario name, event arguments and look marks are
    hostile, and of the same game with every unit's id, type and side hostile too."""
    from dataclasses import replace

    from hexlore.replay.page import replay_html

    loaded = api.open_scenario(str(write_project(tmp_path)))
    _, recording, diagnostics, _ = play_recorded(loaded)
    assert recording is not None, diagnostics
    first = tmp_path / "hostile.html"
    first.write_text(page_of(loaded, recording), encoding="utf-8")
    k = len(HOSTILE)
    units = [{**u, "id": HOSTILE[i % k], "type": HOSTILE[(i + 1) % k], "side": HOSTILE[(i + 2) % k]}
             for i, u in enumerate(recording.units)]
    renamed = replace(recording, title=" ".join(HOSTILE), units=units)
    second = tmp_path / "renamed.html"
    second.write_text(replay_html(renamed, look_of(loaded.rules)), encoding="utf-8")
    return [(first, recording), (second, renamed)]


def _read(driver, expression: str):
    """``expression``'s value through JSON.stringify, which writes a lone surrogate as an escape
    (the driver cannot pass one back itself)."""
    return json.loads(driver.execute_script(f"return JSON.stringify({expression});"))


def _as_js(data):
    """``data`` as JavaScript holds it: a pair of surrogate escapes is one character."""
    return json.loads(json.dumps(data))


def test_hostile_names_run_nothing_show_as_text_and_the_viewer_works(watched, tmp_path):
    from selenium.webdriver.common.keys import Keys

    for (path, recording), marks in zip(_hostile_pages(tmp_path), (MARKS, None)):
        watched.get(path.as_uri())
        title = clean_text(recording.title)
        state = _read(watched, "[window.pwned === undefined, document.title, document.querySelector('h1').textContent,"
                               " window.__violations, document.querySelectorAll('#entries li').length,"
                               " getComputedStyle(document.querySelector('h1')).fontSize]")
        assert state == [True, f"{title} - hexlore replay", title, [], len(recording.lines) + 1, "18px"]
        said = [json.loads(line) for line in recording.lines]
        rows = _read(watched, "Array.from(document.querySelectorAll('#entries li')).map(function (li) {"
                              " return li.textContent; })")
        assert rows[2] == f"said(text: {said[1]['args']['text']}, who: {said[1]['args']['who']})"
        for step in range(1, len(MARKUP) + 2):  # each argument in the detail pane, literally
            press(watched, Keys.ARROW_RIGHT)
            shown = _read(watched, "[document.body.dataset.step, document.getElementById('slider').value,"
                                   " Array.from(document.querySelectorAll('#detail li')).map(function (li) {"
                                   " return li.textContent; })]")
            entry = said[step - 1]
            expected = [f"{a}: {v}" for a, v in entry["args"].items()] if entry["type"] == "event" else []
            assert shown == [str(step), str(step), expected]
        drawn = _read(watched, "Array.from(document.querySelectorAll('#units g[data-unit]')).map(function (g) {"
                               " return [g.dataset.unit, g.dataset.side, g.querySelector('text').textContent]; })")
        data = _read(watched, "JSON.parse(document.getElementById('replay-data').textContent).units")
        assert drawn == _as_js([[u["id"], u["side"], d["mark"]] for u, d in zip(recording.units, data)])
        if marks:  # the look's marks, hostile ones included
            assert [d["mark"] for d in data] == [marks[k % len(marks)] for k in range(len(data))]
        assert _read(watched, "[window.pwned === undefined, window.__violations]") == [True, []]


def test_hostile_rolls_decisions_and_origins_show_as_text_at_every_step(watched, tmp_path):
    """Every entry kind, with hostile text everywhere (tests/fuzz/pages.py, seed 0), stepped
    through: the detail pane shows each as text (dice faces, options, the rule it came from)."""
    import random

    from fuzz.pages import hostile_look, hostile_recording
    from hexlore.replay.page import replay_html

    loaded = api.open_scenario(str(write_project(tmp_path)))
    _, base, _, _ = play_recorded(loaded)
    rng = random.Random(0)
    recording, where = hostile_recording(base, rng)
    path = tmp_path / "fuzzed.html"
    path.write_text(replay_html(recording, hostile_look(look_of(loaded.rules), recording, rng), where),
                    encoding="utf-8")
    watched.get(path.as_uri())
    entries = _as_js([json.loads(line) for line in recording.lines])
    kinds = set()
    for step, entry in enumerate(entries, 1):
        watched.execute_script(f"var s = document.getElementById('slider'); s.value = '{step}';"
                               "s.dispatchEvent(new Event('input'));")
        faces, rule, chips = _read(watched, "[Array.from(document.querySelectorAll('#detail .die')).map(function (d) {"
                                            " return d.textContent; }), (document.querySelector('#detail .rule a') || {})"
                                            ".textContent || null, document.querySelectorAll('#detail .option').length]")
        kinds.add(entry["type"])
        assert faces == (entry["faces"] if entry["type"] == "roll" else [])
        assert rule == (_as_js(where[step - 1][0]) if where[step - 1] else None)
        assert chips == (len(recording.offered.get(step - 1, [])) if entry["type"] == "decision" else 0)
    assert kinds == {"event", "roll", "decision", "end"}
    assert _read(watched, "[window.pwned === undefined, document.body.dataset.step, window.__violations]") == \
        [True, str(len(entries)), []]
    step = next(k for k, at in enumerate(where, 1) if at)  # a rule file named like a script URL
    where[step - 1][1] = "javascript:window.pwned=1"
    path.write_text(replay_html(recording, look_of(loaded.rules), where), encoding="utf-8")
    watched.get(path.as_uri())
    watched.execute_script(f"var s = document.getElementById('slider'); s.value = '{step}';"
                           "s.dispatchEvent(new Event('input'));")
    link = watched.execute_script("var a = document.querySelector('#detail .rule a');"
                                  " return [a.protocol, a.getAttribute('href')];")
    assert link == ["file:", "./javascript:window.pwned=1"]


def test_the_policy_stops_markup_forced_into_a_page(watched, tmp_path):
    """Were a name ever to become markup, the page's policy would run none of it."""
    path, _ = _hostile_pages(tmp_path)[0]
    html = path.read_text(encoding="utf-8")
    forced = html.replace("<body>", '<body><img src=x onerror="window.pwned=1"><script>window.pwned=2</script>'
                          '<div onclick="window.pwned=3" id="forced">x</div>', 1)
    path.write_text(forced, encoding="utf-8")
    watched.get(path.as_uri())
    watched.execute_script("document.getElementById('forced').click();")
    pwned, violations, step = watched.execute_script(
        "return [window.pwned, window.__violations, document.body.dataset.step];")
    assert pwned is None and step == "0"  # nothing forced ran; the viewer did
    assert {v[0] for v in violations} >= {"script-src-elem", "script-src-attr"}, violations
