"""A rule set compiled to Python functions, once per rule set and process.

:func:`compiled` turns the typed IR of a :class:`~hexlore.compiler.model.RuleSet` into one
generated module, built as ``ast`` nodes (never as text), compiled by CPython's compiler and
turned into functions with :class:`types.FunctionType` over a namespace that holds only the
compiler's own names: the helpers of :mod:`.support`, the constants of the rules and the
generated functions. The namespace has no builtins. Every game of the rule set calls the
same functions, passing its :class:`~hexlore.runtime.engine.context.Context`.

Why generated code rather than closures: a closure per IR node pays a Python call per node
and reads locals from a dict; the generated functions read Python locals and run each
expression as bytecode, which is what makes an attack cost about what the same attack
written by hand costs (``benchmarks/bench_attack.py``).
"""

from __future__ import annotations

import ast
import gc
import itertools
import types
import weakref
from typing import Any, Callable
from dataclasses import dataclass, field

from hexlore.compiler import ir
from hexlore.compiler.model import RuleSet
from hexlore.runtime.engine.bounds import MAX_EVENT_DEPTH
from hexlore.runtime.engine.compiled import resumable as resume_gen
from hexlore.runtime.engine.compiled import statements as gen
from hexlore.runtime.engine.compiled.resumable import Suspends
from hexlore.runtime.engine.compiled.locate import LINE_TABLES
from hexlore.runtime.engine.compiled.names import Module, fill_locations
from hexlore.runtime.engine.compiled.support import HELPERS
from hexlore.runtime.engine.memo import MISS, NUMBERS, KeptList, memo_shapes, new_lists, per_rule_set

_serial = itertools.count()


@dataclass
class CompiledRules:
    """The generated functions of one rule set, by what they are for."""

    filename: str
    #: name -> (body, entry, parameter names): the entry is the memoised one where the
    #: function is memoised, else the body itself
    functions: dict[str, tuple] = field(default_factory=dict)
    procedures: dict[str, tuple] = field(default_factory=dict)  # name -> (function, parameter names)
    triggers: dict[str, Callable[..., Any]] = field(default_factory=dict)
    emitters: dict[str, Callable[..., Any]] = field(default_factory=dict)
    blocks: dict[str, Callable[..., Any]] = field(default_factory=dict)
    constants: dict[int, tuple] = field(default_factory=dict)  # id(node) -> (node, function)
    builtin_names: tuple[str, ...] = ()
    forget_tokens: tuple = ()
    memoised: tuple[str, ...] = ()  # the functions with a memo, in the order of Context.plans
    nodes: list = field(default_factory=list)  # line - 1 -> IR node
    #: makes the resumable form on first use (most processes only play: it is a third of the
    #: generated code), then None
    _make_resumable: object = field(default=None, repr=False)
    _resumable: dict = field(default_factory=dict, repr=False)
    _not_resumable: str | None = None

    @property
    def resumable(self) -> dict[tuple[str, str], object]:
        """The resumable form (compiled/resumable.py): ("procedure" | "trigger" | "event" |
        "block", name) -> its frame function, for the callables that can stop at a roll or a
        decision."""
        if self._make_resumable is not None:
            self._make_resumable()
        return self._resumable

    @property
    def not_resumable(self) -> str | None:
        """Why the rules have no resumable form (None: they have one)."""
        if self._make_resumable is not None:
            self._make_resumable()
        return self._not_resumable


