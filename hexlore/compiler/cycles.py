"""Event cycles: triggers that fire each other, and whether anything makes them stop.

A *step* ``t → t'`` means trigger ``t`` may emit (directly or through the procedures it
calls) the event trigger ``t'`` listens to; a cycle is a closed chain of steps. Every
cycle is one of three things (see docs/diagnostics.md, C016 and W002):

* **endless** (error ``C016``): every step always happens — no guard or ``optional by`` on
  the trigger, the emit not under an ``if``, a loop or after an early ``stop``, and the next
  trigger cannot be replaced by an ``instead`` one. Such a cycle never ends.
* **bounded** (nothing reported): some step consumes a *latch*, or an argument counts down:
  - a latch: the step's conditions (trigger guard and the ``if``s around the emit) test a
    field of a variable, and before emitting the trigger moves that field away from what
    the condition accepts — ``if not u.done`` … ``u.done = true``; ``if u.charges > 0`` …
    ``u.charges -= 1``; ``if u.uses < 3`` … ``u.uses += 1``. Nothing that can run during the
    cascade (the cycle's triggers, the triggers they lead to, and the procedures all of them
    call) may move that field back. Each trip round the cycle uses up one latch of one
    unit, side, hex or the game: there are finitely many.
  - a counter: an int argument is passed on round the cycle unchanged or decreased by a
    literal (``n`` or ``n - 1``), decreases at least once per trip, is tested against a lower
    bound on one step (``if n > 0``), and is never reassigned (by the trigger, or by a
    ``before`` trigger of its event).
* **unproven** (warning ``W002``): conditions exist, but none of them shows the cycle ends;
  the runtime stops it at a depth of 64 events.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass

from ..dsl.diagnostics import Diagnostic, error, warning
from . import ir
from .builtins import named
from .model import RuleSet, Timing, TriggerSpec

ENDLESS_CYCLE = "C016"
EVENT_CYCLE = "W002"

#: enumeration limits: cycles are short in practice; past these, cycles are reported unproven
MAX_CYCLES = 2000
MAX_LENGTH = 24


@dataclass(frozen=True)
class Site:
    """A place where a trigger's body may emit an event (directly, or by calling a procedure)."""

    event: str
    conditions: tuple[ir.X, ...]  # conjuncts known to hold there (guard, enclosing ifs)
    closed: frozenset[tuple]  # latches moved on the way (see _closing)
    certain: bool  # reached on every run of the trigger
    emit: ir.Emit | None  # the emit itself; None when the event comes from a called procedure


# ---------------------------------------------------------------- walking IR
@functools.cache
def _child_fields(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls) if f.name != "origin")


def _children(node) -> list:
    out = []
    for name in _child_fields(type(node)):
        value = getattr(node, name)
        if isinstance(value, (ir.X, ir.S)):
            out.append(value)
        elif isinstance(value, tuple):
            stack = list(reversed(value))
            while stack:  # nested tuples: an if's (condition, body) pairs, whose bodies are tuples
                item = stack.pop()
                if isinstance(item, (ir.X, ir.S)):
                    out.append(item)
                elif isinstance(item, tuple):
                    stack.extend(reversed(item))
    return out


def _walk(node):
    """``node`` and the nodes :func:`_children` reaches under it, in pre-order.

    Iterative: a recursive generator passes every node up through each level above it.
    """
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(_children(current)))


def _calls(node, certain: bool):
    """(Emit or CallProcedure node, reached for sure?) in an expression, in evaluation order."""
    if isinstance(node, (ir.Emit, ir.CallProcedure)):
        yield node, certain
    if isinstance(node, ir.Binary) and node.op in ("and", "or"):
        yield from _calls(node.left, certain)
        yield from _calls(node.right, False)
        return
    unsure = ()
    if isinstance(node, ir.Conditional):
        unsure = (node.then, node.otherwise)
    elif isinstance(node, ir.Aggregate):
        unsure = (node.where, node.mapped)
    elif isinstance(node, ir.Choose):
        unsure = (node.prefer, node.default)
    elif isinstance(node, ir.Ask):
        unsure = (node.prefer, node.default)
    for child in _children(node):
        yield from _calls(child, certain and not any(child is u for u in unsure))


