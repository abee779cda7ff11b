"""Dice faces the rules have not told apart yet: how exact odds branch only where it matters.

A roll of ``n`` dice has C(n+5, 5) outcomes on a six-faced die, but rules often ask less of
it: a reroll that asks only "does a die show this one face" has ``n + 1`` outcomes that
matter. The exact odds engine (:mod:`hexlore.runtime.analysis.odds_tree`) therefore rolls dice
whose faces are :class:`FaceClass` values: one of several faces, not yet known which. A
class is a run of faces adjacent in the die's order, so that a pool keeps the order a real
roll would have (a rule reading ``faces[1]`` reads the same die).

Anything that looks at such a face raises: :class:`Observed` (the engine splits its class
into single faces and runs that roll again), except an aggregate's test, which is asked of
every face of the class (:func:`aggregate`): when every face answers alike, the answer holds
for the class; otherwise :class:`Split` says how the answers divide it, and the engine splits
the class into those runs only. Both are ``BaseException``: no rule's handler catches them.
"""

from __future__ import annotations

from typing import Any

from hexlore.runtime.engine.core.bounds import as_number

_UNBOUND = object()


class Observed(BaseException):
    """A rule looked at a face of an undecided class."""

    def __init__(self, face: "FaceClass"):
        super().__init__(face)
        self.face = face


class Split(BaseException):
    """An aggregate's test told the faces of a class apart: ``runs`` of adjacent faces that
    answered alike, in the die's order."""

    def __init__(self, face: "FaceClass", runs: list[tuple]):
        super().__init__(face)
        self.face = face
        self.runs = runs


class FaceClass:
    """One die showing one of ``members`` (adjacent faces of its die), not yet known which.

    ``node`` is the roll it came from, ``index`` its class there: the engine refines that
    roll when the face is looked at. ``__class__`` itself raises, so every type test of the
    runtime and of compiled rules (``x.__class__ is int``, ``isinstance``) is a look.
    """

    __slots__ = ("node", "index", "members")

    def __init__(self, node, index: int, members: tuple):
        self.node = node
        self.index = index
        self.members = members

    @property  # type: ignore[misc]  # deliberately read-only: reading it is a look at the face
    def __class__(self):
        raise Observed(self)

    def _look(self, *_):
        raise Observed(self)

    name = value = tags = die = property(_look)
    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __hash__ = __str__ = _look

    def __repr__(self) -> str:
        return "FaceClass(" + "|".join(getattr(m, "name", "?") for m in self.members) + ")"


def _ask(test, context, item, free):
    """``test`` asked of ``item``: of each face of its class if it is undecided."""
    if type(item) is not FaceClass:
        return test(context, item, *free)
    answers = [test(context, member, *free) for member in item.members]
    first = answers[0]
    if all(a == first for a in answers[1:]):
        return first
    runs: list[list] = [[item.members[0]]]
    for member, previous, answer in zip(item.members[1:], answers, answers[1:]):
        if answer == previous:
            runs[-1].append(member)
        else:
            runs.append([member])
    raise Split(item, [tuple(r) for r in runs])


def aggregate(func: str, items, where, mapped, context, free: tuple):
    """``func(each x in items where WHERE: MAPPED)`` with undecided faces among the items: the
    same values, order and checks as the compiled loop (compiled/expressions.py), each test
    asked of every face of an undecided class."""
    def where_ok(item) -> bool:
        return where is None or _ask(where, context, item, free)

    def value(item):
        return _ask(mapped, context, item, free) if mapped is not None else item

    if func == "count":
        n = 0
        for item in items:
            if where_ok(item):
                if mapped is not None:
                    value(item)
                n += 1
        return n
    if func == "any":
        return any(where_ok(item) and (mapped is None or value(item)) for item in items)
    if func == "all":
        if mapped is None and where is not None:
            return all(where_ok(item) for item in items)
        return all(value(item) for item in items if where_ok(item))
    if func == "sum":
        total = 0
        for item in items:
            if where_ok(item):
                total = total + as_number(value(item))
        return total
    if func in ("min", "max"):
        best: Any = _UNBOUND
        for item in items:
            if where_ok(item):
                v = as_number(value(item))
                if best is _UNBOUND or (v < best if func == "min" else v > best):
                    best = v
        return 0 if best is _UNBOUND else best
    return [value(item) for item in items if where_ok(item)]
