"""Linked rules and the memory of a game: a dropped game is freed at once.

Linked code holds the game only weakly, and expressions that read nothing of a game are
linked once per rule set. So thousands of games in a row leave no cycles for the garbage
collector (which otherwise took a large share of a long run), and a later game reuses the
shared closures while logging exactly what a game linked afresh would.
"""

from __future__ import annotations

import gc
import io
import weakref

from conftest import ROOT
from hexlore.compiler import compile_packs
from hexlore.runtime.engine.game import Game
from hexlore.runtime.scenarios.loader import load_scenario

FORD = ROOT / "scenarios" / "battlelore" / "spider_ford.yaml"


def test_a_dropped_game_is_freed_without_the_cyclic_collector(battlelore):
    scenario, diagnostics = load_scenario(FORD)
    assert scenario is not None, diagnostics
    enabled = gc.isenabled()
    gc.disable()
    try:
        played = Game(battlelore, scenario, seed=4)
        played.play(max_rounds=3)
        called = Game(battlelore, scenario, seed=4)
        units = called.state.units
        called.guarded(called.call_procedure, "strike", [units["s_centre"], units["spider"], True])
        refs = [weakref.ref(played), weakref.ref(called)]
        del played, called, units
        assert [r() for r in refs] == [None, None]
    finally:
        if enabled:
            gc.enable()


def test_games_sharing_linked_expressions_log_what_fresh_rules_log(battlelore):
    scenario, diagnostics = load_scenario(FORD)
    assert scenario is not None, diagnostics
    fresh = compile_packs(["battlelore.creatures"])  # a rule set no game has linked yet

    def log(rules, seed):
        out = io.StringIO()
        Game(rules, scenario, seed=seed, log_file=out, policies={"north": "random", "south": "random"}).play(
            max_rounds=4)
        return out.getvalue()

    shared = [log(battlelore, seed) for seed in (1, 2)]  # the second game reuses the first's links
    assert shared == [log(fresh, 1), log(fresh, 2)]
    assert shared[0] != shared[1] and shared[0].count("\n") > 30
