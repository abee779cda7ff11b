"""Memoised pure functions (compiler/memo_plan.py, runtime/engine/core/memo.py) change no game: same answers, same logs.

A memo answers a function call from an earlier call with the same arguments until the game
changes something the function reads. These tests change exactly those things between two
calls (a field, a unit's hex, a list in place) and compare every answer with the same
procedure run with the memo turned off; the bundled packs' games must log the same bytes.
"""

from __future__ import annotations

import io
import sys
from contextlib import contextmanager

import pytest

from conftest import ROOT, demo_pack
from hexlore.api import open_scenario
from hexlore.compiler import compile_packs
from hexlore.runtime.engine.game import Game
from hexlore.compiler.memo_plan import ANY, LISTS, POSITIONS, function_reads, new_lists

PACK = """pack demo.memo
fields unit { hp: int = 3, tag: int = 0 }
fields game { pile: list of int = [] }
# each of these lists the units (or aggregates), so it is worth memoising
function strength(u: unit) -> int = u.hp + count(units())
function steps_to(u: unit, h: hex) -> int = distance(u.hex, h) + 0 * count(units())
function around(u: unit) -> list of hex = list(each h in neighbours(u.hex) where true)
function shown(x: any) -> text = (text(x) if count(units()) >= 0 else "")
function piled() -> int = count(game.pile) + 0 * count(units())
function ignores_unit(u: unit, n: int) -> int = n + 0 * count(units())
function yes(x: bool) -> bool = x and count(units()) >= 0
function cheap(u: unit) -> int = u.hp + 1
# the pile itself, not a list made for the call: never kept (a push through it changes the pile)
function held_pile() -> list of int = (game.pile if count(units()) >= 0 else [])

procedure field_changes(u: unit) -> list of int {
  let before = strength(u)
  u.hp -= 1
  return [before, strength(u)]
}
procedure unit_moves(u: unit, to: hex, far: hex) -> list of int {
  let before = steps_to(u, far)
  move(u, to)
  return [before, steps_to(u, far)]
}
procedure lists_are_fresh(u: unit) -> int {
  let a = around(u)
  let b = around(u)
  push(a, u.hex)
  return count(b) * 100 + count(a)
}
procedure lists_kept(u: unit) -> list of int {
  let a = around(u)
  let b = around(u)
  push(b, u.hex)
  let c = around(u)
  return [count(a), count(b), count(c)]
}
procedure field_list_through_a_function() -> list of int {
  let before = count(held_pile())
  push(held_pile(), 4)
  push(held_pile(), 5)
  return [before, count(game.pile)]
}
procedure list_changes_in_place() -> list of int {
  let before = piled()
  push(game.pile, 7)
  return [before, piled()]
}
procedure numbers_of_two_classes() -> list of text {
  return [shown(true), shown(1), shown(false), shown(0), shown(1)]
}
procedure unread_argument(u: unit, v: unit) -> list of int {
  return [ignores_unit(u, 2), ignores_unit(v, 2), ignores_unit(u, 3)]
}
procedure several_bools() -> list of bool { return [yes(true), yes(false), yes(true)] }
procedure local_list_and_turn(u: unit, s: side) -> list of int {
  let mine = [1]
  let a = strength(u)
  push(mine, 2)
  begin_turn(s)
  return [a, strength(u), piled(), count(mine)]
}

function one(u: unit, h: hex) -> int = 1
function never(u: unit, h: hex) -> bool = false
function no_wall(u: unit, a: hex, b: hex) -> bool = false
function nobody(u: unit, o: unit) -> bool = false
procedure search_twice(u: unit, to: hex) -> list of int {
  let a = count(move_options(u, 2, one, no_wall, never, nobody, never, zoc.ignore))
  let b = count(move_path(u, to, 2, one, no_wall, never, nobody, never, zoc.ignore))
  move(u, to)
  let c = count(move_options(u, 2, one, no_wall, never, nobody, never, zoc.ignore))
  return [a, b, c]
}
"""

