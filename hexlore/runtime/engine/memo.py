"""Memoised calls of pure functions, forgotten exactly when what they read changes.

A Lore function cannot change the game (the compiler refuses effects, dice, decisions and
events in it), so its result depends only on its arguments and on the state it reads. What a
function may read is known before the game starts: the IR of its body (and of every function
it calls or hands to a built-in) names the fields it reads, and the built-ins it calls say
whether they look at where the units stand. Each function gets its own memo, and a change
of the game empties the memos of the functions that may read what changed, and no others:
setting ``u.moved`` keeps the memo of a function that reads only the terrain.

What a change may touch is a *token*: ``("unit", field)``, ``("side", field)``,
``("hex", field)``, ``("game", field)``, ``POSITIONS`` (a unit's hex or life: the built-ins
``move``, ``remove_unit``, ``set_aside``), ``EVENT`` (an event's arguments rewritten by a
``before`` trigger, or the event replaced) and ``ANY`` (anything: a list changed in place,
a win). A change may touch :class:`Several` tokens: ``begin_turn`` sets ``game.turn`` and
``game.active``. ``LISTS`` is a list changed in place (``push``, ``pop``, ``remove``,
``shuffle``): only functions that read a field, option, table or event that may hold a list
forget then (:class:`_ListReads`). A definition's field (``h.terrain.closed_to``) reads
``DEFINITION_LISTS`` instead: definitions are never set, so their lists change only when the
list changed in place is one of them, which the built-in sees (:meth:`Memo.list_changer`). A function whose reads cannot be known (a field read on a value of
type ``any``, a function value passed on, a built-in this module does not know) reads
``ANY``: every change forgets it. The memos live only while the rules run (``Game.guarded``),
so Python changing the state between two calls is never answered from a stale memo.
"""

from __future__ import annotations

import dataclasses
import weakref
from operator import itemgetter
from typing import Callable, Iterable

from hexlore.compiler import ir
from hexlore.compiler import builtins as records
from hexlore.compiler.builtins import ANYTHING as ANY, BUILTINS, LISTS, POSITIONS, PURE, named
from hexlore.compiler.model import RuleSet
from hexlore.compiler.types import FN

EVENT = "event"
DEFINITION_LISTS = "definition lists"
Token = object

# What the built-ins read and change, from their records (hexlore/compiler/builtins.py): a
# wrong fact there gives wrong memoised answers; a built-in not known there reads ANY.
#: pure built-ins whose answer depends on where the units stand (and whether they live)
_READ_POSITIONS = named(lambda b: b.reads == records.READS_POSITIONS)
#: pure built-ins whose answer depends on their arguments and the (immutable) board only
_READ_NOTHING = named(lambda b: b.reads == records.READS_NOTHING)
#: built-ins answering only whether their hex argument is occupied
_OCCUPANCY_TESTS = named(lambda b: b.occupancy_test)


class Several(tuple):
    """Tokens a change touches all at once (a built-in that sets two fields)."""


def _change_of(b: records.Builtin) -> Token:
    """The token a call of effect built-in ``b`` touches (ANY if its record says nothing)."""
    if not b.writes:
        return ANY
    return b.writes[0] if len(b.writes) == 1 else Several(b.writes)


#: what each effect built-in may change (a list changed in place is LISTS, see _ListReads)
_CHANGES = {name: _change_of(b) for name, b in BUILTINS.items() if b.effect != PURE}

#: types whose values may be (or, from a scenario's YAML, hold) a list changed in place
_LIST_TYPES = frozenset({"list", "any", "text"})

#: fields every unit, side or hex has, kept by the runtime (not in the fields dicts)
_CONSTANT_FIELDS = {"unit": {"id", "type", "side", "title"}, "side": {"name", "edge"},
                    "hex": {"q", "r", "label"}}


def field_token(owner: str, name: str) -> Token | None:
    """What reading (or setting) ``owner.name`` depends on; None for constants."""
    if owner in ("def", "face") or name in _CONSTANT_FIELDS.get(owner, ()):
        return None
    if owner == "unit" and name in ("hex", "alive"):
        return POSITIONS
    if owner in ("unit", "side", "hex", "game"):
        return (owner, name)
    if owner == "event":
        return EVENT
    return ANY


def effect_token(builtin: str) -> Token | None:
    """What a built-in changes: None for a pure one."""
    spec = BUILTINS.get(builtin)
    if spec is not None and spec.effect == PURE:
        return None
    return _CHANGES.get(builtin, ANY)


