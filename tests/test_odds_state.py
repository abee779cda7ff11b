"""Odds of one option from a game under way (issue 31, item 5: "What are my odds?").

``odds_of_option`` must give what ``hexlore odds`` gives for the same position and action
(that engine is itself checked against icepool and closed forms: tests/test_odds_dice.py,
tests/test_odds_rules.py), leave the game exactly as it was, and refuse past its
deterministic budget with the same words every time.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from hexlore import api
from hexlore.runtime.analysis.odds import ActionCall, OddsError, Question, enumerate_odds
from hexlore.runtime.analysis.odds_state import odds_of_option
from hexlore.runtime.analysis.position_test import position_given
from hexlore.runtime.engine.game import Game, dump_log
from hexlore.runtime.engine.policies import GreedyPolicy

SCENARIO = "battlelore/spider_ford"
GREEDY = {"north": "greedy", "south": "greedy"}


@pytest.fixture(scope="module")
def loaded():
    found = api.open_scenario(SCENARIO)
    assert found.playable
    return found


def stepped_to(loaded, decision: str, seed: int = 3) -> Game:
    """A stepped game of greedy sides, paused at the first decision named ``decision``."""
    game = Game(loaded.rules, loaded.scenario, seed=seed, policies=dict(GREEDY))
    request = game.start(max_rounds=3)
    while request is not None and request.name != decision:
        request = game.apply()
    assert request is not None and request.name == decision
    return game


def snapshot(game: Game) -> tuple:
    units = {uid: (u.alive, u.hex, dict(u.f)) for uid, u in game.state.units.items()}
    sides = {s.name: dict(s.f) for s in game.state.sides}
    return dump_log(game.log), units, sides, game.legal_options(), game.budget.left_now()


COLUMNS = ["spider.figures", "spider.alive", "TARGET.figures", "TARGET.alive", "TARGET.hex",
           "event:retreated.hexes"]


@pytest.mark.parametrize("option", [0, 1])
def test_the_same_distribution_as_hexlore_odds_on_the_same_position(loaded, option):
    """The spider chooses its melee target: followed to the end of the rule that asked (answers
    as 'first' gives them), the outcome is exactly hexlore odds' for melee_attack there."""
    game = stepped_to(loaded, "melee_target")
    target = game.legal_options()[option]
    columns = [c.replace("TARGET", target) for c in COLUMNS]
    mine = odds_of_option(game, option, decisions="first", outcome=columns)
    assert mine.exact and mine.refused is None and mine.label == target
    assert mine.result.columns == ["next"] + columns
    given, _ = position_given(game)
    theirs = enumerate_odds(Question(loaded.rules, loaded.scenario,
                                     [ActionCall("melee_attack", {"attacker": "spider", "target": target})],
                                     given=given, policy="first", outcome=columns))
    assert {values[1:]: p for values, p in mine.result.distribution.items()} == theirs.distribution
    assert {r.values[0] for r in mine.result.rows} == {"end of the rule"}
    assert sum(theirs.distribution.values()) == 1 and len(theirs.distribution) > 3


def test_the_game_is_left_exactly_as_it_was_and_plays_the_same_bytes(loaded):
    game = stepped_to(loaded, "melee_target")
    before = snapshot(game)
    for option in range(len(game.legal_options())):
        for horizon in ("stop", "first", "greedy"):
            assert odds_of_option(game, option, decisions=horizon).exact
    assert odds_of_option(game, 0, budget=3).refused  # a refusal leaves it alone too
    assert snapshot(game) == before
    while game.pending is not None:
        game.apply()
    plain = Game(loaded.rules, loaded.scenario, seed=3, policies=dict(GREEDY))
    plain.play(3)
    assert dump_log(game.log) == dump_log(plain.log)


def test_stop_at_the_next_decision_names_it(loaded):
    """By default an outcome ends at the next choice anyone makes: the defender's battle back
    or retreat, the attacker's taking ground; the chances add up to exactly one."""
    game = stepped_to(loaded, "melee_target")
    found = odds_of_option(game, 1)
    stops = found.result.marginal("next")
    assert sum(stops.values()) == 1
    assert set(stops) <= {"battle_back (south)", "retreat_hex (south)", "take_ground (north)", "end of the rule"}
    assert "battle_back (south)" in stops
    assert found.result.columns[0] == "next" and len(found.result.columns) > 1  # what varies: the target's losses


class _Asking(GreedyPolicy):
    """A greedy player that asks the odds of every option before it chooses (as a person at
    the terminal does)."""

    def __init__(self):
        self.game: Game | None = None
        self.asked = 0

    def choose(self, decision):
        if len(decision.options) > 1:
            for i in range(len(decision.options)):
                assert odds_of_option(self.game, i, budget=2_000).option == i
            self.asked += 1
        return super().choose(decision)


