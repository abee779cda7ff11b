"""Where a random game's time goes: the share of each part of hexlore in its self time.

    python benchmarks/time_shares.py [--games 30] [--scenario westeros/skirmish.yaml]

Each bundled playable scenario plays seeds 0..N-1 with random players once to warm up (the
rules compiled, every memo table made), then again under cProfile; the self time of every
function is summed by the part of hexlore it belongs to:

- *rules*: the functions compiled from the packs (``<hexlore rules …>``), the only code whose
  cost the compiler decides;
- *primitives*: the built-ins the rules call (``runtime/engine/builtins/``, ``compiled/support.py``);
- *geometry*: movement searches, lines of sight, the grid;
- *log*: the event log (``event_log.py``);
- *memo*: the memo of pure functions;
- *engine*: the rest of ``hexlore/runtime`` (the play loop, decisions, policies, state, dice);
- *Python*: Python itself, its built-ins, methods and standard library (dict look-ups,
  ``len``, ``list.append``, ``random``…), where Python called them; called by one of the
  parts above, they count to that part (a dict look-up the rules make is the rules' cost).

The last column is what the rules' share leaves room for: how many times faster a game could
be if the rules' own code cost nothing at all (1 / (1 - share)). cProfile adds a cost to every
Python call, so parts made of many small calls weigh somewhat more here than they do in a
game played without it: read the shares as rough, and compare them within one run.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
from collections import Counter

from hexlore.api import open_scenario
from hexlore.runtime.engine.game import Game

SCENARIOS = ["skirmish/village_raid.yaml", "tickclock/ruins.yaml", "westeros/skirmish.yaml",
             "battlelore/spider_ford.yaml"]
PARTS = ["rules", "primitives", "geometry", "log", "memo", "engine", "Python"]


def part_of(filename: str) -> str:
    """The part of hexlore a profiled function's file belongs to (see the module's docstring)."""
    if filename.startswith("<hexlore rules"):
        return "rules"
    if "hexlore" not in filename or filename.startswith("<") or filename == "~":
        return "Python"
    if "/geometry/" in filename:
        return "geometry"
    if filename.endswith("event_log.py"):
        return "log"
    if filename.endswith("memo.py"):
        return "memo"
    if "/engine/builtins/" in filename or filename.endswith("compiled/support.py"):
        return "primitives"
    return "engine"


def shares(scenario: str, games: int) -> dict[str, float]:
    """Each part's share of the self time of ``games`` random games of ``scenario``."""
    loaded = open_scenario(scenario)
    players = {s.name: "random" for s in loaded.scenario.sides}

    def play() -> None:
        for seed in range(games):
            Game(loaded.rules, loaded.scenario, seed=seed, log_file=io.StringIO(),
                 policies=dict(players)).play()

    play()
    profile = cProfile.Profile()
    profile.enable()
    play()
    profile.disable()
    totals: Counter = Counter()
    for (filename, _, _), (_, _, self_time, _, callers) in pstats.Stats(profile).stats.items():
        part = part_of(filename)
        if part != "Python" or not callers:
            totals[part] += self_time
            continue
        # Python's own functions count to the part that called them (a dict look-up the
        # rules make is the rules' cost), in proportion to each caller's share of the calls
        calls = sum(stat[1] for stat in callers.values()) or 1
        for (caller_file, _, _), stat in callers.items():
            totals[part_of(caller_file)] += self_time * stat[1] / calls
    whole = sum(totals.values()) or 1.0
    return {part: totals[part] / whole for part in PARTS}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=30)
    p.add_argument("--scenario", action="append", help="a scenario (default: every bundled playable one)")
    a = p.parse_args()
    print("| scenario | " + " | ".join(PARTS) + " | if the rules cost nothing |")
    print("|---" * (len(PARTS) + 2) + "|")
    for scenario in a.scenario or SCENARIOS:
        found = shares(scenario, a.games)
        ceiling = 1.0 / (1.0 - found["rules"]) if found["rules"] < 1 else float("inf")
        cells = " | ".join(f"{found[part]:.0%}" for part in PARTS)
        print(f"| {scenario} | {cells} | {ceiling:.2f}× |", flush=True)


if __name__ == "__main__":
    main()
