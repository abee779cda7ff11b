"""Resumable rules: the callables that can stop at a chance point, as frame machines.

A Python call stack cannot be copied, so a rule stopped in the middle of a procedure at a roll
cannot be continued twice, once per outcome. In the resumable form, each procedure, trigger,
event dispatch and game block that can reach a roll or a decision (:class:`Suspends`) keeps
its locals in a *frame* (a list: its function, where it resumes, its Lore locals) and runs as
a machine of blocks: ``rf(R, F, x)`` runs from the block ``F[1]`` names until it

* calls another resumable callable: it pushes the callee's frame on ``R.stack`` and returns
  :data:`CALL`; the driver (:mod:`hexlore.runtime.engine.resume`) runs the callee and resumes
  this frame with its result as ``x``;
* reaches a roll or a decision: it returns a :class:`~hexlore.runtime.engine.resume.Roll` or
  :class:`~hexlore.runtime.engine.resume.Choice` request and is resumed with the answer;
* ends: it sets ``R.result`` and returns :data:`RETURN`.

A stack of frames is copied in a few list copies, so a search or the exact odds engine forks
it at a chance point (with the state's journal) and resumes each copy with one outcome.
Everything that cannot stop (functions, aggregates, procedures that neither roll nor ask)
runs as the direct functions of :mod:`.statements`. Expressions that contain a suspension
are flattened first: the values computed before it are kept in frame slots, so that after
resuming they are what they were, and evaluation order is the direct form's.
"""

from __future__ import annotations

import ast
import dataclasses
from typing import Any
from hexlore.compiler import ir
from hexlore.compiler.builtins import named
from hexlore.compiler.model import RuleSet, Timing, TriggerSpec
from hexlore.compiler.backend.expressions import Expressions, _children
from hexlore.compiler.backend.names import (CONTEXT, FRAME, FrameScope, Generating, attr, budget, call,
                                          counting_event, function, name, spending)
from hexlore.compiler.backend.statements import Statements, _journalled_write, replaced


#: a Lore name no rule can write: the frame slots the compiler adds (values kept across a stop)
_HIDDEN = "\u00b7"
#: built-ins where a rule stops for the driver to answer (roll(count, die), h_roll below)
_CHANCE_POINTS = named(lambda b: b.chance_point)


class NotResumable(Exception):
    """A rule stops where a frame cannot hold its place (a roll inside an aggregate's test):
    the exact odds engine then replays actions instead of forking them."""


class Suspends:
    """Which callables can reach a roll or a decision, to a fixed point over calls and events."""

    def __init__(self, rules: RuleSet):
        self.rules = rules
        self.procedures: set[str] = set()
        self.events: set[str] = set()
        self.triggers: set[str] = set()
        changed = True
        while changed:
            changed = False
            for procedure, spec in rules.procedures.items():
                if procedure not in self.procedures and any(self.statement(s) for s in spec.body):
                    self.procedures.add(procedure)
                    changed = True
            for t in rules.triggers:
                if t.name not in self.triggers and (t.optional_by is not None or any(self.statement(s) for s in t.body)):
                    self.triggers.add(t.name)
                    changed = True
            for event, table in rules.dispatch.items():
                if event not in self.events and any(t.name in self.triggers for t in
                                                    table.before + table.instead + table.on + table.after):
                    self.events.add(event)
                    changed = True

    def stops_here(self, node) -> bool:
        """Is ``node`` itself a point where the rules may stop (not one of its children)?"""
        cls = node.__class__
        return (cls is ir.CallBuiltin and node.name in _CHANCE_POINTS) or cls is ir.Choose or cls is ir.Ask or \
            (cls is ir.CallProcedure and node.name in self.procedures) or \
            (cls is ir.Emit and node.event in self.events)

    def expr(self, node) -> bool:
        stack = [node]
        while stack:
            n = stack.pop()
            if self.stops_here(n):
                return True
            stack.extend(_children(n))
        return False

    statement = expr

    def block(self, stmts) -> bool:
        return any(self.expr(s) for s in stmts)


def _breaks_out(stmts) -> bool:
    """Does a ``break`` in ``stmts`` leave a loop outside them?"""
    for s in stmts:
        cls = s.__class__
        if cls is ir.Break:
            return True
        if cls is ir.If and (any(_breaks_out(b) for _, b in s.branches) or _breaks_out(s.otherwise)):
            return True
    return False