def test_asked_inside_a_game_being_played_the_log_is_unchanged(loaded):
    """A player paused at its decision (Game.paused_at) may ask; the game plays on the same."""
    asking = _Asking()
    game = Game(loaded.rules, loaded.scenario, seed=5, policies={"north": asking, "south": "greedy"})
    asking.game = game
    game.play(2, resumable=True)
    plain = Game(loaded.rules, loaded.scenario, seed=5, policies=dict(GREEDY))
    plain.play(2)
    assert asking.asked > 3
    assert dump_log(game.log) == dump_log(plain.log)


def test_the_budget_is_deterministic_and_said_plainly(loaded):
    game = stepped_to(loaded, "melee_target")
    first = odds_of_option(game, 0, budget=10)
    again = odds_of_option(game, 0, budget=10)
    assert first.result is None and not first.exact
    assert first.refused == again.refused and first.refused.startswith("too large to enumerate")
    assert first.to_json()["refused"] == first.refused
    assert odds_of_option(game, 0, max_seconds=60).exact  # a time bound on top, not reached


def test_bad_questions_are_refused(loaded):
    game = stepped_to(loaded, "melee_target")
    with pytest.raises(ValueError, match="give an index from 0 to 1"):
        odds_of_option(game, 2)
    with pytest.raises(ValueError, match="no horizon named 'maybe'"):
        odds_of_option(game, 0, decisions="maybe")
    with pytest.raises(OddsError) as bad:
        odds_of_option(game, 0, outcome=["spider.figurs"])
    assert bad.value.diagnostic.code == "O003" and "did you mean 'figures'" in bad.value.diagnostic.hint
    fresh = Game(loaded.rules, loaded.scenario, seed=3, policies=dict(GREEDY))
    with pytest.raises(ValueError, match="no decision is pending"):
        odds_of_option(fresh, 0)


def test_json_carries_exact_fractions(loaded):
    game = stepped_to(loaded, "melee_target")
    data = odds_of_option(game, 0, outcome=["s_left2.figures"]).to_json()
    assert data["decision"] == "melee_target" and data["side"] == "north" and data["label"] == "s_left2"
    total = sum(Fraction(row["probability"]) for row in data["rows"])
    assert total == 1


# ---------------------------------------------------------------- on the command line
def _odds(*args: str):
    from click.testing import CliRunner

    from hexlore.cli import main
    return CliRunner().invoke(main, ["odds", SCENARIO, "--seed", "3", *args])


def test_hexlore_odds_at_a_decision_of_a_game(loaded):
    """``--at N --option K``: the game of the seed stepped to its Nth decision; the text and the
    JSON give what the library gives there."""
    game = stepped_to(loaded, "melee_target")
    at = 1 + sum(1 for e in game.log if e["type"] == "decision" and e["options"] > 1)
    expected = odds_of_option(game, 0, outcome=["s_left2.figures"])
    done = _odds("--at", str(at), "--option", "1", "--outcome", "s_left2.figures", "--format", "json")
    assert done.exit_code == 0, done.output
    import json
    data = json.loads(done.output)
    assert (data["decision"], data["label"], data["at"], data["options"]) == ("melee_target", "s_left2", at,
                                                                             ["s_left2", "s_centre2"])
    assert {tuple(r["outcome"].values()): Fraction(r["probability"]) for r in data["rows"]} == \
        expected.result.distribution
    text = _odds("--at", str(at), "--option", "1")
    assert text.exit_code == 0 and "odds of melee_target = s_left2 by north (decision" in text.output
    assert "battle_back (south)" in text.output


@pytest.mark.parametrize("args, code, words", [
    (("--at", "5000", "--option", "1"), "O002", "the game ended before its decision #5000 (it had "),
    (("--at", "1", "--option", "9"), "O002", "has 4 options, not 9"),
    (("--at", "19", "--option", "1", "--budget", "2"), "O001", "too large to enumerate"),
    (("--at", "1", "--option", "1", "--outcome", "spider.figurs"), "O003", "units have no field 'figurs'"),
])
def test_hexlore_odds_at_refuses_with_a_diagnostic(args, code, words):
    done = _odds(*args)
    assert done.exit_code == 1 and f"error[{code}]" in done.output and words in done.output
    assert "Traceback" not in done.output


@pytest.mark.parametrize("args, words", [
    (("--at", "3"), "--at and --option go together"),
    (("--at", "3", "--option", "1", "--action", "strike()"), "no --action, --test"),
    ((), "--at N --option K"),
])
def test_hexlore_odds_at_usage(args, words):
    done = _odds(*args)
    assert done.exit_code == 2 and words in done.output
