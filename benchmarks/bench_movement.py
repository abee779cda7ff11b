"""Speed of the movement search, as ratios against baselines measured in the same run.

    python benchmarks/bench_movement.py [--quick]

Boards get seeded random terrain (a fifth of the hexes cost 2, a tenth are impassable, a
few end the move or are obstacles, a few enemies project zones of control), so every
feature of the search is exercised. Printed:

- searches per second on BattleLore's 13x9 board and on a 100x100 board, for a short move
  (budget 3 or 6) and for a move with no limit (the whole board), against
  * a straightforward reference written here: Bellman-Ford sweeps over every state of the
    board until nothing improves (the answer is checked to be the same), and
  * ``search_simple``, the plain Dijkstra whose heap entries carry whole paths (what the
    runtime did before; the fast search must give identical results);
- how the cost grows with the board (n x n boards, whole-board moves): time per search and
  per hex reached; the per-hex cost grows slowly (the heap's log factor, and paths, copied
  and compared on ties, that get as long as the board is wide);
- the same search called from Lore (``move_options`` with Lore cost functions), where the
  rules' functions, not the search, dominate;
- forced-move and teleport options per second.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout without installing

from hexlore.runtime.geometry import movement as mv  # noqa: E402
from hexlore.runtime.geometry.grid import Board, Hex  # noqa: E402


def timed(fn, repeat: int, rounds: int = 3) -> float:
    """Seconds per call: the best of a few rounds, so a busy machine disturbs less."""
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(repeat):
            fn()
        best = min(best, (time.perf_counter() - start) / repeat)
    return best


def terrain(board: Board, seed: int) -> tuple[mv.MoveRules, Hex]:
    """Seeded random movement rules for ``board`` and a start hex near its middle."""
    rng = random.Random(seed)
    cost: dict[Hex, int | None] = {}
    for h in board:
        roll = rng.random()
        cost[h] = None if roll < 0.1 else 2 if roll < 0.3 else 1
    stops = {h for h in board if rng.random() < 0.03}
    obstacles = {h for h in board if rng.random() < 0.05}
    enemies = {h for h in board if rng.random() < 0.02}
    controlled = {n for e in enemies for n in board.neighbours(e)}
    hexes = list(board)
    start = hexes[len(hexes) // 2]
    cost[start] = 1
    for e in enemies - {start}:
        cost[e] = None
    rules = mv.MoveRules(
        lambda _f, t: cost[t], stops=stops.__contains__, can_end=lambda h: True,
        obstacle=lambda f, t: t in obstacles or f in obstacles, controlled=controlled.__contains__,
        zoc=mv.ZOC_STOP)
    return rules, start


def bellman_ford(board: Board, start: Hex, budget: int, rules: mv.MoveRules) -> dict[Hex, mv.Route]:
    """The reference: relax every step of every state until nothing changes.

    States are (hex, kind) like the real search (the move goes on, is over, or is over
    with every point taken); a state's label is (what the steps cost, path key, path) and
    a smaller label replaces a larger. Each hex then takes its best state by (points spent,
    cost, key). Written for clarity, not speed.
    """
    stepper = mv._Stepper(rules, budget)
    hexes = list(board)
    s0 = (start, mv._GOES_ON)
    label: dict[tuple[Hex, int], tuple[int, tuple, tuple[Hex, ...]]] = {s0: (0, (), ())}
    changed = True
    while changed:
        changed = False
        for h in hexes:
            here = label.get((h, mv._GOES_ON))
            if here is None:
                continue
            cost, key, path = here
            for n in board.neighbours(h):
                got = stepper.step(cost, h, n)
                if got is None:
                    continue
                new, _, kind = got
                cand = (new, key + ((n.r, n.q),), path + (n,))
                old = label.get((n, kind))
                if (n, kind) != s0 and (old is None or cand[:2] < old[:2]):
                    label[(n, kind)] = cand
                    changed = True
    best: dict[Hex, tuple] = {}
    for (h, kind), (cost, key, path) in label.items():
        mine = (stepper.spent(cost, kind), cost, key, path, kind)
        if h not in best or mine[:3] < best[h][:3]:
            best[h] = mine
    return {h: mv.Route(spent, path, True, kind != mv._GOES_ON)
            for h, (spent, _c, _k, path, kind) in best.items()}


def compare(name: str, board: Board, budget: int, repeat: int, ref_repeat: int) -> None:
    rules, start = terrain(board, seed=len(board))
    fast = mv.search(board, start, budget, rules)
    assert fast == mv.search_simple(board, start, budget, rules), "fast and simple searches differ"
    assert fast == bellman_ford(board, start, budget, rules), "search and reference differ"
    t_fast = timed(lambda: mv.search(board, start, budget, rules), repeat)
    t_simple = timed(lambda: mv.search_simple(board, start, budget, rules), max(1, repeat // 2))
    t_ref = timed(lambda: bellman_ford(board, start, budget, rules), ref_repeat, rounds=1)
    print(f"  {name:<28} {len(fast):>6} hexes  {1 / t_fast:>10,.1f} searches/s  "
          f"reference {t_ref / t_fast:>7.1f}x slower  plain Dijkstra {t_simple / t_fast:>5.2f}x slower")


def growth(sizes: list[int]) -> None:
    print("growth with board size (n x n, whole-board moves):")
    base = None
    for n in sizes:
        board = Board.rectangle(n, n)
        rules, start = terrain(board, seed=n)
        routes = mv.search(board, start, 10**6, rules)
        t = timed(lambda: mv.search(board, start, 10**6, rules), max(1, 2000 // (n * n) + 1))
        per_hex = t / len(routes) * 1e6
        base = base or per_hex
        print(f"  {n:>3} x {n:<3} {len(routes):>6} hexes reached  {t * 1000:>9.2f} ms/search  "
              f"{per_hex:>6.2f} us/hex  ({per_hex / base:.2f}x the smallest board's per-hex cost)")


def through_lore(repeat: int) -> None:
    from hexlore.api import open_scenario
    from hexlore.compiler.builtins import enum_value
    from hexlore.runtime.engine.game import Game

    loaded = open_scenario(str(ROOT / "scenarios" / "geometry" / "movement.yaml"))
    assert loaded.ok, [d.headline() for d in loaded.diagnostics]
    game = Game(loaded.rules, loaded.scenario)
    unit = game.state.units["w"]
    unit.f["move_points"] = 3
    move_options = game.builtins["move_options"]
    # the arguments the compiler gives a call leaving obstacle, stops, controls and zoc out
    args = (unit, 3, "cost_003", None, None, "passes_003", None, enum_value("zoc", "ignore"))
    hexes = move_options(*args)
    t = timed(lambda: move_options(*args), repeat)
    calls = {"n": 0}
    call_function, search_caller = game.call_function, game.search_caller

    def counting_caller(name):
        call = search_caller(name)

        def counting(a):
            calls["n"] += 1
            return call(a)
        return counting
    game.search_caller = counting_caller  # the built-ins look each function up once per search
    move_options(*args)
    game.search_caller = search_caller
    t_call = timed(lambda: call_function("cost_003", [unit, unit.hex]), repeat * 20)
    print(f"  from Lore, 12x10 board, budget 3: {len(hexes)} options, {1 / t:,.0f} searches/s; "
          f"each makes {calls['n']} calls of Lore functions (about {t_call * 1e6:.1f} us each): "
          f"the rules' functions, not the search, set the pace")


def forced(repeat: int) -> None:
    board = Board.rectangle(100, 100)
    rules, start = terrain(board, seed=7)
    source = Hex(start.q - 1, start.r)
    cost = rules.enter_cost
    t_away = timed(lambda: mv.forced_options(board, start, 6, mv.away_rank(board, source), cost), repeat)
    t_edge = timed(lambda: mv.forced_options(board, start, 6, mv.edge_rank(board, "top"), cost), repeat)
    t_tel = timed(lambda: mv.teleport_options(board, start, 4, lambda h: cost(h, h) is not None), repeat)
    print(f"  100x100: next step of a 6-hex push {1 / t_away:,.0f}/s, of a 6-hex retreat "
          f"{1 / t_edge:,.0f}/s; teleport options within 4 {1 / t_tel:,.0f}/s")


def main() -> None:
    quick = "--quick" in sys.argv
    print("movement searches (fast search vs the Bellman-Ford reference and the plain Dijkstra):")
    bl = Board.battlelore()
    compare("13x9 BattleLore, budget 3", bl, 3, 2000, 100)
    compare("13x9 BattleLore, whole board", bl, 10**6, 500, 10)
    big = Board.rectangle(100, 100)
    compare("100x100, budget 6", big, 6, 500, 1)
    compare("100x100, whole board", big, 10**6, 3 if quick else 10, 1)
    growth([10, 20, 40] if quick else [10, 20, 40, 70, 100, 140])
    print("other primitives:")
    forced(200)
    through_lore(50 if quick else 300)


if __name__ == "__main__":
    main()
