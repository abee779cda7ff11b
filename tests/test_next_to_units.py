"""A search's test "is a unit of this list next to the hex?" answered from one walk of the list.

``any(each e in enemies(u) where adjacent(e.hex, h))`` (or ``friends``, the hexes in either
order) is recognised by the built-ins (``units_next_to`` in hexlore/runtime/engine/builtins/moves.py),
and a search then lists the hexes next to those units once rather than walking the list for
every hex it reaches. These tests check the recognised forms give, move for move, the routes the
same test written so that it is not recognised gives, with the memo on and off, and that other
forms are left to the function's body.
"""

from __future__ import annotations

import pytest

from conftest import demo_pack
from hexlore.runtime.engine.builtins import units_next_to_of
from hexlore.runtime.engine.game import Game

PACK = """pack demo.near
unit dummy "Dummy" { }

function by_enemy(u: unit, h: hex) -> bool = any(each e in enemies(u) where adjacent(e.hex, h))
function by_enemy_turned(u: unit, h: hex) -> bool = any(each e in enemies(u) where adjacent(h, e.hex))
function by_friend(u: unit, h: hex) -> bool = any(each e in friends(u) where adjacent(e.hex, h))
function plain_enemy(u: unit, h: hex) -> bool = any(each e in enemies(u) where distance(e.hex, h) == 1)
function plain_friend(u: unit, h: hex) -> bool = any(each e in friends(u) where distance(h, e.hex) == 1)
function free(u: unit, h: hex) -> int = (-1 if occupied(h) else 1)

function opt_by_enemy(u: unit) -> list of hex = move_options(u, 4, free, stops: by_enemy)
function opt_by_enemy_turned(u: unit) -> list of hex = move_options(u, 4, free, stops: by_enemy_turned)
function opt_by_friend(u: unit) -> list of hex = move_options(u, 4, free, stops: by_friend)
function opt_plain_enemy(u: unit) -> list of hex = move_options(u, 4, free, stops: plain_enemy)
function opt_plain_friend(u: unit) -> list of hex = move_options(u, 4, free, stops: plain_friend)
function way_by_enemy(u: unit, to: hex) -> list of hex = move_path(u, to, 4, free, stops: by_enemy)
function way_by_enemy_turned(u: unit, to: hex) -> list of hex = move_path(u, to, 4, free, stops: by_enemy_turned)
function way_by_friend(u: unit, to: hex) -> list of hex = move_path(u, to, 4, free, stops: by_friend)
function way_plain_enemy(u: unit, to: hex) -> list of hex = move_path(u, to, 4, free, stops: plain_enemy)
function way_plain_friend(u: unit, to: hex) -> list of hex = move_path(u, to, 4, free, stops: plain_friend)
"""

SCENARIO = """
hexlore: 1
name: near
packs: [demo.near]
board:
  shape: hexagon
  radius: 4
sides:
  - {name: a, edge: top}
  - {name: b, edge: bottom}
units:
  - {id: a1, type: dummy, side: a, hex: "0,0"}
  - {id: a2, type: dummy, side: a, hex: "2,-1"}
  - {id: b1, type: dummy, side: b, hex: "-1,3"}
  - {id: b2, type: dummy, side: b, hex: "1,2"}
  - {id: b3, type: dummy, side: b, hex: "-3,0"}
"""


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return demo_pack(tmp_path_factory.mktemp("near"), PACK, SCENARIO)


@pytest.mark.parametrize("memoise", [True, False])
@pytest.mark.parametrize("recognised, plain", [
    ("by_enemy", "plain_enemy"), ("by_enemy_turned", "plain_enemy"), ("by_friend", "plain_friend")])
def test_recognised_tests_give_the_same_moves(demo, memoise, recognised, plain):
    rules, scenario = demo
    game = Game(rules, scenario)
    game.memoise = memoise
    units = list(game.state.units.values())

    def moves(stop: str) -> list:
        out = []
        for u in units:
            ends = game.call_function(f"opt_{stop}", [u])
            out.append((ends, [game.call_function(f"way_{stop}", [u, h]) for h in ends]))
        return out

    def both() -> tuple[list, list]:
        return moves(recognised), moves(plain)

    mine, expected = game.guarded(both)
    assert mine == expected
    assert any(len(ends) > 1 for ends, _ in mine)  # the units do move, and stop next to others


def test_only_the_adjacency_aggregate_is_recognised(demo):
    rules, _ = demo
    found = {name: units_next_to_of(rules.functions[name])
             for name in ("by_enemy", "by_enemy_turned", "by_friend", "plain_enemy", "plain_friend", "free")}
    assert found == {"by_enemy": "enemies", "by_enemy_turned": "enemies", "by_friend": "friends",
                     "plain_enemy": None, "plain_friend": None, "free": None}
