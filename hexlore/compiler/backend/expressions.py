"""IR expressions as Python expression nodes.

Each IR expression becomes one ``ast.expr`` evaluated in the generated function's frame:
locals are Python locals, fields are dict reads, ints are added with their bound checked
inline. What needs a loop of its own (an aggregate, a choice among options) is lifted into a
module-level function of the values it reads (its free locals), so that no expression needs
a statement inside it.

Values are checked where Python would not fail by itself (a none where a number is wanted, a
list index out of range, a field another pack leaves unset). Where Python does fail by itself
(a field read on none), the generated code does not check: the failure is located afterwards
from the line of the failing instruction (:mod:`hexlore.runtime.engine.compiled.locate`), so
the common path pays nothing.
"""

from __future__ import annotations

import ast
from hexlore.compiler import ir
from hexlore.compiler.builtins import BUILTINS, PURE, named
from hexlore.compiler.model import Symbol
from hexlore.dsl.limits import MAX_INT
from hexlore.compiler.backend.names import (CONTEXT, Generating, Scope, attr, budget, call, function, name,
                                          spending, store)


#: built-ins whose result is always an int (or a truth value, which adds as one): from their records
_INT_BUILTINS = named(lambda b: b.gives_int)
#: built-ins that can never give a list: their result needs no budget check
_NEVER_LISTS = named(lambda b: b.never_list)
#: built-ins written out as the hex distance of their two arguments (``Expressions._distance``)
_HEX_DISTANCE = named(lambda b: b.hex_distance)
_ARITHMETIC = {"+": ast.Add, "-": ast.Sub, "*": ast.Mult}
_ORDER = {"<": ast.Lt, "<=": ast.LtE, ">": ast.Gt, ">=": ast.GtE}


def _is(left: ast.expr, right: ast.expr) -> ast.Compare:
    return ast.Compare(left, [ast.Is()], [right])


def _walrus(target: str, value: ast.expr) -> ast.NamedExpr:
    return ast.NamedExpr(store(target), value)


def _subscript(value: ast.expr, key: ast.expr) -> ast.Subscript:
    return ast.Subscript(value, key, ast.Load())


