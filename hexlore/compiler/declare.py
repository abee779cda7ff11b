"""Collect the declarations of every loaded pack into one RuleSet.

Runs in two passes so declarations may be used before they appear: first every name and
signature is registered (with duplicate and override checks, :mod:`.names`), then bodies and
values are lowered by :mod:`.lower`. Every name a declaration mentions is looked up from its
own pack (:mod:`.resolve`), and the rule set is keyed by each thing's key.
"""

from __future__ import annotations

import dataclasses
import functools
import re

from ..dsl import ast
from ..diagnostics import Diagnostic, codes, did_you_mean, error
from . import ir
from .lower import Context, Lowerer, Scope
from .model import (DefinitionSpec, Timing, DieSpec, EventSpec, FaceSpec, FieldSpec, FunctionSpec, GameSpec,
                    KindSpec, OptionSpec, ParamSpec, ProcedureSpec, RuleSet, Symbol, TableSpec,
                    TraitSpec, TriggerSpec)
from .declarers import Declarers
from .fieldwise import Fieldwise, guess as _guess, title_of
from .kept_triggers import keep_trigger, lower_kept_trigger
from .names import BUILTIN_KINDS, ENUM_VALUE, FACE, NameTable, register_packs
from .packs import LoadedPacks
from .resolve import EVENTS, KINDS, TAGS, Resolver
from .types import INT, Type


#: ``aftermath`` runs only in a campaign, once the game is over (hexlore/campaign.py)
GAME_BLOCKS = ("setup", "round", "end", "aftermath")
#: the kinds whose fields may be campaign fields (a sheet lists units)
CAMPAIGN_KINDS = ("unit",)
GAME_SETTINGS = {"max_rounds": INT, "default_terrain": Type("terrain")}


