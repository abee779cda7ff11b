"""Recursion the rules may not have: traits that include themselves, procedures or functions
that call themselves, even through others (every run of the rules must end).

The last pass of :func:`.declare.declare`, once every body is lowered.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..diagnostics import codes, Diagnostic, error
from . import ir
from .declaring import Declaring
from .model import RuleSet



def recursion(st: Declaring) -> None:
    """C015 for each cycle of calls between procedures or functions, and of traits."""
    for d in _procedure_cycles(st.rules, st.calls) + _trait_cycles(st.rules):
        st.found.add(d)


def _trait_cycles(rules: RuleSet) -> list[Diagnostic]:
    """Traits may not include themselves, even through other traits."""
    out = []
    reported: set[frozenset[str]] = set()
    for start in sorted(rules.traits):
        stack = [(start, [start])]
        while stack:
            name, path = stack.pop()
            for inner in rules.traits[name].traits if name in rules.traits else ():
                if inner == start:
                    if frozenset(path) not in reported:
                        reported.add(frozenset(path))
                        origin = rules.traits[start].origin
                        out.append(error(codes.RECURSION, "traits include each other in a cycle: "
                                         + " → ".join(path + [start]), origin.file, origin.span,
                                         "remove one of the 'is' links; a trait cannot contain itself"))
                elif inner not in path and inner in rules.traits:
                    stack.append((inner, path + [inner]))
    return out


def _call_cycles(what: str, graph: dict[str, set[str]], origins: dict[str, ir.Origin]) -> list[Diagnostic]:
    """Procedures (or functions) may not call themselves, even indirectly: every run must end.

    Iterative depth-first search, so a long chain of calls cannot exhaust Python's stack.
    """
    out = []
    state: dict[str, int] = {}
    for root in sorted(graph):
        if root in state:
            continue
        state[root] = 1
        path = [root]
        todo = [iter(sorted(graph.get(root, ())))]
        while todo:
            callee = next(todo[-1], None)
            if callee is None:
                todo.pop()
                state[path.pop()] = 2
                continue
            if state.get(callee) == 1:
                cycle = path[path.index(callee):] + [callee]
                origin = origins[callee]
                out.append(error(codes.RECURSION, f"{what} call each other in a cycle: " + " → ".join(cycle),
                                 origin.file, origin.span,
                                 "unbounded recursion is not allowed; use 'repeat N' or 'for each'"))
            elif callee not in state and callee in graph:
                state[callee] = 1
                path.append(callee)
                todo.append(iter(sorted(graph.get(callee, ()))))
    return out


def _procedure_cycles(rules: RuleSet, calls: dict[str, set[str]]) -> list[Diagnostic]:
    procedures = {name: calls.get("procedure " + name, set()) for name in rules.procedures}
    functions = {name: {n.name for n in _ir_nodes(spec.body) if isinstance(n, (ir.CallFunction, ir.FunctionRef))}
                 for name, spec in rules.functions.items()}
    return (_call_cycles("procedures", procedures, {n: p.origin for n, p in rules.procedures.items()})
            + _call_cycles("functions", functions, {n: f.origin for n, f in rules.functions.items()}))


def _ir_nodes(x: object) -> Iterator[ir.X | ir.S]:
    """Every IR node under ``x`` (iteratively)."""
    stack = [x]
    while stack:
        node = stack.pop()
        if isinstance(node, (ir.X, ir.S)):
            yield node
            stack.extend(getattr(node, name) for name in ir.child_fields(node))
        elif isinstance(node, tuple):
            stack.extend(node)
