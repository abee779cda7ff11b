"""State that forks (issue 14): the journal puts back exactly what changed since a mark.

Each bundled game is played for some rounds with the journal kept from the start, then taken
back: the state must equal a full snapshot taken before, field for field, list for list. Marks
nest: taking back to an inner mark leaves the changes before it. (The odds engine's replays,
reset from the journal, log what new games log: tests/test_odds_api.py.)
"""

from __future__ import annotations

import io

import pytest

from conftest import ROOT
from hexlore.api import open_scenario
from hexlore.runtime.engine.core.bounds import GameOver
from hexlore.runtime.engine.game import Game, dump_log
from hexlore.runtime.engine.snapshot import StateSnapshot

GAMES = [("battlelore/spider_ford.yaml", ("north", "south")), ("skirmish/village_raid.yaml", ("north", "south")),
         ("tickclock/ruins.yaml", ("dawn", "dusk")), ("westeros/skirmish.yaml", ("stark", "lannister"))]


def _loaded(path):
    loaded = open_scenario(str(ROOT / "scenarios" / path))
    assert loaded.ok, [d.headline() for d in loaded.diagnostics]
    return loaded


@pytest.mark.parametrize("path, sides", GAMES)
@pytest.mark.parametrize("seed", [11, 12])
def test_taking_a_game_back_restores_every_field_list_and_position(path, sides, seed):
    loaded = _loaded(path)
    policies = {s: "random" for s in sides}
    game = Game(loaded.rules, loaded.scenario, seed=seed, policies=policies)
    before = StateSnapshot.take(game.state)
    start = game.state.mark()
    game.play(max_rounds=8)
    assert StateSnapshot.take(game.state) != before  # the game changed something
    assert len(game.state.journal) > 10
    game.state.undo(start)
    assert StateSnapshot.take(game.state) == before
    assert {h: list(us) for h, us in game.state.occupants.items() if us} == before.occupants


def test_marks_nest():
    loaded = _loaded("battlelore/spider_ford.yaml")
    game = Game(loaded.rules, loaded.scenario, seed=2, policies={"north": "random", "south": "random"})
    state = game.state
    start = StateSnapshot.take(state)
    outer = state.mark()
    unit = next(iter(state.units.values()))
    state.write(unit.f, "figures", 1)
    state.write(unit.f, "a_field_it_did_not_have", 1)
    middle = StateSnapshot.take(state)
    inner = state.mark()
    state.write(unit.f, "figures", 0)
    state.set(unit, "alive", False)
    state.place(unit, None)
    state.undo(inner)
    assert StateSnapshot.take(state) == middle
    assert unit.f["figures"] == 1 and unit.alive and unit.hex is not None
    state.undo(outer)
    assert StateSnapshot.take(state) == start


@pytest.mark.parametrize("path, sides", GAMES)
def test_a_game_forked_at_a_chance_point_plays_on_the_same_from_the_fork(path, sides):
    """Stop a resumable game at its 15th roll or decision, fork it there, play it to the end,
    take it back to the fork, play it to the end again: the same log both times, and the log a
    game played straight through writes."""
    from hexlore.runtime.engine.resume import drive, play_frame

    loaded = _loaded(path)
    policies = {s: "random" for s in sides}
    straight = io.StringIO()
    Game(loaded.rules, loaded.scenario, seed=3, log_file=straight, policies=policies).play()
    game = Game(loaded.rules, loaded.scenario, seed=3, policies=policies)
    asked = []

    def stop_at_the_15th(request):
        asked.append(request)
        return request if len(asked) == 15 else game.answer(request)

    game.memo.on = True
    game.push_frame([play_frame, 0, loaded.scenario.max_rounds or game.const(
        loaded.rules.game.settings["max_rounds"])])
    request = drive(game, ask=stop_at_the_15th)
    assert request is asked[-1] and len(game.context.stack) > 1
    point = game.fork(streams=True)
    played = []
    for _ in range(2):
        game.restore(point)
        try:
            drive(game, game.answer(request))
        except GameOver:
            pass
        played.append([dict(e) for e in game.log])
    assert played[0] == played[1]
    assert "".join(dump_log(played[0])) == straight.getvalue()
