"""Every scenario test under scenarios/ runs as a pytest test: the rules' acceptance tests."""

from __future__ import annotations

import pytest

from conftest import ROOT
from hexlore.api import open_scenario
from hexlore.runtime.scenarios.campaign_files import file_kind
from hexlore.runtime.analysis.scenario_tests import run_test

# campaign files and sheets (scenarios/battlelore/campaign/) hold no tests: hexlore test skips them too
SCENARIOS = sorted(p for p in (ROOT / "scenarios").rglob("*.yaml")
                   if file_kind(p.read_text(encoding="utf-8")) == "scenario")


def _cases():
    for path in SCENARIOS:
        loaded = open_scenario(str(path))
        assert loaded.ok, [d.headline() for d in loaded.diagnostics]
        for test in loaded.scenario.tests:
            yield pytest.param(loaded, test, id=f"{path.stem}:{test.span.line}")


@pytest.mark.parametrize("loaded, test", list(_cases()))
def test_scenario(loaded, test):
    outcome = run_test(loaded.rules, loaded.scenario, test)
    assert outcome.passed, "\n".join(outcome.failures)


@pytest.mark.slow  # tens of seconds: run by CI (.ci/run: -m slow)
def test_each_seed_000_combat_rule_has_a_scenario_test():
    names = " ".join(t.name for p in SCENARIOS for t in open_scenario(str(p)).scenario.tests)
    for rule in ("000 II", "000 III", "000 IV", "critical roll", "token", "trampl", "support",
                 "two hexes", "blocked"):
        assert rule in names, rule


def test_a_wrong_expectation_fails(battlelore):
    loaded = open_scenario(str(ROOT / "scenarios" / "battlelore" / "spider_ford.yaml"))
    test = loaded.scenario.tests[0]
    import dataclasses
    broken = dataclasses.replace(test, expect={"units": {"spider": {"alive": False}}})
    outcome = run_test(loaded.rules, loaded.scenario, broken)
    assert not outcome.passed and "spider.alive: expected False, got True" in outcome.failures[0]
    unused = dataclasses.replace(test, dice=test.dice + (("flag",),))
    outcome = run_test(loaded.rules, loaded.scenario, unused)
    assert not outcome.passed and "never used" in outcome.failures[0]
