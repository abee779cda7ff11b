"""Movement on a hex board: cheapest-path searches, teleports, forced moves and retreats.

Every rule about *what* a step costs, where a move must stop, which hexes a unit may pass
through or end on and which hexes an enemy controls comes from callbacks: in a game they are
Lore functions named by the pack (see ``hexlore/runtime/engine/builtins/``), so the runtime only
knows the shape of the search, never a game's numbers. All arithmetic is on integers; every
result is deterministic (same board, same callbacks, same answer, on any machine).

Three families of primitives live here.

* **Searches** (:func:`search`, :func:`reachable`): Dijkstra over the hexes a unit can reach
  with a budget of movement points. A step costs ``enter_cost(from, to)`` plus, once, the
  obstacle surcharge when ``obstacle(from, to)`` holds (obstacles never stack: a hex that is
  an obstacle *and* is entered across an obstacle still costs one surcharge). Entering a hex
  with ``stops(h)`` ends the move; hexes with ``can_end(h)`` false (occupied by a unit that
  may be passed through) are crossed but never ended on. Zones of control follow one of
  :data:`ZOC_MODES`. Every hex comes back with its cheapest path: fewest points spent, then
  (when a zone of control took the points left) the cheapest steps, then the path whose
  hexes, compared as ``(r, q)`` pairs from the first step, sort lowest.
* **Teleport** (:func:`teleport_options`, in :mod:`hexlore.runtime.geometry.forced` like the
  forced moves, re-exported here): any hex within a distance that the pack lets the
  unit land on; paths, terrain and units in between do not matter.
* **Forced moves** (:func:`forced_options`, :func:`forced_paths`): a count of hexes (not
  points) spent one step at a time, where a *rank* says which neighbours a step may enter
  and which of them are preferred: :func:`away_rank` (move away from a source, farthest hex
  each step, sliding along the board's rim when the rim is reached), :func:`edge_rank`
  (toward a side's own edge row) and :func:`directional_rank` (straight away from a source,
  else obliquely away). When several hexes tie, all are returned so a decision or policy
  picks; when none is possible the move is blocked and the count left over is the rules'
  business (:attr:`ForcedPath.missing`).

:func:`move_events` lists what a move along a path emits: entering each hex, then stopping on
the last one.
"""

from __future__ import annotations

import heapq
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, cast

from hexlore.runtime.geometry.forced import (ForcedPath, Rank, away_rank, directional_rank, edge_rank,
                                              forced_ends, forced_options, forced_paths, on_rim, teleport_options)
from hexlore.runtime.geometry.grid import Board, Hex

__all__ = [
    "ZOC_NONE",
    "ZOC_STOP",
    "ZOC_FORBID",
    "ZOC_ENTER",
    "ZOC_MODES",
    "ENTER",
    "STOP",
    "MoveRules",
    "HexAnswers",
    "UNASKED",
    "BoardIndex",
    "board_index",
    "Route",
    "search",
    "search_simple",
    "end_hexes",
    "reachable",
    "move_events",
    "teleport_options",
    "Rank",
    "ForcedPath",
    "forced_options",
    "forced_paths",
    "forced_ends",
    "away_rank",
    "edge_rank",
    "directional_rank",
    "on_rim",
]

StepCost = Callable[[Hex, Hex], "int | None"]
StepTest = Callable[[Hex, Hex], bool]
HexTest = Callable[[Hex], bool]

#: Zones of control are ignored.
ZOC_NONE = "none"
#: Leaving a controlled hex for another controlled hex is allowed but ends the move and uses
#: every point left (seed 004: "utilise tous les points d'actions"): the route costs the budget.
ZOC_STOP = "stop"
#: Leaving a controlled hex for another controlled hex is not allowed at all.
ZOC_FORBID = "forbid"
#: Entering any controlled hex ends the move (the points left are kept).
ZOC_ENTER = "enter"
ZOC_MODES: tuple[str, ...] = (ZOC_NONE, ZOC_STOP, ZOC_FORBID, ZOC_ENTER)

