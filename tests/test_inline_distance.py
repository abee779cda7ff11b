"""``distance(a, b)`` written out in the generated code (hexlore/compiler/backend/expressions.py):
the same answers as the built-in for every pair of hexes, the built-in's own error for anything
else, and each argument evaluated once, in order, as a call evaluates them."""

from __future__ import annotations

import ast
import io

import pytest
from hypothesis import given, settings, strategies as st

from conftest import demo_pack
from hexlore.compiler.backend.program import generate_module
from hexlore.runtime.engine.core.bounds import RuleError
from hexlore.runtime.engine.game import Game
from hexlore.runtime.geometry.grid import Hex
from test_memo import SCENARIO

PACK = """pack demo.dist
fields game { asked: int = 0 }
event asked(n: int) "Asked"
function dist(a: hex, b: hex) -> int = distance(a, b)
function nearest(h: hex) -> int = min(each u in units(): distance(u.hex, h))
procedure note(h: hex, n: int) -> hex {
  emit asked(n: n)
  return h
}
procedure both(a: hex, b: hex) -> int {
  return distance(note(a, 1), note(b, 2))
}
unit dummy "Dummy" { }
"""

coords = st.integers(min_value=-40, max_value=40)
hexes = st.builds(Hex, coords, coords)


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    rules, scenario = demo_pack(tmp_path_factory.mktemp("dist"), PACK, SCENARIO.replace("demo.memo", "demo.dist"))
    return Game(rules, scenario, seed=1, log_file=io.StringIO())


def test_the_generated_code_asks_no_builtin_for_two_hexes(game):
    text = ast.unparse(generate_module(game.rules))
    function = next(line for line in text.splitlines() if "h_hex" in line)
    assert "// 2" in function and "abs" not in function


@settings(max_examples=200, deadline=None, derandomize=True)
@given(hexes, hexes)
def test_written_out_distance_is_the_builtins(game, a, b):
    expected = game.builtins["distance"](a, b)
    assert expected == a.distance(b)
    assert game.call_function("dist", [a, b]) == expected


@settings(max_examples=100, deadline=None, derandomize=True)
@given(hexes)
def test_an_aggregate_of_distances_is_the_plain_minimum(game, h):
    units = [u for u in game.state.units.values() if u.alive]
    assert game.call_function("nearest", [h]) == min(u.hex.distance(h) for u in units)


@pytest.mark.parametrize("a, b", [((0, 1), Hex(0, 0)), (Hex(0, 0), (1, 0)), (None, Hex(0, 0)), ((0, 1), (1, 1))])
def test_anything_else_gets_the_builtins_error(game, a, b):
    with pytest.raises(RuleError) as builtin:
        game.builtins["distance"](a, b)
    with pytest.raises(RuleError) as written:
        game.call_function("dist", [a, b])
    assert str(written.value) == str(builtin.value)


def test_each_argument_is_evaluated_once_in_order(game):
    log = io.StringIO()
    fresh = Game(game.rules, game.scenario, seed=1, log_file=log)
    assert fresh.guarded(fresh.call_procedure, "both", [Hex(0, 0), Hex(2, -1)]) == 2
    asked = [line for line in log.getvalue().splitlines() if '"event":"asked"' in line]
    assert len(asked) == 2 and '"n":1' in asked[0] and '"n":2' in asked[1]


def test_the_written_out_builtins_are_read_from_their_records():
    """The generator's special case is a fact of the record (``hex_distance``): only a
    built-in of two hexes giving an int may carry it."""
    from hexlore.compiler.builtins import BUILTINS, PURE, named
    from hexlore.compiler.types import HEX, INT

    marked = named(lambda b: b.hex_distance)
    assert marked == {"distance"}
    for b in (BUILTINS[n] for n in marked):
        assert [t for _, t in b.params] == [HEX, HEX] and b.returns == INT and b.effect == PURE