def _children(node) -> Iterable:
    for f in dataclasses.fields(node):
        value = getattr(node, f.name)
        if isinstance(value, tuple):
            yield from _flatten(value)
        elif isinstance(value, (ir.X, ir.S)):
            yield value


def _flatten(items: tuple) -> Iterable:
    for item in items:
        if isinstance(item, tuple):
            yield from _flatten(item)
        elif isinstance(item, (ir.X, ir.S)):
            yield item


class _ListReads:
    """Which reads may reach a list that push, pop, remove or shuffle can change in place.

    A memoised function sees a list only through what it reads: a field, an option, a table
    entry or an event argument whose type may hold one (its arguments cannot be lists: a list
    cannot key a memo; built-ins make new lists). A function that reads none of them does not
    forget when a list changes (:data:`LISTS`): the lists procedures collect into are theirs.
    """

    def __init__(self, rules: RuleSet):
        def may_hold(t) -> bool:
            return t is None or t.name in _LIST_TYPES

        self.fields = {(owner, name) for owner, kind in rules.kinds.items() if owner in _OWNERS
                       for name, f in kind.fields.items() if may_hold(f.type)}
        # a definition's field is read as owner "def": any kind may have declared it
        self.def_fields = {name for kind in rules.kinds.values() for name, f in kind.fields.items()
                           if may_hold(f.type)}
        self.options = {name for name, o in rules.options.items() if may_hold(o.type)}
        self.tables = {name for name, t in rules.tables.items() if may_hold(t.value_type)}

    def __call__(self, node: ir.X) -> Token | None:
        """What reading ``node`` (a field, an option, a table entry) reads of lists changed in
        place: :data:`LISTS`, :data:`DEFINITION_LISTS` (a definition's field: the definition's
        own list), or None (no list)."""
        cls = node.__class__
        if cls is ir.GetField:
            if node.owner == "def":
                return DEFINITION_LISTS if node.name in self.def_fields else None
            if node.owner in _OWNERS:
                return LISTS if (node.owner, node.name) in self.fields else None
            # an event's argument, a value of type any; faces hold none
            return LISTS if node.owner != "face" else None
        if cls is ir.OptionRef:
            return LISTS if node.name in self.options else None
        if cls is ir.TableGet:
            return LISTS if node.table in self.tables else None
        return None


_OWNERS = ("unit", "side", "hex", "game")


def _direct(body: ir.X, holds_list: _ListReads) -> tuple[set, set[str]]:
    """Tokens a body reads itself, and the functions it calls or names."""
    tokens: set = set()
    calls: set[str] = set()
    stack = [body]
    while stack:
        node = stack.pop()
        list_token = holds_list(node)
        if list_token is not None:
            tokens.add(list_token)
        if isinstance(node, ir.GetField):
            token = field_token(node.owner, node.name)
            if token is not None:
                tokens.add(token)
        elif isinstance(node, (ir.CallFunction, ir.FunctionRef)):
            calls.add(node.name)
        elif isinstance(node, ir.CallBuiltin):
            spec = BUILTINS.get(node.name)
            if node.name in _READ_POSITIONS:
                tokens.add(POSITIONS)
            elif node.name not in _READ_NOTHING or spec is None:
                tokens.add(ANY)
            if spec is not None:
                for (_, ptype), arg in zip(spec.params, node.args):
                    if ptype == FN and not isinstance(arg, ir.FunctionRef) \
                            and not (isinstance(arg, ir.Const) and arg.value is None):
                        tokens.add(ANY)  # a function value: which one is known only at run time
        elif isinstance(node, (ir.CallProcedure, ir.Emit, ir.Choose, ir.Ask)):
            tokens.add(ANY)  # never in a function (the compiler refuses them); be safe anyway
        stack.extend(_children(node))
    return tokens, calls


def _analyse(rules: RuleSet) -> dict[str, frozenset]:
    holds_list = _ListReads(rules)
    direct = {name: _direct(spec.body, holds_list) for name, spec in rules.functions.items()}
    reads: dict[str, frozenset] = {}
    for name in direct:
        seen, todo, tokens = {name}, [name], set()
        while todo:
            f = todo.pop()
            if f not in direct:
                tokens.add(ANY)
                continue
            own, calls = direct[f]
            tokens |= own
            for callee in calls - seen:
                seen.add(callee)
                todo.append(callee)
        reads[name] = frozenset(tokens)
    return reads


