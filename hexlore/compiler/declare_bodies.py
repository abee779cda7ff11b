"""The later passes of :func:`.declare.declare`: values and bodies, lowered to IR.

Every name and signature is known by now (:mod:`.declare_shapes`), so a body may use what
is declared after it. One pass per kind of declaration, each a plain function of the shared
:class:`~.declaring.Declaring`, in the order :data:`.declare.PASSES` lists.
"""

from __future__ import annotations

import dataclasses

from ..dsl import ast
from ..diagnostics import codes, did_you_mean, error
from . import ir
from .declaring import Declaring, origin
from .fieldwise import guess as _guess
from .kept_triggers import keep_trigger, lower_kept_trigger
from .lower import Context, Scope
from .model import FunctionSpec, GameSpec, OptionSpec, ProcedureSpec, TableSpec, Timing, TriggerSpec
from .names import Entry
from .resolve import EVENTS
from .types import BOOL, INT, Type

#: ``aftermath`` runs only in a campaign, once the game is over (hexlore/campaign.py)
GAME_BLOCKS = ("setup", "round", "end", "aftermath")
GAME_SETTINGS = {"max_rounds": INT, "default_terrain": Type("terrain")}


def field_defaults(st: Declaring) -> None:
    """The default of each field, from the declaration in force of the field (its own, or
    an override's)."""
    for block in st.all_fields:
        kind = st.rules.kinds.get(block.kind) if block.kind else None
        if kind is None:
            continue
        ctx = Context(block.file, block.pack, pure=True, what="a field default")
        for f in block.decl.fields:
            spec = kind.fields.get(f.name)
            if spec is None or f.default is None or spec.origin != origin(block.file, f):
                continue
            value, t = st.lowerer.expr(ctx, Scope(), f.default)
            st.lowerer.expect(ctx, spec.type, t, f.default.span, f"the default of field '{f.name}'")
            kind.fields[f.name] = dataclasses.replace(spec, default=value)


def option_defaults(st: Declaring) -> None:
    for name, decl, pack, file in st.of(ast.OptionDecl):
        ctx = Context(file, pack, pure=True, what="a declaration")
        value, t = st.lowerer.expr(ctx, Scope(), decl.default)
        spec = st.rules.options[name]
        st.lowerer.expect(ctx, spec.type, t, decl.default.span, f"the default of option '{name}'")
        st.rules.options[name] = OptionSpec(name, spec.type, value, decl.doc, spec.origin)


def table_entries(st: Declaring) -> None:
    """Each table's entries: constant keys, each once."""
    for name, decl, pack, file in st.of(ast.TableDecl):
        ctx = Context(file, pack, pure=True, what="a declaration")
        spec = st.rules.tables[name]
        entries: list[tuple[object, ir.X]] = []
        for key, value in decl.entries:
            kx, kt = st.lowerer.expr(ctx, Scope(), key)
            if not isinstance(kx, ir.Const):
                st.found.add(error(codes.TYPE_MISMATCH, "table keys must be constants", file, key.span))
                continue
            st.lowerer.expect(ctx, spec.key_type, kt, key.span, f"a key of table '{name}'")
            if kx.value is not None and any(k == kx.value for k, _ in entries):
                st.found.add(error(codes.DECLARED_TWICE, f"table '{name}' has two entries for '{kx.value}'", file,
                                   key.span, "keep one of them"))
                continue
            vx, vt = st.lowerer.expr(ctx, Scope(), value)
            st.lowerer.expect(ctx, spec.value_type, vt, value.span, f"a value of table '{name}'")
            entries.append((kx.value, vx))
        st.rules.tables[name] = TableSpec(name, spec.key_type, spec.value_type, tuple(entries), spec.origin)


def trait_values(st: Declaring) -> None:
    """What each trait includes and sets, over its layers; then the values overrides set that
    the trait they override does not give (C021)."""
    for name, _, _, _ in st.of(ast.TraitDecl):
        st.rules.traits[name] = st.fieldwise.trait(name, st.layers[name])
    st.fieldwise.check_trait_overrides()


