"""The Battles of Westeros pack (seed 001): random games end cleanly and replay byte for byte.

The scenario tests of scenarios/westeros/ run in test_scenarios.py; here the playable skirmish
is played with random policies on many seeds, and each finished game is checked against the
invariants the rules must keep (strength within bounds, the shared morale track, command
tokens within the commanders' limits, engagement tokens only between adjacent living units).
"""

from __future__ import annotations

import io

import pytest

from conftest import ROOT
from hexlore.compiler import compile_packs
from hexlore.runtime.engine.game import Game
from hexlore.runtime.scenarios.loader import load_scenario
from hexlore.runtime.analysis.scenario_tests import run_test

SKIRMISH = ROOT / "scenarios" / "westeros" / "skirmish.yaml"
SCENARIOS = sorted((ROOT / "scenarios" / "westeros").glob("*.yaml"))
RANDOM = {"stark": "random", "lannister": "random"}


@pytest.fixture(scope="module")
def westeros():
    rules = compile_packs(["westeros.additional"])
    assert rules.ok, [d.headline() for d in rules.diagnostics]
    return rules


@pytest.fixture(scope="module")
def skirmish():
    scenario, diagnostics = load_scenario(SKIRMISH)
    assert scenario is not None, diagnostics
    return scenario


def play(rules, scenario, seed: int) -> tuple[Game, str]:
    out = io.StringIO()
    game = Game(rules, scenario, seed=seed, log_file=out, policies=RANDOM)
    game.play()
    return game, out.getvalue()


def check_invariants(game: Game) -> None:
    state = game.state
    assert state.over and game.log[-1]["type"] == "end"
    for u in state.units.values():
        assert 0 <= u.f["strength"] <= u.f["max_strength"], u.id
        assert u.alive == (u.f["strength"] > 0), u.id
        if u.f["commander"]:
            assert 0 <= u.f["tokens"] <= u.f["command_limit"], u.id
        for e in u.f["engaged"]:
            assert u.alive and e.alive and u.hex.distance(e.hex) == 1, (u.id, e.id)
            assert u in e.f["engaged"], (u.id, e.id)
    stark, lannister = state.sides
    start = game.options["morale_start"]
    assert stark.f["morale"] + lannister.f["morale"] == 2 * start
    for side in state.sides:
        assert side.f["board_tokens"] >= 0
    if state.winner is not None:
        loser = lannister if state.winner is stark else stark
        routed = loser.f["morale"] <= -game.options["rout"]
        wiped = not any(u.alive for u in state.units.values() if u.side is loser)
        at_end = state.game["round"] == game.scenario.max_rounds and \
            state.winner.f["morale"] > loser.f["morale"]
        assert routed or wiped or at_end


@pytest.mark.parametrize("seed", range(20))
def test_random_skirmish_plays_to_the_end(westeros, skirmish, seed):
    game, _ = play(westeros, skirmish, seed)
    check_invariants(game)


# The seeds 0..999 in four parts of 250, so that pytest-xdist spreads them over the cores; each
# part must see both sides win.
PARTS = 4


@pytest.mark.slow
@pytest.mark.parametrize("part", range(PARTS))
def test_random_skirmish_over_a_thousand_seeds(westeros, skirmish, part):
    seeds = range(part * 1000 // PARTS, (part + 1) * 1000 // PARTS)
    assert len(seeds) == 250
    outcomes = set()
    for seed in seeds:
        game, _ = play(westeros, skirmish, seed)
        check_invariants(game)
        outcomes.add(game.state.winner.name if game.state.winner else None)
    assert {"stark", "lannister"} <= outcomes


def test_same_seed_same_log_byte_for_byte(westeros, skirmish):
    _, first = play(westeros, skirmish, 7)
    _, second = play(westeros, skirmish, 7)
    assert first == second
    assert first.count("\n") > 100
    assert '"event":"attack"' in first


def test_other_seeds_give_other_logs(westeros, skirmish):
    assert len({play(westeros, skirmish, seed)[1] for seed in (1, 2, 3)}) == 3


def test_random_games_exercise_the_additional_rules(westeros, skirmish):
    wanted = {"coordinated", "withdrew", "retreat_ordered", "parting_blow",
              "flank_reroll", "eliminated", "morale_ignored"}
    seen: set[str] = set()
    for seed in range(200):  # coordinated attacks are rare under random policies: stop once all are seen
        game, _ = play(westeros, skirmish, seed)
        seen |= {e["event"] for e in game.log if e["type"] == "event"}
        if wanted <= seen:
            break
    assert wanted <= seen


def test_every_seed_001_paragraph_has_a_scenario_test():
    names = []
    for path in SCENARIOS:
        scenario, diagnostics = load_scenario(path)
        assert scenario is not None, diagnostics
        names += [t.name for t in scenario.tests]
    for label in ("001 CA", "001 AC", "001 RS", "001 WD"):
        assert sum(label in n for n in names) >= 3, label


def test_a_wrong_expectation_fails(westeros):
    import dataclasses
    scenario, _ = load_scenario(ROOT / "scenarios" / "westeros" / "rules.yaml")
    test = next(t for t in scenario.tests if "five dice" in t.name)
    broken = dataclasses.replace(test, expect={"events": [{"event": "attack", "dice": 6}]})
    assert not run_test(westeros, scenario, broken).passed