def _conjuncts(x: ir.X | None) -> list[ir.X]:
    if x is None or (isinstance(x, ir.Const) and x.value is True):
        return []
    if isinstance(x, ir.Binary) and x.op == "and":
        return _conjuncts(x.left) + _conjuncts(x.right)
    return [x]


#: built-ins that end the game at once (the runtime unwinds every trigger and procedure)
GAME_ENDERS = named(lambda b: b.ends_game)


def _leaves(stmts: tuple[ir.S, ...], enders: frozenset[str] = frozenset()) -> bool:
    """Can running these statements leave early: stop, return, break, or end the game
    (a game-ending built-in, or a call to a procedure in ``enders`` that may use one)?"""
    return any(isinstance(n, (ir.Stop, ir.Return, ir.Break))
               or (isinstance(n, ir.CallBuiltin) and n.name in GAME_ENDERS)
               or (isinstance(n, ir.CallProcedure) and n.name in enders)
               for s in stmts for n in _walk(s))


class Bodies:
    """Emission sites of triggers, and what procedures emit for sure."""

    def __init__(self, rules: RuleSet, emitted_by):
        self.rules = rules
        self.emitted_by = emitted_by  # node id -> events it may emit, through calls too
        self._certain: dict[str, frozenset[str]] = {}
        self.enders = self._game_enders()

    def _game_enders(self) -> frozenset[str]:
        """Procedures that may end the game, directly or through the procedures they call.

        Each body is walked once for what it ends or calls; the fixed point then runs over
        those sets (walking every body again at each round was most of the check's time).
        """
        ends_itself: set[str] = set()
        calls: dict[str, set[str]] = {}
        for name, spec in self.rules.procedures.items():
            called = calls[name] = set()
            for st in spec.body:
                for n in _walk(st):
                    if isinstance(n, ir.CallBuiltin) and n.name in GAME_ENDERS:
                        ends_itself.add(name)
                    elif isinstance(n, ir.CallProcedure):
                        called.add(n.name)
        enders = set(ends_itself)
        changed = True
        while changed:
            changed = False
            for name, called in calls.items():
                if name not in enders and not called.isdisjoint(enders):
                    enders.add(name)
                    changed = True
        return frozenset(enders)

    def certain_emits(self, procedure: str, visiting: frozenset[str] = frozenset()) -> frozenset[str]:
        """Events a procedure emits on every run."""
        if procedure in self._certain:
            return self._certain[procedure]
        spec = self.rules.procedures.get(procedure)
        if spec is None or procedure in visiting:
            return frozenset()
        out: set[str] = set()
        for site in self._walk_block(spec.body, (), frozenset(), True, visiting | {procedure}):
            if site.certain:
                out.add(site.event)
        self._certain[procedure] = frozenset(out)
        return self._certain[procedure]

    def sites(self, t: TriggerSpec) -> list[Site]:
        certain = not _conjuncts(t.guard) and t.optional_by is None
        return list(self._walk_block(t.body, tuple(_conjuncts(t.guard)), frozenset(), certain, frozenset()))

    def _expr_sites(self, x: ir.X, conditions, closed, certain, visiting):
        for node, sure in _calls(x, certain):
            if isinstance(node, ir.Emit):
                yield Site(node.event, conditions, closed, sure, node)
            else:
                surely = self.certain_emits(node.name, visiting) if sure else frozenset()
                for event in sorted(self.emitted_by(f"procedure:{node.name}")):
                    yield Site(event, conditions, closed, event in surely, None)

    def _walk_block(self, stmts, conditions, closed, certain, visiting):
        for st in stmts:
            for x in _own_exprs(st):
                yield from self._expr_sites(x, conditions, closed, certain, visiting)
            if isinstance(st, ir.If):
                for i, (cond, body) in enumerate(st.branches):
                    if i:
                        yield from self._expr_sites(cond, conditions, closed, False, visiting)
                    yield from self._walk_block(body, conditions + tuple(_conjuncts(cond)), closed, False, visiting)
                yield from self._walk_block(st.otherwise, conditions, closed, False, visiting)
            elif isinstance(st, (ir.ForEach, ir.While)):
                yield from self._walk_block(st.body, conditions, closed, False, visiting)
            elif isinstance(st, ir.Repeat):
                sure = isinstance(st.times, ir.Const) and isinstance(st.times.value, int) and st.times.value >= 1
                yield from self._walk_block(st.body, conditions, closed,
                                            certain and sure and not _leaves(st.body, self.enders),
                                            visiting)
            elif isinstance(st, ir.SetField):
                key = _closing(st)
                if key is not None:
                    closed = closed | {key}
            if isinstance(st, (ir.Stop, ir.Return, ir.Break)) or \
                    _leaves((st,), self.enders):
                certain = False