def definition_values(st: Declaring) -> None:
    for name, _, _, _ in st.of(ast.Definition):
        if name in st.rules.definitions:
            st.rules.definitions[name] = st.fieldwise.definition(st.rules.definitions[name], st.layers[name])


def function_bodies(st: Declaring) -> None:
    for name, decl, pack, file in st.of(ast.FunctionDecl):
        spec = st.rules.functions[name]
        ctx = Context(file, pack, pure=True, what=f"function '{name}'", replaces=st.kept(decl))
        scope = Scope({p.name: p.type for p in spec.params})
        body, t = st.lowerer.expr(ctx, scope, decl.body)
        st.lowerer.expect(ctx, spec.returns, t, decl.body.span, f"the value of function '{name}'")
        st.rules.functions[name] = FunctionSpec(name, spec.params, spec.returns, body, spec.origin)


def procedure_bodies(st: Declaring) -> None:
    for name, decl, pack, file in st.of(ast.ProcedureDecl):
        spec = st.rules.procedures[name]
        ctx = Context(file, pack, what=f"procedure '{name}'", returns=spec.returns, replaces=st.kept(decl))
        body = st.lowerer.block(ctx, Scope({p.name: p.type for p in spec.params}), decl.body)
        st.rules.procedures[name] = ProcedureSpec(name, spec.params, spec.returns, body, spec.origin, pack,
                                                  spec.doc)
        st.node("procedure " + name, ctx)


def triggers(st: Declaring) -> None:
    """Each trigger in force, in the order of the modules, then sorted by priority.

    Replaced triggers an override's super() runs are hidden procedures, listening to nothing
    (trigger_super.py), known before any override's body is lowered.
    """
    found = [(entry, decl) for module in st.loaded.modules for decl in module.decls
             if isinstance(decl, ast.TriggerDecl) and (entry := st.table.of_decl.get(id(decl))) is not None
             and entry.decl is decl]
    kept = [(entry, decl) for entry, decl in found if entry.kept_from is not None]
    for entry, decl in kept:
        keep_trigger(st.lowerer, entry, decl, st.found)
    for entry, decl in kept:
        st.node("procedure " + entry.key, lower_kept_trigger(st.lowerer, entry, decl, st.kept(decl)))
    for order, (entry, decl) in enumerate((entry, decl) for entry, decl in found if entry.kept_from is None):
        _trigger(st, entry, decl, order)
    st.rules.triggers.sort(key=lambda t: (-t.priority, t.order))


def _trigger(st: Declaring, entry: Entry, decl: ast.TriggerDecl, order: int) -> None:
    tname, pack, file = entry.key, entry.pack, entry.file
    lowerer = st.lowerer
    event_key = lowerer.lookup(Context(file, pack), decl.event, decl.event_span, EVENTS)
    event = st.rules.events.get(event_key) if event_key else None
    scope = Scope()
    if event_key is None:
        guess = did_you_mean(decl.event, st.rules.events)
        st.found.add(error(codes.UNDEFINED_NAME, f"undefined event '{decl.event}'", file, decl.event_span,
                           f"did you mean '{guess}'?" if guess else "declare it with 'event NAME(…)'"),
                     about=(decl.event,))
    elif event is not None:
        scope.names.update({p.name: p.type for p in event.params})
    # event "" marks a trigger on an unknown event: its arguments are unknown too
    known = event_key if event is not None else ""
    gctx = Context(file, pack, pure=True, what=f"the guard of trigger '{tname}'", event=known, trigger=tname,
                   replaces=st.kept(decl))
    guard = None
    if decl.guard is not None:
        guard, gt = lowerer.expr(gctx, scope, decl.guard)
        lowerer.expect(gctx, BOOL, gt, decl.guard.span, "a trigger guard")
    optional_by = lowerer.expr(gctx, scope, decl.optional_by)[0] if decl.optional_by else None
    optional_prefer = None
    if decl.optional_prefer is not None:
        optional_prefer, pt = lowerer.expr(gctx, scope, decl.optional_prefer)
        lowerer.expect(gctx, BOOL, pt, decl.optional_prefer.span, "the preferred answer")
    ctx = Context(file, pack, what=f"trigger '{tname}'", event=known, trigger=tname, replaces=st.kept(decl))
    body = lowerer.block(ctx, scope, decl.body)
    st.rules.triggers.append(TriggerSpec(
        tname, Timing(decl.timing), event_key or decl.event, guard, optional_by, decl.priority, body,
        tuple(p.name for p in event.params) if event else (), order, origin(file, decl), pack, optional_prefer))
    st.node("trigger " + tname, ctx)


