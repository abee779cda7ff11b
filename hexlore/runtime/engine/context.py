"""What compiled rules see of one game: its tables, its built-ins, its memo and its log.

The generated functions of a rule set (:mod:`hexlore.runtime.engine.compiled`) are shared by
every game of a process; each call receives the game's :class:`Context` as ``R``. The context
holds the game's mutable dicts and per-game callables directly (slots: one attribute read
each) and the game itself only weakly, so a dropped game is freed at once, without the cyclic
garbage collector.
"""

from __future__ import annotations

import weakref
from typing import Any, Protocol

from hexlore.compiler import ir
from hexlore.compiler.memo_plan import EVENT, LISTS, effect_token
from hexlore.runtime.engine.compiled.program import CompiledRules
from hexlore.runtime.engine.core.bounds import MAX_EVENT_DEPTH, Budget, RuleError
from hexlore.runtime.engine.core.memo import Memo
from hexlore.runtime.engine.core.state import GameState
from hexlore.runtime.engine.event_log import EventLog
from hexlore.runtime.engine.setup import ScenarioValues


class ContextGame(Protocol):
    """What a :class:`Context` reads of its game (:class:`~hexlore.runtime.engine.game.Game`):
    a view rather than ``Game`` itself, since game.py makes the context and a module needing
    game.py back, even for its type only, is an import cycle (tests/test_import_cycles.py)."""

    state: GameState
    memo: Memo
    events: EventLog
    budget: Budget
    values: ScenarioValues
    options: dict
    tables: dict

    def decide(self, name: str, side: Any, options: list, scores: Any, default: Any, origin: Any) -> int: ...


def _forgetting(impl, forget):
    """A built-in that changes the game: it forgets the memoised results that read what it
    changes, then acts (no Lore runs in between, so before is the same as after, and holds
    when it raises: ``win`` ends the game)."""
    def changing(*args):
        forget()
        return impl(*args)
    return changing


class Context:
    __slots__ = ("game", "options", "tables", "board", "hex_fields", "game_fields", "definition_values",
                 "load_definition", "builtins", "forget", "plans", "memo", "depth", "events", "forget_event", "state",
                 "stack", "result", "_definition_lists", "budget",
                 "__weakref__")

    def __init__(self, game: ContextGame, compiled: CompiledRules, builtins: dict):
        self.game = weakref.proxy(game)
        state, memo = game.state, game.memo
        self.options = game.options
        self.tables = game.tables
        self.state = state
        self.board = state.board
        self.hex_fields = state.hex_fields
        self.game_fields = state.game
        self.definition_values = game.values.def_values
        self.load_definition = game.values.definition_values
        self.memo = memo
        self.events = game.events
        self.budget = game.budget  # the game's own (compiled code spends it as R.budget)
        self.depth = 0
        self.stack: list[list] = []  # the frames of resumable rules running now (engine/resume.py)
        self.result = None  # what the last resumable frame to end gave
        self._definition_lists = game.values.definition_lists
        self.builtins = tuple(self._builtin(builtins[name], name) for name in compiled.builtin_names)
        self.forget = tuple(memo.forgetter(token) for token in compiled.forget_tokens)
        self.plans = tuple(memo.plan(name) for name in compiled.memoised)
        self.forget_event = memo.forgetter(EVENT)

    def _builtin(self, impl, name: str):
        if effect_token(name) == LISTS:  # a list changed in place: a definition's, or another
            return self.memo.list_changer(impl, self._definition_lists)
        forget = self.memo.forgetter(effect_token(name))
        return impl if forget is None else _forgetting(impl, forget)

    # ------------------------------------------------------------ called by compiled code
    def decide(self, name: str, side, options: list, scores, default, origin: ir.Origin) -> int:
        return self.game.decide(name, side, options, scores, default, origin)

    def too_deep(self, event: str, origin: ir.Origin):
        raise RuleError(f"events nested deeper than {MAX_EVENT_DEPTH} while emitting '{event}': "
                        "a cycle of triggers never ends", origin)