def _own_exprs(st: ir.S) -> list[ir.X]:
    """Expressions a statement evaluates itself (not those of nested statements), in order."""
    if isinstance(st, ir.If):
        return [st.branches[0][0]] if st.branches else []
    if isinstance(st, ir.ForEach):
        return [st.source]
    if isinstance(st, ir.Repeat):
        return [st.times]
    if isinstance(st, ir.While):
        return [st.cond]
    if isinstance(st, ir.SetField):
        return [st.obj, st.value]
    return [c for c in _children(st) if isinstance(c, ir.X)]


# ---------------------------------------------------------------- latches and counters
def _holder(x: ir.X) -> str | None:
    if isinstance(x, ir.Local):
        return x.name
    if isinstance(x, ir.GameRef):
        return "game"
    return None


def _constant(x: ir.X) -> bool:
    return (isinstance(x, ir.Const) and isinstance(x.value, int) and not isinstance(x.value, bool)) \
        or isinstance(x, ir.OptionRef)


def _positive(x: ir.X) -> bool:
    return isinstance(x, ir.Const) and isinstance(x.value, int) and not isinstance(x.value, bool) and x.value >= 1


def _opening(cond: ir.X) -> tuple | None:
    """The latch a condition tests: (holder, field, sort), sort being ('bool', open value), 'up' or 'down'."""
    if isinstance(cond, ir.GetField) and _holder(cond.obj):
        return (_holder(cond.obj), cond.name, ("bool", True))
    if isinstance(cond, ir.Unary) and cond.op == "not" and isinstance(cond.operand, ir.GetField) \
            and _holder(cond.operand.obj):
        return (_holder(cond.operand.obj), cond.operand.name, ("bool", False))
    if not isinstance(cond, ir.Binary):
        return None
    left, right, op = cond.left, cond.right, cond.op
    if isinstance(right, ir.GetField) and not isinstance(left, ir.GetField):
        left, right = right, left
        op = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}.get(op, op)
    if not (isinstance(left, ir.GetField) and _holder(left.obj)):
        return None
    key = (_holder(left.obj), left.name)
    if op in ("==", "!=") and isinstance(right, ir.Const) and isinstance(right.value, bool):
        return key + (("bool", right.value if op == "==" else not right.value),)
    if op in ("<", "<=") and _constant(right):
        return key + ("up",)
    if op in (">", ">=") and _constant(right):
        return key + ("down",)
    return None


def _closing(st: ir.SetField) -> tuple | None:
    """The latch an assignment closes, in the same form as :func:`_opening`."""
    holder = _holder(st.obj)
    if holder is None:
        return None
    if st.op == "=" and isinstance(st.value, ir.Const) and isinstance(st.value.value, bool):
        return (holder, st.name, ("bool", not st.value.value))
    if st.op == "+=" and _positive(st.value):
        return (holder, st.name, "up")
    if st.op == "-=" and _positive(st.value):
        return (holder, st.name, "down")
    return None


def _reopens(st: ir.SetField, key: tuple) -> bool:
    """Could this assignment move the latch ``key`` back to where its condition accepts it?"""
    _, fname, sort = key
    if st.name != fname:
        return False
    if isinstance(sort, tuple):
        return not (st.op == "=" and isinstance(st.value, ir.Const) and st.value.value is (not sort[1]))
    allowed = "+=" if sort == "up" else "-="
    return not (st.op == allowed and isinstance(st.value, ir.Const) and isinstance(st.value.value, int)
                and st.value.value >= 0)