class Program:
    """What the generators share while one rule set is compiled: names of the callables to
    come, the built-ins and memo tokens used, and the module being built."""

    max_depth = MAX_EVENT_DEPTH

    def __init__(self, rules: RuleSet):
        self.rules = rules
        self.module = Module()
        m = self.module
        self._functions = {name: m.callable_name("fn_") for name in rules.functions}
        plans = memo_shapes(rules)
        self.memoised = tuple(name for name in rules.functions if plans.get(name) is not None)
        self._shapes = {name: plans[name] for name in self.memoised}
        self.keeps_lists = new_lists(rules)
        self._entries = {name: m.callable_name("mf_") for name in self.memoised}
        self._procedures = {name: m.callable_name("pr_") for name in rules.procedures}
        self._triggers = {t.name: m.callable_name("tr_") for t in rules.triggers}
        self._emitters = {name: m.callable_name("ev_") for name in rules.events}
        self._builtins: dict[str, int] = {}
        self._tokens: dict[object, int] = {}
        self._unset_kinds: dict[str, dict] = {}
        self._blocks: dict[str, str] = {}
        self._constants: dict[int, tuple] = {}
        #: lifted functions made (aggregates, tests, choices…), by IR node and free locals: a
        #: node compiled twice (an aggregate's test, again for undecided faces) is lifted once,
        #: so nested aggregates cost what they hold, not twice per level
        self.lifted: dict[tuple, str] = {}
        self.suspends = Suspends(rules)
        prefixes = {"procedure": "rp_", "trigger": "rt_", "event": "re_", "block": "rb_"}
        suspendable = [("procedure", n) for n in rules.procedures if n in self.suspends.procedures]
        suspendable += [("trigger", t.name) for t in rules.triggers if t.name in self.suspends.triggers]
        suspendable += [("event", e) for e in rules.events if e in self.suspends.events]
        if rules.game is not None:
            suspendable += [("block", b) for b, body in rules.game.blocks.items() if self.suspends.block(body)]
        self._resumable = {key: m.callable_name(prefixes[key[0]]) for key in suspendable}
        self.not_resumable: str | None = None

    # ------------------------------------------------------------ names the generators ask for
    def add(self, tree: ast.FunctionDef) -> None:
        self.module.body.append(tree)

    def function_entry(self, name: str) -> str:
        return self._entries.get(name) or self._functions[name]

    def procedure_name(self, name: str) -> str:
        return self._procedures[name]

    def trigger_name(self, name: str) -> str:
        return self._triggers[name]

    def emitter_name(self, event: str) -> str:
        return self._emitters[event]

    def resumable_name(self, kind: str, name: str) -> str:
        return self._resumable[(kind, name)]

    def builtin_index(self, name: str) -> int:
        return self._builtins.setdefault(name, len(self._builtins))

    def forget_index(self, token) -> int:
        return self._tokens.setdefault(token, len(self._tokens))

    def may_be_unset(self, kind: str, name: str) -> str | None:
        """The pack that added field ``name`` to ``kind`` if definitions of packs that do not see
        it may leave it unset (none, though its type is not optional), else None."""
        spec = self.rules.kinds[kind].fields.get(name) if kind in self.rules.kinds else None
        if spec is None or spec.default is not None or spec.type.optional or spec.type.name == "list":
            return None
        return spec.pack or None

    def unset_kinds(self, name: str) -> dict[str, str]:
        """Kind -> declaring pack, for the kinds whose field ``name`` may be unset."""
        found = self._unset_kinds.get(name)
        if found is None:
            found = self._unset_kinds[name] = {kind: pack for kind in self.rules.kinds
                                               if (pack := self.may_be_unset(kind, name))}
        return found

    # ------------------------------------------------------------ the whole rule set
    def generate(self) -> ast.Module:
        """The module of the whole rule set, as ``ast`` nodes located at their IR nodes."""
        rules = self.rules
        for name, spec in rules.functions.items():
            params = tuple(p.name for p in spec.params)
            self.add(gen.function_def(self, self._functions[name], params, spec.body))
            if name in self._entries:
                self.add(gen.memo_entry(self._entries[name], self._functions[name], self.memoised.index(name),
                                        self._shapes[name], name in self.keeps_lists))
        for name, spec in rules.procedures.items():
            self.add(gen.procedure_def(self, self._procedures[name], tuple(p.name for p in spec.params), spec.body))
        for t in rules.triggers:
            self.add(gen.trigger_def(self, self._triggers[t.name], t))
        for event in rules.events:
            self.add(gen.emitter_def(self, self._emitters[event], event))
        if rules.game is not None:
            for block, body in rules.game.blocks.items():
                self._blocks[block] = self.module.callable_name("bk_")
                self.add(gen.block_def(self, self._blocks[block], body))
        for node in _constant_expressions(rules):
            if id(node) not in self._constants:
                self._constants[id(node)] = (node, self.module.callable_name("cx_"))
                self.add(gen.constant_def(self, self._constants[id(node)][1], node))
        return fill_locations(ast.Module(self.module.body, []))

    def generate_resumable(self) -> ast.Module:
        """The frame machines of the callables that can stop, as a second module (after
        :meth:`generate`: they call its functions; none when ``not_resumable``)."""
        self.module.body = []
        self._generate_resumable()
        return fill_locations(ast.Module(self.module.body, []))

    def _generate_resumable(self) -> None:
        """The frame machines of the callables that can stop (all, or none: one place a frame
        cannot hold, and the rules have no resumable form; exact odds then replay)."""
        rules, machines = self.rules, []
        try:
            for kind, name in self._resumable:
                identifier = self._resumable[(kind, name)]
                if kind == "procedure":
                    spec = rules.procedures[name]
                    machines.append(resume_gen.procedure_machine(
                        self, self.suspends, identifier, tuple(p.name for p in spec.params), spec.body))
                elif kind == "trigger":
                    t = next(t for t in rules.triggers if t.name == name)
                    machines.append(resume_gen.trigger_machine(self, self.suspends, identifier, t))
                elif kind == "event":
                    machines.append(resume_gen.emitter_machine(self, self.suspends, identifier, name))
                else:
                    machines.append(resume_gen.block_machine(self, self.suspends, identifier,
                                                             rules.game.blocks[name]))
        except resume_gen.NotResumable as exc:
            self.not_resumable = str(exc)
            return
        for tree in machines:
            self.add(tree)

    def build(self) -> CompiledRules:
        """Generate, compile, and make the functions (no ``exec``: each function is made from
        its code object over the module's namespace)."""
        rules, out = self.rules, CompiledRules(f"<hexlore rules {next(_serial)}>")
        namespace: dict = {"__builtins__": {}}
        namespace.update(HELPERS)
        namespace.update({"h_miss": MISS, "h_numbers": NUMBERS, "h_kept_list": KeptList, "h_type_error": TypeError,
                          "h_bool": bool, "h_getattr": getattr})
        self._compile_into(self.generate(), out.filename, namespace)
        out.functions = {name: (namespace[self._functions[name]], namespace[self.function_entry(name)],
                                tuple(p.name for p in spec.params)) for name, spec in rules.functions.items()}
        out.procedures = {name: (namespace[self._procedures[name]], tuple(p.name for p in spec.params))
                          for name, spec in rules.procedures.items()}
        out.triggers = {name: namespace[f] for name, f in self._triggers.items()}
        out.emitters = {name: namespace[f] for name, f in self._emitters.items()}
        out.blocks = {name: namespace[f] for name, f in self._blocks.items()}
        out.constants = {key: (node, namespace[f]) for key, (node, f) in self._constants.items()}
        out.builtin_names = tuple(self._builtins)
        out.forget_tokens = tuple(self._tokens)
        out.memoised = self.memoised
        out.nodes = self.module.nodes
        self.module.body = []  # the syntax trees are not needed any more

        def make_resumable() -> None:
            out._make_resumable = None
            collecting = gc.isenabled()
            gc.disable()
            try:
                filename = out.filename[:-1] + ", resumable>"
                builtins, tokens = len(self._builtins), len(self._tokens)
                self._compile_into(self.generate_resumable(), filename, namespace)
                # the direct module called every built-in and forgot every token these use
                assert (len(self._builtins), len(self._tokens)) == (builtins, tokens)
                LINE_TABLES[filename] = out
                out._not_resumable = self.not_resumable
                if self.not_resumable is None:
                    out._resumable = {key: namespace[f] for key, f in self._resumable.items()}
            finally:
                if collecting:
                    gc.enable()
        out._make_resumable = make_resumable
        LINE_TABLES[out.filename] = out
        return out

    def _compile_into(self, tree: ast.Module, filename: str, namespace: dict) -> None:
        """Compile ``tree`` and make its functions in ``namespace`` (with the constants so far)."""
        code = compile(tree, filename, "exec")
        namespace.update(self.module.constant_names())
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                namespace[const.co_name] = types.FunctionType(const, namespace, const.co_name)


