"""The bounds a game is held to, and the two ways rules leave normal play: failing
(:class:`RuleError`, located at the rule) and ending the game (:class:`GameOver`).

Kept at the bottom of the engine so that the compiled rules' helpers, the built-ins that
raise these and the game that catches them all import it without importing each other.
"""

from __future__ import annotations

from collections.abc import Sized
from typing import TypeVar

from hexlore.compiler import ir
from hexlore.compiler.model import FaceSpec
from hexlore.diagnostics import codes
#: events nested in events (a trigger emitting, its triggers emitting…) at most this deep (the
#: same bound for the generated code and the runtime: hexlore/dsl/limits.py)
from hexlore.dsl import limits
from hexlore.dsl.limits import MAX_INT

MAX_EVENT_DEPTH = limits.MAX_EVENT_DEPTH


class RuleError(Exception):
    """A rule failed at run time (a none where a unit was needed, a bound exceeded…)."""

    code = codes.RULE_ERROR

    def __init__(self, message: str, origin: ir.Origin | None = None, hint: str | None = None):
        super().__init__(message)
        self.origin = origin
        self.hint = hint


class NumberOutOfRange(RuleError):
    """Arithmetic whose result leaves ±MAX_INT (R002): integers in hexlore are bounded so that
    a rule that squares a number in a loop stops at once instead of growing it for ever."""

    code = codes.NUMBER_OUT_OF_RANGE


def out_of_range(value: int, op: str, origin: ir.Origin | None) -> NumberOutOfRange:
    digits = len(str(abs(value))) if value.bit_length() < 10_000 else f"over {value.bit_length() * 3 // 10:,}"
    return NumberOutOfRange(f"'{op}' gave a number of {digits} digits, beyond ±{MAX_INT:,}", origin,
                            "a value multiplied in a loop? game values are small: bound the loop or the value")


class PreconditionFailed(RuleError):
    """A ``require`` of the rules does not hold (R003): the action asked for is not one the
    rules allow here (a target out of reach, a unit already eliminated)."""

    code = codes.PRECONDITION_FAILED


def precondition_failed(message: str | None, origin: ir.Origin | None):
    raise PreconditionFailed(message or "a precondition of the rules does not hold", origin,
                             "the action breaks a rule's precondition: check its arguments (a scenario "
                             "test's do:, an odds question's --action) or the position it is played in")


class GameOver(Exception):
    """The rules ended the game (``win``, ``draw_game``): raised through every rule running,
    so that nothing after the end runs, and caught where the game runs rules."""


#: Rule files are untrusted, so one budget per game bounds all the work its rules may do:
#: steps (each loop iteration, each item an aggregate reads, each item a built-in creates),
#: events dispatched, log entries and log bytes. No list may hold more than MAX_LIST_ITEMS.
#: A game past a bound stops with a located R001 naming what ran out; its log so far is
#: intact. The bounds are far above what the bundled games use (docs/language.md) and low
#: enough that a hostile pack is stopped within seconds.
MAX_STEPS = 2_000_000
MAX_EVENTS = 100_000
MAX_LOG_BYTES = 32 * 1024 * 1024
MAX_LIST_ITEMS = 100_000


class Budget:
    """What the rules of one game may still spend: each :class:`~.game.Game` owns one
    (``game.budget``), so building or playing another game never refills or drains it.

    The compiled rules are shared by every game of a rule set, so they reach the budget
    through the game's context (``R.budget``); the event log and the game's dice hold the
    same object. A fork keeps what was left (:meth:`left_now`) and a restore puts it back
    (:meth:`put_back`): a future a search plays spends nothing of the real game.
    """

    __slots__ = ("left", "events", "log_bytes")

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """The whole budget again (a new game; each run of an odds question's action)."""
        self.left, self.events, self.log_bytes = MAX_STEPS, MAX_EVENTS, MAX_LOG_BYTES

    def left_now(self) -> tuple[int, int, int]:
        """What is left: steps, events, log bytes (for :meth:`put_back`)."""
        return self.left, self.events, self.log_bytes

    def put_back(self, left: tuple[int, int, int]) -> None:
        """Have left what :meth:`left_now` said (a fork restored)."""
        self.left, self.events, self.log_bytes = left

    def spend(self, steps: int, origin: ir.Origin | None) -> None:
        self.left -= steps
        if self.left < 0:
            raise RuleError(f"the rules ran more than {MAX_STEPS:,} steps (loop iterations, items read by "
                            "aggregates or made by built-ins) in this game",
                            origin, "a loop that never ends, or nested loops or aggregates that grow too fast? "
                            "bound it with a smaller 'repeat', or 'break' out of it")

    def event(self, origin: ir.Origin | None) -> None:
        self.events -= 1
        if self.events < 0:
            raise RuleError(f"the rules dispatched more than {MAX_EVENTS:,} events or log entries in this game",
                            origin, "a trigger that emits several events for each it hears multiplies them at "
                            "every level: emit fewer, or guard the trigger")

    def write(self, size: int) -> None:
        self.log_bytes -= size
        if self.log_bytes < 0:
            raise RuleError(f"the game's log passed {MAX_LOG_BYTES:,} bytes", None,
                            "events with very large arguments (long lists) in a loop? log less")


_Items = TypeVar("_Items", bound=Sized)  # a list, or a range measured before it is made one


def bounded_list(items: _Items, origin: ir.Origin | None) -> _Items:
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
