"""The event-trigger graph: which trigger listens to which event, who emits what.

Nodes are events, triggers, procedures and the game's blocks; edges are ``listens``
(trigger → event it waits for), ``emits`` (trigger/procedure/block → event) and ``calls``
(→ procedure). The compiler uses it to find triggers that can never fire and unbounded
event cycles; the runtime uses its dispatch table; ``hexlore graph`` exports it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from ..dsl.diagnostics import Diagnostic, warning
from .model import RuleSet

NEVER_FIRES = "W001"
EVENT_CYCLE = "W002"


@dataclass(frozen=True, slots=True)
class Edge:
    source: str
    target: str
    kind: str  # listens | emits | calls


@dataclass
class EventTriggerGraph:
    events: list[str] = field(default_factory=list)
    triggers: list[str] = field(default_factory=list)
    procedures: list[str] = field(default_factory=list)
    blocks: list[str] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    #: event -> trigger names in dispatch order, per timing
    dispatch: dict[str, dict[str, list[str]]] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {
            "version": 1,
            "nodes": ([{"id": f"event:{e}", "kind": "event", "name": e} for e in self.events]
                      + [{"id": f"trigger:{t}", "kind": "trigger", "name": t} for t in self.triggers]
                      + [{"id": f"procedure:{p}", "kind": "procedure", "name": p} for p in self.procedures]
                      + [{"id": f"game:{b}", "kind": "game", "name": b} for b in self.blocks]),
            "edges": [{"from": e.source, "to": e.target, "kind": e.kind} for e in self.edges],
            "dispatch": self.dispatch,
        }

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=2, sort_keys=True)

    def emitted_by(self, node: str) -> set[str]:
        """Events a node may emit, directly or through the procedures it calls."""
        seen: set[str] = set()
        out: set[str] = set()
        todo = [node]
        while todo:
            current = todo.pop()
            if current in seen:
                continue
            seen.add(current)
            for e in self.edges:
                if e.source == current:
                    if e.kind == "emits":
                        out.add(e.target.removeprefix("event:"))
                    elif e.kind == "calls":
                        todo.append(e.target)
        return out


def build_graph(rules: RuleSet) -> tuple[EventTriggerGraph, list[Diagnostic]]:
    calls, emits = rules.calls, rules.emits
    g = EventTriggerGraph(events=sorted(rules.events), triggers=[t.name for t in rules.triggers],
                          procedures=sorted(rules.procedures),
                          blocks=sorted(rules.game.blocks) if rules.game else [])

    def node_id(key: str) -> str:
        kind, name = key.split(" ", 1)
        return f"{kind}:{name}"

    for t in rules.triggers:
        g.edges.append(Edge(f"trigger:{t.name}", f"event:{t.event}", "listens"))
        table = g.dispatch.setdefault(t.event, {"before": [], "instead": [], "on": [], "after": []})
        table[t.timing].append(t.name)
    for key in sorted(set(calls) | set(emits)):
        for event in sorted(emits.get(key, ())):
            g.edges.append(Edge(node_id(key), f"event:{event}", "emits"))
        for proc in sorted(calls.get(key, ())):
            g.edges.append(Edge(node_id(key), f"procedure:{proc}", "calls"))

    diags: list[Diagnostic] = []
    emitted: set[str] = set()
    for key in set(calls) | set(emits):
        emitted |= g.emitted_by(node_id(key))
    for t in rules.triggers:
        if t.event in rules.events and t.event not in emitted:
            diags.append(warning(NEVER_FIRES, f"trigger '{t.name}' can never fire: nothing emits '{t.event}'",
                                 t.origin.file, t.origin.span,
                                 f"emit it somewhere with 'emit {t.event}(…)', or remove the trigger"))
    # event cycles: event -> triggers listening -> events they may emit
    follows: dict[str, set[str]] = {}
    for t in rules.triggers:
        follows.setdefault(t.event, set()).update(g.emitted_by(f"trigger:{t.name}"))
    reported: set[frozenset[str]] = set()
    for start in sorted(follows):
        stack = [(start, [start])]
        while stack:
            current, path = stack.pop()
            for nxt in sorted(follows.get(current, ())):
                if nxt == start:
                    cycle = frozenset(path)
                    if cycle not in reported:
                        reported.add(cycle)
                        spec = rules.events[start]
                        diags.append(warning(EVENT_CYCLE, "events may trigger each other in a cycle: "
                                             + " → ".join(path + [start]), spec.origin.file, spec.origin.span,
                                             "make sure a condition ends it; the runtime stops at depth 64"))
                elif nxt not in path and len(path) < 12:
                    stack.append((nxt, path + [nxt]))
    return g, diags
