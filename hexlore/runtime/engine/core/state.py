"""Game state: units, sides, hexes and game fields, plus how values are shown.

State is plain Python objects with one dict of fields each, so a snapshot is a deep copy
and two games never share mutable data. ``label`` turns any runtime value into the short,
stable text used in the event log and in scenario expectations.

A state forks cheaply through its **journal**: once :meth:`GameState.mark` has been called,
every change (a field set, a unit placed, a list changed in place) first records what it
replaces, and :meth:`GameState.undo` puts back everything changed since a mark, newest
first. Exact odds branch at a chance point this way, and a search player tries a move and
takes it back, paying for what changed rather than for the whole state.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Hashable

from hexlore.compiler.model import DefinitionSpec, DieSpec, FaceSpec, Symbol
from hexlore.runtime.geometry.grid import Board, Hex


class Unit:
    """A piece on the board: its definition (unit type), side, hex and mutable fields."""

    __slots__ = ("id", "definition", "side", "hex", "alive", "f")

    def __init__(self, id: str, definition: DefinitionSpec, side: "Side", hex: Hex | None, fields: dict):
        self.id = id
        self.definition = definition
        self.side = side
        self.hex = hex
        self.alive = True
        self.f = fields

    def __repr__(self) -> str:
        return f"Unit({self.id})"


class Side:
    __slots__ = ("name", "edge", "index", "f")

    def __init__(self, name: str, edge: str, index: int, fields: dict):
        self.name = name
        self.edge = edge
        self.index = index
        self.f = fields

    def __repr__(self) -> str:
        return f"Side({self.name})"


class EventRecord:
    """One emitted event; ``before`` triggers may change its arguments."""

    __slots__ = ("name", "args", "replaced")

    def __init__(self, name: str, args: dict):
        self.name = name
        self.args = args
        self.replaced = False

    def __repr__(self) -> str:
        return f"Event({self.name})"


#: what a journal records for a key a dict did not hold
MISSING = object()
_KEY, _ATTRIBUTE, _LIST = 0, 1, 2


@dataclass
class GameState:
    board: Board
    units: dict[str, Unit] = field(default_factory=dict)
    sides: list[Side] = field(default_factory=list)
    hex_fields: dict[Hex, dict] = field(default_factory=dict)
    game: dict = field(default_factory=dict)
    occupants: dict[Hex, list[Unit]] = field(default_factory=dict)
    winner: Side | None = None
    over: bool = False
    #: the side whose turn came first (the first player)
    opener: Side | None = None
    #: what each change replaced, oldest first, while a fork may be taken back (None: not kept)
    journal: list | None = None

    # ------------------------------------------------------------ changes, journalled
    def write(self, fields: dict, key: Hashable, value) -> None:
        """``fields[key] = value`` (a unit's, side's, hex's or the game's fields)."""
        journal = self.journal
        if journal is not None:
            journal.append((_KEY, fields, key, fields.get(key, MISSING)))
        fields[key] = value

    def set(self, obj, attribute: str, value) -> None:
        """``obj.attribute = value`` (a unit's hex or life, the state's winner or end)."""
        journal = self.journal
        if journal is not None:
            journal.append((_ATTRIBUTE, obj, attribute, getattr(obj, attribute)))
        setattr(obj, attribute, value)

    def will_change(self, items: list) -> None:
        """``items`` is about to change in place (push, pop, remove, shuffle)."""
        journal = self.journal
        if journal is not None:
            journal.append((_LIST, items, list(items), None))

    def mark(self) -> int:
        """Start keeping the journal (if not yet) and return where it stands now."""
        if self.journal is None:
            self.journal = []
        return len(self.journal)

    def undo(self, mark: int) -> None:
        """Put back every change made since ``mark``, newest first."""
        journal = self.journal
        if journal is None:  # nothing was marked: a caller's mistake, not a state to put back
            raise RuntimeError("undo() needs a mark() first")
        while len(journal) > mark:
            kind, target, key, old = journal.pop()
            if kind == _KEY:
                if old is MISSING:
                    del target[key]
                else:
                    target[key] = old
            elif kind == _ATTRIBUTE:
                setattr(target, key, old)
            else:
                target[:] = key

    def place(self, unit: Unit, hex: Hex | None) -> None:
        if unit.hex is not None:
            here = self.occupants.get(unit.hex)
            if here and unit in here:
                self.will_change(here)
                here.remove(unit)
        self.set(unit, "hex", hex)
        if hex is not None:
            here = self.occupants.get(hex)
            if here is None:
                self.write(self.occupants, hex, [unit])
            else:
                self.will_change(here)
                here.append(unit)

    def units_at(self, hex: Hex) -> list[Unit]:
        return list(self.occupants.get(hex, ()))

    def on_board(self) -> list[Unit]:
        return [u for u in self.units.values() if u.alive and u.hex is not None]

    def side(self, name: str) -> Side | None:
        for s in self.sides:
            if s.name == name:
                return s
        return None


def label(value, board: Board | None = None):
    """The stable, JSON-ready form of a runtime value (log lines, test comparisons)."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, Unit):
        return value.id
    if isinstance(value, Side):
        return value.name
    if isinstance(value, Hex):
        if board is not None and value in board:
            return board.label(value)
        return f"{value.q},{value.r}"
    if isinstance(value, (FaceSpec, DefinitionSpec, Symbol, DieSpec)):
        return value.name
    if isinstance(value, EventRecord):
        return value.name
    if isinstance(value, (list, tuple)):
        return [label(v, board) for v in value]
    return str(value)
