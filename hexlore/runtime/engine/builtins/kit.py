"""What the families of built-ins share for one game: the game, its state and helpers.

The built-ins are closures over one game (a closure cell is the cheapest thing a call can
read), made by each family's ``make`` (:mod:`.lists`, :mod:`.geometry`, :mod:`.units`,
:mod:`.moves`). The helpers several families need are made once here, as closures too, and
each family binds the ones it uses to locals of its own: a call pays no attribute look-up.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
import random
from typing import Any, Callable, Protocol

from hexlore.compiler import ir
from hexlore.compiler.model import FaceSpec, RuleSet
from hexlore.runtime.engine.core.bounds import RuleError
from hexlore.runtime.engine.core.memo import Memo
from hexlore.runtime.engine.core.state import GameState, Unit
from hexlore.runtime.geometry import grid, movement


class BuiltinsGame(Protocol):
    """What the built-ins read of their game (:class:`~hexlore.runtime.engine.game.Game`), by
    ``make_kit`` and, through ``Kit.game``, by the families. A view rather than ``Game``
    itself: game.py makes the built-ins, and a module that needs game.py's ``Game`` back, even
    for its type only, is an import cycle (tests/test_import_cycles.py). The game's parts that
    live above this package (its event log, context, compiled rules) are typed loosely here."""

    rules: RuleSet
    state: GameState
    memo: Memo
    shuffled: dict[int, list]
    turn_watchers: list
    events: Any  # event_log.EventLog (in runtime/engine, above the built-ins)
    context: Any  # context.Context (idem)
    compiled: Any  # compiled.program.CompiledRules

    @property
    def policy_rng(self) -> random.Random: ...

    def function_arity(self, name: str) -> int: ...

    def search_caller(self, name: str) -> Any: ...

    def search_caller2(self, name: str) -> Any: ...

    def roll(self, count: int, die: Any, origin: ir.Origin | None = None) -> list: ...


@dataclass(slots=True)  # not frozen: made at every new game, and a frozen one is slower to make
class Kit:
    """One game's share of the built-ins: the game (held weakly), its state and helpers."""

    game: BuiltinsGame  # a weakref.proxy of the Game: a dropped game is freed at once, not by the cyclic collector
    state: Any
    memo: Any
    board: Any
    functions: dict
    num: Callable  # a face's value, any other value as it is
    need_unit: Callable  # the unit, or a RuleError
    need_hex: Callable  # the hex, or a RuleError
    caller: Callable  # a function of the rules as a Python callable of an argument list
    never: Callable  # does this function answer false whatever it is asked?
    arity_of: Callable  # a function's number of parameters
    arity: Callable  # ... checked against the ones a built-in allows
    numbered: Callable  # the board's hexes by number (movement.BoardIndex), made once asked


def _checks() -> tuple[Callable, Callable, Callable]:
    """``num``, ``need_unit``, ``need_hex``: the values a built-in is handed, checked where
    Python would not fail by itself."""
    def num(v):
        return v.value if isinstance(v, FaceSpec) else v

    def need_unit(u, what="unit"):
        if not isinstance(u, Unit):
            raise RuleError(f"expected a {what}, got {u!r}")
        return u

    def need_hex(h):
        if not isinstance(h, grid.Hex):
            raise RuleError(f"expected a hex, got {h!r}")
        return h
    return num, need_unit, need_hex


def make_kit(real: BuiltinsGame) -> Kit:
    """The shared part of ``real``'s built-ins."""
    state = real.state
    # the game holds its built-ins: they hold it weakly, so that a dropped game is freed at
    # once rather than left to the cyclic garbage collector
    game = weakref.proxy(real)
    board = state.board
    functions = game.rules.functions

    def caller(fn):
        """Function ``fn`` as a Python callable of an argument list, looked up once per built-in
        call rather than at every hex: the same answers as game.call_function, memoised for
        searches (game.search_caller), which ask a callback the same questions again and again."""
        return None if fn is None else game.search_caller(fn)

    def never(fn) -> bool:
        """Does function ``fn`` answer false whatever it is asked: no function given (the
        default of a built-in's function-valued parameter), or one whose body is a false
        constant? A search then need not ask it at all."""
        if fn is None:
            return True
        spec = functions.get(fn) if isinstance(fn, str) else None
        return spec is not None and spec.body.__class__ is ir.Const and not spec.body.value

    arities: dict = {}  # function -> its number of parameters (asked at every search's set-up)

    def arity_of(fn) -> int:
        n = arities.get(fn)
        if n is None:
            n = arities[fn] = game.function_arity(fn)
        return n

    def arity(fn, allowed, shape):
        n = arity_of(fn)
        if n not in allowed:
            raise RuleError(f"function '{fn}' takes {n} parameter(s); here it must be {shape}")
        return n

    index: list[movement.BoardIndex] = []  # the board's index once a search has asked for it

    def numbered() -> movement.BoardIndex:
        """The board's hexes by number (made at the first search: a game that never searches,
        a scenario checked on a huge board, never pays for it; made and kept by movement, and
        held here too once asked: a search set-up asks for it several times)."""
        if index:
            return index[0]
        index.append(movement.board_index(board))
        return index[0]

    num, need_unit, need_hex = _checks()
    return Kit(game, state, game.memo, board, functions, num, need_unit, need_hex, caller, never, arity_of,
               arity, numbered)
