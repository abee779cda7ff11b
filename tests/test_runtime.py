"""The runtime: determinism, forced dice, scripted decisions, event dispatch and its bounds."""

from __future__ import annotations

import io

import pytest

from conftest import ROOT, compile_text
from hexlore.runtime.engine.core.bounds import RuleError
from hexlore.runtime.engine.game import Game, RuntimeRuleError
from hexlore.runtime.scenarios.loader import load_scenario, load_scenario_text

SPIDER_FORD = ROOT / "scenarios" / "battlelore" / "spider_ford.yaml"


@pytest.fixture(scope="module")
def ford():
    scenario, diagnostics = load_scenario(SPIDER_FORD)
    assert scenario is not None, diagnostics
    return scenario


def play_log(rules, scenario, seed):
    out = io.StringIO()
    Game(rules, scenario, seed=seed, log_file=out, policies={"north": "random", "south": "random"}).play()
    return out.getvalue()


def test_same_seed_same_log_byte_for_byte(battlelore, ford):
    first = play_log(battlelore, ford, 11)
    second = play_log(battlelore, ford, 11)
    assert first == second
    assert first.count("\n") > 50


def test_other_seeds_give_other_logs(battlelore, ford):
    logs = {play_log(battlelore, ford, seed) for seed in (1, 2, 3)}
    assert len(logs) == 3


def test_a_game_ends_with_a_winner_or_the_round_limit(battlelore, ford):
    game = Game(battlelore, ford, seed=5)
    result = game.play()
    assert result.rounds >= 1
    last = game.log[-1]
    assert last["type"] == "end"
    if result.winner:
        winner = game.state.side(result.winner)
        assert winner.f["banners"] >= game.options["banners_to_win"]
    else:
        assert result.rounds == 40


def test_log_lines_record_rolls_decisions_and_events(battlelore, ford):
    game = Game(battlelore, ford, seed=2)
    game.play(max_rounds=2)
    kinds = {entry["type"] for entry in game.log}
    assert {"round", "event", "roll", "decision"} <= kinds
    seqs = [entry["seq"] for entry in game.log]
    assert seqs == list(range(1, len(seqs) + 1))


def test_forced_roll_of_the_wrong_size_is_a_located_rule_error(battlelore, ford):
    game = Game(battlelore, ford, forced_dice=[["flag"]])
    units = game.state.units
    with pytest.raises(RuntimeRuleError) as info:
        game.guarded(game.call_procedure, "strike", [units["s_centre"], units["spider"], True])
    d = info.value.diagnostic
    assert d.code == "R001" and "has 1 dice" in d.message
    assert d.file.endswith("core.lore") and d.span.line > 1


def test_scripted_answer_must_be_an_option(battlelore, ford):
    game = Game(battlelore, ford, decisions={"flags_to_ignore": [7]}, forced_dice=[["flag", "lore"]])
    units = game.state.units
    game.state.place(units["n_centre"], game.state.board.parse_label("H6"))  # in the archers' range and sight
    game.state.place(units["n_left"], game.state.board.parse_label("H5"))  # beside the target
    target = units["n_centre"]
    target.f["bold"] = 1
    with pytest.raises(RuntimeRuleError) as info:
        game.guarded(game.call_procedure, "ranged_attack", [units["s_archers"], target])
    assert "not one of the options" in info.value.diagnostic.message


SMALL = """
hexlore: 1
name: small
packs: [{pack}]
board: {{shape: hexagon, radius: 2}}
sides:
  - {{name: a, edge: top}}
  - {{name: b, edge: bottom}}
units: []
"""


def test_before_trigger_changes_arguments_and_instead_replaces_on(tmp_path):
    (tmp_path / "demo").mkdir()
    (tmp_path / "demo" / "bus.lore").write_text("""pack demo.bus
fields game { seen: int = 0, replaced: int = 0, after: int = 0 }
event poke(amount: int)
trigger double before poke { amount = amount * 2 }
trigger swallow instead of poke if amount > 10 { game.replaced += 1 }
trigger count on poke { game.seen += amount }
trigger always after poke { game.after += 1 }
procedure go(n: int) -> bool {
  let e = emit poke(amount: n)
  return e.replaced
}
""")
    from hexlore.compiler import compile_packs
    rules = compile_packs([str(tmp_path / "demo" / "bus.lore")])
    assert rules.ok, [d.headline() for d in rules.diagnostics]
    scenario, diags = load_scenario_text(SMALL.format(pack="demo.bus"), str(tmp_path / "s.yaml"))
    assert scenario, diags
    game = Game(rules, scenario)
    assert game.call_procedure("go", [3]) is False
    assert game.call_procedure("go", [6]) is True
    assert game.state.game["seen"] == 6 and game.state.game["replaced"] == 1 and game.state.game["after"] == 2
    assert [e["args"]["amount"] for e in game.log if e["type"] == "event"] == [6, 12]


