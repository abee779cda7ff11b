"""Games of one seat, one line each: which side won each of a sweep's games (the same seeds as
``hexlore sweep --seed S``: game i uses derive_seed(S, i)), and the seat's wins with a 95% Wilson
interval. A sweep reports only totals; a before/after comparison of a player wants the games
paired by seed (which changed, which way), hence this.

    python benchmarks/seat_games.py westeros/skirmish --side stark --seed 100 --games 12 \\
        --policy stark=mcts:400 --policy lannister=greedy

To pair "before" with "after", run it from a checkout of each revision (a detached
``git worktree``, with ``PYTHONPATH`` pointing at it).
"""

from __future__ import annotations

import argparse
import time

from hexlore.api import open_scenario
from hexlore.runtime.analysis.stats import wilson
from hexlore.runtime.analysis.sweep import play_game


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("scenario")
    p.add_argument("--side", required=True, help="the seat whose wins are counted")
    p.add_argument("--seed", type=int, default=0, help="the sweep's seed")
    p.add_argument("--games", type=int, default=12)
    p.add_argument("--start", type=int, default=0, help="index of the first game")
    p.add_argument("--policy", action="append", default=[], metavar="SIDE=PLAYER")
    a = p.parse_args()
    loaded = open_scenario(a.scenario)
    policies = dict(x.split("=", 1) for x in a.policy)
    wins = 0
    for i in range(a.start, a.start + a.games):
        started = time.time()
        r = play_game(loaded.rules, loaded.scenario, a.seed, i, None, policies)
        wins += r.winner == a.side
        print(i, r.winner, r.ending, r.rounds, r.error or "", f"{time.time() - started:.0f}s", flush=True)
    lo, hi = wilson(wins, a.games)
    print(f"RESULT {a.side} {wins}/{a.games} ({lo:.0%}-{hi:.0%})", flush=True)


if __name__ == "__main__":
    main()