_ANALYSED: dict[int, tuple[weakref.ref, dict[str, frozenset]]] = {}


def positions_at_own_hex(rules: RuleSet, name: str) -> bool:
    """Does function ``name``, of a unit and a hex ``h``, read where the units stand only as
    ``occupied(h)``, and nothing at all of which the memo does not know what it reads? Then,
    on a hex nobody stands on, its answer cannot change when units move (h stays free) and a
    search may keep it across moves; on an occupied hex it must be asked again each time.
    A step cost "-1 if occupied(h) else 1" is one."""
    spec = rules.functions.get(name)
    if spec is None or len(spec.params) != 2 or spec.params[1].type is None or spec.params[1].type.name != "hex":
        return False
    own = ir.Local(spec.params[1].name)
    reads = function_reads(rules)
    for node in _walk(spec.body):
        cls = node.__class__
        if cls is ir.Aggregate and node.var == own.name:
            return False  # the name means another value inside
        if cls is ir.GetField and field_token(node.owner, node.name) in (POSITIONS, ANY):
            return False
        if cls in (ir.CallFunction, ir.FunctionRef) and reads.get(node.name, {ANY}) & {POSITIONS, ANY}:
            return False
        if cls is ir.CallBuiltin:
            if node.name in _READ_POSITIONS:
                if node.name not in _OCCUPANCY_TESTS or node.args != (own,):
                    return False
            elif node.name not in _READ_NOTHING or BUILTINS.get(node.name) is None:
                return False
            else:
                spec_b = BUILTINS[node.name]
                for (_, ptype), arg in zip(spec_b.params, node.args):
                    if ptype == FN and not isinstance(arg, ir.FunctionRef) \
                            and not (isinstance(arg, ir.Const) and arg.value is None):
                        return False
        if cls in (ir.CallProcedure, ir.Emit, ir.Choose, ir.Ask):
            return False
    return True


def function_reads(rules: RuleSet) -> dict[str, frozenset]:
    """Tokens each function of the rules may read (itself and through what it calls); computed
    once per rule set."""
    return _cached(_ANALYSED, rules, _analyse)


#: a key that says "do not memoise this call"; and what a memo answers when it has no entry
SKIP = object()
MISS = object()

#: Python's numbers are equal across classes (True == 1 == 1.0) while a function may answer
#: differently for them (text(true) is not text(1)), so a memo must never answer a call with
#: an entry made for an equal number of another class. Not memoising a call is always safe;
#: the plan below memoises only calls whose key cannot meet such a number:
#: * an ``int`` (``bool``) parameter is looked up only when its argument is exactly an int (a
#:   bool): every key there is of that one class;
#: * an ``any`` parameter is looked up only when its argument is not a number;
#: * any other parameter (unit, hex, side, text, tag…) holds no number when the program is
#:   well typed; an ill-typed number there is looked up (it can only miss: no key holds a
#:   number there) but its result is not kept.
NUMBERS = _NUMBERS = frozenset({bool, int, float})
_EXACT = {"int": int, "bool": bool}


#: a function whose memo answers fewer than one look-up in TRIAL_RATIO after TRIAL misses is
#: no longer memoised in that game: its look-ups cost more than they save
TRIAL = 64
TRIAL_RATIO = 5
#: the trial of a cheap function memoised for searches (:meth:`Memo.search_plan`): longer,
#: as its first search asks every hex once (all misses) and only later searches are answered
SEARCH_TRIAL = 1024


class Plan:
    """How one function is memoised in one game: its memo, the key of a call from its argument
    list (the arguments the body reads; :data:`SKIP`: not memoised), whether an answer may be
    kept, and how often the memo answered (``active`` turns off when it seldom does)."""

    __slots__ = ("table", "key", "storable", "hits", "misses", "active", "trial", "filled", "noted")

    def __init__(self, table: dict, key: Callable[[list], object], storable: Callable[[list], bool] | None,
                 trial: int = TRIAL, filled: list | None = None):
        self.table = table
        self.key = key
        self.storable = storable  # None: always
        self.hits = 0
        self.misses = 0
        self.active = True
        self.trial = trial  # misses before the memo is judged
        #: the memo's plans whose table may hold entries (Memo.clear empties only those)
        self.filled = filled if filled is not None else []
        self.noted = False

    def missed(self) -> None:
        """Count a miss (after which the table may hold an entry); stop memoising a function
        whose memo seldom answers."""
        self.misses += 1
        if not self.noted:
            self.noted = True
            self.filled.append(self)
        if self.misses >= self.trial and self.hits * TRIAL_RATIO < self.misses:
            self.active = False