def _stable(node) -> bool:
    """A value that nothing run in between can change: no need to keep it before a stop."""
    return node.__class__ in (ir.Const, ir.Local, ir.FunctionRef, ir.OptionRef, ir.GameRef)


class Machine:
    """One resumable function being built: its frame scope, its blocks, the block being filled."""

    def __init__(self, program: Generating, suspends: Suspends, params: tuple[str, ...], exit):
        self.program = program
        self.module = program.module
        self.suspends = suspends
        self.scope = FrameScope(params)
        self.exprs = Expressions(program, self.scope)
        self.exit = exit  # (machine, value ast or None) -> the statements that end the function
        self.blocks: list[list[ast.stmt] | None] = [[]]
        self.current = 0
        self.loops: list[int] = []  # the block after each pc loop being built (break goes there)
        self._hidden = 0

    # ------------------------------------------------------------ blocks
    def new_block(self) -> int:
        self.blocks.append(None)
        return len(self.blocks) - 1

    def start(self, k: int) -> None:
        self.blocks[k] = []
        self.current = k

    def emit(self, *stmts: ast.stmt) -> None:
        block = self.blocks[self.current]
        assert block is not None  # emitting into a block started and not yet ended
        block.extend(stmts)

    def goto(self, k: int) -> None:
        self.emit(ast.Assign([self.pc()], ast.Constant(k)), ast.Continue())

    def branch(self, test: ast.expr, yes: int, no: int) -> None:
        self.emit(ast.Assign([self.pc()], ast.IfExp(test, ast.Constant(yes), ast.Constant(no))), ast.Continue())

    def pc(self) -> ast.expr:
        return ast.Subscript(name(FRAME), ast.Constant(1), ast.Store())

    def hidden(self) -> str:
        self._hidden += 1
        return f"{_HIDDEN}{self._hidden}"

    def suspend(self, stop: ast.expr, pushes: bool) -> int:
        """End the block at a stop (``stop`` pushes a frame when ``pushes``, else it is the
        request returned); the next block starts where the frame resumes, with ``x``."""
        resume = self.new_block()
        self.emit(ast.Assign([self.pc()], ast.Constant(resume)))
        if pushes:
            self.emit(ast.Expr(call(attr(attr(CONTEXT, "stack"), "append"), stop)), ast.Return(name("h_call")))
        else:
            self.emit(ast.Return(stop))
        self.start(resume)
        return resume

    def keep(self, node: ir.X) -> ir.X:
        """``node``'s value computed now into a hidden slot, read later as a local."""
        hidden = self.hidden()
        self.emit(ast.Assign([self.scope.target(hidden)], self.exprs.x(node)))
        return ir.Local(hidden, origin=node.origin)

    def result_into(self, hidden: str, node) -> ir.X:
        self.emit(ast.Assign([self.scope.target(hidden)], name("x")))
        return ir.Local(hidden, origin=node.origin)

    # ------------------------------------------------------------ expressions
    def flatten(self, node: ir.X) -> ir.X:
        """``node`` with every stop in it run first: an expression that stops nowhere."""
        if not self.suspends.expr(node):
            return node
        if isinstance(node, ir.Binary) and node.op in ("and", "or"):
            return self._lazy(node)
        if isinstance(node, ir.Conditional):
            return self._choice_of(node)
        if isinstance(node, ir.Aggregate):
            if any(self.suspends.expr(x) for x in (node.where, node.mapped) if x is not None):
                raise NotResumable("a roll or a decision inside an aggregate's test")
            return dataclasses.replace(node, source=self.flatten(node.source))
        if isinstance(node, ir.Choose):
            if any(self.suspends.expr(x) for x in (node.source, node.by, node.prefer, node.default) if x is not None):
                raise NotResumable("a roll or a decision inside a choice's options")
            return self._stop_at_choice(node)
        if isinstance(node, ir.Ask):
            if any(self.suspends.expr(x) for x in (node.by, node.prefer, node.default) if x is not None):
                raise NotResumable("a roll or a decision inside a question")
            return self._stop_at_question(node)
        node = self._flatten_children(node)
        if self.suspends.stops_here(node):
            return self._stop_at(node)
        return node

    def _flatten_children(self, node):
        fields: dict[str, Any] = {}  # a child, or the items of a tuple field
        parts: list[tuple[str, int | None, str | None, ir.X]] = []  # (field, index in tuple, pair name, child)
        for f in dataclasses.fields(node):
            value = getattr(node, f.name)
            if isinstance(value, ir.X):
                parts.append((f.name, None, None, value))
            elif isinstance(value, tuple):
                for i, item in enumerate(value):
                    if isinstance(item, ir.X):
                        parts.append((f.name, i, None, item))
                    elif isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], ir.X):
                        parts.append((f.name, i, item[0], item[1]))
        stops = [self.suspends.expr(child) for *_, child in parts]
        last = max((i for i, s in enumerate(stops) if s), default=-1)
        new = []
        for i, (field, index, pair, child) in enumerate(parts):
            if stops[i]:
                child = self.flatten(child)
            elif i < last and not _stable(child):
                child = self.keep(child)
            new.append((field, index, pair, child))
        for field, index, pair, child in new:
            if index is None:
                fields[field] = child
            else:
                items = fields.setdefault(field, list(getattr(node, field)))
                items[index] = (pair, child) if pair is not None else child
        return dataclasses.replace(node, **{k: tuple(v) if isinstance(v, list) else v for k, v in fields.items()})

    def _lazy(self, node: ir.Binary) -> ir.X:
        hidden = self.hidden()
        left = self.flatten(node.left)
        self.emit(ast.Assign([self.scope.target(hidden)],
                             ast.IfExp(self.exprs.x(left), ast.Constant(True), ast.Constant(False))))
        right_block, join = self.new_block(), self.new_block()
        test = self.scope.load(hidden)
        if node.op == "and":
            self.branch(test, right_block, join)
        else:
            self.branch(test, join, right_block)
        self.start(right_block)
        right = self.flatten(node.right)
        self.emit(ast.Assign([self.scope.target(hidden)],
                             ast.IfExp(self.exprs.x(right), ast.Constant(True), ast.Constant(False))))
        self.goto(join)
        self.start(join)
        return ir.Local(hidden, origin=node.origin)

    def _choice_of(self, node: ir.Conditional) -> ir.X:
        hidden = self.hidden()
        cond = self.flatten(node.cond)
        then_block, else_block, join = self.new_block(), self.new_block(), self.new_block()
        self.branch(self.exprs.x(cond), then_block, else_block)
        for block, value in ((then_block, node.then), (else_block, node.otherwise)):
            self.start(block)
            self.emit(ast.Assign([self.scope.target(hidden)], self.exprs.x(self.flatten(value))))
            self.goto(join)
        self.start(join)
        return ir.Local(hidden, origin=node.origin)

    def _stop_at(self, node) -> ir.X:
        """A roll, a call of a resumable procedure, an event with resumable triggers."""
        program, hidden = self.program, self.hidden()
        cls = node.__class__
        if cls is ir.CallBuiltin:  # roll(count, die): the one chance point (_CHANCE_POINTS)
            count, die = (self.exprs.x(a) for a in node.args)
            self.suspend(self.module.at(call("h_roll", count, die, self.module.origin(node)), node), False)
        elif cls is ir.CallProcedure:
            args = [self.exprs.x(a) for a in node.args]
            frame = ast.List([name(program.resumable_name("procedure", node.name)), ast.Constant(0)] + args,
                             ast.Load())
            self.suspend(self.module.at(frame, node), True)
        else:  # Emit
            values = ast.Dict([ast.Constant(n) for n, _ in node.args], [self.exprs.x(v) for _, v in node.args])
            frame = ast.List([name(program.resumable_name("event", node.event)), ast.Constant(0), values,
                              self.module.origin(node)], ast.Load())
            self.suspend(self.module.at(frame, node), True)
        return self.result_into(hidden, node)

    def _stop_at_choice(self, node: ir.Choose) -> ir.X:
        """The options, scores and default computed directly (a lifted function that returns the
        request, or None when there is no option); the frame stops only to ask."""
        hidden = self.hidden()
        request = self.exprs.choice_request(node)
        kept = self.hidden()
        self.emit(ast.Assign([self.scope.target(kept)], request))
        asked, none = self.new_block(), self.new_block()
        self.branch(ast.Compare(self.scope.load(kept), [ast.IsNot()], [ast.Constant(None)]), asked, none)
        self.start(none)
        self.emit(ast.Assign([self.scope.target(hidden)], ast.Constant(None)))
        join = self.new_block()
        self.goto(join)
        self.start(asked)
        self.suspend(self.scope.load(kept), False)
        self.emit(ast.Assign([self.scope.target(hidden)], name("x")))
        self.goto(join)
        self.start(join)
        return ir.Local(hidden, origin=node.origin)

    def _stop_at_question(self, node: ir.Ask) -> ir.X:
        hidden = self.hidden()
        self.suspend(self.exprs.question_request(node), False)
        return self.result_into(hidden, node)

    # ------------------------------------------------------------ statements
    def block(self, stmts: tuple[ir.S, ...]) -> None:
        for s in stmts:
            if self.suspends.statement(s) or (self.loops and _breaks_out((s,))):
                getattr(self, "s_" + s.__class__.__name__)(s)
            else:
                direct = Statements(self.program, self.scope, lambda value: self.exit(self, value))
                for tree in direct.block((s,)):
                    self.emit(tree)

    def s_Let(self, node: ir.Let):
        value = self.flatten(node.value)
        self.emit(self.module.at(ast.Assign([self.scope.target(node.name)], self.exprs.x(value)), node))

    def s_SetLocal(self, node: ir.SetLocal):
        self._direct(dataclasses.replace(node, value=self.flatten(node.value)))

    def s_SetField(self, node: ir.SetField):
        obj, value = node.obj, node.value
        if self.suspends.expr(value) and not _stable(obj):
            obj = self.keep(obj)
        self._direct(dataclasses.replace(node, obj=obj, value=self.flatten(value)))

    def s_Do(self, node: ir.Do):
        value = self.flatten(node.expr)
        if value.__class__ is not ir.Local or not value.name.startswith(_HIDDEN):
            self._direct(dataclasses.replace(node, expr=value))

    def _direct(self, node: ir.S) -> None:
        for tree in Statements(self.program, self.scope, lambda value: self.exit(self, value)).block((node,)):
            self.emit(tree)

    def s_If(self, node: ir.If):
        join = self.new_block()
        for cond, body in node.branches:
            test = self.exprs.x(self.flatten(cond))
            yes, no = self.new_block(), self.new_block()
            self.branch(self.module.at(test, cond), yes, no)
            self.start(yes)
            self.block(body)
            self.goto(join)
            self.start(no)
        self.block(node.otherwise)
        self.goto(join)
        self.start(join)

    def s_ForEach(self, node: ir.ForEach):
        items, index = self.hidden(), self.hidden()
        source = self.exprs.x(self.flatten(node.source))
        origin = self.module.origin(node)
        self.emit(ast.Assign([self.scope.target(items)], call("h_list", source)),
                  *spending(call("h_len", self.scope.load(items)), origin),
                  ast.Assign([self.scope.target(index)], ast.Constant(0)))
        head, body, after = self.new_block(), self.new_block(), self.new_block()
        self.goto(head)
        self.start(head)
        done = ast.Compare(self.scope.load(index), [ast.GtE()], [call("h_len", self.scope.load(items))])
        self.branch(done, after, body)
        self.start(body)
        self.emit(ast.Assign([self.scope.target(node.var)],
                             ast.Subscript(self.scope.load(items), self.scope.load(index), ast.Load())),
                  ast.AugAssign(self.scope.target(index), ast.Add(), ast.Constant(1)))
        self.loops.append(after)
        self.block(node.body)
        self.loops.pop()
        self.goto(head)
        self.start(after)

    def s_Repeat(self, node: ir.Repeat):
        left = self.hidden()
        times = self.exprs.x(self.flatten(node.times))
        self.emit(ast.Assign([self.scope.target(left)], call("h_repeat", times, self.module.origin(node), budget())))
        head, body, after = self.new_block(), self.new_block(), self.new_block()
        self.goto(head)
        self.start(head)
        self.branch(ast.Compare(self.scope.load(left), [ast.LtE()], [ast.Constant(0)]), after, body)
        self.start(body)
        self.emit(ast.AugAssign(self.scope.target(left), ast.Sub(), ast.Constant(1)))
        self.loops.append(after)
        self.block(node.body)
        self.loops.pop()
        self.goto(head)
        self.start(after)

    def s_While(self, node: ir.While):
        head, body, after = self.new_block(), self.new_block(), self.new_block()
        self.goto(head)
        self.start(head)
        cond = self.exprs.x(self.flatten(node.cond))
        self.branch(self.module.at(cond, node.cond), body, after)
        self.start(body)
        self.emit(*spending(ast.Constant(1), self.module.origin(node)))
        self.loops.append(after)
        self.block(node.body)
        self.loops.pop()
        self.goto(head)
        self.start(after)

    def s_Require(self, node: ir.Require):
        self._direct(dataclasses.replace(node, cond=self.flatten(node.cond)))

    def s_Break(self, node: ir.Break):
        self.goto(self.loops[-1])

    def s_Stop(self, node: ir.Stop):
        self.emit(*self.exit(self, None))

    def s_Return(self, node: ir.Return):
        value = self.exprs.x(self.flatten(node.value))
        self.emit(*self.exit(self, value))

    # ------------------------------------------------------------ the function
    def finish(self, identifier: str, params: int) -> ast.FunctionDef:
        """``rf(R, F, x)``: the frame padded at entry, then the blocks dispatched by ``F[1]``."""
        self.emit(*self.exit(self, None))
        blocks = [b for b in self.blocks if b is not None]
        assert len(blocks) == len(self.blocks)  # every block made was started
        dispatch = _dispatch(list(range(len(blocks))), blocks)
        pad = self.scope.size - 2 - params
        nones = ast.Tuple([ast.Constant(None)] * pad, ast.Load())  # folded to one constant by CPython
        entry = [ast.Expr(call(attr(FRAME, "extend"), nones))] if pad > 0 else []
        blocks[0][:0] = entry
        return function(identifier, [CONTEXT, FRAME, "x"], [ast.While(ast.Constant(True), dispatch, [])])


