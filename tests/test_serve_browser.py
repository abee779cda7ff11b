"""hexlore serve in a real browser: the system's Chromium, driven by selenium, against
``hexlore serve`` started as a real process on a free port.

Two windows play the bundled ford to its end as the two sides of a remote game (each with
its own seat link), clicking the decision's first option; then a person plays against
``greedy`` by clicking hexes and units on the board, the server is killed mid-game and started
again on the same database, the page reconnects by itself and shows the same position, and
Undo goes back to the person's previous decision. A scenario named with markup is shown as
the text it is. ``HEXLORE_SERVE_SHOTS=DIR`` saves the screenshots the README shows.

Chromium and chromedriver come from the distribution; as for the replay's browser tests, they
are skipped where missing unless HEXLORE_SYSTEM_TOOLS=required (set by .ci/run).
"""

from __future__ import annotations

import importlib.util
import os
import re
import socket
import subprocess
import sys
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest

from conftest import ROOT, need_program
from replay_browser import CHROMIUM, DRIVER, chromium

need_program(importlib.util.find_spec("selenium") is not None, "selenium", "pip install '.[test]'", module_level=True)
need_program(bool(CHROMIUM and DRIVER), "Chromium with chromedriver", "apt-get install chromium chromium-driver",
             module_level=True)

FORD = "battlelore/spider_ford"
SHOTS = os.environ.get("HEXLORE_SERVE_SHOTS")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def server(port: int, database: Path, *scenarios: str):
    """``hexlore serve`` as a process, once it answers; killed (SIGKILL) on leaving."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen([sys.executable, "-m", "hexlore", "serve", *scenarios, "--port", str(port),
                                "--database", str(database)], cwd=ROOT, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        for _ in range(600):  # up to a minute for the first compile of the packs
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5).read()
                break
            except OSError:
                if process.poll() is not None:
                    raise AssertionError("hexlore serve stopped: " + process.stdout.read().decode())
                import time
                time.sleep(0.1)
        yield process
    finally:
        process.kill()
        process.wait()


def wait(driver, condition, seconds: float = 60):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, seconds).until(lambda d: d.execute_script(condition))


def new_game(driver, port: int, north: str, south: str, mode: str) -> dict[str, str]:
    """Fill the home page's form of the ford and start; {seat label: link}."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.select import Select

    driver.get(f"http://127.0.0.1:{port}/")
    form = next(f for f in driver.find_elements(By.CSS_SELECTOR, "form.new-game")
                if f.find_element(By.NAME, "scenario").get_attribute("value") == FORD)
    Select(form.find_element(By.NAME, "player.north")).select_by_value(north)
    Select(form.find_element(By.NAME, "player.south")).select_by_value(south)
    Select(form.find_element(By.NAME, "mode")).select_by_value(mode)
    form.find_element(By.NAME, "seed").clear()
    form.find_element(By.NAME, "seed").send_keys("3")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait(driver, "return document.querySelectorAll('a[data-seat]').length > 0")
    return {a.get_attribute("data-seat"): a.get_attribute("href")
            for a in driver.find_elements(By.CSS_SELECTOR, "a[data-seat]")}


def seq(driver) -> int:
    return int(driver.execute_script("return document.body.getAttribute('data-seq') || '-1'"))


def shot(driver, name: str) -> None:
    if SHOTS:
        driver.save_screenshot(str(Path(SHOTS) / name))


@pytest.fixture(scope="module")
def browser():
    with chromium() as driver:
        yield driver


@pytest.mark.slow
def test_two_windows_play_the_ford_to_its_end(browser, tmp_path):
    port = free_port()
    with server(port, tmp_path / "games.sqlite"):
        links = new_game(browser, port, "person", "person", "remote")
        windows = {}
        for side in ("north", "south"):
            browser.switch_to.new_window("window")
            browser.get(links[f"plays {side}"])
            wait(browser, "return document.body.getAttribute('data-pending') !== null")
            windows[side] = browser.current_window_handle
        moves = 0
        while True:
            browser.switch_to.window(windows["north"])
            pending = browser.execute_script("return document.body.getAttribute('data-pending')")
            if pending == "over":
                break
            browser.switch_to.window(windows[pending])
            before = seq(browser)
            assert before == moves
            if moves == 20:
                shot(browser, "serve_remote_ford.png")
            browser.execute_script("document.querySelector('#decision button[data-option]').click()")
            wait(browser, f"return Number(document.body.getAttribute('data-seq')) > {before}")
            browser.switch_to.window(windows["north"])
            wait(browser, f"return Number(document.body.getAttribute('data-seq')) > {before}")
            moves += 1
            assert moves < 1000
        assert moves > 50
        text = browser.find_element("id", "decision").text
        assert "Game over: winner" in text
        shot(browser, "serve_game_over.png")
        for side in ("south", "north"):
            browser.switch_to.window(windows[side])
            browser.close()
        browser.switch_to.window(browser.window_handles[0])


def _click_option(browser) -> None:
    """Answer by the board when an option is a hex or a unit there, else by the list."""
    clicked = browser.execute_script(
        "var g = document.querySelector('#units g.unit.option');"
        "if (g) { g.dispatchEvent(new MouseEvent('click', {bubbles: true})); return 'unit'; }"
        "var p = document.querySelector('polygon.option');"
        "if (p) { p.dispatchEvent(new MouseEvent('click', {bubbles: true})); return 'hex'; }"
        "document.querySelector('#decision button[data-option]').click(); return 'list';")
    assert clicked in ("unit", "hex", "list")


