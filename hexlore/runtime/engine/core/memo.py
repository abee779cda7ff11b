"""Memoised calls of pure functions, forgotten exactly when what they read changes.

Each function gets its own memo in each game, and a change of the game empties the memos of
the functions that may read what changed, and no others: setting ``u.moved`` keeps the memo
of a function that reads only the terrain. What each function may read, and how its memo is
keyed, is known before the game starts: the compiler's analyses of the rule set
(:mod:`hexlore.compiler.memo_plan`, which also says what a *token* is) decide it once per rule
set; this module holds one game's tables and who clears them.

A built-in changing lists in place (``push``, ``pop``, ``remove``, ``shuffle``) forgets
``LISTS``, and ``DEFINITION_LISTS`` when the list is a definition's, which the built-in sees
(:meth:`Memo.list_changer`). The memos live only while the rules run (``Game.guarded``), so
Python changing the state between two calls is never answered from a stale memo.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Callable, cast

from hexlore.compiler.memo_plan import ANY, DEFINITION_LISTS, LISTS, POSITIONS, Several, Token, memo_plan
from hexlore.compiler.model import RuleSet

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
    key: Callable[[list], object]
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


class KeptList(tuple):
    """A list answer kept in a memo. Each caller must get a list of its own (a procedure may
    push to it), so the memo keeps the items and answers with a new list of them."""

    __slots__ = ()


def _no_key(values: list) -> tuple:
    return ()


class Memo:
    """One game's memos: a dict per function, a dict per kind of built-in search (see
    :meth:`table`), and who forgets what."""

    def __init__(self, rules: RuleSet):
        analysed = memo_plan(rules)
        self.reads = analysed.reads
        self._plans = analysed.plans
        self._shapes = analysed.shapes
        self.tables: dict[str, dict] = {name: {} for name in self.reads}
        # what reads what: each function's memo, then the tables made later
        self._readers: list[tuple[frozenset, Callable[[], None]]] = [
            (self.reads[name], table.clear) for name, table in self.tables.items()]
        self._clears: dict[Token, list[Callable[[], None]]] = {}  # per token asked for
        self._extra: dict[tuple, dict] = {}
        self._filled: list[Plan] = []  # plans whose table may hold entries
        self._made: dict[str, Plan | None] = {}
        self._made_for_searches: dict[str, Plan] = {}
        #: what changed since :meth:`mark`: the tokens forgotten, and whether everything was
        self._touched: set = set()
        self._everything = False
        self._marks = 0
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
            shape = self._shapes[name]
            plan = self._made_for_searches[name] = _make_plan(self.tables[name], shape, SEARCH_TRIAL, self._filled)
        return plan

    def search_shape(self, name: str) -> tuple:
        """The key shape of function ``name``'s memo for searches (see
        :func:`hexlore.compiler.memo_plan.search_shapes`)."""
        return self._shapes[name]

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
            found: set[Token] = {POSITIONS} if positions else set()
            for name in functions:
                found |= self.reads.get(name, {ANY})
            if positions_kept:
                found.discard(POSITIONS)
            table = self._extra[key] = {}
            reads = frozenset(found)
            self._readers.append((reads, table.clear))
            for token, clears in self._clears.items():
                if _touches(token, reads):
                    clears.append(table.clear)
        return table

    def clear(self) -> None:
        """Forget everything: the tables that may hold entries, not all of them."""
        self._everything = True
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
        # tokens, never None: each has a forgetter
        forget_lists = cast(Callable[[], None], self.forgetter(LISTS))
        forget_definitions = cast(Callable[[], None], self.forgetter(DEFINITION_LISTS))

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

        touched = self._touched

        def forget():
            touched.add(token)
            for clear in clears:
                clear()
        return forget

    def mark(self) -> int:
        """Start noting what changes, for :meth:`back`: a game forked here and put back later
        (a search's futures, each played from one point) keeps what the memo knew then."""
        self._marks += 1
        self._touched.clear()
        self._everything = False
        return self._marks

    def back(self, mark: int) -> None:
        """The game is back where it stood at ``mark`` (its changes undone, none forgotten):
        forget what reads anything changed since, and keep the rest, which was worked out
        while what it reads stood as it stands again. Why: a search plays hundreds of futures
        from one point, and each used to start with an empty memo, working out again the
        step costs, unit lists and rules' answers that no future had changed. A mark that is
        not the last one taken forgets everything (the changes since it are not known)."""
        if mark != self._marks or self._everything:
            self.clear()
        else:
            for token in list(self._touched):
                forget = self.forgetter(token)
                if forget is not None:
                    forget()
        self._touched.clear()
        self._everything = False


def _touches(token: Token, reads: frozenset) -> bool:
    """Does a change of ``token`` (or of each of :class:`Several`) touch what ``reads`` names?"""
    if ANY in reads:
        return True
    if token.__class__ is Several:
        return any(t in reads for t in token)
    return token in reads

