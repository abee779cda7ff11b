"""No unused imports or names (pyflakes) and no dead code (vulture), in the package, the tests
and the benchmarks (issue 14: the copies kept "for one call less" are gone and stay gone)."""

from __future__ import annotations

import io
import re

import pyflakes.api as pyflakes_api
import vulture
from pyflakes.reporter import Reporter

from conftest import ROOT

CHECKED = [ROOT / "hexlore", ROOT / "tests", ROOT / "benchmarks"]

#: names vulture cannot see used, each with why: it reads code, not the protocols that call it
CALLED_BY_NAME = [
    "x_*", "s_*",                 # the linker and the lowering dispatch on node class names
    "always_accept", "process",   # Lark's post-lexer protocol (dsl/parser.py)
    "callbacks", "char_pos", "line_start_pos",  # attributes of Lark objects that recovery sets
    "description",                # a schema key kept on the model for readers of the API
    "*_command",                  # click commands, registered by their decorator
    "on_*",                       # the language server's handlers (lsp/server.py), registered likewise
    "AFTER",                      # a member of compiler.model.Timing, reached by iterating the enum
    "end_lineno", "col_offset", "end_col_offset",  # locations of generated ast nodes, read by compile()
    # what compiled rules read of their Context and of an event by name (ast nodes, not text)
    "game_fields", "load_definition", "forget_event", "replaced",
    "__getattr__", "__dir__",     # a module's lazy names (PEP 562): hexlore/__init__.py, api.py
    "pytestmark",                 # a test module's marks, read by pytest (test_check_fuzz.py: slow)
]


def _grammar_rules() -> list[str]:
    """The Lore grammar's rules: the AST builder (dsl/ast_builder.py) has one method per rule."""
    grammar = (ROOT / "hexlore" / "dsl" / "lore.lark").read_text(encoding="utf-8")
    rules = re.findall(r"^\??!?([a-z_][a-z0-9_]*)\s*(?:\.\d+)?\s*:", grammar, re.M)
    return rules + re.findall(r"->\s*([a-z_][a-z0-9_]*)", grammar)


def test_pyflakes_finds_nothing():
    out, err = io.StringIO(), io.StringIO()
    pyflakes_api.checkRecursive([str(p) for p in CHECKED], Reporter(out, err))
    assert out.getvalue() + err.getvalue() == ""


def test_vulture_finds_no_dead_code():
    finder = vulture.Vulture(ignore_names=CALLED_BY_NAME + _grammar_rules())
    finder.scavenge([str(p) for p in CHECKED])
    dead = [f"{item.filename}:{item.first_lineno}: {item.message}" for item in finder.get_unused_code(min_confidence=60)]
    assert dead == []


def test_the_grammar_rules_are_read():
    rules = _grammar_rules()
    assert {"start", "pack_decl", "int_lit", "cond_expr"} <= set(rules) and len(rules) > 50
