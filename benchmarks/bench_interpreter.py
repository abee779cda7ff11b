"""Interpreter throughput: games per second of each bundled pack's playable scenario.

    python benchmarks/bench_interpreter.py [--games N] [--against REV [--packs this|theirs|each]]
                                           [--instructions] [--scenario westeros/skirmish]

Each scenario plays seeds 0..N-1 with random players, twice: with the memo of pure functions
(hexlore/runtime/engine/core/memo.py) and without it (``Game.memoise = False``), alternating game by game
so both share the machine's load alike; the logs of the two runs must be the same bytes. With
``--against REV`` (a git revision, e.g. the commit before an optimisation) the interpreter of
that revision plays the same games on the same packs in other processes, alternating with
this tree's, and its logs must be the same bytes too. Times are CPU seconds of the games
alone (compiling the packs is left out); on a shared machine compare the ratios, which are
measured in the same run, rather than the absolute figures.

``--packs`` says whose rules the two interpreters play. ``this`` (the default): both play
this tree's packs and scenarios, and their logs must be the same bytes. ``theirs``: both play
the packs and scenarios of revision REV (this tree's interpreter must still read them), logs the
same bytes. ``each``: each interpreter plays its own revision's packs (when neither reads the other's: the
language changed in between); the two logs of a seed must
then tell the same game — the same entries in the same order, each with the same kind, round,
turn, number of options, faces rolled and winner, and the same choices up to a one-to-one
renaming — since the names of events, decisions, dice and choices may have changed.

``--instructions`` counts CPU instructions instead of time (valgrind's callgrind, which the
machine's load does not change): each tree plays seeds 0..N-1 of each scenario in one process
and again none, and the difference divided by N is its cost per game; with ``--against`` the
ratio is old instructions over new (how many times fewer a game of this tree costs), and the
same games are also played outside callgrind by both to check that they are the same games
(see ``--packs``).
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
#: the tree whose interpreter, packs and scenarios play as "this": with --against or
#: --instructions, a copy of ROOT's taken at the start (see snapshot)
THIS = ROOT

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
keep = len(sys.argv) > 5  # also print the logs themselves
loaded = open_scenario(path)
assert loaded.ok, [d.headline() for d in loaded.diagnostics]
policies = {s: "random" for s in sides}
digest, cpu, logs = hashlib.sha256(), 0.0, []
for seed in range(first, first + count):
    out = io.StringIO()
    start = time.process_time()
    Game(loaded.rules, loaded.scenario, seed=seed, log_file=out, policies=policies).play()
    cpu += time.process_time() - start
    digest.update(out.getvalue().encode())
    if keep:
        logs.append(out.getvalue())
print(json.dumps({"cpu": cpu, "digest": digest.hexdigest(), "logs": logs}))
"""

#: what two logs of one game share across revisions that renamed events, decisions or dice
GAME_KEYS = ("type", "round", "turn", "options", "faces", "winner")


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


def export(rev: str, into: Path, packs: str) -> None:
    """The hexlore package of git revision ``rev``, beside its own packs and scenarios, or
    beside this tree's when both interpreters play this tree's (``packs == "this"``): a
    revision reads its scenarios' JSON Schema from the ``scenarios`` folder next to it."""
    trees = ["hexlore"] if packs == "this" else ["hexlore", "rules", "scenarios"]
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, *trees], check=True,
                             capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    if packs == "this":
        for tree in ("rules", "scenarios"):
            shutil.copytree(THIS / tree, into / tree, ignore=shutil.ignore_patterns("__pycache__"))


def snapshot(into: Path) -> Path:
    """A copy of this tree's package, packs and scenarios, in ``into``: a comparison runs for
    minutes, and a file edited meanwhile in the working tree must not slip into half of it
    (a child that imports the edited module, or compiles its bytecode inside callgrind)."""
    for tree in ("hexlore", "rules", "scenarios"):
        shutil.copytree(ROOT / tree, into / tree, ignore=shutil.ignore_patterns("__pycache__"))
    return into


def scenario_paths(name: str, old: Path, packs: str) -> dict[str, Path]:
    """The scenario file each interpreter plays ("new": this tree's, "old": the revision's)."""
    mine, theirs = THIS / "scenarios" / name, old / "scenarios" / name
    return {"new": theirs if packs == "theirs" else mine, "old": mine if packs == "this" else theirs}


