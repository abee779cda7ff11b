"""Completion: keywords, the names the rule set declares, built-ins with their signatures,
and after a dot the fields of the value's kind (or an enum's values).

The type of the name before a dot is known when it is a parameter of the declaration around
the cursor (a trigger's are its event's); for any other value (a loop variable, a chain such
as ``h.terrain.``) every field of every kind is offered, each labelled with its kind.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from lsprotocol import types

from ..compiler import RuleSet
from ..compiler.builtins import BUILTINS, ENUMS, Builtin
from ..dsl import ast
from .index import enclosing, word_before
from .keywords import keywords

Kind = types.CompletionItemKind


def builtin_signature(b: Builtin) -> str:
    """``roll(count: int, die: die) -> pool``: a built-in as Lore calls it."""
    params = ", ".join(f"{name}: {t}" for name, t in b.params) + (", …" if b.variadic else "")
    return f"{b.name}({params})" + (f" -> {b.returns}" if b.returns is not None else "")


def local_types(rules: RuleSet, module: ast.Module | None, line: int) -> dict[str, str]:
    """Parameter name -> type name, for the declaration holding 1-based ``line``."""
    decl = enclosing(module, line) if module is not None else None
    if isinstance(decl, (ast.FunctionDecl, ast.ProcedureDecl)):
        return {p.name: p.type.name for p in decl.params}
    if isinstance(decl, ast.TriggerDecl):
        key = rules.find(rules.events, decl.event)
        if key is not None:
            return {p.name: p.type.name for p in rules.events[key].params}
    return {}


def _fields(rules: RuleSet, kind: str | None) -> list[types.CompletionItem]:
    kinds = [rules.kinds[kind]] if kind in rules.kinds else list(rules.kinds.values())
    items: dict[str, types.CompletionItem] = {}
    for k in kinds:
        for name, spec in k.fields.items():
            items.setdefault(name, types.CompletionItem(label=name, kind=Kind.Field,
                                                         detail=f"{k.name}.{name}: {spec.type}"))
    return list(items.values())


def after_dot(rules: RuleSet, module: ast.Module | None, line: int, before: str) -> list[types.CompletionItem]:
    """What may follow ``NAME.``: an enum's values, or the fields of NAME's kind."""
    obj, _ = word_before(before[:-1].rstrip(), len(before[:-1].rstrip()))
    values = rules.enums.get(obj)
    if values is not None:
        return [types.CompletionItem(label=v.name, kind=Kind.EnumMember, detail=f"{obj}.{v.name}") for v in values]
    if obj in ENUMS:
        return [types.CompletionItem(label=v, kind=Kind.EnumMember, detail=f"{obj}.{v}") for v in ENUMS[obj]]
    return _fields(rules, local_types(rules, module, line + 1).get(obj))


def _seen_by(rules: RuleSet, module: ast.Module | None) -> Callable[[str], bool]:
    """``seen(key)``: whether the pack of ``module`` may write the declared name ``key``
    unqualified (declared by itself or by a pack it uses); everything when that is not known."""
    pack = module.pack.name if module is not None and module.pack is not None else None
    sees = rules.visible.get(pack) if pack is not None else None
    if sees is None:
        return lambda key: True
    owners: dict[str, set[str]] = {}
    for qualified, key in rules.qualified.items():
        owners.setdefault(key, set()).add(qualified.rpartition(".")[0])
    return lambda key: key not in owners or bool(owners[key] & sees)


def names(rules: RuleSet | None, module: ast.Module | None, line: int) -> list[types.CompletionItem]:
    """Keywords, parameters in scope, the declared names the pack at the cursor sees, built-ins."""
    items: dict[str, types.CompletionItem] = {}
    seen = _seen_by(rules, module) if rules is not None else (lambda key: True)

    def add(label: str, kind: Kind, detail: str | None = None, doc: str | None = None, declared: bool = False) -> None:
        if not declared or seen(label):
            items.setdefault(label, types.CompletionItem(label=label, kind=kind, detail=detail, documentation=doc))

    if rules is not None:
        for name, t in local_types(rules, module, line + 1).items():
            add(name, Kind.Variable, f"{name}: {t}")
        for table, kind, what in ((rules.events, Kind.Event, "event"), (rules.functions, Kind.Function, "function"),
                                  (rules.procedures, Kind.Method, "procedure"), (rules.traits, Kind.Interface, "trait"),
                                  (rules.options, Kind.Variable, "option"), (rules.tables, Kind.Struct, "table"),
                                  (rules.dice, Kind.Enum, "die"), (rules.kinds, Kind.Class, "kind"),
                                  (rules.enums, Kind.Enum, "enum")):
            for key in table:
                if "@" not in key:  # replaced declarations kept for super(…) are not names
                    add(key, kind, what, getattr(table[key], "doc", None), declared=True)
        for key, d in rules.definitions.items():
            add(key, Kind.Constant, f"{d.kind} \"{d.title}\"" if d.title else d.kind, declared=True)
        for key, symbol in rules.symbols.items():
            add(key, Kind.EnumMember, symbol.group, declared=True)
        for key, die in rules.dice.items():
            if seen(key):
                for face in die.faces:
                    add(face.name, Kind.EnumMember, f"face of {die.name}")
    for b in BUILTINS.values():
        add(b.name, Kind.Function, builtin_signature(b), b.doc or None)
    for word in keywords():
        add(word, Kind.Keyword)
    return list(items.values())


def in_yaml(rules: RuleSet | None, line: str, hexes: tuple[str, ...] = ()) -> list[types.CompletionItem]:
    """In scenario YAML: unit types after ``type:``, procedures after ``call:``, the board's
    hexes after a key naming hexes (``hex:``, ``retreat_hex: [``), faces after ``dice:``; else
    nothing (the YAML extension completes the format's keys from the schema)."""
    key = re.search(r"\b(type|call|\w*hex\w*|dice)\s*:\s*[\[\]\w., ]*$", line)
    if key is None:
        return []
    what = key.group(1)
    if "hex" in what:
        return [types.CompletionItem(label=h, kind=Kind.Value, detail="hex") for h in hexes]
    if rules is None:
        return []
    if what == "type":
        return [types.CompletionItem(label=d.name, kind=Kind.Constant, detail=f'unit "{d.title}"' if d.title else "unit")
                for d in rules.definitions_of("unit")]
    if what == "dice":
        return list({f.name: types.CompletionItem(label=f.name, kind=Kind.EnumMember, detail=f"face of {die.name}")
                     for die in rules.dice.values() for f in die.faces}.values())
    return [types.CompletionItem(label=key_, kind=Kind.Method, detail="procedure", documentation=p.doc)
            for key_, p in rules.procedures.items() if "@" not in key_]


def complete(rules: RuleSet | None, module: ast.Module | None, lines: list[str], line: int,
             column: int) -> list[types.CompletionItem]:
    """The completions at 0-based (line, code point column)."""
    text = lines[line] if line < len(lines) else ""
    _, before = word_before(text, column)
    if before.endswith(".") and rules is not None:
        return after_dot(rules, module, line, before)
    return names(rules, module, line)