class Expressions:
    """Compiles the expressions of one generated function (``scope``)."""

    def __init__(self, program: Generating, scope: Scope):
        self.program = program
        self.module = program.module
        self.scope = scope

    # ------------------------------------------------------------ entry points
    def x(self, node: ir.X) -> ast.expr:
        return self.typed(node)[0]

    def typed(self, node: ir.X) -> tuple[ast.expr, bool]:
        """The expression of ``node`` and whether it is known to be an int."""
        method = getattr(self, "x_" + node.__class__.__name__)
        tree, is_int = method(node)
        return self.module.at(tree, node), is_int

    def number(self, node: ir.X, op: str) -> ast.expr:
        """``node`` as a number for ``op``: ints as they are, anything else through h_number."""
        tree, is_int = self.typed(node)
        if is_int:
            return tree
        t = self.scope.temp()
        test = _is(attr(_walrus(t, tree), "__class__"), name("h_int"))
        slow = call("h_number", name(t), ast.Constant(op), self.module.origin(node))
        return self.module.at(ast.IfExp(test, name(t), slow), node)

    # ------------------------------------------------------------ values
    def x_Const(self, node: ir.Const):
        value = node.value
        return self.module.constant(value), value.__class__ in (int, bool)

    def x_OptionRef(self, node: ir.OptionRef):
        return _subscript(attr(CONTEXT, "options"), ast.Constant(node.name)), False

    def x_Local(self, node: ir.Local):
        return self.scope.load(node.name), False

    def x_GameRef(self, node: ir.GameRef):
        return attr(CONTEXT, "game"), False

    def x_FunctionRef(self, node: ir.FunctionRef):
        return ast.Constant(node.name), False

    def x_MakeList(self, node: ir.MakeList):
        return ast.List([self.x(i) for i in node.items], ast.Load()), False

    def x_TableGet(self, node: ir.TableGet):
        key, table = self.scope.temp(), self.scope.temp()
        present = ast.Compare(_walrus(key, self.x(node.key)), [ast.In()],
                              [_walrus(table, _subscript(attr(CONTEXT, "tables"), ast.Constant(node.table)))])
        missing = call("h_no_entry", ast.Constant(node.table), name(key), self.module.origin(node))
        return ast.IfExp(present, _subscript(name(table), name(key)), missing), False

    def x_ListIndex(self, node: ir.ListIndex):
        return call("h_item", self.x(node.obj), self.x(node.index), self.module.origin(node)), False

    # ------------------------------------------------------------ fields
    def x_GetField(self, node: ir.GetField):
        obj, field, owner = node.obj, node.name, node.owner
        key = ast.Constant(field)
        if owner == "unit":
            if field in ("hex", "side", "id", "alive"):
                return attr(self.x(obj), field), field == "alive"
            if field == "type":
                return attr(self.x(obj), "definition"), False
            if field == "title":
                return attr(attr(self.x(obj), "definition"), "title"), False
            declarer = self.program.may_be_unset("unit", field)
            if declarer is None:
                return _subscript(attr(self.x(obj), "f"), key), False
            unit, value = self.scope.temp(), self.scope.temp()
            read = _walrus(value, _subscript(attr(_walrus(unit, self.x(obj)), "f"), key))
            missing = call("h_unit_unset", name(unit), key, ast.Constant(declarer), self.module.origin(node))
            return ast.IfExp(ast.Compare(read, [ast.IsNot()], [ast.Constant(None)]), name(value), missing), False
        if owner == "side":
            if field in ("name", "edge"):
                return attr(self.x(obj), field), False
            return _subscript(attr(self.x(obj), "f"), key), False
        if owner == "hex":
            if field in ("q", "r"):
                return attr(self.x(obj), field), True
            if field == "label":
                return call(attr(attr(CONTEXT, "board"), "label"), self.x(obj)), False
            return _subscript(_subscript(attr(CONTEXT, "hex_fields"), self.x(obj)), key), False
        if owner == "game":
            return _subscript(attr(CONTEXT, "game_fields"), key), field in ("round", "turn")
        if owner == "face":
            if field == "die":
                return _subscript(self.module.constant(self.program.rules.dice), attr(self.x(obj), "die")), False
            if field in ("name", "value"):
                return attr(self.x(obj), field), False
            return call("h_getattr", self.x(obj), key), False
        if owner == "def":
            if field in ("name", "title"):
                return attr(self.x(obj), field), False
            return self._definition_field(node), False
        if owner == "event":
            if field == "replaced":
                return attr(self.x(obj), "replaced"), False
            return _subscript(attr(self.x(obj), "args"), key), False
        return call("h_dynamic", self.x(node.obj), key, self.module.origin(node)), False

    def _definition_field(self, node: ir.GetField) -> ast.expr:
        """A definition's value: from the game's table of definition values (filled on first
        use), checked for none where some kind may leave the field unset."""
        d = self.scope.temp()
        values = ast.BoolOp(ast.Or(), [
            call(attr(attr(CONTEXT, "definition_values"), "get"), attr(_walrus(d, self.x(node.obj)), "name")),
            call(attr(CONTEXT, "load_definition"), name(d))])
        read = _subscript(values, ast.Constant(node.name))
        unset_in = self.program.unset_kinds(node.name)
        if not unset_in:
            return read
        value = self.scope.temp()
        missing = call("h_def_unset", name(d), ast.Constant(node.name), self.module.constant(unset_in),
                       self.module.origin(node))
        return ast.IfExp(ast.Compare(_walrus(value, read), [ast.IsNot()], [ast.Constant(None)]), name(value), missing)

    # ------------------------------------------------------------ operators
    def x_Unary(self, node: ir.Unary):
        if node.op == "not":
            return ast.UnaryOp(ast.Not(), self.x(node.operand)), False
        operand, is_int = self.typed(node.operand)
        if is_int:  # an int (or a truth value, which negates as 0 or 1 does): no conversion to call
            if isinstance(operand, ast.Constant) and operand.value.__class__ is int:
                return ast.Constant(-operand.value), True  # a negative literal: no operation at all
            return ast.UnaryOp(ast.USub(), operand), True
        return ast.UnaryOp(ast.USub(), call("h_as_number", operand)), True

    def x_Binary(self, node: ir.Binary):
        op = node.op
        if op in ("and", "or"):
            true, false = ast.Constant(True), ast.Constant(False)
            right: ast.expr = ast.IfExp(self.x(node.right), true, false)
            if op == "and":
                return ast.IfExp(self.x(node.left), right, false), False
            return ast.IfExp(self.x(node.left), true, right), False
        if op in ("==", "!="):
            cmp = ast.Eq() if op == "==" else ast.NotEq()
            return ast.Compare(self.x(node.left), [cmp], [self.x(node.right)]), False
        if op == "in":
            return ast.Compare(self.x(node.left), [ast.In()], [self.x(node.right)]), False
        if op == "++":
            return call("h_concat", self.x(node.left), self.x(node.right), self.module.origin(node)), False
        left, right = self.number(node.left, op), self.number(node.right, op)
        if op in _ORDER:
            return ast.Compare(left, [_ORDER[op]()], [right]), False
        origin = self.module.origin(node)
        if op in ("/", "mod"):
            t = self.scope.temp()
            checked = ast.IfExp(ast.Compare(_walrus(t, right), [ast.NotEq()], [ast.Constant(0)]), name(t),
                                call("h_zero", origin))
            return ast.BinOp(left, ast.FloorDiv() if op == "/" else ast.Mod(), checked), True
        t = self.scope.temp()
        result = _walrus(t, ast.BinOp(left, _ARITHMETIC[op](), right))
        within = ast.Compare(ast.Constant(-MAX_INT), [ast.LtE(), ast.LtE()], [result, ast.Constant(MAX_INT)])
        return ast.IfExp(within, name(t), call("h_too_large", name(t), ast.Constant(op), origin)), True

    def x_Conditional(self, node: ir.Conditional):
        """``then if cond else otherwise``: known to be an int when both branches are (a cost
        of ``1 if … else 0``), so arithmetic on it checks no class."""
        cond = self.x(node.cond)
        then, then_int = self.typed(node.then)
        otherwise, otherwise_int = self.typed(node.otherwise)
        return ast.IfExp(cond, then, otherwise), then_int and otherwise_int

    def x_IsA(self, node: ir.IsA):
        rules = self.program.rules
        names = frozenset(n for n, d in rules.definitions.items() if n == node.name or node.name in d.traits)
        return call("h_is_a", self.x(node.obj), ast.Constant(node.name), self.module.constant(names),
                    self.module.constant(rules.definitions)), False

    def x_HasTag(self, node: ir.HasTag):
        tag = node.tag
        if tag.__class__ is ir.Const and tag.value is not None:  # the usual 'd is TAG': inline
            label = tag.value.name if isinstance(tag.value, Symbol) else str(tag.value)
            face = self.scope.temp()
            is_face = _is(attr(_walrus(face, self.x(node.face)), "__class__"), name("h_face"))
            tags = ast.Compare(ast.Constant(label), [ast.In()], [attr(face, "tags")])
            return ast.BoolOp(ast.And(), [is_face, tags]), False
        return call("h_has_tag", self.x(node.face), self.x(tag)), False

    # ------------------------------------------------------------ calls
    def x_CallBuiltin(self, node: ir.CallBuiltin):
        index = self.program.builtin_index(node.name)
        impl = _subscript(attr(CONTEXT, "builtins"), ast.Constant(index))
        if node.name in _HEX_DISTANCE and len(node.args) == 2:
            return self._distance(impl, node.args[0], node.args[1]), True
        tree = call(impl, *[self.x(a) for a in node.args])
        if node.name not in _NEVER_LISTS:
            tree = call("h_spend_list", self.module.at(tree, node), self.module.origin(node), budget())
        return tree, node.name in _INT_BUILTINS

    def _distance(self, impl: ast.expr, first: ir.X, second: ir.X) -> ast.expr:
        """``distance(a, b)`` of two hexes written out, the built-in called for anything else.

        Why: the rules' scorers ask it hundreds of times a search future (the nearest enemy of
        every option hex), and the Python call of the built-in costs more than its arithmetic.
        Both arguments are evaluated once, in order, as a call would; the chained ``is`` reads
        ``a.__class__ is b.__class__ is Hex``, and anything else (not a hex: the built-in's
        own error) goes to the built-in with the values already computed."""
        a, b, dq, dr, ds = (self.scope.temp() for _ in range(5))

        def part(value: str, i: int) -> ast.expr:
            return _subscript(name(value), ast.Constant(i))

        def size(t: str, value: ast.expr) -> ast.expr:  # abs(value) with no call: t if t >= 0 else -t
            return ast.IfExp(ast.Compare(_walrus(t, value), [ast.GtE()], [ast.Constant(0)]), name(t),
                             ast.UnaryOp(ast.USub(), name(t)))

        cond = ast.Compare(attr(_walrus(a, self.x(first)), "__class__"), [ast.Is(), ast.Is()],
                           [attr(_walrus(b, self.x(second)), "__class__"), name("h_hex")])
        total = ast.BinOp(ast.BinOp(size(dq, ast.BinOp(part(a, 0), ast.Sub(), part(b, 0))), ast.Add(),
                                    size(dr, ast.BinOp(part(a, 1), ast.Sub(), part(b, 1)))), ast.Add(),
                          size(ds, ast.BinOp(name(dq), ast.Add(), name(dr))))
        steps = ast.BinOp(total, ast.FloorDiv(), ast.Constant(2))
        return ast.IfExp(cond, steps, call(impl, name(a), name(b)))

    def x_CallFunction(self, node: ir.CallFunction):
        return call(self.program.function_entry(node.name), name(CONTEXT), *[self.x(a) for a in node.args]), False

    def x_CallProcedure(self, node: ir.CallProcedure):
        return call(self.program.procedure_name(node.name), name(CONTEXT), *[self.x(a) for a in node.args]), False

    def x_Emit(self, node: ir.Emit):
        args = ast.Dict([ast.Constant(n) for n, _ in node.args], [self.x(v) for _, v in node.args])
        return call(self.program.emitter_name(node.event), name(CONTEXT), args, self.module.origin(node)), False

    # ------------------------------------------------------------ lifted: aggregates, choices
    def x_Aggregate(self, node: ir.Aggregate):
        func = node.func
        if node.where is None and node.mapped is None and func in ("count", "list"):
            source: ast.expr = call("h_spend", self.x(node.source), self.module.origin(node), budget())
            return (call("h_len", source), True) if func == "count" else (call("h_list", source), False)
        source = self.x(node.source)
        free = self._free_locals((node.where, node.mapped), exclude=node.var)
        int_result = func in ("count", "sum", "min", "max")
        key = ("ag", id(node), tuple(free))
        lifted = self.program.lifted.get(key)
        if lifted is not None:  # the same aggregate met again (a test asked of each face): made once
            return call(lifted, name(CONTEXT), source, *[self.scope.load(n) for n in free]), int_result
        lifted = self.program.lifted[key] = self.program.module.callable_name("ag_")
        inner = Scope([])
        src = inner.temp()
        params = [CONTEXT, src] + [inner.local(n) for n in free]
        item = inner.fresh(node.var)
        sub = Expressions(self.program, inner)
        where = sub.x(node.where) if node.where is not None else None
        mapped = sub.x(node.mapped) if node.mapped is not None else None
        # the items read are spent from the budget before any is read
        body = spending(call("h_len", name(src)), self.module.origin(node)) + \
            _aggregate_body(func, src, item, where, mapped, inner)
        if all(_pure(x) for x in (node.where, node.mapped) if x is not None):
            # an undecided die face among the items (exact odds, engine/core/face_classes.py): the
            # tests are asked again of each of its faces, as functions of the item
            tests = [self._test(node, x, free) if x is not None else ast.Constant(None)
                     for x in (node.where, node.mapped)]
            again = call("h_aggregate", ast.Constant(func), name(src), *tests, name(CONTEXT),
                         ast.Tuple([name(p) for p in params[2:]], ast.Load()))
            body = [ast.Try(body, [ast.ExceptHandler(name("h_observed"), None, [ast.Return(again)])], [], [])]
        self.program.add(function(lifted, params, body))
        return call(lifted, name(CONTEXT), source, *[self.scope.load(n) for n in free]), int_result

    def _test(self, node: ir.Aggregate, test: ir.X, free: list[str]) -> ast.expr:
        """``te(R, item, free…)``: an aggregate's test (or mapping) as a function of the item."""
        key = ("te", id(node), id(test), tuple(free))
        lifted = self.program.lifted.get(key)
        if lifted is not None:
            return name(lifted)
        lifted = self.program.lifted[key] = self.program.module.callable_name("te_")
        inner = Scope([])
        item = inner.temp()
        params = [CONTEXT, item] + [inner.local(n) for n in free]
        inner.names[node.var] = item
        self.program.add(function(lifted, params, [ast.Return(Expressions(self.program, inner).x(test))]))
        return name(lifted)

    def x_Choose(self, node: ir.Choose):
        return self._choose(node, request=False), False

    def choice_request(self, node: ir.Choose) -> ast.expr:
        """The choice up to the decision: a request to answer (``h_choice``), or None when there
        is no option (resumable rules stop at it, :mod:`.resumable`)."""
        return self.module.at(self._choose(node, request=True), node)

    def _choose(self, node: ir.Choose, request: bool) -> ast.expr:
        free = self._free_locals((node.source, node.by, node.prefer, node.default), exclude=None)
        free_prefer = self._free_locals((node.prefer,), exclude=node.var)
        free = sorted(set(free) | set(free_prefer))
        key = ("ch", id(node), request, tuple(free))
        lifted = self.program.lifted.get(key)
        if lifted is not None:
            return call(lifted, name(CONTEXT), *[self.scope.load(n) for n in free])
        lifted = self.program.lifted[key] = self.program.module.callable_name("ch_")
        inner = Scope([])
        params = [CONTEXT] + [inner.local(n) for n in free]
        sub = Expressions(self.program, inner)
        opts, scores, choice = inner.temp(), inner.temp(), inner.temp()
        body: list[ast.stmt] = [
            ast.Assign([store(opts)], call("h_list", sub.x(node.source))),
            ast.If(ast.UnaryOp(ast.Not(), name(opts)), [ast.Return(ast.Constant(None))], [])]
        if node.prefer is not None:
            # the scores are computed only if a policy reads them (greedy does, random does not)
            scorer = self._scorer(node, free_prefer)
            body.append(ast.Assign([store(scores)], call("h_partial", name(scorer), name(CONTEXT), name(opts),
                                                         *[name(inner.local(n)) for n in free_prefer])))
        else:
            body.append(ast.Assign([store(scores)], ast.Constant(None)))
        default = call("h_default_index", name(opts), sub.x(node.default)) if node.default is not None \
            else ast.Constant(None)
        body.append(ast.Assign([store(choice)], default))
        asked = [ast.Constant(node.decision), sub.x(node.by), name(opts), name(scores), name(choice),
                 self.module.origin(node)]
        if request:
            body.append(ast.Return(self.module.at(call("h_choice", *asked), node)))
        else:
            decided = call(attr(CONTEXT, "decide"), *asked)
            body.append(ast.Return(_subscript(name(opts), self.module.at(decided, node))))
        self.program.add(function(lifted, params, body))
        return call(lifted, name(CONTEXT), *[self.scope.load(n) for n in free])

    def _lifted(self, key: tuple, prefix: str) -> tuple[str, bool]:
        """The name of the function lifted for ``key``, and whether it is new (still to be made)."""
        lifted = self.program.lifted.get(key)
        if lifted is not None:
            return lifted, False
        lifted = self.program.lifted[key] = self.program.module.callable_name(prefix)
        return lifted, True

    def _scorer(self, node: ir.Choose, free: list[str]) -> str:
        """``sc(R, options, free…) -> scores``: the 'prefer' score of each option, lifted."""
        lifted, new = self._lifted(("sc", id(node), tuple(free)), "sc_")
        if not new:
            return lifted
        inner = Scope([])
        opts = inner.temp()
        params = [CONTEXT, opts] + [inner.local(n) for n in free]
        item = inner.fresh(node.var)
        assert node.prefer is not None  # a scorer is lifted only for a choice that prefers
        score = Expressions(self.program, inner).x(node.prefer)
        scores = inner.temp()
        body: list[ast.stmt] = [
            ast.Assign([store(scores)], ast.List([], ast.Load())),
            ast.For(store(item), name(opts), [ast.Expr(call(attr(scores, "append"), call("h_as_number", score)))], []),
            ast.Return(name(scores))]
        self.program.add(function(lifted, params, body))
        return lifted

    def x_Ask(self, node: ir.Ask):
        return self._ask(node, request=False), False

    def question_request(self, node: ir.Ask) -> ast.expr:
        """The question up to the decision, as a request to answer (see :meth:`choice_request`)."""
        return self.module.at(self._ask(node, request=True), node)

    def _ask(self, node: ir.Ask, request: bool) -> ast.expr:
        free = self._free_locals((node.by, node.prefer, node.default), exclude=None)
        key = ("ak", id(node), request, tuple(free))
        lifted = self.program.lifted.get(key)
        if lifted is not None:
            return call(lifted, name(CONTEXT), *[self.scope.load(n) for n in free])
        lifted = self.program.lifted[key] = self.program.module.callable_name("ak_")
        inner = Scope([])
        params = [CONTEXT] + [inner.local(n) for n in free]
        sub = Expressions(self.program, inner)
        d, index = inner.temp(), inner.temp()
        body: list[ast.stmt] = []
        if node.default is not None:
            body += [ast.Assign([store(d)], sub.x(node.default)),
                     ast.Assign([store(index)], ast.IfExp(_is(name(d), ast.Constant(None)), ast.Constant(None),
                                                          ast.IfExp(name(d), ast.Constant(0), ast.Constant(1))))]
        else:
            body.append(ast.Assign([store(index)], ast.Constant(None)))
        options = ast.List([ast.Constant(True), ast.Constant(False)], ast.Load())
        asked = [ast.Constant(node.decision), sub.x(node.by), options, sub.answer_scores(node.prefer), name(index),
                 self.module.origin(node)]
        if request:
            body.append(ast.Return(self.module.at(call("h_choice", *asked), node)))
        else:
            decided = call(attr(CONTEXT, "decide"), *asked)
            body.append(ast.Return(ast.Compare(self.module.at(decided, node), [ast.Eq()], [ast.Constant(0)])))
        self.program.add(function(lifted, params, body))
        return call(lifted, name(CONTEXT), *[self.scope.load(n) for n in free])

    def answer_scores(self, prefer: ir.X | None) -> ast.expr:
        """The scores of a yes/no question's two options (an ``ask`` or an optional trigger's):
        None without a 'prefer', else a call of its lifted scorer with what it reads here."""
        if prefer is None:
            return ast.Constant(None)
        free = self._free_locals((prefer,), exclude=None)
        return call("h_partial", name(self._answer_scorer(prefer, free)), name(CONTEXT),
                    *[self.scope.load(n) for n in free])

    def _answer_scorer(self, prefer: ir.X, free: list[str]) -> str:
        """``sa(R, free…) -> [yes, no]``: a question's 'prefer' as the scores of its two options
        (1 for the preferred answer), lifted, so that every player reads it as it reads a
        choice's scores; computed only if a player reads them."""
        lifted, new = self._lifted(("sa", id(prefer), tuple(free)), "sa_")
        if not new:
            return lifted
        inner = Scope([])
        params = [CONTEXT] + [inner.local(n) for n in free]
        preferred = Expressions(self.program, inner).x(prefer)
        yes = ast.List([ast.Constant(1), ast.Constant(0)], ast.Load())
        no = ast.List([ast.Constant(0), ast.Constant(1)], ast.Load())
        self.program.add(function(lifted, params, [ast.Return(ast.IfExp(preferred, yes, no))]))
        return lifted

    def _free_locals(self, nodes, exclude: str | None) -> list[str]:
        """The Lore locals of this scope that ``nodes`` read (a lifted function's parameters)."""
        found: list[str] = []
        seen: set[str] = set()
        for node in nodes:
            if node is None:
                continue
            for local in _locals_read(node):
                if local != exclude and local not in seen and self.scope.knows(local):
                    seen.add(local)
                    found.append(local)
        return found