#: Kinds of the events a move emits (seed 003, rule 404.4).
ENTER = "enter"
STOP = "stop"


#: an answer a :class:`HexAnswers` list does not hold yet
UNASKED = object()


class HexAnswers:
    """One question about the hexes (a step's cost, "does the move stop there") answered by hex
    number in board order (:func:`board_index`): ``known[i]`` is the answer for hex ``i`` or
    :data:`UNASKED`, and ``ask(i)`` gives an answer not known yet (the search keeps it in
    ``known``). A search reads a list rather than calling a function per step: a Lore callback
    is far slower than an item of a list, and the caller may keep ``known`` from one search to
    the next while what the callback reads is unchanged."""

    __slots__ = ("known", "ask")

    def __init__(self, known: list, ask: Callable[[int], Any]):
        self.known = known
        self.ask = ask

    def __call__(self, i: int):
        """The answer for hex number ``i`` (asked once, then kept)."""
        known = self.known
        a = known[i]
        if a is UNASKED:
            a = known[i] = self.ask(i)
        return a


@dataclass(frozen=True)
class MoveRules:
    """What the rules say about one unit's move; every field but the numbers is a callback.

    ``enter_cost(frm, to)`` is the non-negative cost of stepping from ``frm`` into ``to``, or
    ``None`` when the unit may not enter ``to`` at all (impassable terrain, a unit it may not
    pass through). ``obstacle(frm, to)`` adds ``obstacle_cost`` once to that step. ``stops(h)``
    ends the move on entering ``h``. ``can_end(h)`` false means ``h`` may be crossed but not
    ended on. ``controlled(h)`` tells whether an enemy controls ``h``; ``zoc`` is one of
    :data:`ZOC_MODES` and says what that does. Missing callbacks mean "never".
    """

    enter_cost: StepCost
    stops: HexTest | None = None
    can_end: HexTest | None = None
    obstacle: StepTest | None = None
    obstacle_cost: int = 1
    controlled: HexTest | None = None
    zoc: str = ZOC_NONE
    #: optional, the same answers by hex number, for a step cost that depends only on the hex
    #: entered and for ``stops``: the fast search then reads lists (``enter_cost`` and ``stops``
    #: must still agree with them: the plain search asks those)
    costs: HexAnswers | None = None
    stop_answers: HexAnswers | None = None

    def __post_init__(self) -> None:
        if self.zoc not in ZOC_MODES:
            raise ValueError(f"zone of control rule must be one of {', '.join(ZOC_MODES)}, got {self.zoc!r}")
        if self.obstacle_cost < 0:
            raise ValueError(f"obstacle cost must be non-negative, got {self.obstacle_cost}")


class Route(NamedTuple):
    """The cheapest way to one hex: points spent (the whole budget when a zone of control
    took the rest), the hexes entered (start excluded), whether the unit may end its move
    there and whether the move is over on arrival. A named tuple (immutable like the frozen
    dataclass it was) because a search makes one per hex it reaches, and a tuple is made
    several times faster (:data:`_new_route`)."""

    cost: int
    path: tuple[Hex, ...]
    can_end: bool
    stopped: bool


#: ``_new_route(Route, (cost, path, can_end, stopped))``: a Route without the Python-level
#: ``__new__`` a named tuple's call goes through
_new_route = tuple.__new__


# ---------------------------------------------------------------------------
# One step
# ---------------------------------------------------------------------------


# Kinds of search state: the move may go on from the hex; it is over there; it is over and
# a zone of control took every point left. A hex can be reached in each way at once (a woods
# hex in an enemy's zone), and only the first kind may be left, so each is its own state.
_GOES_ON, _STOPPED, _SPENT = 0, 1, 2
_KINDS = 3


