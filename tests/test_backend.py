"""The compiler's backend (hexlore/compiler/backend, hexlore/compiler/memo_plan.py): a finished
rule set is frozen, its generated code and memo analyses are made on first use and kept on it
(not in module dicts keyed by ``id(rules)``), and the runtime binds every helper the code names."""

from __future__ import annotations

import gc
import re
import weakref
from dataclasses import FrozenInstanceError

import pytest

from conftest import ROOT
from hexlore.compiler import compile_packs
from hexlore.compiler.backend import program as backend
from hexlore.compiler.memo_plan import memo_plan
from hexlore.runtime.engine.compiled.program import RUNTIME_NAMES, compiled
from hexlore.runtime.engine.game import Game
from hexlore.runtime.scenarios.loader import load_scenario

PACKS = ["battlelore", "westeros", "tickclock", "skirmish"]
SCENARIO = ROOT / "scenarios" / "skirmish" / "village_raid.yaml"


@pytest.fixture()
def counted_builds(monkeypatch):
    """How many times the backend generated a rule set's code (in this test)."""
    calls = []
    build = backend.Program.build

    def counting(self):
        calls.append(self.rules)
        return build(self)
    monkeypatch.setattr(backend.Program, "build", counting)
    return calls


@pytest.mark.parametrize("attribute, value", [("functions", {}), ("diagnostics", []), ("game", None),
                                              ("new_attribute", 1)])
def test_a_compiled_rule_set_is_frozen(attribute, value):
    rules = compile_packs([str(ROOT / "rules" / "tickclock")])
    assert rules.ok and rules.frozen
    with pytest.raises(FrozenInstanceError, match="frozen once compiled"):
        setattr(rules, attribute, value)


def test_compiling_generates_no_code_and_the_first_game_generates_it_once(counted_builds):
    rules = compile_packs([str(ROOT / "rules" / "skirmish")])
    assert counted_builds == []
    scenario, problems = load_scenario(SCENARIO)
    assert scenario is not None, problems
    assert counted_builds == []
    for seed in range(3):
        Game(rules, scenario, seed=seed)
    assert counted_builds == [rules]


def test_what_is_derived_is_kept_on_the_rule_set_and_dies_with_it():
    rules = compile_packs([str(ROOT / "rules" / "tickclock")])
    assert compiled(rules) is compiled(rules)
    assert backend.generated(rules) is backend.generated(rules)
    assert memo_plan(rules) is memo_plan(rules)
    other = compile_packs([str(ROOT / "rules" / "tickclock")])
    assert compiled(other) is not compiled(rules)  # equal rules, their own code
    gone = weakref.ref(compiled(rules))
    del rules
    gc.collect()
    assert gone() is None


@pytest.mark.parametrize("pack", PACKS)
def test_every_helper_the_generated_code_names_is_bound_by_the_runtime(pack):
    rules = compile_packs([str(ROOT / "rules" / pack)])
    code = backend.generated(rules)
    resumable = code.resumable()
    names = backend.free_names(code.code) | backend.free_names(resumable.code)
    helpers = {n for n in names if n.startswith("h_")}
    assert helpers and helpers <= set(RUNTIME_NAMES), sorted(helpers - set(RUNTIME_NAMES))
    # and the constants are all handed over with the code
    constants = {n for n in names if n[0] == "k" and n[1:].isdigit()}
    assert constants <= set(resumable.constants)



def test_nothing_is_cached_by_the_address_of_a_rule_set():
    """An address is reused once a rule set is freed: a cache keyed by it can answer for the
    wrong rules. What is derived from a rule set lives on it (RuleSet.derived)."""
    offenders = [f"{path.relative_to(ROOT)}:{number}" for path in (ROOT / "hexlore").rglob("*.py")
                 for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                 if re.search(r"\bid\((self\.|game\.)?rules\)", line) and "``id(rules)``" not in line]
    assert offenders == []
