"""Link the expressions that hand control elsewhere: calls of built-ins, functions and
procedures, events emitted to the triggers, and decisions asked of a side.

A part of the Linker (interpreter.py). A call runs at every step of a game and a general
call pays for a list of arguments and a loop, so the usual shapes (built-ins of one or two
arguments, functions of at most four parameters with or without the memo of pure
functions, procedures of one) are written out, each with the steps of the general call in
the same order.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

from hexlore.compiler import ir
from hexlore.runtime.engine.link_statements import run_body
from hexlore.runtime.engine.linked import BUDGET, MAX_LIST_ITEMS, LinkerPart, RuleError, XFn, as_number, bounded_list
from hexlore.runtime.engine.memo import MISS, SKIP, effect_token

if TYPE_CHECKING:
    from hexlore.runtime.engine.game import Game


def _spend_items(items: list, origin: ir.Origin) -> None:
    """A list a built-in made (hexes, units, neighbours, paths…): within MAX_LIST_ITEMS, and its
    items spent from the game's budget like the steps of a loop."""
    if len(items) > MAX_LIST_ITEMS:
        bounded_list(items, origin)
    BUDGET.spend(len(items), origin)


class CallLinker(LinkerPart):
    """The ``x_`` methods of calls, events and decisions."""

    def x_CallBuiltin(self, node: ir.CallBuiltin) -> XFn:
        impl = self.game.builtins[node.name]
        args = [self.x(a) for a in node.args]
        origin = node.origin
        name = node.name
        # a built-in that changes the game forgets the memoised results of the functions that
        # read what it changes (memo.py); no Lore runs between the forgetting and the change,
        # so forgetting first is the same as after, and holds when it raises (win ends the game)
        invalidate = self.memo.forgetter(effect_token(name))
        spend_items = _spend_items

        # the arguments are computed before the try: their own failures are not this call's
        if invalidate is None and len(args) == 1:
            a0 = args[0]

            def call1(env):
                v0 = a0(env)
                try:
                    r = impl(v0)
                    if r.__class__ is list:
                        spend_items(r, origin)
                    return r
                except RuleError as exc:
                    if exc.origin is None:
                        exc.origin = origin
                    raise
                except (TypeError, AttributeError, KeyError, ValueError) as exc:
                    raise RuleError(f"'{name}' failed: {exc}", origin) from exc
            return call1
        if invalidate is None and len(args) == 2:
            a0, a1 = args

            def call2(env):
                v0 = a0(env)
                v1 = a1(env)
                try:
                    r = impl(v0, v1)
                    if r.__class__ is list:
                        spend_items(r, origin)
                    return r
                except RuleError as exc:
                    if exc.origin is None:
                        exc.origin = origin
                    raise
                except (TypeError, AttributeError, KeyError, ValueError) as exc:
                    raise RuleError(f"'{name}' failed: {exc}", origin) from exc
            return call2

        def call(env):
            values = [a(env) for a in args]
            if invalidate is not None:
                invalidate()
            try:
                r = impl(*values)
                if r.__class__ is list:
                    spend_items(r, origin)
                return r
            except RuleError as exc:
                if exc.origin is None:
                    exc.origin = origin
                raise
            except (TypeError, AttributeError, KeyError, ValueError) as exc:
                raise RuleError(f"'{name}' failed: {exc}", origin) from exc
        return call

    def x_CallFunction(self, node: ir.CallFunction) -> XFn:
        args = [self.x(a) for a in node.args]
        name = node.name
        gref, memo = self._game, self.memo
        params = tuple(p.name for p in self.rules.functions[name].params)
        plan = memo.plan(name)
        if len(args) == len(params) <= 4:
            return _function_call(gref, memo, name, params, args, plan)
        linked = self.game.linked_functions
        if plan is None:
            def call(env):
                values = [a(env) for a in args]
                params, body = linked.get(name) or gref().linked_function(name)
                return body(dict(zip(params, values)))
            return call
        table, key_of, storable = plan.table, plan.key, plan.storable

        def memoised(env):
            values = [a(env) for a in args]
            params, body = linked.get(name) or gref().linked_function(name)
            if memo.on and plan.active:  # as Game._caller does (repeated here: one call less)
                key = key_of(values)
                if key is not SKIP:
                    try:
                        result = table.get(key, MISS)
                    except TypeError:  # an unhashable argument (a list)
                        return body(dict(zip(params, values)))
                    if result is not MISS:
                        plan.hits += 1
                        return result
                    result = body(dict(zip(params, values)))
                    if result.__class__ is not list and (storable is None or storable(values)):
                        table[key] = result
                    plan.missed()
                    return result
            return body(dict(zip(params, values)))
        return memoised

    def x_CallProcedure(self, node: ir.CallProcedure) -> XFn:
        args = [self.x(a) for a in node.args]
        name = node.name
        gref = self._game
        params = tuple(p.name for p in self.rules.procedures[name].params)
        if len(args) == len(params) == 1:
            (a0,), (p0,) = args, params
            body = None

            def call1(env):
                nonlocal body
                v0 = a0(env)
                if body is None:
                    body = gref()._procedure(name)[1]
                return run_body(body, {p0: v0})
            return call1
        return lambda env: gref().call_procedure(name, [a(env) for a in args])

    def x_Emit(self, node: ir.Emit) -> XFn:
        names = [n for n, _ in node.args]
        values = [self.x(v) for _, v in node.args]
        event = node.event
        gref = self._game
        origin = node.origin
        return lambda env: gref().emit(event, {n: v(env) for n, v in zip(names, values)}, origin)

    def x_Choose(self, node: ir.Choose) -> XFn:
        source, by = self.x(node.source), self.x(node.by)
        prefer = self.x(node.prefer) if node.prefer else None
        default = self.x(node.default) if node.default else None
        var = node.var
        name = node.decision
        gref = self._game
        origin = node.origin

        def choose(env):
            options = list(source(env))
            if not options:
                return None
            scores = None
            if prefer is not None:
                inner = dict(env)
                scores = []
                for option in options:
                    inner[var] = option
                    scores.append(as_number(prefer(inner)))
            default_index = None
            if default is not None:
                d = default(env)
                default_index = options.index(d) if d in options else None
            return options[gref().decide(name, by(env), options, scores, default_index, origin)]
        return choose

    def x_Ask(self, node: ir.Ask) -> XFn:
        by = self.x(node.by)
        default = self.x(node.default) if node.default else None
        name = node.decision
        gref = self._game
        origin = node.origin

        def ask(env):
            options = [True, False]
            d = default(env) if default else None
            default_index = None if d is None else (0 if d else 1)
            return options[gref().decide(name, by(env), options, None, default_index, origin)]
        return ask