def declare(loaded: LoadedPacks) -> RuleSet:
    rules = RuleSet(packs=loaded.pack_names, sources=dict(loaded.sources))
    diags: list[Diagnostic] = []
    table, fields_decls = register_packs(loaded)
    resolver = Resolver(table, loaded.pack_names, loaded.aliases,
                        Declarers(loaded.roots, set(loaded.pack_names)))
    rules.qualified = {f"{p}.{e.name}": e.key for entries in table.by_name.values() for e in entries
                       for p in e.packs}

    for kind in BUILTIN_KINDS:
        rules.kinds[kind] = KindSpec(kind, {}, True, ir.NOWHERE)

    lowerer = Lowerer(rules, resolver, loaded.skipped)

    def ctx_for(pack: str, file: str, **kw) -> Context:
        return Context(file=file, pack=pack, **kw)

    def origin(file: str, node: ast.Node) -> ir.Origin:
        return ir.Origin(file, node.span)

    # ---- pass 1: symbols, kinds, signatures
    # with the replaced declarations an override's super(…) calls, under their kept keys
    decls_in_order = [(e.key, e.decl, e.pack, e.file) for e in table.in_force()]
    #: traits, definitions and kinds: the original declaration, then each override (fieldwise.py)
    layers = {e.key: e.layers for e in table.in_force() if e.layers}
    for name, decl, pack, file in decls_in_order:
        if isinstance(decl, ast.EnumDecl):
            syms = tuple(Symbol(name, _value_key(table, decl, v)) for v in decl.values)
            rules.enums[name] = syms
            for s in syms:
                rules.symbols[s.name] = s
        elif isinstance(decl, ast.TagDecl):
            rules.symbols[name] = Symbol("tag", name)
        elif isinstance(decl, ast.KindDecl):
            rules.kinds[name] = KindSpec(name, {}, False, origin(file, decl))
    # face labels double as tags, unless an enum value or tag already has the name
    for entry in table.order:
        if entry.sort == FACE and entry.key not in rules.symbols:
            rules.symbols[entry.key] = Symbol("tag", entry.key)
    for name, decl, pack, file in decls_in_order:
        ctx = ctx_for(pack, file, pure=True, what="a declaration")
        if isinstance(decl, ast.DieDecl):
            faces = []
            # a repeated face is one more identical side of the die; the same name
            # with other tags or another value would make tests and logs ambiguous
            seen_faces: dict[str, tuple] = {}
            for face in decl.faces:
                shape = (face.value, tuple(sorted(face.tags)))
                if seen_faces.setdefault(face.label, shape) != shape:
                    diags.append(error(codes.DECLARED_TWICE, f"die '{decl.name}' has two different faces named "
                                       f"'{face.label}'", file, face.span,
                                       "identical faces may repeat (same tags and value); give a different "
                                       "face its own name"))
                    continue
                tags = set()
                if not face.label.isdigit():
                    own = resolver.find(pack, face.label, TAGS)
                    tags.add(own.key or face.label)
                for t in face.tags:
                    key = lowerer.lookup(ctx, t, face.span, TAGS)
                    if key is None:
                        guess = did_you_mean(t, rules.symbols)
                        diags.append(error(codes.UNDEFINED_NAME, f"undefined tag '{t}'", file, face.span,
                                           f"did you mean '{guess}'?" if guess else f"declare it with 'tag {t}'"))
                    tags.add(key or t)
                value = face.value if face.value is not None else (int(face.label) if face.label.isdigit() else 0)
                faces.append(FaceSpec(name, face.label, value, frozenset(tags)))
            if not faces:
                diags.append(error(codes.TYPE_MISMATCH, f"die '{decl.name}' has no faces", file, decl.name_span,
                                   "add 'face NAME' lines or 'faces 1..6'"))
            rules.dice[name] = DieSpec(name, decl.title, tuple(faces), origin(file, decl))
    # fields blocks, then each kind's own fields, then what overrides of kinds change
    fieldwise = Fieldwise(lowerer, rules, diags)
    kind_layers = [(e.key, layer) for e in table.in_force() if isinstance(e.decl, ast.KindDecl) for layer in e.layers]
    all_fields = [(d, p, f, _kind_of(lowerer, d, p, f)) for d, p, f in fields_decls] + \
        [(la.decl, la.pack, la.file, key) for key, la in kind_layers if not la.override]
    for decl, pack, file, kind_name in all_fields:
        kind = rules.kinds.get(kind_name) if kind_name else None
        if kind is None:
            if kind_name is None:
                guess = did_you_mean(decl.name, rules.kinds)
                diags.append(error(codes.UNDEFINED_NAME, f"unknown kind '{decl.name}'", file, decl.name_span,
                                   f"did you mean '{guess}'?" if guess else "declare it with 'kind NAME { … }'"))
            lowerer.skipped.update(f.name for f in decl.fields)
            continue
        ctx = ctx_for(pack, file)
        campaign = getattr(decl, "campaign", False)
        if campaign and kind_name not in CAMPAIGN_KINDS:
            diags.append(error(codes.CAMPAIGN_KIND, f"campaign fields are unit fields; '{decl.name}' cannot have them",
                               file, decl.name_span,
                               f"a campaign sheet keeps units only: write 'campaign fields unit {{ … }}', or "
                               f"make these ordinary fields with 'fields {decl.name} {{ … }}'"))
            campaign = False  # still declared, as ordinary fields, so their uses are not errors too
        for f in decl.fields:
            if f.name in kind.fields:
                first = kind.fields[f.name].origin
                diags.append(error(codes.DECLARED_TWICE, f"{decl.name} already has a field '{f.name}' "
                                   f"({first.file}:{first.span.line})", file, f.span))
                continue
            kind.fields[f.name] = FieldSpec(f.name, lowerer.resolve_type(ctx, f.type), None, origin(file, f),
                                            pack=pack, campaign=campaign)
    for key, layer in kind_layers:
        if layer.override:
            for f in layer.decl.fields:
                fieldwise.kind_field(rules.kinds[key], layer, f)
            all_fields.append((layer.decl, layer.pack, layer.file, key))
    for name, decl, pack, file in decls_in_order:
        ctx = ctx_for(pack, file)
        if isinstance(decl, ast.EventDecl):
            rules.events[name] = EventSpec(name, _params(lowerer, ctx, decl.params), origin(file, decl), pack,
                                           decl.doc)
        elif isinstance(decl, ast.FunctionDecl):
            rules.functions[name] = FunctionSpec(name, _params(lowerer, ctx, decl.params),
                                                 lowerer.resolve_type(ctx, decl.returns), ir.Const(None),
                                                 origin(file, decl))
        elif isinstance(decl, ast.ProcedureDecl):
            returns = lowerer.resolve_type(ctx, decl.returns) if decl.returns else None
            rules.procedures[name] = ProcedureSpec(name, _params(lowerer, ctx, decl.params), returns, (),
                                                   origin(file, decl), pack, decl.doc)
        elif isinstance(decl, ast.OptionDecl):
            rules.options[name] = OptionSpec(name, lowerer.resolve_type(ctx, decl.type), ir.Const(None),
                                             decl.doc, origin(file, decl))
        elif isinstance(decl, ast.TableDecl):
            rules.tables[name] = TableSpec(name, lowerer.resolve_type(ctx, decl.key_type),
                                           lowerer.resolve_type(ctx, decl.value_type), (), origin(file, decl))
        elif isinstance(decl, ast.TraitDecl):
            rules.traits[name] = TraitSpec(name, (), (), origin(file, decl))
        elif isinstance(decl, ast.Definition):
            kind_name = _definition_kind(lowerer, decl, pack, file)
            if kind_name is None:
                continue
            if kind_name in ("side", "hex", "game"):
                diags.append(error(codes.TYPE_MISMATCH, f"{decl.kind}s come from the scenario and cannot be "
                                   "defined in a pack", file, decl.kind_span))
                continue
            rules.definitions[name] = DefinitionSpec(kind_name, name, title_of(layers[name]), frozenset(), (),
                                                     origin(file, decl), pack)

    # ---- pass 2: values and bodies
    for decl, pack, file, kind_name in all_fields:
        kind = rules.kinds.get(kind_name) if kind_name else None
        if kind is None:
            continue
        ctx = ctx_for(pack, file, pure=True, what="a field default")
        for f in decl.fields:
            spec = kind.fields.get(f.name)
            # the declaration in force of the field: its own, or an override's
            if spec is None or f.default is None or spec.origin != origin(file, f):
                continue
            value, t = lowerer.expr(ctx, Scope(), f.default)
            lowerer.expect(ctx, spec.type, t, f.default.span, f"the default of field '{f.name}'")
            kind.fields[f.name] = dataclasses.replace(spec, default=value)
    for name, decl, pack, file in decls_in_order:
        ctx = ctx_for(pack, file, pure=True, what="a declaration")
        if isinstance(decl, ast.OptionDecl):
            value, t = lowerer.expr(ctx, Scope(), decl.default)
            spec = rules.options[name]
            lowerer.expect(ctx, spec.type, t, decl.default.span, f"the default of option '{name}'")
            rules.options[name] = OptionSpec(name, spec.type, value, decl.doc, spec.origin)
        elif isinstance(decl, ast.TableDecl):
            spec = rules.tables[name]
            entries = []
            for key, value in decl.entries:
                kx, kt = lowerer.expr(ctx, Scope(), key)
                if not isinstance(kx, ir.Const):
                    diags.append(error(codes.TYPE_MISMATCH, "table keys must be constants", file, key.span))
                    continue
                lowerer.expect(ctx, spec.key_type, kt, key.span, f"a key of table '{name}'")
                if kx.value is not None and any(k == kx.value for k, _ in entries):
                    diags.append(error(codes.DECLARED_TWICE, f"table '{name}' has two entries for '{kx.value}'", file,
                                       key.span, "keep one of them"))
                    continue
                vx, vt = lowerer.expr(ctx, Scope(), value)
                lowerer.expect(ctx, spec.value_type, vt, value.span, f"a value of table '{name}'")
                entries.append((kx.value, vx))
            rules.tables[name] = TableSpec(name, spec.key_type, spec.value_type, tuple(entries), spec.origin)
    for name, decl, pack, file in decls_in_order:
        if isinstance(decl, ast.TraitDecl):
            rules.traits[name] = fieldwise.trait(name, layers[name])
    fieldwise.check_trait_overrides()
    for name, decl, pack, file in decls_in_order:
        if isinstance(decl, ast.Definition) and name in rules.definitions:
            rules.definitions[name] = fieldwise.definition(rules.definitions[name], layers[name])
    for name, decl, pack, file in decls_in_order:
        if isinstance(decl, ast.FunctionDecl):
            spec = rules.functions[name]
            ctx = ctx_for(pack, file, pure=True, what=f"function '{name}'", replaces=_kept(table, decl))
            scope = Scope({p.name: p.type for p in spec.params})
            body, t = lowerer.expr(ctx, scope, decl.body)
            lowerer.expect(ctx, spec.returns, t, decl.body.span, f"the value of function '{name}'")
            rules.functions[name] = FunctionSpec(name, spec.params, spec.returns, body, spec.origin)
    calls: dict[str, set[str]] = {}
    emits: dict[str, set[str]] = {}
    for name, decl, pack, file in decls_in_order:
        if isinstance(decl, ast.ProcedureDecl):
            spec = rules.procedures[name]
            ctx = ctx_for(pack, file, what=f"procedure '{name}'", returns=spec.returns,
                          replaces=_kept(table, decl))
            body = lowerer.block(ctx, Scope({p.name: p.type for p in spec.params}), decl.body)
            rules.procedures[name] = ProcedureSpec(name, spec.params, spec.returns, body, spec.origin, pack,
                                                   spec.doc)
            calls["procedure " + name] = ctx.calls
            emits["procedure " + name] = ctx.emits
    trigger_order = 0
    triggers = [(entry, decl) for module in loaded.modules for decl in module.decls
                if isinstance(decl, ast.TriggerDecl) and (entry := table.of_decl.get(id(decl))) is not None
                and entry.decl is decl]
    # replaced triggers an override's super() runs: hidden procedures, listening to nothing
    # (trigger_super.py); known before any override's body is lowered
    kept = [(entry, decl) for entry, decl in triggers if entry.kept_from is not None]
    for entry, decl in kept:
        keep_trigger(lowerer, entry, decl, diags)
    for entry, decl in kept:
        ctx = lower_kept_trigger(lowerer, entry, decl, _kept(table, decl))
        calls["procedure " + entry.key] = ctx.calls
        emits["procedure " + entry.key] = ctx.emits
    for entry, decl in triggers:
        if entry.kept_from is not None:
            continue
        tname, pack, file = entry.key, entry.pack, entry.file
        event_key = lowerer.lookup(ctx_for(pack, file), decl.event, decl.event_span, EVENTS)
        event = rules.events.get(event_key) if event_key else None
        scope = Scope()
        if event_key is None:
            guess = did_you_mean(decl.event, rules.events)
            diags.append(error(codes.UNDEFINED_NAME, f"undefined event '{decl.event}'", file, decl.event_span,
                               f"did you mean '{guess}'?" if guess else "declare it with 'event NAME(…)'"))
        elif event is not None:
            scope.names.update({p.name: p.type for p in event.params})
        # event "" marks a trigger on an unknown event: its arguments are unknown too
        known = event_key if event is not None else ""
        gctx = ctx_for(pack, file, pure=True, what=f"the guard of trigger '{tname}'",
                       event=known, trigger=tname, replaces=_kept(table, decl))
        guard = None
        if decl.guard is not None:
            guard, gt = lowerer.expr(gctx, scope, decl.guard)
            lowerer.expect(gctx, Type("bool"), gt, decl.guard.span, "a trigger guard")
        optional_by = lowerer.expr(gctx, scope, decl.optional_by)[0] if decl.optional_by else None
        optional_prefer = None
        if decl.optional_prefer is not None:
            optional_prefer, pt = lowerer.expr(gctx, scope, decl.optional_prefer)
            lowerer.expect(gctx, Type("bool"), pt, decl.optional_prefer.span, "the preferred answer")
        ctx = ctx_for(pack, file, what=f"trigger '{tname}'", event=known, trigger=tname,
                      replaces=_kept(table, decl))
        body = lowerer.block(ctx, scope, decl.body)
        rules.triggers.append(TriggerSpec(
            tname, Timing(decl.timing), event_key or decl.event, guard, optional_by, decl.priority, body,
            tuple(p.name for p in event.params) if event else (), trigger_order,
            origin(file, decl), pack, optional_prefer))
        trigger_order += 1
        calls["trigger " + tname] = ctx.calls
        emits["trigger " + tname] = ctx.emits
    rules.triggers.sort(key=lambda t: (-t.priority, t.order))
    games = [(d, p, f) for _, d, p, f in decls_in_order if isinstance(d, ast.GameDecl)]
    for decl, pack, file in games[1:]:
        first, first_pack = games[0][0].name, games[0][1]
        if table.sees(pack, first_pack):
            hint = (f"'{first}' of pack '{first_pack}' is already the game: replace it with "
                    f"'override game {first} …' (an override keeps the name)")
        else:
            hint = (f"'{first}' of pack '{first_pack}' is already the game, and pack '{pack}' does not use "
                    "it: compile each game's packs apart (a scenario lists one game's packs)")
        diags.append(error(codes.DECLARED_TWICE, f"a rule set has one game declaration; '{decl.name}' is a second one",
                           file, decl.name_span, hint))
    if games:
        decl, pack, file = games[0]
        blocks = {}
        for bname, block in decl.blocks:
            if bname in blocks:
                diags.append(error(codes.DECLARED_TWICE, f"game '{decl.name}' has two '{bname}' blocks", file, block.span,
                                   "merge them into one"))
                continue
            if bname not in GAME_BLOCKS:
                diags.append(error(codes.BAD_GAME, f"unknown game block '{bname}'", file, block.span,
                                   _guess(bname, GAME_BLOCKS) or f"blocks are {', '.join(GAME_BLOCKS)}"))
                continue
            ctx = ctx_for(pack, file, what=f"game block '{bname}'")
            blocks[bname] = lowerer.block(ctx, Scope(), block)
            calls["game " + bname] = ctx.calls
            emits["game " + bname] = ctx.emits
        settings = {}
        for prop in decl.settings:
            if prop.name in settings:
                diags.append(error(codes.DECLARED_TWICE, f"game '{decl.name}' sets '{prop.name}' twice", file, prop.span,
                                   "keep one of them"))
                continue
            if prop.name not in GAME_SETTINGS:
                diags.append(error(codes.BAD_GAME, f"unknown game setting '{prop.name}'", file, prop.span,
                                   _guess(prop.name, GAME_SETTINGS) or
                                   f"settings are {', '.join(GAME_SETTINGS)}"))
                continue
            ctx = ctx_for(pack, file, pure=True, what="a game setting")
            value, t = lowerer.expr(ctx, Scope(), prop.value)
            lowerer.expect(ctx, GAME_SETTINGS[prop.name], t, prop.value.span, f"game setting '{prop.name}'")
            settings[prop.name] = value
        if "round" not in blocks:
            diags.append(error(codes.BAD_GAME, f"game '{decl.name}' has no 'round' block", file, decl.name_span,
                               "add 'round { … }': what happens in one round of play"))
        rules.game = GameSpec(decl.name, decl.title, blocks, settings, origin(file, decl))
    diags.extend(_procedure_cycles(rules, calls))
    diags.extend(_trait_cycles(rules))
    # names in text dropped after a syntax error are consequences of it, not new mistakes
    diags = [d for d in diags if not (d.code in (codes.UNDEFINED_NAME, codes.UNKNOWN_FIELD)
                                      and set(re.findall(r"'(\w+)'", d.message)) & lowerer.skipped)]
    rules.diagnostics = table.diagnostics + diags + lowerer.diagnostics
    rules.written_qualified = lowerer.written_qualified
    rules.calls = calls
    rules.emits = emits
    return rules


