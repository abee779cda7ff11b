"""The first passes of :func:`.declare.declare`: every name and signature, no bodies yet.

Declarations may be used before they appear, so these passes register what each thing *is*
(symbols, kinds and their fields, dice, the parameters of events, functions and procedures,
the types of options and tables, empty traits and definitions) before
:mod:`.declare_bodies` lowers any value or body that may name them. One pass per kind of
declaration, each a plain function of the shared :class:`~.declaring.Declaring`.
"""

from __future__ import annotations

from ..dsl import ast
from ..diagnostics import codes, did_you_mean, error
from . import ir
from .declaring import Declaring, OfKind, origin
from .fieldwise import title_of
from .lower import Context, Lowerer, Scope
from .model import (DefinitionSpec, DieSpec, EventSpec, FaceSpec, FieldSpec, FunctionSpec, KindSpec, OptionSpec,
                    ParamSpec, ProcedureSpec, Symbol, TableSpec, TraitSpec)
from .names import BUILTIN_KINDS, ENUM_VALUE, FACE, NameTable
from .resolve import KINDS, TAGS

#: the kinds whose fields may be campaign fields (a sheet lists units)
CAMPAIGN_KINDS = ("unit",)
#: the words that start a declaration: a definition whose kind is mistyped may mean one
_DECL_WORDS = ("enum", "tag", "die", "kind", "fields", "trait", "option", "table", "function",
               "procedure", "event", "trigger", "game")


def symbols(st: Declaring) -> None:
    """Enum values and tags; then the labels of dice faces, which double as tags unless an
    enum value or tag already has the name."""
    rules = st.rules
    for d in st.decls:
        if isinstance(d.decl, ast.EnumDecl):
            syms = tuple(Symbol(d.key, _value_key(st.table, d.decl, v)) for v in d.decl.values)
            rules.enums[d.key] = syms
            for s in syms:
                rules.symbols[s.name] = s
        elif isinstance(d.decl, ast.TagDecl):
            rules.symbols[d.key] = Symbol("tag", d.key)
    for entry in st.table.order:
        if entry.sort == FACE and entry.key not in rules.symbols:
            rules.symbols[entry.key] = Symbol("tag", entry.key)


def kinds(st: Declaring) -> None:
    """Each declared kind, with no fields yet (the built-in kinds are there from the start)."""
    for name, decl, _, file in st.of(ast.KindDecl):
        st.rules.kinds[name] = KindSpec(name, {}, False, origin(file, decl))


def dice(st: Declaring) -> None:
    """Each die and its faces; a face's tags are its label's and those it lists."""
    for name, decl, pack, file in st.of(ast.DieDecl):
        ctx = Context(file, pack, pure=True, what="a declaration")
        faces: list[FaceSpec] = []
        # a repeated face is one more identical side of the die; the same name
        # with other tags or another value would make tests and logs ambiguous
        seen_faces: dict[str, tuple[int | None, tuple[str, ...]]] = {}
        for face in decl.faces:
            shape = (face.value, tuple(sorted(face.tags)))
            if seen_faces.setdefault(face.label, shape) != shape:
                st.found.add(error(codes.DECLARED_TWICE, f"die '{decl.name}' has two different faces named '{face.label}'",
                                   file, face.span, "identical faces may repeat (same tags and value); give a "
                                   "different face its own name"))
                continue
            faces.append(_face(st, ctx, name, face))
        if not faces:
            st.found.add(error(codes.TYPE_MISMATCH, f"die '{decl.name}' has no faces", file, decl.name_span,
                               "add 'face NAME' lines or 'faces 1..6'"))
        st.rules.dice[name] = DieSpec(name, decl.title, tuple(faces), origin(file, decl))


def _face(st: Declaring, ctx: Context, die: str, face: ast.FaceDecl) -> FaceSpec:
    tags = set()
    if not face.label.isdigit():
        own = st.lowerer.resolver.find(ctx.pack, face.label, TAGS)
        tags.add(own.key or face.label)
    for t in face.tags:
        key = st.lowerer.lookup(ctx, t, face.span, TAGS)
        if key is None:
            guess = did_you_mean(t, st.rules.symbols)
            st.found.add(error(codes.UNDEFINED_NAME, f"undefined tag '{t}'", ctx.file, face.span,
                               f"did you mean '{guess}'?" if guess else f"declare it with 'tag {t}'"), about=(t,))
        tags.add(key or t)
    value = face.value if face.value is not None else (int(face.label) if face.label.isdigit() else 0)
    return FaceSpec(die, face.label, value, frozenset(tags))


def fields(st: Declaring) -> None:
    """The fields of kinds: ``fields`` blocks, then each kind's own fields, then what
    overrides of kinds change (their defaults are lowered by a later pass)."""
    kind_layers = [(e.key, layer) for e in st.table.in_force() if isinstance(e.decl, ast.KindDecl)
                   for layer in e.layers]
    st.all_fields = [OfKind(d, p, f, _kind_of(st.lowerer, d, p, f)) for d, p, f in st.fields_decls]
    st.all_fields += [OfKind(la.of(ast.KindDecl), la.pack, la.file, key) for key, la in kind_layers
                      if not la.override]
    for block in st.all_fields:
        _block_fields(st, block)
    for key, layer in kind_layers:
        if layer.override:
            decl = layer.of(ast.KindDecl)
            for f in decl.fields:
                st.fieldwise.kind_field(st.rules.kinds[key], layer, f)
            st.all_fields.append(OfKind(decl, layer.pack, layer.file, key))


