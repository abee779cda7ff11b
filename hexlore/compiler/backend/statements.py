"""IR statements as Python statements, and the callables of a rule set as Python functions.

A procedure, a trigger, a game block, a function and an event's dispatch each become one
module-level function taking the game's :class:`~hexlore.runtime.engine.context.Context`
(``R``) and their arguments. Lore's control flow is Python's: ``break`` is ``break``,
``stop`` and ``return`` are ``return`` (a ``before`` trigger writes its arguments back on
every way out). The order of evaluation, the budget spent and the memo forgotten are those
of the rules as the language reference states them.
"""

from __future__ import annotations

import ast
import copy
from typing import Callable

from hexlore.compiler import ir
from hexlore.compiler.model import TriggerSpec, Timing
from hexlore.dsl.limits import MAX_INT
from hexlore.compiler.backend.expressions import Expressions, _walrus
from hexlore.compiler.backend.names import (CONTEXT, Generating, Scope, attr, budget, call, counting_event,
                                          function, name, spending, store)
from hexlore.compiler.memo_plan import ANY, field_token


#: what a ``stop`` (value None) or a ``return`` (its value) turns into
Exit = Callable[[ast.expr | None], list[ast.stmt]]


def _subscript(value: ast.expr, key: ast.expr) -> ast.Subscript:
    return ast.Subscript(value, key, ast.Load())


def _assign(target: str, value: ast.expr) -> ast.Assign:
    return ast.Assign([store(target)], value)


def _journalled_write(scope: Scope, fields: ast.expr, key: ast.expr, value: ast.expr) -> list[ast.stmt]:
    """``fields[key] = value``, recording the value it replaces while the state keeps a journal
    (:meth:`~hexlore.runtime.engine.core.state.GameState.write`, written out)."""
    journal = scope.temp()
    record = ast.Tuple([ast.Constant(0), fields, key, call(attr(fields, "get"), key, name("h_missing"))], ast.Load())
    return [_assign(journal, attr(attr(CONTEXT, "state"), "journal")),
            ast.If(ast.Compare(name(journal), [ast.IsNot()], [ast.Constant(None)]),
                   [ast.Expr(call(attr(journal, "append"), record))], []),
            ast.Assign([ast.Subscript(fields, key, ast.Store())], value)]


def _added(scope: Scope, current: ast.expr, change: ast.Name, op: str, origin: ast.expr) -> ast.expr:
    """``h_add_to(current, change, op, origin)`` with its common case written out: two ints whose
    sum (difference) is within ±MAX_INT need no call (``current`` and ``change`` are names, read
    twice). Anything else (a list grown, a face or a truth value counted, a number out of range)
    goes through the helper, which also raises."""
    t = scope.temp()
    result = _walrus(t, ast.BinOp(copy.deepcopy(current), ast.Add() if op == "+=" else ast.Sub(), change))
    fast = ast.BoolOp(ast.And(), [
        ast.Compare(attr(copy.deepcopy(current), "__class__"), [ast.Is()], [name("h_int")]),
        ast.Compare(attr(name(change.id), "__class__"), [ast.Is()], [name("h_int")]),
        ast.Compare(ast.Constant(-MAX_INT), [ast.LtE(), ast.LtE()], [result, ast.Constant(MAX_INT)])])
    return ast.IfExp(fast, name(t), call("h_add_to", current, name(change.id), ast.Constant(op), origin))


