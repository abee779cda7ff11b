"""What the memo of a rule set's pure functions may key on and must forget: its analyses.

This is the compiler's half of the memo (the runtime's half, the per-game tables and who
clears them, is :mod:`hexlore.runtime.engine.core.memo`). Everything here is read from the IR of a
finished :class:`~hexlore.compiler.model.RuleSet`, once per rule set (:func:`memo_plan`,
cached on the rule set), and is the same for every game of it; the code generator
(:mod:`hexlore.compiler.backend`) writes the memoised entries of the functions from it.

A Lore function cannot change the game (the compiler refuses effects, dice, decisions and
events in it), so its result depends only on its arguments and on the state it reads. What a
function may read is known before the game starts: the IR of its body (and of every function
it calls or hands to a built-in) names the fields it reads, and the built-ins it calls say
whether they look at where the units stand.

What a change may touch is a *token*: ``("unit", field)``, ``("side", field)``,
``("hex", field)``, ``("game", field)``, ``POSITIONS`` (a unit's hex or life: the built-ins
``move``, ``remove_unit``, ``set_aside``), ``EVENT`` (an event's arguments rewritten by a
``before`` trigger, or the event replaced) and ``ANY`` (anything: a list changed in place,
a win). A change may touch :class:`Several` tokens: ``begin_turn`` sets ``game.turn`` and
``game.active``. ``LISTS`` is a list changed in place (``push``, ``pop``, ``remove``,
``shuffle``): only functions that read a field, option, table or event that may hold a list
forget then (:class:`_ListReads`). A definition's field (``h.terrain.closed_to``) reads
``DEFINITION_LISTS`` instead: definitions are never set, so their lists change only when the
list changed in place is one of them. A function whose reads cannot be known (a field read on
a value of type ``any``, a function value passed on, a built-in this module does not know)
reads ``ANY``: every change forgets it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Iterable

from hexlore.compiler import ir
from hexlore.compiler import builtins as records
from hexlore.compiler.builtins import ANYTHING as ANY, BUILTINS, LISTS, POSITIONS, PURE, named
from hexlore.compiler.model import RuleSet
from hexlore.compiler.types import FN

__all__ = ["ANY", "LISTS", "POSITIONS", "EVENT", "DEFINITION_LISTS", "Several", "Token", "MemoPlan", "memo_plan",
           "field_token", "effect_token", "function_reads", "memo_shapes", "search_shapes", "new_lists",
           "positions_at_own_hex"]

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
        if isinstance(node, ir.GetField):
            if node.owner == "def":
                return DEFINITION_LISTS if node.name in self.def_fields else None
            if node.owner in _OWNERS:
                return LISTS if (node.owner, node.name) in self.fields else None
            # an event's argument, a value of type any; faces hold none
            return LISTS if node.owner != "face" else None
        if isinstance(node, ir.OptionRef):
            return LISTS if node.name in self.options else None
        if isinstance(node, ir.TableGet):
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


_EXACT = {"int": int, "bool": bool}

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
        if isinstance(node, ir.Aggregate):
            return node.func == "list"
        if isinstance(node, ir.MakeList):
            return True
        if isinstance(node, ir.Conditional):
            return all(new(branch, seen) or (isinstance(branch, ir.Const) and branch.value is None)
                       for branch in (node.then, node.otherwise))
        if isinstance(node, ir.CallBuiltin):
            return node.name in _NEW_LISTS
        if isinstance(node, ir.CallFunction):
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

@dataclass(frozen=True)
class MemoPlan:
    """The memo's analyses of one rule set (see the module's docstring)."""

    #: function -> the tokens it may read (itself and through what it calls)
    reads: dict[str, frozenset]
    #: function -> the shape of its memo's key (see :func:`_shapes`), for every function
    shapes: dict[str, tuple]
    #: function -> its shape when calls of it are memoised (see :func:`_costly`), else None
    plans: dict[str, tuple | None]
    #: functions whose memo may keep list answers (see :func:`_new_lists`)
    new_lists: frozenset[str]


def _make_plan(rules: RuleSet) -> MemoPlan:
    shapes = _shapes(rules)
    costly = _costly(rules)
    return MemoPlan(_analyse(rules), shapes, {name: shape if costly[name] else None for name, shape in shapes.items()},
                    _new_lists(rules))


def memo_plan(rules: RuleSet) -> MemoPlan:
    """The memo's analyses of ``rules``, made once and kept on the rule set."""
    return rules.derived("memo plan", _make_plan)


def function_reads(rules: RuleSet) -> dict[str, frozenset]:
    """Tokens each function of the rules may read (itself and through what it calls)."""
    return memo_plan(rules).reads


def memo_shapes(rules: RuleSet) -> dict[str, tuple | None]:
    """Per function: the shape of its memo's key (see :func:`_shapes`), or None when calls of
    it are not memoised; the same for every game of the rules (compiled code is built on it)."""
    return memo_plan(rules).plans


def search_shapes(rules: RuleSet) -> dict[str, tuple]:
    """Per function: the shape of its memo's key for a built-in's search, which memoises even
    a cheap function (see :func:`_shapes`)."""
    return memo_plan(rules).shapes


def new_lists(rules: RuleSet) -> frozenset[str]:
    """Functions whose memo keeps list answers (see :func:`_new_lists`)."""
    return memo_plan(rules).new_lists