_DECL_WORDS = ("enum", "tag", "die", "kind", "fields", "trait", "option", "table", "function",
               "procedure", "event", "trigger", "game")


def _value_key(table: NameTable, enum: ast.EnumDecl, value: str) -> str:
    """The key of a value of ``enum`` (the declaration in force of its enum)."""
    for entry in table.by_name.get(value, ()):
        if entry.sort == ENUM_VALUE and entry.decl is enum:
            return entry.key
    return value


def _kept(table: NameTable, decl: ast.Decl) -> str | None:
    """For an override that calls super(…): the key of the declaration it replaces."""
    kept = table.super_of.get(id(decl))
    return kept.key if kept is not None else None


def _kind_of(lowerer: Lowerer, decl: ast.KindDecl | ast.FieldsDecl, pack: str, file: str) -> str | None:
    """The key of the kind a ``kind`` or ``fields`` block is about; "" when that was reported,
    None when no pack declares it."""
    if isinstance(decl, ast.KindDecl):
        return lowerer.resolver.table.of_decl[id(decl)].key
    if decl.name in BUILTIN_KINDS:
        return decl.name
    return lowerer.lookup(Context(file, pack), decl.name, decl.name_span, KINDS)


def _definition_kind(lowerer: Lowerer, decl: ast.Definition, pack: str, file: str) -> str | None:
    """The key of a definition's kind, or None after reporting that it has none."""
    if decl.kind in BUILTIN_KINDS:
        return decl.kind
    key = lowerer.lookup(Context(file, pack), decl.kind, decl.kind_span, KINDS)
    if key is None:
        guess = did_you_mean(decl.kind, list(lowerer.rules.kinds) + list(_DECL_WORDS))
        lowerer.diagnostics.append(error(codes.UNDEFINED_NAME, f"unknown kind '{decl.kind}'", file, decl.kind_span,
                                         f"did you mean '{guess}'?" if guess else
                                         "declare the kind with 'kind NAME { field: type }'"))
    return key or None