def test_unbounded_event_recursion_stops_with_a_located_error(tmp_path):
    (tmp_path / "demo").mkdir()
    (tmp_path / "demo" / "loop.lore").write_text("""pack demo.loop
event ping()
trigger again on ping if game.round >= 0 { emit ping() }
procedure go() { emit ping() }
""")
    from hexlore.compiler import compile_packs
    rules = compile_packs([str(tmp_path / "demo" / "loop.lore")])
    # the guard does not bound the cycle: a warning at compile time (with no guard it is error C016)
    assert rules.ok and any(d.code == "W002" for d in rules.diagnostics)
    scenario, _ = load_scenario_text(SMALL.format(pack="demo.loop"), str(tmp_path / "s.yaml"))
    game = Game(rules, scenario)
    with pytest.raises(RuntimeRuleError) as info:
        game.guarded(game.call_procedure, "go", [])
    d = info.value.diagnostic
    assert "deeper than 64" in d.message and d.span.line == 3


def test_policies_greedy_follows_prefer_and_first_follows_default(battlelore, ford):
    from hexlore.runtime.engine.policies import Decision, FirstPolicy, GreedyPolicy, RandomPolicy
    d = Decision("x", None, ["a", "b", "c"], ["a", "b", "c"], [1, 5, 5], 2)
    assert GreedyPolicy().choose(d) == 1
    assert FirstPolicy().choose(d) == 2
    picks = {RandomPolicy(f"seed {s}").choose(d) for s in range(30)}
    assert picks == {0, 1, 2}


def test_tag_options_aggregates_and_empty_rolls(tmp_path):
    (tmp_path / "demo").mkdir()
    (tmp_path / "demo" / "misc.lore").write_text("""pack demo.misc
tag shiny, dull
die coin { face heads is shiny face tails is dull }
option wanted: tag = shiny "the face that counts"
procedure score(n: int) -> int { return count(each f in roll(n, coin) where f is wanted) }
procedure all_big(xs: list of int) -> bool { return all(each x in xs where x > 2) }
""")
    from hexlore.compiler import compile_packs
    rules = compile_packs([str(tmp_path / "demo" / "misc.lore")])
    assert rules.ok, [d.headline() for d in rules.diagnostics]
    text = SMALL.format(pack="demo.misc") + "options: {wanted: dull}\n"
    scenario, diags = load_scenario_text(text, str(tmp_path / "s.yaml"))
    assert scenario, diags
    game = Game(rules, scenario, forced_dice=[["heads", "tails", "tails"]])
    assert game.call_procedure("score", [0]) == 0          # no dice: no forced roll consumed
    assert game.call_procedure("score", [3]) == 2          # the option, set by the scenario, counts
    assert game.call_procedure("all_big", [[3, 4]]) is True
    assert game.call_procedure("all_big", [[3, 1]]) is False
    bad = SMALL.format(pack="demo.misc") + "options: {wanted: sparkly}\n"
    scenario, _ = load_scenario_text(bad, str(tmp_path / "b.yaml"))
    from hexlore.runtime.engine.game import ScenarioError
    with pytest.raises(ScenarioError) as info:
        Game(rules, scenario)
    assert "no tag or enum value named 'sparkly'" in info.value.diagnostics[0].message


def test_a_unit_set_aside_stays_alive_off_the_board_and_comes_back(tmp_path, ford):
    rules = compile_text(tmp_path, """
pack aside
use battlelore.creatures
event tally(on_board: int, roster: int, alive: bool) "counts for the test"
procedure park_and_return(u: unit, h: hex) "test entry" {
  set_aside(u)
  emit tally(on_board: count(units_of(u.side)), roster: count(roster(u.side)), alive: u.alive)
  move(u, h)
  emit tally(on_board: count(units_of(u.side)), roster: count(roster(u.side)), alive: u.alive)
  remove_unit(u)
  emit tally(on_board: count(units_of(u.side)), roster: count(roster(u.side)), alive: u.alive)
}
""")
    assert rules.ok, [d.headline() for d in rules.diagnostics]
    game = Game(rules, ford, seed=1)
    north = game.state.side("north")
    game.call_procedure("park_and_return", [game.state.units["n_left"], game.state.board.parse_label("A1")])
    tallies = [e["args"] for e in game.log if e.get("event") == "tally"]
    total = sum(1 for u in game.state.units.values() if u.side is north)
    assert tallies == [{"on_board": total - 1, "roster": total, "alive": True},
                       {"on_board": total, "roster": total, "alive": True},
                       {"on_board": total - 1, "roster": total, "alive": False}]
    assert game.state.units["n_left"].hex is None


