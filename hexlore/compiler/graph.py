"""The event-trigger graph: which trigger listens to which event, who emits what.

Nodes are events, triggers, procedures and the game's blocks; edges are ``listens``
(trigger → event it waits for), ``emits`` (trigger/procedure/block → event) and ``calls``
(→ procedure). The compiler uses it to find triggers that can never fire and event
cycles (:mod:`.cycles`); the runtime uses its dispatch table; ``hexlore graph`` exports it
as JSON, DOT or Mermaid.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..diagnostics import Diagnostic, codes, warning
from .cycles import check_cycles
from .model import RuleSet, Timing


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

    def to_json(self) -> dict[str, Any]:
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

    def to_dot(self) -> str:
        """Graphviz DOT; every id and label is a quoted, escaped string."""
        shapes = {"event": "ellipse", "trigger": "box", "procedure": "component", "game": "house"}
        lines = ["digraph lore {"]
        for n in self.to_json()["nodes"]:
            lines.append(f"  {_dot(n['id'])} [label={_dot(n['name'])}, shape={shapes[n['kind']]}];")
        for e in self.edges:
            lines.append(f"  {_dot(e.source)} -> {_dot(e.target)} [label={_dot(e.kind)}];")
        lines.append("}")
        return "\n".join(lines)

    def to_mermaid(self) -> str:
        """A Mermaid flowchart; node ids are generated (n0, n1…) and labels are quoted and escaped."""
        nodes = self.to_json()["nodes"]
        ids = {n["id"]: f"n{i}" for i, n in enumerate(nodes)}
        lines = ["flowchart LR"]
        for n in nodes:
            left, right = ("([", "])") if n["kind"] == "event" else ("[", "]")
            lines.append(f'  {ids[n["id"]]}{left}"{_mermaid(n["kind"] + " " + n["name"])}"{right}')
        for e in self.edges:
            if e.source in ids and e.target in ids:
                lines.append(f"  {ids[e.source]} -->|{_mermaid(e.kind)}| {ids[e.target]}")
        return "\n".join(lines)

    def _out(self) -> dict[str, list[Edge]]:
        cached = self.__dict__.get("_index")
        if cached is None or cached[0] != len(self.edges):
            index: dict[str, list[Edge]] = {}
            for e in self.edges:
                index.setdefault(e.source, []).append(e)
            cached = (len(self.edges), index)
            self.__dict__["_index"] = cached
        return cached[1]

    def emitted_by(self, node: str) -> set[str]:
        """Events a node may emit, directly or through the procedures it calls."""
        return {t.removeprefix("event:") for t in self._reach(node, "emits")}

    def called_by(self, node: str) -> set[str]:
        """Procedures a node may call, directly or through other procedures."""
        return {t.removeprefix("procedure:") for t in self._reach(node, "calls")}

    def _reach(self, node: str, kind: str) -> frozenset[str]:
        """What ``node`` reaches by ``kind`` edges, through calls; found once per node and
        kind (the analyses ask the same nodes again and again: recomputing each answer made
        them quadratic). The answers are dropped when edges are added."""
        out_edges = self._out()
        cache = self.__dict__.setdefault("_reached", {})
        if cache.get("edges") != len(self.edges):
            cache.clear()
            cache["edges"] = len(self.edges)
        key = (node, kind)
        cached: frozenset[str] | None = cache.get(key)
        if cached is not None:
            return cached
        seen: set[str] = set()
        out: set[str] = set()
        todo = [node]
        while todo:
            current = todo.pop()
            if current in seen:
                continue
            seen.add(current)
            for e in out_edges.get(current, ()):
                if e.kind == kind:
                    out.add(e.target)
                if e.kind == "calls":
                    todo.append(e.target)
        reached = cache[key] = frozenset(out)
        return reached


def _dot(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _mermaid(text: str) -> str:
    # Mermaid has no backslash escapes inside quoted labels: it uses HTML entity codes
    return "".join(f"#{ord(c)};" if c in '"#<>|[](){}' or ord(c) < 32 else c for c in text)


def build_graph(rules: RuleSet, skipped: frozenset[str] | set[str] = frozenset()
                ) -> tuple[EventTriggerGraph, list[Diagnostic]]:
    calls, emits = rules.calls, rules.emits
    g = EventTriggerGraph(events=sorted(rules.events), triggers=[t.name for t in rules.triggers],
                          procedures=sorted(rules.procedures),
                          blocks=sorted(rules.game.blocks) if rules.game else [])

    def node_id(key: str) -> str:
        kind, name = key.split(" ", 1)
        return f"{kind}:{name}"

    for t in rules.triggers:
        g.edges.append(Edge(f"trigger:{t.name}", f"event:{t.event}", "listens"))
    g.dispatch = {event: {timing.value: [t.name for t in getattr(table, timing.value)] for timing in Timing}
                  for event, table in rules.dispatch.items()}
    for key in sorted(set(calls) | set(emits)):
        for event in sorted(emits.get(key, ())):
            g.edges.append(Edge(node_id(key), f"event:{event}", "emits"))
        for proc in sorted(calls.get(key, ())):
            g.edges.append(Edge(node_id(key), f"procedure:{proc}", "calls"))
    diags = _never_fires(rules, g, skipped)
    diags += check_cycles(rules, g.emitted_by, g.called_by)
    return g, diags


def _never_fires(rules: RuleSet, g: EventTriggerGraph, skipped: frozenset[str] | set[str]) -> list[Diagnostic]:
    """W001: triggers whose event nothing that can run ever emits.

    Procedures (which scenario tests may call) and game blocks can always run; a trigger can
    run if its event is emitted by something that can run. Triggers only emitted to by
    triggers that can never fire can never fire either.

    A worklist: each event becomes live once and wakes its triggers once, so the search is
    linear in the graph (a fixed point over every trigger per round was quadratic: a chain
    of triggers declared in reverse order took one round per trigger).
    """
    listeners: dict[str, list[str]] = {}
    for t in rules.triggers:
        listeners.setdefault(t.event, []).append(t.name)
    live: set[str] = set()
    todo: list[str] = []

    def wake(events: Iterable[str]) -> None:
        for event in events:
            if event not in live:
                live.add(event)
                todo.append(event)

    for key in rules.calls.keys() | rules.emits.keys():
        if not key.startswith("trigger "):
            wake(g.emitted_by(key.replace(" ", ":", 1)))
    while todo:
        for name in listeners.get(todo.pop(), ()):
            wake(g.emitted_by(f"trigger:{name}"))
    emitters: dict[str, list[str]] = {}
    for u in rules.triggers:
        for event in g.emitted_by(f"trigger:{u.name}"):
            emitters.setdefault(event, []).append(u.name)
    diags = []
    for t in rules.triggers:
        if t.event not in rules.events or t.event in live or t.event in skipped:
            continue
        sources = sorted(emitters.get(t.event, ()))
        if sources:
            message = (f"trigger '{t.name}' can never fire: '{t.event}' is emitted only by triggers that can "
                       f"never fire ({', '.join(sources)})")
        else:
            message = f"trigger '{t.name}' can never fire: nothing emits '{t.event}'"
        diags.append(warning(codes.NEVER_FIRES, message, t.origin.file, t.origin.span,
                             f"emit it somewhere with 'emit {t.event}(…)', or remove the trigger"))
    return diags