class Statements:
    """Compiles the statements of one generated function."""

    def __init__(self, program: Generating, scope: Scope, exit: Exit):
        self.program = program
        self.module = program.module
        self.scope = scope
        self.exprs = Expressions(program, scope)
        self.exit = exit

    def block(self, stmts: tuple[ir.S, ...]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for s in stmts:
            for tree in getattr(self, "s_" + s.__class__.__name__)(s):
                out.append(self.module.at(tree, s))
        return out

    def s_Let(self, node: ir.Let):
        return [ast.Assign([self.scope.target(node.name)], self.exprs.x(node.value))]

    def s_SetLocal(self, node: ir.SetLocal):
        target = self.scope.target(node.name)
        if node.op == "=":
            return [ast.Assign([target], self.exprs.x(node.value))]
        change = self.scope.temp()
        return [_assign(change, self.exprs.x(node.value)),
                ast.Assign([target], _added(self.scope, self.scope.load(node.name), name(change), node.op,
                                            self.module.origin(node)))]

    def s_SetField(self, node: ir.SetField):
        key, origin = ast.Constant(node.name), self.module.origin(node)
        out: list[ast.stmt] = []
        if node.owner == "game":
            fields: ast.expr = attr(CONTEXT, "game_fields")
        else:
            target = self.scope.temp()
            out += [_assign(target, self.exprs.x(node.obj)),
                    ast.If(ast.Compare(name(target), [ast.Is()], [ast.Constant(None)]),
                           [ast.Expr(call("h_set_on_none", key, origin))], [])]
            fields = _subscript(attr(CONTEXT, "hex_fields"), name(target)) if node.owner == "hex" \
                else attr(target, "f")
        d, value = self.scope.temp(), self.scope.temp()
        out.append(_assign(d, fields))
        if node.op == "=":
            out.append(_assign(value, self.exprs.x(node.value)))
        else:
            change, current = self.scope.temp(), self.scope.temp()
            out += [_assign(change, self.exprs.x(node.value)),
                    _assign(current, _subscript(name(d), key)),
                    ast.If(ast.Compare(name(current), [ast.Is()], [ast.Constant(None)]),
                           [ast.Expr(call("h_change_none", key, ast.Constant(node.op), origin))], []),
                    _assign(value, _added(self.scope, name(current), name(change), node.op, origin))]
        out += _journalled_write(self.scope, name(d), key, name(value))
        token = field_token(node.owner, node.name) or ANY
        out.append(ast.Expr(call(_subscript(attr(CONTEXT, "forget"), ast.Constant(self.program.forget_index(token))))))
        return out

    def s_If(self, node: ir.If):
        orelse = self.block(node.otherwise)
        for cond, body in reversed(node.branches):
            orelse = [ast.If(self.exprs.x(cond), self.block(body) or [ast.Pass()], orelse)]
        return orelse

    def s_ForEach(self, node: ir.ForEach):
        items = self.scope.temp()
        source = self.exprs.x(node.source)
        return [_assign(items, call("h_list", source)),
                *spending(call("h_len", name(items)), self.module.origin(node)),
                ast.For(self.scope.target(node.var), name(items), self.block(node.body) or [ast.Pass()], [])]

    def s_Repeat(self, node: ir.Repeat):
        times = call("h_repeat", self.exprs.x(node.times), self.module.origin(node), budget())
        return [ast.For(store(self.scope.temp()), call("h_range", times), self.block(node.body) or [ast.Pass()], [])]

    def s_While(self, node: ir.While):
        # each time round spends a step (before the body), as a repeat's steps are spent
        body = spending(ast.Constant(1), self.module.origin(node)) + self.block(node.body)
        return [ast.While(self.exprs.x(node.cond), body, [])]

    def s_Require(self, node: ir.Require):
        failed = call("h_precondition", ast.Constant(node.message), self.module.origin(node))
        return [ast.If(ast.UnaryOp(ast.Not(), self.exprs.x(node.cond)), [ast.Expr(failed)], [])]

    def s_Break(self, node: ir.Break):
        return [ast.Break()]

    def s_Stop(self, node: ir.Stop):
        return self.exit(None)

    def s_Return(self, node: ir.Return):
        return self.exit(self.exprs.x(node.value))

    def s_Do(self, node: ir.Do):
        return [ast.Expr(self.exprs.x(node.expr))]


# ---------------------------------------------------------------- the callables
def function_def(program: Generating, identifier: str, params: tuple[str, ...], body: ir.X) -> ast.FunctionDef:
    scope = Scope(params)
    value = Expressions(program, scope).x(body)
    return function(identifier, [CONTEXT] + scope.params, [program.module.at(ast.Return(value), body)])


def memo_entry(identifier: str, body_name: str, plan_index: int, shape: tuple,
               keeps_lists: bool = False) -> ast.FunctionDef:
    """The memoised entry of a function: exactly the keys, look-ups and bookkeeping of
    :class:`~hexlore.runtime.engine.core.memo.Plan`, written out for this function's shape.
    ``keeps_lists``: the function answers new lists (:func:`~hexlore.compiler.memo_plan.new_lists`),
    kept as a ``KeptList`` and answered as a list of the caller's own; else a list is not kept."""
    positions, exact, unknown, objects, arity = shape
    params = [f"v{i}" for i in range(arity)]
    plan, key, found = "t_plan", "t_key", "t_found"
    direct = call(body_name, name(CONTEXT), *[name(p) for p in params])
    skip: list[ast.expr] = [ast.Compare(attr(p_, "__class__"), [ast.IsNot()], [name("h_" + cls.__name__)])
                            for p_, cls in ((params[i], cls) for i, cls in exact)]
    skip += [ast.Compare(attr(params[i], "__class__"), [ast.In()], [name("h_numbers")]) for i in unknown]
    if not positions:
        key_value: ast.expr = ast.Tuple([], ast.Load())
    elif len(positions) == 1:
        key_value = name(params[positions[0]])
    else:
        key_value = ast.Tuple([name(params[i]) for i in positions], ast.Load())
    table = attr(plan, "table")
    numbers_ok: list[ast.expr] = [ast.Compare(attr(params[i], "__class__"), [ast.NotIn()], [name("h_numbers")])
                                  for i in objects]
    if keeps_lists:
        keep: ast.expr | None = (ast.BoolOp(ast.And(), numbers_ok) if len(numbers_ok) > 1 else
                                 numbers_ok[0] if numbers_ok else None)
        kept: ast.expr = ast.IfExp(ast.Compare(attr(found, "__class__"), [ast.Is()], [name("h_list")]),
                                   call("h_kept_list", name(found)), name(found))
        answer: ast.expr = ast.IfExp(ast.Compare(attr(found, "__class__"), [ast.Is()], [name("h_kept_list")]),
                                     call("h_list", name(found)), name(found))
    else:
        keep = ast.Compare(attr(found, "__class__"), [ast.IsNot()], [name("h_list")])
        if numbers_ok:
            keep = ast.BoolOp(ast.And(), [keep] + numbers_ok)
        kept = answer = name(found)
    store = ast.Assign([ast.Subscript(table, name(key), ast.Store())], kept)
    memoised: list[ast.stmt] = []
    if skip:
        memoised.append(ast.If(ast.BoolOp(ast.Or(), skip) if len(skip) > 1 else skip[0], [ast.Return(direct)], []))
    memoised += [
        _assign(key, key_value),
        ast.Try([_assign(found, call(attr(table, "get"), name(key), name("h_miss")))],
                [ast.ExceptHandler(name("h_type_error"), None, [ast.Return(direct)])], [], []),
        ast.If(ast.Compare(name(found), [ast.IsNot()], [name("h_miss")]),
               [ast.AugAssign(ast.Attribute(name(plan), "hits", ast.Store()), ast.Add(), ast.Constant(1)),
                ast.Return(answer)], []),
        _assign(found, direct),
        ast.If(keep, [store], []) if keep is not None else store,
        ast.Expr(call(attr(plan, "missed"))),
        ast.Return(name(found))]
    on = ast.BoolOp(ast.And(), [attr(attr(CONTEXT, "memo"), "on"), attr(plan, "active")])
    body = [_assign(plan, _subscript(attr(CONTEXT, "plans"), ast.Constant(plan_index))),
            ast.If(on, memoised, []), ast.Return(direct)]
    return function(identifier, [CONTEXT] + params, body)


def procedure_def(program: Generating, identifier: str, params: tuple[str, ...], body: tuple[ir.S, ...]):
    scope = Scope(params)

    def exit(value):
        return [ast.Return(value if value is not None else ast.Constant(None))]
    stmts = Statements(program, scope, exit).block(body)
    return function(identifier, [CONTEXT] + scope.params, stmts)


def block_def(program: Generating, identifier: str, body: tuple[ir.S, ...]) -> ast.FunctionDef:
    scope = Scope()

    def exit(value):
        return ([ast.Expr(value)] if value is not None else []) + [ast.Return(ast.Constant(None))]
    return function(identifier, [CONTEXT], Statements(program, scope, exit).block(body))


def trigger_def(program: Generating, identifier: str, t: TriggerSpec) -> ast.FunctionDef:
    """``tr(R, record) -> ran``: the arguments as locals, the guard, the optional question,
    the body; a ``before`` trigger writes the arguments back (and forgets what read them)."""
    module = program.module
    scope = Scope()
    args = "t_args"
    binds: list[ast.stmt] = [ast.Assign([scope.target(p)], _subscript(name(args), ast.Constant(p))) for p in t.params]
    write_back: list[ast.stmt] = []
    if t.timing is Timing.BEFORE:
        write_back = [stmt for p in t.params
                      for stmt in _journalled_write(scope, name(args), ast.Constant(p), scope.load(p))]
        write_back.append(ast.Expr(call(attr(CONTEXT, "forget_event"))))

    def exit(value):
        return ([ast.Expr(value)] if value is not None else []) + write_back + [ast.Return(ast.Constant(True))]
    statements = Statements(program, scope, exit)
    head: list[ast.stmt] = [_assign(args, attr("t_record", "args"))] + binds
    if t.guard is not None:
        guard = statements.exprs.x(t.guard)
        head.append(module.at(ast.If(ast.UnaryOp(ast.Not(), guard), [ast.Return(ast.Constant(False))], []), t.guard))
    if t.optional_by is not None:
        asked = call(attr(CONTEXT, "decide"), ast.Constant(t.name), statements.exprs.x(t.optional_by),
                     ast.List([ast.Constant(True), ast.Constant(False)], ast.Load()),
                     statements.exprs.answer_scores(t.optional_prefer),
                     ast.Constant(0), module.constant(t.origin))
        head.append(module.at(ast.If(ast.Compare(module.at(asked, t.optional_by), [ast.NotEq()], [ast.Constant(0)]),
                                     [ast.Return(ast.Constant(False))], []), t.optional_by))
    body = statements.block(t.body)
    return function(identifier, [CONTEXT, "t_record"], head + body + write_back + [ast.Return(ast.Constant(True))])


def replaced(record: ast.expr) -> list[ast.stmt]:
    """The event was replaced (an ``instead`` trigger ran): journalled, as forks may follow."""
    return [ast.Expr(call(attr(attr(CONTEXT, "state"), "set"), record, ast.Constant("replaced"), ast.Constant(True))),
            ast.Expr(call(attr(CONTEXT, "forget_event")))]


def emitter_def(program: Generating, identifier: str, event: str) -> ast.FunctionDef:
    """``ev(R, args, origin) -> record``: the event's dispatch, its triggers called in the order
    of the rule set's dispatch table."""
    table = program.rules.dispatch.get(event)
    record = "t_rec"

    def run(t: TriggerSpec) -> ast.Call:
        return call(program.trigger_name(t.name), name(CONTEXT), name(record))

    body: list[ast.stmt] = [
        *counting_event(name("t_origin")),
        ast.If(ast.Compare(attr(CONTEXT, "depth"), [ast.GtE()], [ast.Constant(program.max_depth)]),
               [ast.Expr(call(attr(CONTEXT, "too_deep"), ast.Constant(event), name("t_origin")))], [])]
    inner: list[ast.stmt] = [_assign(record, call("h_event", ast.Constant(event), name("t_args")))]
    if table:
        inner += [ast.Expr(run(t)) for t in table.before]
    # arguments that can hold no list keep their labels: they may be labelled later
    spec = program.rules.events[event]
    settled = all(p.type.name not in ("list", "any") for p in spec.params)
    inner.append(ast.Expr(call(attr(attr(CONTEXT, "events"), "record_event"), ast.Constant(event), attr(record, "args"),
                               ast.Constant(settled), name("t_origin"))))
    if table:
        chain: list[ast.stmt] = []
        for t in reversed(table.instead):
            chain = [ast.If(run(t), replaced(name(record)), chain)]
        inner += chain
        on: list[ast.stmt] = [ast.Expr(run(t)) for t in table.on]
        if on and table.instead:
            inner.append(ast.If(ast.UnaryOp(ast.Not(), attr(record, "replaced")), on, []))
        else:
            inner += on
        inner += [ast.Expr(run(t)) for t in table.after]
    inner.append(ast.Return(name(record)))
    if not table or not (table.before or table.instead or table.on or table.after):
        # no trigger runs inside: nothing can read the depth, so it is not raised and lowered
        return function(identifier, [CONTEXT, "t_args", "t_origin"], body + inner)
    body.append(ast.AugAssign(ast.Attribute(name(CONTEXT), "depth", ast.Store()), ast.Add(), ast.Constant(1)))
    decrement = ast.AugAssign(ast.Attribute(name(CONTEXT), "depth", ast.Store()), ast.Sub(), ast.Constant(1))
    body.append(ast.Try(inner, [], [], [decrement]))
    return function(identifier, [CONTEXT, "t_args", "t_origin"], body)


def constant_def(program: Generating, identifier: str, node: ir.X) -> ast.FunctionDef:
    return function_def(program, identifier, (), node)
