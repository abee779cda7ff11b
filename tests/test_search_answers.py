"""A unit's step costs and stopping hexes, kept from one movement search to the next.

The searches of ``move_options``/``move_path``/``reachable`` read a unit's step cost and its
"stops here" answer per hex from lists kept across searches while the rules run
(``hex_answers`` in hexlore/runtime/engine/builtins/moves.py, a memo table of memo.py). These tests
change, between two searches of one run, exactly what the callbacks read (a unit's field, a
game field, a definition's list changed in place through another name) and check that the
second search sees it, with the memo on and off; and that a change nothing reads keeps them.
"""

from __future__ import annotations

import pytest

from conftest import demo_pack
from hexlore.runtime.engine.game import Game
from hexlore.compiler.memo_plan import DEFINITION_LISTS, LISTS, function_reads
from test_memo import counting

PACK = """pack demo.answers
fields terrain { closed_to: list of int = [] }
fields unit { heavy: bool = false, kind: int = 2, carried: list of int = [] }
fields game { walls: bool = false }
terrain plain "Plain" { }
terrain bog "Bog" { closed_to: [1] }
unit dummy "Dummy" { }

function cost(u: unit, h: hex) -> int = (-1 if u.kind in h.terrain.closed_to else (3 if u.heavy else 1))
function walls(u: unit, h: hex) -> bool = game.walls
function no_wall(u: unit, a: hex, b: hex) -> bool = false
function nobody(u: unit, o: unit) -> bool = false
function never(u: unit, h: hex) -> bool = false

function options(u: unit) -> int = count(move_options(u, 2, cost, no_wall, walls, nobody, never, zoc.ignore))
function reached(u: unit) -> int = count(reachable(u, 2, cost, walls))

procedure a_field_the_cost_reads(u: unit) -> list of int {
  let a = [options(u), reached(u)]
  u.heavy = true
  return a + [options(u), reached(u)]
}
procedure a_field_the_stop_reads(u: unit) -> list of int {
  let a = [options(u), reached(u)]
  game.walls = true
  return a + [options(u), reached(u)]
}
procedure a_definition_list_through_a_field(u: unit, bog: hex) -> list of int {
  let a = [options(u), reached(u)]
  u.carried = bog.terrain.closed_to  # the bog's own list, under another name
  push(u.carried, 2)                 # now closed to u's kind too
  return a + [options(u), reached(u)]
}
procedure a_definition_list_itself(u: unit, bog: hex) -> list of int {
  let a = [options(u)]
  push(bog.terrain.closed_to, 2)
  return a + [options(u)]
}
procedure an_unread_change(u: unit) -> list of int {
  let a = [options(u)]
  let mine = [1]
  push(mine, 2)        # a list of the procedure's own
  u.carried = [5]      # a field the cost does not read
  return a + [options(u), count(mine)]
}
"""

SCENARIO = """
hexlore: 1
name: answers
packs: [demo.answers]
board:
  shape: hexagon
  radius: 2
  terrain: {bog: ["1,0"]}
sides:
  - {name: a, edge: top}
  - {name: b, edge: bottom}
units:
  - {id: u, type: dummy, side: a, hex: "0,0"}
"""

BOG = "1,0"


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return demo_pack(tmp_path_factory.mktemp("answers"), PACK, SCENARIO)


def run(demo, memoise: bool, procedure: str, *hexes: str):
    rules, scenario = demo
    game = Game(rules, scenario)
    game.memoise = memoise
    args = [game.state.units["u"], *(game.state.board.parse_label(h) for h in hexes)]
    return game.guarded(game.call_procedure, procedure, args), game


# 19 hexes within 2 steps (the start included); heavy: 3 points a step, none affordable; walls:
# every step ends the move (the start and its 6 neighbours); the bog closed: 17 (the hex
# behind it is 3 steps away round it)
@pytest.mark.parametrize("procedure, hexes, expected", [
    ("a_field_the_cost_reads", [], [19, 19, 1, 1]),
    ("a_field_the_stop_reads", [], [19, 19, 7, 7]),
    ("a_definition_list_through_a_field", [BOG], [19, 19, 17, 17]),
    ("a_definition_list_itself", [BOG], [19, 17]),
    ("an_unread_change", [], [19, 19, 2]),
])
def test_the_second_search_sees_what_changed(demo, procedure, hexes, expected):
    kept, _ = run(demo, True, procedure, *hexes)
    plain, _ = run(demo, False, procedure, *hexes)
    assert kept == plain == expected


def test_a_definition_field_reads_definition_lists_only(demo):
    reads = function_reads(demo[0])
    assert DEFINITION_LISTS in reads["cost"] and LISTS not in reads["cost"]


def test_answers_are_kept_while_nothing_they_read_changes(demo):
    rules, scenario = demo
    game = Game(rules, scenario)
    with counting(game, ["cost"]) as calls:
        assert game.guarded(game.call_procedure, "an_unread_change", [game.state.units["u"]]) == [19, 19, 2]
    # each hex's cost asked once for both searches: a list of the procedure's own, changed in
    # place, and a field the cost does not read forget nothing; the start's cost is never
    # asked (a search does not price a step back onto a hex it has settled)
    assert calls["cost"] == 18
