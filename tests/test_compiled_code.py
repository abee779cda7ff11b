"""The Python generated from the rules (hexlore/compiler/backend): no text of a rule file
ever reaches a position where Python reads code.

Issue 14 allows generated code on one condition: it is built as ``ast`` nodes, every
identifier is made by the compiler, and every value from a pack or scenario enters as a
constant. Two properties prove it here:

* every identifier of the generated modules (of the bundled packs and of fuzzed packs) has
  one of the compiler's own shapes, and every attribute is one the compiler chooses;
* renaming everything a pack names (fuzzed names, including Python keywords, builtins and
  the compiler's own identifiers) and changing every text it holds gives the *same*
  generated code, constant for constant aside: names and texts never shape the code.
"""

from __future__ import annotations

import ast
import io
import keyword
import re

from hypothesis import given, settings, strategies as st

from conftest import ROOT
from hexlore.compiler import compile_packs
from hexlore.compiler.backend.program import generate_module
from hexlore.runtime.engine.compiled.program import compiled
from hexlore.runtime.engine.game import Game
from hexlore.runtime.scenarios.loader import load_scenario_text

COMPILER_NAMES = re.compile(r"R|F|x|[vtk]\d+|t_[a-z]+|(fn|mf|pr|tr|ev|bk|ag|te|ch|ak|sc|sa|cx|rp|rt|re|rb)_\d+|h_[a-z_]+")
#: the attributes generated code reads: of the game's context, of units, sides, hexes, faces,
#: definitions, events, memo plans, and of the few Python objects it uses (dict.get, list.append)
ATTRIBUTES = {"options", "tables", "game", "board", "label", "hex_fields", "game_fields", "definition_values",
              "load_definition", "builtins", "forget", "plans", "memo", "on", "depth", "decide", "too_deep",
              "events", "record_event", "forget_event", "hex", "side", "id", "alive", "definition", "title", "f", "name",
              "edge", "q", "r", "value", "die", "args", "replaced", "table", "active", "hits", "missed",
              "get", "append", "spend", "event", "state", "journal", "tags", "set", "stack", "result", "extend", "left", "__class__",
              "budget"}


def identifiers(tree: ast.AST) -> tuple[set[str], set[str]]:
    """The names (variables, functions, parameters) and the attributes a module uses."""
    names: set[str] = set()
    attributes: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Attribute):
            attributes.add(node.attr)
        elif isinstance(node, (ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal, ast.Lambda, ast.ClassDef)):
            names.add(f"<{type(node).__name__}>")  # never generated: fails the shape check
        elif isinstance(node, ast.keyword) and node.arg is not None:
            names.add(node.arg)
    return names, attributes


def assert_compiler_made(tree: ast.Module) -> None:
    names, attributes = identifiers(tree)
    strangers = sorted(n for n in names if not COMPILER_NAMES.fullmatch(n))
    assert strangers == [], strangers
    assert attributes <= ATTRIBUTES, sorted(attributes - ATTRIBUTES)


def test_the_bundled_packs_compile_to_compiler_made_names_only():
    for pack in ["battlelore", "westeros", "tickclock", "skirmish"]:
        rules = compile_packs([str(ROOT / "rules" / pack)])
        assert rules.ok
        tree = generate_module(rules)
        assert len(tree.body) > 50
        assert_compiler_made(tree)


def test_generated_functions_see_no_builtins(battlelore):
    body = compiled(battlelore).procedures["melee_attack"][0]
    assert body.__globals__["__builtins__"] == {}
    assert all(COMPILER_NAMES.fullmatch(n) or n == "__builtins__" for n in body.__globals__)