class _Stepper:
    """Evaluates steps under :class:`MoveRules`, caching per-hex answers for one search.

    Callbacks may be Lore functions, which are far slower than a dict lookup, so each hex is
    asked ``stops``/``can_end``/``controlled`` at most once per search.
    """

    __slots__ = ("rules", "budget", "_answers")

    def __init__(self, rules: MoveRules, budget: int):
        self.rules = rules
        self.budget = budget
        self._answers: dict[tuple[str, Hex], bool] = {}

    def _ask(self, name: str, h: Hex, default: bool) -> bool:
        known = self._answers.get((name, h))
        if known is None:
            test = getattr(self.rules, name)
            known = self._answers[(name, h)] = default if test is None else bool(test(h))
        return known

    def can_end(self, h: Hex) -> bool:
        return self._ask("can_end", h, True)

    def _stops_at(self, h: Hex) -> bool:
        return self._ask("stops", h, False)

    def _controlled(self, h: Hex) -> bool:
        return self._ask("controlled", h, False)

    def step(self, cost: int, frm: Hex, to: Hex) -> tuple[int, int, int] | None:
        """``(new_cost, step_cost, kind)`` of stepping ``frm -> to`` having paid ``cost``.

        ``None`` when the step is not allowed or not affordable. Costs here are what the
        steps cost; ``kind`` is :data:`_GOES_ON`, :data:`_STOPPED` or :data:`_SPENT` (the
        move is over and a zone of control took every point left).
        """
        rules = self.rules
        c = rules.enter_cost(frm, to)
        if c is None:
            return None
        if c < 0:
            raise ValueError(f"negative cost {c} entering {to} from {frm}")
        if rules.obstacle is not None and rules.obstacle(frm, to):
            c += rules.obstacle_cost
        new = cost + c
        if new > self.budget:
            return None
        kind = _STOPPED if self._stops_at(to) else _GOES_ON
        zoc = rules.zoc
        if zoc != ZOC_NONE and self._controlled(to):
            if zoc == ZOC_ENTER:
                kind = _STOPPED
            elif self._controlled(frm):
                if zoc == ZOC_FORBID:
                    return None
                kind = _SPENT
        return new, c, kind

    def spent(self, cost: int, kind: int) -> int:
        """Points a route spends: what its steps cost, or all of them after a zone took them."""
        return self.budget if kind == _SPENT else cost


def _validate(board: Board, start: Hex, budget: int) -> None:
    if start not in board:
        raise ValueError(f"start hex {start} is not on the board")
    if budget < 0:
        raise ValueError(f"budget must be non-negative, got {budget}")


# ---------------------------------------------------------------------------
# Search
# ---------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class BoardIndex:
    """Board hexes numbered in ``(r, q)`` order, so a number compares like its hex's key."""

    hexes: tuple[Hex, ...]
    number: dict[Hex, int]
    neighbours: tuple[tuple[int, ...], ...]


_INDEXES: "weakref.WeakKeyDictionary[Board, BoardIndex]" = weakref.WeakKeyDictionary()


def board_index(board: Board) -> BoardIndex:
    """The board's hexes by number, as the searches and :class:`HexAnswers` number them."""
    return _index(board)


#: the board last indexed and its index: nearly every search is on the board of the one before,
#: found by identity without the weak dict's look-up
_last_index: tuple[Callable[[], "Board | None"], "BoardIndex | None"] = (lambda: None, None)


def _never_asked(j: int) -> Any:
    """Stands for a question no search asks: the answers it would fill are absent (None)."""
    raise AssertionError(f"hex {j} asked of a search that has no answers to keep")


def _index(board: Board) -> BoardIndex:
    global _last_index
    ref, found = _last_index
    if ref() is board and found is not None:
        return found
    found = _INDEXES.get(board)
    if found is None:
        hexes = tuple(board)  # boards iterate row by row, left to right: (r, q) order
        number = {h: i for i, h in enumerate(hexes)}
        neighbours = tuple(tuple(number[n] for n in board.neighbours(h)) for h in hexes)
        found = _INDEXES[board] = BoardIndex(hexes, number, neighbours)
    _last_index = (weakref.ref(board), found)
    return found


class _ZeroCostStep(Exception):
    """A step cost nothing: the fast search's ordering argument needs positive steps."""


