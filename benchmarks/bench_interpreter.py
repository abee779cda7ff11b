"""Interpreter throughput: games per second of each bundled pack's playable scenario.

    python benchmarks/bench_interpreter.py [--games N] [--against REV]

Each scenario plays seeds 0..N-1 with random players, twice: with the memo of pure functions
(hexlore/runtime/engine/memo.py) and without it (``Game.memoise = False``), alternating game by game
so both share the machine's load alike; the logs of the two runs must be the same bytes. With
``--against REV`` (a git revision, e.g. the commit before an optimisation) the interpreter of
that revision plays the same games on the same packs in other processes, alternating with
this tree's, and its logs must be the same bytes too. Times are CPU seconds of the games
alone (compiling the packs is left out); on a shared machine compare the ratios, which are
measured in the same run, rather than the absolute figures.

``--instructions`` counts CPU instructions instead of time (valgrind's callgrind, which the
machine's load does not change): each tree plays seeds 0..N-1 of each scenario in one process
and again none, and the difference divided by N is its cost per game; with ``--against`` the
ratio is old instructions over new (how many times fewer a game of this tree costs).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: (scenario, the sides' names): the playable scenario of each bundled pack
SCENARIOS = [
    ("skirmish/village_raid.yaml", ("north", "south")),
    ("tickclock/ruins.yaml", ("dawn", "dusk")),
    ("westeros/skirmish.yaml", ("stark", "lannister")),
    ("battlelore/spider_ford.yaml", ("north", "south")),
]

# Plays games of one scenario and prints {"cpu": seconds, "digest": sha256 of the logs}; run
# in a child process whose current directory holds the hexlore package to measure.
CHILD = r"""
import hashlib, io, json, sys, time
from hexlore.api import open_scenario
try:
    from hexlore.runtime.engine.game import Game
except ImportError:  # a revision before the runtime's rooms (issue 14)
    from hexlore.runtime.game import Game
path, sides, first, count = sys.argv[1], sys.argv[2].split(","), int(sys.argv[3]), int(sys.argv[4])
loaded = open_scenario(path)
assert loaded.ok, [d.headline() for d in loaded.diagnostics]
policies = {s: "random" for s in sides}
digest, cpu = hashlib.sha256(), 0.0
for seed in range(first, first + count):
    out = io.StringIO()
    start = time.process_time()
    Game(loaded.rules, loaded.scenario, seed=seed, log_file=out, policies=policies).play()
    cpu += time.process_time() - start
    digest.update(out.getvalue().encode())
print(json.dumps({"cpu": cpu, "digest": digest.hexdigest()}))
"""


def memo_ratio(path: Path, sides: tuple[str, ...], games: int) -> tuple[float, float, bool]:
    """Games per second with and without the memo, alternating game by game; same logs?"""
    sys.path.insert(0, str(ROOT))
    from hexlore.api import open_scenario
    from hexlore.runtime.engine.game import Game

    loaded = open_scenario(str(path))
    assert loaded.ok, [d.headline() for d in loaded.diagnostics]
    policies = {s: "random" for s in sides}
    cpu = {True: 0.0, False: 0.0}
    same = True
    for seed in range(games):
        logs = {}
        for memoise in ((True, False) if seed % 2 else (False, True)):
            out = io.StringIO()
            game = Game(loaded.rules, loaded.scenario, seed=seed, log_file=out, policies=policies)
            game.memoise = memoise
            start = time.process_time()
            game.play()
            cpu[memoise] += time.process_time() - start
            logs[memoise] = out.getvalue()
        same = same and logs[True] == logs[False]
    return games / cpu[True], games / cpu[False], same


def export(rev: str, into: Path) -> None:
    """The hexlore package of git revision ``rev``, next to this tree's rules and scenarios."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "hexlore"], check=True,
                             capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    for tree in ("rules", "scenarios"):
        shutil.copytree(ROOT / tree, into / tree)


