"""What a loaded scenario is: its sides, units and tests as the file gives them, with the
place of every YAML node (the codes of its problems are in hexlore/diagnostics/codes.py).

Below the loader (scenario.py, scenario_builder.py) and the game, which reports problems of
the same kinds (an unknown side, a hex off the board) once it knows the packs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hexlore.diagnostics import Source, Span
from hexlore.runtime.geometry.grid import Board, Hex
from hexlore.runtime.scenarios.located_yaml import JsonPath, nearest_span


@dataclass(frozen=True)
class UnitPlacement:
    """A unit as the scenario places it; ``span`` covers its YAML mapping.

    ``index`` is its position in ``units:`` (items with errors may be left out of a partial
    scenario, so list positions and YAML positions can differ). ``hex`` is ``None`` when the
    unit starts off the board (``off_board``: no hex, or ``hex: null``) and, in a partial
    scenario, when the label did not parse.
    """

    id: str
    type: str
    side: str
    hex: Hex | None
    fields: dict
    span: Span
    index: int = -1
    off_board: bool = False


@dataclass(frozen=True)
class SideSpec:
    """One side; ``edge`` is its own (home) edge, ``policy`` how it plays unscripted."""

    name: str
    edge: str
    policy: str
    fields: dict
    span: Span
    index: int = -1


@dataclass(frozen=True)
class Action:
    """One procedure call in a test's ``do`` list."""

    call: str
    args: dict
    span: Span


@dataclass(frozen=True)
class ScenarioTest:
    """A scripted rules test (``index``: its position in ``tests:``).

    ``given`` maps unit id -> overrides, and ``expect["units"][id]["hex"]`` is
    converted to a :class:`Hex` (``None`` stays ``None``); labels are case-insensitive,
    so comparing parsed hexes rather than strings avoids "f7" != "F7" surprises.
    """

    name: str
    given: dict
    actions: tuple[Action, ...]
    dice: tuple[tuple, ...]
    decisions: dict
    expect: dict
    span: Span
    index: int = -1


@dataclass
class Scenario:
    """A loaded, structurally valid scenario; pack-dependent checks happen later."""

    path: str
    name: str
    description: str
    packs: list[str]
    seed: int
    board: Board
    terrain: dict[Hex, str]
    sides: list[SideSpec]
    units: list[UnitPlacement]
    options: dict
    decks: dict
    max_rounds: int | None
    decisions: dict
    tests: list[ScenarioTest]
    source: Source
    spans: dict[JsonPath, Span] = field(default_factory=dict, repr=False)
    key_spans: dict[JsonPath, Span] = field(default_factory=dict, repr=False)
    #: every side name and unit id the file declares, even on items with errors (partial scenarios)
    side_names: "NameSet | None" = field(default=None, repr=False)
    unit_ids: "NameSet | None" = field(default=None, repr=False)

    def lacks_side(self, name: str) -> bool:
        """Is ``name`` certainly not a side of this scenario? (False when errors hide some sides.)"""
        if self.side_names is None:
            return all(s.name != name for s in self.sides)
        return self.side_names.lacks(name)

    def lacks_unit(self, unit_id: str) -> bool:
        """Is ``unit_id`` certainly not a unit of this scenario? (False when errors hide some units.)"""
        if self.unit_ids is None:
            return all(u.id != unit_id for u in self.units)
        return self.unit_ids.lacks(unit_id)

    def span_of(self, *path: Any) -> Span:
        """Span of the YAML node at ``path`` (e.g. ``("units", 0, "hex")``).

        Falls back to the nearest existing parent so later stages (the runner, the
        pack checker) can always point somewhere sensible, even at keys that are absent.
        """
        return nearest_span(self.spans, tuple(path))

    def key_span_of(self, *path: Any) -> Span:
        """Span of the key that names the node at ``path`` (``options: {max_turns: 3}``: ``max_turns``).

        For names that are keys, an unknown name is best shown at the name, not at its value.
        """
        return self.key_spans.get(tuple(path)) or self.span_of(*path)


@dataclass
class NameSet:
    """Names a section declares; not ``complete`` when a broken item may hide one.

    References are checked only against complete sets, so one mistake in ``units:`` does
    not turn every mention of that unit in ``tests:`` into a second, misleading error.
    """

    names: set[str] = field(default_factory=set)
    complete: bool = True

    def lacks(self, name: str) -> bool:
        return self.complete and name not in self.names


def unknown_side_message(unit_id: str, side: str) -> str:
    """Shared with the pack checks, so a unit of an unknown side is reported once."""
    return f"unit {unit_id!r} belongs to unknown side {side!r}"