def _make_plan(table: dict, shape: tuple, trial: int = TRIAL, filled: list | None = None) -> Plan:
    positions, exact, unknown, objects, arity = shape
    if not positions:
        key = _no_key
    elif len(positions) == 1:
        key = itemgetter(positions[0])  # the argument itself: no tuple to build and hash
    elif positions == tuple(range(arity)):
        key = tuple
    else:
        key = itemgetter(*positions)
    if exact or unknown:
        get = key
        if len(exact) == 1 and not unknown:
            (i, cls), = exact

            def key(values):
                return get(values) if values[i].__class__ is cls else SKIP
        else:
            def key(values):
                for i, cls in exact:
                    if values[i].__class__ is not cls:
                        return SKIP
                for i in unknown:
                    if values[i].__class__ in _NUMBERS:
                        return SKIP
                return get(values)
    if not objects:
        return Plan(table, key, None, trial, filled)

    def storable(values):
        for i in objects:
            if values[i].__class__ in _NUMBERS:
                return False
        return True
    return Plan(table, key, storable, trial, filled)


#: built-ins that cost about what a memo look-up costs: a function that calls only these (and
#: aggregates nothing) is cheaper to evaluate again than to look up
_CHEAP = named(lambda b: b.cheap)


def _shapes(rules: RuleSet) -> dict[str, tuple]:
    """Per function: the positions of the arguments in the key of its memo, and which of them
    are ints or bools, of type any, or of another type (see :class:`Plan`)."""
    shapes: dict[str, tuple] = {}
    for name, spec in rules.functions.items():
        used = {node.name for node in _walk(spec.body) if isinstance(node, ir.Local)}
        # an argument the body never reads cannot change the result: it is left out of the key
        read = [(i, p.type.name) for i, p in enumerate(spec.params) if p.name in used]
        shapes[name] = (tuple(i for i, _ in read),
                        tuple((i, _EXACT[t]) for i, t in read if t in _EXACT),
                        tuple(i for i, t in read if t == "any"),
                        tuple(i for i, t in read if t not in _EXACT and t != "any"),
                        len(spec.params))
    return shapes


def _plans(rules: RuleSet) -> dict[str, tuple | None]:
    """Per function: None if not worth memoising (see :func:`_costly`), else its shape (see
    :func:`_shapes`)."""
    costly = _costly(rules)
    shapes = _cached(_ANALYSED_SHAPES, rules, _shapes)
    return {name: shape if costly[name] else None for name, shape in shapes.items()}


def _walk(body) -> Iterable:
    stack = [body]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(_children(node))


#: IR nodes from which evaluating a function (the functions it calls included) costs more
#: than looking its answer up: ``level(a) - level(b)`` compared twice is past it, ``u.hp + 1``
#: is not
LARGE_BODY = 40


def _costly(rules: RuleSet) -> dict[str, bool]:
    """Functions worth memoising: those that aggregate a list, call a built-in that is not
    :data:`_CHEAP` (a list of units, a search, a line of sight…) or call such a function, and
    those whose evaluation walks :data:`LARGE_BODY` nodes or more."""
    own: dict[str, bool] = {}
    calls: dict[str, set[str]] = {}
    for name, spec in rules.functions.items():
        own[name], calls[name] = False, set()
        for node in _walk(spec.body):
            if isinstance(node, ir.Aggregate) or (isinstance(node, ir.CallBuiltin) and node.name not in _CHEAP):
                own[name] = True
            elif isinstance(node, ir.CallFunction):
                calls[name].add(node.name)
    sizes: dict[str, int] = {}

    def size(name: str, seen: frozenset) -> int:
        """IR nodes a call of ``name`` evaluates at most, the functions it calls included (a
        recursive one counts as large)."""
        if name in sizes:
            return sizes[name]
        if name in seen or name not in rules.functions:
            return LARGE_BODY
        total = 0
        for node in _walk(rules.functions[name].body):
            total += 1
            if isinstance(node, ir.CallFunction):
                total += size(node.name, seen | {name})
            if total >= LARGE_BODY:
                break
        sizes[name] = total = min(total, LARGE_BODY)
        return total

    # a body of many nodes (several small functions calling each other) costs more than a look-up
    costly = {name: own[name] or size(name, frozenset()) >= LARGE_BODY for name in own}
    changed = True
    while changed:  # what a costly function's callers inherit, to a fixed point (recursion ends)
        changed = False
        for name, callees in calls.items():
            if not costly[name] and any(costly.get(c, True) for c in callees):
                costly[name] = changed = True
    return costly