def search(board: Board, start: Hex, budget: int, rules: MoveRules) -> dict[Hex, Route]:
    """Every hex a unit at ``start`` can be on during a move, with its cheapest :class:`Route`.

    The start is always there as ``Route(0, (), True, False)``. Hexes crossed but not
    endable are included with ``can_end`` false (so a rule can still ask "can the unit get
    there", e.g. to join a friendly unit); use :func:`end_hexes` or :func:`reachable` for
    the hexes a move may end on.

    Which route: the one that spends the fewest points; among those, the one whose steps
    cost least (they differ only when a zone of control took the points left); then the one
    whose hexes, compared as ``(r, q)`` pairs from the first step, come first (a proper
    prefix first). That is the minimum over every legal path (a test checks it against
    brute force).

    How: Dijkstra over *states* — a hex where the move may go on, where it is over, or where
    it is over with every point taken — since one hex may be reached in several of these
    ways and only the first may be left. States are ordered by what their steps cost, then
    by key: the zone rule "stop" makes the points *spent* independent of the path, so they
    cannot order the search. When every step costs something (nearly every game), each
    candidate predecessor of a state is settled before the state, so instead of carrying
    whole paths in the heap (what :func:`search_simple` does) the search keeps parent links
    and compares two candidate paths only on a tie, walking up the tree of parents to where
    they part. A step costing nothing breaks that argument; the search then falls back to
    :func:`search_simple`, which gives identical results (tests check they always agree).
    """
    _validate(board, start, budget)
    try:
        if rules.obstacle is None and (rules.zoc == ZOC_NONE or rules.controlled is None) \
                and budget <= _MAX_BUCKETS:
            return _search_hexes(board, start, budget, rules)
        return _search_fast(board, start, budget, rules)
    except _ZeroCostStep:
        return search_simple(board, start, budget, rules)


def _path_less(parent: list[int], depth: list[int], u: int, w: int, v: int) -> bool:
    """Is ``path(u) + [v]`` before ``path(w) + [v]``? States ``u != w``; ``v`` a hex number.

    A state's number is ``3 * hex + kind``, so ``state // 3`` is its hex number, and hex
    numbers follow ``(r, q)`` order. Walk both states up to their common ancestor and
    compare the first hexes after it; the sequence that ends there is a prefix and sorts
    first.
    """
    a, b = u, w
    ka = kb = -1  # hex number just below the common ancestor on each side (-1: not moved)
    da, db = depth[a], depth[b]
    while da > db:
        ka = a // _KINDS
        a = parent[a]
        da -= 1
    while db > da:
        kb = b // _KINDS
        b = parent[b]
        db -= 1
    while a != b:
        ka = a // _KINDS
        kb = b // _KINDS
        a = parent[a]
        b = parent[b]
    x = v if ka < 0 else ka
    y = v if kb < 0 else kb
    if x != y:
        return x < y
    return ka < 0


