"""The Lore syntax tree: frozen dataclasses, every node carrying the Span it came from.

The tree is purely syntactic: names are strings, nothing is resolved. The compiler turns
it into typed, resolved IR; diagnostics at any later stage point back at these spans.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..diagnostics import Span

NOWHERE = Span()


@dataclass(frozen=True, slots=True)
class Node:
    span: Span = field(default=NOWHERE, compare=False, repr=False, kw_only=True)


# ---------------------------------------------------------------- types
@dataclass(frozen=True, slots=True)
class TypeRef(Node):
    name: str
    item: "TypeRef | None" = None  # element type when name == "list"
    optional: bool = False

    def __str__(self) -> str:
        text = f"list of {self.item}" if self.name == "list" else self.name
        return text + ("?" if self.optional else "")


# ---------------------------------------------------------------- expressions
@dataclass(frozen=True, slots=True)
class Expr(Node):
    pass


@dataclass(frozen=True, slots=True)
class Literal(Expr):
    value: int | str | bool | None


@dataclass(frozen=True, slots=True)
class Name(Expr):
    name: str


@dataclass(frozen=True, slots=True)
class ListExpr(Expr):
    items: tuple[Expr, ...]
    #: ``[] of T``: an empty list of a stated item type
    item_type: TypeRef | None = None


@dataclass(frozen=True, slots=True)
class Field(Expr):
    obj: Expr
    name: str


@dataclass(frozen=True, slots=True)
class Index(Expr):
    obj: Expr
    key: Expr


@dataclass(frozen=True, slots=True)
class Arg(Node):
    value: Expr
    name: str | None = None


@dataclass(frozen=True, slots=True)
class Call(Expr):
    func: str
    args: tuple[Arg, ...]


@dataclass(frozen=True, slots=True)
class Aggregate(Expr):
    """``func(each var in source where cond: mapped)``: count, sum, any, all, min, max, list."""

    func: str
    var: str
    source: Expr
    where: Expr | None
    mapped: Expr | None


@dataclass(frozen=True, slots=True)
class Unary(Expr):
    op: str  # "-" or "not"
    operand: Expr


@dataclass(frozen=True, slots=True)
class Binary(Expr):
    op: str  # + - * / mod == != < <= > >= and or is isnot in
    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class Conditional(Expr):
    then: Expr
    cond: Expr
    otherwise: Expr


@dataclass(frozen=True, slots=True)
class Emit(Expr):
    event: str
    args: tuple[Arg, ...]


@dataclass(frozen=True, slots=True)
class Choose(Expr):
    """A decision: a policy picks one of ``source`` for the side ``by``."""

    decision: str
    var: str
    source: Expr
    by: Expr
    prefer: Expr | None
    default: Expr | None


@dataclass(frozen=True, slots=True)
class Ask(Expr):
    """A yes/no decision; ``prefer`` is the answer a judging player gives (greedy, search)."""

    decision: str
    by: Expr
    prefer: Expr | None
    default: Expr | None


# ---------------------------------------------------------------- statements
@dataclass(frozen=True, slots=True)
class Stmt(Node):
    pass


@dataclass(frozen=True, slots=True)
class Block(Node):
    body: tuple[Stmt, ...]


@dataclass(frozen=True, slots=True)
class Let(Stmt):
    name: str
    value: Expr


@dataclass(frozen=True, slots=True)
class Assign(Stmt):
    target: tuple[str, ...]  # ("x",) or ("u", "figures")
    op: str  # = += -=
    value: Expr


@dataclass(frozen=True, slots=True)
class If(Stmt):
    branches: tuple[tuple[Expr, Block], ...]
    otherwise: Block | None


@dataclass(frozen=True, slots=True)
class ForEach(Stmt):
    var: str
    source: Expr
    body: Block


@dataclass(frozen=True, slots=True)
class Repeat(Stmt):
    times: Expr
    body: Block


@dataclass(frozen=True, slots=True)
class While(Stmt):
    cond: Expr
    body: Block


@dataclass(frozen=True, slots=True)
class Require(Stmt):
    cond: Expr
    message: str | None


@dataclass(frozen=True, slots=True)
class Break(Stmt):
    pass


@dataclass(frozen=True, slots=True)
class Stop(Stmt):
    pass


@dataclass(frozen=True, slots=True)
class Return(Stmt):
    value: Expr


@dataclass(frozen=True, slots=True)
class ExprStmt(Stmt):
    expr: Expr


# ---------------------------------------------------------------- declarations
@dataclass(frozen=True, slots=True)
class Decl(Node):
    name: str
    override: bool = field(default=False, kw_only=True)
    name_span: Span = field(default=NOWHERE, compare=False, repr=False, kw_only=True)


@dataclass(frozen=True, slots=True)
class Pack(Node):
    name: str


@dataclass(frozen=True, slots=True)
class Use(Node):
    """``use a.b`` or ``use a.b as x``: the pack's names become visible here, and ``x.name``
    (or ``a.b.name``) names one of them when two visible packs declare it."""

    name: str
    alias: str | None = None


@dataclass(frozen=True, slots=True)
class EnumDecl(Decl):
    values: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class TagDecl(Decl):
    """``tag a, b`` is split into one TagDecl per name."""


@dataclass(frozen=True, slots=True)
class FaceDecl(Node):
    label: str
    value: int | None
    tags: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DieDecl(Decl):
    title: str | None
    faces: tuple[FaceDecl, ...]


@dataclass(frozen=True, slots=True)
class FieldDecl(Node):
    name: str
    type: TypeRef
    default: Expr | None


@dataclass(frozen=True, slots=True)
class KindDecl(Decl):
    fields: tuple[FieldDecl, ...]


@dataclass(frozen=True, slots=True)
class FieldsDecl(Decl):
    """``fields unit { ... }`` adds fields to an existing kind (name = the kind).

    ``campaign fields unit { ... }`` sets ``campaign``: the fields are ordinary fields in the
    rules, but a campaign loads their values from a sheet and writes them back after a game.
    """

    fields: tuple[FieldDecl, ...]
    campaign: bool = field(default=False, kw_only=True)


@dataclass(frozen=True, slots=True)
class Prop(Node):
    name: str
    value: Expr


@dataclass(frozen=True, slots=True)
class TraitDecl(Decl):
    traits: tuple[str, ...]
    props: tuple[Prop, ...]


@dataclass(frozen=True, slots=True)
class Definition(Decl):
    """``KIND NAME "Title" is TRAITS { props }``: a unit type, a terrain, a card, …"""

    kind: str
    title: str | None
    traits: tuple[str, ...]
    props: tuple[Prop, ...]
    kind_span: Span = field(default=NOWHERE, compare=False, repr=False, kw_only=True)


@dataclass(frozen=True, slots=True)
class OptionDecl(Decl):
    type: TypeRef
    default: Expr
    doc: str | None


@dataclass(frozen=True, slots=True)
class TableDecl(Decl):
    key_type: TypeRef
    value_type: TypeRef
    entries: tuple[tuple[Expr, Expr], ...]


@dataclass(frozen=True, slots=True)
class Param(Node):
    name: str
    type: TypeRef
    default: Expr | None = None


@dataclass(frozen=True, slots=True)
class FunctionDecl(Decl):
    params: tuple[Param, ...]
    returns: TypeRef
    body: Expr


@dataclass(frozen=True, slots=True)
class ProcedureDecl(Decl):
    params: tuple[Param, ...]
    returns: TypeRef | None
    body: Block
    #: a described procedure is public: an entry point for scenario tests and other packs
    doc: str | None = None


@dataclass(frozen=True, slots=True)
class EventDecl(Decl):
    params: tuple[Param, ...]
    #: a described event is public: meant for the event log, scenario tests and other packs
    doc: str | None = None


@dataclass(frozen=True, slots=True)
class TriggerDecl(Decl):
    timing: str  # before | on | after | instead
    event: str
    guard: Expr | None
    optional_by: Expr | None
    priority: int
    body: Block
    event_span: Span = field(default=NOWHERE, compare=False, repr=False, kw_only=True)
    #: ``optional by SIDE prefer P``: the answer a judging player gives (greedy, search)
    optional_prefer: Expr | None = field(default=None, kw_only=True)


@dataclass(frozen=True, slots=True)
class GameDecl(Decl):
    title: str | None
    blocks: tuple[tuple[str, Block], ...]
    settings: tuple[Prop, ...]


@dataclass(frozen=True, slots=True)
class Module(Node):
    """One parsed ``.lore`` file."""

    path: str
    pack: Pack | None
    uses: tuple[Use, ...]
    decls: tuple[Decl, ...]
