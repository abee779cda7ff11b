"""The movement built-ins seen from Lore: edge cases and bad input.

The variants themselves are tested by the scenarios in ``scenarios/geometry/movement*.yaml``
(``hexlore test scenarios``, also run by ``tests/test_scenarios.py``); here are the cases a
scenario cannot state: the built-ins' defaults give what the stub functions packs wrote
before them gave; a forced step costing nothing must be a located rule error (R001), never
a traceback; a path out of reach is empty and costs -1;
a unit off the board has no options; zero-cost steps are searched correctly.
"""

from __future__ import annotations

import pytest

from hexlore.compiler import compile_packs
from hexlore.runtime.engine.game import Game, RuntimeRuleError
from hexlore.runtime.scenarios.loader import load_scenario_text

PACK = """pack demo.moves
use battlelore.core

function one(u: unit, h: hex) -> int = 1
function free(u: unit, h: hex) -> int = 0
function plain_step(u: unit, a: hex, b: hex) -> bool = false
function never(u: unit, h: hex) -> bool = false
function nobody(u: unit, other: unit) -> bool = false

procedure zero_push(u: unit) -> list of hex {
  return away_options(u, u.hex, 2, free)
}
procedure free_moves(u: unit) -> list of hex {
  return move_options(u, 0, free, zoc: stop)
}
# every argument by position, as before built-ins had defaults
procedure path_to(u: unit, h: hex) -> list of hex {
  return move_path(u, h, 2, one, plain_step, never, nobody, never, zoc.ignore)
}
# every argument left to its default: one point a hex, nothing in the way
procedure spent_to(u: unit, h: hex) -> int {
  return move_spent(u, h, 2)
}
procedure all_options(u: unit, source: hex) -> int {
  return count(move_options(u, 2, one, plain_step, never, nobody, never, zoc.ignore))
    + count(teleport_options(u, 2, never)) + count(retreat_options(u, 2, one, nobody))
    + count(retreat_from_options(u, source, 2, one, nobody)) + count(away_options(u, source, 2, one, nobody))
}
# the defaults give what the stubs they replace gave
procedure defaults_agree(u: unit, source: hex) -> bool {
  return move_options(u, 2) == move_options(u, 2, one, plain_step, never, nobody, never, zoc.ignore)
    and move_options(u, 2, zoc: forbid, controls: never) == move_options(u, 2, one)
    and retreat_options(u, 2) == retreat_options(u, 2, one, nobody)
    and away_options(u, source, 2) == away_options(u, source, 2, passes: nobody)
    and retreat_from_options(u, source, 2) == retreat_from_options(u, source, 2, cost: one)
    and reachable(u, 2) == reachable(u, 2, one, never)
}
"""

SCENARIO = """
hexlore: 1
name: small
packs: [demo.moves]
board: {shape: hexagon, radius: 2}
sides:
  - {name: a, edge: top}
  - {name: b, edge: bottom}
units:
  - {id: u, type: foot_green, side: a, hex: "0,0"}
"""


@pytest.fixture(scope="module")
def game_factory(tmp_path_factory):
    root = tmp_path_factory.mktemp("moves")
    (root / "demo").mkdir()
    (root / "demo" / "moves.lore").write_text(PACK, encoding="utf-8")
    rules = compile_packs([str(root / "demo" / "moves.lore")])
    assert rules.ok, [d.headline() for d in rules.diagnostics]
    scenario, diags = load_scenario_text(SCENARIO, str(root / "s.yaml"))
    assert scenario, diags

    def make():
        game = Game(rules, scenario)
        return game, game.state.units["u"]
    return make


def line_of(text: str) -> int:
    return next(i for i, line in enumerate(PACK.splitlines(), 1) if text in line)


def labels(game, hexes):
    return [game.state.board.label(h) for h in hexes]


def test_defaults_of_the_movement_built_ins_are_the_stubs_packs_wrote(game_factory) -> None:
    game, u = game_factory()
    board = game.state.board
    for source in ("1,-1", "0,1", "-2,2"):
        assert game.call_procedure("defaults_agree", [u, board.parse_label(source)]) is True


def test_a_forced_step_costing_nothing_is_a_located_rule_error(game_factory) -> None:
    game, u = game_factory()
    with pytest.raises(RuntimeRuleError) as info:
        game.guarded(game.call_procedure, "zero_push", [u])
    d = info.value.diagnostic
    assert d.code == "R001" and d.span.line == line_of("away_options(u, u.hex") and "at least 1" in d.message


def test_zero_cost_steps_reach_the_whole_board_on_no_budget(game_factory) -> None:
    game, u = game_factory()
    assert len(game.call_procedure("free_moves", [u])) == len(game.state.board)


def test_paths_and_costs_out_of_reach(game_factory) -> None:
    game, u = game_factory()
    board = game.state.board
    assert labels(game, game.call_procedure("path_to", [u, board.parse_label("2,0")])) == ["1,0", "2,0"]
    assert game.call_procedure("spent_to", [u, board.parse_label("2,0")]) == 2
    far = board.parse_label("2,-2")
    assert game.call_procedure("path_to", [u, board.parse_label("0,0")]) == []
    assert game.call_procedure("spent_to", [u, board.parse_label("0,0")]) == 0
    game.state.place(u, board.parse_label("-2,2"))
    assert game.call_procedure("path_to", [u, far]) == []
    assert game.call_procedure("spent_to", [u, far]) == -1


def test_a_unit_off_the_board_has_no_options(game_factory) -> None:
    game, u = game_factory()
    source = game.state.board.parse_label("0,1")
    assert game.call_procedure("all_options", [u, source]) > 0
    game.state.place(u, None)
    assert game.call_procedure("all_options", [u, source]) == 0