SCENARIO = """
hexlore: 1
name: memo
packs: [demo.memo]
board: {shape: hexagon, radius: 2}
sides:
  - {name: a, edge: top}
  - {name: b, edge: bottom}
units:
  - {id: u, type: dummy, side: a, hex: "0,0"}
  - {id: v, type: dummy, side: b, hex: "1,0"}
"""


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return demo_pack(tmp_path_factory.mktemp("memo"), PACK + 'unit dummy "Dummy" { }\n', SCENARIO)


def run(demo, memoise: bool, procedure: str, *args):
    rules, scenario = demo
    game = Game(rules, scenario)
    game.memoise = memoise
    board, units = game.state.board, game.state.units
    sides = {s.name: s for s in game.state.sides}
    values = [units[a] if a in units else sides[a] if a in sides else board.parse_label(a) if "," in a else a
              for a in args]
    return game.guarded(game.call_procedure, procedure, values), game


@pytest.mark.parametrize("procedure, args, expected", [
    ("field_changes", ["u"], [5, 4]),                   # 3 + 2 units, then 2 + 2
    ("unit_moves", ["u", "0,1", "0,-2"], [2, 3]),
    ("lists_are_fresh", ["u"], [607]),                  # b keeps its 6 hexes when a gets a 7th
    ("lists_kept", ["u"], [[6, 7, 6]]),                 # c is answered from the memo, b's push not in it
    ("field_list_through_a_function", [], [[0, 2]]),
    ("list_changes_in_place", [], [[0, 1]]),
    ("numbers_of_two_classes", [], [["True", "1", "False", "0", "1"]]),
    ("unread_argument", ["u", "v"], [[2, 2, 3]]),
    ("several_bools", [], [[True, False, True]]),
    ("local_list_and_turn", ["u", "a"], [[5, 5, 0, 2]]),
])
def test_a_memoised_answer_is_the_answer(demo, procedure, args, expected):
    memoised, game = run(demo, True, procedure, *args)
    plain, _ = run(demo, False, procedure, *args)
    assert memoised == plain == (expected[0] if len(expected) == 1 else expected)
    assert all(not table for table in game.memo.tables.values())  # nothing kept once it returns


def test_move_options_and_move_path_share_a_search_until_a_unit_moves(demo, monkeypatch):
    from hexlore.runtime.geometry import movement
    searches = []
    search = movement.search
    monkeypatch.setattr(movement, "search", lambda *a, **k: searches.append(1) or search(*a, **k))
    memoised, _ = run(demo, True, "search_twice", "u", "0,-2")
    assert len(searches) == 2  # the path comes from the options' search; the move forgets it
    plain, _ = run(demo, False, "search_twice", "u", "0,-2")
    assert len(searches) == 5
    assert memoised == plain == [17, 2, 9]  # v blocks the hex behind it; the corner sees fewer


@contextmanager
def counting(game, names):
    """How many times the compiled body of each function in ``names`` runs (a profile hook on
    their code objects: the compiled rules call each other directly, with no hook of their own)."""
    codes = {game.compiled.functions[n][0].__code__: n for n in names}
    calls = dict.fromkeys(names, 0)

    def profile(frame, event, arg):
        if event == "call" and frame.f_code in codes:
            calls[codes[frame.f_code]] += 1
    sys.setprofile(profile)
    try:
        yield calls
    finally:
        sys.setprofile(None)


def test_the_memo_is_used(demo):
    rules, scenario = demo
    game = Game(rules, scenario)
    game.memo_on = True  # as inside guarded
    u = game.state.units["u"]
    with counting(game, ["strength"]) as calls:
        assert game.call_function("strength", [u]) == game.call_function("strength", [u]) == 5
        assert calls["strength"] == 1
        game.memo.forgetter(("unit", "hp"))()
        assert game.call_function("strength", [u]) == 5 and calls["strength"] == 2
        game.memo.forgetter(("unit", "tag"))()  # strength does not read tag: still remembered
        assert game.call_function("strength", [u]) == 5 and calls["strength"] == 2