def test_a_move_via_a_way_that_does_not_end_where_it_moves_is_a_rule_error(tmp_path, ford):
    rules = compile_text(tmp_path, """
pack ways
use battlelore.creatures
procedure walk(u: unit, h: hex, way: list of hex) "test entry" { move(u, h, via: way) }
""")
    assert rules.ok, [d.headline() for d in rules.diagnostics]
    game = Game(rules, ford, seed=1)
    unit, board = game.state.units["n_left"], game.state.board
    a1, b1, c1 = (board.parse_label(x) for x in ("A1", "B1", "C1"))
    game.call_procedure("walk", [unit, b1, [a1, b1]])
    assert unit.hex == b1
    with pytest.raises(RuleError) as failure:
        game.call_procedure("walk", [unit, c1, [a1, b1]])
    assert "via must be hexes of the board ending on the hex moved to" in str(failure.value)
    assert unit.hex == b1


def test_winner_is_none_until_a_side_wins(tmp_path, ford):
    rules = compile_text(tmp_path, """
pack who_won
use battlelore.creatures
event seen(side: side?) "the winner as the rules see it"
procedure look() "test entry" { emit seen(side: winner()) }
""")
    assert rules.ok, [d.headline() for d in rules.diagnostics]
    game = Game(rules, ford, seed=1)
    game.call_procedure("look", [])
    game.state.winner = game.state.side("south")
    game.call_procedure("look", [])
    assert [e["args"]["side"] for e in game.log if e.get("event") == "seen"] == [None, "south"]


def test_a_table_or_option_naming_a_definition_sees_its_values_and_traits(tmp_path, ford):
    # tables and options are lowered before definitions get their values: they must still be
    # the same definition, with its fields and traits
    rules = compile_text(tmp_path, """
pack spellbook
use battlelore.creatures
kind spell { cost: int = 0 }
trait costly { cost: 3 }
table best: colour -> spell { green: fire }
option favourite: spell = fire "the favourite spell"
event seen(same: bool, cost: int, costly: bool, listed: bool) "what the rules see"
procedure look() "test entry" {
  let s = best[green]
  emit seen(same: s == fire and favourite == fire, cost: s.cost + favourite.cost, costly: s is costly,
            listed: s in [fire])
}
spell fire "Fire" is costly { }
""")
    assert rules.ok, [d.headline() for d in rules.diagnostics]
    game = Game(rules, ford, seed=1)
    game.call_procedure("look", [])
    assert [e["args"] for e in game.log if e.get("event") == "seen"] == [
        {"same": True, "cost": 6, "costly": True, "listed": True}]


def test_set_terrain_changes_a_hex_for_every_later_rule(tmp_path, ford):
    rules = compile_text(tmp_path, """
pack new_ground
use battlelore.creatures
event seen(terrain: terrain, stops: bool) "the hex's terrain as the rules see it"
procedure build(h: hex) "test entry" {
  emit seen(terrain: h.terrain, stops: stops_at(first(units()), h))
  set_terrain(h, forest)
  emit seen(terrain: h.terrain, stops: stops_at(first(units()), h))
}
""")
    assert rules.ok, [d.headline() for d in rules.diagnostics]
    game = Game(rules, ford, seed=1)
    h = game.state.board.parse_label("F5")
    game.call_procedure("build", [h])
    assert [e["args"] for e in game.log if e.get("event") == "seen"] == [
        {"terrain": "plain", "stops": False}, {"terrain": "forest", "stops": True}]
    assert game.state.hex_fields[h]["terrain"].name == "forest"


UNTRUSTED = """pack demo.greedy
procedure spin() {{
  repeat 10000 {{
    repeat 10000 {{ let x = 1 }}
  }}
}}
procedure double() {{
  let xs = [1]
  repeat 100 {{ xs = xs + xs }}
}}
procedure grow() {{
  let xs = [1]
  repeat 100 {{ xs += xs }}
}}
procedure far() -> int {{ return count(range(1, 200000)) }}
procedure pile() {{
  let xs = [0]
  repeat 20 {{ repeat 10000 {{ push(xs, 1) }} }}
}}
procedure ok() -> int {{
  let n = 0
  repeat 1000 {{ repeat 1000 {{ n += 1 }} }}
  return n
}}
"""