def _dispatch(numbers: list[int], blocks: list[list[ast.stmt]]) -> list[ast.stmt]:
    """A balanced tree of tests on ``F[1]``: the block to run in about log2(blocks) tests."""
    if len(numbers) == 1:
        return blocks[numbers[0]]
    middle = len(numbers) // 2
    test = ast.Compare(ast.Subscript(name(FRAME), ast.Constant(1), ast.Load()), [ast.Lt()],
                       [ast.Constant(numbers[middle])])
    return [ast.If(test, _dispatch(numbers[:middle], blocks), _dispatch(numbers[middle:], blocks))]


def _returning(value: ast.expr | None) -> list[ast.stmt]:
    return [ast.Assign([ast.Attribute(name(CONTEXT), "result", ast.Store())],
                       value if value is not None else ast.Constant(None)),
            ast.Return(name("h_return"))]


# ---------------------------------------------------------------- the callables
def procedure_machine(program: Generating, suspends: Suspends, identifier: str, params: tuple[str, ...],
                      body: tuple[ir.S, ...]) -> ast.FunctionDef:
    machine = Machine(program, suspends, params, lambda m, value: _returning(value))
    machine.block(body)
    return machine.finish(identifier, len(params))


def block_machine(program: Generating, suspends: Suspends, identifier: str, body: tuple[ir.S, ...]):
    def exit(m, value):
        return ([ast.Expr(value)] if value is not None else []) + _returning(None)
    machine = Machine(program, suspends, (), exit)
    machine.block(body)
    return machine.finish(identifier, 0)


