"""declare(): one pass per kind of declaration, and diagnostics left out by what they are about,
never by their message's text (issue 32, item 3)."""

from __future__ import annotations

import inspect

import pytest

from hexlore.compiler import compile_packs
from hexlore.compiler.declare import PASSES
from hexlore.compiler.findings import Findings
from hexlore.diagnostics import Span, error

# Each text loses a name to a syntax error (recovery drops the text around it), then uses the
# name where declare() itself reports an unknown one: the syntax error is the real mistake.
DROPPED = [
    pytest.param("event boom(u: unit +)\ntrigger t on boom { }\n", "undefined event 'boom'", id="trigger-event"),
]


@pytest.mark.parametrize("body, unreported", DROPPED)
def test_a_name_a_syntax_error_dropped_is_not_reported_again(tmp_path, body, unreported):
    pack = tmp_path / "p.lore"
    pack.write_text("pack p\n\n" + body, encoding="utf-8")
    rules = compile_packs([str(pack)])
    codes = [d.code for d in rules.diagnostics]
    assert "P001" in codes, codes  # the syntax error is there
    assert not [d for d in rules.diagnostics if unreported in d.message], rules.diagnostics


def test_the_same_name_is_reported_when_no_syntax_error_dropped_it(tmp_path):
    pack = tmp_path / "p.lore"
    pack.write_text("pack p\n\ntrigger t on boom { }\n", encoding="utf-8")
    messages = [d.message for d in compile_packs([str(pack)]).diagnostics]
    assert "undefined event 'boom'" in messages


def test_findings_leave_out_what_is_about_a_dropped_name_only():
    found = Findings()
    about = error("C003", "undefined trait 'a'", "f.lore", Span())
    other = error("C003", "undefined trait 'b'", "f.lore", Span())
    unrelated = error("C002", "'a' is declared twice", "f.lore", Span())  # not about the name: kept
    found.add(about, about=("a",))
    found.add(other, about=("b",))
    found.add(unrelated)
    assert found.kept({"a"}) == [other, unrelated]
    assert found.kept(set()) == [about, other, unrelated]


def test_the_passes_are_small_functions_of_the_shared_state():
    assert len(PASSES) == len(set(PASSES)) >= 15
    for run in PASSES:
        params = list(inspect.signature(run).parameters)
        lines = len(inspect.getsource(run).splitlines())
        assert params == ["st"] and lines < 100, (run.__name__, params, lines)
