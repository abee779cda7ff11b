"""Built-ins of the family ``lists``: dice, numbers, lists and text.

Their records (signature, effect, what they read and change) are in
:mod:`hexlore.compiler.builtins`; this module implements each under its record's name.
"""

from __future__ import annotations

from collections import Counter
from typing import Callable

from hexlore.compiler.builtins import LISTS_FAMILY
from hexlore.runtime.engine.core.bounds import MAX_LIST_ITEMS, RuleError, bounded_list
from hexlore.runtime.engine.builtins.kit import Kit
from hexlore.runtime.engine.core.state import label

FAMILY = LISTS_FAMILY


def _numbers(num: Callable) -> dict[str, Callable]:
    """Numbers and the reading of lists: pure, asked everywhere (ints take no detour by num)."""
    def smallest(*xs):
        if len(xs) == 2:  # min(a, b) of two ints, nearly every call: no generator, no num
            a, b = xs
            if a.__class__ is int and b.__class__ is int:
                return a if a <= b else b
        return min(num(x) for x in xs)

    def largest(*xs):
        if len(xs) == 2:
            a, b = xs
            if a.__class__ is int and b.__class__ is int:
                return a if a >= b else b
        return max(num(x) for x in xs)

    def groups(pool):
        return sorted(Counter(getattr(f, "name", f) for f in pool).values(), reverse=True)

    def first(items):
        return items[0] if items else None

    def last(items):
        return items[-1] if items else None

    def without(items, item):
        out = list(items)
        if item in out:
            out.remove(item)
        return out

    def numbers_from(lo, hi):
        if hi - lo + 1 > MAX_LIST_ITEMS:  # checked before the list is made
            bounded_list(range(lo, hi + 1), None)
        return list(range(lo, hi + 1))

    return {
        "groups": groups, "count": lambda items: len(items), "sum": lambda items: sum(num(v) for v in items),
        "max": largest, "min": smallest,
        "abs": lambda n: abs(n) if n.__class__ is int else abs(num(n)), "range": numbers_from,  # ints: no num
        "empty": lambda items: not items, "first": first, "last": last, "without": without,
    }


def make(kit: Kit, made: dict[str, Callable]) -> dict[str, Callable]:
    """The family's built-ins for the game of ``kit``, by name (``made``: the families made before)."""
    game, state, board = kit.game, kit.state, kit.board

    def roll(count, die):
        if die is None:
            raise RuleError("roll of no die")
        return game.roll(int(count), die)

    def shuffle(items):
        state.will_change(items)
        game.policy_rng.shuffle(items)
        game.shuffled[id(items)] = items  # an order no player knows (a searching player deals it anew)

    def pop(items):
        if not items:
            return None
        state.will_change(items)
        return items.pop(0)

    def remove(items, item):
        if item in items:
            state.will_change(items)
            items.remove(item)

    def push(items, item):
        state.will_change(items)
        items.append(item)
        bounded_list(items, None)

    def text(value):
        shown = label(value, board)
        return shown if isinstance(shown, str) else str(shown)

    return {"roll": roll, "shuffle": shuffle, "push": push, "pop": pop, "remove": remove, "text": text,
            **_numbers(kit.num)}
