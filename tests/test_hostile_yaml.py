"""Hostile scenario, campaign and sheet YAML is refused within 5 CPU s and 500 MB (issue 13).

Every file is read by ``python -m hexlore`` in a child held to the bounds by the kernel
(tests/bounded.py), through each command that reads it.
"""

from __future__ import annotations

import pytest

from bounded import ROOT, assert_refused, run_bounded

HEAD = ("hexlore: 1\nname: hostile\npacks: [battlelore.creatures]\nboard: {shape: battlelore}\n"
        "sides:\n  - {name: north, edge: top}\n  - {name: south, edge: bottom}\n")
BOMB = ("options:\n  a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
        + "".join(f"  a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]\n" for i in range(1, 10)))

CASES = {
    "billion laughs": (HEAD + "units: []\n" + BOMB, "S014"),
    "1,000 deep": (HEAD + "units: []\noptions: {x: " + "[" * 1000 + "]" * 1000 + "}\n", "S013"),
    "40,000 deep": (HEAD + "units: []\noptions: {x: " + "[" * 40_000 + "]" * 40_000 + "}\n", "S013"),
    "1,000-deep block mappings": (HEAD + "units: []\noptions:\n" + "".join(" " * i + f"k{i}:\n" for i in range(1000)), "S013"),
    "5,000-digit integer": (HEAD + "units: []\nseed: " + "9" * 5000 + "\n", "S012"),
    "20-digit integer": (HEAD + "units: []\nmax_rounds: 100000000000000000000\n", "S012"),
    "a deck of 10**9": (HEAD + "units: []\ndecks:\n  command_deck: {scout_left: 1000000000}\n", "S003"),
    "a deck of 10**20": (HEAD + "units: []\ndecks:\n  command_deck: {scout_left: 100000000000000000000}\n", "S012"),
    "decks of 11,000 cards": (HEAD + "units: []\ndecks:\n  command_deck: {"
                              + ", ".join(f"c{i}: 1000" for i in range(11)) + "}\n", "S015"),
    "12,000 units": (HEAD + "units:\n" + "".join(f"  - {{id: u{i}, type: foot_green, side: north}}\n"
                                                 for i in range(12_000)), "S003"),
    "a number as a unit name in given": (HEAD + "units: []\ntests:\n  - name: t\n    given: {1: {hex: A1}}\n"
                                         "    do: [{call: x}]\n    expect: {events: []}\n", "S1"),
}


#: problems inside 'tests:' only: a game never reads them, so 'run' plays and warns (issue 15)
TESTS_ONLY = {"a number as a unit name in given"}


@pytest.mark.parametrize("text, code", CASES.values(), ids=CASES.keys())
@pytest.mark.parametrize("command", ["check", "run", "test"])
def test_refused(tmp_path, text, code, command):
    scenario = tmp_path / "hostile.yaml"
    scenario.write_text(text, encoding="utf-8")
    outcome = run_bounded(command, str(scenario))
    if command == "run" and text in (CASES[c][0] for c in TESTS_ONLY):
        assert outcome.returncode == 0, outcome.describe()
        assert "Traceback" not in outcome.output and f"warning[{code}" in outcome.stderr, outcome.describe()
        return
    assert_refused(outcome, code)


def test_thousands_of_units_off_a_large_board_are_all_reported(tmp_path):
    """The label hint of an off-board hex costs time in proportion to the board (about 19 ms
    for these 14,400 hexes): computed for each of the 3,000 units it would take about a minute
    of CPU, far past the bound, so computed once per board it must be.

    The board was 500x500 (250,000 hexes) until issue 30: building it and the game's state for
    every hex took most of the 5 CPU s on its own, so on a loaded machine the child was killed
    before it had reported anything, whatever the hint cost. At 120x120 that set-up takes a
    twentieth of the time, and a per-unit hint would still be 10 times over the bound."""
    scenario = tmp_path / "off.yaml"
    scenario.write_text(HEAD.replace("{shape: battlelore}", "{shape: rectangle, width: 120, height: 120}")
                        + "units:\n" + "".join(f"  - {{id: u{i}, type: foot_green, side: north, hex: A{i + 600}}}\n"
                                               for i in range(3000)), encoding="utf-8")
    outcome = run_bounded("check", str(scenario))
    assert_refused(outcome, "S004")
    assert outcome.stdout.count("error[S004]") == 3000


def test_a_bomb_in_a_sheet_is_refused_by_campaign_and_check(tmp_path):
    (tmp_path / "duel.lore").write_text(
        (ROOT / "tests/fixtures/campaign/duel.lore").read_text(encoding="utf-8"),
        encoding="utf-8")
    (tmp_path / "first_blood.yaml").write_text((ROOT / "tests/fixtures/campaign/first_blood.yaml").read_text(encoding="utf-8"),
                                               encoding="utf-8")
    (tmp_path / "bomb.sheet.yaml").write_text("hexlore_sheet: 1\nunits: []\nhistory: []\n" + BOMB, encoding="utf-8")
    campaign = tmp_path / "c.campaign.yaml"
    campaign.write_text("hexlore_campaign: 1\nname: bomb\nsheet: bomb.sheet.yaml\nadventures:\n"
                        "  - scenario: first_blood.yaml\n    units: {}\n", encoding="utf-8")
    assert_refused(run_bounded("campaign", str(campaign)), "S014")
    assert_refused(run_bounded("check", str(tmp_path / "bomb.sheet.yaml")), "S014")


def test_too_many_units_is_one_short_error_without_validating_each():
    from hexlore.runtime.scenarios.loader import load_scenario_text

    units = "".join(f"  - {{id: u{i}, type: foot_green, side: sideways}}\n" for i in range(10_001))
    scenario, diagnostics = load_scenario_text(HEAD + "units:\n" + units, "many.yaml")
    assert scenario is None
    assert [(d.code, d.message) for d in diagnostics] == [
        ("S003", "'units' has 10,001 items; at most 10,000 are allowed")]


def test_the_schema_holds_the_documented_unit_limit():
    from hexlore.dsl.limits import MAX_UNITS
    from hexlore.runtime.scenarios.loader import scenario_schema

    assert scenario_schema()["properties"]["units"]["maxItems"] == MAX_UNITS
