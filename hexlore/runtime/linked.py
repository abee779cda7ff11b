"""What every part of the linker shares: the closure types, the two ways rules fail or end
the game, the number rule of Lore, and what a part may use of the Linker.

Kept below the linker's parts (``link_*.py``, composed in ``interpreter.py``) so that each
part, the built-ins that raise :class:`RuleError` and :class:`GameOver`, and the game that
catches them import it without importing the linking machinery.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Callable

from ..compiler import ir
from ..compiler.model import FaceSpec

if TYPE_CHECKING:
    from ..compiler.model import RuleSet
    from .game import Game
    from .memo import Memo
    from .state import GameState

Env = dict
XFn = Callable[[Env], object]
SFn = Callable[[Env], None]


class RuleError(Exception):
    """A rule failed at run time (a none where a unit was needed, a bound exceeded…)."""

    def __init__(self, message: str, origin: ir.Origin | None = None, hint: str | None = None):
        super().__init__(message)
        self.origin = origin
        self.hint = hint


class GameOver(Exception):
    """The rules ended the game (``win``, ``draw_game``): raised through every rule running,
    so that nothing after the end runs, and caught where the game runs rules."""


#: Rule files are untrusted: a game's loops may run this many steps in all, and no list may
#: hold more items, so a loop that never ends or a list that doubles each time stops with a
#: located error instead of running for ever or exhausting memory. Both are far above what
#: the bundled packs use (benchmarks/bench_interpreter.py prints a game's steps).
MAX_LOOP_STEPS = 10_000_000
MAX_LIST_ITEMS = 100_000


class LoopBudget:
    """The loop steps one game has left; every loop spends the steps it will take on entry."""

    __slots__ = ("left",)

    def __init__(self, steps: int = MAX_LOOP_STEPS):
        self.left = steps

    def spend(self, steps: int, origin: ir.Origin | None) -> None:
        self.left -= steps
        if self.left < 0:
            raise RuleError(f"the rules ran more than {MAX_LOOP_STEPS:,} loop steps in this game",
                            origin, "a loop that never ends, or nested loops that grow too fast? bound it with "
                            "a smaller 'repeat', or 'break' out of it")


def bounded_list(items: list, origin: ir.Origin | None) -> list:
    """``items``, if a list may hold that many (MAX_LIST_ITEMS)."""
    if len(items) > MAX_LIST_ITEMS:
        raise RuleError(f"a list of {len(items):,} items is more than a game may hold ({MAX_LIST_ITEMS:,})",
                        origin, "a list that grows in a loop (xs = xs + xs)? build only what the rule needs")
    return items


def as_number(value) -> int:
    """A face counts as its value and a truth value as 0 or 1 wherever Lore wants a number."""
    if isinstance(value, FaceSpec):
        return value.value
    if isinstance(value, bool):
        return int(value)
    return value


class LinkerPart:
    """A part of the Linker: the methods that link some kinds of IR nodes.

    The parts are mixed into one Linker (interpreter.py), which sets or defines what is
    declared here; each part links its children with ``x`` and ``block`` whatever part
    links them. Linking happens once per game (or once per rule set, see Linker.x): the
    closures a part returns never call back into the Linker.
    """

    _game: weakref.ref[Game]
    rules: RuleSet
    state: GameState
    memo: Memo
    loop_budget: LoopBudget
    game: Game
    x: Callable[[ir.X], XFn]
    block: Callable[[tuple[ir.S, ...]], SFn]