def child(package_root: Path, path: Path, sides, first: int, count: int) -> dict:
    env = {**os.environ, "PYTHONPATH": str(package_root)}
    out = subprocess.run([sys.executable, "-c", CHILD, str(path), ",".join(sides), str(first), str(count)],
                         cwd=package_root, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"the games failed under {package_root}:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def against(rev: str, path: Path, sides, games: int, chunk: int) -> tuple[float, float, bool]:
    """Games per second of this tree and of revision ``rev``, in alternating child processes."""
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp)
        export(rev, old)
        cpu = {"new": 0.0, "old": 0.0}
        digests: dict[str, list[str]] = {"new": [], "old": []}
        for n, first in enumerate(range(0, games, chunk)):
            count = min(chunk, games - first)
            for who in (("new", "old") if n % 2 == 0 else ("old", "new")):
                result = child(ROOT if who == "new" else old, path, sides, first, count)
                cpu[who] += result["cpu"]
                digests[who].append(result["digest"])
        return games / cpu["new"], games / cpu["old"], digests["new"] == digests["old"]


def _instructions(package_root: Path, path: Path, sides, count: int) -> int:
    """Instructions callgrind counts for a child playing ``count`` games (compiling included)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        # one hash seed for every process: string hashing and set order then cost the same each time
        env = {**os.environ, "PYTHONPATH": str(package_root), "PYTHONHASHSEED": "0"}
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, "-c", CHILD,
                        str(path), ",".join(sides), "0", str(count)], cwd=package_root, env=env, check=True,
                       capture_output=True)
        text = out.read_text()
        found = re.search(r"^totals:\s+(\d+)", text, re.M) or re.search(r"^summary:\s+(\d+)", text, re.M)
        return int(found.group(1))


def per_game_instructions(package_root: Path, path: Path, sides, games: int) -> float:
    return (_instructions(package_root, path, sides, games) - _instructions(package_root, path, sides, 0)) / games


def instructions(games: int, rev: str | None) -> None:
    print(f"instructions per game (callgrind; seeds 0..{games - 1} less none, random players)")
    print(f"{'scenario':30} {'this':>14}" + (f" {rev[:9]:>14} {'ratio':>6}" if rev else ""))
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp)
        if rev:
            export(rev, old)
        for name, sides in SCENARIOS:
            path = ROOT / "scenarios" / name
            new = per_game_instructions(ROOT, path, sides, games)
            line = f"{name:30} {new:14,.0f}"
            if rev:
                before = per_game_instructions(old, path, sides, games)
                line += f" {before:14,.0f} {before / new:5.2f}x"
            print(line, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="games per scenario and per variant")
    parser.add_argument("--against", metavar="REV", help="also compare with the interpreter of this git revision")
    parser.add_argument("--chunk", type=int, default=20, help="games per child process with --against")
    parser.add_argument("--instructions", action="store_true",
                        help="count instructions per game with valgrind instead of timing them")
    args = parser.parse_args()
    if args.instructions:
        return instructions(args.games, args.against)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {os.cpu_count()} CPUs, Python {platform.python_version()}, load average {load:.1f} at "
          f"start; {args.games} games per scenario and variant (seeds 0..{args.games - 1}, random players)")
    print(f"{'scenario':30} {'memo':>9} {'no memo':>9} {'ratio':>6}  same logs")
    rows = []
    for name, sides in SCENARIOS:
        with_memo, without, same = memo_ratio(ROOT / "scenarios" / name, sides, args.games)
        rows.append((name, sides))
        print(f"{name:30} {with_memo:7.1f}/s {without:7.1f}/s {with_memo / without:5.2f}x  {'yes' if same else 'NO'}",
              flush=True)
    if args.against:
        print(f"\nthis tree against revision {args.against} (same packs, same seeds; games/s):")
        print(f"{'scenario':30} {'this':>9} {args.against[:9]:>9} {'ratio':>6}  same logs")
        for name, sides in rows:
            new, old, same = against(args.against, ROOT / "scenarios" / name, sides, args.games, args.chunk)
            print(f"{name:30} {new:7.1f}/s {old:7.1f}/s {new / old:5.2f}x  {'yes' if same else 'NO'}", flush=True)


if __name__ == "__main__":
    main()
