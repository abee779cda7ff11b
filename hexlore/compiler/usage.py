"""Declarations nothing uses, and events nobody listens to.

Both checks look at every pack compiled together, so a declaration used only by another
pack counts as used when the two are checked together. What scenarios name is not seen
here, so the checks leave alone what scenarios use: definitions (unit types, terrains,
cards and the things of user kinds) and fields are never reported; an event that exists
for the event log, scenario tests or other packs says so with a description, and so does a
procedure meant as an entry point for scenario tests. Runtime hooks (functions the runtime
calls by name, such as the occupancy rule) are used by definition.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections import OrderedDict
from typing import Any

from ..dsl import ast
from ..diagnostics import Diagnostic, Span, codes, warning
from .model import RuleSet
from .names import SUPER
from .packs import LoadedPacks


#: Functions the runtime calls by name when a pack declares them (hooks), so never unused.
OCCUPANCY_RULE = "may_occupy"
#: Two units on one hex: the movement built-ins let a unit cross and end on a hex where it
#: may share with every other unit there (tokens, markers).
SHARING_RULE = "may_share"
#: How well a side stands, where a searching player stops a future (runtime/engine/search.py).
EVALUATION_RULE = "evaluate"
RUNTIME_HOOKS = frozenset({OCCUPANCY_RULE, SHARING_RULE, EVALUATION_RULE})


#: where each kind of syntax node names a declaration (a name, or a tuple of names)
_NAMES_IN = {ast.Name: ("name",), ast.Call: ("func",), ast.Emit: ("event",), ast.TypeRef: ("name",),
             ast.Definition: ("kind", "traits"), ast.TraitDecl: ("traits",), ast.FaceDecl: ("tags",),
             ast.TriggerDecl: ("event",), ast.FieldsDecl: ("name",)}


#: field values that hold no syntax, so the walk below does not visit them
_LEAVES = (str, int, bool, type(None), Span)


@functools.cache
def _plan(cls: type) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """For a syntax node class: (fields that name declarations, fields that may hold syntax);
    None for anything else."""
    if not issubclass(cls, ast.Node):
        return None
    return _NAMES_IN.get(cls, ()), tuple(f.name for f in dataclasses.fields(cls) if f.type != "Span")


def _references(node: object, out: set[str]) -> None:
    """Every name a piece of syntax mentions as a declaration: values, calls, types, traits…

    Iterative, with each class's fields looked up once: this walk visits every node of
    every pack, and a recursive call per field (spans and strings included) was a fifth of
    the compiler's time.
    """
    stack: list[Any] = [node]  # syntax nodes, tuples and lists of them
    while stack:
        current = stack.pop()
        cls = current.__class__
        plan = _plan(cls)
        if plan is None:
            if isinstance(current, (tuple, list)):
                stack.extend(item for item in current if item.__class__ not in _LEAVES)
            continue
        names, fields = plan
        for attr in names:
            value = getattr(current, attr)
            out.update(value if isinstance(value, tuple) else (value,))
        for name in fields:
            value = getattr(current, name)
            if value.__class__ not in _LEAVES:
                stack.append(value)


#: module id -> (the module, the names each of its declarations mentions); see _module_references
_REFERENCES: OrderedDict[int, tuple[ast.Module, tuple[frozenset[str], ...]]] = OrderedDict()
#: as many modules as the parser's cache keeps (hexlore/dsl/parser.py: 256 files)
_REFERENCES_KEPT = 256


def _module_references(module: ast.Module) -> tuple[frozenset[str], ...]:
    """The names each declaration of ``module`` mentions (:func:`_references`), in order.

    Kept per module: the parser hands every compilation that reads a file the same frozen
    module, and what its declarations mention depends on nothing else, so checking the
    bundled packs and scenarios (30 pack sets sharing most packs) walks each file once
    instead of once per set. Keyed by identity, the module kept in the entry so that its id
    is not reused while the entry lives (frozen syntax hashes by value, deep and slow).
    """
    entry = _REFERENCES.get(id(module))
    if entry is not None and entry[0] is module:
        _REFERENCES.move_to_end(id(module))
        return entry[1]
    found = []
    for decl in module.decls:
        refs: set[str] = set()
        _references(decl, refs)
        found.append(frozenset(refs))
    _REFERENCES[id(module)] = (module, tuple(found))
    while len(_REFERENCES) > _REFERENCES_KEPT:
        _REFERENCES.popitem(last=False)
    return tuple(found)


def _what(decl: ast.Decl, rules: RuleSet) -> tuple[str, str] | None:
    """(message, hint) for a declaration nobody uses, or None if it is not checked."""
    name = decl.name
    later = "; if another pack uses it, check them together"
    if isinstance(decl, ast.FunctionDecl) and name not in RUNTIME_HOOKS:
        return (f"function '{name}' is never used", "call it from a rule, or remove it" + later)
    if isinstance(decl, ast.ProcedureDecl) and rules.game is not None and decl.doc is None:
        return (f"procedure '{name}' is never called, so it never runs in a game",
                "call it from the game, a trigger or another procedure, or remove it; if it is an entry "
                f"point for scenario tests or other packs, describe it: procedure {name}(…) \"what it does\" {{ … }}"
                + later)
    if isinstance(decl, ast.OptionDecl):
        return (f"option '{name}' is never read by any rule, so changing it changes nothing",
                "read it in a rule, or remove it" + later)
    if isinstance(decl, ast.TableDecl):
        return (f"table '{name}' is never read", f"read it with {name}[key], or remove it" + later)
    if isinstance(decl, ast.EnumDecl):
        return (f"enum '{name}' is never used: neither the type nor its values appear in any rule",
                "use it, or remove it" + later)
    if isinstance(decl, ast.TagDecl):
        return (f"tag '{name}' is never used", "put it on a face ('face x is " + name + "') and test it, "
                "or remove it" + later)
    if isinstance(decl, ast.DieDecl):
        return (f"die '{name}' is never rolled or named by any rule", f"roll it with roll(N, {name}), "
                "or remove it" + later)
    if isinstance(decl, ast.TraitDecl):
        return (f"trait '{name}' is never given to a definition or tested with 'is'",
                f"write 'is {name}' on a definition, or remove it" + later)
    if isinstance(decl, ast.KindDecl):
        return (f"kind '{name}' has no definitions and is never used as a type",
                f"define one ('{name} NAME {{ … }}'), or remove it" + later)
    if isinstance(decl, ast.EventDecl):
        return (f"event '{name}' is never emitted and no trigger listens to it",
                f"emit it ('emit {name}(…)') where it happens, or remove it" + later)
    return None


def check_usage(loaded: LoadedPacks, rules: RuleSet, found: list[Diagnostic]) -> list[Diagnostic]:
    """W004 (unused declarations) and W003 (events emitted that no trigger listens to).

    ``found`` are the diagnostics so far: a name an undefined-name error suggests ("did you
    mean 'x'?") counts as used, since its misspelt use is already reported.
    """
    suggested = {m.group(1) for d in found if d.code == codes.UNDEFINED_NAME and d.hint
                 for m in [re.fullmatch(r"did you mean '(\w+)'\?", d.hint)] if m}
    # a declaration named 'super' is already an error (the name is reserved)
    excused = loaded.skipped | suggested | {SUPER} | rules.written_qualified
    # name -> the declarations that mention it (a declaration may mention its own name)
    mentioned_by: dict[str, set[int]] = {}
    for module in loaded.modules:
        for decl, refs in zip(module.decls, _module_references(module)):
            for name in refs:
                # a qualified mention (bc.hit, base.core.hit) mentions the plain name
                mentioned_by.setdefault(name.rpartition(".")[2], set()).add(id(decl))
    diags: list[Diagnostic] = []
    for module in loaded.modules:
        for decl in module.decls:
            what = _what(decl, rules)
            if what is None:
                continue
            names = {decl.name} | (set(decl.values) if isinstance(decl, ast.EnumDecl) else set())
            if names & excused:
                continue
            if any(mentioned_by.get(name, set()) - {id(decl)} for name in names):
                continue
            span = decl.name_span if decl.name_span.line else decl.span
            diags.append(warning(codes.UNUSED, what[0], module.path, span, what[1]))
    return diags + _unheard(rules, excused)


def _unheard(rules: RuleSet, skipped: set[str]) -> list[Diagnostic]:
    heard = {t.event for t in rules.triggers}
    emitters: dict[str, list[str]] = {}
    for key, events in sorted(rules.emits.items()):
        for event in events:
            emitters.setdefault(event, []).append(key)
    out = []
    for name, spec in sorted(rules.events.items()):
        if name in heard or name not in emitters or spec.doc is not None or name in skipped:
            continue
        out.append(warning(codes.UNHEARD_EVENT, f"event '{name}' is emitted (by {', '.join(emitters[name][:3])}) but "
                           "no trigger listens to it", spec.origin.file, spec.origin.span,
                           f"add a trigger ('trigger NAME on {name} {{ … }}'), or, if it is meant for the event "
                           f"log, scenario tests or other packs, describe it: event {name}(…) \"what it records\""))
    return out
