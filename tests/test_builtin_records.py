"""One record per built-in (issue 32, item 1): every table of built-ins derives from the records.

hexlore/compiler/builtins.py holds one record per built-in; the runtime implements each under
its name, in the module of its family (hexlore/runtime/engine/builtins/); the memo's and the
code generator's sets of names, the reference's table and the editor grammar are derived from
the records. These tests enumerate the registry both ways, check that the generated files are
what the records give, and check the memo's facts of each record against its implementation:
a built-in said to read nothing answers the same after every change a built-in can make.
"""

from __future__ import annotations

import dataclasses
import itertools
import shutil

import pytest

from conftest import ROOT
from hexlore.compiler import builtin_docs
from hexlore.compiler import builtins as records
from hexlore.compiler.builtins import BUILTINS, PURE
from hexlore.compiler.types import BOOL, FN, HEX, INT, SIDE, UNIT
from hexlore.runtime.engine import builtins as runtime_builtins
from hexlore.compiler import memo_plan as memo
from hexlore.runtime.engine.builtins import FAMILY_MODULES, MissingBuiltin, make_builtins
from hexlore.runtime.engine.builtins.kit import make_kit
from hexlore.runtime.engine.game import Game
from hexlore.runtime.scenarios.loader import load_scenario

SPIDER_FORD = ROOT / "scenarios" / "battlelore" / "spider_ford.yaml"
RECORDS = list(BUILTINS.values())
#: what a change may touch besides (owner, field): the tokens the memo knows
TOKENS = {records.POSITIONS, records.LISTS, records.DICE, records.ANYTHING}


@pytest.fixture(scope="module")
def game(battlelore):
    scenario, diagnostics = load_scenario(SPIDER_FORD)
    assert scenario is not None, diagnostics
    return Game(battlelore, scenario, seed=3, policies={"north": "random", "south": "random"})


@pytest.mark.parametrize("b", RECORDS, ids=lambda b: b.name)
def test_every_record_says_everything(b):
    """A family that implements it, the reference's text, what it reads and changes."""
    assert b.family in records.FAMILIES
    assert b.doc and "|" not in b.doc and "\n" not in b.doc  # one row of a Markdown table
    assert b.reads in (records.READS_NOTHING, records.READS_POSITIONS, records.READS_ANYTHING)
    assert b.effect in (PURE, records.RANDOM, records.EFFECT)
    if b.effect == PURE:
        assert b.writes == () and not b.chance_point and not b.ends_game
    else:
        # a built-in that changes the game is never memoised: what it reads does not matter
        assert b.writes and b.reads == records.READS_ANYTHING and not b.cheap
        for token in b.writes:
            assert token in TOKENS or (isinstance(token, tuple) and token[0] in ("unit", "side", "hex", "game"))
    assert {name for name, _ in b.defaults} <= {name for name, _ in b.params}


def test_every_family_has_a_module_and_every_module_a_family():
    assert sorted(m.FAMILY for m in FAMILY_MODULES) == sorted(records.FAMILIES)


@pytest.mark.parametrize("module", FAMILY_MODULES, ids=lambda m: m.FAMILY)
def test_each_family_implements_exactly_its_records(game, module):
    """No record without an implementation, no implementation without a record, none in
    another family than its record names."""
    made: dict = {}
    kit = make_kit(game)
    for family in FAMILY_MODULES:  # the ones made before, as make_builtins hands them on
        if family is module:
            break
        made.update(family.make(kit, made))
    implemented = set(module.make(kit, made))
    assert implemented == {b.name for b in RECORDS if b.family == module.FAMILY}


def test_a_game_dispatches_every_record(game):
    assert sorted(game.builtins) == sorted(BUILTINS)
    assert all(callable(f) for f in game.builtins.values())


def test_a_record_without_an_implementation_is_refused(game, monkeypatch):
    extra = dataclasses.replace(BUILTINS["count"], name="count_twice")
    monkeypatch.setattr(runtime_builtins, "BUILTINS", {**BUILTINS, extra.name: extra})
    with pytest.raises(MissingBuiltin, match="built-in count_twice has a record but no implementation"):
        make_builtins(game)


def test_an_implementation_without_a_record_is_refused(game, monkeypatch):
    monkeypatch.setattr(runtime_builtins, "BUILTINS", {n: b for n, b in BUILTINS.items() if n != "count"})
    with pytest.raises(MissingBuiltin, match="built-in count has an implementation but no record"):
        make_builtins(game)


# ---------------------------------------------------------------- what is derived from the records

def test_the_memo_and_the_generated_code_read_the_records():
    for b in RECORDS:
        token = memo.effect_token(b.name)
        if b.effect == PURE:
            assert token is None
        else:
            assert token == (b.writes[0] if len(b.writes) == 1 else memo.Several(b.writes))
    assert memo.effect_token("not_a_built_in") == memo.ANY
    assert {b.name for b in RECORDS if b.gives_int} == {b.name for b in RECORDS if b.returns == INT}
    assert {b.name for b in RECORDS if b.chance_point} == {"roll"}  # the one resume.py answers


def test_the_generated_files_are_what_the_records_say():
    assert builtin_docs.stale() == [], "run python -m hexlore.compiler.builtin_docs --write"