@pytest.mark.slow
def test_person_against_greedy_survives_a_restart_and_undoes(browser, tmp_path):
    port, database = free_port(), tmp_path / "games.sqlite"
    with server(port, database):
        links = new_game(browser, port, "person", "greedy", "hot-seat")
        browser.get(links["plays north"])
        wait(browser, "return document.body.getAttribute('data-pending') === 'north'")
        for _ in range(6):
            before = seq(browser)
            _click_option(browser)
            wait(browser, f"return Number(document.body.getAttribute('data-seq')) > {before} && "
                          "document.body.getAttribute('data-pending') === 'north'")
        shot(browser, "serve_against_greedy.png")
        position = seq(browser), browser.find_element("id", "log").text
    wait(browser, "return !document.body.classList.contains('live')")  # the server is gone
    with server(port, database):
        wait(browser, "return document.body.classList.contains('live') && "
                      "document.body.getAttribute('data-pending') === 'north'")
        assert (seq(browser), browser.find_element("id", "log").text) == position
        before = seq(browser)
        _click_option(browser)
        wait(browser, f"return Number(document.body.getAttribute('data-seq')) > {before} && "
                      "document.body.getAttribute('data-pending') === 'north'")
        browser.find_element("id", "undo").click()
        wait(browser, f"return Number(document.body.getAttribute('data-seq')) === {before}")
        assert browser.find_element("id", "log").text == position[1]


def test_hostile_names_are_text_in_the_browser(browser, tmp_path):
    hostile = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>'
    source = (ROOT / "scenarios" / f"{FORD}.yaml").read_text(encoding="utf-8")
    path = tmp_path / "hostile.yaml"
    path.write_text(source.replace("name: The Spider at the Ford", "name: '" + hostile + "'", 1), encoding="utf-8")
    assert hostile in path.read_text(encoding="utf-8")
    port = free_port()
    os.environ["HEXLORE_PATH"] = str(ROOT / "rules")
    try:
        with server(port, tmp_path / "games.sqlite", str(path)):
            browser.get(f"http://127.0.0.1:{port}/")
            assert hostile in browser.find_element("css selector", "form.new-game h3").text
            page = urllib.request.urlopen(urllib.request.Request(
                f"http://127.0.0.1:{port}/games", data=f"scenario={urllib.request.quote(str(path))}&player.north=person"
                "&player.south=greedy&seed=1".encode())).read().decode()
            game, token = re.search(r'href="/play/([^"?]+)\?token=([^"]+)"', page).groups()
            browser.get(f"http://127.0.0.1:{port}/play/{game}?token={token}")
            wait(browser, "return document.body.getAttribute('data-pending') === 'north'")
            assert browser.find_element("css selector", "header h1").text == hostile
            assert browser.title.startswith(hostile)
            assert browser.execute_script("return window.__pwned === undefined")
    finally:
        del os.environ["HEXLORE_PATH"]


def test_odds_the_unit_named_and_a_designers_edit(browser, tmp_path):
    """Hot-seat, designer mode: the move names its unit (ringed on the board), "odds" of the
    archers' shot shows the table, and the designer's form weakens a unit on every page."""
    from selenium.webdriver.common.by import By

    port = free_port()
    with server(port, tmp_path / "games.sqlite"):
        browser.get(f"http://127.0.0.1:{port}/")
        form = next(f for f in browser.find_elements(By.CSS_SELECTOR, "form.new-game")
                    if f.find_element(By.NAME, "scenario").get_attribute("value") == FORD)
        from selenium.webdriver.support.select import Select
        Select(form.find_element(By.NAME, "player.south")).select_by_value("person")
        form.find_element(By.NAME, "seed").clear()
        form.find_element(By.NAME, "seed").send_keys("3")
        form.find_element(By.NAME, "designer").click()
        form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        wait(browser, "return document.querySelectorAll('a[data-seat]').length > 0")
        browser.get(browser.find_element(By.CSS_SELECTOR, "a[data-seat='plays north, south']").get_attribute("href"))
        for move in range(5):  # the last option each time: north's archers come to shoot
            wait(browser, f"return Number(document.body.getAttribute('data-seq')) === {move}")
            if move == 3:
                assert "for n_archers" in browser.find_element(By.CSS_SELECTOR, "#decision .about").text
                assert browser.execute_script("return document.querySelector('g.unit.subject')"
                                              ".getAttribute('data-unit')") == "n_archers"
            browser.execute_script("var b = document.querySelectorAll('#decision button[data-option]');"
                                   "b[b.length - 1].click();")
        wait(browser, "return Number(document.body.getAttribute('data-seq')) === 5")
        assert "ranged_target" in browser.find_element(By.ID, "decision").text
        browser.execute_script("document.querySelector('#decision button[data-odds]').click()")
        wait(browser, "return document.querySelectorAll('#odds table tbody tr').length > 1")
        assert "exact" in browser.find_element(By.CSS_SELECTOR, "#odds .odds-head").text
        assert "%" in browser.find_element(By.CSS_SELECTOR, "#odds tbody td").text
        shot(browser, "serve_odds.png")
        designer = browser.find_element(By.ID, "designer")
        assert designer.is_displayed()
        for name, value in (("unit", "s_centre2"), ("field", "figures"), ("value", "1")):
            designer.find_element(By.NAME, name).clear()
            designer.find_element(By.NAME, name).send_keys(value)
        designer.find_element(By.CSS_SELECTOR, "button[data-edit=field]").click()
        wait(browser, "return (document.querySelector('g[data-unit=s_centre2]').getAttribute('data-strength')"
                      " || '') === 'figures=1'")
        assert seq(browser) == 5
