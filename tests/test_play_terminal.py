"""A human plays a side in a real terminal: ``hexlore run … --policy north=human`` inside tmux.

click's test runner pipes the answers in (tests/test_play.py); here the game runs on a
pseudo-terminal that tmux drives, keys are typed with ``send-keys`` and the screen is read
with ``capture-pane``, as a person would see it. tmux is installed by ``.ci/run`` where it is
missing; without it the test is skipped, except in CI (``CI`` set), where it fails.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from conftest import need_program

TMUX = shutil.which("tmux")


@pytest.fixture
def terminal():
    need_program(TMUX is not None, "tmux", "apt-get install tmux")
    folder = Path(tempfile.mkdtemp(prefix="hexlore-tmux-"))  # short: a socket path has at most ~100 bytes
    term = Terminal(folder)
    try:
        yield term
    finally:
        term.close()
        shutil.rmtree(folder, ignore_errors=True)


class Terminal:
    """One tmux server of its own (its socket in a private folder), with one window."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.socket = str(folder / "tmux.sock")

    def tmux(self, *args: str) -> str:
        done = subprocess.run([TMUX, "-S", self.socket, *args], capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, done.stderr
        return done.stdout

    def start(self, command: list[str]) -> None:
        shell = " ".join(shlex.quote(c) for c in command) + "; echo EXIT=$?; sleep 120"
        env = {k: v for k, v in os.environ.items() if not k.startswith("TMUX")}
        subprocess.run([TMUX, "-S", self.socket, "-f", os.devnull, "new-session", "-d", "-x", "110", "-y", "40",
                        "-c", str(self.folder), "sh", "-c", shell], check=True, timeout=30, env=env)

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-J", "-S", "-2000")

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", *keys)

    def wait_for(self, text: str, after: int = 0, timeout: float = 90) -> str:
        """The screen once ``text`` shows at least ``after + 1`` times."""
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if screen.count(text) > after:
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} never showed; the screen:\n{screen}")
            time.sleep(0.2)

    def close(self) -> None:
        subprocess.run([TMUX, "-S", self.socket, "kill-server"], capture_output=True, timeout=30)


def test_enter_takes_the_preferred_option_in_a_real_terminal(terminal):
    """Issue 15: Enter on a decision with a preferred option repeated "there is no default here"."""
    log = terminal.folder / "game.jsonl"
    terminal.start([sys.executable, "-m", "hexlore", "run", "battlelore/spider_ford", "--seed", "3",
                    "--max-rounds", "1", "--log", str(log), "--policy", "north=human"])
    screen = terminal.wait_for("north> ")
    asked = screen[screen.index("north decides command_card:"):]
    assert "1. attack_centre  (preferred)" in asked
    assert "(a number, an option, Enter for the preferred option (1), ? for the position)" in asked
    terminal.keys("Enter")  # an empty answer: the preferred card
    screen = terminal.wait_for("north> ", after=1)
    assert "north chose attack_centre for command_card" in screen
    asked = screen[screen.index("north decides order_unit:"):]
    assert "1. spider  (preferred)" in asked
    terminal.keys("Enter")  # the preferred unit
    screen = terminal.wait_for("north> ", after=2)
    assert "unit_ordered unit=spider card=attack_centre" in screen
    asked = screen[screen.rindex("north decides order_unit:"):]
    assert "preferred" not in asked and "default" not in asked  # nothing for Enter to take: refused
    assert "(a number, an option, ? for the position)" in asked
    terminal.keys("Enter")
    terminal.wait_for("no option is the default or preferred here: type a number from 1 to 3")
    terminal.keys("?", "Enter")  # the position, then the question again
    terminal.wait_for("north: 7 unit(s) on the board")
    terminal.keys("2", "Enter")
    terminal.wait_for("north chose n_centre for order_unit")
    terminal.keys("C-d")  # the end of input: the game is abandoned, its log kept
    screen = terminal.wait_for("EXIT=")
    assert "game abandoned: north stopped answering at decision" in screen and "EXIT=1" in screen
    assert "Traceback" not in screen
    decisions = [e for e in map(json.loads, log.read_text(encoding="utf-8").splitlines()) if e["type"] == "decision"
                 and e["by"] == "north"]
    assert [(e["decision"], e["choice"]) for e in decisions[:3]] == [
        ("command_card", "attack_centre"), ("order_unit", "spider"), ("order_unit", "n_centre")]


def test_the_board_sides_cards_units_and_odds_in_a_real_terminal(terminal):
    """Issue 31, item 7: a question names the unit it is about, cards show their text, ? draws
    the board as text with each side's fields and hand, odds N prints exact odds."""
    log = terminal.folder / "game.jsonl"
    terminal.start([sys.executable, "-m", "hexlore", "run", "battlelore/spider_ford", "--seed", "3",
                    "--max-rounds", "1", "--log", str(log), "--policy", "north=human"])
    screen = terminal.wait_for("north> ")
    assert "1. attack_centre  (preferred)  Attaque au centre (section: centre, units: 3)" in screen
    assert "(odds N: what option N leads to, exactly)" in screen
    terminal.keys("?", "Enter")
    screen = terminal.wait_for("north> ", after=1)  # the position shown, the question asked again
    assert "     A2    B2    C2    D2    E2    F2" in screen  # an offset row of labels
    assert "   .     f     .     .     .   nSPI1" in screen  # the spider on G4, the forest on C4
    assert "sides: n north, s south" in screen
    assert "north: orders_left 0, banners 0, lore 0, order_faces []" in screen
    assert "    attack_centre \u2014 Attaque au centre (section: centre, units: 3)" in screen  # north's own hand
    assert "south: orders_left 0, banners 0, lore 0, hand 4 card(s), order_faces []" in screen  # not south's
    terminal.keys("odds 9", "Enter")
    terminal.wait_for("odds of which option? type odds and a number from 1 to 4 (odds 1)")
    assert "terrain: . plain, r river, f forest, h hill" in screen
    for answer in ("", "", "1", "1"):  # the card, the spider, n_left2, n_centre
        terminal.keys(answer, "Enter") if answer else terminal.keys("Enter")
    screen = terminal.wait_for("north decides move_to about spider (giant_spider at G4):")
    terminal.keys("odds 1", "Enter")
    screen = terminal.wait_for("odds of move_to = ")
    assert "(north), 1 outcome(s) enumerated, exact:" in screen and "100.0%  move_to (north)" in screen
    terminal.keys("C-d")
    screen = terminal.wait_for("EXIT=")
    assert "Traceback" not in screen and "EXIT=1" in screen
    decisions = [e for e in map(json.loads, log.read_text(encoding="utf-8").splitlines()) if e["type"] == "decision"
                 and e["by"] == "north"]
    assert [e["choice"] for e in decisions[:4]] == ["attack_centre", "spider", "n_left2", "n_centre"]
