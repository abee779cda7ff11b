"""A rule set compiled to Python code objects, once per rule set and process.

:func:`generated` turns the typed IR of a finished :class:`~hexlore.compiler.model.RuleSet`
into one generated module, built as ``ast`` nodes (never as text) and compiled by CPython's
compiler: a :class:`GeneratedCode` of code objects and the names they need. It makes no
function and runs nothing: the runtime (:mod:`hexlore.runtime.engine.compiled.program`) binds
the code objects over a namespace that holds only the compiler's own names: its helpers
(``h_…``, by name only here), the constants of the rules (``k…``) and the generated functions.
The namespace has no builtins. Every game of the rule set calls the same functions, passing its
run-time context as ``R``.

Why generated code rather than closures: a closure per IR node pays a Python call per node
and reads locals from a dict; the generated functions read Python locals and run each
expression as bytecode, which is what makes an attack cost about what the same attack
written by hand costs (``benchmarks/bench_attack.py``).

Why here, in the compiler, and not in the runtime: generating code is a stage of the compiler
(a backend, after ``compile_packs``), read from the IR alone; the runtime only needs what it
made. The result is cached on the rule set (:meth:`RuleSet.derived`) and made on first use,
so compiling or checking rules generates nothing.
"""

from __future__ import annotations

import ast
import gc
import itertools
import types
from dataclasses import dataclass, field
from typing import Callable, TypeVar

from hexlore.compiler import ir
from hexlore.compiler.backend import resumable as resume_gen
from hexlore.compiler.backend import statements as gen
from hexlore.compiler.backend.names import Module, fill_locations
from hexlore.compiler.backend.resumable import Suspends
from hexlore.compiler.memo_plan import memo_plan
from hexlore.compiler.model import RuleSet
from hexlore.dsl.limits import MAX_EVENT_DEPTH

_serial = itertools.count()


class Program:
    """What the generators share while one rule set is compiled: names of the callables to
    come, the built-ins and memo tokens used, and the module being built."""

    max_depth = MAX_EVENT_DEPTH

    def __init__(self, rules: RuleSet):
        self.rules = rules
        self.module = Module()
        m = self.module
        self._functions = {name: m.callable_name("fn_") for name in rules.functions}
        analysed = memo_plan(rules)
        plans = analysed.plans
        self.memoised = tuple(name for name in rules.functions if plans.get(name) is not None)
        self._shapes: dict[str, tuple] = {name: shape for name in self.memoised if (shape := plans[name]) is not None}
        self.keeps_lists = analysed.new_lists
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
        for name, procedure in rules.procedures.items():
            self.add(gen.procedure_def(self, self._procedures[name], tuple(p.name for p in procedure.params),
                                       procedure.body))
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
                    assert rules.game is not None  # blocks are resumable only in a game
                    machines.append(resume_gen.block_machine(self, self.suspends, identifier,
                                                             rules.game.blocks[name]))
        except resume_gen.NotResumable as exc:
            self.not_resumable = str(exc)
            return
        for tree in machines:
            self.add(tree)

    def build(self) -> GeneratedCode:
        """Generate and compile the direct module; the resumable one waits for its first use
        (:meth:`GeneratedCode.resumable`)."""
        rules = self.rules
        filename = f"<hexlore rules {next(_serial)}>"
        code = compile(self.generate(), filename, "exec")
        out = GeneratedCode(
            filename=filename, code=code, constants=self.module.constant_names(),
            functions={name: (self._functions[name], self.function_entry(name), tuple(p.name for p in spec.params))
                       for name, spec in rules.functions.items()},
            procedures={name: (self._procedures[name], tuple(p.name for p in spec.params))
                        for name, spec in rules.procedures.items()},
            triggers=dict(self._triggers), emitters=dict(self._emitters), blocks=dict(self._blocks),
            constant_expressions=dict(self._constants), builtin_names=tuple(self._builtins),
            forget_tokens=tuple(self._tokens), memoised=self.memoised, nodes=self.module.nodes)
        self.module.body = []  # the syntax trees are not needed any more
        out._make_resumable = self._resumable_code
        return out

    def _resumable_code(self, filename: str) -> ResumableCode:
        builtins, tokens = len(self._builtins), len(self._tokens)
        code = compile(self.generate_resumable(), filename, "exec")
        # the direct module called every built-in and forgot every token these use
        assert (len(self._builtins), len(self._tokens)) == (builtins, tokens)
        names = dict(self._resumable) if self.not_resumable is None else {}
        return ResumableCode(filename, code, self.module.constant_names(), names, self.not_resumable)


