"""Line-of-sight and range checks per second, as ratios against references measured in the same run.

    python benchmarks/bench_sight.py [--quick]

For each model, on the 13x9 BattleLore board and on a 100x100 rectangle (random pairs of
hexes, about 15% of hexes blocking, fixed seed), it prints hexlore's checks per second and
the ratio to straightforward implementations written here:

- centre line: (a) a float-sampled line (10 samples per hex of distance, nudged by an
  epsilon, cube-rounded in floats) - the usual quick approach, which is NOT exact: the
  share of pairs where it disagrees with hexlore is printed too; (b) the exact whole-board
  scan with Fractions that hexlore used before (``sight.crossed_hexes_reference``);
- elevation: the same two references, ignoring hexes lower than the viewer;
- shortest paths: a depth-first enumeration of shortest paths over the board, pruning
  blocked hexes and stopping at the first clear path (exponential in the worst case, so on
  the big board it is measured on pairs at most 12 apart only);
- range: a breadth-first search of the whole board per query.

Then the growth of the cost with the board (square rectangles of several sizes), for
hexlore and for the whole-board scan. Speed is a property to watch, not to assert: no test
times anything.
"""

from __future__ import annotations

import math
import random
import sys
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hexlore.runtime.geometry import sight  # noqa: E402
from hexlore.runtime.geometry.grid import Board, Hex  # noqa: E402

# ---------------------------------------------------------------------------
# references
# ---------------------------------------------------------------------------


def _float_round(q: float, r: float) -> Hex:
    s = -q - r
    rq, rr, rs = round(q), round(r), round(s)
    dq, dr, ds = abs(rq - q), abs(rr - r), abs(rs - s)
    if dq > dr and dq > ds:
        rq = -rr - rs
    elif dr > ds:
        rr = -rq - rs
    return Hex(rq, rr)


def float_line(board: Board, a: Hex, b: Hex) -> set[Hex]:
    """The usual sampled line: many float samples, an epsilon nudge, cube rounding."""
    n = a.distance(b) * 10
    if n == 0:
        return set()
    eps = 1e-6
    out = set()
    for i in range(1, n):
        t = i / n
        q = a.q + (b.q - a.q) * t + eps
        r = a.r + (b.r - a.r) * t + eps
        h = _float_round(q, r)
        if h != a and h != b and h in board:
            out.add(h)
    return out


def float_line_clear(board, a, b, blocks, height=None) -> bool:
    base = height(a) if height else None
    return not any(blocks(h) and (height is None or height(h) >= base) for h in float_line(board, a, b))


def scan_line_clear(board, a, b, blocks, height=None) -> bool:
    base = height(a) if height else None
    return not any(blocks(h) and (height is None or height(h) >= base)
                   for h in sight.crossed_hexes_reference(board, a, b))


def dfs_paths_clear(board: Board, a: Hex, b: Hex, blocks) -> bool:
    """Depth-first over shortest steps (each step one nearer b), blocked hexes pruned."""
    if a == b:
        return True
    if a.distance(b) == 1:
        return True

    def go(h: Hex) -> bool:
        for n in h.neighbours():
            if n == b:
                return True
            if n in board and n.distance(b) == h.distance(b) - 1 and not blocks(n) and go(n):
                return True
        return False

    return go(a)


def bfs_length(board: Board, a: Hex, b: Hex) -> int | None:
    dist = {a: 0}
    queue = deque([a])
    while queue:
        h = queue.popleft()
        if h == b:
            return dist[h]
        for n in board.neighbours(h):
            if n not in dist:
                dist[n] = dist[h] + 1
                queue.append(n)
    return None


# ---------------------------------------------------------------------------
# measuring
# ---------------------------------------------------------------------------


def rate(fn: Callable[[Hex, Hex], object], pairs: list[tuple[Hex, Hex]], budget: float = 0.6) -> float:
    """Checks per second over ``pairs`` (repeated until ``budget`` seconds have passed)."""
    done, start = 0, time.perf_counter()
    while True:
        for a, b in pairs:
            fn(a, b)
        done += len(pairs)
        elapsed = time.perf_counter() - start
        if elapsed >= budget:
            return done / elapsed


def setting(board: Board, count: int, seed: int, max_distance: int | None = None):
    rnd = random.Random(seed)
    cells = list(board)
    blocked = {h for h in cells if rnd.random() < 0.15}
    height = {h: rnd.choice((0, 0, 0, 1, 2)) for h in cells}
    pairs: list[tuple[Hex, Hex]] = []
    while len(pairs) < count:
        a, b = rnd.choice(cells), rnd.choice(cells)
        if max_distance is None or a.distance(b) <= max_distance:
            pairs.append((a, b))
    return pairs, blocked.__contains__, height.__getitem__


def row(label: str, ours: float, refs: list[tuple[str, float]]) -> None:
    parts = [f"{label:<38} {ours:>10,.0f}/s"]
    for name, value in refs:
        parts.append(f"{ours / value:>7.1f}x {name} ({value:,.0f}/s)")
    print("  ".join(parts))


