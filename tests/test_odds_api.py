"""The odds API and CLI: actions, outcome specs, the budget, sampling, plots, replay fidelity."""

from __future__ import annotations

import json
import shlex
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner

from hexlore import api
from hexlore.cli import main
from hexlore.runtime.engine.dice import Roller
from hexlore.runtime.engine.game import Game, dump_log
from hexlore.runtime.engine.snapshot import Replayer
from hexlore.runtime.analysis.scenario_tests import action_args, apply_given

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "odds"
SPIDER = str(FIXTURES / "spider_attack.yaml")
SKIRMISH = str(FIXTURES / "skirmish_rolls.yaml")
STRIKE = "strike(attacker: attacker, target: spider, melee: true)"


def answer(*args, **kw):
    result, diagnostics, _ = api.odds(*args, **kw)
    assert result is not None, [d.headline() for d in diagnostics]
    return result


def problem(*args, **kw):
    result, diagnostics, _ = api.odds(*args, **kw)
    assert result is None and len(diagnostics) == 1
    return diagnostics[0]


# ---------------------------------------------------------------- replaying one game many times
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_replayed_game_logs_exactly_what_a_fresh_game_logs(seed):
    loaded = api.open_scenario("battlelore/spider_ford")
    game = Game(loaded.rules, loaded.scenario, seed=99)
    replayer = Replayer(game, {}, {s.name: s.policy for s in loaded.scenario.sides})
    game.play()  # dirty every part of the state first
    replayed = replayer.reset(Roller(seed), seed).play()
    fresh = Game(loaded.rules, loaded.scenario, seed=seed).play()
    assert dump_log(replayed.log) == dump_log(fresh.log)
    assert replayed.summary() == fresh.summary()


def test_a_replayed_action_with_given_matches_a_fresh_one():
    loaded = api.open_scenario(SPIDER)
    given = {"attacker": {"melee_dice": 6, "counts_bonus_strike": True, "hex": "F5"}, "spider": {"hex": "F4"}}

    def setup(seed):
        game = Game(loaded.rules, loaded.scenario, seed=seed)
        apply_given(game, given, pytest.fail)
        return game

    base = setup(0)
    replayer = Replayer(base, {}, {s.name: s.policy for s in loaded.scenario.sides})
    args = action_args(base, "melee_attack", {"attacker": "attacker", "target": "spider"}, pytest.fail)
    for seed in range(30):
        replayed = replayer.reset(Roller(seed), seed)
        replayed.call_procedure("melee_attack", list(args))
        fresh = setup(seed)
        fresh.call_procedure("melee_attack", action_args(fresh, "melee_attack",
                                                         {"attacker": "attacker", "target": "spider"}, pytest.fail))
        assert dump_log(replayed.log) == dump_log(fresh.log), seed


# ---------------------------------------------------------------- actions and outcome specs
def test_the_shorthand_and_the_do_item_are_the_same_action():
    a = answer(SPIDER, STRIKE, ["spider.alive"])
    b = answer(SPIDER, "{call: strike, with: {attacker: attacker, target: spider, melee: true}}", ["spider.alive"])
    c = answer(SPIDER, {"call": "strike", "with": {"attacker": "attacker", "target": "spider", "melee": True}},
               ["spider.alive"])
    assert a.distribution == b.distribution == c.distribution
    assert a.chance("spider.alive", False) == 1 - Fraction(17, 18) ** 3  # foot_blue: 3 dice, bonus strikes


def test_a_list_of_actions_runs_in_order():
    cast = "{call: casting_roll, with: {caster: mage, s: firebolt, target: guards, dice: 2}}"
    one = answer(SKIRMISH, cast, ["mage.corruption"]).marginal("mage.corruption")
    two = answer(SKIRMISH, f"[{cast}, {cast}]", ["mage.corruption"])
    convolution: dict = {}
    for a, p in one.items():
        for b, q in one.items():
            convolution[a + b] = convolution.get(a + b, 0) + p * q
    assert two.marginal("mage.corruption") == convolution


def test_a_rule_failing_in_one_branch_says_which_dice_led_there():
    # a second strike on a spider the first one killed reads the terrain of no hex
    item = "{call: strike, with: {attacker: attacker, target: spider, melee: true}}"
    d = problem(SPIDER, f"[{item}, {item}]", ["spider.alive"])
    assert d.code == "R001" and "cannot read" in d.message
    assert "the dice showed" in d.hint and "battle" in d.hint