def _search_fast(board: Board, start: Hex, budget: int, rules: MoveRules) -> dict[Hex, Route]:
    # The step rules of _Stepper.step, inlined with per-hex answers cached by hex number:
    # hashing Hex objects and calling methods is most of the cost of a search.
    idx = _index(board)
    hexes, nbrs = idx.hexes, idx.neighbours
    enter_cost, obstacle, extra = rules.enter_cost, rules.obstacle, rules.obstacle_cost
    stops, controlled, zoc = rules.stops, rules.controlled, rules.zoc
    use_zoc = zoc != ZOC_NONE and controlled is not None
    # answers by hex number: the caller's lists when it gives them, else lists of this search
    costs = rules.costs
    known_cost, ask_cost = (costs.known, costs.ask) if costs is not None else (None, _never_asked)
    if rules.stop_answers is not None:
        stop_known, ask_stop = rules.stop_answers.known, rules.stop_answers.ask
    elif stops is not None:
        stop_known, ask_stop = [UNASKED] * len(hexes), lambda j: stops(hexes[j])
    else:
        stop_known, ask_stop = None, _never_asked
    ctl: dict[int, bool] = {}
    s0 = idx.number[start] * _KINDS + _GOES_ON
    # per state (3 * hex number + kind): lists, which index faster than dicts hash
    size = len(hexes) * _KINDS
    best: list[int | None] = [None] * size
    best[s0] = 0
    parent = [-1] * size
    depth = [0] * size
    done = bytearray(size)
    settled: list[int] = []
    heap: list[tuple[int, int]] = [(0, s0)]
    pop, push = heapq.heappop, heapq.heappush
    goes_on, stopped, spent, kinds = _GOES_ON, _STOPPED, _SPENT, _KINDS  # locals: read per step
    unasked = UNASKED
    check_obstacle = obstacle is not None
    zoc_enter, zoc_forbid = zoc == ZOC_ENTER, zoc == ZOC_FORBID
    # asked only behind check_obstacle and use_zoc, which say they are there
    obstacle, controlled = cast(StepTest, obstacle), cast(HexTest, controlled)
    while heap:
        cost, s = pop(heap)
        if done[s]:
            continue
        done[s] = 1
        settled.append(s)
        if s % kinds != goes_on:
            continue
        i = s // kinds
        frm = hexes[i]
        d1 = depth[s] + 1
        frm_ctl = None
        for j in nbrs[i]:
            if known_cost is not None:
                c = known_cost[j]
                if c is unasked:
                    c = known_cost[j] = ask_cost(j)
            else:
                c = enter_cost(frm, hexes[j])
            if c is None:
                continue
            if c <= 0:
                if c < 0:
                    raise ValueError(f"negative cost {c} entering {hexes[j]} from {frm}")
                if not (check_obstacle and extra > 0 and obstacle(frm, hexes[j])):
                    raise _ZeroCostStep()
            if check_obstacle and obstacle(frm, hexes[j]):
                c += extra
            new = cost + c
            if new > budget:
                continue
            kind = goes_on
            if stop_known is not None:
                stop = stop_known[j]
                if stop is unasked:
                    stop = stop_known[j] = bool(ask_stop(j))
                if stop:
                    kind = stopped
            if use_zoc:
                to_ctl = ctl.get(j)
                if to_ctl is None:
                    to_ctl = ctl[j] = bool(controlled(hexes[j]))
                if to_ctl:
                    if zoc_enter:
                        kind = stopped
                    else:
                        if frm_ctl is None:
                            frm_ctl = ctl.get(i)
                            if frm_ctl is None:
                                frm_ctl = ctl[i] = bool(controlled(frm))
                        if frm_ctl:
                            if zoc_forbid:
                                continue
                            kind = spent
            t = j * kinds + kind
            if done[t]:
                continue
            known = best[t]
            if known is None or new < known:
                best[t] = new
                parent[t] = s
                depth[t] = d1
                push(heap, (new, t))
            elif new == known and _path_less(parent, depth, s, parent[t], j):
                parent[t] = s
                depth[t] = d1
    paths: dict[int, tuple[Hex, ...]] = {s0: ()}
    chosen: dict[int, int] = {}
    for s in settled:
        i = s // kinds
        if s != s0:
            paths[s] = paths[parent[s]] + (hexes[i],)
        other = chosen.get(i)
        if other is None:
            chosen[i] = s
            continue
        mine = (budget if s % kinds == spent else best[s], best[s])
        theirs = (budget if other % kinds == spent else best[other], best[other])
        if mine < theirs or (mine == theirs and _path_less(parent, depth, parent[s], parent[other], i)):
            chosen[i] = s
    can_end, new_route = rules.can_end, _new_route
    result: dict[Hex, Route] = {}
    for i in sorted(chosen):
        s = chosen[i]
        h = hexes[i]
        kind = s % kinds
        ends = s == s0 or can_end is None or bool(can_end(h))
        result[h] = new_route(Route, (budget if kind == spent else best[s], paths[s], ends, kind != goes_on))
    return result


#: the largest budget :func:`_search_hexes` searches with one list of hexes per point (a bucket
#: queue); a larger one goes through the heap of :func:`_search_fast`
_MAX_BUCKETS = 64


