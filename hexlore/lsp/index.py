"""Declarations by name, and the name under the cursor.

The compiler resolves names inside bodies but keeps no table of where each use points; the
parsed modules do keep where each declaration is (``name_span``). The server finds the word
under the cursor in the text and looks it up here: a name declared by several packs (an
original and its overrides) answers with every declaration, which editors list to choose from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..compiler.names import describe, signature
from ..dsl import ast
from ..diagnostics import Span

WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Declared:
    """One declared name: where it is and what to say about it."""

    name: str
    what: str  # 'function', 'unit definition', 'field of unit', 'enum value'…
    file: str  # absolute path
    span: Span
    decl: ast.Node


@dataclass(frozen=True)
class Word:
    """The identifier at a cursor: its text, 0-based columns, and what precedes it."""

    text: str
    start: int
    end: int
    after_dot: bool


def word_at(line: str, column: int) -> Word | None:
    """The identifier touching 0-based ``column`` of ``line`` (the cursor may sit just after it)."""
    for m in WORD.finditer(line):
        if m.start() <= column <= m.end():
            before = line[:m.start()].rstrip()
            return Word(m.group(), m.start(), m.end(), before.endswith("."))
    return None


def word_before(line: str, column: int) -> tuple[str, str]:
    """The partial word ending at ``column`` and the text before it (for completion)."""
    m = re.search(r"[A-Za-z_][A-Za-z0-9_]*$", line[:column])
    if m is None:
        return "", line[:column]
    return m.group(), line[:m.start()]


def _named_span(decl: ast.Decl) -> Span:
    return decl.name_span if decl.name_span.line else decl.span


def declarations(modules: dict[str, ast.Module]) -> list[Declared]:
    """Every declaration of the modules, with enum values, faces and the fields of kinds."""
    found: list[Declared] = []
    for file, module in modules.items():
        for decl in module.decls:
            span = _named_span(decl)
            if isinstance(decl, (ast.KindDecl, ast.FieldsDecl)):
                for f in decl.fields:
                    found.append(Declared(f.name, f"field of {decl.name}", file, f.span, f))
                if isinstance(decl, ast.FieldsDecl):
                    continue
            if isinstance(decl, ast.EnumDecl):
                found += [Declared(v, f"value of enum {decl.name}", file, span, decl) for v in decl.values]
            if isinstance(decl, ast.DieDecl):
                found += [Declared(f.label, f"face of die {decl.name}", file, f.span, f) for f in decl.faces]
            found.append(Declared(decl.name, describe(decl), file, span, decl))
    return found


def header(item: Declared) -> str:
    """A declaration as a reader wants it in a hover: its sort, name and signature."""
    decl = item.decl
    if isinstance(decl, ast.Definition):
        title = f' "{decl.title}"' if decl.title else ""
        traits = f" is {', '.join(decl.traits)}" if decl.traits else ""
        return f"{decl.kind} {decl.name}{title}{traits}"
    if isinstance(decl, ast.FieldDecl):
        return f"{decl.name}: {decl.type}  ({item.what})"
    if isinstance(decl, ast.FaceDecl):
        value = f" = {decl.value}" if decl.value is not None else ""
        return f"{decl.label}{value}  ({item.what})"
    if isinstance(decl, ast.TriggerDecl):
        return f"trigger {decl.name} {decl.timing} {decl.event}"
    if isinstance(decl, ast.EnumDecl) and item.name != decl.name:
        return f"{item.name}  ({item.what}: {', '.join(decl.values)})"
    if isinstance(decl, ast.Decl):
        return f"{describe(decl)} {decl.name}{signature(decl) or ''}"
    return item.name


def description(decl: ast.Node) -> str | None:
    """The description string a declaration carries, if any (events, procedures, options,
    a definition's title)."""
    for attr in ("doc", "title"):
        value = getattr(decl, attr, None)
        if isinstance(value, str) and value:
            return value
    return None


def enclosing(module: ast.Module, line: int) -> ast.Decl | None:
    """The declaration whose text holds 1-based ``line``."""
    for decl in module.decls:
        if decl.span.line <= line <= decl.span.end_line:
            return decl
    return None