# ---------------------------------------------------------------- fuzzed names and texts
#: a pack using every kind of IR node; {0}, {1}… are the names it declares, {t0}… its texts
TEMPLATE = """pack {0}.{1}
enum {2} {{ {3}, {4} }}
option {5}: {2} = {3} "{t0}"
option {6}: int = 2 "{t1}"
fields unit {{ {7}: int = 1, {8}: list of int = [] }}
fields game {{ {9}: int = 0 }}
kind {10} {{ {11}: int }}
{10} {12} "{t2}" {{ {11}: 3 }}
table {13}: int -> int {{ 1: 10, 2: 20 }}
die {14} "{t3}" {{ face {15} face {16} }}
unit {17} "{t4}" {{ }}
event {18}({19}: unit, {20}: int) "{t5}"
function {21}({22}: unit, {23}: int) -> int = {22}.{7} + {23} * 2 - {13}[1] / 5
function {24}({25}: list of int) -> int = sum(each {26} in {25} where {26} > 0: {26} + {6})
function {27}({28}: unit) -> bool = {28}.{7} >= 1 and not ({5} == {4})
procedure {29}({30}: unit) -> int "{t6}" {{
  let {31} = roll(2, {14})
  let {32} = count(each {33} in {31} where {33} is {15})
  {30}.{8} += [{32}]
  for each {34} in range(1, 3) {{
    if {34} == 2 {{ break }}
    {30}.{7} += {21}({30}, {34})
  }}
  repeat {6} {{ game.{9} += 1 }}
  let {35} = choose {36}({37} in [1, 2, 3] by {30}.side prefer {37} default 2)
  if ask {38}(by {30}.side prefer {30}.{7} > {35} default true) {{ {30}.{7} -= 1 }}
  let {39} = emit {18}({19}: {30}, {20}: {35} + {24}({30}.{8}))
  if {27}({30}) {{ return {39}.{20} }}
  return ({12}.{11} if {30} is {17} else 0)
}}
trigger {40} before {18} {{ {20} = {20} + 1 }}
trigger {41} on {18} if {19}.{7} > 0 {{ game.{9} += {20} }}
trigger {42} after {18} {{
  if {20} > 100 {{ stop }}
  game.{9} -= 1
}}
"""
NAMES = 43
TEXTS = 7

LORE_WORDS = {"pack", "use", "unit", "kind", "trait", "fields", "event", "trigger", "function", "procedure",
              "option", "table", "die", "face", "faces", "enum", "game", "let", "if", "else", "for", "each", "in",
              "repeat", "break", "stop", "return", "emit", "choose", "ask", "by", "prefer", "default", "where",
              "and", "or", "not", "is", "true", "false", "none", "on", "before", "after", "instead", "override",
              "list", "of", "int", "bool", "text", "hex", "side", "tag", "fn", "any", "mod", "super", "campaign",
              "aftermath", "setup", "round", "end", "priority", "optional"}
#: names that would do harm if they reached code: Python's keywords and builtins, and the
#: compiler's own identifiers
HOSTILE = ["R", "v0", "v1", "t0", "k0", "fn_0", "pr_1", "h_number", "h_list", "getattr", "__import__",
           "__builtins__", "eval", "exec", "open", "self", "print", "os", "sys", "t_args", "h_budget",
           *keyword.kwlist]

names = st.one_of(st.sampled_from(HOSTILE), st.from_regex(r"[a-z_][a-z0-9_]{0,10}", fullmatch=True)).filter(
    lambda n: n not in LORE_WORDS)
texts = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=20).map(
    lambda t: t.replace("\\", "").replace('"', ""))


def _fill(chosen: list[str], words: list[str]) -> str:
    return TEMPLATE.format(*chosen, **{f"t{i}": w for i, w in enumerate(words)})


def _usable(chosen: list[str]) -> bool:
    return len(set(chosen)) == len(chosen) and not LORE_WORDS & set(chosen)


def _without_constants(tree: ast.AST) -> str:
    class Blank(ast.NodeTransformer):
        def visit_Constant(self, node):
            return ast.Constant("·")
    return ast.dump(Blank().visit(tree))


def _compile(text: str, folder):
    path = folder / "fuzz.lore"
    path.write_text(text, encoding="utf-8")
    return compile_packs([str(path)])


BASE = [f"n{i}" for i in range(NAMES)]
BASE_TEXTS = [f"text {i}" for i in range(TEXTS)]


