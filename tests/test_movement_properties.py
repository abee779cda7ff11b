"""Property tests of the movement primitives (hypothesis), against brute force.

Example budget: every property runs under the ``movement`` settings profile registered
below — 150 examples, derandomized (the same examples on every run and in CI), no
deadline. Boards are small (a hexagon of 37 hexes with up to 9 holes) so brute force
stays cheap: the whole file takes about 15 seconds of CPU.

What is checked:

- every route the search returns is legal (each step to an adjacent board hex that may be
  entered, never leaving a hex where the move had to end, zones of control obeyed) and
  costs what its steps cost, within the budget;
- no cheaper route exists, and among equally cheap ones the search picks the first by
  ``(r, q)`` keys: the search equals a brute force that enumerates every simple path;
- the fast search equals the plain reference search whenever steps cost at least 1;
- forced moves never end nearer their source, retreats never end farther from their edge,
  directional retreats get one hex farther each step, and every forced path ends where the
  unit may end with nothing more it could do.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hexlore.runtime.geometry import movement as mv
from hexlore.runtime.geometry.grid import Board, Hex

settings.register_profile(
    "movement", max_examples=150, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow])
MOVEMENT = settings.get_profile("movement")

HEX3 = sorted(Board.hexagon(3), key=lambda h: (h.r, h.q))
HEX1 = sorted(Board.hexagon(1), key=lambda h: (h.r, h.q))


@dataclass
class World:
    """A random small board with random per-hex movement data."""

    board: Board
    start: Hex
    budget: int
    cost: dict[Hex, int | None]
    obstacle: dict[Hex, bool]
    stops: dict[Hex, bool]
    ends: dict[Hex, bool]
    controlled: dict[Hex, bool]
    zoc: str

    def rules(self) -> mv.MoveRules:
        return mv.MoveRules(
            lambda _f, t: self.cost[t], stops=self.stops.__getitem__, can_end=self.ends.__getitem__,
            obstacle=self.is_obstacle, controlled=self.controlled.__getitem__, zoc=self.zoc)

    def is_obstacle(self, frm: Hex, to: Hex) -> bool:
        # a hex obstacle and a "border" obstacle (leaving an obstacle hex) never add up
        return self.obstacle[to] or self.obstacle[frm]


@st.composite
def worlds(draw, pool: list[Hex] = HEX3, costs=(None, 1, 1, 1, 1, 2, 3), max_budget: int = 5) -> World:
    holes = draw(st.sets(st.sampled_from(pool), max_size=len(pool) // 4))
    board = Board("mask", frozenset(pool) - holes)
    order = list(board)

    def per_hex(strategy):
        return dict(zip(order, draw(st.lists(strategy, min_size=len(order), max_size=len(order)))))

    return World(
        board=board,
        start=draw(st.sampled_from(order)),
        budget=draw(st.sampled_from(range(max_budget + 1))),
        cost=per_hex(st.sampled_from(costs)),
        obstacle=per_hex(st.sampled_from([False] * 5 + [True])),
        stops=per_hex(st.sampled_from([False] * 5 + [True])),
        ends=per_hex(st.sampled_from([True] * 5 + [False])),
        controlled=per_hex(st.sampled_from([False] * 3 + [True])),
        zoc=draw(st.sampled_from(mv.ZOC_MODES)),
    )


def key(path) -> tuple:
    return tuple((h.r, h.q) for h in path)


def brute_force(w: World) -> dict[Hex, tuple[int, tuple[Hex, ...], bool]]:
    """The best simple path to every hex, by enumerating all of them.

    Written from the rules, not from the module: a step costs the hex's cost, +1 once for
    an obstacle; a stop hex ends the move; zones of control per ``w.zoc`` (with "stop", the
    move ends and spends the whole budget). Best: fewest points spent, then the least the
    steps cost, then the lowest ``(r, q)`` keys.
    """
    best: dict[Hex, tuple] = {w.start: (0, 0, (), False, ())}

    def walk(here: Hex, paid: int, path: tuple[Hex, ...], seen: frozenset[Hex]) -> None:
        for nxt in w.board.neighbours(here):
            if nxt in seen or w.cost[nxt] is None:
                continue
            new = paid + w.cost[nxt] + (1 if w.is_obstacle(here, nxt) else 0)
            if new > w.budget:
                continue
            ended, spent = w.stops[nxt], new
            if w.zoc != mv.ZOC_NONE and w.controlled[nxt]:
                if w.zoc == mv.ZOC_ENTER:
                    ended = True
                elif w.controlled[here]:
                    if w.zoc == mv.ZOC_FORBID:
                        continue
                    ended, spent = True, w.budget
            p = path + (nxt,)
            mine = (spent, new, key(p), ended, p)
            old = best.get(nxt)
            if old is None or mine[:3] < old[:3]:
                best[nxt] = mine
            if not ended:
                walk(nxt, new, p, seen | {nxt})

    walk(w.start, 0, (), frozenset([w.start]))
    return {h: (spent, p, e) for h, (spent, _paid, _k, e, p) in best.items()}


def check_route(w: World, target: Hex, route: mv.Route) -> None:
    """The route is a legal move to ``target`` that costs what it says."""
    assert route.cost <= w.budget
    if target == w.start:
        assert route == mv.Route(0, (), True, False)
        return
    assert route.path and route.path[-1] == target
    assert route.can_end == w.ends[target]
    here, spent, ended = w.start, 0, False
    for step in route.path:
        assert not ended, "the move went on after it had to end"
        assert step in w.board and here.distance(step) == 1
        assert w.cost[step] is not None
        spent += w.cost[step] + (1 if w.is_obstacle(here, step) else 0)
        ended = w.stops[step]
        if w.zoc != mv.ZOC_NONE and w.controlled[step]:
            if w.zoc == mv.ZOC_ENTER:
                ended = True
            elif w.controlled[here]:
                assert w.zoc != mv.ZOC_FORBID, "moved from a controlled hex into another"
                ended, spent = True, max(spent, w.budget)
        here = step
    assert spent == route.cost and ended == route.stopped


@MOVEMENT
@given(worlds())
def test_routes_are_legal_and_cheapest(w: World) -> None:
    routes = mv.search(w.board, w.start, w.budget, w.rules())
    for target, route in routes.items():
        check_route(w, target, route)
    expected = {h: mv.Route(c, p, h == w.start or w.ends[h], e) for h, (c, p, e) in brute_force(w).items()}
    assert routes == expected


@MOVEMENT
@given(worlds(pool=HEX1, costs=(None, 0, 0, 1, 1, 2), max_budget=4))
def test_zero_cost_steps_fall_back_to_the_plain_search(w: World) -> None:
    routes = mv.search(w.board, w.start, w.budget, w.rules())
    expected = {h: mv.Route(c, p, h == w.start or w.ends[h], e) for h, (c, p, e) in brute_force(w).items()}
    assert routes == expected
    assert routes == mv.search_simple(w.board, w.start, w.budget, w.rules())


@MOVEMENT
@given(worlds(max_budget=12))
def test_fast_search_equals_the_plain_search(w: World) -> None:
    fast = mv._search_fast(w.board, w.start, w.budget, w.rules())
    assert fast == mv.search_simple(w.board, w.start, w.budget, w.rules())


@MOVEMENT
@given(worlds(max_budget=12), st.booleans())
def test_hex_search_equals_the_plain_search(w: World, by_hex: bool) -> None:
    """The search for moves without obstacles or zones of control (states are hexes, a bucket
    queue) gives the plain search's routes: step costs read from a function of the step or from
    answers by hex number, stops from a function or from answers by hex number."""
    index = mv.board_index(w.board)
    costs = stop_answers = None
    if by_hex:
        costs = mv.HexAnswers([mv.UNASKED] * len(index.hexes), lambda j: w.cost[index.hexes[j]])
        stop_answers = mv.HexAnswers([mv.UNASKED] * len(index.hexes), lambda j: w.stops[index.hexes[j]])
    rules = mv.MoveRules(lambda _f, t: w.cost[t], stops=w.stops.__getitem__, can_end=w.ends.__getitem__,
                         costs=costs, stop_answers=stop_answers)
    expected = mv.search_simple(w.board, w.start, w.budget, rules)
    assert mv._search_hexes(w.board, w.start, w.budget, rules) == expected
    assert mv._search_fast(w.board, w.start, w.budget, rules) == expected
    assert mv.search(w.board, w.start, w.budget, rules) == expected


@MOVEMENT
@given(worlds(pool=HEX1, costs=(None, 0, 1, 1, 2), max_budget=4))
def test_hex_search_falls_back_on_a_step_costing_nothing(w: World) -> None:
    rules = mv.MoveRules(lambda _f, t: w.cost[t], stops=w.stops.__getitem__, can_end=w.ends.__getitem__)
    assert mv.search(w.board, w.start, w.budget, rules) == mv.search_simple(w.board, w.start, w.budget, rules)


@MOVEMENT
@given(worlds(), st.integers(0, 6))
def test_teleport_lands_within_reach(w: World, reach: int) -> None:
    landing = mv.teleport_options(w.board, w.start, reach, w.ends.__getitem__)
    assert landing == sorted(
        (h for h in w.board if h != w.start and w.start.distance(h) <= reach and w.ends[h]),
        key=lambda h: (w.start.distance(h), h.r, h.q))


# ---------------------------------------------------------------------------
# Forced moves
# ---------------------------------------------------------------------------


@st.composite
def forced_worlds(draw) -> tuple[World, Hex, int]:
    w = draw(worlds(costs=(None, 1, 1, 1, 1, 2)))
    source = draw(st.sampled_from(list(Board.hexagon(3))))
    return w, source, draw(st.integers(0, 5))


def straight2(source: Hex, h: Hex) -> int:
    """4/3 of the squared distance between hex centres (pointy-top), an exact integer."""
    x, y = 2 * (h.q - source.q) + (h.r - source.r), h.r - source.r
    return x * x + 3 * y * y


def step_cost(w: World):
    return lambda _f, t: w.cost[t]


def check_forced(w: World, count: int, rank, paths: list[mv.ForcedPath]) -> None:
    """Common laws: legal steps within the count, a legal end, and nothing left to do."""
    assert paths
    for fp in paths:
        here, left = w.start, count
        for step in fp.path:
            assert step in w.board and here.distance(step) == 1
            assert rank(here, step) is not None
            assert w.cost[step] is not None and w.cost[step] <= left
            left -= w.cost[step]
            here = step
        assert left == fp.missing >= 0
        assert here == w.start or w.ends[here]
        assert mv.forced_options(w.board, here, left, rank, step_cost(w), w.ends.__getitem__) == []


@MOVEMENT
@given(forced_worlds())
def test_forced_moves_never_end_nearer_the_source(case) -> None:
    w, source, count = case
    rank = mv.away_rank(w.board, source)
    paths = mv.forced_paths(w.board, w.start, count, rank, step_cost(w), w.ends.__getitem__)
    check_forced(w, count, rank, paths)
    for fp in paths:
        here = w.start
        for step in fp.path:
            d0, d1 = source.distance(here), source.distance(step)
            assert d1 >= d0
            if d1 == d0:  # only sliding along the rim, getting farther in a straight line
                assert mv.on_rim(w.board, here) and mv.on_rim(w.board, step)
                assert straight2(source, step) > straight2(source, here)
            here = step
        assert source.distance(here) >= source.distance(w.start)


@MOVEMENT
@given(forced_worlds(), st.sampled_from(["top", "bottom"]))
def test_retreats_never_end_farther_from_the_edge(case, edge: str) -> None:
    w, _source, count = case
    rank = mv.edge_rank(w.board, edge)
    paths = mv.forced_paths(w.board, w.start, count, rank, step_cost(w), w.ends.__getitem__)
    check_forced(w, count, rank, paths)
    row = min if edge == "top" else max
    edge_row = row(h.r for h in w.board)
    for fp in paths:
        rows = [abs(h.r - edge_row) for h in (w.start, *fp.path)]
        assert all(b == a - 1 for a, b in zip(rows, rows[1:]))
        assert rows[-1] <= rows[0]


@MOVEMENT
@given(forced_worlds())
def test_directional_retreats_go_one_hex_farther_each_step(case) -> None:
    w, source, count = case
    rank = mv.directional_rank(source)
    paths = mv.forced_paths(w.board, w.start, count, rank, step_cost(w), w.ends.__getitem__)
    check_forced(w, count, rank, paths)
    for fp in paths:
        dists = [source.distance(h) for h in (w.start, *fp.path)]
        assert all(b == a + 1 for a, b in zip(dists, dists[1:]))


def test_path_comparison_walks_up_to_where_paths_part() -> None:
    """The fast search compares two candidate paths by their parent links only.

    States are ``3 * hex + kind``; hex numbers follow ``(r, q)`` order. Tree: start 0 ->
    hex 5 (state 15) -> hex 7 (state 21); start -> hex 3 (state 9).
    """
    parent = {0: -1, 15: 0, 21: 15, 9: 0}
    depth = {0: 0, 15: 1, 21: 2, 9: 1}
    assert mv._path_less(parent, depth, 9, 15, 9)       # [3, 9] < [5, 9]
    assert not mv._path_less(parent, depth, 15, 9, 9)
    assert mv._path_less(parent, depth, 15, 21, 6)      # [5, 6] < [5, 7, 6]: 6 < 7
    assert not mv._path_less(parent, depth, 15, 21, 8)  # [5, 8] > [5, 7, 8]
    assert mv._path_less(parent, depth, 15, 21, 7)      # [5, 7] is a prefix of [5, 7, 7]
    assert not mv._path_less(parent, depth, 21, 15, 7)


def test_edge_rank_steps_are_the_boards_toward_edge_hexes() -> None:
    for board in (Board.battlelore(), Board.rectangle(5, 4, "even"), Board.hexagon(3)):
        for edge in ("top", "bottom"):
            rank = mv.edge_rank(board, edge)
            for h in board:
                allowed = [n for n in board.neighbours(h) if rank(h, n) is not None]
                assert sorted(allowed, key=lambda n: n.q) == board.toward_edge(h, edge)


def test_board_index_is_never_another_boards():
    """movement._index keeps the last board's index (found by identity) besides its weak dict:
    boards taken in turn, and a board made after another was freed (it may get the freed one's
    id), each get the index of their own hexes."""
    import gc

    def check(board: Board) -> None:
        index = mv.board_index(board)
        assert index.hexes == tuple(board)
        assert index.number == {h: i for i, h in enumerate(board)}
        assert index.neighbours == tuple(tuple(index.number[n] for n in board.neighbours(h)) for h in board)

    small, large = Board("mask", frozenset(HEX3[:5])), Board("mask", frozenset(HEX3))
    for board in (small, large, small, small, large):
        check(board)
    del small, large
    gc.collect()
    for pool in (HEX3[:3], HEX3[2:9], HEX3[:3]):
        check(Board("mask", frozenset(pool)))  # each freed before the next is made
        gc.collect()
