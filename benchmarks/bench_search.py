"""What a searching player and a greedy game cost: futures per CPU-second of ``mcts:400``, CPU
seconds per ``greedy`` game, this tree against another revision in the same run.

    python benchmarks/bench_search.py [--against c4f1eeb] [--decisions 3] [--games 10]
                                      [--instructions] [--scenario battlelore/spider_ford]

**Searches**: in each scenario of :data:`SEARCHES`, one seeded game where one side is
``mcts:400`` (its stream seeded ``"{seed}:{side}"``, as ``search_diag.py`` does) and every other
side ``greedy``, stopped when the searching side is asked its ``--decisions + 1``-th decision
with more than one option; the figure is the futures it played per CPU-second of its searches
(``SearchCost``). **Greedy games**: seeds 0..N-1 of each scenario, every side ``greedy``; the
figure is games per CPU-second. Each tree plays in a child process of its own whose current
directory holds the package measured, the two trees alternating, and the logs written so far
must be the same bytes (``same logs``): a search that does less work must still play the same
game.

``--against REV`` exports revision REV's package (``git archive``) beside this tree's packs and
scenarios; this tree is itself copied first, so that an edit made during the run does not slip
into half of it. ``--instructions`` counts CPU instructions with valgrind's callgrind instead of
timing (the count does not move with the machine's load): each child runs under callgrind
once with the work and once with none (the search stopped at its first decision, no greedy
game), and the difference is divided by the futures (or games) played.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_interpreter as interp  # noqa: E402  (export and snapshot: one way to take a tree)

ROOT = interp.ROOT

#: (scenario, the searching side, the game's seed): the issue's two searches
SEARCHES = [("battlelore/spider_ford.yaml", "north", 100), ("tickclock/ruins.yaml", "dawn", 100)]
#: scenarios whose greedy games are measured
GREEDY = ["battlelore/spider_ford.yaml", "tickclock/ruins.yaml", "skirmish/village_raid.yaml",
          "westeros/skirmish.yaml"]

# One child: "mcts" plays until the searching side has answered COUNT decisions; "greedy" plays
# COUNT games from SEED. Prints cpu seconds, the futures and their cpu, and the logs' digest.
CHILD = r"""
import hashlib, io, json, sys, time
from hexlore.api import open_scenario
from hexlore.runtime.engine.game import Game
from hexlore.runtime.engine.search import SearchPolicy

class Enough(BaseException):
    "the searching side has answered its decisions: stop the game here"

mode, path, side, seed, count, sims = sys.argv[1:3] + [sys.argv[3]] + [int(x) for x in sys.argv[4:7]]
loaded = open_scenario(path)
assert loaded.ok, [d.headline() for d in loaded.diagnostics]
policies = {s.name: "greedy" for s in loaded.scenario.sides}

class Counted(SearchPolicy):
    def choose(self, decision):
        if len(decision.options) > 1 and self.cost.searches >= count:
            raise Enough()
        return super().choose(decision)

player = None
out = io.StringIO()
start = time.process_time()
try:
    if mode == "mcts":
        player = policies[side] = Counted(f"{seed}:{side}", simulations=sims)
        Game(loaded.rules, loaded.scenario, seed=seed, log_file=out, policies=policies).play()
    else:
        for s in range(seed, seed + count):
            Game(loaded.rules, loaded.scenario, seed=s, log_file=out, policies=policies).play()
except Enough:
    pass
cpu = time.process_time() - start
print(json.dumps({"cpu": cpu, "digest": hashlib.sha256(out.getvalue().encode()).hexdigest(),
                  "futures": player.cost.simulations if player else 0,
                  "search_cpu": player.cost.seconds if player else 0.0}))