def _function_call(gref: "weakref.ref[Game]", memo, name: str, params: tuple[str, ...], args: list[XFn],
                   plan) -> XFn:
    """A call of a function of at most four parameters, written out: the arguments in locals,
    the environment built directly, the linked body kept after its first use, and (``plan``)
    the memo of Game._caller. The same steps in the same order as the general call."""
    n = len(args)
    a0, a1, a2, a3 = (args + [None] * 4)[:4]
    p0, p1, p2, p3 = (list(params) + [None] * 4)[:4]
    body = None

    def linked():
        nonlocal body
        body = gref().linked_function(name)[1]
        return body

    if plan is None:
        if n == 0:
            return lambda env: (body or linked())({})
        if n == 1:
            return lambda env: (body or linked())({p0: a0(env)})
        if n == 2:
            def call2(env):
                v0 = a0(env)
                return (body or linked())({p0: v0, p1: a1(env)})
            return call2

        if n == 3:
            def call3(env):
                v0 = a0(env)
                v1 = a1(env)
                return (body or linked())({p0: v0, p1: v1, p2: a2(env)})
            return call3

        def call4(env):
            v0 = a0(env)
            v1 = a1(env)
            v2 = a2(env)
            return (body or linked())({p0: v0, p1: v1, p2: v2, p3: a3(env)})
        return call4

    table, key_of, storable = plan.table, plan.key, plan.storable
    get = table.get

    # Below, each arity repeats the same steps: the key (SKIP: not memoised), the look-up (a
    # list argument cannot be hashed: not memoised), else the body, kept unless it gave a list.
    if n == 0:
        def memo0(env):
            if memo.on and plan.active:
                result = get((), MISS)
                if result is not MISS:
                    plan.hits += 1
                    return result
                result = (body or linked())({})
                if result.__class__ is not list:
                    table[()] = result
                plan.missed()
                return result
            return (body or linked())({})
        return memo0  # no argument: the key is always (), nothing to check
    if n == 1:
        def memo1(env):
            v0 = a0(env)
            if memo.on and plan.active:
                values = [v0]
                key = key_of(values)
                if key is not SKIP:
                    try:
                        result = get(key, MISS)
                    except TypeError:
                        return (body or linked())({p0: v0})
                    if result is not MISS:
                        plan.hits += 1
                        return result
                    result = (body or linked())({p0: v0})
                    if result.__class__ is not list and (storable is None or storable(values)):
                        table[key] = result
                    plan.missed()
                    return result
            return (body or linked())({p0: v0})
        return memo1
    if n == 2:
        def memo2(env):
            v0 = a0(env)
            v1 = a1(env)
            if memo.on and plan.active:
                values = [v0, v1]
                key = key_of(values)
                if key is not SKIP:
                    try:
                        result = get(key, MISS)
                    except TypeError:
                        return (body or linked())({p0: v0, p1: v1})
                    if result is not MISS:
                        plan.hits += 1
                        return result
                    result = (body or linked())({p0: v0, p1: v1})
                    if result.__class__ is not list and (storable is None or storable(values)):
                        table[key] = result
                    plan.missed()
                    return result
            return (body or linked())({p0: v0, p1: v1})
        return memo2

    if n == 3:
        def memo3(env):
            v0 = a0(env)
            v1 = a1(env)
            v2 = a2(env)
            if memo.on and plan.active:
                values = [v0, v1, v2]
                key = key_of(values)
                if key is not SKIP:
                    try:
                        result = get(key, MISS)
                    except TypeError:
                        return (body or linked())({p0: v0, p1: v1, p2: v2})
                    if result is not MISS:
                        plan.hits += 1
                        return result
                    result = (body or linked())({p0: v0, p1: v1, p2: v2})
                    if result.__class__ is not list and (storable is None or storable(values)):
                        table[key] = result
                    plan.missed()
                    return result
            return (body or linked())({p0: v0, p1: v1, p2: v2})
        return memo3

    def memo4(env):
        v0 = a0(env)
        v1 = a1(env)
        v2 = a2(env)
        v3 = a3(env)
        if memo.on and plan.active:
            values = [v0, v1, v2, v3]
            key = key_of(values)
            if key is not SKIP:
                try:
                    result = get(key, MISS)
                except TypeError:
                    return (body or linked())({p0: v0, p1: v1, p2: v2, p3: v3})
                if result is not MISS:
                    plan.hits += 1
                    return result
                result = (body or linked())({p0: v0, p1: v1, p2: v2, p3: v3})
                if result.__class__ is not list and (storable is None or storable(values)):
                    table[key] = result
                plan.missed()
                return result
        return (body or linked())({p0: v0, p1: v1, p2: v2, p3: v3})
    return memo4