def _params(lowerer: Lowerer, ctx: Context, params: tuple[ast.Param, ...]) -> tuple[ParamSpec, ...]:
    out = []
    seen = set()
    for p in params:
        if p.name in seen:
            lowerer.err(ctx, codes.DECLARED_TWICE, f"parameter '{p.name}' is declared twice", p.span)
        seen.add(p.name)
        t = lowerer.resolve_type(ctx, p.type)
        default = None
        if p.default is not None:
            pctx = Context(ctx.file, ctx.pack, pure=True, what="a parameter default")
            default, dt = lowerer.expr(pctx, Scope(), p.default)
            lowerer.expect(pctx, t, dt, p.default.span, f"the default of parameter '{p.name}'")
        out.append(ParamSpec(p.name, t, default))
    return tuple(out)


def _trait_cycles(rules: RuleSet) -> list[Diagnostic]:
    """Traits may not include themselves, even through other traits."""
    out = []
    reported: set[frozenset[str]] = set()
    for start in sorted(rules.traits):
        stack = [(start, [start])]
        while stack:
            name, path = stack.pop()
            for inner in rules.traits[name].traits if name in rules.traits else ():
                if inner == start:
                    if frozenset(path) not in reported:
                        reported.add(frozenset(path))
                        origin = rules.traits[start].origin
                        out.append(error(codes.RECURSION, "traits include each other in a cycle: "
                                         + " → ".join(path + [start]), origin.file, origin.span,
                                         "remove one of the 'is' links; a trait cannot contain itself"))
                elif inner not in path and inner in rules.traits:
                    stack.append((inner, path + [inner]))
    return out


