"""Hover, go to definition and the outline: the declaration a word at the cursor names.

A word after a dot names a field; any other word names a declaration, or a field when no
declaration has the name (a definition's ``banner: red`` sets the field ``banner``). From
scenario YAML (``type: giant_spider``, ``call: attack``) the word is looked up in the
scenario's rule set the same way.
"""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from ..compiler.builtins import BUILTINS
from ..dsl import ast
from .analysis import Analysis, absolute
from .builtin_docs import documented
from .completion import builtin_signature
from .convert import span_range
from .index import Declared, declarations, description, header, word_at

Symbol = types.SymbolKind


def lookup(analysis: Analysis, line: str, column: int) -> tuple[str | None, list[Declared]]:
    """The word at the cursor and the declarations it may name."""
    word = word_at(line, column)
    if word is None:
        return None, []
    found = [d for d in declarations(analysis.modules) if d.name == word.text]
    fields = [d for d in found if d.what.startswith("field of")]
    others = [d for d in found if not d.what.startswith("field of")]
    return word.text, (fields or others) if word.after_dot else (others or fields)


def _lines_of(path: str, texts: dict[str, str], analysis: Analysis) -> list[str]:
    if path in texts:
        return texts[path].split("\n")
    for shown, source in (analysis.rules.sources.items() if analysis.rules else ()):
        if absolute(shown) == path:
            return source.text.split("\n")
    return []


def definition(analysis: Analysis, texts: dict[str, str], line: str, column: int) -> list[types.Location]:
    _, found = lookup(analysis, line, column)
    return [types.Location(uri=Path(d.file).as_uri(), range=span_range(d.span, _lines_of(d.file, texts, analysis)))
            for d in found]


def hover(analysis: Analysis, line: str, column: int) -> types.Hover | None:
    """The declaration's signature and description; a built-in's signature and documentation."""
    word, found = lookup(analysis, line, column)
    parts = []
    for d in found:
        text = f"```lore\n{header(d)}\n```"
        said = description(d.decl)
        parts.append(text + (f"\n{said}" if said else "") + f"\n\n*{Path(d.file).name}:{d.span.line}*")
    if not parts and word in BUILTINS:
        b = BUILTINS[word]
        doc = documented().get(word) or b.doc
        parts.append(f"```lore\n{builtin_signature(b)}\n```\nbuilt-in" + (f"\n\n{doc}" if doc else ""))
    if not parts:
        return None
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value="\n\n---\n\n".join(parts)))


_SYMBOL_KINDS: dict[type, Symbol] = {
    ast.EnumDecl: Symbol.Enum, ast.TagDecl: Symbol.Constant, ast.DieDecl: Symbol.Enum, ast.KindDecl: Symbol.Class,
    ast.FieldsDecl: Symbol.Class, ast.TraitDecl: Symbol.Interface, ast.Definition: Symbol.Object,
    ast.OptionDecl: Symbol.Variable, ast.TableDecl: Symbol.Struct, ast.FunctionDecl: Symbol.Function,
    ast.ProcedureDecl: Symbol.Method, ast.EventDecl: Symbol.Event, ast.TriggerDecl: Symbol.Key,
    ast.GameDecl: Symbol.Module}


def outline(module: ast.Module, lines: list[str]) -> list[types.DocumentSymbol]:
    """One symbol per declaration, the fields of kinds as children."""
    symbols = []
    for decl in module.decls:
        item = Declared(decl.name, "", module.path, decl.name_span if decl.name_span.line else decl.span, decl)
        whole = span_range(decl.span, lines)
        children = None
        if isinstance(decl, (ast.KindDecl, ast.FieldsDecl)):
            children = [types.DocumentSymbol(name=f.name, kind=Symbol.Field, range=span_range(f.span, lines),
                                             selection_range=span_range(f.span, lines), detail=str(f.type))
                        for f in decl.fields]
        name = f"fields {decl.name}" if isinstance(decl, ast.FieldsDecl) else decl.name
        selection = span_range(item.span, lines)
        if (selection.start.line, selection.start.character) < (whole.start.line, whole.start.character) or \
                (selection.end.line, selection.end.character) > (whole.end.line, whole.end.character):
            selection = whole
        symbols.append(types.DocumentSymbol(name=name, kind=_SYMBOL_KINDS.get(type(decl), Symbol.Object),
                                            range=whole, selection_range=selection,
                                            detail=header(item) if not isinstance(decl, ast.FieldsDecl) else None,
                                            children=children))
    return symbols


def workspace_symbols(analyses: list[Analysis], query: str) -> list[types.WorkspaceSymbol]:
    """Declarations (not fields, values or faces) whose name contains ``query``, each once."""
    seen: set[tuple[str, int, int]] = set()
    found = []
    for analysis in analyses:
        for d in declarations(analysis.modules):
            if not isinstance(d.decl, ast.Decl) or d.name != d.decl.name or query.lower() not in d.name.lower():
                continue
            if (d.file, d.span.line, d.span.column) in seen:
                continue
            seen.add((d.file, d.span.line, d.span.column))
            found.append(types.WorkspaceSymbol(
                name=d.name, kind=_SYMBOL_KINDS.get(type(d.decl), Symbol.Object), container_name=d.what,
                location=types.Location(uri=Path(d.file).as_uri(),
                                        range=span_range(d.span, _lines_of(d.file, {}, analysis)))))
    return found