def test_outcome_subjects_by_hex_alias_side_game_and_winner():
    r = answer(SPIDER, STRIKE, ["F8.alive", "alive(F8)", "south.lore", "game.round", "winner"])
    assert r.marginal("F8.alive") == r.marginal("alive(F8)") == answer(SPIDER, STRIKE, ["spider.alive"]).marginal(
        "spider.alive")
    assert r.mean("south.lore") == Fraction(3, 6)  # one lore face in six, three dice
    assert r.marginal("game.round") == {0: 1}
    assert r.marginal("winner") == {None: 1}


def test_event_filters_and_arguments():
    r = answer(SPIDER, STRIKE, ["event:critical_roll", "event:critical_roll(killed=true)",
                                "event:critical_roll(creature=SPIDER, killed=false)", "event:critical_roll.killed"])
    assert r.chance("event:critical_roll", 1) == r.chance("event:critical_roll(killed=true)", 1) + \
        r.chance("event:critical_roll(creature=SPIDER, killed=false)", 1)
    assert r.chance("event:critical_roll.killed", True) == r.chance("event:critical_roll(killed=true)", 1)
    assert r.marginal("event:critical_roll.killed").keys() == {False, True}  # booleans combine with 'any'
    faces = answer(SPIDER, STRIKE, ["event:critical_roll.faces"]).marginal("event:critical_roll.faces")
    assert faces[None] == r.chance("event:critical_roll", 0)  # lists come back as tuples of labels
    # exactly two hits of three dice (2/9), then a critical roll showing {blue helmet, lore} (2/36)
    assert faces[("blue_helmet", "lore")] == Fraction(2, 9) * Fraction(2, 36)


@pytest.mark.parametrize("spec, code, words", [
    ("event:critcal_roll", "O003", "did you mean 'critical_roll'"),
    ("event:critical_roll(victim=spider)", "O003", "creature, faces, killed"),
    ("event:hit.damage", "O003", "target, count, by"),
    ("spider.figurs", "O003", "did you mean 'figures'"),
    ("spidr.alive", "O003", "did you mean 'spider'"),
    ("A1.alive", "O003", "no unit on A1"),
    ("north.banner", "O003", "did you mean 'banners'"),
    ("what is this", "O003", "event:NAME"),
])
def test_bad_outcome_specs_are_diagnostics(spec, code, words):
    d = problem(SPIDER, STRIKE, [spec])
    assert d.code == code and words in (d.message + " " + (d.hint or "")), d
    assert d.file == "--outcome"


@pytest.mark.parametrize("action, words", [
    ("strke(attacker: attacker, target: spider, melee: true)", "did you mean 'strike'"),
    ("strike(attacker: attacker, target: spider)", "needs argument 'melee'"),
    ("strike(attacker: nobody, target: spider, melee: true)", "no unit with id 'nobody'"),
    ("{call: strike, with: [1, 2]}", "mapping with 'call' and 'with'"),
    ("{call: strike, with: {attacker: attacker", "not valid YAML"),
])
def test_bad_actions_are_diagnostics(action, words):
    d = problem(SPIDER, action, ["spider.alive"])
    assert d.code == "O002" and words in d.message + " " + (d.hint or ""), d


def test_bad_given_and_policy_are_diagnostics():
    assert "units have no field 'speed'" in problem(SPIDER, STRIKE, given={"spider": {"speed": 3}}).message
    assert problem(SPIDER, STRIKE, policy="clever").code == "O002"


def test_a_scenario_test_gives_the_position_and_the_action():
    outcome = ["spider.alive", "spider.hex", "event:attack"]
    r = answer(SPIDER, None, outcome, test="a two-die attack from the side")
    same = answer(SPIDER, "melee_attack(attacker: attacker, target: spider)", outcome,
                  given={"spider": {"hex": "F5"}, "attacker": {"hex": "E5", "melee_dice": 2}})
    assert r.distribution == same.distribution
    assert r.chance("spider.hex", "F5") > 0 and r.chance("event:attack", 2) > 0  # held its hex, battled back
    assert problem(SPIDER, None, test="no such test").code == "O002"


def test_the_default_outcome_keeps_only_what_changes():
    r = answer(SPIDER, STRIKE)
    assert r.columns == ["attacker.lore_tokens", "spider.alive", "spider.hex"]
    assert r.mean("attacker.lore_tokens") == r.chance("spider.alive", False)


# ---------------------------------------------------------------- budget, samples, randomness
def test_over_budget_stops_with_a_diagnostic_suggesting_samples():
    d = problem(SPIDER, STRIKE, ["spider.alive"], budget=50, given={"attacker": {"melee_dice": 5}})
    assert d.code == "O001" and "--samples" in d.hint and "more than 50" in d.message


