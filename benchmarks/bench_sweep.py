"""Sweep throughput: games per second with 1 and 2 local workers and on a local Ray instance.

    python benchmarks/bench_sweep.py [--games N]

Every backend plays the same N seeded games of the bundled spider scenario (the digests are
checked equal) and is timed from the call to the summary, start-up included (process pool or
Ray instance, and each worker compiling the packs once); each is run ``--repeat`` times and the
fastest counts. Speed-ups are against 1 worker in this same run, and against what a pure CPU
loop gains from a second process at the same moment (on a shared machine, much less than 2x).
"""

from __future__ import annotations

import argparse
import importlib
import os
import platform
import time
from concurrent.futures import ProcessPoolExecutor

from hexlore import api

SCENARIO = "battlelore/spider_ford"


def run(games: int, workers: int, backend: str, repeat: int) -> tuple[float, dict]:
    """The fastest of ``repeat`` runs (the machine may be shared: the minimum is the least disturbed)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        report, diagnostics, _ = api.sweep(SCENARIO, games, workers=workers, backend=backend, seed=1)
        assert report is not None, [d.headline() for d in diagnostics]
        best = min(best, time.perf_counter() - start)
    return best, report


def burn(n: int) -> int:
    total = 0
    for i in range(n):
        total += i * i
    return total


def parallel_floor(n: int = 10_000_000) -> float:
    """Speed-up of a pure CPU loop on 2 processes: what this machine offers right now."""
    start = time.perf_counter()
    burn(n), burn(n)
    serial = time.perf_counter() - start
    with ProcessPoolExecutor(2) as pool:
        pool.submit(burn, 1).result()  # start the workers first
        start = time.perf_counter()
        list(pool.map(burn, [n, n]))
        parallel = time.perf_counter() - start
    return serial / parallel


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--repeat", type=int, default=3, help="runs per backend; the fastest counts")
    args = parser.parse_args()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {os.cpu_count()} CPUs, {platform.processor() or platform.machine()}, "
          f"Python {platform.python_version()}, load average {load:.1f} at start; "
          f"{args.games} games of {SCENARIO}")
    floor = parallel_floor()
    print(f"baseline: a pure CPU loop runs {floor:.2f}x faster on 2 processes than on 1 (2.00x = two idle CPUs)")
    base, report = run(args.games, 1, "local", args.repeat)
    print(f"local, 1 worker : {args.games / base:7.1f} games/s ({base:.1f}s)")
    rows = [("local, 2 workers", 2, "local")]
    try:
        importlib.import_module("ray")
        rows.append(("ray, 2 CPUs     ", 2, "ray"))
    except ImportError:
        print("ray: not installed (pip install 'hexlore[ray]')")
    for name, workers, backend in rows:
        t, other = run(args.games, workers, backend, args.repeat)
        assert other["digest"] == report["digest"], "the results differ between backends"
        print(f"{name}: {args.games / t:7.1f} games/s ({t:.1f}s), speed-up {base / t:.2f}x over 1 worker "
              f"({base / t / floor:.2f} of the baseline's)")
    print(f"identical results on every backend (digest {report['digest']})")


if __name__ == "__main__":
    main()
