"""Link compiled IR into Python closures and run them.

Each IR node becomes one closure taking the local environment (a dict), built once per
game, so hot paths pay no dispatch on node types. Control flow (break, stop, return) uses
small exceptions. Errors in rules at run time carry the origin of the statement.
"""

from __future__ import annotations

import dataclasses
import operator
import weakref
from operator import itemgetter
from typing import TYPE_CHECKING, Callable

from ..compiler import ir
from ..compiler.model import DefinitionSpec, FaceSpec, Symbol
from .memo import ANY, MISS, SKIP, effect_token, field_token
from .state import EventRecord, Side, Unit

if TYPE_CHECKING:
    from .game import Game

Env = dict
XFn = Callable[[Env], object]
SFn = Callable[[Env], None]

MAX_REPEAT = 10_000


class RuleError(Exception):
    """A rule failed at run time (a none where a unit was needed, a bound exceeded…)."""

    def __init__(self, message: str, origin: ir.Origin | None = None, hint: str | None = None):
        super().__init__(message)
        self.origin = origin
        self.hint = hint


#: the unit fields the runtime keeps as attributes
_UNIT_ATTRS = {"id": lambda u: u.id, "type": lambda u: u.definition, "alive": lambda u: u.alive,
               "title": lambda u: u.definition.title}


def _unset(name: str, what: str, definition, declarer: str, origin) -> None:
    raise RuleError(f"{what} has no value for '{name}': pack '{declarer}' adds that field, and "
                    f"'{definition.name}' comes from pack '{definition.pack}', which does not use it", origin,
                    f"make pack '{definition.pack}' 'use {declarer}' and set '{name}', or give the field a default")


class _Break(Exception):
    pass


class _Stop(Exception):
    pass


class _Return(Exception):
    def __init__(self, value):
        self.value = value


class GameOver(Exception):
    pass


#: env[name] for each local name (itemgetters hold no state: shared by every game)
_LOCALS: dict[str, Callable] = {}
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


