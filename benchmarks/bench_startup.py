"""Start-up of the ``hexlore`` command, against the floor of importing its parsers.

    python benchmarks/bench_startup.py [--runs 15] [--against REV]

Each command below runs ``--runs`` times in fresh processes, the commands taking turns (one run
of each, then the next round), so that they share the machine's load alike; their median wall
times are printed with their ratio to the first, the floor any Lark- and YAML-based tool pays:

- ``python -c "import lark, yaml"``;
- ``hexlore --help``;
- ``hexlore check small.lore``: a one-function pack (a warning, no error), the parser's tables
  loaded from the user cache (hexlore/dsl/parser_cache.py), the usual case after the first run
  on a machine;
- the same with ``HEXLORE_NO_CACHE=1``: the tables analysed from the grammar, as on a first run;
- ``hexlore run battlelore/spider_ford --seed 7``: a whole bundled game;
- ``hexlore odds`` of a 1-die attack on the Giant Spider (tests/fixtures/odds/spider_attack.yaml).

With ``--against REV`` (a git revision, e.g. the commit before a change), every hexlore
command is also run from an export of that revision (``git archive``, on ``PYTHONPATH``), its
runs taking turns with the others'.

Every command is run once before timing (it fills the cache and byte-compiles hexlore's
modules). ``PYTHONDONTWRITEBYTECODE`` is cleared for the runs: an installed wheel has its
bytecode compiled by pip, and a setting that makes every start recompile hexlore's sources
from text would measure the compiler, not the start-up.
"""

from __future__ import annotations

import argparse
import io
import os
import platform
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SMALL_PACK = "pack small\n\nfunction double(x: int) -> int = x * 2\n"
FLOOR = 'python -c "import lark, yaml"'
ODDS = ["odds", str(ROOT / "tests" / "fixtures" / "odds" / "spider_attack.yaml"),
        "--given", "{attacker: {melee_dice: 1, counts_bonus_strike: true}}",
        "--action", "strike(attacker: attacker, target: spider, melee: true)", "--outcome", "spider.alive"]


def _timed(command: list[str], env: dict, cwd: Path) -> float:
    """Wall time of one run; ``cwd`` outside any tree, so that ``-m hexlore`` takes the package
    the environment names, not one in the working directory."""
    start = time.perf_counter()
    subprocess.run(command, env=env, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def commands(pack: Path) -> dict[str, tuple[list[str], dict]]:
    """The commands timed, by the name printed, with their environments."""
    warm = {k: v for k, v in os.environ.items() if k not in ("HEXLORE_NO_CACHE", "PYTHONDONTWRITEBYTECODE")}
    cold = dict(warm, HEXLORE_NO_CACHE="1")
    hexlore = [sys.executable, "-m", "hexlore"]
    return {
        FLOOR: ([sys.executable, "-c", "import lark, yaml"], warm),
        "hexlore --help": ([*hexlore, "--help"], warm),
        "hexlore check small.lore": ([*hexlore, "check", str(pack)], warm),
        "  the same, no cached tables": ([*hexlore, "check", str(pack)], cold),
        "hexlore run battlelore/spider_ford": ([*hexlore, "run", "battlelore/spider_ford", "--seed", "7"], warm),
        "hexlore odds (1 die)": ([*hexlore, *ODDS], warm),
    }


def export(rev: str, into: Path) -> None:
    """The tree of git revision ``rev`` (package, rules, scenarios) in ``into``."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")


def with_revision(timed: dict, rev: str, tree: Path) -> dict:
    """Each hexlore command followed by the same command run from ``tree``."""
    out = {}
    for name, (command, env) in timed.items():
        out[name] = (command, env)
        if name != FLOOR:
            out[f"{rev[:10]}: {name.strip()}"] = (command, dict(env, PYTHONPATH=str(tree)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--against", metavar="REV", help="also time the commands of this git revision")
    args = parser.parse_args()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {os.cpu_count()} CPUs, {platform.processor() or platform.machine()}, "
          f"Python {platform.python_version()}, load average {load:.1f} at start; "
          f"medians of {args.runs} alternating runs")
    with tempfile.TemporaryDirectory() as folder:
        pack = Path(folder) / "small.lore"
        pack.write_text(SMALL_PACK, encoding="utf-8")
        timed = commands(pack)
        if args.against:
            export(args.against, Path(folder) / "against")
            timed = with_revision(timed, args.against, Path(folder) / "against")
        for command, env in timed.values():  # byte-compiles the modules, fills the parser cache
            _timed(command, env, pack.parent)
        times: dict[str, list[float]] = {name: [] for name in timed}
        for _ in range(args.runs):
            for name, (command, env) in timed.items():
                times[name].append(_timed(command, env, pack.parent))
    floor = statistics.median(times[FLOOR])
    print(f"{'command':50} {'median':>9} {'vs import':>10}")
    for name, measured in times.items():
        median = statistics.median(measured)
        print(f"{name:50} {median * 1000:7.0f}ms {median / floor:9.1f}x")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"load average {load:.1f} at the end")


if __name__ == "__main__":
    main()