"""


def child(tree: Path, args: list[str], callgrind: bool = False) -> dict:
    """Run :data:`CHILD` on the package of ``tree``; with ``callgrind``, also its instructions."""
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": "0"}
    command = [sys.executable, "-c", CHILD, *args]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        if callgrind:
            # no parser cache: each run builds the grammar's tables alike, whatever else runs
            env["HEXLORE_NO_CACHE"] = "1"
            command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *command]
        done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"the child failed under {tree}:\n{done.stderr[-3000:]}")
        result = json.loads(done.stdout.strip().splitlines()[-1])
        if callgrind:
            text = out.read_text()
            found = re.search(r"^totals:\s+(\d+)", text, re.M) or re.search(r"^summary:\s+(\d+)", text, re.M)
            result["instructions"] = int(found.group(1))
    return result


def search_args(name: str, side: str, seed: int, decisions: int, sims: int) -> list[str]:
    return ["mcts", str(Path("scenarios") / name), side, str(seed), str(decisions), str(sims)]


def greedy_args(name: str, games: int) -> list[str]:
    return ["greedy", str(Path("scenarios") / name), "-", "0", str(games), "0"]


def measure(trees: dict[str, Path], args: list[str], none: list[str], instructions: bool) -> dict[str, dict]:
    """Each tree's run of ``args`` (alternating), and with ``instructions`` its count less the
    count of ``none`` (the same child with no work)."""
    runs: dict[str, dict] = {}
    for who in trees:
        runs[who] = child(trees[who], args)  # also compiles each tree's bytecode before counting
        if instructions:
            runs[who]["instructions"] = (child(trees[who], args, True)["instructions"]
                                         - child(trees[who], none, True)["instructions"])
    return runs


def report(label: str, runs: dict[str, dict], per: str, instructions: bool) -> None:
    """One line: each tree's figure, the ratio (this tree over the other) and whether the logs agree."""
    cells = []
    for who, run in runs.items():
        amount = run["futures"] if per == "future" else run["games"]
        if instructions:
            cells.append(f"{who} {run['instructions'] / amount / 1e6:9.2f}M instr/{per}")
        else:
            cpu = run["search_cpu"] if per == "future" else run["cpu"]
            cells.append(f"{who} {amount / cpu:8.1f} {per}s/CPU-s")
    line = f"{label:34} " + "  ".join(cells)
    if len(runs) == 2:
        new, old = runs["this"], runs["other"]
        if instructions:
            ratio = old["instructions"] / new["instructions"]
        else:
            key = "search_cpu" if per == "future" else "cpu"
            ratio = old[key] / new[key]
        same = new["digest"] == old["digest"]
        line += f"  {ratio:5.2f}x  same logs: {'yes' if same else 'NO'}"
    print(line, flush=True)


def run(a: argparse.Namespace, trees: dict[str, Path]) -> None:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {os.cpu_count()} CPUs, Python {platform.python_version()}, load average {load:.1f} at start; "
          f"{'instructions (callgrind)' if a.instructions else 'CPU time'}; trees: "
          + ", ".join(f"{who}={path}" for who, path in trees.items()))
    for name, side, seed in SEARCHES:
        if a.scenario and name not in a.scenario:
            continue
        runs = measure(trees, search_args(name, side, seed, a.decisions, a.simulations),
                       search_args(name, side, seed, 0, a.simulations), a.instructions)
        report(f"mcts:{a.simulations} {name} ({side})", runs, "future", a.instructions)
    for name in GREEDY:
        if a.scenario and name not in a.scenario:
            continue
        runs = measure(trees, greedy_args(name, a.games), greedy_args(name, 0), a.instructions)
        for result in runs.values():
            result["games"] = a.games
        report(f"greedy {name}", runs, "game", a.instructions)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--against", metavar="REV", help="also measure the package of this git revision")
    p.add_argument("--decisions", type=int, default=3, help="the searching side's decisions per search run")
    p.add_argument("--simulations", type=int, default=400, help="futures per decision")
    p.add_argument("--games", type=int, default=10, help="greedy games per scenario")
    p.add_argument("--instructions", action="store_true", help="count instructions with callgrind")
    p.add_argument("--scenario", action="append", help="only this scenario (e.g. tickclock/ruins; repeatable)")
    a = p.parse_args()
    if a.scenario:
        a.scenario = {name.removesuffix(".yaml") + ".yaml" for name in a.scenario}
    with tempfile.TemporaryDirectory() as tmp:
        this = interp.snapshot(Path(tmp) / "this")
        interp.THIS = this
        trees = {"this": this}
        if a.against:
            other = Path(tmp) / "other"
            other.mkdir()
            interp.export(a.against, other, "this")
            trees["other"] = other
        run(a, trees)


if __name__ == "__main__":
    main()
