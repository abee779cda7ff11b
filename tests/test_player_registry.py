"""One registry of players (hexlore/runtime/engine/player_names.py, issue 32): every list of player
names is it, and a name it lacks is an error with a did-you-mean, never a silent random player."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from conftest import ROOT
from hexlore import api
from hexlore.cli import main
from hexlore.runtime.engine import player_names, policies, search
from hexlore.runtime.engine.players import make_policy
from hexlore.runtime.engine.policies import GreedyPolicy, RandomPolicy


def test_every_list_of_players_is_the_registry():
    schema = json.loads((ROOT / "scenarios" / "schema" / "scenario.schema.json").read_text(encoding="utf-8"))
    enum = schema["$defs"]["side"]["properties"]["policy"]["enum"] if "side" in schema.get("$defs", {}) else None
    if enum is None:  # wherever the schema keeps a side's policy
        enum = next(v["enum"] for v in _walk(schema) if isinstance(v, dict) and "enum" in v and "greedy" in v["enum"])
    assert tuple(enum) == player_names.SCENARIO_NAMES
    assert policies.POLICY_NAMES == player_names.SCENARIO_NAMES
    assert search.SEARCH_NAMES == player_names.SEARCH_NAMES
    assert [p.name for p in player_names.PLAYERS if not p.unattended] == ["human"]


def _walk(node):
    yield node
    if isinstance(node, dict):
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value)


@pytest.mark.parametrize("name", [p.name for p in player_names.PLAYERS if p.in_scenarios])
def test_every_player_a_scenario_may_name_can_be_made(name):
    assert make_policy(name, 1, "north") is not None


def test_a_misspelt_player_is_an_error_with_what_was_meant():
    assert isinstance(make_policy("random", 1, "north"), RandomPolicy)
    assert isinstance(make_policy("greedy", 1, "north"), GreedyPolicy)
    with pytest.raises(ValueError, match="no player named 'grredy': did you mean 'greedy'"):
        make_policy("grredy", 1, "north")
    with pytest.raises(ValueError, match="no player named 'zzz': the players are random, greedy"):
        make_policy("zzz", 1, "north")


def test_the_api_refuses_a_misspelt_player_instead_of_playing_random():
    with pytest.raises(ValueError, match="did you mean 'greedy'"):
        api.run("battlelore/spider_ford", seed=1, policies={"north": "grredy"}, max_rounds=1)


def test_the_cli_says_which_player_was_meant():
    result = CliRunner().invoke(main, ["run", "battlelore/spider_ford", "--policy", "north=rolout:10"])
    assert result.exit_code == 2
    assert "no player named 'rolout:10': did you mean 'rollout'?" in result.output
