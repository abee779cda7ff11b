"""Step costs that read where units stand only as occupied(h) keep their answers across moves.

A cost such as ``-1 if occupied(h) else 1`` reads where the units stand, so its answers by
hex used to be forgotten at every move. Its answer on a hex nobody stands on cannot change
when units move (the hex stays free), so the search keeps those across moves and asks an
occupied hex afresh every time (``hex_cost`` in hexlore/runtime/engine/builtins/moves.py, recognised
by ``positions_at_own_hex`` in hexlore/compiler/memo_plan.py). These tests check which
functions are recognised, and that moves before and after units move are the same with the
memo on and off, while the cost is asked less often with it.
"""

from __future__ import annotations

import pytest

from conftest import demo_pack
from hexlore.runtime.engine.game import Game
from hexlore.compiler.memo_plan import positions_at_own_hex
from test_memo import counting

PACK = """pack demo.ownhex
fields unit { heavy: bool = false }
unit dummy "Dummy" { }

function free_cost(u: unit, h: hex) -> int = (-1 if occupied(h) else 1)
function heavy_cost(u: unit, h: hex) -> int = (-1 if occupied(h) else (2 if u.heavy else 1))
function near_cost(u: unit, h: hex) -> int = (-1 if any(each n in neighbours(h) where occupied(n)) else 1)
function shadow_cost(u: unit, h: hex) -> int = (1 if any(each h in neighbours(u.hex) where occupied(h)) else 2)
function where_cost(u: unit, h: hex) -> int = (1 if distance(u.hex, h) > 1 else 2)
function via_cost(u: unit, h: hex) -> int = free_cost(u, h)
function crowd_cost(u: unit, h: hex) -> int = (1 if count(units()) > 2 else 2)

function options(u: unit) -> int = count(move_options(u, 3, free_cost))
function heavy_options(u: unit) -> int = count(move_options(u, 3, heavy_cost))
function way(u: unit, to: hex) -> list of hex = move_path(u, to, 3, free_cost)

procedure walk(a: unit, b: unit, c: unit, to: hex, back: hex) -> list of int {
  let seen = [options(a), options(b), options(c), heavy_options(a)]
  move(b, to)
  seen += [options(a), options(b), options(c), heavy_options(a), count(way(a, back))]
  move(b, back)
  seen += [options(a), options(b), options(c)]
  a.heavy = true
  seen += [heavy_options(a), options(a)]
  remove_unit(c)
  seen += [options(a), options(b), heavy_options(a)]
  return seen
}
"""

SCENARIO = """
hexlore: 1
name: ownhex
packs: [demo.ownhex]
board:
  shape: hexagon
  radius: 3
sides:
  - {name: a, edge: top}
  - {name: b, edge: bottom}
units:
  - {id: a, type: dummy, side: a, hex: "0,0"}
  - {id: b, type: dummy, side: b, hex: "1,0"}
  - {id: c, type: dummy, side: a, hex: "-1,1"}
"""


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return demo_pack(tmp_path_factory.mktemp("ownhex"), PACK, SCENARIO)


def test_which_functions_read_positions_only_at_their_hex(demo):
    rules, _ = demo
    found = {name: positions_at_own_hex(rules, name) for name in
             ("free_cost", "heavy_cost", "near_cost", "shadow_cost", "where_cost", "via_cost", "crowd_cost")}
    assert found == {"free_cost": True, "heavy_cost": True, "near_cost": False, "shadow_cost": False,
                     "where_cost": False, "via_cost": False, "crowd_cost": False}


def play(demo, memoise: bool):
    rules, scenario = demo
    game = Game(rules, scenario)
    game.memoise = memoise
    units, board = game.state.units, game.state.board
    args = [units["a"], units["b"], units["c"], board.parse_label("0,1"), board.parse_label("1,0")]
    with counting(game, ["free_cost"]) as calls:
        seen = game.guarded(game.call_procedure, "walk", args)
    return seen, calls["free_cost"]


def test_moves_are_the_same_and_free_hexes_are_asked_once(demo):
    kept, asked = play(demo, True)
    plain, asked_plain = play(demo, False)
    assert kept == plain
    assert len(set(kept)) > 2  # the units block one another: the counts differ as they move
    assert asked < asked_plain