def test_one_huge_roll_is_refused_before_any_enumeration():
    d = problem(SPIDER, STRIKE, ["spider.alive"], given={"attacker": {"melee_dice": 400}})
    assert d.code == "O001" and "one roll of 400 'battle' dice" in d.message


def test_samples_are_seeded_and_bracket_the_exact_value():
    given = {"attacker": {"melee_dice": 4, "counts_bonus_strike": True}}
    exact = answer(SPIDER, STRIKE, ["spider.alive"], given=given)
    a = answer(SPIDER, STRIKE, ["spider.alive"], given=given, samples=3000, seed=4)
    b = answer(SPIDER, STRIKE, ["spider.alive"], given=given, samples=3000, seed=4)
    assert not a.exact and a.enumerated == 3000 and a.seed == 4
    assert a.distribution == b.distribution
    row = next(r for r in a.rows if r.values == (False,))
    assert row.count == round(row.probability * 3000)
    assert row.low <= float(exact.chance("spider.alive", False)) <= row.high
    assert a.to_json()["rows"][0].keys() >= {"count", "low", "high", "probability"}


def test_random_decisions_are_chance_points():
    given = {"attacker": {"hex": "F9", "melee_dice": 2}, "spider": {"hex": "F8"}}
    first = answer(SPIDER, "melee_attack(attacker: attacker, target: spider)", ["event:attack"], given=given)
    rand = answer(SPIDER, "melee_attack(attacker: attacker, target: spider)", ["event:attack"], given=given,
                  policy="random")
    # with 'first' the spider always battles back when it can; at random, half the time
    p_back = first.chance("event:attack", 2)
    assert p_back > 0 and rand.chance("event:attack", 2) == p_back / 2


def test_shuffling_inside_the_action_cannot_be_enumerated(tmp_path):
    (tmp_path / "mix.lore").write_text(
        "pack odds_demo.mix\nfields game { pile: list of int = [1, 2, 3] }\n"
        "event mixed(top: int)\nprocedure mix() { shuffle(game.pile)\n emit mixed(top: first(game.pile)) }\n",
        encoding="utf-8")
    (tmp_path / "mix.yaml").write_text(
        "hexlore: 1\nname: mix\npacks: [mix.lore]\nboard: {shape: hexagon, radius: 1}\n"
        "sides: [{name: a, edge: top}, {name: b, edge: bottom}]\nunits: []\n", encoding="utf-8")
    d = problem(str(tmp_path / "mix.yaml"), "mix()", ["event:mixed.top"])
    assert d.code == "O004" and "shuffles" in d.message and "--samples" in d.hint
    sampled = answer(str(tmp_path / "mix.yaml"), "mix()", ["event:mixed.top"], samples=300)
    assert set(sampled.marginal("event:mixed.top")) == {1, 2, 3}