def compare_models(name: str, board: Board, quick: bool) -> None:
    n = 150 if quick else 400
    pairs, blocks, height = setting(board, n, seed=4)
    print(f"\n{name}: {len(board)} hexes, {len(pairs)} random pairs, mean distance "
          f"{sum(a.distance(b) for a, b in pairs) / len(pairs):.1f}")

    ours = rate(lambda a, b: sight.line_clear(board, a, b, blocks), pairs)
    flt = rate(lambda a, b: float_line_clear(board, a, b, blocks), pairs)
    scan_pairs = pairs[: (40 if len(board) > 1000 else len(pairs))]
    scan = rate(lambda a, b: scan_line_clear(board, a, b, blocks), scan_pairs)
    differ = sum(sight.line_clear(board, a, b, blocks) != float_line_clear(board, a, b, blocks)
                 for a, b in pairs)
    row("centre line (line_clear)", ours, [("float-sampled", flt), ("whole-board Fraction scan", scan)])
    print(f"{'':<38} the float-sampled line disagrees on {differ} of {len(pairs)} pairs "
          f"({100 * differ / len(pairs):.1f}%): grazing edges and corners")

    ours = rate(lambda a, b: sight.line_clear_above(board, a, b, blocks, height), pairs)
    flt = rate(lambda a, b: float_line_clear(board, a, b, blocks, height), pairs)
    scan = rate(lambda a, b: scan_line_clear(board, a, b, blocks, height), scan_pairs)
    row("elevation (line_clear_above)", ours, [("float-sampled", flt), ("whole-board Fraction scan", scan)])

    near, _, _ = setting(board, n, seed=5, max_distance=12)
    ours = rate(lambda a, b: sight.paths_clear(board, a, b, blocks, True), near)
    dfs = rate(lambda a, b: dfs_paths_clear(board, a, b, blocks), near)
    row("shortest paths, distance <= 12", ours, [("depth-first enumeration", dfs)])
    if len(board) > 1000:
        ours_far = rate(lambda a, b: sight.paths_clear(board, a, b, blocks, True), pairs)
        print(f"{'shortest paths, any distance':<38} {ours_far:>10,.0f}/s  (enumeration: infeasible, "
              f"up to C({max(a.distance(b) for a, b in pairs)}, k) paths)")

    ours = rate(lambda a, b: sight.in_range(board, a, b, 2, 10**6), pairs)
    bfs_pairs = pairs[: (40 if len(board) > 1000 else len(pairs))]
    bfs = rate(lambda a, b: (lambda n: n is not None and n >= 2)(bfs_length(board, a, b)), bfs_pairs)
    row("range with minimum (in_range)", ours, [("whole-board BFS", bfs)])


def growth(quick: bool) -> None:
    sizes = (10, 20, 40, 80) if quick else (10, 20, 40, 80, 160)
    print("\ngrowth with the board (square rectangles, random pairs): microseconds per check")
    print(f"{'side':>6} {'hexes':>7} {'mean d':>7} {'centre line':>12} {'paths':>10} {'in_range':>10} "
          f"{'board scan':>11}")
    first = last = None
    for side in sizes:
        board = Board.rectangle(side, side)
        pairs, blocks, _ = setting(board, 60, seed=side)
        line = 1e6 / rate(lambda a, b: sight.line_clear(board, a, b, blocks), pairs, 0.3)
        paths = 1e6 / rate(lambda a, b: sight.paths_clear(board, a, b, blocks, True), pairs, 0.3)
        rng = 1e6 / rate(lambda a, b: sight.in_range(board, a, b, 0, 10**6), pairs, 0.3)
        scan = 1e6 / rate(lambda a, b: scan_line_clear(board, a, b, blocks), pairs[:15], 0.3)
        mean_d = sum(a.distance(b) for a, b in pairs) / len(pairs)
        print(f"{side:>6} {len(board):>7} {mean_d:>7.1f} {line:>12.0f} {paths:>10.0f} {rng:>10.0f} "
              f"{scan:>11.0f}")
        last = (len(board), mean_d, line, paths, rng, scan)
        first = first or last

    def slope(i: int, against: int) -> float:
        return math.log(last[i] / first[i]) / math.log(last[against] / first[against])

    print(f"growth exponents, from {first[0]} to {last[0]} hexes (cost ~ distance^k or hexes^k): "
          f"centre line d^{slope(2, 1):.2f}, shortest paths d^{slope(3, 1):.2f}, "
          f"in_range d^{slope(4, 1):.2f}, whole-board scan hexes^{slope(5, 0):.2f}")


def main() -> None:
    quick = "--quick" in sys.argv
    compare_models("BattleLore 13x9", Board.battlelore(), quick)
    compare_models("rectangle 100x100", Board.rectangle(100, 100), quick)
    growth(quick)


if __name__ == "__main__":
    main()
