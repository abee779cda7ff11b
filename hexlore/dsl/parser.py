"""Parse Lore text into a :class:`~hexlore.dsl.ast.Module`.

Lark (LALR, contextual lexer) does the parsing, and :mod:`.ast_builder` makes the frozen AST
with a span on every node. Two paths lead there. A file without syntax errors (nearly
every file, nearly every time) is built while Lark parses it (:mod:`.direct`): no parse
tree is made at all. A file with a syntax error is parsed again token by token by
:mod:`.recovery`, which reports every error and recovers after each; its tree is then
walked by the same builder. Syntax errors become diagnostics with a code (P001…) and, for
the common mistakes — an unclosed brace, a misspelt keyword, a stray token — a message a
designer can act on without reading the grammar.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from lark import Lark
from lark.exceptions import UnexpectedInput

from . import ast
from .ast_builder import AstBuilder, build_from_tree
from ..diagnostics import Diagnostic, DiagnosticError
from .direct import Unsupported, parse_direct
from .lore_text import string_problems
from .parser_cache import cached_parser
from .recovery import drop_deep_items, parse_recovering
from .token_limits import token_problems

GRAMMAR_PATH = Path(__file__).with_name("lore.lark")

class _WholeWords:
    """Post-lexer that keeps NAME in every lexer state.

    Without it the contextual lexer, in a state where only keywords are allowed, would cut
    ``onn`` into the keyword ``on`` and a stray ``n``; with NAME always present, keywords
    only ever match whole words.
    """

    always_accept = ("NAME",)

    def process(self, stream):
        return stream


@functools.cache
def lark_parser(strict: bool = False) -> Lark:
    """The Lark parser, built once; tests build it with ``strict=True`` to prove LALR-cleanliness."""
    grammar = GRAMMAR_PATH.read_text(encoding="utf-8")
    options = dict(parser="lalr", lexer="contextual", propagate_positions=True, maybe_placeholders=True,
                   strict=strict, postlex=_WholeWords())
    if strict:  # the test that proves the grammar LALR-clean must really analyse it
        return Lark(grammar, **options)
    return cached_parser(grammar, options, lambda: Lark(grammar, **options))


@functools.cache
def keywords() -> frozenset[str]:
    from lark.lexer import PatternStr

    return frozenset(t.pattern.value for t in lark_parser().terminals
                     if isinstance(t.pattern, PatternStr) and t.pattern.value.isalpha())


# ---------------------------------------------------------------- entry points
@dataclass(frozen=True)
class ParsedFile:
    """A parsed file: its module (possibly partial), its syntax diagnostics, and the names
    mentioned in text that recovery had to drop (see :mod:`.recovery`)."""

    module: ast.Module
    diagnostics: tuple[Diagnostic, ...]
    skipped: frozenset[str]


def parse_source(text: str, path: str = "<string>") -> ParsedFile:
    """Parse one Lore file, recovering after each syntax error; never raises on bad input.

    Results are cached by (text, path): a ParsedFile is immutable (frozen nodes, tuples), and
    checking many scenarios or a folder whose packs change one at a time parses each file once.
    """
    return _parse_cached(text, path)


@functools.lru_cache(maxsize=256)
def _parse_cached(text: str, path: str) -> ParsedFile:
    module = ast.Module(path, None, (), ())
    refused = token_problems(text, path)
    if refused:
        return ParsedFile(module, tuple(refused), frozenset())
    parser = lark_parser()
    strings = string_problems(text, path)  # strings no output can hold: reported, the file still parsed
    try:
        module, builder = parse_direct(parser, text, path)
    except (UnexpectedInput, Unsupported):
        parsed = parse_slowly(parser, text, path)
        return ParsedFile(parsed.module, tuple(sorted(parsed.diagnostics + tuple(strings), key=Diagnostic.sort_key)),
                          parsed.skipped) if strings else parsed
    return ParsedFile(module, tuple(sorted(builder.problems + strings, key=Diagnostic.sort_key)), frozenset())


def parse_slowly(parser: Lark, text: str, path: str) -> ParsedFile:
    """The slow path: a parse tree from the recovering parser, every syntax error reported,
    and the module built from what recovery kept. Tests compare it with the fast path."""
    module = ast.Module(path, None, (), ())
    outcome = parse_recovering(parser, text, path)
    if outcome.tree is not None:
        outcome.diagnostics.extend(drop_deep_items(outcome.tree, path, outcome.skipped))
        builder = AstBuilder(path)
        module = build_from_tree(builder, outcome.tree)
        outcome.diagnostics.extend(builder.problems)
    return ParsedFile(module, tuple(sorted(outcome.diagnostics, key=Diagnostic.sort_key)),
                      frozenset(outcome.skipped))


def parse(text: str, path: str = "<string>") -> ast.Module:
    """Parse one Lore file; raise :class:`DiagnosticError` carrying the syntax diagnostics."""
    parsed = parse_source(text, path)
    if parsed.diagnostics:
        raise DiagnosticError(list(parsed.diagnostics))
    return parsed.module


def parse_with_diagnostics(text: str, path: str = "<string>") -> tuple[ast.Module, list[Diagnostic]]:
    """Parse, returning the module and every syntax diagnostic found.

    After a syntax error the parser resynchronises (at the next statement or declaration)
    and keeps going, so one run reports every error; the module holds what could be parsed.
    """
    parsed = parse_source(text, path)
    return parsed.module, list(parsed.diagnostics)