@dataclass
class ResumableCode:
    """The frame machines of the callables that can stop (:mod:`.resumable`), compiled."""

    filename: str
    code: types.CodeType
    #: every constant name (``k…``) of the rule set's generated code so far -> its value
    constants: dict[str, object]
    #: ("procedure" | "trigger" | "event" | "block", name) -> the identifier of its frame
    #: function; empty when the rules have no resumable form
    names: dict[tuple[str, str], str]
    #: why the rules have no resumable form (None: they have one)
    not_resumable: str | None


@dataclass
class GeneratedCode:
    """The generated code of one rule set: code objects, and by what identifier each callable
    of the rules is reached. Identifiers starting ``h_`` are the runtime's helpers, which it
    binds (see :func:`free_names`); ``k…`` are :attr:`constants`; the rest are functions the
    code objects define."""

    filename: str
    code: types.CodeType
    constants: dict[str, object]
    #: name -> (body, entry, parameter names): the entry is the memoised one where the
    #: function is memoised, else the body itself
    functions: dict[str, tuple[str, str, tuple[str, ...]]]
    procedures: dict[str, tuple[str, tuple[str, ...]]]  # name -> (identifier, parameter names)
    triggers: dict[str, str]
    emitters: dict[str, str]
    blocks: dict[str, str]
    constant_expressions: dict[int, tuple[ir.X, str]]  # id(node) -> (node, identifier)
    builtin_names: tuple[str, ...]  # R.builtins[i] is built-in builtin_names[i]
    forget_tokens: tuple[object, ...]  # R.forget[i] forgets what forget_tokens[i] names
    memoised: tuple[str, ...]  # the functions with a memo, in the order of R.plans
    nodes: list[object]  # line - 1 -> the IR node generated there (both modules)
    _make_resumable: Callable[[str], ResumableCode] | None = field(default=None, repr=False)
    _resumable: ResumableCode | None = field(default=None, repr=False)

    def resumable(self) -> ResumableCode:
        """The resumable form, generated on first use (most processes only play: it is a
        third of the generated code)."""
        if self._resumable is None:
            assert self._make_resumable is not None
            make, self._make_resumable = self._make_resumable, None
            self._resumable = _without_collector(lambda: make(self.filename[:-1] + ", resumable>"))
        return self._resumable


def free_names(code: types.CodeType) -> set[str]:
    """The names ``code`` and the functions it defines read (globals and attributes alike: a
    test checks that every helper, ``h_…``, among them is one the runtime binds)."""
    found: set[str] = set()
    todo = [code]
    while todo:
        c = todo.pop()
        found.update(c.co_names)
        todo.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    return found


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


T = TypeVar("T")


def _without_collector(make: Callable[[], T]) -> T:
    """``make()`` with the cyclic collector off: tens of thousands of syntax nodes are made and
    dropped, none in a cycle, and the collector would walk every live object several times over
    for nothing (a third of the time)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        return make()
    finally:
        if collecting:
            gc.enable()


def generated(rules: RuleSet) -> GeneratedCode:
    """The generated code of ``rules``: made on first use (never by compiling or checking the
    rules) and kept on the rule set."""
    return rules.derived("generated code", lambda r: _without_collector(Program(r).build))