def _binds(body: tuple[ir.S, ...], name: str) -> bool:
    """Does the body introduce or reassign a variable called ``name``?"""
    for st in body:
        for n in _walk(st):
            if isinstance(n, (ir.Let, ir.SetLocal, ir.ForEach, ir.Aggregate, ir.Choose)) and \
                    getattr(n, "name", getattr(n, "var", None)) == name:
                return True
    return False


# ---------------------------------------------------------------- the check
class CycleCheck:
    def __init__(self, rules: RuleSet, emitted_by, called_by):
        self.rules = rules
        self.bodies = Bodies(rules, emitted_by)
        self.called_by = called_by  # node id -> procedures it may call, transitively
        self.triggers = sorted(rules.triggers, key=lambda t: (t.origin.file, t.origin.span.line,
                                                              t.origin.span.column, t.name))
        self._ranks = {t.name: i for i, t in enumerate(self.triggers)}
        self.sites = {t.name: self.bodies.sites(t) for t in self.triggers}
        by_event: dict[str, list[TriggerSpec]] = {}
        for t in self.triggers:
            by_event.setdefault(t.event, []).append(t)
        self.by_event = by_event
        self.next = {t.name: sorted({u.name for s in self.sites[t.name] for u in by_event.get(s.event, ())},
                                    key=self._rank) for t in self.triggers}
        self.spec = {t.name: t for t in self.triggers}
        self.dispatch = rules.dispatch
        self._certain_steps: dict[tuple[str, str], bool] = {}
        # id of a body (the rules keep every body alive while this check runs) -> its assignments
        self._assignments_in: dict[int, list[ir.SetField]] = {}
        self.truncated = False

    def _rank(self, name: str) -> int:
        return self._ranks[name]

    # -- graph helpers
    def components(self, step_ok=None) -> list[list[str]]:
        """Strongly connected components that contain a cycle, in declaration order.

        Only steps ``step_ok(t, u)`` allows are followed (all, by default). Kosaraju's
        algorithm, iteratively: a long chain of triggers must not exhaust Python's stack.
        """
        names = [t.name for t in self.triggers]
        succ = {n: [m for m in self.next[n] if step_ok is None or step_ok(n, m)] for n in names}
        finished: list[str] = []
        seen: set[str] = set()
        for root in names:
            if root in seen:
                continue
            seen.add(root)
            todo = [(root, iter(succ[root]))]
            while todo:
                node, children = todo[-1]
                child = next(children, None)
                if child is None:
                    todo.pop()
                    finished.append(node)
                elif child not in seen:
                    seen.add(child)
                    todo.append((child, iter(succ[child])))
        back: dict[str, list[str]] = {n: [] for n in names}
        for n in names:
            for m in succ[n]:
                back[m].append(n)
        owner: set[str] = set()
        comps: list[list[str]] = []
        for root in reversed(finished):
            if root in owner:
                continue
            owner.add(root)
            comp, todo = [], [root]
            while todo:
                node = todo.pop()
                comp.append(node)
                for prev in back[node]:
                    if prev not in owner:
                        owner.add(prev)
                        todo.append(prev)
            comps.append(comp)
        cyclic = [sorted(c, key=self._rank) for c in comps if len(c) > 1 or c[0] in succ[c[0]]]
        return sorted(cyclic, key=lambda c: self._rank(c[0]))

    def cycles(self, comp: list[str]):
        """Elementary cycles of one component, each rooted at its earliest-declared trigger.

        At most MAX_CYCLES cycles of at most MAX_LENGTH steps; ``self.truncated`` tells
        whether some were left out.
        """
        members = set(comp)
        rank = {n: i for i, n in enumerate(comp)}
        found = 0
        self.truncated = False
        for start in comp:
            stack = [(start, [start])]
            while stack:
                node, path = stack.pop()
                for nxt in reversed(self.next[node]):
                    if nxt not in members or rank[nxt] < rank[start]:
                        continue
                    if nxt == start:
                        found += 1
                        yield path
                        if found >= MAX_CYCLES:
                            self.truncated = True
                            return
                    elif nxt not in path:
                        if len(path) < MAX_LENGTH:
                            stack.append((nxt, path + [nxt]))
                        else:
                            self.truncated = True

    def shortest_cycle(self, comp: list[str], step_ok) -> list[str]:
        """The shortest cycle through the first trigger of ``comp``, a component under ``step_ok``."""
        members = set(comp)
        start = comp[0]
        parents: dict[str, str] = {}
        frontier = [start]
        while frontier:
            following = []
            for node in frontier:
                for nxt in self.next[node]:
                    if nxt not in members or not step_ok(node, nxt):
                        continue
                    if nxt == start:
                        path = [node]
                        while path[-1] != start:
                            path.append(parents[path[-1]])
                        return list(reversed(path))
                    if nxt not in parents:
                        parents[nxt] = node
                        following.append(nxt)
            frontier = following
        return comp[:1]

    def reachable(self, comp: list[str]) -> tuple[set[str], set[str]]:
        """Triggers that can run while the component's cascade runs, and the procedures they call."""
        triggers = set(comp)
        todo = list(comp)
        while todo:
            for nxt in self.next[todo.pop()]:
                if nxt not in triggers:
                    triggers.add(nxt)
                    todo.append(nxt)
        procedures: set[str] = set()
        for t in triggers:
            procedures |= self.called_by(f"trigger:{t}")
        return triggers, procedures

    # -- classification
    def step_sites(self, t: str, u: str) -> list[Site]:
        event = self.spec[u].event
        return [s for s in self.sites[t] if s.event == event]  # a trigger has few sites

    def runs_surely(self, name: str) -> bool:
        """Does the trigger run whenever its event is emitted (no guard, never replaced)?"""
        t = self.spec[name]
        if _conjuncts(t.guard) or t.optional_by is not None:
            return False
        table = self.dispatch.get(t.event)
        rivals = table.instead if table else ()
        if t.timing is Timing.ON:
            return not rivals
        if t.timing is Timing.INSTEAD:
            return rivals[0].name == name
        return True

    def _assignments(self, body: tuple[ir.S, ...]) -> list[ir.SetField]:
        """The field assignments in a body, in walking order, found once per body."""
        found = self._assignments_in.get(id(body))
        if found is None:
            found = [n for st in body for n in _walk(st) if isinstance(n, ir.SetField)]
            self._assignments_in[id(body)] = found
        return found

    def certain_step(self, t: str, u: str) -> bool:
        """Does ``t`` always fire ``u``: always emit its event, and ``u`` always run on it?"""
        key = (t, u)
        if key not in self._certain_steps:
            self._certain_steps[key] = self.runs_surely(u) and any(s.certain for s in self.step_sites(t, u))
        return self._certain_steps[key]

    def latched(self, cycle: list[str], reachable: tuple[set[str], set[str]]) -> bool:
        triggers, procedures = reachable
        bodies = [self.spec[t].body for t in triggers] + \
            [self.rules.procedures[p].body for p in procedures if p in self.rules.procedures]
        sets = [n for body in bodies for n in self._assignments(body)]
        for t, u in zip(cycle, cycle[1:] + cycle[:1]):
            sites = self.step_sites(t, u)
            body = self.spec[t].body

            def holds(site: Site) -> bool:
                for cond in site.conditions:
                    key = _opening(cond)
                    if key and key in site.closed and (key[0] == "game" or not _binds(body, key[0])) \
                            and not any(_reopens(st, key) for st in sets if _closing(st) != key):
                        return True
                return False

            if sites and all(holds(s) for s in sites):
                return True
        return False

    def counted(self, cycle: list[str]) -> bool:
        steps = list(zip(cycle, cycle[1:] + cycle[:1]))
        if any(s.emit is None for t, u in steps for s in self.step_sites(t, u)):
            return False
        first = self.rules.events.get(self.spec[cycle[0]].event)
        if first is None:
            return False
        for p in first.params:
            if p.type.name == "int" and self._count_from(steps, 0, p.name, p.name, 0, False):
                return True
        return False

    def _count_from(self, steps, i: int, start: str, param: str, drop: int, bounded: bool) -> bool:
        if i == len(steps):
            return param == start and drop >= 1 and bounded
        t, u = steps[i]
        spec, event = self.spec[t], self.spec[t].event
        if _binds(spec.body, param) or any(
                isinstance(n, ir.SetLocal) and n.name == param
                for b in self.by_event.get(event, ()) if b.timing is Timing.BEFORE for st in b.body for n in _walk(st)):
            return False
        sites = self.step_sites(t, u)
        bounded_here = all(any(_lower_bound(c, param) for c in s.conditions) for s in sites)
        target = self.rules.events.get(self.spec[u].event)
        for q in (target.params if target else ()):
            if q.type.name != "int":
                continue
            drops = [_decrease(dict(s.emit.args).get(q.name), param) for s in sites]
            if all(d is not None for d in drops) and \
                    self._count_from(steps, i + 1, start, q.name, drop + min(drops), bounded or bounded_here):
                return True
        return False

    # -- reporting
    def diagnostics(self) -> list[Diagnostic]:
        out = []
        endless_in: set[str] = set()
        for comp in self.components(self.certain_step):
            out.append(self._report(self.shortest_cycle(comp, self.certain_step), True))
            endless_in |= set(comp)
        for comp in self.components():
            if endless_in & set(comp):
                continue  # reported above; fix that first
            reach = self.reachable(comp)
            unproven = None
            for cycle in self.cycles(comp):
                if (unproven is None or len(cycle) < len(unproven)) and \
                        not (self.latched(cycle, reach) or self.counted(cycle)):
                    unproven = cycle
            if unproven:
                out.append(self._report(unproven, False))
            elif self.truncated:
                out.append(self._report(self.shortest_cycle(comp, lambda t, u: True), False, complete=False))
        return out

    def _report(self, cycle: list[str], endless: bool, complete: bool = True) -> Diagnostic:
        steps = []
        for t, u in zip(cycle, cycle[1:] + cycle[:1]):
            steps.append(f"'{t}' emits '{self.spec[u].event}'")
        if len(steps) > 8:
            steps = steps[:6] + [f"… ({len(cycle)} triggers in all)"]
        text = " → ".join(steps) + f" → '{cycle[0]}'"
        origin = self.spec[cycle[0]].origin
        if endless:
            return error(ENDLESS_CYCLE, f"triggers fire each other in an endless cycle: {text}", origin.file,
                         origin.span, "nothing on the cycle can stop it; add a condition that ends it, e.g. a "
                         "counter argument that decreases: 'if n > 0 { emit e(n: n - 1) }'")
        if not complete:
            return warning(EVENT_CYCLE, f"triggers fire each other in more (or longer) cycles than the compiler "
                           f"checks, for example: {text}", origin.file, origin.span,
                           f"at most {MAX_CYCLES} cycles of {MAX_LENGTH} triggers are checked for a bound; "
                           "split the rules so fewer triggers feed each other")
        return warning(EVENT_CYCLE, f"triggers may fire each other without end: {text}", origin.file, origin.span,
                       "no condition on the cycle is shown to end it (the runtime stops at depth 64): pass a "
                       "counter that decreases and test it ('if n > 0 { emit e(n: n - 1) }'), or test a "
                       "field and change it before emitting ('if not u.done' … 'u.done = true')")


def _lower_bound(cond: ir.X, param: str) -> bool:
    if not isinstance(cond, ir.Binary):
        return False
    local = lambda x: isinstance(x, ir.Local) and x.name == param  # noqa: E731
    return (cond.op in (">", ">=") and local(cond.left) and _constant(cond.right)) or \
        (cond.op in ("<", "<=") and local(cond.right) and _constant(cond.left))


def _decrease(arg: ir.X | None, param: str) -> int | None:
    """How much an emitted argument is below ``param`` (``n`` → 0, ``n - 2`` → 2); None otherwise."""
    if isinstance(arg, ir.Local) and arg.name == param:
        return 0
    if isinstance(arg, ir.Binary) and arg.op == "-" and isinstance(arg.left, ir.Local) \
            and arg.left.name == param and _positive(arg.right):
        return arg.right.value
    return None


def check_cycles(rules: RuleSet, emitted_by, called_by) -> list[Diagnostic]:
    return CycleCheck(rules, emitted_by, called_by).diagnostics()
