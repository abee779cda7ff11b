"""The strength ladder: each player against the one below it, on every bundled playable scenario.

    python benchmarks/bench_ladder.py [--games N] [--workers W] [--ladder random,greedy,mcts:100,mcts:1000]
                                      [--scenario battlelore/spider_ford.yaml] [--max-rounds R]
                                      [--mirror mcts:200 --mirror-games M]

For each step (weaker, stronger) of the ladder and each scenario, ``N`` games are played with
the stronger player on the first side and ``N`` with it on the second (both seatings: a
scenario may favour a side), through ``hexlore.sweep`` (the process pool, seeded: the same
command prints the same table). Each row gives the stronger player's share of the games
with its 95% Wilson interval, per seating and in all, the share of games that ended by
victory rather than by the round limit, and the stronger player's search cost per decision.
A ladder holds when every step's lower bound is above one half.

``--mirror P`` then plays ``M`` games of P against itself on each scenario and gives the share
that ended by victory (not by the round limit or a draw), with its interval, and who won.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import hexlore  # noqa: E402
from hexlore.runtime.analysis.stats import wilson  # noqa: E402

#: the playable scenario of each bundled pack and its two sides, in seating order
SCENARIOS = [
    ("battlelore/spider_ford.yaml", ("north", "south")),
    ("tickclock/ruins.yaml", ("dawn", "dusk")),
    ("westeros/skirmish.yaml", ("stark", "lannister")),
    ("skirmish/village_raid.yaml", ("north", "south")),
]


def match(scenario: str, sides: tuple[str, str], strong: str, weak: str, games: int, workers: int,
          seed: int, max_rounds: int | None) -> dict:
    """``games`` games in each seating; the stronger player's wins and the games decided."""
    out = {"wins": 0, "games": 0, "decided": 0, "seatings": []}
    for k, (first, second) in enumerate(((strong, weak), (weak, strong))):
        policies = {sides[0]: first, sides[1]: second}
        report, diagnostics, _ = hexlore.sweep(str(ROOT / "scenarios" / scenario), games, workers=workers,
                                               seed=seed + k, policies=policies, max_rounds=max_rounds)
        if report is None:
            raise SystemExit("\n".join(d.headline() for d in diagnostics))
        strong_side = sides[0] if k == 0 else sides[1]
        wins = report["wins"][strong_side]["count"]
        out["wins"] += wins
        out["games"] += games
        out["decided"] += report["ended_by_victory"]["count"]
        out["seatings"].append((strong_side, wins, games))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10, help="games per seating, per step and scenario")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--ladder", default="random,greedy,mcts:100,mcts:1000")
    parser.add_argument("--scenario", action="append", help="only these scenarios (repeatable)")
    parser.add_argument("--max-rounds", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--mirror", help="also play this player against itself on each scenario")
    parser.add_argument("--mirror-games", type=int, default=10, help="games of the mirror match per scenario")
    args = parser.parse_args()
    ladder = args.ladder.split(",")
    wanted = {name.removesuffix(".yaml") + ".yaml" for name in args.scenario or ()}
    unknown = wanted - {s[0] for s in SCENARIOS}
    if unknown:
        parser.error(f"no such playable scenario: {', '.join(sorted(unknown))} "
                     f"(choose among {', '.join(s[0].removesuffix('.yaml') for s in SCENARIOS)})")
    chosen = [s for s in SCENARIOS if not wanted or s[0] in wanted]
    print(f"strength ladder: {' < '.join(ladder)}; {args.games} games per seating, seed {args.seed}")
    print("| scenario | stronger vs weaker | stronger wins (95%) | first seat | second seat | ended by victory | s/game |")
    print("|---|---|---|---|---|---|---|")
    for scenario, sides in chosen:
        for weak, strong in zip(ladder, ladder[1:]):
            start = time.perf_counter()
            m = match(scenario, sides, strong, weak, args.games, args.workers, args.seed, args.max_rounds)
            took = (time.perf_counter() - start) / m["games"]
            lo, hi = wilson(m["wins"], m["games"])
            seats = [f"{w}/{n} ({side})" for side, w, n in m["seatings"]]
            print(f"| {scenario} | {strong} vs {weak} | {m['wins']}/{m['games']} = {100 * m['wins'] / m['games']:.0f}% "
                  f"({100 * lo:.0f}–{100 * hi:.0f}%) | {seats[0]} | {seats[1]} | "
                  f"{100 * m['decided'] / m['games']:.0f}% | {took:.1f} |", flush=True)
    if args.mirror:
        mirror(chosen, args.mirror, args.mirror_games, args.workers, args.seed, args.max_rounds)


def mirror(chosen: list, player: str, games: int, workers: int, seed: int, max_rounds: int | None) -> None:
    """``player`` against itself: how many games end by victory, and who won them."""
    print(f"\n{player} against itself, {games} games a scenario, seed {seed}")
    print("| scenario | ended by victory (95%) | wins | rounds (mean) | s/game |")
    print("|---|---|---|---|---|")
    for scenario, sides in chosen:
        start = time.perf_counter()
        report, diagnostics, _ = hexlore.sweep(str(ROOT / "scenarios" / scenario), games, workers=workers, seed=seed,
                                               policies={"all": player}, max_rounds=max_rounds)
        if report is None:
            raise SystemExit("\n".join(d.headline() for d in diagnostics))
        decided = report["ended_by_victory"]["count"]
        lo, hi = wilson(decided, games)
        wins = ", ".join(f"{side} {report['wins'][side]['count']}" for side in sides)
        print(f"| {scenario} | {decided}/{games} = {100 * decided / games:.0f}% ({100 * lo:.0f}–{100 * hi:.0f}%) | "
              f"{wins} | {report['length']['mean']:.1f} | {(time.perf_counter() - start) / games:.1f} |", flush=True)


if __name__ == "__main__":
    main()