def test_the_template_compiles_and_runs(tmp_path):
    rules = _compile(_fill(BASE, BASE_TEXTS), tmp_path)
    assert rules.ok, [d.headline() for d in rules.diagnostics if d.is_error]
    scenario, problems = load_scenario_text(
        "hexlore: 1\nname: fuzz\npacks: [n0.n1]\nboard: {shape: hexagon, radius: 1}\n"
        "sides: [{name: a, edge: top, policy: first}, {name: b, edge: bottom, policy: first}]\n"
        "units: [{id: x, type: n17, side: a, hex: '0,0'}]\n", str(tmp_path / "s.yaml"), rules)
    assert scenario is not None, problems
    log = io.StringIO()
    game = Game(rules, scenario, seed=3, log_file=log)
    result = game.guarded(game.call_procedure, "n29", [game.state.units["x"]])
    assert isinstance(result, int) and '"event":"n18"' in log.getvalue()


def test_hostile_names_give_the_same_code(tmp_path):
    """Python's keywords and builtins and the compiler's own identifiers, as every name."""
    chosen = [n for n in HOSTILE if n not in LORE_WORDS][:NAMES]
    chosen += [f"{HOSTILE[i % len(HOSTILE)]}_{i}" for i in range(NAMES - len(chosen))]
    words = ["__import__('os')", "'); import os; ('", "</script><!--", "{}", "%s", "R.game", "$(id)"][:TEXTS]
    (tmp_path / "hostile").mkdir()
    fuzzed = _compile(_fill(chosen, words), tmp_path / "hostile")
    assert fuzzed.ok, [d.headline() for d in fuzzed.diagnostics if d.is_error]
    plain = _compile(_fill(BASE, BASE_TEXTS), tmp_path)
    assert _without_constants(generate_module(fuzzed)) == _without_constants(generate_module(plain))


@settings(max_examples=25, deadline=None, derandomize=True)
@given(st.lists(names, min_size=NAMES, max_size=NAMES, unique=True), st.lists(texts, min_size=TEXTS, max_size=TEXTS))
def test_names_and_texts_never_shape_the_code(tmp_path_factory, chosen, words):
    if not _usable(chosen):
        return
    folder = tmp_path_factory.mktemp("fuzz")
    fuzzed = _compile(_fill(chosen, words), folder)
    if not fuzzed.ok:  # a name the language refuses (a built-in's, a type's): nothing generated
        return
    plain = _compile(_fill(BASE, BASE_TEXTS), tmp_path_factory.mktemp("plain"))
    fuzzed_tree, plain_tree = generate_module(fuzzed), generate_module(plain)
    assert_compiler_made(fuzzed_tree)
    assert _without_constants(fuzzed_tree) == _without_constants(plain_tree)


INT_PACK = """pack demo.ints
fields unit { hp: int = 3, hurt: bool = false }
function step(u: unit) -> int = 1 + (1 if u.hurt else 0)
function lost(u: unit) -> int = -(2 if u.hurt else 3)
function floor() -> int = -3
unit dummy "Dummy" { }
"""


def test_int_branches_and_negative_literals_check_no_class(tmp_path):
    """A conditional whose two branches are ints is known to be one (arithmetic on it checks no
    class) and a negative literal is a constant: the generated code says so, and the answers
    are those of the rules."""
    from conftest import demo_pack
    from test_memo import SCENARIO

    rules, scenario = demo_pack(tmp_path, INT_PACK, SCENARIO.replace("demo.memo", "demo.ints"))
    text = ast.unparse(generate_module(rules))
    assert "h_as_number" not in text and "h_number" not in text
    assert "return -3" in text
    game = Game(rules, scenario)
    u = game.state.units["u"]
    assert [game.call_function(f, [u]) for f in ("step", "lost")] == [1, -3]
    u.f["hurt"] = True
    assert [game.call_function(f, [u]) for f in ("step", "lost")] == [2, -2]
    assert game.call_function("floor", []) == -3