def _pure(node) -> bool:
    """Does evaluating ``node`` change nothing (so it may be evaluated again)?"""
    stack = [node]
    while stack:
        n = stack.pop()
        cls = n.__class__
        if cls in (ir.CallProcedure, ir.Emit, ir.Choose, ir.Ask):
            return False
        if cls is ir.CallBuiltin and (n.name not in BUILTINS or BUILTINS[n.name].effect != PURE):
            return False
        stack.extend(_children(n))
    return True


def _locals_read(node) -> list[str]:
    out: list[str] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if n.__class__ is ir.Local:
            out.append(n.name)
            continue
        for value in _children(n):
            stack.append(value)
    return out


def _children(node) -> list:
    out = []
    for field in node.__dataclass_fields__:
        value = getattr(node, field)
        stack = [value]
        while stack:
            v = stack.pop()
            if isinstance(v, tuple):
                stack.extend(v)
            elif isinstance(v, (ir.X, ir.S)):
                out.append(v)
    return out


def _aggregate_body(func: str, src: str, item: str, where: ast.expr | None, mapped: ast.expr | None,
                    scope: Scope) -> list[ast.stmt]:
    """The loop of an aggregate over ``src``, each item in ``item``: exactly the values, the
    order and the checks of reading ``each item in src where … : …``."""
    result = scope.temp()
    value = mapped if mapped is not None else name(item)

    def loop(inner: list[ast.stmt]) -> ast.For:
        body: list[ast.stmt] = [ast.If(where, inner, [])] if where is not None else inner
        return ast.For(store(item), name(src), body, [])

    def number(expr: ast.expr) -> ast.expr:
        t = scope.temp()
        return ast.IfExp(_is(attr(_walrus(t, expr), "__class__"), name("h_int")), name(t),
                         call("h_as_number", name(t)))

    if func == "count":
        step: list[ast.stmt] = [ast.Expr(mapped)] if mapped is not None else []
        step.append(ast.AugAssign(store(result), ast.Add(), ast.Constant(1)))
        return [ast.Assign([store(result)], ast.Constant(0)), loop(step), ast.Return(name(result))]
    if func == "any":
        hit: list[ast.stmt] = [ast.Return(ast.Constant(True))]
        step = [ast.If(mapped, hit, [])] if mapped is not None else hit
        return [loop(step), ast.Return(ast.Constant(False))]
    if func == "all":
        if mapped is None and where is not None:
            return [ast.For(store(item), name(src),
                            [ast.If(ast.UnaryOp(ast.Not(), where), [ast.Return(ast.Constant(False))], [])], []),
                    ast.Return(ast.Constant(True))]
        return [loop([ast.If(ast.UnaryOp(ast.Not(), value), [ast.Return(ast.Constant(False))], [])]),
                ast.Return(ast.Constant(True))]
    if func == "sum":
        add = ast.Assign([store(result)], ast.BinOp(name(result), ast.Add(), number(value)))
        return [ast.Assign([store(result)], ast.Constant(0)), loop([add]), ast.Return(name(result))]
    if func in ("min", "max"):
        found, v = scope.temp(), scope.temp()
        better = ast.Compare(name(v), [ast.Lt() if func == "min" else ast.Gt()], [name(result)])
        step = [ast.Assign([store(v)], number(value)),
                ast.If(ast.BoolOp(ast.Or(), [ast.UnaryOp(ast.Not(), name(found)), better]),
                       [ast.Assign([store(result)], name(v)), ast.Assign([store(found)], ast.Constant(True))], [])]
        return [ast.Assign([store(result)], ast.Constant(0)), ast.Assign([store(found)], ast.Constant(False)),
                loop(step), ast.Return(name(result))]
    # list
    append = ast.Expr(call(attr(result, "append"), value))
    return [ast.Assign([store(result)], ast.List([], ast.Load())), loop([append]), ast.Return(name(result))]