def trigger_machine(program: Generating, suspends: Suspends, identifier: str, t: TriggerSpec) -> ast.FunctionDef:
    record = _HIDDEN + "record"

    def write_back(m: Machine) -> list[ast.stmt]:
        if t.timing is not Timing.BEFORE:
            return []
        args = attr(m.scope.load(record), "args")
        out = [stmt for p in t.params for stmt in _journalled_write(m.scope, args, ast.Constant(p), m.scope.load(p))]
        return out + [ast.Expr(call(attr(CONTEXT, "forget_event")))]

    def exit(m, value):
        return ([ast.Expr(value)] if value is not None else []) + write_back(m) + _returning(ast.Constant(True))
    machine = Machine(program, suspends, (record,), exit)
    scope = machine.scope
    for p in t.params:
        machine.emit(ast.Assign([scope.target(p)], ast.Subscript(attr(scope.load(record), "args"), ast.Constant(p),
                                                                ast.Load())))
    if t.guard is not None:
        machine.emit(program.module.at(ast.If(ast.UnaryOp(ast.Not(), machine.exprs.x(t.guard)),
                                              _returning(ast.Constant(False)), []), t.guard))
    if t.optional_by is not None:
        request = call("h_choice", ast.Constant(t.name), machine.exprs.x(t.optional_by),
                       ast.List([ast.Constant(True), ast.Constant(False)], ast.Load()),
                       machine.exprs.answer_scores(t.optional_prefer),
                       ast.Constant(0), program.module.constant(t.origin))
        machine.suspend(program.module.at(request, t.optional_by), False)
        machine.emit(ast.If(ast.UnaryOp(ast.Not(), name("x")), _returning(ast.Constant(False)), []))
    machine.block(t.body)
    # the end of the body is a way out like 'stop': the exit writes the arguments back
    return machine.finish(identifier, 1)


