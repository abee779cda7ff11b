"""Type-check Lore expressions and statements and lower them to IR.

Name resolution happens here: a name is a local variable or parameter, ``game``, or a name
some pack declares — an option, an enum value or tag, a definition, a die or a function —
looked up from the pack being lowered (:mod:`.resolve`: visibility, qualified names,
aliases, ambiguity). Anything else is reported with a did-you-mean. The IR holds each
thing's key in the rule set.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from ..dsl import ast
from ..diagnostics import codes, Diagnostic, Span, did_you_mean, error
from . import ir
from . import calls
from .builtins import AGGREGATES, BUILTINS, PURE, builtin_enum_of, enum_type, enum_value
from .builtins import ENUMS as BUILTIN_ENUMS
from .model import RuleSet
from .names import BUILTIN_KINDS, SUPER
from .trigger_super import KeptTrigger, super_call, super_statements
from .resolve import (ANY_SORT, CALLABLE, EVENTS, TABLES, TRAITS_AND_DEFINITIONS, TYPES, VALUES,
                      Found, Resolver, Sorts, leading_qualified, sorts)
from .types import (ANY, BOOL, DIE, FN, GAME, HEX, INT, NONE, SIDE, TEXT, Type,
                    compatible, is_numeric, list_of)


#: words from other languages for "the thing this rule is about"; Lore names subjects explicitly
SELF_WORDS = ("self", "this", "it", "me")

#: fields every instance of a built-in kind has, whatever the packs declare
BUILTIN_FIELDS: dict[str, dict[str, Type]] = {
    "unit": {"id": TEXT, "type": Type("unit_type"), "side": SIDE, "hex": HEX.maybe(),
             "alive": BOOL, "title": TEXT},
    "side": {"name": TEXT, "edge": TEXT},
    "hex": {"q": INT, "r": INT, "label": TEXT, "terrain": Type("terrain")},
    "game": {"round": INT, "turn": INT, "active": SIDE.maybe()},
    "face": {"name": TEXT, "value": INT, "die": DIE},
}
DEFINITION_FIELDS = {"name": TEXT, "title": TEXT}
MUTABLE_OWNERS = {"unit", "side", "hex", "game"}


@dataclass
class Scope:
    names: dict[str, Type] = field(default_factory=dict)
    parent: "Scope | None" = None

    def lookup(self, name: str) -> Type | None:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
        return None

    def all_names(self) -> set[str]:
        out: set[str] = set()
        scope: Scope | None = self
        while scope is not None:
            out |= set(scope.names)
            scope = scope.parent
        return out

    def child(self) -> "Scope":
        return Scope({}, self)


@dataclass
class Context:
    """Where lowering happens: which file and pack, and what is allowed there."""

    file: str
    pack: str
    pure: bool = False  # functions, guards, default values
    what: str = "procedure"
    returns: Type | None = None
    in_loop: int = 0
    #: the event a trigger listens to (its arguments are the trigger's subjects); None elsewhere
    event: str | None = None
    trigger: str | None = None
    emits: set[str] = field(default_factory=set)
    calls: set[str] = field(default_factory=set)
    #: in an override that calls super(…): the name the replaced declaration is kept under
    replaces: str | None = None


class Lowerer:
    def __init__(self, rules: RuleSet, resolver: Resolver, skipped: set[str] | frozenset[str] = frozenset()):
        self.rules = rules
        self.resolver = resolver
        #: plain names written qualified (bl.hit): the unused-declaration check counts them
        self.written_qualified: set[str] = set()
        # names in text dropped after a syntax error, or fields of a 'fields' block whose kind is
        # unknown: never reported as undefined or unknown, the first error is the real problem
        self.skipped: set[str] = set(skipped)
        self.diagnostics: list[Diagnostic] = []
        self._field_types: dict[str, tuple[object, int, dict[str, Type]]] = {}  # see field_types
        #: replaced triggers an override's super() runs, by their key (see trigger_super.py)
        self.kept_triggers: dict[str, KeptTrigger] = {}

    # ------------------------------------------------------------ helpers
    def err(self, ctx: Context, code: str, message: str, span: Span, hint: str | None = None) -> None:
        self.diagnostics.append(error(code, message, ctx.file, span, hint))

    def origin(self, ctx: Context, node: ast.Node) -> ir.Origin:
        return ir.Origin(ctx.file, node.span)

    def lookup(self, ctx: Context, written: str, span: Span, accept: Sorts, missing: bool = True) -> str | None:
        """The key of what ``written`` names from ctx's pack; "" when it names nothing for a
        reason already reported (C009, C020); None when no pack declares it (the caller
        reports C003, saying what it expected). ``missing``: a name no loaded pack declares is
        an error here, so the packs not loaded are searched for the hint (C009)."""
        found = self.resolver.find(ctx.pack, written, accept)
        if found.entry is not None:
            if "." in written:
                self.written_qualified.add(found.entry.name)
            return found.entry.key
        problem = self.resolver.problem(found, written, ctx.file, span,
                                        search=missing and written not in self.skipped)
        if problem is None:
            return None
        self.diagnostics.append(problem)
        return ""

    def callee(self, ctx: Context, written: str, span: Span) -> str | None:
        """The key of the function or procedure a call names; "" when that was reported;
        None for a built-in or a name nobody declares."""
        found = self.resolver.find(ctx.pack, written, CALLABLE)
        if found.entry is not None:
            if "." in written:
                self.written_qualified.add(found.entry.name)
            return found.entry.key
        if written in BUILTINS:
            return None
        problem = self.resolver.problem(found, written, ctx.file, span, search=False)
        if problem is None:
            return None
        self.diagnostics.append(problem)
        return ""

    def unqualified(self, ctx: Context, scope: Scope, node: ast.Expr) -> ast.Expr:
        """``node`` with a leading qualified name made one :class:`ast.Name` (see
        :func:`.resolve.leading_qualified`); a local name is never a qualifier."""
        return leading_qualified(self.resolver, ctx.pack, lambda name: scope.lookup(name) is not None, node)

    def resolve_type(self, ctx: Context, ref: ast.TypeRef) -> Type:
        if ref.name == "list":
            item = self.resolve_type(ctx, ref.item) if ref.item else ANY
            t = list_of(item)
        elif ref.name in ("int", "bool", "text", "hex", "side", "unit", "face", "die", "tag", "fn", "any"):
            t = Type(ref.name)
        elif ref.name in BUILTIN_KINDS or ref.name == "unit_type":
            t = Type(ref.name)
        elif ref.name in BUILTIN_ENUMS and self.lookup(ctx, ref.name, ref.span, TYPES, missing=False) is None:
            t = enum_type(ref.name)  # a pack's own enum of that name comes first
        elif (key := self.lookup(ctx, ref.name, ref.span, TYPES)) is not None:
            t = ANY if not key else Type("enum:" + key) if key in self.rules.enums else Type(key)
        elif ref.name in self.skipped:
            t = ANY  # its declaration was lost to a syntax error
        else:
            candidates = ["int", "bool", "text", "hex", "side", "unit", "face", "die", "tag", "list"]
            candidates += list(self.rules.enums) + list(self.rules.kinds) + list(BUILTIN_ENUMS)
            guess = did_you_mean(ref.name, candidates)
            self.err(ctx, codes.UNDEFINED_NAME, f"unknown type '{ref.name}'", ref.span,
                     f"did you mean '{guess}'?" if guess else "types are int, bool, text, hex, side, "
                     "unit, face, die, an enum, a kind, or 'list of T'")
            t = ANY
        return t.maybe() if ref.optional else t

    def expect(self, ctx: Context, expected: Type, actual: Type, span: Span, what: str) -> None:
        if not compatible(expected, actual):
            self.err(ctx, codes.TYPE_MISMATCH, f"{what} should be {_show(expected)}, not {_show(actual)}", span,
                     type_hint(expected, actual))

    # ------------------------------------------------------------ expressions
    def expr(self, ctx: Context, scope: Scope, node: ast.Expr) -> tuple[ir.X, Type]:
        method: Callable[[Context, Scope, ast.Expr], tuple[ir.X, Type]] = getattr(self, "x_" + type(node).__name__)
        return method(ctx, scope, node)

    def x_Literal(self, ctx: Context, scope: Scope, node: ast.Literal) -> tuple[ir.X, Type]:
        v = node.value
        t = NONE if v is None else BOOL if isinstance(v, bool) else INT if isinstance(v, int) else TEXT
        return ir.Const(v, origin=self.origin(ctx, node)), t

    def x_ListExpr(self, ctx: Context, scope: Scope, node: ast.ListExpr) -> tuple[ir.X, Type]:
        if node.item_type is not None:  # [] of T
            return ir.MakeList((), origin=self.origin(ctx, node)), list_of(self.resolve_type(ctx, node.item_type))
        items, types = [], []
        for item in node.items:
            x, t = self.expr(ctx, scope, item)
            items.append(x)
            types.append(t)
        item_type = types[0] if types and all(t == types[0] for t in types) else ANY
        return ir.MakeList(tuple(items), origin=self.origin(ctx, node)), list_of(item_type)

    def x_Name(self, ctx: Context, scope: Scope, node: ast.Name) -> tuple[ir.X, Type]:
        name = node.name
        o = self.origin(ctx, node)
        local = scope.lookup(name)
        if local is not None:
            return ir.Local(name, origin=o), local
        if name == "game":
            return ir.GameRef(origin=o), GAME
        rules = self.rules
        key = self.lookup(ctx, name, node.span, VALUES, missing=False)
        if key in rules.options:
            return ir.OptionRef(key, origin=o), rules.options[key].type
        if key in rules.symbols:
            sym = rules.symbols[key]
            return ir.Const(sym, origin=o), (Type("enum:" + sym.group) if sym.group != "tag" else Type("tag"))
        if key in rules.definitions:
            d = rules.definitions[key]
            return ir.Const(d, origin=o), (Type("unit_type") if d.kind == "unit" else Type(d.kind))
        if key in rules.dice:
            return ir.Const(rules.dice[key], origin=o), DIE
        if key in rules.functions:
            return ir.FunctionRef(key, origin=o), FN
        if key is None:
            self.undefined(ctx, scope, name, node.span)
        return ir.Const(None, origin=o), ANY

    def undefined(self, ctx: Context, scope: Scope, name: str, span: Span, kind: str = "name") -> None:
        if name in self.skipped:
            return  # dropped by syntax-error recovery: the syntax error is the real problem
        if kind == "name" and ctx.event == "":
            return  # in a trigger on an unknown event (already reported) any name may be an argument
        if kind == "name" and self.no_subject(ctx, scope, name, span):
            return
        if name not in self.resolver.table.by_name:  # (a loaded name here is misused, not missing)
            accept = {"call": CALLABLE, "event": EVENTS}.get(kind, VALUES)
            elsewhere = self.resolver.problem(Found(problem="undefined", accept=accept), name, ctx.file, span)
            if elsewhere is not None:  # a pack this pack does not use declares it (C009)
                self.diagnostics.append(elsewhere)
                return
        pool = scope.all_names() | set(self.rules.options) | set(self.rules.symbols) | \
            set(self.rules.definitions) | set(self.rules.dice) | {"game"}
        if kind == "call":
            pool = set(self.rules.functions) | set(self.rules.procedures) | set(BUILTINS)
        elif kind == "event":
            pool = set(self.rules.events)
        guess = did_you_mean(name, pool)
        what = {"call": "function or procedure", "event": "event"}.get(kind, "name")
        fallback = {"call": f"declare it with 'function {name}(…) -> TYPE = …' or 'procedure {name}(…) {{ … }}'",
                    "event": f"declare it with 'event {name}(…)'"}.get(
            kind, "no variable, parameter, option, symbol, definition or die has this name here")
        self.err(ctx, codes.UNDEFINED_NAME, f"undefined {what} '{name}'", span,
                 f"did you mean '{guess}'?" if guess else fallback)

    def no_subject(self, ctx: Context, scope: Scope, name: str, span: Span) -> bool:
        """C017: a rule names a subject that nothing binds here (an event argument, or 'self').

        A trigger sees the arguments of its own event only; procedures, functions and game
        blocks see their parameters. A name that is an argument of *another* event, or a word
        like ``self``, is almost always a rule written for the wrong place.
        """
        carriers = sorted(e.name for e in self.rules.events.values() if any(p.name == name for p in e.params))
        if not carriers and name not in SELF_WORDS:
            return False
        shown = ", ".join(carriers[:4]) + (", …" if len(carriers) > 4 else "")
        if ctx.event is not None:
            event = self.rules.events.get(ctx.event)
            gives = ", ".join(p.name for p in event.params) if event else ""
            gives = f"'{ctx.event}' gives: {gives}" if gives else f"'{ctx.event}' has no arguments"
            if name in SELF_WORDS:
                self.err(ctx, codes.NO_SUBJECT, f"Lore has no '{name}': trigger '{ctx.trigger}' names its subjects "
                         f"by the arguments of event '{ctx.event}'", span, gives)
            else:
                self.err(ctx, codes.NO_SUBJECT, f"trigger '{ctx.trigger}' listens to '{ctx.event}', which has no "
                         f"argument '{name}'", span, f"{gives}; '{name}' is an argument of {shown}: "
                         f"listen to that event, or add '{name}' to '{ctx.event}'")
            return True
        if name in SELF_WORDS:
            self.err(ctx, codes.NO_SUBJECT, f"Lore has no '{name}': nothing is bound to it in {ctx.what}", span,
                     "pass the unit (or side, hex) as a parameter, e.g. 'procedure rest(u: unit)'")
        else:
            self.err(ctx, codes.NO_SUBJECT, f"'{name}' is not bound in {ctx.what}: it is an argument of event "
                     f"{shown}, and event arguments exist only in triggers", span,
                     f"add a parameter '{name}' to {ctx.what}, or move this rule into a trigger on "
                     f"{carriers[0]}")
        return True

    def x_Field(self, ctx: Context, scope: Scope, node: ast.Field) -> tuple[ir.X, Type]:
        qualified = self.unqualified(ctx, scope, node)
        if qualified is not node:
            return self.expr(ctx, scope, qualified)
        o = self.origin(ctx, node)
        enum = node.obj.name if isinstance(node.obj, ast.Name) else None
        if enum in BUILTIN_ENUMS and scope.lookup(enum) is None \
                and self.lookup(ctx, enum, node.obj.span, VALUES, missing=False) is None:
            values = BUILTIN_ENUMS[enum]
            if node.name not in values:
                self.err(ctx, codes.UNDEFINED_NAME, f"the built-in enum '{enum}' has no value '{node.name}'", node.span,
                         _suggest(node.name, values) or f"its values are {', '.join(values)}")
            return ir.Const(enum_value(enum, node.name), origin=o), enum_type(enum)
        obj, t = self.expr(ctx, scope, node.obj)
        owner, ftype = self.field_type(ctx, t, node.name, node.span)
        return ir.GetField(obj, node.name, owner, origin=o), ftype

    def field_type(self, ctx: Context, t: Type, name: str, span: Span) -> tuple[str, Type]:
        base = t.name
        if base == "any" or name in self.skipped:  # a field lost to a syntax error is not 'unknown'
            return "any", ANY
        if base.startswith("event:"):
            event = self.rules.events.get(base[6:])
            for p in event.params if event else ():
                if p.name == name:
                    return "event", p.type
            if name == "replaced":
                return "event", BOOL
            self.err(ctx, codes.UNKNOWN_FIELD, f"event '{base[6:]}' has no parameter '{name}'", span,
                     _suggest(name, [p.name for p in event.params] if event else []))
            return "event", ANY
        if base in ("unit", "side", "hex", "game", "face"):
            fields = self.field_types(base, base, BUILTIN_FIELDS[base])
            if name in fields:
                return base, fields[name]
            self.err(ctx, codes.UNKNOWN_FIELD, f"{base} has no field '{name}'", span,
                     _suggest(name, fields) or f"declare it with 'fields {base} {{ {name}: int }}'")
            return base, ANY
        kind = "unit" if base == "unit_type" else base
        if kind in self.rules.kinds:
            fields = self.field_types(base, kind, DEFINITION_FIELDS)
            if name in fields:
                return "def", fields[name]
            self.err(ctx, codes.UNKNOWN_FIELD, f"{kind} has no field '{name}'", span, _suggest(name, fields))
            return "def", ANY
        self.err(ctx, codes.TYPE_MISMATCH, f"a value of type {_show(t)} has no fields", span,
                 "fields belong to units, sides, hexes, the game, faces, definitions and event records")
        return "any", ANY

    def field_types(self, base: str, kind: str, fixed: dict[str, Type]) -> dict[str, Type]:
        """Field name -> type for values of type ``base``: the ``fixed`` fields, then those the
        packs declare for ``kind``. Read only; kept until ``kind`` gains a field.

        Field declarations only ever add names (a second declaration of a name is an error and
        skipped; filling in a default keeps the type), so the kind and its number of fields
        tell whether a kept table is current. Building the table at every field access was a
        tenth of the lowering.
        """
        spec = self.rules.kinds.get(kind)
        size = len(spec.fields) if spec is not None else -1
        kept = self._field_types.get(base)
        if kept is not None and kept[0] is spec and kept[1] == size:
            return kept[2]
        fields = dict(fixed)
        if spec is not None:
            fields.update({k: f.type for k, f in spec.fields.items()})
        self._field_types[base] = (spec, size, fields)
        return fields

    def x_Index(self, ctx: Context, scope: Scope, node: ast.Index) -> tuple[ir.X, Type]:
        o = self.origin(ctx, node)
        head = self.unqualified(ctx, scope, node.obj)
        found = (self.lookup(ctx, head.name, head.span, TABLES, missing=False)
                 if isinstance(head, ast.Name) and scope.lookup(head.name) is None else None)
        if found == "":
            self.expr(ctx, scope, node.key)
            return ir.Const(None, origin=o), ANY
        if found:
            table = self.rules.tables[found]
            key, kt = self.expr(ctx, scope, node.key)
            self.expect(ctx, table.key_type, kt, node.key.span, f"the key of table '{table.name}'")
            return ir.TableGet(table.name, key, origin=o), table.value_type
        obj, t = self.expr(ctx, scope, node.obj)
        index, it = self.expr(ctx, scope, node.key)
        self.expect(ctx, INT, it, node.key.span, "a list index")
        if t.name not in ("list", "any"):
            self.err(ctx, codes.TYPE_MISMATCH, f"only lists and tables can be indexed, not {_show(t)}", node.span,
                     "read a field with '.' instead, e.g. u.side")
        return ir.ListIndex(obj, index, origin=o), (t.item or ANY) if t.name == "list" else ANY

    def args_for(self, ctx: Context, scope: Scope, params: Sequence[tuple[str, Type, ir.X | None]],
                 args: tuple[ast.Arg, ...], span: Span, what: str, variadic: bool = False,
                 lower_arg: Callable[[str, Type, ast.Arg], tuple[ir.X, Type]] | None = None) -> list[ir.X] | None:
        """Match positional and named arguments to ``params`` (name, type, default IR or None
        when required) with :func:`.calls.match`, lower each, fill defaults. ``lower_arg(name,
        type, arg)`` lowers an argument by the parameter it fills (built-ins); by default its
        expression is lowered as it is."""
        names = [p[0] for p in params]
        types = {p[0]: p[1] for p in params}
        matched = calls.match(names, args, what, variadic)
        values: dict[str, tuple[ir.X, Type, Span]] = {}
        extra: list[tuple[ir.X, Type, Span]] = []
        for a, target, problem in zip(args, matched.targets, matched.problems):
            if problem is not None:
                self.err(ctx, codes.BAD_CALL, problem.message, problem.span, problem.hint)
            if target and lower_arg is not None:
                x, t = lower_arg(target, types[target], a)
            else:
                x, t = self.expr(ctx, scope, a.value)
            if target == calls.EXTRA:
                extra.append((x, t, a.span))
            elif target is not None:
                values[target] = (x, t, a.span)
        out: list[ir.X] = []
        missing: list[tuple[str, Type]] = []
        for pname, ptype, pdefault in params:
            if pname in values:
                x, t, aspan = values[pname]
                self.expect(ctx, ptype, t, aspan, f"argument '{pname}' of {what}")
                out.append(x)
            elif pdefault is not None:
                out.append(pdefault)
            else:
                missing.append((pname, ptype))
        if missing and matched.ok:  # a misplaced or misnamed argument is the mistake to report
            listed = _and_list([f"'{n}'" for n, _ in missing])
            self.err(ctx, codes.BAD_CALL, f"{what} needs argument{'s' if len(missing) > 1 else ''} {listed}", span,
                     "give " + ", ".join(f"{n}: {_show(t)}" for n, t in missing))
        for x, t, aspan in extra:
            self.expect(ctx, params[-1][1], t, aspan, f"argument of {what}")
            out.append(x)
        return out if matched.ok and not missing else None

    def builtin_arg(self, ctx: Context, scope: Scope, builtin: str, pname: str, ptype: Type, a: ast.Arg) -> tuple[ir.X, Type]:
        """An argument of a built-in, lowered by its parameter: a function-valued parameter
        takes the name of a function (not a call), an enum parameter the enum's values."""
        if ptype == FN:
            ref = self.unqualified(ctx, scope, a.value)
            fn_key = (self.lookup(ctx, ref.name, ref.span, sorts("function"), missing=False)
                      if isinstance(ref, ast.Name) and scope.lookup(ref.name) is None else None)
            if fn_key in self.rules.functions:
                return ir.FunctionRef(fn_key, origin=self.origin(ctx, a)), FN
            if fn_key != "":
                self.err(ctx, codes.TYPE_MISMATCH, f"argument '{pname}' of '{builtin}' must name a function",
                         a.span, "declare one with 'function NAME(...) -> bool = ...'")
            return ir.Const(None), FN
        enum = builtin_enum_of(ptype)
        if enum is not None and isinstance(a.value, ast.Name) and scope.lookup(a.value.name) is None \
                and a.value.name in BUILTIN_ENUMS[enum]:
            return ir.Const(enum_value(enum, a.value.name), origin=self.origin(ctx, a)), ptype
        return self.expr(ctx, scope, a.value)

    def x_Call(self, ctx: Context, scope: Scope, node: ast.Call) -> tuple[ir.X, Type]:
        o = self.origin(ctx, node)
        name = node.func
        rules = self.rules
        if name == SUPER and ctx.replaces in self.kept_triggers:
            kept = self.trigger_super(ctx, scope, node, statement=False)
            if kept is None:
                return ir.Const(None, origin=o), ANY  # ANY: reported already
            return super_call(kept, o), NONE
        if name == SUPER:
            if ctx.replaces is None:
                self.err(ctx, codes.BAD_CALL, f"'{SUPER}(…)' calls the declaration an override replaces, and "
                         f"{ctx.what} replaces none", node.span,
                         "call the function or procedure you mean by its name, or declare this one with "
                         "'override' to extend a declaration of a used pack")
                for a in node.args:
                    self.expr(ctx, scope, a.value)
                return ir.Const(None, origin=o), ANY
            name = ctx.replaces
        elif (key := self.callee(ctx, name, node.span)) is not None:
            if not key:
                for a in node.args:
                    self.expr(ctx, scope, a.value)
                return ir.Const(None, origin=o), ANY
            name = key
        if name in rules.functions:
            fn = rules.functions[name]
            params = [(p.name, p.type, p.default) for p in fn.params]
            args = self.args_for(ctx, scope, params, node.args, node.span, f"function '{name}'")
            return ir.CallFunction(name, tuple(args or ()), origin=o), fn.returns
        if name in rules.procedures:
            proc = rules.procedures[name]
            if ctx.pure:
                self.err(ctx, codes.IMPURE, f"procedure '{name}' cannot be called in {ctx.what}", node.span,
                         "functions and guards only compute values; call procedures from "
                         "procedures and triggers")
            ctx.calls.add(name)
            params = [(p.name, p.type, p.default) for p in proc.params]
            args = self.args_for(ctx, scope, params, node.args, node.span, f"procedure '{name}'")
            return ir.CallProcedure(name, tuple(args or ()), origin=o), proc.returns or NONE
        if name in BUILTINS:
            b = BUILTINS[name]
            if ctx.pure and b.effect != PURE:
                doing = "rolls dice" if b.effect == "random" else "changes the game"
                self.err(ctx, codes.IMPURE, f"'{name}' {doing} and cannot be used in {ctx.what}", node.span,
                         "functions, guards and defaults only compute values: do this in a procedure or "
                         "trigger and pass the result in")
            params = []
            for pname, ptype in b.params:
                has, value = b.default(pname)
                params.append((pname, ptype, ir.Const(value) if has else None))
            lowered = self.args_for(ctx, scope, params, node.args, node.span, f"'{name}'", variadic=b.variadic,
                                    lower_arg=lambda pname, ptype, a: self.builtin_arg(ctx, scope, name, pname,
                                                                                       ptype, a)) or []
            returns = b.returns or NONE
            if (b.returns_item_of_first or b.returns_first) and node.args:
                _, first_type = self.expr_type_only(ctx, scope, node.args[0].value)
                if first_type.name == "list":
                    returns = first_type if b.returns_first else (first_type.item or ANY).maybe()
            return ir.CallBuiltin(name, tuple(lowered), origin=o), returns
        self.undefined(ctx, scope, name, node.span, "call")
        for a in node.args:
            self.expr(ctx, scope, a.value)
        return ir.Const(None, origin=o), ANY

    def expr_type_only(self, ctx: Context, scope: Scope, node: ast.Expr) -> tuple[ir.X, Type]:
        saved = len(self.diagnostics)
        result = self.expr(ctx, scope, node)
        del self.diagnostics[saved:]
        return result

    def x_Aggregate(self, ctx: Context, scope: Scope, node: ast.Aggregate) -> tuple[ir.X, Type]:
        o = self.origin(ctx, node)
        if node.func not in AGGREGATES:
            self.err(ctx, codes.UNDEFINED_NAME, f"'{node.func}(each …)' is not an aggregate", node.span,
                     f"aggregates are {', '.join(sorted(AGGREGATES))}")
        source, st = self.expr(ctx, scope, node.source)
        if st.name not in ("list", "any"):
            self.err(ctx, codes.TYPE_MISMATCH, f"'each {node.var} in …' needs a list, not {_show(st)}", node.source.span,
                     type_hint(list_of(ANY), st))
        item = (st.item or ANY) if st.name == "list" else ANY
        inner = scope.child()
        inner.names[node.var] = item
        where = mapped = None
        if node.where is not None:
            where, wt = self.expr(ctx, inner, node.where)
            self.expect(ctx, BOOL, wt, node.where.span, "a 'where' condition")
        mt = item
        if node.mapped is not None:
            mapped, mt = self.expr(ctx, inner, node.mapped)
        result = AGGREGATES.get(node.func, ANY)
        if node.func in ("sum", "min", "max") and not is_numeric(mt):
            self.err(ctx, codes.TYPE_MISMATCH, f"'{node.func}' needs numbers, not {_show(mt)}", node.span,
                     f"give a number after ':', e.g. {node.func}(each x in list: x.value)")
        if node.func in ("any", "all") and node.mapped is not None:
            self.expect(ctx, BOOL, mt, node.mapped.span, f"the value of '{node.func}'")
        if node.func == "list":
            result = list_of(mt)
        return ir.Aggregate(node.func, node.var, source, where, mapped, origin=o), result

    def x_Unary(self, ctx: Context, scope: Scope, node: ast.Unary) -> tuple[ir.X, Type]:
        x, t = self.expr(ctx, scope, node.operand)
        if node.op == "not":
            self.expect(ctx, BOOL, t, node.operand.span, "the operand of 'not'")
            return ir.Unary("not", x, origin=self.origin(ctx, node)), BOOL
        self.expect(ctx, INT, t, node.operand.span, "the operand of '-'")
        return ir.Unary("-", x, origin=self.origin(ctx, node)), INT

    def x_Binary(self, ctx: Context, scope: Scope, node: ast.Binary) -> tuple[ir.X, Type]:
        o = self.origin(ctx, node)
        op = node.op
        if op == "is":
            return self.lower_is(ctx, scope, node)
        left, lt = self.expr(ctx, scope, node.left)
        right, rt = self.expr(ctx, scope, node.right)
        if op in ("and", "or"):
            self.expect(ctx, BOOL, lt, node.left.span, f"the left side of '{op}'")
            self.expect(ctx, BOOL, rt, node.right.span, f"the right side of '{op}'")
            return ir.Binary(op, left, right, origin=o), BOOL
        if op in ("==", "!="):
            return ir.Binary(op, left, right, origin=o), BOOL
        if op == "in":
            if rt.name not in ("list", "any"):
                self.err(ctx, codes.TYPE_MISMATCH, f"'in' needs a list on its right, not {_show(rt)}", node.right.span,
                         "to compare two values use '=='")
            return ir.Binary(op, left, right, origin=o), BOOL
        if op == "+" and (lt.name == "list" or rt.name == "list"):
            for t, span in ((lt, node.left.span), (rt, node.right.span)):
                if t.name not in ("list", "any"):
                    self.err(ctx, codes.TYPE_MISMATCH, f"'+' joins two lists; this side is {_show(t)}", span,
                             "wrap a single item in brackets: [item]")
            return ir.Binary("++", left, right, origin=o), lt if lt.name == "list" else rt
        for side, t, span in (("left", lt, node.left.span), ("right", rt, node.right.span)):
            if not is_numeric(t):
                self.err(ctx, codes.TYPE_MISMATCH, f"the {side} side of '{op}' should be int, not {_show(t)}", span,
                         type_hint(INT, t))
        if op in ("<", "<=", ">", ">="):
            return ir.Binary(op, left, right, origin=o), BOOL
        return ir.Binary(op, left, right, origin=o), INT

    def lower_is(self, ctx: Context, scope: Scope, node: ast.Binary) -> tuple[ir.X, Type]:
        o = self.origin(ctx, node)
        left, lt = self.expr(ctx, scope, node.left)
        if lt.name in ("face", "list") or lt.name.startswith("enum:") or lt.name == "tag":
            right, rt = self.expr(ctx, scope, node.right)
            if lt.name == "face":
                if not (rt.name == "tag" or rt.name.startswith("enum:") or rt.name == "any"):
                    self.err(ctx, codes.TYPE_MISMATCH, f"'is' on a face needs a tag or enum value, not {_show(rt)}",
                             node.right.span, "test a tag or enum value the face carries, e.g. d is hit")
                return ir.HasTag(left, right, origin=o), BOOL
            return ir.Binary("==", left, right, origin=o), BOOL
        if lt.name not in ("unit", "unit_type", "any") and \
                (lt.name not in self.rules.kinds or lt.name in ("side", "hex", "game")):
            self.err(ctx, codes.TYPE_MISMATCH, f"'is' needs a unit, a definition, a face or a symbol on its left, "
                     f"not {_show(lt)}", node.left.span, "compare values with '=='")
            return ir.Const(False, origin=o), BOOL
        tested = self.unqualified(ctx, scope, node.right)
        if not isinstance(tested, ast.Name):
            self.err(ctx, codes.TYPE_MISMATCH, "'is' on a unit or definition needs a trait or definition name",
                     node.right.span, "write 'x is TRAIT' or 'x is DEFINITION'")
            return ir.Const(False, origin=o), BOOL
        written = tested.name
        name = self.lookup(ctx, written, tested.span, TRAITS_AND_DEFINITIONS)
        if name == "":
            return ir.Const(False, origin=o), BOOL
        if name is None:
            name = written
            other = self.sort_of(ctx, name)
            if other:
                self.err(ctx, codes.TYPE_MISMATCH, f"'{name}' is {other}, not a trait or definition", node.right.span,
                         "'is' on a unit or definition tests its traits and type; compare a field with '==' "
                         "(e.g. u.mood == calm)")
            elif name not in self.skipped:
                guess = did_you_mean(name, list(self.rules.traits) + list(self.rules.definitions))
                self.err(ctx, codes.UNDEFINED_NAME, f"undefined trait or definition '{name}'", node.right.span,
                         f"did you mean '{guess}'?" if guess else f"declare it with 'trait {name} {{ … }}'")
        return ir.IsA(left, name, origin=o), BOOL

    def sort_of(self, ctx: Context, written: str) -> str | None:
        """'a die', 'an option', … for a declared name that is not a trait or definition."""
        rules = self.rules
        name = self.resolver.find(ctx.pack, written, ANY_SORT).key or written
        for table, what in ((rules.dice, "a die"), (rules.options, "an option"), (rules.functions, "a function"),
                            (rules.procedures, "a procedure"), (rules.tables, "a table"),
                            (rules.events, "an event")):
            if name in table:
                return what
        if name in rules.symbols:
            sym = rules.symbols[name]
            return "a tag" if sym.group == "tag" else f"a value of enum '{sym.group}'"
        return None

    def x_Conditional(self, ctx: Context, scope: Scope, node: ast.Conditional) -> tuple[ir.X, Type]:
        cond, ct = self.expr(ctx, scope, node.cond)
        self.expect(ctx, BOOL, ct, node.cond.span, "the condition")
        then, tt = self.expr(ctx, scope, node.then)
        other, ot = self.expr(ctx, scope, node.otherwise)
        result = tt if tt == ot or ot == NONE else (ot if tt == NONE else ANY)
        if tt == NONE or ot == NONE:
            result = result.maybe()
        return ir.Conditional(cond, then, other, origin=self.origin(ctx, node)), result

    def x_Emit(self, ctx: Context, scope: Scope, node: ast.Emit) -> tuple[ir.X, Type]:
        o = self.origin(ctx, node)
        if ctx.pure:
            self.err(ctx, codes.IMPURE, f"events cannot be emitted in {ctx.what}", node.span,
                     "emit events from procedures and triggers")
        key = self.lookup(ctx, node.event, node.span, EVENTS, missing=False)
        event = self.rules.events.get(key) if key else None
        if event is None or not key:  # an event is found by its key: no key, no event
            if key is None:
                self.undefined(ctx, scope, node.event, node.span, "event")
            for a in node.args:
                self.expr(ctx, scope, a.value)
            return ir.Const(None, origin=o), ANY
        ctx.emits.add(key)
        params = [(p.name, p.type, p.default) for p in event.params]
        args = self.args_for(ctx, scope, params, node.args, node.span, f"event '{key}'") or []
        pairs = tuple(zip([p.name for p in event.params], args))
        return ir.Emit(key, pairs, origin=o), Type("event:" + key)

    def x_Choose(self, ctx: Context, scope: Scope, node: ast.Choose) -> tuple[ir.X, Type]:
        o = self.origin(ctx, node)
        if ctx.pure:
            self.err(ctx, codes.IMPURE, f"decisions cannot be made in {ctx.what}", node.span,
                     "make decisions in procedures and triggers")
        source, st = self.expr(ctx, scope, node.source)
        if st.name not in ("list", "any"):
            self.err(ctx, codes.TYPE_MISMATCH, f"'choose' needs a list of options, not {_show(st)}", node.source.span,
                     type_hint(list_of(ANY), st))
        item = (st.item or ANY) if st.name == "list" else ANY
        by, bt = self.expr(ctx, scope, node.by)
        self.expect(ctx, SIDE, bt, node.by.span, "the chooser ('by')")
        inner = scope.child()
        inner.names[node.var] = item
        prefer = default = None
        if node.prefer is not None:
            prefer, pt = self.expr(ctx, inner, node.prefer)
            self.expect(ctx, INT, pt, node.prefer.span, "a 'prefer' score")
        if node.default is not None:
            default, dt = self.expr(ctx, scope, node.default)
        return ir.Choose(node.decision, node.var, source, by, prefer, default, origin=o), item.maybe()

    def x_Ask(self, ctx: Context, scope: Scope, node: ast.Ask) -> tuple[ir.X, Type]:
        o = self.origin(ctx, node)
        if ctx.pure:
            self.err(ctx, codes.IMPURE, f"decisions cannot be made in {ctx.what}", node.span,
                     "make decisions in procedures and triggers")
        by, bt = self.expr(ctx, scope, node.by)
        self.expect(ctx, SIDE, bt, node.by.span, "the chooser ('by')")
        prefer = default = None
        if node.prefer is not None:
            prefer, pt = self.expr(ctx, scope, node.prefer)
            self.expect(ctx, BOOL, pt, node.prefer.span, "the preferred answer")
        if node.default is not None:
            default, dt = self.expr(ctx, scope, node.default)
            self.expect(ctx, BOOL, dt, node.default.span, "the default answer")
        return ir.Ask(node.decision, by, prefer, default, origin=o), BOOL

    # ------------------------------------------------------------ statements
    def loop_body(self, ctx: Context, scope: Scope, body: ast.Block) -> tuple[ir.S, ...]:
        """A loop's body, where 'break' is allowed."""
        ctx.in_loop += 1
        try:
            return self.block(ctx, scope, body)
        finally:
            ctx.in_loop -= 1

    def block(self, ctx: Context, scope: Scope, block: ast.Block) -> tuple[ir.S, ...]:
        inner = scope.child()
        out: list[ir.S] = []
        for st in block.body:
            s = self.stmt(ctx, inner, st)
            if isinstance(s, tuple):  # one statement of Lore, several of the IR (a trigger's super())
                out.extend(s)
            elif s is not None:
                out.append(s)
        return tuple(out)

    def trigger_super(self, ctx: Context, scope: Scope, node: ast.Call, statement: bool) -> KeptTrigger | None:
        """``super()`` in an overriding trigger (see :mod:`.trigger_super`), as a statement or
        an expression: the replaced trigger it runs with this trigger's event, or None after
        reporting why it cannot."""
        assert ctx.replaces is not None  # callers ask only where ctx.replaces is a kept trigger
        kept = self.kept_triggers[ctx.replaces]
        for a in node.args:
            self.expr(ctx, scope, a.value)
        if node.args:
            self.err(ctx, codes.BAD_CALL, f"'{SUPER}()' in a trigger takes no arguments", node.span,
                     "write 'super()': it runs the replaced trigger with the event this one handles")
        elif ctx.pure:
            self.err(ctx, codes.IMPURE, f"'{SUPER}()' runs the replaced trigger and cannot be called in {ctx.what}",
                     node.span, "call it in the trigger's body")
        elif ctx.event != kept.event:
            self.err(ctx, codes.BAD_CALL, f"'{SUPER}()' runs the replaced trigger with this trigger's event, but it "
                     f"listens to '{kept.event}' and {ctx.what} to '{ctx.event}'", node.span,
                     f"listen to '{kept.event}' too, or call a procedure instead of '{SUPER}()'")
        elif kept.hands_back and not statement:
            self.err(ctx, codes.BAD_CALL, f"'{SUPER}()' of a 'before' trigger gives no value: the changes it makes to "
                     "the event's arguments are this trigger's", node.span, "call it alone, as a statement")
        else:
            ctx.calls.add(kept.key)
            return kept
        return None

    def stmt(self, ctx: Context, scope: Scope, node: ast.Stmt) -> ir.S | tuple[ir.S, ...] | None:
        o = self.origin(ctx, node)
        if isinstance(node, ast.Let):
            value, t = self.expr(ctx, scope, node.value)
            scope.names[node.name] = t
            return ir.Let(node.name, value, origin=o)
        if isinstance(node, ast.Assign):
            return self.assign(ctx, scope, node)
        if isinstance(node, ast.If):
            branches = []
            for test, body in node.branches:
                c, ct = self.expr(ctx, scope, test)
                self.expect(ctx, BOOL, ct, test.span, "an 'if' condition")
                branches.append((c, self.block(ctx, scope, body)))
            otherwise = self.block(ctx, scope, node.otherwise) if node.otherwise else ()
            return ir.If(tuple(branches), otherwise, origin=o)
        if isinstance(node, ast.ForEach):
            source, st = self.expr(ctx, scope, node.source)
            if st.name not in ("list", "any"):
                self.err(ctx, codes.TYPE_MISMATCH, f"'for each' needs a list, not {_show(st)}", node.source.span,
                         type_hint(list_of(ANY), st))
            inner = scope.child()
            inner.names[node.var] = (st.item or ANY) if st.name == "list" else ANY
            return ir.ForEach(node.var, source, self.loop_body(ctx, inner, node.body), origin=o)
        if isinstance(node, ast.Repeat):
            times, tt = self.expr(ctx, scope, node.times)
            self.expect(ctx, INT, tt, node.times.span, "a 'repeat' count")
            return ir.Repeat(times, self.loop_body(ctx, scope, node.body), origin=o)
        if isinstance(node, ast.While):
            cond, ct = self.expr(ctx, scope, node.cond)
            self.expect(ctx, BOOL, ct, node.cond.span, "a 'while' condition")
            return ir.While(cond, self.loop_body(ctx, scope, node.body), origin=o)
        if isinstance(node, ast.Require):
            cond, ct = self.expr(ctx, scope, node.cond)
            self.expect(ctx, BOOL, ct, node.cond.span, "a 'require' condition")
            return ir.Require(cond, node.message, origin=o)
        if isinstance(node, ast.Break):
            if not ctx.in_loop:
                self.err(ctx, codes.BAD_ASSIGN, "'break' outside a loop", node.span,
                         "use 'stop' to leave a procedure or trigger")
            return ir.Break(origin=o)
        if isinstance(node, ast.Stop):
            return ir.Stop(origin=o)
        if isinstance(node, ast.Return):
            value, t = self.expr(ctx, scope, node.value)
            if ctx.returns is None:
                self.err(ctx, codes.TYPE_MISMATCH, f"this {ctx.what} returns no value", node.span,
                         "declare the result type with '-> TYPE' after the parameters, or use 'stop'")
            else:
                self.expect(ctx, ctx.returns, t, node.value.span, "the returned value")
            return ir.Return(value, origin=o)
        if isinstance(node, ast.ExprStmt):
            if isinstance(node.expr, ast.Call) and node.expr.func == SUPER and ctx.replaces in self.kept_triggers:
                kept = self.trigger_super(ctx, scope, node.expr, statement=True)
                at = self.origin(ctx, node.expr)
                if kept is None:
                    return ir.Do(ir.Const(None, origin=at), origin=at)
                return super_statements(kept, at)
            value, _ = self.expr(ctx, scope, node.expr)
            return ir.Do(value, origin=o)
        raise AssertionError(f"unknown statement {node!r}")

    def assign(self, ctx: Context, scope: Scope, node: ast.Assign) -> ir.S | None:
        o = self.origin(ctx, node)
        value, vt = self.expr(ctx, scope, node.value)
        head, *rest = node.target
        if not rest:
            t = scope.lookup(head)
            if t is None:
                if head not in self.skipped and ctx.event != "" and not self.no_subject(ctx, scope, head, node.span):
                    self.err(ctx, codes.BAD_ASSIGN, f"'{head}' is not a variable here", node.span,
                             f"introduce it first with 'let {head} = …'")
                scope.names[head] = vt  # as if introduced here, so its later uses are not errors too
                return None
            self.check_op(ctx, node, t, vt)
            return ir.SetLocal(head, node.op, value, origin=o)
        obj: ir.X
        if (local := scope.lookup(head)) is not None:
            obj, t = ir.Local(head, origin=o), local
        elif head == "game":
            obj, t = ir.GameRef(origin=o), GAME
        else:
            self.undefined(ctx, scope, head, node.span)
            return None
        for name in rest[:-1]:
            owner, ft = self.field_type(ctx, t, name, node.span)
            obj, t = ir.GetField(obj, name, owner, origin=o), ft
        owner, ft = self.field_type(ctx, t, rest[-1], node.span)
        if owner not in MUTABLE_OWNERS and owner != "any":
            self.err(ctx, codes.BAD_ASSIGN, f"'{'.'.join(node.target)}' cannot be changed: "
                     f"{'definitions are constants' if owner == 'def' else 'it is read-only'}", node.span)
            return None
        if owner in BUILTIN_FIELDS and rest[-1] in BUILTIN_FIELDS[owner] and owner != "game":
            self.err(ctx, codes.BAD_ASSIGN, f"'{rest[-1]}' of a {owner} is managed by the runtime", node.span,
                     "use move(…), remove_unit(…), set_terrain(…) or begin_turn(…)")
            return None
        self.check_op(ctx, node, ft, vt)
        return ir.SetField(obj, rest[-1], owner, node.op, value, origin=o)

    def check_op(self, ctx: Context, node: ast.Assign, target: Type, value: Type) -> None:
        if node.op in ("+=", "-="):
            if target.name == "list" and node.op == "+=":
                return
            self.expect(ctx, INT, target, node.span, f"the target of '{node.op}'")
            self.expect(ctx, INT, value, node.value.span, f"the value of '{node.op}'")
        else:
            self.expect(ctx, target, value, node.value.span, f"the value assigned to '{'.'.join(node.target)}'")