# ---------------------------------------------------------------- the command
def run_cli(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_cli_json_is_exact_fractions():
    out = run_cli("odds", SPIDER, "--action", STRIKE, "--outcome", "spider.alive", "--format", "json")
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["exact"] and data["columns"] == ["spider.alive"]
    dead = next(r for r in data["rows"] if r["outcome"]["spider.alive"] is False)
    assert Fraction(dead["probability"]) == 1 - Fraction(17, 18) ** 3


def test_cli_table_and_over_budget_exit_code():
    out = run_cli("odds", SPIDER, "--action", STRIKE, "--outcome", "spider.alive")
    assert out.exit_code == 0 and "exact" in out.output
    assert "919/5832" in out.output  # 1 - (17/18)^3
    over = run_cli("odds", SPIDER, "--action", STRIKE, "--budget", "10")
    assert over.exit_code == 1 and "O001" in over.output and "--samples" in over.output
    assert run_cli("odds", SPIDER).exit_code == 2  # nothing to do


def test_cli_samples_show_intervals():
    out = run_cli("odds", SPIDER, "--action", STRIKE, "--outcome", "spider.alive", "--samples", "500", "--seed", "3")
    assert out.exit_code == 0 and "Monte Carlo" in out.output and "95%" in out.output


def test_cli_plot_writes_a_chart(tmp_path):
    target, picture = tmp_path / "odds.svg", tmp_path / "odds.png"
    out = run_cli("odds", SPIDER, "--action", STRIKE, "--outcome", "spider.alive", "--plot", str(target))
    assert out.exit_code == 0 and target.read_text(encoding="utf-8").startswith("<svg")  # hexlore's own SVG
    out = run_cli("odds", SPIDER, "--action", STRIKE, "--outcome", "spider.alive", "--plot", str(picture))
    assert out.exit_code == 0 and picture.read_bytes().startswith(b"\x89PNG")  # matplotlib's


def test_cli_plot_without_matplotlib_is_a_clear_usage_error(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    out = run_cli("odds", SPIDER, "--action", STRIKE, "--plot", str(tmp_path / "x.png"))
    assert out.exit_code == 2 and "pip install 'hexlore[plot]'" in out.output


@pytest.mark.slow
def test_the_readme_odds_example_runs_as_written():
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    line = next(line for line in readme.splitlines() if line.startswith("hexlore odds "))
    out = run_cli(*shlex.split(line)[1:], "--format", "json")
    assert out.exit_code == 0, out.output
    dead = [r for r in json.loads(out.output)["rows"] if r["outcome"]["spider.alive"] is False]
    assert sum(Fraction(r["probability"]) for r in dead) == Fraction(85919, 419904)  # as the README says
    assert "85919/419904" in readme


def test_the_readme_westeros_example_runs_as_written():
    # blue riders (3 dice) lead, green outriders (2 - 1) support: 4 dice against the blue
    # footmen; both hit on valor, so the two blue faces and valor score: 3 of 8, Bin(4, 3/8)
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    line = next(line for line in readme.splitlines() if line.startswith("hexlore odds tests/fixtures/odds/westeros"))
    out = run_cli(*shlex.split(line)[1:], "--format", "json")
    assert out.exit_code == 0, out.output
    rows = {r["outcome"]["event:attack_rolled.hits"]: Fraction(r["probability"]) for r in json.loads(out.output)["rows"]}
    assert rows == {0: Fraction(625, 4096), 1: Fraction(1500, 4096), 2: Fraction(1350, 4096),
                    3: Fraction(540, 4096), 4: Fraction(81, 4096)}


def test_a_decision_in_a_while_loops_condition_forks_at_each_time_round():
    """scenarios/language/loops.lore: 'while asked < 10 and ask again(…)', a random side: the
    loop runs k times with chance 1/2**(k+1), ten times with 1/2**10 (the resumable form keeps
    the loop's place in its frame and forks there)."""
    loops = str(Path(__file__).resolve().parent.parent / "scenarios" / "language" / "loops.yaml")
    r = answer(loops, "ask_until_no(s: north)", ["event:counted.n"], policy="random")
    expected = {k: Fraction(1, 2 ** (k + 1)) for k in range(10)} | {10: Fraction(1, 2 ** 10)}
    assert r.marginal("event:counted.n") == expected


def test_an_action_that_breaks_a_rules_precondition_is_reported_not_played():
    """battlelore.core's melee_attack requires an adjacent living enemy (issue 15): the odds of
    an attack from afar, or on a unit already eliminated, are R003, not a distribution."""
    far = problem(SPIDER, "melee_attack(attacker: attacker, target: spider)", ["spider.alive"],
                  given={"attacker": {"hex": "F5"}})
    assert far.code == "R003" and "adjacent" in far.message and far.file.endswith("core.lore")
    gone = problem(SPIDER, "melee_attack(attacker: attacker, target: spider)", ["spider.alive"],
                   given={"spider": {"hex": None}})
    assert gone.code == "R003" and "on the board" in gone.message
    near = answer(SPIDER, "melee_attack(attacker: attacker, target: spider)", ["spider.alive"])
    assert sum(near.marginal("spider.alive").values()) == 1


def test_a_unit_is_eliminated_once(tmp_path):
    """remove_unit on a unit already eliminated is R003: a pack that eliminates twice (a hit
    on a unit already gone) learns it at once instead of counting the elimination twice."""
    (tmp_path / "twice.lore").write_text(
        "pack twice\nunit pawn \"Pawn\" { }\n"
        "procedure eliminate_twice(u: unit) \"entry\" {\n  remove_unit(u)\n  remove_unit(u)\n}\n",
        encoding="utf-8")
    (tmp_path / "twice.yaml").write_text(
        "hexlore: 1\nname: twice\npacks: [twice.lore]\nboard: {shape: rectangle, width: 3, height: 3}\n"
        "sides: [{name: a, edge: top}, {name: b, edge: bottom}]\nunits: [{id: p, type: pawn, side: a, hex: B2}]\n",
        encoding="utf-8")
    d = problem(str(tmp_path / "twice.yaml"), "eliminate_twice(u: p)", ["p.alive"])
    assert d.code == "R003" and "already eliminated" in d.message and d.span.line == 5
