"""Link the statements, and carry control flow out of nested closures.

A part of the Linker (interpreter.py). break, stop and return are small exceptions: a
linked body is a tree of closures, and an exception leaves any depth of them at once while
costing nothing on the paths that do not leave early, where a returned signal would be
tested after every statement. :func:`run_body` is where stop and return land.
"""

from __future__ import annotations

from hexlore.compiler import ir
from hexlore.runtime.engine.linked import Env, LinkerPart, RuleError, SFn, as_number, bounded_list
from hexlore.runtime.engine.memo import ANY, field_token

MAX_REPEAT = 10_000


class _Break(Exception):
    pass


class _Stop(Exception):
    pass


class _Return(Exception):
    def __init__(self, value):
        self.value = value


def run_body(body: SFn, env: Env):
    """Run a procedure or trigger body; returns its 'return' value (or None)."""
    try:
        body(env)
    except _Stop:
        return None
    except _Return as r:
        return r.value
    return None


class StatementLinker(LinkerPart):
    """The ``s_`` methods: one closure per statement, run for its effect on the environment
    or the game."""

    def s_Let(self, node: ir.Let) -> SFn:
        value = self.x(node.value)
        name = node.name

        def let(env):
            env[name] = value(env)
        return let

    def s_SetLocal(self, node: ir.SetLocal) -> SFn:
        value = self.x(node.value)
        name = node.name
        origin = node.origin
        if node.op == "=":
            def assign(env):
                env[name] = value(env)
        elif node.op == "+=":
            def assign(env):
                current = env[name]
                env[name] = bounded_list(list(current) + list(value(env)), origin) if isinstance(current, list) \
                    else current + as_number(value(env))
        else:
            def assign(env):
                env[name] = env[name] - as_number(value(env))
        return assign

    def s_SetField(self, node: ir.SetField) -> SFn:
        obj, value = self.x(node.obj), self.x(node.value)
        name, op, owner = node.name, node.op, node.owner
        state = self.state
        origin = node.origin
        # setting the field forgets the memoised results of the functions that may read it
        invalidate = self.memo.forgetter(field_token(owner, name) or ANY)

        def fields_of(env) -> dict:
            target = obj(env)
            if target is None:
                raise RuleError(f"cannot change '{name}' of none", origin)
            if owner == "hex":
                return state.hex_fields[target]
            if owner == "game":
                return state.game
            return target.f

        def assign(env):
            fields = fields_of(env)
            v = value(env)
            if op == "=":
                fields[name] = v
                invalidate()
                return
            if fields[name] is None:  # a field another pack adds, on a unit of a pack that does not use it
                raise RuleError(f"cannot use '{op}' on '{name}': it has no value", origin,
                                "set it with '=' first, or give the field a default")
            if op == "+=":
                fields[name] = bounded_list(list(fields[name]) + list(v), origin) \
                    if isinstance(fields[name], list) else fields[name] + as_number(v)
            else:
                fields[name] = fields[name] - as_number(v)
            invalidate()
        return assign

    def s_If(self, node: ir.If) -> SFn:
        branches = [(self.x(c), self.block(b)) for c, b in node.branches]
        otherwise = self.block(node.otherwise) if node.otherwise else None
        if len(branches) == 1:  # if … { } [else { }]: the usual shape, without the loop
            (cond, body), = branches
            if otherwise is None:
                def run1(env):
                    if cond(env):
                        body(env)
                return run1

            def run2(env):
                if cond(env):
                    body(env)
                else:
                    otherwise(env)
            return run2

        def run(env):
            for cond, body in branches:
                if cond(env):
                    body(env)
                    return
            if otherwise is not None:
                otherwise(env)
        return run

    def s_ForEach(self, node: ir.ForEach) -> SFn:
        source = self.x(node.source)
        body = self.block(node.body)
        var = node.var
        spend, origin = self.loop_budget.spend, node.origin

        def run(env):
            items = list(source(env))
            spend(len(items), origin)
            for item in items:
                env[var] = item
                try:
                    body(env)
                except _Break:
                    break
        return run

    def s_Repeat(self, node: ir.Repeat) -> SFn:
        times = self.x(node.times)
        body = self.block(node.body)
        origin = node.origin
        spend = self.loop_budget.spend

        def run(env):
            n = as_number(times(env))
            if n > MAX_REPEAT:
                raise RuleError(f"'repeat {n}' exceeds the bound of {MAX_REPEAT}", origin)
            spend(max(n, 0), origin)
            for _ in range(max(n, 0)):
                try:
                    body(env)
                except _Break:
                    break
        return run

    def s_Break(self, node: ir.Break) -> SFn:
        def run(env):
            raise _Break()
        return run

    def s_Stop(self, node: ir.Stop) -> SFn:
        def run(env):
            raise _Stop()
        return run

    def s_Return(self, node: ir.Return) -> SFn:
        value = self.x(node.value)

        def run(env):
            raise _Return(value(env))
        return run

    def s_Do(self, node: ir.Do) -> SFn:
        expr = self.x(node.expr)

        def run(env):
            expr(env)
        return run