def _hex_path_less(parent: list[int], depth: list[int], u: int, w: int, v: int) -> bool:
    """:func:`_path_less` for :func:`_search_hexes`, whose states are hex numbers: is
    ``path(u) + [v]`` before ``path(w) + [v]``? (``u != w``.)"""
    a, b = u, w
    ka = kb = -1  # hex number just below the common ancestor on each side (-1: not moved)
    da, db = depth[a], depth[b]
    while da > db:
        ka = a
        a = parent[a]
        da -= 1
    while db > da:
        kb = b
        b = parent[b]
        db -= 1
    while a != b:
        ka, kb = a, b
        a = parent[a]
        b = parent[b]
    x = v if ka < 0 else ka
    y = v if kb < 0 else kb
    if x != y:
        return x < y
    return ka < 0


def _search_hexes(board: Board, start: Hex, budget: int, rules: MoveRules) -> dict[Hex, Route]:
    """:func:`_search_fast` for a move with no obstacle and no zone of control (every bundled
    pack's common move), the same routes with less work per step.

    Without zones of control a hex is reached in one way only (the move stops there exactly
    when ``stops`` says so), so a state is a hex number: no kinds to compute per step, and
    ``stops`` is asked once per hex when it is settled rather than on every step into it.
    Steps cost a few points and the budget is small, so the queue is a list of hexes per
    point spent (a bucket queue) instead of a heap of tuples; the order within a bucket does
    not matter, as every candidate parent of a hex is settled before the hex (steps cost at
    least one point) and ties between parents are settled by :func:`_hex_path_less`.
    """
    idx = _index(board)
    hexes, nbrs = idx.hexes, idx.neighbours
    enter_cost = rules.enter_cost
    costs = rules.costs
    known_cost, ask_cost = (costs.known, costs.ask) if costs is not None else (None, _never_asked)
    if rules.stop_answers is not None:
        stop_known, ask_stop = rules.stop_answers.known, rules.stop_answers.ask
    elif rules.stops is not None:
        stops = rules.stops
        stop_known, ask_stop = [UNASKED] * len(hexes), lambda j: stops(hexes[j])
    else:
        stop_known, ask_stop = None, _never_asked
    s0 = idx.number[start]
    size = len(hexes)
    best: list[int | None] = [None] * size
    best[s0] = 0
    parent = [-1] * size
    depth = [0] * size
    done = bytearray(size)
    stopped = bytearray(size)
    settled: list[int] = []
    buckets: list[list[int]] = [[] for _ in range(budget + 1)]
    buckets[0].append(s0)
    unasked = UNASKED
    for cost in range(budget + 1):
        for i in buckets[cost]:
            if done[i]:  # reached again more cheaply, and settled then
                continue
            done[i] = 1
            settled.append(i)
            if i != s0 and stop_known is not None:
                stop = stop_known[i]
                if stop is unasked:
                    stop = stop_known[i] = bool(ask_stop(i))
                if stop:
                    stopped[i] = 1
                    continue
            frm = hexes[i]
            d1 = depth[i] + 1
            for j in nbrs[i]:
                if done[j]:
                    continue
                if known_cost is not None:
                    c = known_cost[j]
                    if c is unasked:
                        c = known_cost[j] = ask_cost(j)
                else:
                    c = enter_cost(frm, hexes[j])
                if c is None:
                    continue
                if c <= 0:
                    if c < 0:
                        raise ValueError(f"negative cost {c} entering {hexes[j]} from {frm}")
                    raise _ZeroCostStep()
                new = cost + c
                if new > budget:
                    continue
                known = best[j]
                if known is None or new < known:
                    best[j] = new
                    parent[j] = i
                    depth[j] = d1
                    buckets[new].append(j)
                elif new == known and _hex_path_less(parent, depth, i, parent[j], j):
                    parent[j] = i
                    depth[j] = d1
    paths: dict[int, tuple[Hex, ...]] = {s0: ()}
    for i in settled:
        if i != s0:
            paths[i] = paths[parent[i]] + (hexes[i],)
    can_end, new_route = rules.can_end, _new_route
    result: dict[Hex, Route] = {}
    settled.sort()
    for i in settled:
        h = hexes[i]
        ends = i == s0 or can_end is None or bool(can_end(h))
        result[h] = new_route(Route, (best[i], paths[i], ends, stopped[i] == 1))
    return result


