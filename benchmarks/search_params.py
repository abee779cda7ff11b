"""One seat of the searching player with chosen search settings, against ``greedy``.

    python benchmarks/search_params.py benchmarks/variants/jv1.yaml --side north --games 12 \\
        --settings '{"simulations": 400, "greed": 1.0}'

``--settings`` are keyword arguments of :class:`hexlore.runtime.engine.search.SearchPolicy`
(``simulations``, ``depth``, ``turns``, ``greed``, ``exploration``, ``flat``, ``preferred``):
settings the ``mcts:N`` spelling does not reach. Game i uses derive_seed(SEED, i), as ``seat_games.py`` does, but the
search's own stream is seeded "{game seed}:{side}", so a game here is not the game of the same
seed in a sweep. Prints each game's winner and the seat's wins with a 95% Wilson interval.
"""

from __future__ import annotations

import argparse
import json
import time

from hexlore.api import open_scenario
from hexlore.runtime.analysis.stats import derive_seed, wilson
from hexlore.runtime.engine.game import Game
from hexlore.runtime.engine.search import SearchPolicy


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("scenario")
    p.add_argument("--side", required=True, help="the seat the search plays")
    p.add_argument("--seed", type=int, default=100)
    p.add_argument("--games", type=int, default=12)
    p.add_argument("--settings", default="{}", help="SearchPolicy keyword arguments, as JSON")
    a = p.parse_args()
    settings = json.loads(a.settings)
    loaded = open_scenario(a.scenario)
    wins = 0
    for i in range(a.games):
        seed = derive_seed(a.seed, i)
        started = time.time()
        policies = {s.name: "greedy" for s in loaded.scenario.sides}
        policies[a.side] = SearchPolicy(f"{seed}:{a.side}", **settings)
        result = Game(loaded.rules, loaded.scenario, seed=seed, policies=policies).play()
        wins += result.winner == a.side
        print(i, result.winner, result.rounds, f"{time.time() - started:.0f}s", flush=True)
    lo, hi = wilson(wins, a.games)
    print(f"RESULT {a.side} {settings} {wins}/{a.games} ({lo:.0%}-{hi:.0%})")


if __name__ == "__main__":
    main()