@pytest.mark.parametrize("procedure, message, line", [
    ("spin", "the rules ran more than 2,000,000 steps", 4),
    ("double", "is more than a game may hold (100,000)", 9),
    ("grow", "is more than a game may hold (100,000)", 13),
    ("far", "a list of 200,000 items is more than a game may hold", 15),
    ("pile", "a list of 100,001 items is more than a game may hold", 18),
])
def test_loops_and_lists_of_untrusted_rules_are_bounded(tmp_path, procedure, message, line):
    """A loop that would run for hours, or a list that doubles until memory runs out, stops
    with a located error (the bounds: hexlore/runtime/engine/core/bounds.py)."""
    (tmp_path / "demo").mkdir()
    (tmp_path / "demo" / "greedy.lore").write_text(UNTRUSTED.format())
    from hexlore.compiler import compile_packs
    rules = compile_packs([str(tmp_path / "demo" / "greedy.lore")])
    assert rules.ok, [d.headline() for d in rules.diagnostics]
    scenario, _ = load_scenario_text(SMALL.format(pack="demo.greedy"), str(tmp_path / "s.yaml"))
    game = Game(rules, scenario)
    assert game.guarded(game.call_procedure, "ok", []) == 1_000_000  # a million steps are fine
    with pytest.raises(RuntimeRuleError) as info:
        game.guarded(game.call_procedure, procedure, [])
    d = info.value.diagnostic
    assert message in d.message and d.span.line == line and d.hint


def test_distance_adjacent_and_abs_built_ins_agree_with_the_grid(battlelore, ford):
    """The built-ins distance, adjacent and abs have their common cases written out
    (hexlore/runtime/engine/builtins/): every pair of the board's hexes (and hexes off it)
    gets what Hex.distance says, and abs what Python's abs of the number says."""
    from hexlore.runtime.geometry.grid import Hex

    game = Game(battlelore, ford, seed=1, policies={"north": "random", "south": "random"})
    builtins = game.builtins
    hexes = list(game.state.board)[:40] + [Hex(-9, 3), Hex(30, -30)]
    for a in hexes:
        for b in hexes:
            assert builtins["distance"](a, b) == a.distance(b)
            assert builtins["adjacent"](a, b) is (a.distance(b) == 1)
    for n in (0, 5, -5, True, False, -2.5):
        got = builtins["abs"](n)
        assert got == abs(n) and type(got) is type(abs(n))


def test_occupied_built_in_checks_its_hex(battlelore, ford):
    """occupied skips need_hex for a hex (its common case written out), and still refuses
    anything else with the rule error need_hex gives."""
    game = Game(battlelore, ford, seed=1, policies={"north": "random", "south": "random"})
    occupied = game.builtins["occupied"]
    for h in game.state.board:
        assert occupied(h) is bool(game.state.occupants.get(h))
    with pytest.raises(RuleError):
        occupied("B4")


def test_unit_list_built_ins_kept_while_nothing_moves(battlelore, ford):
    """units_of, friends and enemies keep their lists while the rules run (a memo table that
    a move forgets): each call gets a new list of its own, in the order of state.units, and
    after a unit moves or leaves the board the lists say so."""
    game = Game(battlelore, ford, seed=1, policies={"north": "random", "south": "random"})
    state, builtins = game.state, game.builtins
    names = game.compiled.builtin_names
    move = game.context.builtins[names.index("move")] if "move" in names else None
    remove = game.context.builtins[names.index("remove_unit")] if "remove_unit" in names else None

    def plain(keep) -> list:
        return [u for u in state.units.values() if u.alive and u.hex is not None and keep(u)]

    def check() -> None:
        for u in list(state.units.values())[:6]:
            side = u.side
            for _ in range(2):  # asked again: answered from the table, a list of its own each time
                mine = builtins["friends"](u)
                assert mine == plain(lambda v: v.side is side and v is not u)
                mine.append(None)  # the caller's to change
                assert builtins["enemies"](u) == plain(lambda v: v.side is not side)
            assert builtins["units_of"](side) == plain(lambda v: v.side is side)

    def run() -> None:
        check()
        unit = next(u for u in state.units.values() if u.hex is not None)
        free = next(h for h in state.board if not state.occupants.get(h))
        assert move is not None and remove is not None
        move(unit, free)
        check()
        remove(unit)
        check()

    game.guarded(run)
    assert game.memoise  # the memo was on: the lists came from its table


def test_in_section_built_in_agrees_with_the_board(battlelore, ford):
    """in_section reads the board's section map directly for a hex (its common case written
    out): every hex of the board, and one off it, answers what board.sections says; anything
    else than a hex is still refused."""
    from hexlore.compiler.model import Symbol
    from hexlore.runtime.geometry.grid import Hex

    game = Game(battlelore, ford, seed=1, policies={"north": "random", "south": "random"})
    board, in_section = game.state.board, game.builtins["in_section"]
    names = sorted({name for h in board for name in board.sections(h)})
    assert names  # the ford has sections
    for h in [*board, Hex(30, -30)]:
        for name in names:
            expected = name in board.sections(h)
            assert in_section(h, Symbol("section", name)) is expected
            assert in_section(h, name) is expected
    with pytest.raises(RuleError):
        in_section("B4", names[0])