def child(package_root: Path, path: Path, sides, first: int, count: int, keep: bool = False) -> dict:
    env = {**os.environ, "PYTHONPATH": str(package_root)}
    out = subprocess.run([sys.executable, "-c", CHILD, str(path), ",".join(sides), str(first), str(count),
                          *(["keep"] if keep else [])],
                         cwd=package_root, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"the games failed under {package_root}:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def game_of(log: str) -> tuple[list[tuple], list]:
    """What a log says happened, without the names of its events, decisions and dice: each
    entry's kind, round, turn, options, faces and winner, and apart the choices made."""
    entries = [json.loads(line) for line in log.splitlines()]
    return [tuple(e.get(key) for key in GAME_KEYS) for e in entries], [e.get("choice") for e in entries]


def same_game(new: str, old: str) -> bool:
    """Do two logs tell the same game? The same entries, and the same choices up to a one-to-one
    renaming (an action chosen as ``sk_attack`` by one revision and ``attack`` by the other)."""
    (entries, choices), (old_entries, old_choices) = game_of(new), game_of(old)
    if entries != old_entries:
        return False
    renamed: dict = {}
    taken: dict = {}
    for a, b in zip(choices, old_choices):
        a, b = json.dumps(a), json.dumps(b)
        if renamed.setdefault(a, b) != b or taken.setdefault(b, a) != a:
            return False
    return True


def same_games(old: Path, paths: dict[str, Path], sides, games: int, packs: str) -> bool:
    """Do both interpreters play the same games (bytes; or, with ``--packs each``, the same
    game in each log)?"""
    new_run = child(THIS, paths["new"], sides, 0, games, keep=True)
    old_run = child(old, paths["old"], sides, 0, games, keep=True)
    if packs != "each":
        return new_run["digest"] == old_run["digest"]
    return all(same_game(a, b) for a, b in zip(new_run["logs"], old_run["logs"], strict=True))


def against(rev: str, name: str, sides, games: int, chunk: int, packs: str) -> tuple[float, float, bool]:
    """Games per second of this tree and of revision ``rev``, in alternating child processes."""
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp)
        export(rev, old, packs)
        paths = scenario_paths(name, old, packs)
        cpu = {"new": 0.0, "old": 0.0}
        logs: dict[str, list] = {"new": [], "old": []}
        for n, first in enumerate(range(0, games, chunk)):
            count = min(chunk, games - first)
            for who in (("new", "old") if n % 2 == 0 else ("old", "new")):
                result = child(THIS if who == "new" else old, paths[who], sides, first, count, keep=packs == "each")
                cpu[who] += result["cpu"]
                logs[who].extend(result["logs"] if packs == "each" else [result["digest"]])
        if packs == "each":
            same = all(same_game(a, b) for a, b in zip(logs["new"], logs["old"], strict=True))
        else:
            same = logs["new"] == logs["old"]
        return games / cpu["new"], games / cpu["old"], same


def _instructions(package_root: Path, path: Path, sides, count: int) -> int:
    """Instructions callgrind counts for a child playing ``count`` games (compiling included)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        # one hash seed for every process: string hashing and set order then cost the same each time
        # and no parser cache: each run builds the grammar's tables alike, whatever else runs
        env = {**os.environ, "PYTHONPATH": str(package_root), "PYTHONHASHSEED": "0", "HEXLORE_NO_CACHE": "1"}
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, "-c", CHILD,
                        str(path), ",".join(sides), "0", str(count)], cwd=package_root, env=env, check=True,
                       capture_output=True)
        text = out.read_text()
        found = re.search(r"^totals:\s+(\d+)", text, re.M) or re.search(r"^summary:\s+(\d+)", text, re.M)
        return int(found.group(1))


def per_game_instructions(package_root: Path, path: Path, sides, games: int) -> float:
    # one game first outside callgrind, so that both counted runs find every module compiled
    # (a freshly exported revision has no bytecode yet: the first run would pay for it)
    child(package_root, path, sides, 0, 1)
    return (_instructions(package_root, path, sides, games) - _instructions(package_root, path, sides, 0)) / games


def instructions(games: int, rev: str | None, packs: str) -> None:
    print(f"instructions per game (callgrind; seeds 0..{games - 1} less none, random players)")
    print(f"{'scenario':30} {'this':>14}" + (f" {rev[:9]:>14} {'ratio':>6}  same games" if rev else ""))
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp)
        if rev:
            export(rev, old, packs)
        for name, sides in SCENARIOS:
            paths = scenario_paths(name, old, packs)
            new = per_game_instructions(THIS, paths["new"], sides, games)
            line = f"{name:30} {new:14,.0f}"
            if rev:
                before = per_game_instructions(old, paths["old"], sides, games)
                same = same_games(old, paths, sides, games, packs)
                line += f" {before:14,.0f} {before / new:5.2f}x  {'yes' if same else 'NO'}"
            print(line, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="games per scenario and per variant")
    parser.add_argument("--against", metavar="REV", help="also compare with the interpreter of this git revision")
    parser.add_argument("--chunk", type=int, default=20, help="games per child process with --against")
    parser.add_argument("--scenario", action="append",
                        help="only this scenario (e.g. westeros/skirmish; repeatable)")
    parser.add_argument("--packs", choices=("this", "theirs", "each"), default="this",
                        help="with --against: whose packs and scenarios each interpreter plays")
    parser.add_argument("--instructions", action="store_true",
                        help="count instructions per game with valgrind instead of timing them")
    args = parser.parse_args()
    if args.scenario:
        wanted = {name.removesuffix(".yaml") + ".yaml" for name in args.scenario}
        unknown = wanted - {name for name, _ in SCENARIOS}
        if unknown:
            parser.error(f"no playable scenario {', '.join(sorted(unknown))}; "
                         f"choose among {', '.join(name for name, _ in SCENARIOS)}")
        SCENARIOS[:] = [row for row in SCENARIOS if row[0] in wanted]
    global THIS
    with tempfile.TemporaryDirectory() as tmp:
        if args.instructions or args.against:
            THIS = snapshot(Path(tmp))
        run(args)


def run(args) -> None:
    if args.instructions:
        return instructions(args.games, args.against, args.packs)
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
        print(f"\nthis tree against revision {args.against} (packs: {args.packs}; same seeds; games/s):")
        print(f"{'scenario':30} {'this':>9} {args.against[:9]:>9} {'ratio':>6}  same logs")
        for name, sides in rows:
            new, old, same = against(args.against, name, sides, args.games, args.chunk, args.packs)
            print(f"{name:30} {new:7.1f}/s {old:7.1f}/s {new / old:5.2f}x  {'yes' if same else 'NO'}", flush=True)


if __name__ == "__main__":
    main()