def search_simple(board: Board, start: Hex, budget: int, rules: MoveRules) -> dict[Hex, Route]:
    """The same search as :func:`search`, written plainly: the heap key carries the whole path.

    Kept as the reference the fast search is tested against, and used by it when a step
    costs nothing. Each heap entry is ``(cost, key, state, path)`` where ``key`` is the tuple
    of the path's ``(r, q)`` pairs, so the first time a state is popped it carries its
    cheapest, lowest-key path; each hex then takes the best of its states.
    """
    _validate(board, start, budget)
    stepper = _Stepper(rules, budget)
    Key = tuple[tuple[int, int], ...]
    State = tuple[Hex, int]
    s0: State = (start, _GOES_ON)
    best: dict[State, tuple[int, Key]] = {s0: (0, ())}
    heap: list[tuple[int, Key, Hex, int, tuple[Hex, ...]]] = [(0, (), start, _GOES_ON, ())]
    done: set[State] = set()
    found: dict[Hex, tuple[int, int, Key, int, tuple[Hex, ...]]] = {}
    while heap:
        cost, key, here, kind, path = heapq.heappop(heap)
        if (here, kind) in done:
            continue
        done.add((here, kind))
        mine = (stepper.spent(cost, kind), cost, key, kind, path)
        known = found.get(here)
        if known is None or mine[:3] < known[:3]:
            found[here] = mine
        if kind != _GOES_ON:
            continue
        for nxt in board.neighbours(here):
            got = stepper.step(cost, here, nxt)
            if got is None:
                continue
            new, _, new_kind = got
            state = (nxt, new_kind)
            if state in done:
                continue
            new_key = key + ((nxt.r, nxt.q),)
            old = best.get(state)
            if old is not None and old <= (new, new_key):
                continue
            best[state] = (new, new_key)
            heapq.heappush(heap, (new, new_key, nxt, new_kind, path + (nxt,)))
    return {
        h: Route(spent, path, h == start or stepper.can_end(h), kind != _GOES_ON)
        for h, (spent, _cost, _key, kind, path) in sorted(found.items(), key=lambda kv: (kv[0].r, kv[0].q))
    }


def end_hexes(routes: dict[Hex, Route]) -> list[Hex]:
    """Hexes a move may end on, cheapest first, then row by row (the order Lore sees)."""
    # (cost, r, q) keys built in one pass (a hex is the pair (q, r)); no two hexes share r and
    # q, so the hexes themselves are never compared
    ends = [(rt.cost, h[1], h[0], h) for h, rt in routes.items() if rt.can_end]
    ends.sort()
    return [e[3] for e in ends]


def reachable(
    board: Board,
    start: Hex,
    budget: int,
    enter_cost: StepCost,
    stops: HexTest | None = None,
    can_end: HexTest | None = None,
) -> dict[Hex, tuple[int, tuple[Hex, ...]]]:
    """Every hex a unit at ``start`` may end its move on, as ``{hex: (cost, path)}``.

    The simple form of :func:`search` (no obstacles, no zones of control), kept with the
    signature it had in ``grid``: ``enter_cost(frm, to)`` is the step cost (``None``:
    forbidden), ``stops(h)`` ends the move on entering, ``can_end(h)`` false hexes are
    crossed but left out. The start is always in the result as ``(0, ())``.
    """
    routes = search(board, start, budget, MoveRules(enter_cost, stops=stops, can_end=can_end))
    return {h: (rt.cost, rt.path) for h, rt in routes.items() if rt.can_end}


def move_events(path: Sequence[Hex]) -> list[tuple[str, Hex]]:
    """What moving along ``path`` emits (seed 003, 404.4): ``(ENTER, h)`` for each hex in
    order, then ``(STOP, last)``; nothing for an empty path (the unit did not move)."""
    if not path:
        return []
    return [(ENTER, h) for h in path] + [(STOP, path[-1])]
