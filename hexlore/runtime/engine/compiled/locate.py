"""Where in the rules a failure of compiled code happened, read from its traceback.

Compiled rules check nothing Python checks by itself: reading a field of none fails with
Python's own ``AttributeError``. Every generated node carries the index of its IR node as
its line number (:mod:`.names`), so the innermost generated frame of the traceback names the
node that failed; :func:`rule_error` turns the Python exception into the located
:class:`RuleError` the rules would have raised had they checked, with the same message.
"""

from __future__ import annotations

import weakref
from types import TracebackType
from typing import Any, Protocol

from hexlore.compiler import ir
from hexlore.runtime.engine.core.bounds import RuleError

class LineTable(Protocol):
    """What a generated module's file name leads to: its IR nodes by line (line - 1 -> node)."""

    nodes: list[Any]


#: generated module file name -> its compiled rules (whose ``nodes`` are its line table: line - 1
#: -> IR node); filled by the compiler, forgotten with the compiled rules
LINE_TABLES: weakref.WeakValueDictionary[str, LineTable] = weakref.WeakValueDictionary()

_EXPECTED = {"unit": "a unit", "side": "a side", "hex": "a hex", "face": "a face", "def": "a definition",
             "event": "an event", "any": "a value with fields"}


def failing_node(tb: TracebackType | None) -> tuple[object | None, bool]:
    """The IR node of the innermost generated frame of ``tb``, and whether the failure came
    from below it (a built-in or helper it called) rather than from its own bytecode."""
    node, below = None, False
    while tb is not None:
        compiled = LINE_TABLES.get(tb.tb_frame.f_code.co_filename)
        if compiled is not None:
            table = compiled.nodes
            line = tb.tb_lineno
            node = table[line - 1] if line is not None and 0 < line <= len(table) else None
            below = False
        elif node is not None:
            below = True
        tb = tb.tb_next
    return node, below


def _is_none_failure(exc: BaseException) -> bool:
    text = str(exc)
    return "NoneType" in text or (isinstance(exc, KeyError) and exc.args == (None,))


def rule_error(exc: BaseException) -> RuleError | None:
    """The located rule failure a Python exception from compiled code stands for, or None when
    the traceback holds no generated frame (the failure is not the rules')."""
    node, below = failing_node(exc.__traceback__)
    if isinstance(exc, RuleError):
        if exc.origin is None and node is not None:
            exc.origin = getattr(node, "origin", None)
        return exc
    if node is None:
        return None
    origin = getattr(node, "origin", None)
    if node.__class__ is ir.CallBuiltin and below and isinstance(exc, (TypeError, AttributeError, KeyError,
                                                                        ValueError)):
        return RuleError(f"'{node.name}' failed: {exc}", origin)
    if node.__class__ is ir.GetField and _is_none_failure(exc):
        return RuleError(f"cannot read '{node.name}' of none (expected {_EXPECTED.get(node.owner, 'a value')})",
                         origin)
    if isinstance(exc, ZeroDivisionError):
        return RuleError("division by zero", origin)
    return RuleError(f"rules failed at run time: {exc!r}", origin,
                     "please report this: the compiler let an ill-typed rule through")


def current_origin(frame) -> "ir.Origin | None":
    """Where in the rules the code running at ``frame`` (a Python frame, e.g. of a built-in
    the rules called) was called from: the IR node of the innermost generated frame around it.
    For a reader outside the hot path (a replay page names the rule of each roll)."""
    while frame is not None:
        compiled = LINE_TABLES.get(frame.f_code.co_filename)
        if compiled is not None:
            table, line = compiled.nodes, frame.f_lineno
            node = table[line - 1] if line is not None and 0 < line <= len(table) else None
            return getattr(node, "origin", None)
        frame = frame.f_back
    return None