#: built-ins whose every answer is a list made for that call (never one the state or a cache
#: of the runtime holds)
_NEW_LISTS = named(lambda b: b.new_list)


class KeptList(tuple):
    """A list answer kept in a memo. Each caller must get a list of its own (a procedure may
    push to it), so the memo keeps the items and answers with a new list of them."""

    __slots__ = ()


def _new_lists(rules: RuleSet) -> frozenset[str]:
    """Functions whose every answer is a new list whose items hold no list (a list of units,
    of hexes…): their memo may keep an answer as a :class:`KeptList`. A function answering a
    list that something else holds (a field's, an option's) is not one: a copy would not be
    the list its caller may change."""
    candidates = {name: spec for name, spec in rules.functions.items()
                  if spec.returns is not None and spec.returns.name == "list" and spec.returns.item is not None
                  and spec.returns.item.name not in _LIST_TYPES}
    verdict: dict[str, bool] = {}

    def new(node: ir.X, seen: frozenset) -> bool:
        cls = node.__class__
        if cls is ir.Aggregate:
            return node.func == "list"
        if cls is ir.MakeList:
            return True
        if cls is ir.Conditional:
            return all(new(branch, seen) or (branch.__class__ is ir.Const and branch.value is None)
                       for branch in (node.then, node.otherwise))
        if cls is ir.CallBuiltin:
            return node.name in _NEW_LISTS
        if cls is ir.CallFunction:
            return function_new(node.name, seen)
        return False

    def function_new(name: str, seen: frozenset) -> bool:
        if name in verdict:
            return verdict[name]
        if name in seen or name not in candidates:
            return False
        verdict[name] = answer = new(candidates[name].body, seen | {name})
        return answer

    return frozenset(name for name in candidates if function_new(name, frozenset()))


def new_lists(rules: RuleSet) -> frozenset[str]:
    """Functions whose memo keeps list answers (see :func:`_new_lists`); once per rule set."""
    return _cached(_ANALYSED_NEW_LISTS, rules, _new_lists)


_ANALYSED_NEW_LISTS: dict[int, tuple[weakref.ref, frozenset]] = {}
_ANALYSED_PLANS: dict[int, tuple[weakref.ref, dict]] = {}
_ANALYSED_SHAPES: dict[int, tuple[weakref.ref, dict]] = {}


def memo_shapes(rules: RuleSet) -> dict[str, tuple | None]:
    """Per function: the shape of its memo's key (see :func:`_shapes`), or None when calls of
    it are not memoised; the same for every game of the rules (compiled code is built on it)."""
    return _cached(_ANALYSED_PLANS, rules, _plans)


def per_rule_set(cache: dict, rules: RuleSet, compute):
    """``compute(rules)``, kept in ``cache`` while ``rules`` lives."""
    return _cached(cache, rules, compute)


def _cached(cache: dict, rules: RuleSet, compute):
    entry = cache.get(id(rules))
    if entry is not None and entry[0]() is rules:
        return entry[1]
    value = compute(rules)
    key = id(rules)
    cache[key] = (weakref.ref(rules, lambda _, key=key: cache.pop(key, None)), value)
    return value


def _no_key(values: list) -> tuple:
    return ()


