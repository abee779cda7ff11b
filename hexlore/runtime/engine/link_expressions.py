"""Link the expressions that compute a value from their operands, the environment and the
game's tables: constants, locals, field and table reads, lists, operators, type and tag tests.

A part of the Linker (interpreter.py). The hot reads (a unit's hex or side, arithmetic and
comparisons on plain ints) are written out as one closure each, with the none test inline:
a helper call per read costs a Python frame on every step of every game.
"""

from __future__ import annotations

import operator
from operator import itemgetter
from typing import Callable

from hexlore.compiler import ir
from hexlore.compiler.model import DefinitionSpec, FaceSpec, Symbol
from hexlore.dsl.limits import MAX_INT
from hexlore.runtime.engine.linked import LinkerPart, RuleError, XFn, as_number, bounded_list, out_of_range
from hexlore.runtime.engine.state import EventRecord, Side, Unit

#: the unit fields the runtime keeps as attributes
_UNIT_ATTRS = {"id": lambda u: u.id, "type": lambda u: u.definition, "alive": lambda u: u.alive,
               "title": lambda u: u.definition.title}

#: env[name] for each local name (itemgetters hold no state: shared by every game)
_LOCALS: dict[str, Callable] = {}


def _unset(name: str, what: str, definition, declarer: str, origin) -> None:
    raise RuleError(f"{what} has no value for '{name}': pack '{declarer}' adds that field, and "
                    f"'{definition.name}' comes from pack '{definition.pack}', which does not use it", origin,
                    f"make pack '{definition.pack}' 'use {declarer}' and set '{name}', or give the field a default")


class ExpressionLinker(LinkerPart):
    """The ``x_`` methods of the value expressions."""

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
            def_values = game.values.def_values
            unset: dict[str, str | None] = {}  # per kind: the pack that may leave the field unset

            def get_def(env):
                d = obj(env)
                if d is None:
                    none("a definition")
                values = def_values.get(d.name)
                if values is None:
                    values = gref().values.definition_values(d)
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

    def x_Unary(self, node: ir.Unary) -> XFn:
        operand = self.x(node.operand)
        if node.op == "not":
            return lambda env: not operand(env)
        return lambda env: -as_number(operand(env))

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
            return lambda env: bounded_list(list(left(env) or []) + list(right(env) or []), origin)

        def number(v):
            """An operand that is not a plain int: none is an error, a face counts its value."""
            if v is None:
                raise RuleError(f"'{op}' got none instead of a number", origin)
            return as_number(v)

        # the operands are read in order, the left one checked before the right one is computed;
        # a result beyond ±MAX_INT is R002 (a number squared in a loop would grow for ever)
        low, high = -MAX_INT, MAX_INT
        if op in ("+", "-", "*"):
            if op == "+":
                def add(env):
                    a = left(env)
                    if a.__class__ is not int:
                        a = number(a)
                    b = right(env)
                    if b.__class__ is not int:
                        b = number(b)
                    r = a + b
                    if low <= r <= high:
                        return r
                    raise out_of_range(r, "+", origin)
                return add
            if op == "-":
                def sub(env):
                    a = left(env)
                    if a.__class__ is not int:
                        a = number(a)
                    b = right(env)
                    if b.__class__ is not int:
                        b = number(b)
                    r = a - b
                    if low <= r <= high:
                        return r
                    raise out_of_range(r, "-", origin)
                return sub

            def mul(env):
                a = left(env)
                if a.__class__ is not int:
                    a = number(a)
                b = right(env)
                if b.__class__ is not int:
                    b = number(b)
                r = a * b
                if low <= r <= high:
                    return r
                raise out_of_range(r, "*", origin)
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