def _show(t: Type) -> str:
    text = str(t)
    return text.replace("enum:", "").replace("event:", "event ")


def _and_list(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def type_hint(expected: Type, actual: Type) -> str:
    """How to turn a value of ``actual`` into what is ``expected`` — the fix, in Lore."""
    e, a = expected.name, actual.name
    if a == "die" and e == "int":
        return "a die is not a number: roll it with roll(N, die) and count or sum the faces"
    if e == "list" and expected.item is not None and compatible(expected.item, actual):
        return "wrap the single value in brackets to make a one-item list: [value]"
    if a == "list" and actual.item is not None and compatible(expected, actual.item):
        return "pick one item, e.g. first(list), or go through them with 'for each'"
    if a == "list" and e == "int":
        return "count the items with count(list)"
    if a == "unit" and e in ("hex", "side"):
        return f"use the unit's {e}: u.{e}"
    if a == "unit_type" and e == "unit":
        return "this is a unit type (a definition); units come from the scenario: units(), units_of(side)"
    if e == "int" and a == "bool":
        return "a condition is not a number: use (1 if CONDITION else 0)"
    if e == "bool" and a in ("int", "face"):
        return "compare it to get a condition, e.g. value > 0"
    if e == "bool" and a not in ("any",):
        return "compare it to get a condition, e.g. value != none"
    if e == "text":
        return "convert it with text(value)"
    enum = builtin_enum_of(expected)
    if enum is not None:
        values = BUILTIN_ENUMS[enum]
        return (f"write one of the values of the built-in enum '{enum}' ({', '.join(values)}), "
                f"e.g. {enum}: {values[1]} or {enum}.{values[1]}")
    return f"give a value of type {_show(expected)} here"


def _suggest(name: str, candidates: Iterable[str]) -> str | None:
    guess = did_you_mean(name, list(candidates))
    return f"did you mean '{guess}'?" if guess else None
