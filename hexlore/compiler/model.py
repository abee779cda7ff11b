"""The compiled rule set: everything the runtime needs, nothing it has to parse.

A :class:`RuleSet` is what ``compile_packs`` returns: resolved definitions, typed IR for
every function, procedure and trigger, the game declaration, the event-trigger graph and
the diagnostics found on the way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import FrozenInstanceError, dataclass, field
from enum import Enum
from typing import Callable, TypeVar

from ..diagnostics import Diagnostic, Source
from . import ir
from .types import Type

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Symbol:
    """An enum value or a tag: compared by identity of (group, name)."""

    group: str
    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class FaceSpec:
    die: str
    name: str
    value: int
    tags: frozenset[str]  # names of tags and enum values, plus the face's own label

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class DieSpec:
    name: str
    title: str | None
    faces: tuple[FaceSpec, ...]
    origin: ir.Origin

    def face(self, label: str) -> FaceSpec | None:
        for f in self.faces:
            if f.name == label:
                return f
        return None


@dataclass(frozen=True)
class FieldSpec:
    name: str
    type: Type
    default: ir.X | None
    origin: ir.Origin
    builtin: bool = False
    #: the pack that declared the field: only definitions of packs that see it must set it
    pack: str = ""
    #: declared with ``campaign fields``: a campaign loads it from a sheet and writes it back
    campaign: bool = False


@dataclass
class KindSpec:
    """A kind of thing: built-in (unit, side, hex, game, terrain, card) or declared with ``kind``."""

    name: str
    fields: dict[str, FieldSpec]
    builtin: bool
    origin: ir.Origin


@dataclass(frozen=True, eq=False)
class DefinitionSpec:
    """A unit type, a terrain, a card…: constant values, traits included transitively.

    A definition is one thing, named once in a rule set: specs compare and hash by kind and
    name. Options and tables are lowered before definitions get their values, so they hold
    the first, empty spec of a definition they name; it must still equal the final one (the
    runtime reads values and traits from ``RuleSet.definitions`` by name).
    """

    kind: str
    name: str
    title: str
    traits: frozenset[str]
    values: tuple[tuple[str, ir.X], ...]
    origin: ir.Origin
    pack: str

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DefinitionSpec):
            return NotImplemented
        return self.kind == other.kind and self.name == other.name

    def __hash__(self) -> int:
        return hash((self.kind, self.name))

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class TraitSpec:
    name: str
    traits: tuple[str, ...]
    values: tuple[tuple[str, ir.X], ...]
    origin: ir.Origin


@dataclass(frozen=True)
class ParamSpec:
    name: str
    type: Type
    default: ir.X | None


@dataclass(frozen=True)
class EventSpec:
    name: str
    params: tuple[ParamSpec, ...]
    origin: ir.Origin
    pack: str
    #: the description of a public event (for the log, scenario tests and other packs)
    doc: str | None = None


@dataclass(frozen=True)
class FunctionSpec:
    name: str
    params: tuple[ParamSpec, ...]
    returns: Type
    body: ir.X
    origin: ir.Origin


@dataclass(frozen=True)
class ProcedureSpec:
    name: str
    params: tuple[ParamSpec, ...]
    returns: Type | None
    body: tuple[ir.S, ...]
    origin: ir.Origin
    pack: str
    #: a described procedure's description (completion after ``call:`` in a scenario shows it)
    doc: str | None = None


class Timing(str, Enum):
    """When a trigger runs against its event: ``before`` it is logged (and may change its
    arguments), ``instead`` of the ``on`` triggers (the first that runs replaces the event),
    ``on`` it, or ``after`` all of those. A ``str`` so the graph and its JSON keep the words."""

    BEFORE = "before"
    INSTEAD = "instead"
    ON = "on"
    AFTER = "after"


@dataclass(frozen=True)
class TriggerSpec:
    name: str
    timing: Timing
    event: str
    guard: ir.X | None
    optional_by: ir.X | None
    priority: int
    body: tuple[ir.S, ...]
    params: tuple[str, ...]
    order: int
    origin: ir.Origin
    pack: str
    #: ``optional by SIDE prefer P``: the answer a judging player gives (a bool)
    optional_prefer: ir.X | None = None


@dataclass(frozen=True)
class Dispatch:
    """The triggers that listen to one event, by timing, each group in the order it runs."""

    before: tuple[TriggerSpec, ...] = ()
    instead: tuple[TriggerSpec, ...] = ()
    on: tuple[TriggerSpec, ...] = ()
    after: tuple[TriggerSpec, ...] = ()


def dispatch_table(triggers: list[TriggerSpec]) -> dict[str, Dispatch]:
    """Event name -> its :class:`Dispatch`, triggers kept in the rule set's order. The graph
    shows this table and the runtime runs it: there is one."""
    grouped: dict[str, dict[Timing, list[TriggerSpec]]] = {}
    for t in triggers:
        grouped.setdefault(t.event, {timing: [] for timing in Timing})[t.timing].append(t)
    return {event: Dispatch(**{timing.value: tuple(ts) for timing, ts in by.items()})
            for event, by in grouped.items()}


@dataclass(frozen=True)
class OptionSpec:
    name: str
    type: Type
    default: ir.X
    doc: str | None
    origin: ir.Origin


@dataclass(frozen=True)
class TableSpec:
    name: str
    key_type: Type
    value_type: Type
    entries: tuple[tuple[object, ir.X], ...]
    origin: ir.Origin


@dataclass(frozen=True)
class GameSpec:
    name: str
    title: str | None
    blocks: dict[str, tuple[ir.S, ...]]
    settings: dict[str, ir.X]
    origin: ir.Origin


@dataclass
class RuleSet:
    """The output of the compiler and the only input the runtime needs besides a scenario."""

    packs: list[str] = field(default_factory=list)
    sources: dict[str, Source] = field(default_factory=dict)
    enums: dict[str, tuple[Symbol, ...]] = field(default_factory=dict)
    symbols: dict[str, Symbol] = field(default_factory=dict)  # enum values and tags by name
    dice: dict[str, DieSpec] = field(default_factory=dict)
    kinds: dict[str, KindSpec] = field(default_factory=dict)
    traits: dict[str, TraitSpec] = field(default_factory=dict)
    definitions: dict[str, DefinitionSpec] = field(default_factory=dict)
    options: dict[str, OptionSpec] = field(default_factory=dict)
    tables: dict[str, TableSpec] = field(default_factory=dict)
    events: dict[str, EventSpec] = field(default_factory=dict)
    functions: dict[str, FunctionSpec] = field(default_factory=dict)
    procedures: dict[str, ProcedureSpec] = field(default_factory=dict)
    triggers: list[TriggerSpec] = field(default_factory=list)
    #: event -> the triggers that run when it is emitted (:func:`dispatch_table`), set by compile_packs
    dispatch: dict[str, Dispatch] = field(default_factory=dict)
    game: GameSpec | None = None
    graph: "object | None" = None  # EventTriggerGraph, set by compile_packs
    #: per node ("procedure NAME", "trigger NAME", "game BLOCK"): procedures called, events emitted
    calls: dict[str, set[str]] = field(default_factory=dict)
    emits: dict[str, set[str]] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: qualified name (``pack.name``, the original pack's or an overriding pack's) -> key; the
    #: keys above are plain names unless two packs of the rule set declare the name (names.py)
    qualified: dict[str, str] = field(default_factory=dict)
    #: names the packs wrote qualified (bl.hit): the unused-declaration check counts them as used
    written_qualified: set[str] = field(default_factory=set)
    #: pack -> the packs whose names it sees (itself and what it uses, transitively): an
    #: editor completes only what the pack at the cursor may write
    visible: dict[str, set[str]] = field(default_factory=dict)
    #: what later stages compute from the finished rule set, once (the memo's analyses, the
    #: generated code, the runtime's functions): kept on the rule set, so they live and die
    #: with it, rather than in module dicts keyed by ``id(rules)`` (see :meth:`derived`)
    _derived: dict[str, object] = field(default_factory=dict, init=False, repr=False, compare=False)
    _frozen: bool = field(default=False, init=False, repr=False, compare=False)

    def __setattr__(self, name: str, value: object) -> None:
        if self.__dict__.get("_frozen"):
            raise FrozenInstanceError(f"cannot set '{name}': a rule set is frozen once compiled "
                                      "(what was derived from it would no longer match)")
        object.__setattr__(self, name, value)

    def freeze(self) -> None:
        """No attribute may be set from now on: the last stage of the compiler has run (or
        something was derived from the rule set, which must then never change under it)."""
        object.__setattr__(self, "_frozen", True)

    @property
    def frozen(self) -> bool:
        return self._frozen

    def derived(self, key: str, compute: Callable[["RuleSet"], T]) -> T:
        """``compute(self)``, made on first use and kept on the rule set (which freezes it).

        Why here: the backend's generated code and the memo's analyses are made once per rule
        set and must be forgotten with it; a module dict keyed by ``id(rules)`` needed weakrefs
        and could answer for a new rule set at an old one's address. ``key`` names the product
        (one per module that derives one, e.g. ``"memo plan"``)."""
        if key in self._derived:
            return self._derived[key]  # type: ignore[return-value]
        self.freeze()
        value = self._derived[key] = compute(self)
        return value

    @property
    def ok(self) -> bool:
        return not any(d.is_error for d in self.diagnostics)

    def find(self, table: Mapping[str, object], written: str) -> str | None:
        """The key in ``table`` (``self.units``, ``self.events``…) of a name a scenario writes:
        unqualified when one pack of the rule set declares it, qualified (``pack.name``) always."""
        if written in table:
            return written
        key = self.qualified.get(written)
        return key if key is not None and key in table else None

    def homonyms(self, table: Mapping[str, object], written: str) -> list[str]:
        """The full names in ``table`` of the things called ``written``, when several packs
        declare that name (so the unqualified name is ambiguous); else none."""
        return sorted(k for k in table if self.qualified.get(k) == k and k.rpartition(".")[2] == written
                      and "." in k)

    def name_hint(self, table: Mapping[str, object], written: str) -> str | None:
        """For a scenario's name that :meth:`find` does not know: which full names it may mean."""
        homonyms = self.homonyms(table, written)
        if not homonyms:
            return None
        return f"several packs declare '{written}': write one of {', '.join(homonyms)}"

    def definitions_of(self, kind: str) -> list[DefinitionSpec]:
        return [d for d in self.definitions.values() if d.kind == kind]
