"""The names and constants of a generated module, all made by the compiler.

Generated code never spells a name or a value that came from a pack or a scenario: Lore
locals become ``v0, v1…``, temporaries ``t0…``, callables ``fn_3``, ``pr_7``…, and every
value that is not a plain int, text, truth value or none (a face, a definition, an origin)
is a module global ``k0, k1…`` bound to the object itself. Plain values enter as
``ast.Constant`` nodes. So no text of a rule file can reach a position where Python reads
code (tests/test_compiled_code.py checks every identifier of the generated module).

Every generated node carries, as its line number, the index of the IR node it comes from
plus one (:meth:`Module.line`): a failure in compiled code is located back to its rule by
reading the line of the innermost generated frame (:mod:`hexlore.runtime.engine.compiled.locate`).
"""

from __future__ import annotations

import ast
from typing import Any, Iterable, Protocol, TypeVar

from hexlore.compiler import ir
from hexlore.compiler.model import RuleSet

#: a node that has a location: an expression or a statement
Located = TypeVar("Located", ast.expr, ast.stmt)
Tree = TypeVar("Tree", bound=ast.AST)

#: the parameter through which generated code reaches the game (its Context)
CONTEXT = "R"


class Scope:
    """The Python locals of one generated function: Lore names to ``v<n>``, and temporaries."""

    def __init__(self, params: Iterable[str] = ()) -> None:
        self.names: dict[str, str] = {}
        self._count = 0
        self.params = [self.local(p) for p in params]  # their Python names (direct functions)

    def local(self, lore_name: str) -> str:
        """The Python name of a Lore local (made on first use)."""
        name = self.names.get(lore_name)
        if name is None:
            name = self.names[lore_name] = f"v{self._count}"
            self._count += 1
        return name

    def fresh(self, lore_name: str) -> str:
        """A new Python name for a Lore name bound anew (an aggregate's or a choice's variable)."""
        name = self.names[lore_name] = f"v{self._count}"
        self._count += 1
        return name

    def temp(self) -> str:
        name = f"t{self._count}"
        self._count += 1
        return name

    def knows(self, lore_name: str) -> bool:
        return lore_name in self.names

    def load(self, lore_name: str) -> ast.expr:
        """Reading Lore local ``lore_name``."""
        return ast.Name(self.local(lore_name), ast.Load())

    def target(self, lore_name: str) -> ast.Name | ast.Subscript:
        """Assigning Lore local ``lore_name``."""
        return ast.Name(self.local(lore_name), ast.Store())


#: the parameter holding a resumable function's frame
FRAME = "F"
#: a frame's first two slots: its function and where it resumes
FRAME_HEAD = 2


class FrameScope(Scope):
    """The locals of a resumable function: Lore locals live in the frame (``F[i]``), so that
    a function suspended at a roll or a decision can be resumed, and copied to fork; the
    temporaries of one expression stay Python locals (no expression spans a suspension)."""

    def __init__(self, params: Iterable[str] = ()) -> None:
        self.slots: dict[str, int] = {}
        super().__init__(params)

    def local(self, lore_name: str) -> str:
        if lore_name not in self.slots:
            self.slots[lore_name] = FRAME_HEAD + len(self.slots)
        self.names[lore_name] = lore_name
        return lore_name

    def slot(self, lore_name: str) -> int:
        self.local(lore_name)
        return self.slots[lore_name]

    def load(self, lore_name: str) -> ast.expr:
        return ast.Subscript(ast.Name(FRAME, ast.Load()), ast.Constant(self.slot(lore_name)), ast.Load())

    def target(self, lore_name: str) -> ast.Name | ast.Subscript:
        return ast.Subscript(ast.Name(FRAME, ast.Load()), ast.Constant(self.slot(lore_name)), ast.Store())

    @property
    def size(self) -> int:
        """How many slots a frame of this function has."""
        return FRAME_HEAD + len(self.slots)


class Module:
    """The module being generated: its functions, its constant pool and its line table."""

    def __init__(self) -> None:
        self.body: list[ast.stmt] = []
        self.constants: list[object] = []
        self._constant_names: dict[tuple, str] = {}
        #: line number - 1 -> the IR node generated there
        self.nodes: list[object] = []
        self._lines: dict[int, int] = {}
        self._count = 0

    # ------------------------------------------------------------ names
    def callable_name(self, prefix: str) -> str:
        name = f"{prefix}{self._count}"
        self._count += 1
        return name

    def constant(self, value) -> ast.expr:
        """``value`` as generated code reads it: a literal for plain values, else a global."""
        if value is None or value.__class__ in (bool, int, str):
            return ast.Constant(value)
        key: tuple = (id(value), type(value))
        try:  # equal hashable values share one name (origins, faces)
            key = (hash(value), type(value), value)
        except TypeError:
            pass
        name = self._constant_names.get(key)
        if name is None:
            name = self._constant_names[key] = f"k{len(self.constants)}"
            self.constants.append(value)
        return ast.Name(name, ast.Load())

    def constant_names(self) -> dict[str, object]:
        return {f"k{i}": value for i, value in enumerate(self.constants)}

    # ------------------------------------------------------------ lines
    def line(self, node) -> int:
        """The line number of IR node ``node`` in the generated module."""
        key = id(node)
        line = self._lines.get(key)
        if line is None:
            self.nodes.append(node)
            line = self._lines[key] = len(self.nodes)
        return line

    def at(self, tree: Located, node: object) -> Located:
        """``tree`` located at IR node ``node`` (its own node only: children keep theirs)."""
        line = self.line(node)
        tree.lineno = tree.end_lineno = line
        tree.col_offset, tree.end_col_offset = 0, 1
        return tree

    def origin(self, node: ir.X | ir.S) -> ast.expr:
        return self.constant(node.origin)