def generate_module(rules: RuleSet) -> ast.Module:
    """The generated code of ``rules``, direct and resumable, as one module (for tests and for
    reading what the compiler makes)."""
    program = Program(rules)
    direct = program.generate().body
    return ast.Module(direct + program.generate_resumable().body, [])


def _constant_expressions(rules: RuleSet) -> list[ir.X]:
    """The expressions a game evaluates once, when it is set up: tables, option and field
    defaults, definitions' values, game settings, procedures' default arguments."""
    found: list[ir.X] = []
    for table in rules.tables.values():
        found += [x for _, x in table.entries]
    found += [o.default for o in rules.options.values()]
    for kind in rules.kinds.values():
        found += [f.default for f in kind.fields.values() if f.default is not None]
    for d in rules.definitions.values():
        found += [x for _, x in d.values]
    if rules.game is not None:
        found += list(rules.game.settings.values())
    for specs in (rules.procedures, rules.functions, rules.events):
        for spec in specs.values():
            found += [p.default for p in spec.params if p.default is not None]
    return [x for x in found if isinstance(x, ir.X) and x.__class__ is not ir.Const]


_COMPILED: dict[int, tuple[weakref.ref, CompiledRules]] = {}


def compiled(rules: RuleSet) -> CompiledRules:
    """The compiled form of ``rules``, made on first use and kept while the rules live."""
    return per_rule_set(_COMPILED, rules, _build)


def _build(rules: RuleSet) -> CompiledRules:
    # tens of thousands of syntax nodes are made and dropped, none in a cycle: the cyclic
    # collector would walk every live object several times over for nothing (a third of the time)
    collecting = gc.isenabled()
    gc.disable()
    try:
        return Program(rules).build()
    finally:
        if collecting:
            gc.enable()