class Memo:
    """One game's memos: a dict per function, a dict per kind of built-in search (see
    :meth:`table`), and who forgets what."""

    def __init__(self, rules: RuleSet):
        self._rules = rules
        self.reads = function_reads(rules)
        self._plans = _cached(_ANALYSED_PLANS, rules, _plans)
        self.tables: dict[str, dict] = {name: {} for name in self.reads}
        # what reads what: each function's memo, then the tables made later
        self._readers: list[tuple[frozenset, Callable[[], None]]] = [
            (self.reads[name], table.clear) for name, table in self.tables.items()]
        self._clears: dict[Token, list[Callable[[], None]]] = {}  # per token asked for
        self._extra: dict[tuple, dict] = {}
        self._filled: list[Plan] = []  # plans whose table may hold entries
        self._made: dict[str, Plan | None] = {}
        self._made_for_searches: dict[str, Plan] = {}
        self.on = False  # set by Game.guarded: memos are used (and kept) only while rules run

    def plan(self, name: str) -> Plan | None:
        """How calls of function ``name`` are memoised, or None if they are not."""
        if name in self._made:
            return self._made[name]
        shape = self._plans.get(name)
        plan = None if shape is None else _make_plan(self.tables[name], shape, filled=self._filled)
        self._made[name] = plan
        return plan

    def search_plan(self, name: str) -> Plan:
        """How a built-in's search (a move, a line of sight) memoises its calls of function
        ``name``: as :meth:`plan` does when the function is worth memoising, else with a plan of
        its own on the function's memo. A search asks the same cheap callback (a step's cost,
        a hex's test) with the same arguments search after search, and one look-up costs less
        than evaluating even a cheap body; Lore calls of a cheap function stay unmemoised."""
        plan = self.plan(name)
        if plan is not None:
            return plan
        plan = self._made_for_searches.get(name)
        if plan is None:
            shape = _cached(_ANALYSED_SHAPES, self._rules, _shapes)[name]
            plan = self._made_for_searches[name] = _make_plan(self.tables[name], shape, SEARCH_TRIAL, self._filled)
        return plan

    def search_shape(self, name: str) -> tuple:
        """The key shape of function ``name``'s memo for searches (see :func:`_shapes`)."""
        return _cached(_ANALYSED_SHAPES, self._rules, _shapes)[name]

    def table(self, kind: str, functions: tuple[str, ...], positions: bool = True,
              positions_kept: bool = False) -> dict:
        """A memo for a built-in that reads where the units stand and calls ``functions`` (a
        movement search): forgotten when a unit moves or when what the functions read changes.
        ``positions`` false: the built-in itself does not read where the units stand (answers
        of the functions alone), so only what the functions read forgets it. ``positions_kept``:
        not forgotten when a unit moves even if the functions read where units stand; the
        caller keeps only answers a move cannot change (see :func:`positions_at_own_hex`).
        """
        key = (kind, functions, positions, positions_kept)
        table = self._extra.get(key)
        if table is None:
            reads = {POSITIONS} if positions else set()
            for name in functions:
                reads |= self.reads.get(name, {ANY})
            if positions_kept:
                reads.discard(POSITIONS)
            table = self._extra[key] = {}
            reads = frozenset(reads)
            self._readers.append((reads, table.clear))
            for token, clears in self._clears.items():
                if _touches(token, reads):
                    clears.append(table.clear)
        return table

    def clear(self) -> None:
        """Forget everything: the tables that may hold entries, not all of them."""
        for plan in self._filled:
            plan.table.clear()
            plan.noted = False
        self._filled.clear()
        for table in self._extra.values():
            table.clear()

    def list_changer(self, impl: Callable, definition_lists: set[int]) -> Callable:
        """Built-in ``impl`` (push, pop, remove, shuffle: its first argument is the list it
        changes in place) forgetting first what reads lists: :data:`LISTS` always, and
        :data:`DEFINITION_LISTS` when the list is one a definition holds (``definition_lists``:
        their ids, kept while the definitions live), which a list put in a field or an event
        may still be."""
        forget_lists = self.forgetter(LISTS)
        forget_definitions = self.forgetter(DEFINITION_LISTS)

        def changing(items, *args):
            forget_lists()
            if id(items) in definition_lists:
                forget_definitions()
            return impl(items, *args)
        return changing

    def forgetter(self, token: Token | None) -> Callable[[], None] | None:
        """What to call when something ``token`` names changes (None: nothing to forget)."""
        if token is None:
            return None
        if token == ANY or (token.__class__ is Several and ANY in token):
            return self.clear
        clears = self._clears.get(token)
        if clears is None:
            clears = self._clears[token] = [clear for reads, clear in self._readers if _touches(token, reads)]

        def forget():
            for clear in clears:
                clear()
        return forget


def _touches(token: Token, reads: frozenset) -> bool:
    """Does a change of ``token`` (or of each of :class:`Several`) touch what ``reads`` names?"""
    if ANY in reads:
        return True
    if token.__class__ is Several:
        return any(t in reads for t in token)
    return token in reads

