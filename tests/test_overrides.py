"""Overrides that keep the original's part (issue 15): the triggers an override's super()
runs, in both execution modes. The scenario tests of scenarios/language/trigger_super.yaml
play them directly; here the same rules play whole games and answer exact odds through the
resumable frame machines (hexlore/compiler/backend/resumable.py)."""

from __future__ import annotations

import io
from fractions import Fraction

import pytest

from conftest import ROOT
from hexlore import api
from hexlore.runtime.engine.compiled.program import compiled
from hexlore.runtime.engine.game import Game

SCENARIO = str(ROOT / "scenarios" / "language" / "trigger_super.yaml")


@pytest.fixture(scope="module")
def loaded():
    found = api.open_scenario(SCENARIO)
    assert found.ok, [d.headline() for d in found.diagnostics]
    return found


def test_a_replaced_trigger_listens_to_nothing_and_is_kept_as_a_procedure(loaded):
    rules = loaded.rules
    listening = sorted((t.name, t.pack) for t in rules.triggers if t.name in ("battle_back_strike", "token_extra_die"))
    assert listening == [("battle_back_strike", "language.trigger_super"),
                         ("token_extra_die", "language.trigger_super_mod")]
    assert {"battle_back_strike@battlelore.core", "token_extra_die@battlelore.core",
            "token_extra_die@language.trigger_super"} <= set(rules.procedures)
    # they roll dice or ask: each has a frame machine, so exact odds and forks stop inside them
    program = compiled(rules)
    assert program.not_resumable is None
    assert ("procedure", "battle_back_strike@battlelore.core") in program.resumable


@pytest.mark.parametrize("seed", range(4))
def test_played_games_log_the_same_directly_and_resumably(loaded, seed):
    logs = []
    for resumable in (False, True):
        log = io.StringIO()
        Game(loaded.rules, loaded.scenario, seed=seed, log_file=log).play(None, resumable=resumable)
        logs.append(log.getvalue())
    assert logs[0] == logs[1]
    # every battle back offered went through the override (and its super(), once)
    assert logs[0].count('"battling_back"') == logs[0].count('"may_battle_back"')


def test_some_played_game_battles_back(loaded):
    log = io.StringIO()
    Game(loaded.rules, loaded.scenario, seed=1, log_file=log).play(None, resumable=True)
    assert '"battling_back"' in log.getvalue()


def test_exact_odds_run_a_before_triggers_super_with_its_question(loaded):
    """The replaced 'before' trigger's question is asked inside super(), and its die is the event's."""
    action = "strike(attacker: a, target: b, melee: true)"
    for tokens, answer, dice in ((1, "true", 7), (1, "false", 6), (0, "true", 6)):
        result, diagnostics, _ = api.odds(SCENARIO, action, ["event:attack.dice", "a.lore_tokens"],
                                          given=f"{{a: {{lore_tokens: {tokens}}}}}",
                                          decisions=f"{{token_extra_die: [{answer}]}}")
        assert result is not None, [d.headline() for d in diagnostics]
        assert result.marginal("event:attack.dice") == {dice: Fraction(1)}
        spent = tokens == 1 and answer == "true"
        assert result.marginal("a.lore_tokens") == {tokens - spent: Fraction(1)}
