"""What the searching player saw at each decision of one game: a diagnostic, not a benchmark.

One seeded game, SIDE played by ``mcts`` (``SearchPolicy``), every other side by ``greedy``.
For each decision the search answered it prints the decision, the option taken and the one
the rules prefer (what ``greedy`` would take), then the root's options (label:futures:mean
reward), and per decision:

- ``zero``: the share of futures whose evaluated lead did not move from the root's (nothing
  the evaluation sees happened before the cut);
- ``end``: the share of futures that reached the end of the game;
- ``gap``: the mean reward of the best trusted option less the second's, to compare with
  ``se``, a rough standard error of those means (0.2 / sqrt(futures of the less tried)).

    python benchmarks/search_diag.py skirmish/village_raid --side south --seed 100 --game 0 \\
        --simulations 400

(game i uses derive_seed(SEED, i), as ``seat_games.py`` and ``hexlore sweep`` do; the search's
own stream is seeded as ``exp`` scripts do, "{seed}:{side}", so a game here is not the same game
as in a sweep.) It wraps private parts of ``hexlore.runtime.engine.search``: a tool for
looking, which may need mending when the search changes.
"""

from __future__ import annotations

import argparse
import time

from hexlore.api import open_scenario
from hexlore.runtime.analysis.stats import derive_seed
from hexlore.runtime.engine import search as S
from hexlore.runtime.engine.game import Game


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("scenario")
    p.add_argument("--side", required=True)
    p.add_argument("--seed", type=int, default=100)
    p.add_argument("--game", type=int, default=0)
    p.add_argument("--simulations", type=int, default=400)
    a = p.parse_args()

    seen: dict = {}
    rewards = S._Search._rewards
    run = S._Search.run

    def counting_rewards(self):
        r = rewards(self)
        if self.game.state.winner is not None:
            seen["end"] += 1
        else:
            leads = S._leads(self._scores(), self.sides)
            seen["zero"] += leads[a.side] == self.root_leads[a.side]
        seen["futures"] += 1
        return r

    def keeping_run(self):
        index = run(self)
        seen["root"] = self.root
        return index

    S._Search._rewards = counting_rewards
    S._Search.run = keeping_run

    class Looking(S.SearchPolicy):
        def choose(self, decision):
            if len(decision.options) <= 1:
                return 0
            seen.update(end=0, zero=0, futures=0)
            i = super().choose(decision)
            scores = decision.scores
            g = scores.index(max(scores)) if scores else (decision.default or 0)
            edges = sorted(seen["root"].edges.items(), key=lambda kv: -kv[1].visits)
            top = max((e.visits for _, e in edges), default=0)
            trusted = sorted((e.mean, e.visits) for _, e in edges if e.visits and 4 * e.visits >= top)
            gap = trusted[-1][0] - trusted[-2][0] if len(trusted) > 1 else 0.0
            se = 0.2 / min(v for _, v in trusted) ** 0.5 if trusted else 0.0
            n = max(1, seen["futures"])
            print(f"round {self.game.state.game['round']} {decision.name} ({len(decision.options)} options): "
                  f"took {decision.labels[i]}, the rules prefer {decision.labels[g]}; "
                  f"zero {seen['zero'] / n:.2f} end {seen['end'] / n:.2f} gap {gap:.3f} se {se:.3f}")
            print("    " + " ".join(f"{label}:{e.visits}:{e.mean:.3f}" for (_, label), e in edges), flush=True)
            return i

    loaded = open_scenario(a.scenario)
    seed = derive_seed(a.seed, a.game)
    policies = {s.name: "greedy" for s in loaded.scenario.sides}
    policies[a.side] = Looking(f"{seed}:{a.side}", simulations=a.simulations)
    started = time.time()
    result = Game(loaded.rules, loaded.scenario, seed=seed, policies=policies).play()
    print(f"winner {result.winner}, {result.rounds} rounds, {time.time() - started:.0f}s")


if __name__ == "__main__":
    main()
