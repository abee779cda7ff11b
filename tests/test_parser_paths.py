"""The two ways a file is parsed build the same module, spans included.

A file without syntax errors is built while Lark parses it (``dsl/direct.py``); a file with
errors goes through recovery and a walk of Lark's tree. Both must give the same module to
the same text, or a file's spans would change the day a typo elsewhere sends it the slow
way. The frozen nodes compare without their spans, so the comparison here walks every field.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lark.exceptions import UnexpectedInput

from conftest import ROOT
from hexlore.diagnostics import Diagnostic
from hexlore.dsl.direct import Unsupported, parse_direct
from hexlore.dsl.parser import lark_parser, parse_slowly, parse_source
from hexlore.dsl.token_limits import token_problems


def _difference(a, b, where: str = "module") -> str | None:
    """Where two values differ, every dataclass field (spans too) compared; None if nowhere."""
    if type(a) is not type(b):
        return f"{where}: {type(a).__name__} against {type(b).__name__}"
    if dataclasses.is_dataclass(a):
        for f in dataclasses.fields(a):
            found = _difference(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")
            if found:
                return found
        return None
    if isinstance(a, (tuple, list)):
        if len(a) != len(b):
            return f"{where}: {len(a)} items against {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            found = _difference(x, y, f"{where}[{i}]")
            if found:
                return found
        return None
    return None if a == b else f"{where}: {a!r} against {b!r}"


def _both_ways(text: str, path: str = "t.lore"):
    """(fast module and problems, slow ParsedFile); the fast module is None if it declined."""
    slow = parse_slowly(lark_parser(), text, path)
    try:
        module, builder = parse_direct(lark_parser(), text, path)
    except (UnexpectedInput, Unsupported):
        return None, slow
    return (module, tuple(sorted(builder.problems, key=Diagnostic.sort_key))), slow


def _lore_files() -> list[Path]:
    # not the fixtures that are links leading out of the project (dangling here, on purpose)
    return sorted(p for folder in ("rules", "scenarios", "tests") for p in (ROOT / folder).rglob("*.lore")
                  if not p.is_symlink())


@pytest.mark.parametrize("path", _lore_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_lore_file_of_the_repository_is_built_the_same_both_ways(path):
    text = path.read_text(encoding="utf-8", errors="replace")
    if token_problems(text, str(path)):
        return  # refused before either path runs
    fast, slow = _both_ways(text, str(path))
    if fast is None:  # only a file with a syntax (or depth) error may take the slow path
        assert slow.diagnostics
        return
    module, problems = fast
    assert _difference(module, slow.module) is None
    assert problems == slow.diagnostics and not slow.skipped


SNIPPETS = {
    "an empty file": "",
    "only a comment": "# nothing here\n",
    "brackets around the first and last operands": "function f(a: int) -> int = (a + 1) * (2 - (a))\n",
    "brackets around a whole body": "function f() -> bool = ((true))\n",
    "a bracketed call then a field": "function f(u: unit) -> int = (g(u)).hp + (u).x[(0)]\n",
    "placeholders of [x]": 'procedure p() { }\nevent e()\ndie d { face a face b value 2 is t }\ntag t\n',
    "a list with a trailing comma": "function f() -> list of int = [1, (2), 3,]\n",
    "keywords kept as tokens": 'kind beast { hp: int }\nbeast wolf "W" { hp: 2 }\ncampaign fields side { gold: int = 0, }\n',
    "timings and targets": "event e(u: unit)\ntrigger t instead of e if (u.hp > 0) { game.turn += 1 u.hp = 0 }\n"
                           "trigger s before e priority -1 { stop }\n",
    "a face range too large": "die big { faces 1..5000 }\n",
}


@pytest.mark.parametrize("text", SNIPPETS.values(), ids=SNIPPETS.keys())
def test_snippets_are_built_the_same_both_ways(text):
    fast, slow = _both_ways(text)
    assert fast is not None, slow.diagnostics
    module, problems = fast
    assert _difference(module, slow.module) is None
    assert problems == slow.diagnostics


def test_a_file_nested_too_deep_takes_the_slow_path_and_is_reported():
    text = "function f() -> int = " + " + ".join(["1"] * 150) + "\nfunction g() -> int = 2\n"
    fast, slow = _both_ways(text)
    assert fast is None
    assert [d.code for d in parse_source(text, "deep.lore").diagnostics] == ["P009"]
    assert [d.code for d in slow.diagnostics] == ["P009"]


def test_a_file_just_within_the_depth_limit_keeps_the_fast_path():
    text = "function f() -> int = " + " + ".join(["1"] * 60) + "\n"
    fast, slow = _both_ways(text)
    assert fast is not None and not slow.diagnostics
    assert _difference(fast[0], slow.module) is None


def test_a_syntax_error_takes_the_slow_path_with_its_diagnostics():
    text = "function f() -> int = 1 +\nfunction g() -> int = 2\n"
    fast, slow = _both_ways(text)
    assert fast is None
    assert parse_source(text, "t.lore").diagnostics == slow.diagnostics != ()


# ---------------------------------------------------------------- random expressions
_ATOMS = st.sampled_from(["1", "x", '"s"', "true", "none", "game", "[]", "u.hp"])


def _expressions() -> st.SearchStrategy[str]:
    """Expressions of every shape the grammar has, brackets anywhere (where spans are tricky)."""
    def grow(inner):
        return st.one_of(
            inner.map(lambda e: f"({e})"),
            st.tuples(inner, st.sampled_from(["+", "*", "mod", "==", "and", "or", "is", "in", "is not"]), inner)
            .map(" ".join),
            inner.map(lambda e: f"not {e}"), inner.map(lambda e: f"-{e}"),
            inner.map(lambda e: f"{e}.f"), st.tuples(inner, inner).map(lambda p: f"{p[0]}[{p[1]}]"),
            st.lists(inner, max_size=3).map(lambda items: f"g({', '.join(items)})"),
            st.lists(inner, max_size=3).map(lambda items: f"[{', '.join(items)}]"),
            st.tuples(inner, inner, inner).map(lambda t: f"({t[0]} if {t[1]} else {t[2]})"),
            st.tuples(inner, inner).map(lambda p: f"count(each v in {p[0]} where {p[1]})"),
        )
    return st.recursive(_ATOMS, grow, max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(_expressions(), _expressions())
def test_random_expressions_are_built_the_same_both_ways(value, condition):
    text = f"function f() -> int = {value}\nprocedure p() {{\n  if {condition} {{ let y = {value} }}\n}}\n"
    fast, slow = _both_ways(text)
    if fast is None:
        assert slow.diagnostics
        return
    assert _difference(fast[0], slow.module) is None


def test_a_parser_shaped_otherwise_is_never_followed():
    # without propagated positions Lark's tree has no spans to match: the fast path declines
    from lark import Lark

    from hexlore.dsl.parser import GRAMMAR_PATH

    other = Lark(GRAMMAR_PATH.read_text(encoding="utf-8"), parser="lalr", lexer="contextual",
                 maybe_placeholders=True)
    with pytest.raises(Unsupported):
        parse_direct(other, "function f() -> int = 1\n", "t.lore")
