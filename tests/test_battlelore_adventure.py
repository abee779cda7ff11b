"""The Haunted Crossing: a BattleLore: Heroes adventure with heroes, a creature and the three
landmarks, played whole with random policies. Every game must end without a rule failure,
keep the heroes' roles consistent, and replay byte for byte from its seed."""

from __future__ import annotations

import io

import pytest

from conftest import ROOT
from hexlore.api import open_scenario
from hexlore.runtime.engine.game import Game

ADVENTURE = ROOT / "scenarios" / "battlelore" / "ford_campaign" / "haunted_crossing.yaml"
RANDOM = {"north": "random", "south": "random"}


@pytest.fixture(scope="module")
def adventure():
    opened = open_scenario(str(ADVENTURE))
    assert opened.ok, [d.headline() for d in opened.diagnostics]
    return opened.rules, opened.scenario


def play(rules, scenario, seed: int, policies=RANDOM) -> tuple[Game, str]:
    out = io.StringIO()
    game = Game(rules, scenario, seed=seed, log_file=out, policies=policies)
    game.play()
    return game, out.getvalue()


def check_heroes(game: Game) -> None:
    state = game.state
    assert state.over and game.log[-1]["type"] == "end"
    for u in state.units.values():
        leading = u.f.get("leading")
        if leading is not None:  # a warlord: off the board, its troop carries it
            assert u.hex is None and leading.f["leader"] is u, u.id
        if u.f.get("leader") is not None:
            assert u.f["leader"].f["leading"] is u, u.id
    on_board = [u.hex for u in state.units.values() if u.alive and u.hex is not None]
    assert len(on_board) == len(set(on_board))


@pytest.mark.slow
def test_random_adventures_play_to_the_end(adventure):
    rules, scenario = adventure
    seen: set[str] = set()
    for seed in range(25):
        game, _ = play(rules, scenario, seed)
        check_heroes(game)
        seen |= {e["event"] for e in game.log if e["type"] == "event"}
    # random players wander (most games reach the round limit), yet they use every part
    assert {"hero_created", "hero_deployed", "tent_deployed", "chest_hidden", "wound_test",
            "critical_roll"} <= seen


def test_greedy_sides_fight_it_out_and_either_may_win(adventure):
    rules, scenario = adventure
    winners = []
    for seed in range(8):
        game, _ = play(rules, scenario, seed, policies={"north": "greedy", "south": "greedy"})
        check_heroes(game)
        winners.append(game.state.winner.name if game.state.winner else None)
    assert {"north", "south"} <= set(winners)


def test_the_bundled_adventure_plays_and_uses_every_part(adventure):
    rules, scenario = adventure
    game, _ = play(rules, scenario, 5, policies={"north": "greedy", "south": "greedy"})
    check_heroes(game)
    events = {e["event"] for e in game.log if e["type"] == "event"}
    assert {"hero_created", "hero_joined", "tent_deployed", "chest_hidden", "quest_placed"} <= events


def test_same_seed_same_log_byte_for_byte(adventure):
    rules, scenario = adventure
    first = play(rules, scenario, 3)[1]
    assert first == play(rules, scenario, 3)[1]
    assert first != play(rules, scenario, 4)[1]
