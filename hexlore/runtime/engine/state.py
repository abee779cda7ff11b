"""Game state: units, sides, hexes and game fields, plus how values are shown.

State is plain Python objects with one dict of fields each, so a snapshot is a deep copy
and two games never share mutable data. ``label`` turns any runtime value into the short,
stable text used in the event log and in scenario expectations.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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

    def place(self, unit: Unit, hex: Hex | None) -> None:
        if unit.hex is not None:
            here = self.occupants.get(unit.hex)
            if here and unit in here:
                here.remove(unit)
        unit.hex = hex
        if hex is not None:
            self.occupants.setdefault(hex, []).append(unit)

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
