"""A scenario is loaded once (issue 32, item 3): one read of its file, one YAML parse, one schema
validation, one check against its packs, and one ``Game``, the one that plays; checking it
builds no ``Game`` at all (so the rules' Python is never generated for a check).

Each stage is counted by wrapping the function that does it; the commands run in process
through the CLI's own ``main``. No time is measured: a count does not depend on the machine.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import ROOT
from hexlore import api
from hexlore.cli import main
from hexlore.compiler.model import RuleSet
from hexlore.dsl import confine
from hexlore.runtime.analysis import scenario_checks
from hexlore.runtime.engine import game as game_module
from hexlore.runtime.scenarios import loader, located_yaml

SPIDER = "battlelore/spider_ford"
SPIDER_FILE = ROOT / "scenarios" / "battlelore" / "spider_ford.yaml"

ODDS_FILE = ROOT / "tests" / "fixtures" / "odds" / "spider_attack.yaml"

#: commands that open one scenario and play, draw or measure it: the file, and how many games
#: each builds (None: the odds engine plays as many as it measures, which is its own business)
PLAYING = [
    (["run", SPIDER, "--seed", "7", "--max-rounds", "1"], SPIDER_FILE, 1),
    (["render", SPIDER], SPIDER_FILE, 1),
    (["odds", str(ODDS_FILE), "--given", "{attacker: {melee_dice: 1, counts_bonus_strike: true}}", "--action",
      "strike(attacker: attacker, target: spider, melee: true)", "--outcome", "spider.alive"], ODDS_FILE, None),
]


@pytest.fixture
def scenario_file() -> Path:
    """The file whose reads are counted (a test parametrizes it)."""
    return SPIDER_FILE


@pytest.fixture
def counted(monkeypatch, scenario_file) -> Counter:
    """How often each stage of opening a scenario ran, and how often its file was read."""
    counts: Counter = Counter()

    def counting(module, name: str, key: str, reads=False):
        real = getattr(module, name)

        def wrapper(*args, **kwargs):
            if not reads or os.path.abspath(args[0]) == str(scenario_file):
                counts[key] += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(module, name, wrapper)

    counting(loader, "compose", "yaml parse")
    counting(loader, "_schema_errors", "schema validation")
    counting(scenario_checks, "check_against_rules", "check against packs")
    for module in (confine, located_yaml):  # every read of a project file goes through read_confined
        counting(module, "read_confined", "file read", reads=True)
    import hexlore.loading as loading

    counting(loading, "read_confined", "file read", reads=True)
    real_init = game_module.Game.__init__

    def init(self, *args, **kwargs):
        counts["game"] += 1
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(game_module.Game, "__init__", init)
    api.COMPILE_CACHE.clear()
    return counts


@pytest.mark.parametrize("args,scenario_file,games", PLAYING, ids=[a[0] for a, _, _ in PLAYING])
def test_a_command_loads_its_scenario_once_and_builds_one_game(counted, args, games):
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    if games is None:
        assert counted.pop("game") >= 1
    assert counted == Counter({"file read": 1, "yaml parse": 1, "schema validation": 1,
                               "check against packs": 1, **({"game": games} if games else {})})


def test_checking_scenarios_builds_no_game(counted, monkeypatch):
    """``check`` validates every value against the rule set without a game: no rule runs and
    nothing is derived from a rule set (its executable form, the memo's plan: a third of
    ``hexlore check`` when each check built a game)."""
    asked: list[str] = []
    real = RuleSet.derived

    def derived(self, key, compute):
        asked.append(key)
        return real(self, key, compute)

    monkeypatch.setattr(RuleSet, "derived", derived)
    found, _ = api.check([str(ROOT / "scenarios" / "battlelore")])
    assert not [d for d in found if d.is_error]
    assert counted["check against packs"] > 10
    assert counted["game"] == 0
    assert asked == []


def test_the_occupancy_rule_still_runs_in_a_game(counted, tmp_path):
    """The one check that runs a rule of the packs builds a game for it, and still finds the unit
    its rule forbids."""
    (tmp_path / "rules.lore").write_text(
        "pack occ\nuse battlelore.core\n\nfunction may_occupy(u: unit, h: hex) -> bool = false\n", encoding="utf-8")
    text = SPIDER_FILE.read_text(encoding="utf-8").replace("packs: [", "packs: [rules.lore, ", 1)
    assert "rules.lore" in text
    (tmp_path / "s.yaml").write_text(text, encoding="utf-8")
    loaded = api.open_scenario(str(tmp_path / "s.yaml"))
    assert "S107" in {d.code for d in loaded.diagnostics}
    assert counted["game"] == 1


def test_an_unknown_side_is_reported_once_without_merging(tmp_path):
    """The loader reports a unit of an unknown side; setting up no longer says it again (the two
    used to be merged by their message text)."""
    text = SPIDER_FILE.read_text(encoding="utf-8")
    first_side = "side: north"
    assert first_side in text
    (tmp_path / "s.yaml").write_text(text.replace(first_side, "side: nort", 1), encoding="utf-8")
    scenario, _ = loader.load_scenario(tmp_path / "s.yaml", partial=True)
    rules = api.COMPILE_CACHE.get(scenario.packs, api.search_paths_for(Path(scenario.path)))
    assert [d.code for d in scenario_checks.check_against_rules(rules, scenario) if d.code == "S007"] == []
    loaded = api.open_scenario(str(tmp_path / "s.yaml"))
    assert [d.code for d in loaded.diagnostics].count("S007") == 1