class Linker:
    def __init__(self, game: "Game"):
        # weak: the game holds the linker, and a game that holds nothing that holds it back is
        # freed as soon as it is dropped (see Game.play), with no work for the cyclic collector
        self._game = weakref.ref(game)
        # what linked code reads directly: none of these holds the game, so no linked closure
        # does either (the game is reached through the weak reference where needed)
        self.rules = game.rules
        self.state = game.state
        self.memo = game.memo
        self._shared, self._shareable = _shared_for(game.rules)
        self.functions: dict[str, tuple[tuple[str, ...], XFn]] = {}

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

    def x_Const(self, node: ir.Const) -> XFn:
        value = node.value
        return lambda env: value

    def x_OptionRef(self, node: ir.OptionRef) -> XFn:
        options = self.game.options
        name = node.name
        return lambda env: options[name]

    def x_Local(self, node: ir.Local) -> XFn:
        # env[name], without a Python frame; one getter per name for all games
        getter = _LOCALS.get(node.name)
        if getter is None:
            getter = _LOCALS[node.name] = itemgetter(node.name)
        return getter

    def x_GameRef(self, node: ir.GameRef) -> XFn:
        game = self._game
        return lambda env: game()

    def x_GetField(self, node: ir.GetField) -> XFn:
        obj = self.x(node.obj)
        name = node.name
        game = self.game
        gref, rules, state = self._game, self.rules, self.state
        origin = node.origin

        def none(what):
            raise RuleError(f"cannot read '{name}' of none (expected {what})", origin)

        def need(value, what):
            if value is None:
                none(what)
            return value

        # the hot reads are written out (one Python frame each, the none test inline)
        if node.owner == "unit":
            if name == "hex":
                def unit_hex(env):
                    u = obj(env)
                    if u is None:
                        none("a unit")
                    return u.hex
                return unit_hex
            if name == "side":
                def unit_side(env):
                    u = obj(env)
                    if u is None:
                        none("a unit")
                    return u.side
                return unit_side
            builtin = _UNIT_ATTRS.get(name)
            if builtin:
                return lambda env: builtin(need(obj(env), "a unit"))
            declarer = self._may_be_unset("unit", name)
            if declarer:
                def checked(env):
                    unit = need(obj(env), "a unit")
                    value = unit.f[name]
                    if value is None:
                        _unset(name, f"unit '{unit.id}'", unit.definition,
                               declarer, origin)
                    return value
                return checked

            def unit_field(env):
                u = obj(env)
                if u is None:
                    none("a unit")
                return u.f[name]
            return unit_field
        if node.owner == "side":
            if name == "name":
                return lambda env: need(obj(env), "a side").name
            if name == "edge":
                return lambda env: need(obj(env), "a side").edge

            def side_field(env):
                s = obj(env)
                if s is None:
                    none("a side")
                return s.f[name]
            return side_field
        if node.owner == "hex":
            board = state.board
            if name == "q":
                return lambda env: need(obj(env), "a hex").q
            if name == "r":
                return lambda env: need(obj(env), "a hex").r
            if name == "label":
                return lambda env: board.label(need(obj(env), "a hex"))
            fields = state.hex_fields

            def hex_field(env):
                h = obj(env)
                if h is None:
                    none("a hex")
                return fields[h][name]
            return hex_field
        if node.owner == "game":
            gfields = state.game
            return lambda env: gfields[name]
        if node.owner == "face":
            return lambda env: getattr(need(obj(env), "a face"), name) if name != "die" else \
                rules.dice[need(obj(env), "a face").die]
        if node.owner == "def":
            if name == "name":
                return lambda env: need(obj(env), "a definition").name
            if name == "title":
                return lambda env: need(obj(env), "a definition").title
            def_values = game._def_values
            unset: dict[str, str | None] = {}  # per kind: the pack that may leave the field unset

            def get_def(env):
                d = obj(env)
                if d is None:
                    none("a definition")
                values = def_values.get(d.name)
                if values is None:
                    values = gref().definition_values(d)
                value = values[name]
                if value is None:
                    kind = d.kind
                    if kind not in unset:
                        unset[kind] = self._may_be_unset(kind, name)
                    if unset[kind]:
                        _unset(name, f"{kind} '{d.name}'", d, unset[kind], origin)
                return value
            return get_def
        if node.owner == "event":
            if name == "replaced":
                return lambda env: need(obj(env), "an event").replaced
            return lambda env: need(obj(env), "an event").args[name]

        def dynamic(env):
            value = need(obj(env), "a value with fields")
            if isinstance(value, (Unit, Side)):
                return value.f[name]
            if isinstance(value, EventRecord):
                return value.args[name]
            raise RuleError(f"cannot read '{name}' of {value!r}", origin)
        return dynamic

    def _may_be_unset(self, kind: str, name: str) -> str | None:
        """The pack that added field ``name`` to ``kind`` if definitions of packs that do not see it
        may leave it unset (none, though its type is not optional), else None."""
        spec = self.rules.kinds[kind].fields.get(name) if kind in self.rules.kinds else None
        if spec is None or spec.default is not None or spec.type.optional or spec.type.name == "list":
            return None
        return spec.pack or None

    def x_TableGet(self, node: ir.TableGet) -> XFn:
        key = self.x(node.key)
        table = self.game.tables[node.table]
        origin = node.origin
        tname = node.table

        def get(env):
            k = key(env)
            if k not in table:
                raise RuleError(f"table '{tname}' has no entry for {k}", origin)
            return table[k]
        return get

    def x_ListIndex(self, node: ir.ListIndex) -> XFn:
        obj, index = self.x(node.obj), self.x(node.index)
        origin = node.origin

        def get(env):
            items, i = obj(env), index(env)
            if not 0 <= i < len(items):
                raise RuleError(f"index {i} is outside a list of {len(items)}", origin)
            return items[i]
        return get

    def x_MakeList(self, node: ir.MakeList) -> XFn:
        items = [self.x(i) for i in node.items]
        return lambda env: [f(env) for f in items]

    def x_FunctionRef(self, node: ir.FunctionRef) -> XFn:
        name = node.name
        return lambda env: name

    def x_CallBuiltin(self, node: ir.CallBuiltin) -> XFn:
        impl = self.game.builtins[node.name]
        args = [self.x(a) for a in node.args]
        origin = node.origin
        name = node.name
        # a built-in that changes the game forgets the memoised results of the functions that
        # read what it changes (memo.py); no Lore runs between the forgetting and the change,
        # so forgetting first is the same as after, and holds when it raises (win ends the game)
        invalidate = self.memo.forgetter(effect_token(name))

        # the arguments are computed before the try: their own failures are not this call's
        if invalidate is None and len(args) == 1:
            a0 = args[0]

            def call1(env):
                v0 = a0(env)
                try:
                    return impl(v0)
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
                    return impl(v0, v1)
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
                return impl(*values)
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
        linked = self.game._functions
        if plan is None:
            def call(env):
                values = [a(env) for a in args]
                params, body = linked.get(name) or gref()._function(name)
                return body(dict(zip(params, values)))
            return call
        table, key_of, storable = plan.table, plan.key, plan.storable

        def memoised(env):
            values = [a(env) for a in args]
            params, body = linked.get(name) or gref()._function(name)
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

    def x_Aggregate(self, node: ir.Aggregate) -> XFn:
        source = self.x(node.source)
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
            return lambda env: sum(_num(v) for v in items(env))
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
            return lambda env: min((_num(v) for v in items(env)), default=0)
        if func == "max":
            return lambda env: max((_num(v) for v in items(env)), default=0)
        return lambda env: list(items(env))

    def x_Unary(self, node: ir.Unary) -> XFn:
        operand = self.x(node.operand)
        if node.op == "not":
            return lambda env: not operand(env)
        return lambda env: -_num(operand(env))

    def x_Binary(self, node: ir.Binary) -> XFn:
        left, right = self.x(node.left), self.x(node.right)
        op = node.op
        origin = node.origin
        # 'True if x else False' is bool(x), without looking up and calling bool
        if op == "and":
            return lambda env: (True if right(env) else False) if left(env) else False
        if op == "or":
            return lambda env: True if left(env) else (True if right(env) else False)
        if op == "==":
            return lambda env: left(env) == right(env)
        if op == "!=":
            return lambda env: left(env) != right(env)
        if op == "in":
            return lambda env: left(env) in right(env)
        if op == "++":
            return lambda env: list(left(env) or []) + list(right(env) or [])

        def number(v):
            """An operand that is not a plain int: none is an error, a face counts its value."""
            if v is None:
                raise RuleError(f"'{op}' got none instead of a number", origin)
            return _num(v)

        # the operands are read in order, the left one checked before the right one is computed
        if op in ("+", "-", "*"):
            if op == "+":
                def add(env):
                    a = left(env)
                    if a.__class__ is not int:
                        a = number(a)
                    b = right(env)
                    if b.__class__ is not int:
                        b = number(b)
                    return a + b
                return add
            if op == "-":
                def sub(env):
                    a = left(env)
                    if a.__class__ is not int:
                        a = number(a)
                    b = right(env)
                    if b.__class__ is not int:
                        b = number(b)
                    return a - b
                return sub

            def mul(env):
                a = left(env)
                if a.__class__ is not int:
                    a = number(a)
                b = right(env)
                if b.__class__ is not int:
                    b = number(b)
                return a * b
            return mul
        if op in ("/", "mod"):
            def divide(env):
                a = left(env)
                if a.__class__ is not int:
                    a = number(a)
                b = right(env)
                if b.__class__ is not int:
                    b = number(b)
                if b == 0:
                    raise RuleError("division by zero", origin)
                return a // b if op == "/" else a % b
            return divide
        compare = {"<": int.__lt__, "<=": int.__le__, ">": int.__gt__, ">=": int.__ge__}[op]
        fast = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}[op]

        def comparison(env):
            a = left(env)
            if a.__class__ is not int:
                a = number(a)
            b = right(env)
            if b.__class__ is not int:
                b = number(b)
            if a.__class__ is int and b.__class__ is int:
                return fast(a, b)
            return compare(a, b)  # what a number of another class gives (int's own comparison)
        return comparison

    def x_Conditional(self, node: ir.Conditional) -> XFn:
        cond, then, other = self.x(node.cond), self.x(node.then), self.x(node.otherwise)
        return lambda env: then(env) if cond(env) else other(env)

    def x_IsA(self, node: ir.IsA) -> XFn:
        obj = self.x(node.obj)
        name = node.name
        definitions = self.game.rules.definitions

        def test(env):
            value = obj(env)
            d = value.definition if isinstance(value, Unit) else value
            if not isinstance(d, DefinitionSpec):
                return False
            if d.name == name:
                return True
            return name in definitions.get(d.name, d).traits  # the final spec (a table may hold the first)
        return test

    def x_HasTag(self, node: ir.HasTag) -> XFn:
        face, tag = self.x(node.face), self.x(node.tag)

        def test(env):
            f, t = face(env), tag(env)
            if not isinstance(f, FaceSpec) or t is None:
                return False
            return (t.name if isinstance(t, Symbol) else str(t)) in f.tags
        return test

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
                    scores.append(_num(prefer(inner)))
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

    def s_Let(self, node: ir.Let) -> SFn:
        value = self.x(node.value)
        name = node.name

        def let(env):
            env[name] = value(env)
        return let

    def s_SetLocal(self, node: ir.SetLocal) -> SFn:
        value = self.x(node.value)
        name = node.name
        if node.op == "=":
            def assign(env):
                env[name] = value(env)
        elif node.op == "+=":
            def assign(env):
                current = env[name]
                env[name] = (list(current) + list(value(env))) if isinstance(current, list) \
                    else current + _num(value(env))
        else:
            def assign(env):
                env[name] = env[name] - _num(value(env))
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
                fields[name] = (list(fields[name]) + list(v)) if isinstance(fields[name], list) \
                    else fields[name] + _num(v)
            else:
                fields[name] = fields[name] - _num(v)
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

        def run(env):
            for item in list(source(env)):
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

        def run(env):
            n = _num(times(env))
            if n > MAX_REPEAT:
                raise RuleError(f"'repeat {n}' exceeds the bound of {MAX_REPEAT}", origin)
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


_UNBOUND = object()


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
        body = gref()._function(name)[1]
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


_NO_VALUES: list = []


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
                        result = result + _num(mapped(env) if mapped is not None else item)  # as sum() adds
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
                        v = _num(mapped(env) if mapped is not None else item)
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


def run_body(body: SFn, env: Env):
    """Run a procedure or trigger body; returns its 'return' value (or None)."""
    try:
        body(env)
    except _Stop:
        return None
    except _Return as r:
        return r.value
    return None


def _num(value) -> int:
    if isinstance(value, FaceSpec):
        return value.value
    if isinstance(value, bool):
        return int(value)
    return value
