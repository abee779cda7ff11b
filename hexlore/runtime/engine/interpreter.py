"""Link compiled IR into Python closures: the Linker, and which closures games share.

Each IR node becomes one closure taking the local environment (a dict), built once per
game, so hot paths pay no dispatch on node types. Control flow (break, stop, return) uses
small exceptions. Errors in rules at run time carry the origin of the statement.

The Linker is composed of parts, one per kind of node, each in its own module:
``link_expressions`` (values, fields, operators), ``link_aggregates`` (count, sum, list…
of ``each``), ``link_calls`` (built-ins, functions, procedures, events, decisions) and
``link_statements`` (statements and their control flow); ``linked`` holds what they share.
This module dispatches a node to its part and keeps, per rule set, the closures that every
game of it can share.
"""

from __future__ import annotations

import dataclasses
import weakref
from typing import TYPE_CHECKING, Callable

from hexlore.compiler import ir
from hexlore.runtime.engine.link_aggregates import AggregateLinker
from hexlore.runtime.engine.link_calls import CallLinker
from hexlore.runtime.engine.link_expressions import ExpressionLinker
from hexlore.runtime.engine.link_statements import StatementLinker
from hexlore.runtime.engine.linked import BUDGET, SFn, XFn

if TYPE_CHECKING:
    from hexlore.runtime.engine.game import Game

#: per rule set, the linked closures every game of it can share (kept while the rules live)
_SHARED: dict[int, tuple[weakref.ref, dict]] = {}


def _shared_for(rules) -> tuple[dict, dict]:
    """The closures shared by the games of ``rules`` and which nodes may be shared, both by
    node id (each entry holds its node, so an id is never reused while its entry lives)."""
    entry = _SHARED.get(id(rules))
    if entry is not None and entry[0]() is rules:
        return entry[1]
    key = id(rules)
    shared: tuple[dict, dict] = ({}, {})
    # the table is bound now: at interpreter exit module globals may already be gone
    _SHARED[key] = (weakref.ref(rules, lambda _, key=key, table=_SHARED: table.pop(key, None)), shared)
    return shared


#: expressions linked without reading anything of the game: the Linker methods of these make
#: closures over their children, the node's own fields and the rules only, and must keep to
#: that (their closures are shared by every game of the rule set; see Linker.x)
_SHAREABLE_NODES = (ir.Const, ir.Local, ir.FunctionRef, ir.Binary, ir.Unary, ir.Conditional, ir.IsA,
                    ir.HasTag, ir.MakeList, ir.ListIndex, ir.Aggregate)
#: field reads that read the value itself (a unit's, a side's fields…), not the game's tables
_SHAREABLE_OWNERS = ("unit", "side", "event", "face", "any")


def _shareable(node, known: dict) -> bool:
    """Whether ``node`` and everything under it can be linked once for all games."""
    entry = known.get(id(node))
    if entry is not None and entry[0] is node:
        return entry[1]
    if node.__class__ is ir.GetField:
        ok = node.owner in _SHAREABLE_OWNERS and _shareable(node.obj, known)
    elif isinstance(node, _SHAREABLE_NODES):
        ok = all(_shareable(child, known) for child in _subexpressions(node))
    else:
        ok = False
    known[id(node)] = (node, ok)
    return ok


def _subexpressions(node) -> list:
    out = []
    for f in dataclasses.fields(node):
        stack = [getattr(node, f.name)]
        while stack:
            value = stack.pop()
            if isinstance(value, tuple):
                stack.extend(value)
            elif isinstance(value, (ir.X, ir.S)):
                out.append(value)
    return out


#: the Linker method for each node class, found once
_LINK_X: dict[type, Callable] = {}
_LINK_S: dict[type, Callable] = {}


class Linker(ExpressionLinker, AggregateLinker, CallLinker, StatementLinker):
    """Links the IR of one game: ``x`` and ``s`` hand each node to the ``x_``/``s_`` method
    of its class, found once per class among the parts."""

    def __init__(self, game: "Game"):
        # weak: the game holds the linker, and a game that holds nothing that holds it back is
        # freed as soon as it is dropped (see Game.play), with no work for the cyclic collector
        self._game = weakref.ref(game)
        # what linked code reads directly: none of these holds the game, so no linked closure
        # does either (the game is reached through the weak reference where needed)
        self.rules = game.rules
        self.state = game.state
        self.memo = game.memo
        BUDGET.reset()  # a new game: its rules may spend the whole budget again
        self.loop_budget = BUDGET
        self._shared, self._shareable = _shared_for(game.rules)

    @property
    def game(self) -> "Game":
        return self._game()

    # ------------------------------------------------------------ expressions
    def x(self, node: ir.X) -> XFn:
        link = _LINK_X.get(node.__class__)
        if link is None:
            link = _LINK_X[node.__class__] = getattr(Linker, "x_" + type(node).__name__)
        if _shareable(node, self._shareable):
            # an expression that reads nothing of a game but its environment and the objects
            # in it is linked once for every game of these rules
            entry = self._shared.get(id(node))
            if entry is not None and entry[0] is node:
                return entry[1]
            linked = link(self, node)
            self._shared[id(node)] = (node, linked)
            return linked
        return link(self, node)

    # ------------------------------------------------------------ statements
    def block(self, stmts: tuple[ir.S, ...]) -> SFn:
        fns = [self.s(s) for s in stmts]
        if len(fns) == 1:
            return fns[0]

        def run(env):
            for f in fns:
                f(env)
        return run

    def s(self, node: ir.S) -> SFn:
        link = _LINK_S.get(node.__class__)
        if link is None:
            link = _LINK_S[node.__class__] = getattr(Linker, "s_" + type(node).__name__)
        return link(self, node)

