"""Find references and rename: where the packs of a rule set name a declaration.

The compiler resolves names but keeps no table of uses, so the syntax trees are walked here:
names in expressions, calls, ``emit``, a trigger's event, trait lists, a definition's kind and
types. A name bound inside a declaration (a parameter, ``let``, ``for each``, an aggregate's or
a ``choose``'s variable, a trigger's event parameters) is that declaration's own wherever it
appears in it, so a declaration that binds the name is skipped: ``event trampled(creature:
unit, …)`` does not refer to the trait ``creature``. Names in scenario YAML are not counted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..compiler import RuleSet
from ..dsl import ast
from ..diagnostics import Span
from .keywords import keywords

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Place:
    """One occurrence of a name: file (absolute), 0-based line, code point columns."""

    file: str
    line: int
    start: int
    end: int


def _children(node):
    if isinstance(node, ast.Node):
        for name in node.__dataclass_fields__:
            if name != "span":
                yield getattr(node, name)
    elif isinstance(node, (tuple, list)):
        yield from node


def _walk(node):
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, ast.Node):
            yield item
        if isinstance(item, (ast.Node, tuple, list)):
            stack.extend(_children(item))


def bound(decl: ast.Decl, rules: RuleSet | None) -> set[str]:
    """The names a declaration binds for itself."""
    names = {p.name for p in getattr(decl, "params", ())}
    if isinstance(decl, ast.TriggerDecl) and rules is not None:
        key = rules.find(rules.events, decl.event)
        if key is not None:
            names |= {p.name for p in rules.events[key].params}
    for node in _walk(decl):
        if isinstance(node, ast.Let):
            names.add(node.name)
        elif isinstance(node, (ast.ForEach, ast.Aggregate, ast.Choose)):
            names.add(node.var)
    return names


def _word_in(lines: list[str], span: Span, name: str, last: bool = False, upto: str | None = None) -> list[Place]:
    """Whole-word occurrences of ``name`` on the first line of ``span`` from its column (up to
    the first ``upto`` character after it, when given)."""
    if not 0 < span.line <= len(lines):
        return []
    text = lines[span.line - 1]
    begin = span.column - 1
    end = span.end_column - 1 if span.end_line == span.line else len(text)
    if upto is not None and upto in text[begin:end]:
        end = text.index(upto, begin)
    found = [m for m in IDENTIFIER.finditer(text, begin, end) if m.group() == name]
    if last:
        found = found[-1:]
    return [Place("", span.line - 1, m.start(), m.end()) for m in found]


def _uses(decl: ast.Decl, name: str, lines: list[str]) -> list[Place]:
    places: list[Place] = []
    if isinstance(decl, (ast.TraitDecl, ast.Definition)) and name in decl.traits and decl.name_span.line:
        after_name = Span(decl.name_span.end_line, decl.name_span.end_column, decl.span.end_line, decl.span.end_column)
        places += _word_in(lines, after_name, name, upto="{")
    if isinstance(decl, ast.Definition) and decl.kind == name and decl.kind_span.line:
        places += _word_in(lines, decl.kind_span, name)
    if isinstance(decl, ast.TriggerDecl) and decl.event.rpartition(".")[2] == name and decl.event_span.line:
        places += _word_in(lines, decl.event_span, name, last=True)
    for node in _walk(decl):
        if isinstance(node, ast.Name) and node.name == name:
            places += _word_in(lines, node.span, name)
        elif isinstance(node, ast.Call) and node.func.rpartition(".")[2] == name:
            places += _word_in(lines, node.span, name, upto="(")[-1:]
        elif isinstance(node, ast.Emit) and node.event.rpartition(".")[2] == name:
            places += _word_in(lines, node.span, name, upto="(")[-1:]
        elif isinstance(node, ast.TypeRef) and node.name.rpartition(".")[2] == name:
            places += _word_in(lines, node.span, name)[-1:]
    return places


def references(modules: dict[str, ast.Module], texts: dict[str, list[str]], rules: RuleSet | None,
               name: str, declarations: bool = True) -> list[Place]:
    """Every place the modules name the declaration(s) called ``name`` (its declarations too,
    unless ``declarations`` is false), sorted by file and position."""
    found: set[Place] = set()
    for file, module in modules.items():
        lines = texts.get(file, [])
        for decl in module.decls:
            if declarations and decl.name == name and decl.name_span.line and not isinstance(decl, ast.FieldsDecl):
                found |= {Place(file, p.line, p.start, p.end) for p in _word_in(lines, decl.name_span, name)}
            if name in bound(decl, rules):
                continue
            found |= {Place(file, p.line, p.start, p.end) for p in _uses(decl, name, lines)}
    return sorted(found, key=lambda p: (p.file, p.line, p.start))


def rename_problem(modules: dict[str, ast.Module], texts: dict[str, list[str]], rules: RuleSet | None,
                   old: str, new: str) -> str | None:
    """Why ``old`` cannot be renamed ``new``, or None: ``new`` must be a name, no keyword,
    declared nowhere in the rule set, and bound by no declaration that uses ``old`` (its uses
    there would then name the local)."""
    if not IDENTIFIER.fullmatch(new):
        return f"'{new}' is not a name"
    if new in keywords():
        return f"'{new}' is a keyword"
    for file, module in modules.items():
        for decl in module.decls:
            if decl.name == new or new in getattr(decl, "values", ()):
                return f"'{new}' is already declared ({module.path}:{decl.name_span.line})"
            if old not in bound(decl, rules) and new in bound(decl, rules) and _uses(decl, old, texts.get(file, [])):
                return f"'{new}' is a local name in {decl.name}, which uses '{old}'"
    return None


def local_binding(decl: ast.Decl, lines: list[str], name: str) -> Place | None:
    """Where ``decl`` binds ``name`` itself (its parameter, the first ``let``, ``for each``,
    aggregate or ``choose`` of it), for go to definition of a local name; None when it does not
    (a trigger's event parameters are the event's: the caller looks there)."""
    for p in getattr(decl, "params", ()):
        if p.name == name:
            return next(iter(_word_in(lines, p.span, name)), None)
    binders = [n for n in _walk(decl) if (isinstance(n, ast.Let) and n.name == name)
               or (isinstance(n, (ast.ForEach, ast.Aggregate, ast.Choose)) and n.var == name)]
    for node in sorted(binders, key=lambda n: (n.span.line, n.span.column)):
        found = _word_in(lines, node.span, name)
        if found:
            return found[0]
    return None
