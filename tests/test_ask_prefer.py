"""An ``ask``'s ``prefer``: the answer a judging player gives, apart from the rules' ``default``.

``greedy`` and a search's prior and rollouts read it as they read a ``choose``'s scores (the
preferred answer scores 1, the other 0); ``first`` and a scenario's script still take the
default, and ``random`` neither. The fixture asks each side six times whether it holds; the
rules default to yes and prefer yes only when the side's tally is even. An optional trigger's
question (``optional by SIDE prefer P``) is judged the same way: ``cheer`` is preferred on
tallies 3 and 6, ``sing`` has no judgement (a judging player takes its default, yes)."""

from __future__ import annotations

import io
import json

import pytest

from conftest import ROOT
from hexlore.api import open_scenario
from hexlore.runtime.engine.game import Game

JUDGED = ROOT / "tests" / "fixtures" / "judged" / "judged.yaml"
KEPT = ROOT / "tests" / "fixtures" / "judged" / "kept.yaml"  # 'cheer' overridden, called back by super()
EVEN_TURNS = [False, True] * 3  # the judgement: yes on tallies 2, 4 and 6
THIRD_TURNS = [False, False, True] * 2  # cheer's: yes on tallies 3 and 6


def answers(policy: str, resumable: bool = False, seed: int = 0, decision: str = "hold",
            scenario=JUDGED) -> tuple[list[bool], str]:
    loaded = open_scenario(str(scenario))
    assert loaded.ok, [d.headline() for d in loaded.diagnostics]
    out = io.StringIO()
    Game(loaded.rules, loaded.scenario, seed=seed, log_file=out,
         policies={"north": policy, "south": "first"}).play(resumable=resumable)
    entries = [json.loads(line) for line in out.getvalue().splitlines()]
    return [e["choice"] for e in entries if e.get("decision") == decision and e["by"] == "north"], out.getvalue()


@pytest.mark.parametrize("resumable", [False, True])
def test_greedy_answers_by_the_judgement_and_first_by_the_default(resumable):
    assert answers("greedy", resumable)[0] == EVEN_TURNS
    assert answers("first", resumable)[0] == [True] * 6


def test_the_resumable_rules_ask_the_same_question_the_same_way():
    assert answers("greedy", resumable=True)[1] == answers("greedy")[1]
    assert answers("random", resumable=True, seed=5)[1] == answers("random", seed=5)[1]


def test_a_search_with_nothing_to_win_follows_the_judgement_not_the_default():
    # every future ends the same (no winner, no units): the prior decides, and it goes to the
    # preferred answer; without a 'prefer' it would go to the default, yes every time
    assert answers("mcts:20")[0] == EVEN_TURNS


@pytest.mark.parametrize("resumable", [False, True])
@pytest.mark.parametrize("scenario", [JUDGED, KEPT], ids=["trigger", "kept-by-super"])
def test_an_optional_trigger_s_question_is_judged_by_its_prefer(resumable, scenario):
    assert answers("greedy", resumable, decision="cheer", scenario=scenario)[0] == THIRD_TURNS
    assert answers("first", resumable, decision="cheer", scenario=scenario)[0] == [True] * 6
    assert answers("greedy", resumable, decision="sing", scenario=scenario)[0] == [True] * 6  # no judgement


def test_the_resumable_rules_ask_an_optional_trigger_s_question_the_same_way():
    for scenario in (JUDGED, KEPT):
        assert answers("greedy", resumable=True, scenario=scenario)[1] == answers("greedy", scenario=scenario)[1]
        assert answers("random", resumable=True, seed=3, scenario=scenario)[1] == \
            answers("random", seed=3, scenario=scenario)[1]


def test_a_search_with_nothing_to_win_follows_an_optional_trigger_s_judgement():
    assert answers("mcts:20", decision="cheer")[0] == THIRD_TURNS
