"""Start-up of ``hexlore check`` on one small pack, against the floor of importing its parsers.

    python benchmarks/bench_startup.py [--runs 15]

Three commands run alternately, each ``--runs`` times in fresh processes, so that they share
the machine's load alike; their median wall times are printed with ratios against the first:

- ``python -c "import lark, yaml"``: what any Lark- and YAML-based checker pays to start;
- ``hexlore check small.lore`` with the parser's tables loaded from the user cache
  (hexlore/dsl/parser_cache.py), the usual case after the first run on a machine;
- the same with ``HEXLORE_NO_CACHE=1``: the tables analysed from the grammar, as on a first run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SMALL_PACK = 'pack small\n\nfunction double(x: int) -> int = x * 2\n'


def _timed(command: list[str], env: dict) -> float:
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        pack = Path(folder) / "small.lore"
        pack.write_text(SMALL_PACK, encoding="utf-8")
        warm = dict(os.environ)
        warm.pop("HEXLORE_NO_CACHE", None)
        cold = dict(warm, HEXLORE_NO_CACHE="1")
        check = [sys.executable, "-m", "hexlore", "check", str(pack)]
        commands = {
            'python -c "import lark, yaml"': ([sys.executable, "-c", "import lark, yaml"], warm),
            "hexlore check (tables cached)": (check, warm),
            "hexlore check (no cache)": (check, cold),
        }
        _timed(check, warm)  # fills the cache
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.runs):
            for name, (command, env) in commands.items():
                times[name].append(_timed(command, env))
    floor = statistics.median(times['python -c "import lark, yaml"'])
    print(f"{'command':34} {'median':>9} {'vs import':>10}")
    for name, measured in times.items():
        median = statistics.median(measured)
        print(f"{name:34} {median * 1000:7.0f}ms {median / floor:9.1f}x")


if __name__ == "__main__":
    main()
