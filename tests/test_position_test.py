"""A game's position saved as a scenario test (issue 31, item 6, the library half).

The round trip a designer relies on: play a few decisions, save the position (and an action
with forced dice), and the saved file is a scenario ``hexlore check`` accepts whose test
passes under ``hexlore test`` — and fails once the position's outcome changes.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from hexlore import api
from hexlore.runtime.analysis.position_test import position_given, position_test, save_position_test
from hexlore.runtime.engine.game import Game

SCENARIO = "battlelore/spider_ford"
ATTACK = [{"call": "melee_attack", "with": {"attacker": "spider", "target": "s_left2"}}]


@pytest.fixture(scope="module")
def played():
    loaded = api.open_scenario(SCENARIO)
    game = Game(loaded.rules, loaded.scenario, seed=3, policies={"north": "greedy", "south": "greedy"})
    request = game.start(max_rounds=3)
    while request is not None and request.name != "melee_target":
        request = game.apply()
    assert request is not None
    return game


def run_saved(path: Path) -> list:
    diagnostics, _ = api.check([str(path)])
    assert [d for d in diagnostics if d.severity.name == "ERROR"] == []
    outcomes, problems, _ = api.test([str(path)])
    assert problems == []
    return outcomes


def test_a_saved_attack_passes_as_a_scenario_test(played, tmp_path):
    target = tmp_path / "kept.yaml"
    found = save_position_test(played, target, "kept: the spider strikes", do=ATTACK, dice=[["blue_helmet", "lore"]])
    test = found.test
    assert test["given"]["spider"]["hex"] == "F6" and test["given"]["s_left2"]["hex"] == "E6"
    assert test["dice"][0] == ["blue_helmet", "lore"] and len(test["dice"]) > 1  # the battle back's dice kept
    assert {"event": "attack_rolled", "attacker": "spider", "target": "s_left2",
            "faces": ["blue_helmet", "lore"]} in test["expect"]["events"]
    outcomes = run_saved(target)
    assert [(o.name, o.passed) for o in outcomes] == [("kept: the spider strikes", True)]
    # the test checks something: another throw of the spider's dice fails it
    data = yaml.safe_load(target.read_text(encoding="utf-8"))
    data["tests"][0]["dice"][0] = ["green_helmet", "green_helmet"]
    target.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    assert [o.passed for o in run_saved(target)] == [False]


def test_a_position_alone_checks_where_the_units_stand(played, tmp_path):
    target = tmp_path / "position.yaml"
    found = save_position_test(played, target, "kept: the position")
    assert "do" not in found.test
    assert found.test["expect"]["units"]["spider"] == {"alive": True, **found.test["given"]["spider"]}
    assert [o.passed for o in run_saved(target)] == [True]


def test_what_a_given_cannot_say_is_noted(played):
    given, notes = position_given(played)
    assert "spider" in given and "s_right" not in given  # only what moved or changed
    assert any(n.startswith("side 'north' fields hand") for n in notes)


def test_an_action_that_cannot_run_is_refused_and_nothing_written(played, tmp_path):
    target = tmp_path / "never.yaml"
    with pytest.raises(ValueError, match="no procedure 'strik'"):
        save_position_test(played, target, "bad", do=[{"call": "strik", "with": {}}])
    with pytest.raises(ValueError, match="has 4 dice, but the rules roll 2"):
        position_test(played, "bad", do=ATTACK, dice=[["flag"] * 4])
    assert not target.exists()