def test_a_list_made_for_each_call_is_kept_and_answered_as_a_list_of_the_callers_own(demo):
    rules, scenario = demo
    assert "around" in new_lists(rules)  # list(each …): a new list each call
    assert "held_pile" not in new_lists(rules) and "piled" not in new_lists(rules)
    game = Game(rules, scenario)
    u = game.state.units["u"]
    with counting(game, ["around"]) as calls:
        assert game.guarded(game.call_procedure, "lists_kept", [u]) == [6, 7, 6]
    assert calls["around"] == 1  # the second and third calls were answered from the memo
    game.memo.on = True  # as inside guarded
    first, second = game.call_function("around", [u]), game.call_function("around", [u])
    assert first == second and first is not second and type(second) is list


def test_what_functions_read(demo):
    reads = function_reads(demo[0])
    assert reads["strength"] == {("unit", "hp"), POSITIONS}
    assert reads["steps_to"] == {POSITIONS}
    assert reads["piled"] == {("game", "pile"), POSITIONS, LISTS}  # a list that push may change
    assert reads["cheap"] == {("unit", "hp")}
    assert ANY not in set().union(*reads.values())


def test_a_list_changed_in_place_or_a_turn_begun_forgets_only_who_may_read_them(demo):
    rules, scenario = demo
    game = Game(rules, scenario)
    with counting(game, ["strength", "piled"]) as calls:
        result = game.guarded(game.call_procedure, "local_list_and_turn",
                              [game.state.units["u"], game.state.sides[0]])
    assert result == [5, 5, 0, 2]
    assert calls == {"strength": 1, "piled": 1}  # strength reads no list and not the turn: asked once


def test_searches_memoise_cheap_callbacks_and_never_ask_false_constants(demo):
    rules, scenario = demo
    game = Game(rules, scenario)
    assert game.memo.plan("one") is None  # too cheap for Lore calls
    u, to = game.state.units["u"], game.state.board.parse_label("0,-2")
    with counting(game, ["one", "never", "no_wall"]) as calls:
        result = game.guarded(game.call_procedure, "search_twice", [u, to])
    assert result == [17, 2, 9]
    assert calls["never"] == calls["no_wall"] == 0  # always false: the searches leave them out
    assert calls["one"] == 1  # it reads neither argument: one answer serves every step of both searches


def test_cheap_functions_are_not_memoised_and_seldom_answered_ones_stop_being(demo):
    rules, scenario = demo
    game = Game(rules, scenario)
    assert game.memo.plan("cheap") is None and game.memo.plan("strength") is not None
    game.memo.on = True  # as inside guarded
    u = game.state.units["u"]
    plan = game.memo.plan("ignores_unit")
    assert [game.call_function("ignores_unit", [u, n]) for n in range(100)] == list(range(100))
    assert plan.misses >= 64 and not plan.active  # 100 different calls, none answered
    assert game.call_function("ignores_unit", [u, 5]) == 5  # still the right answer, not looked up
    assert plan.hits == 0


@pytest.mark.parametrize("scenario, packs, policies", [
    ("skirmish/village_raid.yaml", None, {"north": "random", "south": "random"}),
    ("tickclock/ruins.yaml", None, {"dawn": "random", "dusk": "random"}),
    ("westeros/skirmish.yaml", ["westeros.additional"], {"stark": "random", "lannister": "random"}),
    ("battlelore/spider_ford.yaml", None, {"north": "random", "south": "random"}),
    # greedy players read the rules' 'prefer' judgements, which call list-answering functions
    ("tickclock/ruins.yaml", None, {"dawn": "greedy", "dusk": "greedy"}),
    ("skirmish/village_raid.yaml", None, {"north": "greedy", "south": "greedy"}),
])
def test_bundled_games_log_the_same_with_and_without_the_memo(scenario, packs, policies):
    loaded = open_scenario(str(ROOT / "scenarios" / scenario))
    rules = compile_packs(packs) if packs else loaded.rules
    logs = []
    for memoise in (True, False):
        out = io.StringIO()
        game = Game(rules, loaded.scenario, seed=3, log_file=out, policies=policies)
        game.memoise = memoise
        game.play()
        logs.append(out.getvalue())
    assert logs[0] == logs[1] and logs[0].count("\n") > 50
