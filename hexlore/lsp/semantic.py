"""Semantic tokens: each name coloured by what it names, which a TextMate grammar cannot know
(``hit`` an event, ``creature`` a trait, ``target`` a parameter, ``red`` an enum value).

The syntax trees are walked as for references (:mod:`.references`); a name is classified with
the compiled rule set's tables, a name a declaration binds itself as a parameter or variable.
Keywords, strings and comments are left to the TextMate grammar.
"""

from __future__ import annotations

from lsprotocol import types

from ..compiler import RuleSet
from ..compiler.builtins import BUILTINS
from ..dsl import ast
from .convert import position
from .references import Place, _walk, _word_in, bound

TYPES = ["namespace", "type", "class", "enum", "interface", "struct", "parameter", "variable", "property",
         "enumMember", "event", "function", "method"]
MODIFIERS = ["declaration", "defaultLibrary"]
LEGEND = types.SemanticTokensLegend(token_types=TYPES, token_modifiers=MODIFIERS)

_DECLARED = {ast.EnumDecl: "enum", ast.TagDecl: "enumMember", ast.DieDecl: "type", ast.KindDecl: "class",
             ast.TraitDecl: "interface", ast.Definition: "enumMember", ast.OptionDecl: "variable",
             ast.TableDecl: "struct", ast.FunctionDecl: "function", ast.ProcedureDecl: "method",
             ast.EventDecl: "event", ast.TriggerDecl: "method", ast.GameDecl: "namespace"}


def classify(rules: RuleSet, name: str) -> tuple[str, int] | None:
    """(token type, modifiers) of a name used in code, from the rule set's tables."""
    for table, kind in ((rules.events, "event"), (rules.functions, "function"), (rules.procedures, "method"),
                        (rules.traits, "interface"), (rules.options, "variable"), (rules.tables, "struct"),
                        (rules.kinds, "class"), (rules.enums, "enum"), (rules.dice, "type"),
                        (rules.definitions, "enumMember"), (rules.symbols, "enumMember")):
        if rules.find(table, name) is not None:
            return kind, 0
    if name in BUILTINS:
        return "function", 1 << MODIFIERS.index("defaultLibrary")
    return None


def tokens(module: ast.Module, lines: list[str], rules: RuleSet | None) -> list[int]:
    """The encoded tokens of one module (relative positions, as the protocol wants them)."""
    found: dict[tuple[int, int], tuple[int, str, int]] = {}  # (line, start) -> (end, type, modifiers)

    def mark(places: list[Place], kind: str, modifiers: int = 0) -> None:
        for p in places:
            found.setdefault((p.line, p.start), (p.end, kind, modifiers))

    for decl in module.decls:
        if decl.name_span.line and type(decl) in _DECLARED:
            mark(_word_in(lines, decl.name_span, decl.name), _DECLARED[type(decl)], 1)
        if rules is None:
            continue
        local = bound(decl, rules)
        params = {p.name for p in getattr(decl, "params", ())}
        if isinstance(decl, ast.TriggerDecl):
            key = rules.find(rules.events, decl.event)
            params |= {p.name for p in rules.events[key].params} if key is not None else set()
            if decl.event_span.line:
                mark(_word_in(lines, decl.event_span, decl.event.rpartition(".")[2], last=True), "event")
        for p in getattr(decl, "params", ()):
            mark(_word_in(lines, p.span, p.name)[:1], "parameter", 1)
        for node in _walk(decl):
            if isinstance(node, ast.Name):
                if node.name in local:
                    kind = "parameter" if node.name in params else "variable"
                    mark(_word_in(lines, node.span, node.name), kind)
                else:
                    what = classify(rules, node.name)
                    if what:
                        mark(_word_in(lines, node.span, node.name), *what)
            elif isinstance(node, ast.Field):
                mark(_word_in(lines, node.span, node.name, last=True), "property")
            elif isinstance(node, (ast.Call, ast.Emit)):
                name = (node.func if isinstance(node, ast.Call) else node.event).rpartition(".")[2]
                what = classify(rules, name)
                if what:
                    mark(_word_in(lines, node.span, name, upto="(")[-1:], *what)
    data: list[int] = []
    last_line = last_start = 0
    for (line, start), (end, kind, modifiers) in sorted(found.items()):
        begin = position(lines, line + 1, start + 1)
        length = position(lines, line + 1, end + 1).character - begin.character
        delta_line = begin.line - last_line
        delta_start = begin.character - last_start if delta_line == 0 else begin.character
        data += [delta_line, delta_start, length, TYPES.index(kind), modifiers]
        last_line, last_start = begin.line, begin.character
    return data
