"""The Game-level edits of designer mode (hexlore/runtime/engine/edits.py): each changes the
game as asked, through the state's journal (a fork's restore undoes it, as any rule's change),
and refuses what the rules or the board do not allow, changing nothing."""

from __future__ import annotations

import pytest

from hexlore.loading import open_scenario
from hexlore.runtime.engine.edits import EditError, apply_edit, force_next_roll, move_unit, set_unit_field
from hexlore.runtime.engine.game import Game

FORD = "battlelore/spider_ford"


@pytest.fixture
def game() -> Game:
    loaded = open_scenario(FORD)
    game = Game(loaded.rules, loaded.scenario, seed=3, policies={"north": "first", "south": "first"})
    game.start()
    return game


def test_a_field_set_and_undone_by_a_restore(game):
    archers = game.state.units["n_archers"]
    before = archers.f["figures"]
    point = game.fork()
    set_unit_field(game, "n_archers", "figures", 1)
    assert archers.f["figures"] == 1 != before
    game.restore(point)
    assert archers.f["figures"] == before


def test_a_unit_moved_or_set_aside(game):
    board, state = game.state.board, game.state
    move_unit(game, "s_right", "A1")
    assert board.label(state.units["s_right"].hex) == "A1" and state.units_at(board.parse_label("K7")) == []
    move_unit(game, "s_right", None)
    assert state.units["s_right"].hex is None


def test_the_next_roll_forced(game):
    force_next_roll(game, ["flag", "lore"])
    assert list(game.roller.forced) == [["flag", "lore"]]


@pytest.mark.parametrize("edit, expected", [
    ({"kind": "field", "unit": "nobody", "field": "figures", "value": 1}, "no unit 'nobody'"),
    ({"kind": "field", "unit": "n_archers", "field": "wings", "value": 1}, "no field 'wings'"),
    ({"kind": "field", "unit": "n_archers", "field": "figures", "value": "x"}, "expected an integer"),
    ({"kind": "field", "unit": "n_archers", "field": "mode", "value": "flying"}, "n_archers.mode"),
    ({"kind": "move", "unit": "n_archers", "hex": "Q77"}, "not a hex of this board"),
    ({"kind": "move", "unit": "n_archers", "hex": "F2"}, "F2 holds n_centre"),
    ({"kind": "dice", "faces": ["seven"]}, "no die's face"),
    ({"kind": "dice", "faces": "flag"}, "list of 1 to"),
    ({"kind": "shrink"}, "unknown edit 'shrink'"),
    ([], "unknown edit"),
])
def test_bad_edits_are_refused_and_change_nothing(game, edit, expected):
    state = game.state
    before = {uid: (u.hex, dict(u.f)) for uid, u in state.units.items()}
    with pytest.raises(EditError, match=expected):
        apply_edit(game, edit)
    assert {uid: (u.hex, dict(u.f)) for uid, u in state.units.items()} == before
    assert list(game.roller.forced) == []
