"""``hexlore check rules scenarios`` on the bundled files, against Lark alone parsing the packs.

    python benchmarks/bench_check_repo.py [--rounds 7] [--against REV]

Two commands run in fresh processes, taking turns (one run of each, then the next round), so
that they share the machine's load alike; the medians of their wall times and of their CPU
times (user + system: what a loaded machine does not inflate), and their ratios to the
baseline, are printed (issue 32 asks for at most 2x; it was 9.1x):

- the baseline, Lark alone: a Python process that imports Lark, builds the parser of hexlore's
  grammar (``hexlore/dsl/lore.lark``, the options hexlore uses: LALR, contextual lexer,
  positions, placeholders) with Lark's own table cache (``cache=True``, warm after the first
  run, as hexlore's own parser cache is), and parses every bundled ``.lore`` file (``rules/``
  and ``scenarios/``, 42 files) into Lark's tree;
- ``python -m hexlore check rules scenarios``: the same packs parsed and compiled, and the 53
  YAML files (scenarios, campaigns, sheets) loaded, validated and checked against their packs.

Start-up is included on both sides: both are whole commands a user (or CI) runs, which is what
the issue's 9.1x compared. Each command runs once before timing (byte-compiled modules, warm
caches). With ``--against REV`` the hexlore command is also run from an export of that git
revision (``git archive``, on ``PYTHONPATH``), taking turns with the others.
"""

from __future__ import annotations

import argparse
import io
import os
import platform
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: the baseline's program: hexlore's grammar and options, plain Lark, every bundled pack parsed
LARK_ALONE = """
import sys
from pathlib import Path
from lark import Lark

class WholeWords:  # hexlore's post-lexer (hexlore/dsl/parser.py): NAME in every lexer state
    always_accept = ("NAME",)
    def process(self, stream):
        return stream

root = Path(sys.argv[1])
grammar = (root / "hexlore" / "dsl" / "lore.lark").read_text(encoding="utf-8")
parser = Lark(grammar, parser="lalr", lexer="contextual", propagate_positions=True, maybe_placeholders=True,
              postlex=WholeWords(), cache=True)
files = sorted(p for folder in ("rules", "scenarios") for p in (root / folder).rglob("*.lore"))
for path in files:
    parser.parse(path.read_text(encoding="utf-8"))
print(len(files))
"""


def _timed(command: list[str], env: dict, cwd: Path) -> tuple[float, float]:
    """Wall time and CPU time (user + system, of the child) of one run (its exit code ignored:
    ``check`` exits 1 on findings). The CPU time is the figure to trust on a loaded machine."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def export(rev: str, into: Path) -> None:
    """The package, rules and scenarios of git revision ``rev`` in ``into`` (what the command reads)."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "hexlore", "rules", "scenarios"], check=True,
                             capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")


def commands(against: Path | None, rev: str | None) -> dict[str, tuple[list[str], dict, Path]]:
    """The commands timed, by the name printed, with their environments and working folders."""
    env = {k: v for k, v in os.environ.items() if k not in ("HEXLORE_NO_CACHE", "PYTHONDONTWRITEBYTECODE")}
    timed = {
        "Lark alone (42 packs parsed)": ([sys.executable, "-c", LARK_ALONE, str(ROOT)], env, ROOT),
        "hexlore check rules scenarios": ([sys.executable, "-m", "hexlore", "check", "rules", "scenarios"],
                                          dict(env, PYTHONPATH=str(ROOT)), ROOT),
    }
    if against is not None:
        timed[f"{rev[:10]}: hexlore check rules scenarios"] = (
            [sys.executable, "-m", "hexlore", "check", "rules", "scenarios"], dict(env, PYTHONPATH=str(against)),
            against)
    return timed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--against", metavar="REV", help="also time the check of this git revision")
    args = parser.parse_args()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {os.cpu_count()} CPUs, {platform.processor() or platform.machine()}, "
          f"Python {platform.python_version()}, load average {load:.1f} at start; "
          f"medians of {args.rounds} alternating rounds")
    with tempfile.TemporaryDirectory() as folder:
        tree = None
        if args.against:
            tree = Path(folder) / "against"
            export(args.against, tree)
        timed = commands(tree, args.against)
        for command, env, cwd in timed.values():  # byte-compiles the modules, fills the caches
            _timed(command, env, cwd)
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in timed}
        for _ in range(args.rounds):
            for name, (command, env, cwd) in timed.items():
                times[name].append(_timed(command, env, cwd))
    walls = {name: statistics.median(w for w, _ in measured) for name, measured in times.items()}
    cpus = {name: statistics.median(c for _, c in measured) for name, measured in times.items()}
    wall_floor, cpu_floor = next(iter(walls.values())), next(iter(cpus.values()))
    print(f"{'command':50} {'wall':>9} {'vs Lark':>8} {'CPU':>9} {'vs Lark':>8}")
    for name in times:
        print(f"{name:50} {walls[name] * 1000:7.0f}ms {walls[name] / wall_floor:7.2f}x "
              f"{cpus[name] * 1000:7.0f}ms {cpus[name] / cpu_floor:7.2f}x")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"load average {load:.1f} at the end")


if __name__ == "__main__":
    main()