def emitter_machine(program: Generating, suspends: Suspends, identifier: str, event: str) -> ast.FunctionDef:
    """The dispatch of an event with resumable triggers: the direct emitter's steps, each
    resumable trigger called by pushing its frame."""
    args, origin, record = _HIDDEN + "args", _HIDDEN + "origin", _HIDDEN + "record"

    def exit(m, value):
        return _returning(value)
    machine = Machine(program, suspends, (args, origin), exit)
    scope = machine.scope
    table = program.rules.dispatch[event]
    machine.emit(
        *counting_event(scope.load(origin)),
        ast.If(ast.Compare(attr(CONTEXT, "depth"), [ast.GtE()], [ast.Constant(program.max_depth)]),
               [ast.Expr(call(attr(CONTEXT, "too_deep"), ast.Constant(event), scope.load(origin)))], []),
        ast.AugAssign(ast.Attribute(name(CONTEXT), "depth", ast.Store()), ast.Add(), ast.Constant(1)),
        ast.Assign([scope.target(record)], call("h_event", ast.Constant(event), scope.load(args))))

    def run(t: TriggerSpec) -> ast.expr:
        """Run trigger ``t``; its answer (did it run?) as an expression to read right after."""
        if t.name in suspends.triggers:
            frame = ast.List([name(program.resumable_name("trigger", t.name)), ast.Constant(0), scope.load(record)],
                             ast.Load())
            machine.suspend(frame, True)
            return name("x")
        return call(program.trigger_name(t.name), name(CONTEXT), scope.load(record))

    for t in table.before:
        answer = run(t)
        if answer.__class__ is ast.Call:
            machine.emit(ast.Expr(answer))
    settled = all(p.type.name not in ("list", "any") for p in program.rules.events[event].params)
    machine.emit(ast.Expr(call(attr(attr(CONTEXT, "events"), "record_event"), ast.Constant(event), attr(scope.load(record), "args"),
                               ast.Constant(settled))))
    after_instead = machine.new_block()
    for t in table.instead:
        answer = run(t)
        yes, no = machine.new_block(), machine.new_block()
        machine.branch(answer, yes, no)
        machine.start(yes)
        machine.emit(*replaced(scope.load(record)))
        machine.goto(after_instead)
        machine.start(no)
    machine.goto(after_instead)
    machine.start(after_instead)
    if table.on:
        on, after = machine.new_block(), machine.new_block()
        machine.branch(attr(scope.load(record), "replaced"), after, on)
        machine.start(on)
        for t in table.on:
            answer = run(t)
            if answer.__class__ is ast.Call:
                machine.emit(ast.Expr(answer))
        machine.goto(after)
        machine.start(after)
    for t in table.after:
        answer = run(t)
        if answer.__class__ is ast.Call:
            machine.emit(ast.Expr(answer))
    machine.emit(ast.AugAssign(ast.Attribute(name(CONTEXT), "depth", ast.Store()), ast.Sub(), ast.Constant(1)))
    machine.emit(*_returning(scope.load(record)))
    return machine.finish(identifier, 2)
