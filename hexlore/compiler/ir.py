"""The compiled form of Lore behaviour: resolved, typed, ready for the runtime.

The runtime links these nodes into closures once per game; it never sees Lore text or
unresolved names. Every statement keeps its file and span so a runtime error (a ``none``
where a unit was needed, a loop bound exceeded) points at the rule that caused it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from ..diagnostics import Span


@dataclass(frozen=True, slots=True)
class Origin:
    file: str
    span: Span


NOWHERE = Origin("<builtin>", Span())


@dataclass(frozen=True, slots=True)
class X:
    """Base of expression nodes."""

    origin: Origin = field(default=NOWHERE, compare=False, repr=False, kw_only=True)


@dataclass(frozen=True, slots=True)
class Const(X):
    value: object


@dataclass(frozen=True, slots=True)
class OptionRef(X):
    name: str


@dataclass(frozen=True, slots=True)
class Local(X):
    name: str


@dataclass(frozen=True, slots=True)
class GameRef(X):
    pass


@dataclass(frozen=True, slots=True)
class GetField(X):
    obj: X
    name: str
    owner: str  # unit | side | hex | game | def | face | event | any


@dataclass(frozen=True, slots=True)
class TableGet(X):
    table: str
    key: X


@dataclass(frozen=True, slots=True)
class ListIndex(X):
    obj: X
    index: X


@dataclass(frozen=True, slots=True)
class MakeList(X):
    items: tuple[X, ...]


@dataclass(frozen=True, slots=True)
class CallBuiltin(X):
    name: str
    args: tuple[X, ...]


@dataclass(frozen=True, slots=True)
class CallFunction(X):
    name: str
    args: tuple[X, ...]


@dataclass(frozen=True, slots=True)
class CallProcedure(X):
    name: str
    args: tuple[X, ...]


@dataclass(frozen=True, slots=True)
class FunctionRef(X):
    name: str


@dataclass(frozen=True, slots=True)
class Aggregate(X):
    func: str
    var: str
    source: X
    where: X | None
    mapped: X | None


@dataclass(frozen=True, slots=True)
class Unary(X):
    op: str
    operand: X


@dataclass(frozen=True, slots=True)
class Binary(X):
    op: str
    left: X
    right: X


@dataclass(frozen=True, slots=True)
class Conditional(X):
    cond: X
    then: X
    otherwise: X


@dataclass(frozen=True, slots=True)
class IsA(X):
    """Unit/definition membership: its definition is one of ``names`` or has one of them as trait."""

    obj: X
    name: str


@dataclass(frozen=True, slots=True)
class HasTag(X):
    face: X
    tag: X


@dataclass(frozen=True, slots=True)
class Emit(X):
    event: str
    args: tuple[tuple[str, X], ...]


@dataclass(frozen=True, slots=True)
class Choose(X):
    decision: str
    var: str
    source: X
    by: X
    prefer: X | None
    default: X | None


@dataclass(frozen=True, slots=True)
class Ask(X):
    decision: str
    by: X
    prefer: X | None
    default: X | None


# ---------------------------------------------------------------- statements
@dataclass(frozen=True, slots=True)
class S:
    origin: Origin = field(default=NOWHERE, compare=False, repr=False, kw_only=True)


@dataclass(frozen=True, slots=True)
class Let(S):
    name: str
    value: X


@dataclass(frozen=True, slots=True)
class SetLocal(S):
    name: str
    op: str
    value: X


@dataclass(frozen=True, slots=True)
class SetField(S):
    obj: X
    name: str
    owner: str
    op: str
    value: X


@dataclass(frozen=True, slots=True)
class If(S):
    branches: tuple[tuple[X, tuple[S, ...]], ...]
    otherwise: tuple[S, ...]


@dataclass(frozen=True, slots=True)
class ForEach(S):
    var: str
    source: X
    body: tuple[S, ...]


@dataclass(frozen=True, slots=True)
class Repeat(S):
    times: X
    body: tuple[S, ...]


@dataclass(frozen=True, slots=True)
class While(S):
    """Loop while ``cond`` holds; each time round spends a step of the game's budget, which
    bounds the loop like every other."""

    cond: X
    body: tuple[S, ...]


@dataclass(frozen=True, slots=True)
class Require(S):
    """A rule's precondition: when ``cond`` does not hold, the action stops with R003 and
    ``message`` (a test or an odds question then reports it rather than playing on)."""

    cond: X
    message: str | None


@dataclass(frozen=True, slots=True)
class Break(S):
    pass


@dataclass(frozen=True, slots=True)
class Stop(S):
    pass


@dataclass(frozen=True, slots=True)
class Return(S):
    value: X


@dataclass(frozen=True, slots=True)
class Do(S):
    expr: X


#: IR class -> the names of its fields other than its origin (see :func:`child_fields`)
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def child_fields(node: X | S) -> tuple[str, ...]:
    """The fields of an IR node other than its origin: its children and constants. Kept per
    class, since ``dataclasses.fields`` builds a new tuple at every call and walks of the IR
    ask for every node."""
    cls = type(node)
    names = _CHILD_FIELDS.get(cls)
    if names is None:
        names = _CHILD_FIELDS[cls] = tuple(f.name for f in fields(node) if f.name != "origin")
    return names
