"""Running resumable rules and stopping at chance points.

The resumable form of the rules (:mod:`hexlore.compiler.backend.resumable`) keeps each
running procedure, trigger and event dispatch in a frame on ``context.stack``. :func:`drive`
runs the top frame until the stack empties (the action is over) or a frame asks something:
a :class:`Roll` or a :class:`Choice`. The caller answers with ``Game.answer`` — rolling the
game's dice, asking the side's policy — or keeps the request and decides itself: the exact
odds engine branches there, a search player tries each option.

``Game.fork`` takes the whole configuration at such a point (the state's journal mark, copies
of the frames, the log's length, the budget and the event depth); ``Game.restore`` puts it
back, and resuming with another answer continues the rules from the state reached, with
nothing replayed.
"""

from __future__ import annotations

from typing import Any, Callable, Protocol

from hexlore.compiler.memo_plan import effect_token
from hexlore.runtime.engine.compiled.program import CompiledRules
from hexlore.runtime.engine.compiled.support import spend_list
from hexlore.runtime.engine.context import Context
from hexlore.runtime.engine.core.bounds import Budget, RuleError
from hexlore.runtime.engine.core.memo import Memo
from hexlore.runtime.engine.core.requests import CALL, RETURN, Choice, Roll
from hexlore.runtime.engine.event_log import EventLog


class DrivenGame(Protocol):
    """What the driver reads of the game whose resumable rules it runs
    (:class:`~hexlore.runtime.engine.game.Game`): a view rather than ``Game`` itself, since
    game.py drives its rules with this module and a module needing game.py back, even for its
    type only, is an import cycle (tests/test_import_cycles.py)."""

    context: Context
    compiled: CompiledRules
    memo: Memo
    events: EventLog
    budget: Budget
    builtins: dict[str, Callable]
    round_watchers: list
    forget_round: Callable[[], None]

    def answer(self, request: Roll | Choice) -> Any: ...

    def run_block(self, name: str) -> None: ...

    def call_procedure(self, name: str, args: list) -> Any: ...


def roll(game: DrivenGame, request: Roll) -> list:
    """The roll's faces from the game's roller, exactly as the direct rules roll (checks, the
    log entry, the budget)."""
    forget = game.memo.forgetter(effect_token("roll"))
    if forget is not None:
        forget()
    try:
        faces = game.builtins["roll"](request.count, request.die)
    except RuleError as exc:
        if exc.origin is None:
            exc.origin = request.origin
        raise
    except (TypeError, AttributeError, KeyError, ValueError) as exc:
        raise RuleError(f"'roll' failed: {exc}", request.origin) from exc
    return spend_list(faces, request.origin, game.budget)


def drive(game: DrivenGame, x=None, ask: Callable | None = None):
    """Run the frames on the game's stack, resuming the top one with ``x``.

    Each request goes to ``ask(request)``, which answers it or returns the request itself to
    stop there (the frames stay on the stack, ready to fork or resume). Returns the value of
    the last frame that ended (the stack is then empty), or the request it stopped at.
    """
    context = game.context
    stack = context.stack
    while stack:
        frame = stack[-1]
        signal = frame[0](context, frame, x)
        if signal is RETURN:
            stack.pop()
            x = context.result
        elif signal is CALL:
            x = None
        else:
            x = ask(signal) if ask is not None else game.answer(signal)
            if x is signal:
                return signal
    return x


# ---------------------------------------------------------------- the play loop as a frame
_SETUP, _ROUND, _AFTER_ROUND, _END, _OVER = range(5)


def play_frame(context, frame, x):
    """The game's loop (``Game.play``) as a frame, so a whole game can stop at any chance
    point: setup, then rounds until a side wins or the round limit, then the end block.
    ``frame`` is ``[play_frame, step, limit]``."""
    game, state = context.game, context.state
    while True:
        step = frame[1]
        if step == _SETUP:
            frame[1] = _ROUND
            if _run_block(game, "setup"):
                return CALL
        elif step == _ROUND:
            if state.over or state.game["round"] >= frame[2]:
                frame[1] = _END
                continue
            state.write(state.game, "round", state.game["round"] + 1)
            game.forget_round()
            game.events.record({"type": "round"})
            for watch in game.round_watchers:
                watch(game)
            frame[1] = _ROUND
            if _run_block(game, "round"):
                return CALL
        elif step == _END:
            frame[1] = _OVER
            if not state.over and _run_block(game, "end"):
                return CALL
        else:
            if not state.over:
                state.set(state, "over", True)
                game.events.record({"type": "end", "winner": None, "reason": "round limit"})
            context.result = None
            return RETURN


def _run_block(game, name: str) -> bool:
    """Run game block ``name``: directly (False) or by pushing its frame (True)."""
    machine = game.compiled.resumable.get(("block", name))
    if machine is not None:
        game.context.stack.append([machine, 0])
        return True
    game.run_block(name)
    return False


def start_call(game: DrivenGame, procedure: str, args: list) -> bool:
    """Put the frame of a call of ``procedure`` on the stack (True), or call it at once when it
    cannot stop (False; its result in ``game.context.result``)."""
    machine = game.compiled.resumable.get(("procedure", procedure))
    if machine is not None:
        game.context.stack.append([machine, 0, *args])
        return True
    game.context.result = game.call_procedure(procedure, args)
    return False
