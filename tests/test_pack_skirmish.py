"""The seed 004 pack (rules/skirmish): its playable battle with random and greedy policies.

Every rule paragraph has scenario tests in scenarios/skirmish/ (run by test_scenarios.py);
here the whole battle is played over many seeds, and the event log is checked against the
rules independently of the Lore code (dice counted in Python from the logged faces).
"""

from __future__ import annotations

import io
import json
from collections import Counter

import pytest

from conftest import ROOT
from hexlore.api import open_scenario
from hexlore.runtime.engine.game import Game

VILLAGE = ROOT / "scenarios" / "skirmish" / "village_raid.yaml"
PROFILE_AP = {"soldiers": 4, "militia": 4, "archers": 4, "knights": 6, "peasants": 3,
              "mage": 3, "archmage": 3}


@pytest.fixture(scope="module")
def village():
    loaded = open_scenario(str(VILLAGE))
    assert loaded.ok, [d.headline() for d in loaded.diagnostics]
    return loaded


def play(village, seed: int, policy: str = "random") -> tuple[object, str]:
    out = io.StringIO()
    game = Game(village.rules, village.scenario, seed=seed, log_file=out,
                policies={"north": policy, "south": policy})
    return game.play(), out.getvalue()


def check_battle(village, result, text: str) -> None:
    """What every battle must satisfy, whatever the dice and the choices."""
    entries = [json.loads(line) for line in text.splitlines()]
    events = [e for e in entries if e["type"] == "event"]
    types = {u.id: u.type for u in village.scenario.units}
    assert result.rounds <= 5
    # the battle starts with the action "Engager un combat": the raiders (south) engage the
    # village's defenders (north) before anything else happens
    assert events[0]["event"] == "battle_engaged"
    assert events[0]["args"] == {"attacker": "south", "defender": "north"}
    if result.winner is None:
        assert result.rounds == 5 and events[-1]["event"] == "battle_over"
    else:
        loser = {"north": "south", "south": "north"}[result.winner]
        assert any(e["event"] == "side_eliminated" and e["args"]["side"] == loser for e in events)
    # deployment: the defender (north) first, then the sides alternate while both have units left
    turns = [e["args"]["side"] for e in events if e["event"] == "deployment_turn"]
    assert turns[0] == "north" and all(a != b for a, b in zip(turns, turns[1:]))
    # each unit is activated at most once a round and never spends more points than it has
    per_round = Counter((e["round"], e["args"]["unit"]) for e in events if e["event"] == "activation")
    assert max(per_round.values()) == 1
    spent: dict[tuple, int] = Counter()
    for e in events:
        if e["event"] == "moved":
            a = e["args"]
            spent[(e["round"], a["unit"])] += a["cost"]
            assert a["ap_left"] >= 0 and a["cost"] >= 1
    for (rnd, unit), total in spent.items():
        assert total <= PROFILE_AP[str(types[unit])], (rnd, unit, total)
    # dice read from the log: hits, saves and corruption follow the text
    for e in events:
        a = e["args"]
        if e["event"] == "to_hit":
            assert a["hits"] == sum(int(f) >= a["need"] for f in a["faces"])
        elif e["event"] == "saves":
            assert a["saved"] == sum(int(f) >= a["need"] for f in a["faces"])
            assert a["lost"] == len(a["faces"]) - a["saved"]
        elif e["event"] == "casting":
            faces = [int(f) for f in a["faces"]]
            assert a["total"] == sum(faces)
            assert a["corruption"] == sum(n - 1 for n in Counter(faces).values() if n >= 2)


def test_the_village_raid_plays_to_the_end_over_20_seeds(village):
    for seed in range(20):
        result, text = play(village, seed)
        check_battle(village, result, text)


def test_greedy_sides_fight_and_the_rules_hold(village):
    outcomes = []
    for seed in range(5):
        result, text = play(village, seed, "greedy")
        check_battle(village, result, text)
        outcomes.append(text)
    assert any('"to_hit"' in t for t in outcomes)


# The 1,000 seeds (0..999) in four parts of 250, so that pytest-xdist spreads them over the cores.
PARTS = 4


@pytest.mark.slow
@pytest.mark.parametrize("part", range(PARTS))
def test_the_village_raid_plays_to_the_end_over_1000_seeds(village, part):
    seeds = range(part * 1000 // PARTS, (part + 1) * 1000 // PARTS)
    winners = Counter()
    for seed in seeds:
        result, text = play(village, seed)
        check_battle(village, result, text)
        winners[result.winner] += 1
    assert sum(winners.values()) == len(seeds) == 250


def test_same_seed_same_log_byte_for_byte(village):
    first = play(village, 7)[1]
    assert first == play(village, 7)[1]
    assert first.count("\n") > 100
    assert len({play(village, seed)[1] for seed in (1, 2, 3)}) == 3


def test_coverage_cites_every_scenario_test_and_only_real_ones():
    import re

    text = (ROOT / "rules" / "skirmish" / "COVERAGE.md").read_text(encoding="utf-8")
    cited = {(m.group(1), int(m.group(2))) for m in re.finditer(r"\b([RNOA]):(\d+)", text)}
    files = {"R": "rules.yaml", "N": "rounds.yaml", "O": "options.yaml", "A": "abilities.yaml"}
    actual = set()
    for key, name in files.items():
        loaded = open_scenario(str(ROOT / "scenarios" / "skirmish" / name))
        actual |= {(key, t.span.line) for t in loaded.scenario.tests}
    assert cited == actual, (sorted(cited - actual), sorted(actual - cited))
