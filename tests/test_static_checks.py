"""Static checks of the compiler and parser: each diagnostic, its bounds, and the docs that show them.

The golden fixtures (tests/test_error_fixtures.py) pin one located diagnostic per problem;
these tests pin what the fixtures cannot: what is *not* reported (bounded cycles, public
events, definitions), messages and hints, recovery inside a block, and that every example
in docs/diagnostics.md prints exactly what the page says it prints.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import compile_text
from hexlore import api
from hexlore.cli import main
from hexlore.compiler.graph import Edge, EventTriggerGraph

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "diagnostics.md"
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "errors"


def codes(rules, severity: str | None = None) -> list[str]:
    return [d.code for d in rules.diagnostics if severity is None or d.severity.value == severity]


def compile_pack(tmp_path: Path, body: str, uses_core: bool = False):
    head = "pack demo.check\n" + ("use battlelore.core\n" if uses_core else "")
    return compile_text(tmp_path, head + body)


# ---------------------------------------------------------------- the docs are real output
def _doc_sections() -> list[tuple[str, str]]:
    text = DOCS.read_text(encoding="utf-8")
    start, end = text.index("## Syntax errors (P)"), text.index("## Scenario problems (S)")
    parts = re.split(r"^### ([PCWN]\d{3})\b.*$", text[start:end], flags=re.M)
    return list(zip(parts[1::2], parts[2::2]))


SECTIONS = _doc_sections()


@pytest.mark.parametrize("code, body", SECTIONS, ids=[c for c, _ in SECTIONS])
def test_docs_show_the_real_output_of_each_example(code, body, tmp_path, monkeypatch):
    blocks = re.findall(r"^```(lore|text)\n(.*?)^```", body, re.S | re.M)
    lore = [b for kind, b in blocks if kind == "lore"]
    shown = next(b for kind, b in blocks if kind == "text").rstrip("\n")
    assert f"[{code}]" in shown, f"the example output of {code} does not show {code}"
    if not lore:  # P009: the example is too long to print whole; its headline is still real
        return
    monkeypatch.chdir(tmp_path)
    paths = []
    for block in lore:
        first = block.splitlines()[0]
        path = first.removeprefix("# file: ") if first.startswith("# file: ") else "example.lore"
        text = block.split("\n", 1)[1] if first.startswith("# file: ") else block
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(text.rstrip("\n") + ("\n" if "end of file" not in body else ""), encoding="utf-8")
        paths.append(path)
    diagnostics, sources = api.check(paths)
    assert "\n".join(d.render(sources.get(d.file)) for d in diagnostics) == shown


def test_every_p_c_w_n_code_in_the_source_has_a_doc_section():
    from test_error_fixtures import SOURCE_CODES

    documented = {c for c, _ in SECTIONS}
    assert [c for c in SOURCE_CODES if c[0] in "PCWN" and c not in documented] == []


# ---------------------------------------------------------------- all problems in one run
def test_five_unrelated_mistakes_give_five_sorted_diagnostics_in_one_run():
    result = CliRunner().invoke(main, ["check", "--format", "text", str(FIXTURES / "five_unrelated_mistakes.lore")])
    heads = re.findall(r"^\S+:(\d+):(\d+): (error|warning|note)\[([A-Z]\d{3})\]", result.output, re.M)
    assert [h[3] for h in heads] == ["P004", "C004", "C003", "P007", "C017"]
    positions = [(int(line), int(col)) for line, col, _, _ in heads]
    assert positions == sorted(positions) and result.exit_code == 1


def test_diagnostics_of_several_files_are_sorted_by_file_line_and_column(tmp_path):
    (tmp_path / "b.lore").write_text("pack b\nfunction f() -> int = nope\nprocedure p( {\n")
    (tmp_path / "a.lore").write_text("pack a\nfunction g() -> int = 1 +\n")
    diagnostics, _ = api.check([str(tmp_path / "b.lore"), str(tmp_path / "a.lore")])
    keys = [(Path(d.file).name, d.span.line, d.span.column) for d in diagnostics]
    assert keys == sorted(keys) and [k[0] for k in keys][:1] == ["a.lore"]


def test_recovery_keeps_the_procedure_and_checks_the_statements_after_the_error(tmp_path):
    rules = compile_pack(tmp_path, "procedure p(n: int) {\n  let x = (n + )\n  let y = nope\n}\n")
    assert codes(rules) == ["P001", "C003"]  # the name after the broken statement is still resolved


def test_names_in_dropped_text_are_not_reported_again(tmp_path):
    # 'helper' is declared in the broken declaration: its uses are not 'undefined' too
    rules = compile_pack(tmp_path, "function helper(n: int) -> int = n +\n"
                                   "function other(n: int) -> int = helper(n)\n")
    assert codes(rules, "error") == ["P001"]


def test_a_misspelt_name_does_not_make_its_target_unused(tmp_path):
    rules = compile_pack(tmp_path, "function doubled(n: int) -> int = 2 * n\n"
                                   "function twice(n: int) -> int = doubeld(n)\n"
                                   "procedure go() { let x = twice(1) }\n")
    assert codes(rules) == ["C003"]


# ---------------------------------------------------------------- names, overrides, types
@pytest.mark.parametrize("body, code, words", [
    ("die d { face a value 1 face a value 2 }\nprocedure p() { let r = roll(1, d) }", "C002", "two different faces named 'a'"),
    ("table t: int -> int { 1: 2, 1: 3 }\nfunction f() -> int = t[1]", "C002", "two entries for '1'"),
    ("kind k { a: int }\nk x { a: 1 a: 2 }", "C002", "sets 'a' twice"),
    ("trait t { a: 1 a: 2 }", "C002", "sets 'a' twice"),
    ("option o: int = 1 \"x\"\noption o: int = 2 \"x\"\nfunction f() -> int = o", "C002", "already declared"),
    ("kind unit { }", "C002", "built-in kind"),
    ("override option o: int = 1 \"x\"\nfunction f() -> int = o", "C012", "overrides nothing"),
    ("function f(u: unit) -> bool = self.alive", "C017", "no 'self'"),
    ("event e(n: int)\ntrigger t on e { m += 1 }\nprocedure p() { emit e(n: 1) }", "C008", "'m' is not a variable"),
    ("event e(n: int)\nevent g(m: int)\ntrigger t on e { m += 1 }\nprocedure p() { emit e(n: 1) }\n"
     "trigger h on g { stop }\nprocedure q() { emit g(m: 1) }", "C017", "no argument 'm'"),
    ("function f(n: int) -> int = (0 if n <= 0 else f(n - 1))", "C015", "functions call each other"),
    ("trait a is b { }\ntrait b is a { }", "C015", "traits include each other"),
    ("function f(h: hex) -> bool = h is plain", "C004", "'is' needs a unit"),
    ("die d { faces 1..6 }\nfunction f(u: unit) -> bool = u is d", "C004", "'d' is a die"),
])
def test_static_check_messages(tmp_path, body, code, words):
    rules = compile_pack(tmp_path, body)
    found = [d for d in rules.diagnostics if d.code == code]
    assert found and words in found[0].message, [d.headline() for d in rules.diagnostics]
    assert found[0].hint, "every static check says how to fix it"


@pytest.mark.parametrize("body, hint", [
    ("die d { faces 1..6 }\nfunction f() -> int = d", "roll it"),
    ("function f(u: unit) -> list of hex = u.hex", "[value]"),
    ("function f(u: unit) -> int = distance(u, u.hex)", "u.hex"),
    ("function f(us: list of unit) -> unit = us", "first(list)"),
    ("function f(b: bool) -> int = b", "(1 if CONDITION else 0)"),
    ("function f(us: list of unit) -> int = us", "count(list)"),
])
def test_type_mismatches_say_how_to_get_the_expected_value(tmp_path, body, hint):
    rules = compile_pack(tmp_path, body + "\n")
    [d] = [d for d in rules.diagnostics if d.is_error]
    assert d.code == "C004" and hint in d.hint


def test_missing_arguments_are_one_diagnostic_listing_them_all(tmp_path):
    rules = compile_pack(tmp_path, "event e(a: int, b: int, c: int = 0)\ntrigger t on e { stop }\n"
                                   "procedure p() { emit e() }\n")
    [d] = [d for d in rules.diagnostics if d.is_error]
    assert d.code == "C006" and "'a' and 'b'" in d.message and "c" not in d.message.split("needs")[1]


@pytest.mark.parametrize("body, problem", [
    ("override function banners_to_win() -> int = 3", "its override is a function"),
    ("override option banners_to_win: bool = true \"x\"", "changes its signature"),
    ("option banners_to_win: int = 6 \"x\"", "without 'override'"),
])
def test_overrides_must_be_deliberate_and_keep_sort_and_signature(tmp_path, body, problem):
    rules = compile_pack(tmp_path, body + "\n", uses_core=True)
    [d] = [d for d in rules.diagnostics if d.is_error]
    assert d.code == "C012" and problem in d.message


def test_every_declared_override_gets_a_note(tmp_path):
    rules = compile_pack(tmp_path, "override option banners_to_win: int = 6 \"x\"\n"
                                   "override function melee_dice(u: unit) -> int = 1\n", uses_core=True)
    notes = [d for d in rules.diagnostics if d.code == "N001"]
    assert len(notes) == 2 and rules.ok
    assert all("core.lore:" in d.message and "battlelore.core" in d.message for d in notes)


# ---------------------------------------------------------------- event cycles
def _cycle(tmp_path, triggers: str, event: str = "event e(n: int, u: unit)",
           start: str = "procedure go(u: unit) { emit e(n: 3, u: u) }"):
    return compile_pack(tmp_path, f"fields unit {{ done: bool = false\n uses: int = 0\n charges: int = 3 }}\n"
                                  f"{event}\n{triggers}\n{start}\n")


@pytest.mark.parametrize("triggers", [
    "trigger t on e { emit e(n: n, u: u) }",
    "trigger t on e { let x = 1\n emit e(n: n - 1, u: u) }",
    "trigger t before e { emit e(n: n, u: u) }",
    "trigger t on e { repeat 2 { emit e(n: n, u: u) } }",
    "trigger t on e { if true and u.done { stop } else { stop }\n emit e(n: n, u: u) }",
])
def test_a_cycle_nothing_can_stop_is_an_error(tmp_path, triggers):
    rules = _cycle(tmp_path, triggers)
    assert "C016" in codes(rules) or "W002" in codes(rules)
    if "if true" not in triggers:
        assert "C016" in codes(rules), [d.headline() for d in rules.diagnostics]


@pytest.mark.parametrize("triggers", [
    "trigger t on e if n > 0 { emit e(n: n - 1, u: u) }",                      # counter in the guard
    "trigger t on e { if n >= 1 { emit e(n: n - 2, u: u) } }",                  # counter around the emit
    "trigger t on e if not u.done { u.done = true\n emit e(n: n, u: u) }",     # bool latch
    "trigger t on e if u.done == false { u.done = true\n emit e(n: n, u: u) }",
    "trigger t on e if u.charges > 0 { u.charges -= 1\n emit e(n: n, u: u) }",  # counting down a field
    "trigger t on e if u.uses < 3 { u.uses += 1\n emit e(n: n, u: u) }",        # counting up to a bound
    "trigger t on e if game.round > 0 and not u.done { u.done = true\n"
    " for each f in units() { emit e(n: n, u: f) } }",                          # a latch per unit
])
def test_a_bounded_cycle_is_not_reported(tmp_path, triggers):
    rules = _cycle(tmp_path, triggers)
    assert not {"C016", "W002"} & set(codes(rules)), [d.headline() for d in rules.diagnostics]


@pytest.mark.parametrize("triggers", [
    "trigger t on e if n > 0 { emit e(n: n, u: u) }",                           # the counter never drops
    "trigger t on e { if u.done { emit e(n: n - 1, u: u) } }",                  # a condition, not a bound
    "trigger t on e if not u.done { emit e(n: n, u: u)\n u.done = true }",     # set after the emit
    "trigger t on e if not u.done { u.done = true\n emit e(n: n, u: u) }\n"
    "trigger r after e { u.done = false }",                                     # reopened during the cascade
    "trigger t on e if n > 0 { emit e(n: n - 1, u: u) }\n"
    "trigger bump before e { n += 5 }",                                         # a before trigger raises it
    "trigger t on e if n > 0 { let n = 9\n emit e(n: n - 1, u: u) }",          # shadowed counter
    "trigger t on e if n > 0 { emit e(n: n - 1, u: u) }\ntrigger t2 instead of e if u.done { stop }\n"
    "trigger t3 on e if u.uses > 0 { emit e(n: n + 1, u: u) }",                # another path climbs back up
])
def test_a_cycle_with_conditions_but_no_bound_is_a_warning(tmp_path, triggers):
    rules = _cycle(tmp_path, triggers)
    assert "W002" in codes(rules) and "C016" not in codes(rules), [d.headline() for d in rules.diagnostics]


def test_the_cycle_error_names_the_triggers_in_order(tmp_path):
    rules = compile_pack(tmp_path, "event a()\nevent b()\nevent c()\n"
                                   "trigger one on a { emit b() }\ntrigger two on b { emit c() }\n"
                                   "trigger three on c { helper() }\nprocedure helper() { emit a() }\n"
                                   "procedure go() { emit a() }\n")
    [d] = [d for d in rules.diagnostics if d.code == "C016"]
    assert "'one' emits 'b' → 'two' emits 'c' → 'three' emits 'a' → 'one'" in d.message
    assert d.span.line == 5  # located at the first trigger of the cycle


def test_a_break_inside_an_if_can_end_a_cycle(tmp_path):
    """The checks read the bodies of an if's branches too: the break below may leave the repeat
    before the emit, so the cycle is not certainly endless (it was reported as C016)."""
    rules = compile_pack(tmp_path, "event tick(n: int)\n"
                                   "trigger loop on tick {\n  repeat 1 {\n    if n > 2 { break }\n"
                                   "    emit tick(n: n + 1)\n  }\n}\n"
                                   "procedure start() { emit tick(n: 0) }\n")
    assert "C016" not in codes(rules) and "W002" in codes(rules), [d.headline() for d in rules.diagnostics]


def test_a_counter_passed_round_a_longer_cycle_bounds_it(tmp_path):
    rules = compile_pack(tmp_path, "event a(n: int)\nevent b(m: int)\n"
                                   "trigger one on a { emit b(m: n) }\n"
                                   "trigger two on b if m > 0 { emit a(n: m - 1) }\n"
                                   "procedure go() { emit a(n: 5) }\n")
    assert not {"C016", "W002"} & set(codes(rules))


# ---------------------------------------------------------------- unheard, unused, never fires
def test_a_trigger_fed_only_by_a_dead_trigger_never_fires(tmp_path):
    rules = compile_pack(tmp_path, "event a()\nevent b() \"x\"\ntrigger one on a { emit b() }\n"
                                   "trigger two on b { stop }\n")
    messages = [d.message for d in rules.diagnostics if d.code == "W001"]
    assert len(messages) == 2 and "only by triggers that can never fire (one)" in messages[1]


def test_emitted_events_need_a_listener_or_a_description(tmp_path):
    rules = compile_pack(tmp_path, "event quiet(n: int)\nevent logged(n: int) \"For the log\"\n"
                                   "procedure p() {\n emit quiet(n: 1)\n emit logged(n: 1)\n}\n")
    [d] = [d for d in rules.diagnostics if d.code == "W003"]
    assert "'quiet'" in d.message and "procedure p" in d.message and "describe it" in d.hint
    assert rules.events["logged"].doc == "For the log"


def test_unused_declarations_are_warned_but_not_what_scenarios_use(tmp_path):
    rules = compile_pack(tmp_path, "kind spell { cost: int }\nspell bolt \"Bolt\" { cost: 1 }\n"
                                   "unit wolf \"Wolf\" { banner: green }\nterrain marsh \"Marsh\" { }\n"
                                   "fields unit { howls: int = 0 }\n"
                                   "function unused(n: int) -> int = n\noption unread: int = 1 \"x\"\n"
                                   "table lonely: int -> int { 1: 1 }\ntag loose\nenum mood { calm }\n"
                                   "trait brave { }\n", uses_core=True)
    unused = sorted(re.search(r"'(\w+)'", d.message).group(1) for d in rules.diagnostics if d.code == "W004")
    assert unused == ["brave", "lonely", "loose", "mood", "unread", "unused"]


def test_a_procedure_is_unused_only_when_there_is_a_game(tmp_path):
    library = compile_pack(tmp_path, "procedure open_chest(n: int) { let x = n }\n")
    assert "W004" not in codes(library)  # no game: procedures are entry points for tests and other packs
    game = compile_pack(tmp_path, "procedure open_chest(n: int) { let x = n }\n", uses_core=True)
    assert "W004" in codes(game)


def test_a_described_procedure_and_a_runtime_hook_are_never_unused(tmp_path):
    rules = compile_pack(tmp_path, 'procedure open_chest(n: int) "test entry: open a chest" { let x = n }\n'
                                   "function may_occupy(u: unit, h: hex) -> bool = true\n"
                                   "function helper(n: int) -> int = n\n", uses_core=True)
    unused = sorted(re.search(r"'(\w+)'", d.message).group(1) for d in rules.diagnostics if d.code == "W004")
    assert unused == ["helper"]


def test_the_bundled_packs_and_scenarios_are_clean_with_strict():
    diagnostics, _ = api.check([str(ROOT / "rules"), str(ROOT / "scenarios")])
    assert [d.headline() for d in diagnostics if d.severity.value != "note"] == []


# ---------------------------------------------------------------- the graph in three formats
def test_graph_json_lists_nodes_edges_and_dispatch():
    result = CliRunner().invoke(main, ["graph", "battlelore", "--format", "json"])
    data = json.loads(result.output)
    ids = {n["id"] for n in data["nodes"]}
    assert {"event:hit", "trigger:critical_hit", "procedure:strike", "game:round"} <= ids
    assert all(e["from"] in ids and e["to"] in ids for e in data["edges"])
    # every pack of the folder: the creatures' critical hit, and the hero packs' own
    assert "critical_hit" in data["dispatch"]["hit"]["instead"]


def test_graph_dot_is_well_formed():
    out = CliRunner().invoke(main, ["graph", "battlelore", "--format", "dot"]).output.strip().splitlines()
    assert out[0] == "digraph lore {" and out[-1] == "}"
    body = out[1:-1]
    node = re.compile(r'^  "[^"]+" \[label="[^"]+", shape=\w+\];$')
    edge = re.compile(r'^  "[^"]+" -> "[^"]+" \[label="(listens|emits|calls)"\];$')
    assert all(node.match(line) or edge.match(line) for line in body), body[:3]
    assert '  "trigger:critical_hit" -> "event:hit" [label="listens"];' in body


def test_graph_mermaid_is_well_formed():
    out = CliRunner().invoke(main, ["graph", "battlelore", "--format", "mermaid"]).output.strip().splitlines()
    assert out[0] == "flowchart LR"
    node = re.compile(r'^  n\d+(\(\[|\[)"[^"]+"(\]\)|\])$')
    edge = re.compile(r"^  n\d+ -->\|(listens|emits|calls)\| n\d+$")
    assert all(node.match(line) or edge.match(line) for line in out[1:]), out[1:4]
    assert any('"trigger critical_hit"' in line for line in out)


def test_dot_and_mermaid_escape_any_name():
    nasty = 'a "quoted" | {brace} [x] <y> # \\ end'
    g = EventTriggerGraph(events=[nasty], triggers=["end"], edges=[Edge("trigger:end", f"event:{nasty}", "listens")])
    dot = g.to_dot()
    assert '"event:a \\"quoted\\" | {brace} [x] <y> # \\\\ end"' in dot
    assert all(line.count('"') % 2 == 0 for line in dot.splitlines())
    mermaid = g.to_mermaid()
    labels = re.findall(r'"([^"]*)"', mermaid)
    assert all(not set(label) & set('"|[]{}<>') for label in labels)
    assert "#34;quoted#34;" in mermaid and "n1[" in mermaid  # 'end' is a label, never an id


def test_field_a_pack_adds_is_required_only_where_that_pack_is_seen():
    """battlelore.core adds 'banner' (no default) to unit; the tick-clock characters do not use
    battlelore, so compiled in one rule set with it they need not set it (no C013), while
    battlelore's own unit types still must."""
    from hexlore.compiler import compile_packs

    rules = compile_packs(["battlelore.core", str(ROOT / "scenarios" / "tickclock" / "characters.lore")])
    assert "C013" not in codes(rules)
    assert rules.kinds["unit"].fields["banner"].pack == "battlelore.core"
    assert any(d.pack == "tickclock.characters" for d in rules.definitions_of("unit"))
