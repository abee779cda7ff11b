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

from dataclasses import dataclass

from ..diagnostics import Diagnostic, codes, error, warning
from . import digraph, ir
from .builtins import named
from .model import RuleSet, Timing, TriggerSpec


#: steps of the one search that enumerates cycles (of a component whose cycles no single
#: counter bounds, e.g. counters that change places); past it the check says so (W005)
MAX_SEARCH = 200_000


@dataclass(frozen=True)
class Site:
    """A place where a trigger's body may emit an event (directly, or by calling a procedure)."""

    event: str
    conditions: tuple[ir.X, ...]  # conjuncts known to hold there (guard, enclosing ifs)
    closed: frozenset[tuple]  # latches moved on the way (see _closing)
    certain: bool  # reached on every run of the trigger
    emit: ir.Emit | None  # the emit itself; None when the event comes from a called procedure


# ---------------------------------------------------------------- walking IR
def _children(node) -> list:
    out = []
    for name in ir.child_fields(node):
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
    unsure: tuple[ir.X | None, ...] = ()
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


def _kind(st: ir.SetField) -> tuple:
    """What :func:`_closing` and :func:`_reopens` read of an assignment: its holder, field,
    operator and the class of its value (a literal true/false, a literal int ≥ 1, 0 or < 0,
    anything else). Two assignments of one kind answer both alike."""
    value = st.value
    if isinstance(value, ir.Const) and isinstance(value.value, bool):
        sort: object = ("bool", value.value)
    elif isinstance(value, ir.Const) and isinstance(value.value, int):
        sort = ("int", "pos" if value.value >= 1 else "zero" if value.value == 0 else "neg")
    else:
        sort = "other"
    return (_holder(st.obj), st.name, st.op, sort)


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
        self._rebinds: dict[tuple[str, str], bool] = {}
        self._lifts: dict[tuple[str, str], list[tuple[str, str, int, bool]]] = {}
        self.budget = digraph.Budget(MAX_SEARCH)
        self._cascade: dict[str, frozenset[tuple]] | None = None

    def _rank(self, name: str) -> int:
        return self._ranks[name]

    # -- graph helpers
    def components(self, step_ok=None) -> list[list[str]]:
        """Strongly connected components that contain a cycle, in declaration order, following
        only the steps ``step_ok(t, u)`` allows (all, by default)."""
        names = [t.name for t in self.triggers]
        return digraph.components(names, lambda n: (m for m in self.next[n] if step_ok is None or step_ok(n, m)))

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

    def _reassigned(self, t: str, param: str) -> bool:
        """Is ``param`` (an argument of ``t``'s event) bound again by ``t`` or by a ``before``
        trigger of the event? Then it counts nothing down. Found once per pair."""
        key = (t, param)
        if key not in self._rebinds:
            spec = self.spec[t]
            self._rebinds[key] = _binds(spec.body, param) or any(
                isinstance(n, ir.SetLocal) and n.name == param
                for b in self.by_event.get(spec.event, ()) if b.timing is Timing.BEFORE
                for st in b.body for n in _walk(st))
        return self._rebinds[key]

    def _int_params(self, t: str) -> list[str]:
        event = self.rules.events.get(self.spec[t].event)
        return [p.name for p in (event.params if event else ()) if p.type.name == "int"]

    def lifts(self, t: str, u: str) -> list[tuple[str, str, int, bool]]:
        """How counters pass along the step ``t → u``: (argument of ``t``'s event, argument of
        ``u``'s it is passed to, by how much it drops at least, is it tested against a lower
        bound on the step). Empty when some emit of the step is in a called procedure."""
        key = (t, u)
        if key in self._lifts:
            return self._lifts[key]
        sites = self.step_sites(t, u)
        out: list[tuple[str, str, int, bool]] = []
        emits = [s.emit for s in sites if s.emit is not None]
        if emits and len(emits) == len(sites):
            targets = self._int_params(u)
            for p in self._int_params(t):
                if self._reassigned(t, p):
                    continue
                bounded = all(any(_lower_bound(c, p) for c in s.conditions) for s in sites)
                for q in targets:
                    drops = [d for e in emits if (d := _decrease(dict(e.args).get(q), p)) is not None]
                    if len(drops) == len(emits):
                        out.append((p, q, min(drops), bounded))
        self._lifts[key] = out
        return out

    def counted(self, cycle: list[str]) -> bool:
        """Does an int argument count down round the cycle (see the module's docstring)?

        The arguments it may be in after each step are carried as a set of states
        (argument, dropped yet, tested yet): linear in the cycle's length.
        """
        steps = list(zip(cycle, cycle[1:] + cycle[:1]))
        for start in self._int_params(cycle[0]):
            states = {(start, False, False)}
            for t, u in steps:
                states = {(q, dropped or drop >= 1, tested or bounded)
                          for p, dropped, tested in states
                          for p2, q, drop, bounded in self.lifts(t, u) if p2 == p}
                if not states:
                    break
            if (start, True, True) in states:
                return True
        return False

    def _cascade_assignments(self, trigger: str) -> frozenset[tuple]:
        """The kinds of field assignment (see :func:`_kind`) that can run during the cascade
        of ``trigger``: in the triggers it leads to, and the procedures all of them call.

        Found for every trigger at once, over the components of the trigger graph, sinks
        first, each component's kinds the union of its own and its successors'. Assignments
        of one kind answer every latch question alike, so one of each is kept
        (``self._representative``): the sets stay small, where collecting the reachable
        triggers of each component was quadratic in a chain of latched cycles.
        """
        if self._cascade is None:
            self._representative: dict[tuple, ir.SetField] = {}

            def kinds(body) -> frozenset[tuple]:
                out = set()
                for st in self._assignments(body):
                    kind = _kind(st)
                    self._representative.setdefault(kind, st)
                    out.add(kind)
                return frozenset(out)

            procedures = {name: kinds(spec.body) for name, spec in self.rules.procedures.items()}
            names = [t.name for t in self.triggers]
            comps = digraph.condensation(names, self.next.__getitem__)
            owner = {n: i for i, comp in enumerate(comps) for n in comp}
            reached: list[frozenset[tuple]] = [frozenset()] * len(comps)
            for i in reversed(range(len(comps))):  # sinks first
                own: set[tuple] = set()
                for t in comps[i]:
                    own |= kinds(self.spec[t].body)
                    for p in self.called_by(f"trigger:{t}"):
                        own |= procedures.get(p, frozenset())
                    for u in self.next[t]:
                        if owner[u] != i:
                            own |= reached[owner[u]]
                reached[i] = frozenset(own)
            self._cascade = {n: reached[owner[n]] for n in names}
        return self._cascade[trigger]

    def _latched_steps(self, comp: list[str]):
        """The steps of a component a latch holds (see the module's docstring), as a predicate.

        Whether a step is latched does not depend on the rest of a cycle, only on what can
        run during the component's cascade (the assignments that could reopen a latch); so
        the latched steps are removed and the cycles left are not latched, with no cycle
        enumerated. The cascade is found only for a component that has a latch to check.
        """
        members = set(comp)
        sets_by_field: dict[str, list[ir.SetField]] | None = None
        latched: dict[tuple[str, str], bool] = {}

        def reopeners(name: str) -> list[ir.SetField]:
            nonlocal sets_by_field
            if sets_by_field is None:
                sets_by_field = {}
                for sig in self._cascade_assignments(comp[0]):
                    sets_by_field.setdefault(sig[1], []).append(self._representative[sig])
            return sets_by_field.get(name, [])

        def holds(site: Site, body) -> bool:
            for cond in site.conditions:
                key = _opening(cond)
                if key and key in site.closed and (key[0] == "game" or not _binds(body, key[0])) \
                        and not any(_reopens(st, key) for st in reopeners(key[1]) if _closing(st) != key):
                    return True
            return False

        for t in comp:
            for u in self.next[t]:
                if u in members:
                    sites = self.step_sites(t, u)
                    latched[(t, u)] = bool(sites) and all(holds(s, self.spec[t].body) for s in sites)
        return latched

    def _unproven(self, comp: list[str]) -> tuple[list[str] | None, list[str] | None]:
        """A shortest cycle of the component that no latch and no counter shows to end, and,
        when the capped search stopped before knowing, a cycle it did not check."""
        latched = self._latched_steps(comp)
        members = set(comp)

        def open_next(t: str):
            return (u for u in self.next[t] if u in members and not latched[(t, u)])

        best: list[str] | None = None
        unchecked: list[str] | None = None
        for sub in digraph.components(comp, open_next):
            found, rest = self._unproven_in(sub, open_next)
            if found is not None and (best is None or len(found) < len(best)):
                best = found
            unchecked = unchecked or rest
        return best, (None if best is not None else unchecked)

    def _unproven_in(self, sub: list[str], open_next) -> tuple[list[str] | None, list[str] | None]:
        """:meth:`_unproven` for one component of the unlatched steps."""
        members = set(sub)
        breaking = [(t, u) for t in sub for u in open_next(t) if u in members and not self.lifts(t, u)]
        if breaking:  # no counter passes this step: every cycle through it is unproven
            return self._shortest_through(sub, open_next, breaking), None
        if self._counted_throughout(sub, open_next):
            return None, None
        best: list[str] | None = None
        for cycle in digraph.elementary_cycles(sub, open_next, self.budget):
            if (best is None or len(cycle) < len(best)) and not self.counted(cycle):
                best = cycle
        if best is None and self.budget.exhausted:
            return None, digraph.shortest_cycle(sub, open_next)
        return best, None

    def _shortest_through(self, sub: list[str], open_next, steps: list[tuple[str, str]]) -> list[str]:
        """A shortest cycle of ``sub`` through one of ``steps``, from its earliest trigger."""
        members = set(sub)
        best: list[str] | None = None
        for t, u in steps[:64]:  # enough to find a short one; each search is linear
            back = digraph.path_back(u, t, members, open_next)
            if back is not None and (best is None or len(back) < len(best)):
                best = back
                if len(best) <= 2:
                    break
        return digraph.rooted(best, self._rank) if best is not None else sub[:1]

    def _counted_throughout(self, sub: list[str], open_next) -> bool:
        """Does one counter bound every cycle of ``sub``? A sufficient test, linear in its size.

        Each trigger is given one argument (the first of those every step can pass on); if
        every step passes it on, every cycle carries it round unchanged in kind, and it
        bounds them all when no cycle avoids a drop and none avoids a lower-bound test (the
        steps without a drop, and those without a test, contain no cycle).
        """
        members = set(sub)
        chosen: dict[str, str] = {}
        for t in sub:
            params = self._int_params(t)
            if not params:
                return False
            chosen[t] = params[0]
        lift: dict[tuple[str, str], tuple[int, bool]] = {}
        for t in sub:
            for u in open_next(t):
                if u not in members:
                    continue
                passing = [(d, b) for p, q, d, b in self.lifts(t, u) if p == chosen[t] and q == chosen[u]]
                if not passing:
                    return False
                lift[(t, u)] = (max(d for d, _ in passing), any(b for _, b in passing))
        if digraph.has_cycle(sub, lambda t: (u for u in open_next(t) if u in members and lift[(t, u)][0] == 0)):
            return False
        return not digraph.has_cycle(sub, lambda t: (u for u in open_next(t) if u in members
                                                     and not lift[(t, u)][1]))

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
            unproven, unchecked = self._unproven(comp)
            if unproven:
                out.append(self._report(unproven, False))
            elif unchecked:
                out.append(self._cut_short(unchecked))
        return out

    def _steps_text(self, cycle: list[str]) -> str:
        steps = []
        for t, u in zip(cycle, cycle[1:] + cycle[:1]):
            steps.append(f"'{t}' emits '{self.spec[u].event}'")
        if len(steps) > 8:
            steps = steps[:6] + [f"… ({len(cycle)} triggers in all)"]
        return " → ".join(steps) + f" → '{cycle[0]}'"

    def _report(self, cycle: list[str], endless: bool) -> Diagnostic:
        text = self._steps_text(cycle)
        origin = self.spec[cycle[0]].origin
        if endless:
            return error(codes.ENDLESS_CYCLE, f"triggers fire each other in an endless cycle: {text}", origin.file,
                         origin.span, "nothing on the cycle can stop it; add a condition that ends it, e.g. a "
                         "counter argument that decreases: 'if n > 0 { emit e(n: n - 1) }'")
        return warning(codes.EVENT_CYCLE, f"triggers may fire each other without end: {text}", origin.file, origin.span,
                       "no condition on the cycle is shown to end it (the runtime stops at depth 64): pass a "
                       "counter that decreases and test it ('if n > 0 { emit e(n: n - 1) }'), or test a "
                       "field and change it before emitting ('if not u.done' … 'u.done = true')")

    def _cut_short(self, cycle: list[str]) -> Diagnostic:
        """W005: the capped search stopped before it could tell whether these cycles end."""
        origin = self.spec[cycle[0]].origin
        return warning(codes.CUT_SHORT, f"the cycle check stopped at its limit ({MAX_SEARCH:,} search steps) before "
                       f"it could tell whether these triggers stop firing each other, for example: "
                       f"{self._steps_text(cycle)}", origin.file, origin.span,
                       "the counters on these cycles change places, so each cycle is checked on its own and "
                       "there are too many; pass one counter round every cycle ('if n > 0 { emit e(n: n - 1) }') "
                       "or stop the cycles with a field ('if not u.done' … 'u.done = true')")


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
            and arg.left.name == param and isinstance(arg.right, ir.Const) and _positive(arg.right):
        assert isinstance(arg.right.value, int)  # what _positive tests
        return arg.right.value
    return None


def check_cycles(rules: RuleSet, emitted_by, called_by) -> list[Diagnostic]:
    return CycleCheck(rules, emitted_by, called_by).diagnostics()
