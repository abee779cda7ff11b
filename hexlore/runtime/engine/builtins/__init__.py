"""Implementations of the built-ins recorded in :mod:`hexlore.compiler.builtins`.

Each record names its family; the family's module here (:mod:`.lists`, :mod:`.geometry`,
:mod:`.units`, :mod:`.moves`) implements it under the record's name, as a closure over one
game. :func:`make_builtins` asks every family for its built-ins, so that the dispatch of a
game is derived from the records: a record with no implementation, or an implementation with
no record, fails here at once, and tests/test_builtin_records.py fails on one in another
family than its record says. None of them knows
a game's rules: the packs combine them into rules.
"""

from __future__ import annotations

from types import ModuleType
from typing import Callable

from hexlore.compiler.builtins import BUILTINS
from hexlore.runtime.engine.builtins import geometry, lists, moves, units
from hexlore.runtime.engine.builtins.kit import BuiltinsGame, make_kit
from hexlore.runtime.engine.builtins.moves import units_next_to_of

__all__ = ["FAMILY_MODULES", "make_builtins", "units_next_to_of"]

#: the modules implementing the families of built-ins, in the order they are made (the
#: movement searches read the lists of units, made before them)
FAMILY_MODULES: tuple[ModuleType, ...] = (lists, geometry, units, moves)


class MissingBuiltin(LookupError):
    """A record with no implementation or the reverse: hexlore itself is broken, not a pack."""


def make_builtins(game: BuiltinsGame) -> dict[str, Callable]:
    """Built-in name -> its implementation for ``game``, for every record (made at every new
    game: kept to one pass over the families)."""
    kit = make_kit(game)
    made: dict[str, Callable] = {}
    for family in FAMILY_MODULES:
        made.update(family.make(kit, made))
    if len(made) != len(BUILTINS) or not made.keys() >= BUILTINS.keys():
        missing, extra = sorted(BUILTINS.keys() - made.keys()), sorted(made.keys() - BUILTINS.keys())
        raise MissingBuiltin("; ".join(
            [f"built-in {name} has a record but no implementation" for name in missing]
            + [f"built-in {name} has an implementation but no record" for name in extra])
            + " (hexlore/compiler/builtins.py, hexlore/runtime/engine/builtins/)")
    return made