def _call_cycles(what: str, graph: dict[str, set[str]], origins: dict[str, ir.Origin]) -> list[Diagnostic]:
    """Procedures (or functions) may not call themselves, even indirectly: every run must end.

    Iterative depth-first search, so a long chain of calls cannot exhaust Python's stack.
    """
    out = []
    state: dict[str, int] = {}
    for root in sorted(graph):
        if root in state:
            continue
        state[root] = 1
        path = [root]
        todo = [iter(sorted(graph.get(root, ())))]
        while todo:
            callee = next(todo[-1], None)
            if callee is None:
                todo.pop()
                state[path.pop()] = 2
                continue
            if state.get(callee) == 1:
                cycle = path[path.index(callee):] + [callee]
                origin = origins[callee]
                out.append(error(codes.RECURSION, f"{what} call each other in a cycle: " + " → ".join(cycle),
                                 origin.file, origin.span,
                                 "unbounded recursion is not allowed; use 'repeat N' or 'for each'"))
            elif callee not in state and callee in graph:
                state[callee] = 1
                path.append(callee)
                todo.append(iter(sorted(graph.get(callee, ()))))
    return out


def _procedure_cycles(rules: RuleSet, calls: dict[str, set[str]]) -> list[Diagnostic]:
    procedures = {name: calls.get("procedure " + name, set()) for name in rules.procedures}
    functions = {name: {n.name for n in _ir_nodes(spec.body) if isinstance(n, (ir.CallFunction, ir.FunctionRef))}
                 for name, spec in rules.functions.items()}
    return (_call_cycles("procedures", procedures, {n: p.origin for n, p in rules.procedures.items()})
            + _call_cycles("functions", functions, {n: f.origin for n, f in rules.functions.items()}))


@functools.cache
def _inner_fields(cls: type) -> tuple[str, ...]:
    """The fields of an IR node class other than its origin (``dataclasses.fields`` builds a
    new tuple at every call)."""
    return tuple(f.name for f in dataclasses.fields(cls) if f.name != "origin")


def _ir_nodes(x):
    """Every IR node under ``x`` (iteratively)."""
    stack = [x]
    while stack:
        node = stack.pop()
        if isinstance(node, (ir.X, ir.S)):
            yield node
            stack.extend(getattr(node, name) for name in _inner_fields(node.__class__))
        elif isinstance(node, tuple):
            stack.extend(node)