class Generating(Protocol):
    """What the generators (expressions, statements, resumable) ask of the program being
    generated (:class:`~hexlore.compiler.backend.program.Program`): a protocol, so that they
    need not import the module that drives them, not even for their annotations."""

    rules: RuleSet
    module: Module
    #: lifted functions made, by IR node and free locals (see Program)
    lifted: dict[tuple, str]
    max_depth: int

    def add(self, tree: ast.FunctionDef) -> None: ...
    def function_entry(self, name: str) -> str: ...
    def procedure_name(self, name: str) -> str: ...
    def trigger_name(self, name: str) -> str: ...
    def emitter_name(self, event: str) -> str: ...
    def resumable_name(self, kind: str, name: str) -> str: ...
    def builtin_index(self, name: str) -> int: ...
    def forget_index(self, token: object) -> int: ...
    def may_be_unset(self, kind: str, name: str) -> str | None: ...
    def unset_kinds(self, name: str) -> dict[str, str]: ...


def name(identifier: str) -> ast.Name:
    return ast.Name(identifier, ast.Load())


def store(identifier: str) -> ast.Name:
    return ast.Name(identifier, ast.Store())


def call(function: ast.expr | str, *args: ast.expr) -> ast.Call:
    return ast.Call(name(function) if isinstance(function, str) else function, list(args), [])


def attr(value: ast.expr | str, attribute: str) -> ast.Attribute:
    return ast.Attribute(name(value) if isinstance(value, str) else value, attribute, ast.Load())


def function(identifier: str, params: list[str], body: list[ast.stmt]) -> ast.FunctionDef:
    arguments = ast.arguments(posonlyargs=[], args=[ast.arg(p) for p in params], vararg=None, kwonlyargs=[],
                              kw_defaults=[], kwarg=None, defaults=[])
    return ast.FunctionDef(identifier, arguments, body or [ast.Pass()], [], None, type_comment=None)


def assign(target: str, value: ast.expr) -> ast.Assign:
    return ast.Assign([store(target)], value)


def budget() -> ast.Attribute:
    """``R.budget``: the budget of the game running (the generated code is shared by every
    game of a rule set; each game's context holds its own budget)."""
    return attr(CONTEXT, "budget")


def spending(count: ast.expr, origin: ast.expr) -> list[ast.stmt]:
    """``R.budget.spend(count, origin)`` written out: the steps taken from the game's budget,
    the located R001 raised (by the budget itself) only when it runs out."""
    left = ast.Attribute(budget(), "left", ast.Store())
    return [ast.AugAssign(left, ast.Sub(), count),
            ast.If(ast.Compare(attr(budget(), "left"), [ast.Lt()], [ast.Constant(0)]),
                   [ast.Expr(call(attr(budget(), "spend"), ast.Constant(0), origin))], [])]


def counting_event(origin: ast.expr) -> list[ast.stmt]:
    """``R.budget.event(origin)`` written out (see :func:`spending`)."""
    events = ast.Attribute(budget(), "events", ast.Store())
    return [ast.AugAssign(events, ast.Sub(), ast.Constant(1)),
            ast.If(ast.Compare(attr(budget(), "events"), [ast.Lt()], [ast.Constant(0)]),
                   [ast.Expr(call(attr(budget(), "event"), origin))], [])]


def fill_locations(tree: Tree) -> Tree:
    """Give every node without a location its parent's (what ``ast.fix_missing_locations``
    does, without a Python frame per node: it was half the time of generating a rule set)."""
    stack: list[tuple[Any, int]] = [(tree, 1)]  # Any: every node with "lineno" in _attributes
    while stack:
        node, line = stack.pop()
        if "lineno" in node._attributes:
            own = getattr(node, "lineno", None)
            if own is None:
                node.lineno = node.end_lineno = line
                node.col_offset, node.end_col_offset = 0, 1
            else:
                line = own
        for field in node._fields:
            value = getattr(node, field, None)
            if value.__class__ is list:
                stack.extend((item, line) for item in value if isinstance(item, ast.AST))
            elif isinstance(value, ast.AST):
                stack.append((value, line))
    return tree
