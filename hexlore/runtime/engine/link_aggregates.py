"""Link the aggregates (count, any, all, sum, min, max and list of ``each x in L where C``).

A part of the Linker (interpreter.py). An aggregate runs a loop per evaluation, often inside
another loop, so the common ones bind their variable in the caller's environment rather than
copying the environment for each evaluation; the others keep the general generator.
"""

from __future__ import annotations

from hexlore.compiler import ir
from hexlore.runtime.engine.linked import BUDGET, Env, LinkerPart, XFn, as_number

_UNBOUND = object()


class AggregateLinker(LinkerPart):
    """The ``x_`` method of :class:`ir.Aggregate`."""

    def x_Aggregate(self, node: ir.Aggregate) -> XFn:
        source = _spending(self.x(node.source), node.origin)
        where = self.x(node.where) if node.where else None
        mapped = self.x(node.mapped) if node.mapped else None
        var = node.var
        func = node.func

        def items(env):
            inner = dict(env)
            for item in source(env):
                inner[var] = item
                if where is None or where(inner):
                    yield mapped(inner) if mapped else item

        # The common aggregates bind the variable in the caller's environment for the loop and
        # put back what it held (a name the aggregate shadows) instead of copying the
        # environment: the same values are seen, the same way, in the same order.
        if func in ("count", "any", "list", "sum", "min", "max") or \
                (func == "all" and mapped is None and where is not None):
            loop = _binding_loop(func, source, where, mapped, var)
            if loop is not None:
                return loop
        if func == "count":
            return lambda env: sum(1 for _ in items(env))
        if func == "sum":
            return lambda env: sum(as_number(v) for v in items(env))
        if func == "any":
            return lambda env: any(items(env)) if mapped else any(True for _ in items(env))
        if func == "all" and mapped is None and where is not None:
            # all(each x in L where C): every item satisfies C
            def every(env):
                inner = dict(env)
                for item in source(env):
                    inner[var] = item
                    if not where(inner):
                        return False
                return True
            return every
        if func == "all":
            return lambda env: all(items(env))
        if func == "min":
            return lambda env: min((as_number(v) for v in items(env)), default=0)
        if func == "max":
            return lambda env: max((as_number(v) for v in items(env)), default=0)
        return lambda env: list(items(env))


def _spending(source: XFn, origin: ir.Origin) -> XFn:
    """``source``, spending one step of the game's budget for each item an aggregate will read
    (before reading them: nested aggregates over long lists stop at the budget, not at the
    end of time)."""
    spend = BUDGET.spend

    def items(env):
        values = source(env)
        spend(len(values), origin)
        return values
    return items


def _binding_loop(func: str, source: XFn, where: XFn | None, mapped: XFn | None, var: str) -> XFn | None:
    """count, any, all (of a condition), sum, min, max and list, looping with ``var`` bound in
    ``env`` itself.

    The source is computed before the variable is bound (as with a copied environment), and
    the variable's former value, or its absence, is put back however the loop ends.
    """
    if func == "count":
        def count(env):
            items = source(env)
            old = env.get(var, _UNBOUND)
            n = 0
            try:
                for item in items:
                    env[var] = item
                    if where is None or where(env):
                        if mapped is not None:
                            mapped(env)  # computed (and checked) even though only counted
                        n += 1
            finally:
                _restore(env, var, old)
            return n
        return count
    if func == "any":
        def some(env):
            items = source(env)
            old = env.get(var, _UNBOUND)
            try:
                for item in items:
                    env[var] = item
                    if where is None or where(env):
                        if mapped is None or mapped(env):
                            return True
                return False
            finally:
                _restore(env, var, old)
        return some
    if func == "all":
        def every(env):
            items = source(env)
            old = env.get(var, _UNBOUND)
            try:
                for item in items:
                    env[var] = item
                    if not where(env):
                        return False
                return True
            finally:
                _restore(env, var, old)
        return every
    if func == "sum":
        def total(env):
            items = source(env)
            old = env.get(var, _UNBOUND)
            result = 0
            try:
                for item in items:
                    env[var] = item
                    if where is None or where(env):
                        result = result + as_number(mapped(env) if mapped is not None else item)  # as sum() adds
            finally:
                _restore(env, var, old)
            return result
        return total
    if func in ("min", "max"):
        lowest = func == "min"

        def extreme(env):
            items = source(env)
            old = env.get(var, _UNBOUND)
            best = _UNBOUND
            try:
                for item in items:
                    env[var] = item
                    if where is None or where(env):
                        v = as_number(mapped(env) if mapped is not None else item)
                        # min() and max() keep the first of equal values: replace only if better
                        if best is _UNBOUND or (v < best if lowest else v > best):
                            best = v
            finally:
                _restore(env, var, old)
            return 0 if best is _UNBOUND else best
        return extreme
    if func == "list":
        def collect(env):
            items = source(env)
            old = env.get(var, _UNBOUND)
            out = []
            try:
                for item in items:
                    env[var] = item
                    if where is None or where(env):
                        out.append(mapped(env) if mapped is not None else item)
            finally:
                _restore(env, var, old)
            return out
        return collect
    return None


def _restore(env: Env, var: str, old) -> None:
    if old is _UNBOUND:
        env.pop(var, None)
    else:
        env[var] = old
