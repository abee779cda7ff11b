"""The generated code of a rule set made into Python functions, once per rule set.

The compiler's backend (:mod:`hexlore.compiler.backend.program`) turns a rule set into code
objects that name the runtime's helpers (``h_…``) without importing them: the compiler never
imports the runtime. Here they are bound: each function is made from its code object with
:class:`types.FunctionType` over a namespace holding only the helpers of :mod:`.support` and
of the memo, the constants of the rules and the generated functions (no builtins, no
``exec``). The result is kept on the rule set (:meth:`RuleSet.derived`), shared by every game
of it, each call passing the game's :class:`~hexlore.runtime.engine.context.Context`.
"""

from __future__ import annotations

import types
from dataclasses import dataclass, field
from typing import Any, Callable

from hexlore.compiler.backend.program import GeneratedCode, generated
from hexlore.compiler.model import RuleSet
from hexlore.runtime.engine.compiled.locate import LINE_TABLES
from hexlore.runtime.engine.compiled.support import HELPERS
from hexlore.runtime.engine.core.memo import MISS, NUMBERS, KeptList

#: every name the generated code may read besides its own functions and constants
RUNTIME_NAMES: dict[str, object] = {
    **HELPERS, "h_miss": MISS, "h_numbers": NUMBERS, "h_kept_list": KeptList, "h_type_error": TypeError,
    "h_bool": bool, "h_getattr": getattr}


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
    _code: GeneratedCode | None = field(default=None, repr=False)
    _namespace: dict = field(default_factory=dict, repr=False)
    _resumable: dict | None = field(default=None, repr=False)
    _not_resumable: str | None = None

    @property
    def resumable(self) -> dict[tuple[str, str], object]:
        """The resumable form (compiler/backend/resumable.py): ("procedure" | "trigger" |
        "event" | "block", name) -> its frame function, for the callables that can stop at a
        roll or a decision; made on first use."""
        if self._resumable is None:
            self._bind_resumable()
        assert self._resumable is not None
        return self._resumable

    @property
    def not_resumable(self) -> str | None:
        """Why the rules have no resumable form (None: they have one)."""
        if self._resumable is None:
            self._bind_resumable()
        return self._not_resumable

    def _bind_resumable(self) -> None:
        assert self._code is not None
        made = self._code.resumable()
        _bind(made.code, made.constants, self._namespace)
        LINE_TABLES[made.filename] = self
        self._not_resumable = made.not_resumable
        self._resumable = {key: self._namespace[f] for key, f in made.names.items()}


def _bind(code: types.CodeType, constants: dict[str, object], namespace: dict) -> None:
    """Make the functions ``code`` defines in ``namespace`` (with the constants so far)."""
    namespace.update(constants)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            namespace[const.co_name] = types.FunctionType(const, namespace, const.co_name)


def compiled(rules: RuleSet) -> CompiledRules:
    """The compiled form of ``rules``, made on first use and kept on the rule set."""
    return rules.derived("runtime functions", _make)


def _make(rules: RuleSet) -> CompiledRules:
    code = generated(rules)
    namespace: dict = {"__builtins__": {}}
    namespace.update(RUNTIME_NAMES)
    _bind(code.code, code.constants, namespace)
    out = CompiledRules(
        code.filename,
        functions={name: (namespace[body], namespace[entry], params)
                   for name, (body, entry, params) in code.functions.items()},
        procedures={name: (namespace[f], params) for name, (f, params) in code.procedures.items()},
        triggers={name: namespace[f] for name, f in code.triggers.items()},
        emitters={name: namespace[f] for name, f in code.emitters.items()},
        blocks={name: namespace[f] for name, f in code.blocks.items()},
        constants={key: (node, namespace[f]) for key, (node, f) in code.constant_expressions.items()},
        builtin_names=code.builtin_names, forget_tokens=code.forget_tokens, memoised=code.memoised,
        nodes=code.nodes, _code=code, _namespace=namespace)
    LINE_TABLES[out.filename] = out
    return out