def game(st: Declaring) -> None:
    """The game declaration (one per rule set): its blocks and settings."""
    games = list(st.of(ast.GameDecl))
    if not games:
        return
    _, first, first_pack, _ = games[0]
    for _, decl, pack, file in games[1:]:
        if st.table.sees(pack, first_pack):
            hint = (f"'{first.name}' of pack '{first_pack}' is already the game: replace it with "
                    f"'override game {first.name} …' (an override keeps the name)")
        else:
            hint = (f"'{first.name}' of pack '{first_pack}' is already the game, and pack '{pack}' does not use "
                    "it: compile each game's packs apart (a scenario lists one game's packs)")
        st.found.add(error(codes.DECLARED_TWICE, f"a rule set has one game declaration; '{decl.name}' is a second one",
                           file, decl.name_span, hint))
    _, decl, pack, file = games[0]
    blocks = _game_blocks(st, decl, pack, file)
    settings = _game_settings(st, decl, pack, file)
    if "round" not in blocks:
        st.found.add(error(codes.BAD_GAME, f"game '{decl.name}' has no 'round' block", file, decl.name_span,
                           "add 'round { … }': what happens in one round of play"))
    st.rules.game = GameSpec(decl.name, decl.title, blocks, settings, origin(file, decl))


def _game_blocks(st: Declaring, decl: ast.GameDecl, pack: str, file: str) -> dict[str, tuple[ir.S, ...]]:
    blocks: dict[str, tuple[ir.S, ...]] = {}
    for bname, block in decl.blocks:
        if bname in blocks:
            st.found.add(error(codes.DECLARED_TWICE, f"game '{decl.name}' has two '{bname}' blocks", file, block.span,
                               "merge them into one"))
            continue
        if bname not in GAME_BLOCKS:
            st.found.add(error(codes.BAD_GAME, f"unknown game block '{bname}'", file, block.span,
                               _guess(bname, GAME_BLOCKS) or f"blocks are {', '.join(GAME_BLOCKS)}"))
            continue
        ctx = Context(file, pack, what=f"game block '{bname}'")
        blocks[bname] = st.lowerer.block(ctx, Scope(), block)
        st.node("game " + bname, ctx)
    return blocks


def _game_settings(st: Declaring, decl: ast.GameDecl, pack: str, file: str) -> dict[str, ir.X]:
    settings: dict[str, ir.X] = {}
    for prop in decl.settings:
        if prop.name in settings:
            st.found.add(error(codes.DECLARED_TWICE, f"game '{decl.name}' sets '{prop.name}' twice", file, prop.span,
                               "keep one of them"))
            continue
        if prop.name not in GAME_SETTINGS:
            st.found.add(error(codes.BAD_GAME, f"unknown game setting '{prop.name}'", file, prop.span,
                               _guess(prop.name, GAME_SETTINGS) or f"settings are {', '.join(GAME_SETTINGS)}"))
            continue
        ctx = Context(file, pack, pure=True, what="a game setting")
        value, t = st.lowerer.expr(ctx, Scope(), prop.value)
        st.lowerer.expect(ctx, GAME_SETTINGS[prop.name], t, prop.value.span, f"game setting '{prop.name}'")
        settings[prop.name] = value
    return settings