def test_a_changed_record_makes_the_generated_files_stale_until_written(tmp_path, monkeypatch):
    for path in (builtin_docs.LANGUAGE, builtin_docs.GRAMMAR):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / path, tmp_path / path)
    new = records.Builtin("hex_count", (), INT, doc="How many hexes the board has.", family=records.GEOMETRY,
                          reads=records.READS_NOTHING)
    monkeypatch.setattr(builtin_docs, "BUILTINS", {**BUILTINS, new.name: new})
    monkeypatch.setattr(builtin_docs, "ROOT", tmp_path)
    assert sorted(builtin_docs.stale(tmp_path)) == sorted([builtin_docs.LANGUAGE, builtin_docs.GRAMMAR])
    assert builtin_docs.main(["--check"]) == 1
    assert builtin_docs.main(["--write"]) == 0
    assert builtin_docs.stale(tmp_path) == []
    assert "| `hex_count()` | int | pure | How many hexes the board has. |" in \
        (tmp_path / builtin_docs.LANGUAGE).read_text(encoding="utf-8")
    assert "|hex_count|" in (tmp_path / builtin_docs.GRAMMAR).read_text(encoding="utf-8")


def test_the_reference_row_shows_defaults_and_optional_answers():
    assert builtin_docs.row(BUILTINS["move_options"]).startswith(
        "| `move_options(unit: unit, budget: int, cost: fn = none, obstacle: fn = none, stops: fn = none, "
        "passes: fn = none, controls: fn = none, zoc: zoc = ignore)` | list of hex | pure |")
    assert builtin_docs.signature(BUILTINS["max"]) == "max(a: int, b: int, …)"
    assert builtin_docs.returns_text(BUILTINS["pop"]) == "item?"
    assert builtin_docs.returns_text(BUILTINS["unit_at"]) == "unit?"


# ---------------------------------------------------------------- the memo's facts, checked

def _samples(game) -> dict:
    state = game.state
    units = [u for u in state.units.values() if u.hex is not None][:3]
    hexes = [units[0].hex, next(h for h in state.board if not state.occupants.get(h))]
    return {"int": [1, 2], "bool": [True], "hex": hexes, "unit": units[:2], "side": list(state.sides),
            "list": [[1, 2, 1]], "any": [1], "list of hex": [hexes], "enum:zoc": [records.enum_value("zoc", "ignore")]}


def _calls(b, samples) -> list[tuple]:
    """Argument lists for ``b`` (its defaults where it has one), at most 24."""
    choices = []
    for name, t in b.params:
        has, value = b.default(name)
        if has:
            choices.append([value])
        else:
            key = "list" if t.name == "list" and t.item is not None and t.item.name == "any" else str(t)
            choices.append(samples[key])
    return list(itertools.islice(itertools.product(*choices), 24))


def _answers(game, b, samples) -> list:
    impl, out = game.builtins[b.name], []
    for args in _calls(b, samples):
        try:
            out.append(impl(*args))
        except Exception as exc:  # a refusal is an answer too: it must not change either
            out.append(repr(exc))
    return out


def _asked(b) -> bool:
    """Pure, and asks no function of the pack (those are analysed apart)."""
    return b.effect == PURE and not any(t == FN and not b.default(n)[0] for n, t in b.params)


def test_samples_cover_every_parameter_type(game):
    samples = _samples(game)
    for b in RECORDS:
        if _asked(b):
            assert _calls(b, samples), b.name
    assert {INT, BOOL, HEX, UNIT, SIDE} <= {t for b in RECORDS for _, t in b.params}


@pytest.mark.parametrize("reads, changes", [
    # a built-in said to read nothing answers the same whatever changes
    (records.READS_NOTHING, ("begin_turn", "set_terrain", "move", "set_aside", "remove_unit")),
    # one said to read where units stand answers the same when anything else changes
    (records.READS_POSITIONS, ("begin_turn", "set_terrain")),
])
def test_what_a_record_says_it_reads_is_all_it_reads(battlelore, reads, changes):
    scenario, _ = load_scenario(SPIDER_FORD)
    game = Game(battlelore, scenario, seed=3, policies={"north": "random", "south": "random"})
    state, do = game.state, game.builtins
    samples = _samples(game)
    checked = [b for b in RECORDS if b.reads == reads and _asked(b)]
    assert len(checked) > 5
    before = {b.name: _answers(game, b, samples) for b in checked}
    seen = [do["units"](), dict(state.hex_fields[samples["hex"][1]]), state.game["turn"]]
    units = [u for u in state.units.values() if u.hex is not None]
    free = [h for h in state.board if not state.occupants.get(h)]
    terrains = [d for d in battlelore.definitions.values() if d.kind == "terrain"]
    change = {"begin_turn": lambda: do["begin_turn"](state.sides[1]),
              "set_terrain": lambda: do["set_terrain"](samples["hex"][1], terrains[-1]),
              "move": lambda: do["move"](units[0], free[5]),
              "set_aside": lambda: do["set_aside"](units[1]),
              "remove_unit": lambda: do["remove_unit"](units[2])}
    for name in changes:
        change[name]()
        after = {b.name: _answers(game, b, samples) for b in checked}
        assert [b for b in before if after[b] != before[b]] == [], f"after {name}"
    # the changes were real: where the units stand, a terrain, the turn
    now = [do["units"](), dict(state.hex_fields[samples["hex"][1]]), state.game["turn"]]
    assert [a != b for a, b in zip(seen, now)] == [len(changes) > 2, True, True]