def _block_fields(st: Declaring, block: OfKind) -> None:
    """The fields one block gives its kind (C018 for campaign fields of a kind that has none)."""
    decl, pack, file = block.decl, block.pack, block.file
    kind = st.rules.kinds.get(block.kind) if block.kind else None
    if kind is None:
        if block.kind is None:
            guess = did_you_mean(decl.name, st.rules.kinds)
            st.found.add(error(codes.UNDEFINED_NAME, f"unknown kind '{decl.name}'", file, decl.name_span,
                               f"did you mean '{guess}'?" if guess else "declare it with 'kind NAME { … }'"),
                         about=(decl.name,))
        st.lowerer.skipped.update(f.name for f in decl.fields)
        return
    ctx = Context(file, pack)
    campaign = isinstance(decl, ast.FieldsDecl) and decl.campaign
    if campaign and block.kind not in CAMPAIGN_KINDS:
        st.found.add(error(codes.CAMPAIGN_KIND, f"campaign fields are unit fields; '{decl.name}' cannot have them",
                           file, decl.name_span,
                           f"a campaign sheet keeps units only: write 'campaign fields unit {{ … }}', or "
                           f"make these ordinary fields with 'fields {decl.name} {{ … }}'"))
        campaign = False  # still declared, as ordinary fields, so their uses are not errors too
    for f in decl.fields:
        if f.name in kind.fields:
            first = kind.fields[f.name].origin
            st.found.add(error(codes.DECLARED_TWICE, f"{decl.name} already has a field '{f.name}' "
                               f"({first.file}:{first.span.line})", file, f.span))
            continue
        kind.fields[f.name] = FieldSpec(f.name, st.lowerer.resolve_type(ctx, f.type), None, origin(file, f),
                                        pack=pack, campaign=campaign)


def events(st: Declaring) -> None:
    for name, decl, pack, file in st.of(ast.EventDecl):
        params = _params(st.lowerer, Context(file, pack), decl.params)
        st.rules.events[name] = EventSpec(name, params, origin(file, decl), pack, decl.doc)


def functions(st: Declaring) -> None:
    """Each function's signature; its body (``Const(None)`` until then) is lowered later."""
    for name, decl, pack, file in st.of(ast.FunctionDecl):
        ctx = Context(file, pack)
        st.rules.functions[name] = FunctionSpec(name, _params(st.lowerer, ctx, decl.params),
                                                st.lowerer.resolve_type(ctx, decl.returns), ir.Const(None),
                                                origin(file, decl))


def procedures(st: Declaring) -> None:
    """Each procedure's signature, with no body yet."""
    for name, decl, pack, file in st.of(ast.ProcedureDecl):
        ctx = Context(file, pack)
        returns = st.lowerer.resolve_type(ctx, decl.returns) if decl.returns else None
        st.rules.procedures[name] = ProcedureSpec(name, _params(st.lowerer, ctx, decl.params), returns, (),
                                                  origin(file, decl), pack, decl.doc)


def options(st: Declaring) -> None:
    """Each option's type; its default (``Const(None)`` until then) is lowered later."""
    for name, decl, pack, file in st.of(ast.OptionDecl):
        st.rules.options[name] = OptionSpec(name, st.lowerer.resolve_type(Context(file, pack), decl.type),
                                            ir.Const(None), decl.doc, origin(file, decl))


def tables(st: Declaring) -> None:
    """Each table's key and value types; its entries are lowered later."""
    for name, decl, pack, file in st.of(ast.TableDecl):
        ctx = Context(file, pack)
        st.rules.tables[name] = TableSpec(name, st.lowerer.resolve_type(ctx, decl.key_type),
                                          st.lowerer.resolve_type(ctx, decl.value_type), (), origin(file, decl))


def traits(st: Declaring) -> None:
    """Each trait, empty: what it includes and sets is lowered over its layers later."""
    for name, decl, _, file in st.of(ast.TraitDecl):
        st.rules.traits[name] = TraitSpec(name, (), (), origin(file, decl))


def definitions(st: Declaring) -> None:
    """Each definition with its kind and title; traits and values are lowered later."""
    for name, decl, pack, file in st.of(ast.Definition):
        kind_name = _definition_kind(st.lowerer, decl, pack, file)
        if kind_name is None:
            continue
        if kind_name in ("side", "hex", "game"):
            st.found.add(error(codes.TYPE_MISMATCH, f"{decl.kind}s come from the scenario and cannot be "
                               "defined in a pack", file, decl.kind_span))
            continue
        st.rules.definitions[name] = DefinitionSpec(kind_name, name, title_of(st.layers[name]), frozenset(), (),
                                                    origin(file, decl), pack)


def _value_key(table: NameTable, enum: ast.EnumDecl, value: str) -> str:
    """The key of a value of ``enum`` (the declaration in force of its enum)."""
    for entry in table.by_name.get(value, ()):
        if entry.sort == ENUM_VALUE and entry.decl is enum:
            return entry.key
    return value


def _kind_of(lowerer: Lowerer, decl: ast.FieldsDecl, pack: str, file: str) -> str | None:
    """The key of the kind a ``fields`` block is about; "" when that was reported, None when
    no pack declares it."""
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
