"""What the passes of :func:`.declare.declare` share: the rule set being filled in, the name
table, the lowerer, and the diagnostics found so far.

Each pass (:mod:`.declare_shapes`, :mod:`.declare_bodies`) is a plain function of one
:class:`Declaring`; the passes run in the order :data:`.declare.PASSES` lists, so each may
rely on what the ones before it declared. The state is a dataclass rather than a closure so
that a pass is a small function that can be read, typed and tested alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TypeVar

from ..dsl import ast
from . import ir
from .fieldwise import Fieldwise
from .findings import Findings
from .lower import Context, Lowerer
from .model import RuleSet
from .names import Layer, NameTable
from .packs import LoadedPacks

D = TypeVar("D", bound=ast.Decl)


@dataclass(frozen=True)
class Declared:
    """A declaration in force, with its key and the pack and file it is written in."""

    key: str
    decl: ast.Decl
    pack: str
    file: str


@dataclass(frozen=True)
class OfKind:
    """A block of fields (``kind``, ``fields`` or an override of a kind) and the key of the kind
    it gives fields to: None when no pack declares that kind, "" when that was reported."""

    decl: ast.KindDecl | ast.FieldsDecl
    pack: str
    file: str
    kind: str | None


@dataclass
class Declaring:
    """The state of one run of :func:`.declare.declare`."""

    loaded: LoadedPacks
    rules: RuleSet
    table: NameTable
    lowerer: Lowerer
    found: Findings
    fieldwise: Fieldwise
    #: the ``fields`` blocks, with their pack and file (they declare no name of their own)
    fields_decls: list[tuple[ast.FieldsDecl, str, str]]
    #: every declaration in force, in declaration order
    decls: list[Declared] = field(default_factory=list)
    #: traits, definitions and kinds: the original declaration, then each override (fieldwise.py)
    layers: dict[str, list[Layer]] = field(default_factory=dict)
    #: every block of fields, set by the fields pass; its field defaults are lowered later
    all_fields: list[OfKind] = field(default_factory=list)
    #: per node ("procedure NAME", "trigger NAME", "game BLOCK"): procedures called, events emitted
    calls: dict[str, set[str]] = field(default_factory=dict)
    emits: dict[str, set[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.decls = [Declared(e.key, e.decl, e.pack, e.file) for e in self.table.in_force()]
        self.layers = {e.key: e.layers for e in self.table.in_force() if e.layers}

    def of(self, cls: type[D]) -> Iterator[tuple[str, D, str, str]]:
        """(key, declaration, pack, file) of each declaration in force of class ``cls``, in order."""
        for d in self.decls:
            if isinstance(d.decl, cls):
                yield d.key, d.decl, d.pack, d.file

    def kept(self, decl: ast.Decl) -> str | None:
        """For an override that calls super(…): the key of the declaration it replaces."""
        kept = self.table.super_of.get(id(decl))
        return kept.key if kept is not None else None

    def node(self, name: str, ctx: Context) -> None:
        """Record what the node ``name`` (``procedure p``, ``trigger t``, ``game round``) calls
        and emits, as its body's lowering found."""
        self.calls[name] = ctx.calls
        self.emits[name] = ctx.emits


def origin(file: str, node: ast.Node) -> ir.Origin:
    return ir.Origin(file, node.span)
