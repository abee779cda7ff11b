"""The Lore grammar and parser: LALR-clean, spans on every node, friendly syntax errors."""

from __future__ import annotations

import dataclasses

import pytest

from hexlore.dsl import ast
from hexlore.diagnostics import DiagnosticError, Source
from hexlore.dsl.parser import lark_parser, parse, parse_with_diagnostics


def test_grammar_is_lalr_without_conflicts_in_strict_mode():
    # strict=True turns every shift/reduce conflict and terminal collision into an error
    parser = lark_parser(strict=True)
    assert parser.options.parser == "lalr"


SAMPLE = """pack demo.sample
use battlelore.core
enum mood { calm, angry }
tag shiny
die coin { face heads is shiny face tails }
die d6 { faces 1..6 }
fields unit { mood: mood = calm }
trait fierce { mood: angry }
unit wolf "Loup" is fierce { banner: green }
option wolves: int = 3 "How many wolves"
table bite: mood -> int { calm: 1, angry: 2 }
function bite_dice(u: unit) -> int = bite[u.mood] + (1 if u is fierce else 0)
event howl(by: unit, volume: int = 1)
trigger echo after howl if volume > 1 priority 2 {
  let n = count(each u in units() where u.mood == angry)
  repeat n { emit howl(by: by) }
}
procedure hunt(u: unit) -> int {
  let r = roll(bite_dice(u), d6)
  if sum(r) >= 7 { return 1 } else if any(each f in r: f == 1) { stop } else { return 0 }
}
"""


def test_sample_parses_into_frozen_dataclasses_with_spans():
    module = parse(SAMPLE, "sample.lore")
    assert module.pack == ast.Pack("demo.sample")
    assert [u.name for u in module.uses] == ["battlelore.core"]
    kinds = [type(d).__name__ for d in module.decls]
    assert kinds == ["EnumDecl", "TagDecl", "DieDecl", "DieDecl", "FieldsDecl", "TraitDecl", "Definition",
                     "OptionDecl", "TableDecl", "FunctionDecl", "EventDecl", "TriggerDecl", "ProcedureDecl"]
    d6 = module.decls[3]
    assert [f.value for f in d6.faces] == [1, 2, 3, 4, 5, 6]
    trigger = module.decls[11]
    assert (trigger.timing, trigger.event, trigger.priority) == ("after", "howl", 2)
    assert trigger.span.line == 14 and trigger.name_span.column == 9
    with pytest.raises(dataclasses.FrozenInstanceError):
        trigger.name = "other"


def _all_nodes(node):
    if isinstance(node, ast.Node):
        yield node
        for f in dataclasses.fields(node):
            yield from _all_nodes(getattr(node, f.name))
    elif isinstance(node, (tuple, list)):
        for item in node:
            yield from _all_nodes(item)


def test_every_node_has_a_real_span():
    module = parse(SAMPLE, "sample.lore")
    nodes = list(_all_nodes(module.decls))
    assert len(nodes) > 100
    missing = [n for n in nodes if n.span.line < 1 or n.span.column < 1 or n.span == ast.NOWHERE]
    assert not missing, missing[:3]


def test_keywords_are_whole_words_and_usable_as_names_elsewhere():
    module = parse("pack p\nevent e(count: int, value: int)\nprocedure onward(on: int) { let only = on }", "k.lore")
    assert [p.name for p in module.decls[0].params] == ["count", "value"]
    assert module.decls[1].name == "onward"


@pytest.mark.parametrize("text, code, line, column, words", [
    ("pack p\nprocedure f() {\n  let x = 1\n", "P003", 2, 15, ["never closed"]),
    ("pack p\nenum a { x } }\n", "P006", 2, 14, ["closes nothing"]),
    ("pack p\nprecedure f() { }\n", "P004", 2, 1, ["unknown keyword 'precedure'", "procedure"]),
    ("pack p\nprocedure f() {\n  lett x = 1\n}\n", "P004", 3, 3, ["'lett'", "let"]),
    ("pack p\ntrigger t onn hit { }\n", "P004", 2, 11, ["'onn'", "'on'"]),
    ("pack p\nprocedure f() { let x = (1 + ) }\n", "P001", 2, 30, ["unexpected ')'"]),
    ("pack p\nprocedure f() { let x = 1 @ }\n", "P002", 2, 27, ["'@'"]),
])
def test_common_mistakes_get_located_friendly_messages(text, code, line, column, words):
    _, diagnostics = parse_with_diagnostics(text, "bad.lore")
    assert diagnostics, "expected a syntax error"
    first = diagnostics[0]
    assert (first.code, first.span.line, first.span.column) == (code, line, column)
    rendered = first.render(Source("bad.lore", text))
    assert rendered.startswith(f"bad.lore:{line}:{column}: error[{code}]:")
    for word in words:
        assert word in rendered
    assert "^" in rendered.splitlines()[2]


def test_parse_raises_diagnostic_error_not_lark_exceptions():
    with pytest.raises(DiagnosticError) as info:
        parse("pack p\nprocedure f( {", "x.lore")
    assert info.value.diagnostics[0].file == "x.lore"


def test_parser_keeps_going_after_an_error_and_reports_later_declarations():
    text = "pack p\nprocedure f() { let = 1 }\nprocedure g() { let y 2 }\n"
    _, diagnostics = parse_with_diagnostics(text, "two.lore")
    assert [d.span.line for d in diagnostics] == [2, 3]
