"""Rules that would run for ever or exhaust memory stop with a located R-code (issue 13).

One budget per game bounds steps (loop iterations, items read by aggregates or made by
built-ins), events and log entries, and log bytes; integers are bounded (R002). Each hostile
procedure runs through the CLI in a child held to 5 CPU s and 500 MB (tests/bounded.py),
through ``test``, ``odds`` and, for a game that floods from its setup, ``run`` with a log
that must stay valid JSON lines up to where the game stopped.
"""

from __future__ import annotations

import json

import pytest

from bounded import assert_refused, run_bounded

PACK = '''pack hostile
use battlelore.core

event ping(n: int) "a ping"

trigger echo on ping {
  if n > 0 {
    emit ping(n: n - 1)
    emit ping(n: n - 1)
  }
}

procedure flood() "floods the log" { emit ping(n: 60) }

procedure nested() -> int "nested aggregates" {
  return sum(each a in range(1, 100000) : sum(each b in range(1, 100000) : a + b))
}

procedure deep_aggregates() -> int "thirty aggregates, each in the test of the next" {
  return count(each y29 in range(1, 2) where count(each y28 in range(1, 2) where count(each y27 in range(1, 2) where count(each y26 in range(1, 2) where count(each y25 in range(1, 2) where count(each y24 in range(1, 2) where count(each y23 in range(1, 2) where count(each y22 in range(1, 2) where count(each y21 in range(1, 2) where count(each y20 in range(1, 2) where count(each y19 in range(1, 2) where count(each y18 in range(1, 2) where count(each y17 in range(1, 2) where count(each y16 in range(1, 2) where count(each y15 in range(1, 2) where count(each y14 in range(1, 2) where count(each y13 in range(1, 2) where count(each y12 in range(1, 2) where count(each y11 in range(1, 2) where count(each y10 in range(1, 2) where count(each y9 in range(1, 2) where count(each y8 in range(1, 2) where count(each y7 in range(1, 2) where count(each y6 in range(1, 2) where count(each y5 in range(1, 2) where count(each y4 in range(1, 2) where count(each y3 in range(1, 2) where count(each y2 in range(1, 2) where count(each y1 in range(1, 2) where count(each y0 in range(1, 2) where 1 > 0) > 0) > 0) > 0) > 0) > 0) > 0) > 0) > 0) > 0) > 0) > 0) > 0) > 0) > 0) > 0) > 0) > 0) > 0) > 0) > 0) > 0) > 0) > 0) > 0) > 0) > 0) > 0) > 0) > 0)
}

procedure lists() -> int "a list of lists" {
  return count(list(each a in range(1, 100000) : range(1, 100000)))
}

procedure big_roll() -> int "a roll of a billion dice" {
  return count(roll(1000000000, battle))
}

procedure squares() -> int "squares in a loop" {
  let k = 3
  repeat 40 { k = k * k }
  return k
}

procedure all_hexes() -> int "every hex, many times" {
  let n = 0
  repeat 10000 { n = n + count(hexes()) }
  return n
}
'''

GAME = '''pack flooding
event ping(n: int) "a ping"
trigger echo on ping {
  if n > 0 {
    emit ping(n: n - 1)
    emit ping(n: n - 1)
  }
}
game flooding "Floods from its setup" {
  setup { emit ping(n: 60) }
  round { }
}
'''

SCENARIO = '''hexlore: 1
name: {name}
packs: [{pack}]
board: {{shape: rectangle, width: 500, height: 200}}
sides:
  - {{name: north, edge: top}}
  - {{name: south, edge: bottom}}
units: []
tests:
  - name: {name}
    do: [{{call: {name}}}]
    expect: {{events: []}}
'''

CASES = {
    "flood": ("R001", "events or log entries"),
    "nested": ("R001", "steps"),
    # compiled once each (an aggregate's test is compiled twice, for undecided dice faces: a
    # nested one must not be compiled twice per level, 2**30 times in all)
    "deep_aggregates": ("R001", "steps"),
    "lists": ("R001", "steps"),
    "big_roll": ("R001", "1,000,000,000 dice"),
    "squares": ("R002", "digits"),
    "all_hexes": ("R001", "steps"),
}


@pytest.fixture
def hostile(tmp_path):
    (tmp_path / "hostile.lore").write_text(PACK, encoding="utf-8")

    def scenario(name):
        path = tmp_path / f"{name}.yaml"
        path.write_text(SCENARIO.format(name=name, pack="hostile.lore"), encoding="utf-8")
        return path
    return scenario


@pytest.mark.parametrize("name", CASES)
def test_a_scenario_test_fails_with_a_located_diagnostic(hostile, name):
    code, words = CASES[name]
    outcome = run_bounded("test", str(hostile(name)))
    assert_refused(outcome, code)
    assert words in outcome.output and "hostile.lore:" in outcome.output, outcome.describe()


@pytest.mark.parametrize("name", ["flood", "nested", "big_roll", "squares", "deep_aggregates"])
def test_odds_refuses_the_same_way(hostile, name):
    code, words = CASES[name]
    outcome = run_bounded("odds", str(hostile(name)), "--action", f"{name}()", "--outcome", "winner")
    assert_refused(outcome, code)


def test_check_passes_what_only_running_can_judge(hostile):
    outcome = run_bounded("check", str(hostile("flood")))
    assert outcome.returncode in (0, 1) and "Traceback" not in outcome.output, outcome.describe()


def test_a_game_that_floods_stops_with_its_log_intact(tmp_path):
    (tmp_path / "flooding.lore").write_text(GAME, encoding="utf-8")
    scenario = tmp_path / "game.yaml"
    scenario.write_text(SCENARIO.format(name="flooding", pack="flooding.lore").split("tests:")[0], encoding="utf-8")
    log = tmp_path / "game.jsonl"
    outcome = run_bounded("run", str(scenario), "--log", str(log))
    assert_refused(outcome, "R001")
    lines = log.read_text(encoding="utf-8").splitlines()
    assert len(lines) > 1000
    entries = [json.loads(line) for line in lines]  # every line written is whole
    assert [e["seq"] for e in entries] == list(range(1, len(entries) + 1))
    assert entries[-1]["type"] == "event" and entries[-1]["event"] == "ping"
