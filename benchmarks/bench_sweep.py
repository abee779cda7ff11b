"""Sweep throughput: a local process pool and a local Ray instance against one worker.

    python benchmarks/bench_sweep.py [--games 600] [--workers 2] [--rounds 3]

Every configuration plays the same N seeded games of the bundled spider scenario (the digests
are checked equal) in a fresh process, as ``hexlore sweep`` would: one worker, a local pool of
``--workers`` processes, and a local Ray instance with ``--workers`` CPUs. The configurations
take turns, ``--rounds`` times, so that they share the machine's load alike, and medians are
printed. Three times are taken from each run:

- ``sweep``: the report's ``timing.sweep_seconds``, workers starting (each compiling the rules
  once) and the games;
- ``Ray``: ``timing.backend_seconds``, Ray's own start-up and shutdown, reported apart;
- ``command``: the whole process, interpreter start, imports and the first compilation included.

Speed-ups are against one worker in the same round, on the sweep's time and on the whole
command's; and against what a pure CPU loop gains from a second process at the same moment (on
a shared machine, much less than 2x).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor

SCENARIO = "battlelore/spider_ford"

#: one sweep in a fresh interpreter, its report's timing and digest printed as JSON
SWEEP = """
import json, sys
from hexlore import api
games, workers, backend = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
report, diagnostics, _ = api.sweep({scenario!r}, games, workers=workers, backend=backend, seed=1)
assert report is not None, [d.headline() for d in diagnostics]
print(json.dumps({{"digest": report["digest"], **report["timing"]}}))
"""


def sweep(games: int, workers: int, backend: str) -> dict:
    """One sweep in its own process: its timing, digest and the command's wall time."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # as installed: bytecode kept
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", SWEEP.format(scenario=SCENARIO), str(games), str(workers), backend],
                          capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{backend} x{workers} failed:\n{done.stderr}")
    data = json.loads(done.stdout.strip().splitlines()[-1])
    return {"digest": data["digest"], "sweep": data["sweep_seconds"], "ray": data["backend_seconds"], "command": wall}


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
    parser.add_argument("--games", type=int, default=600)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3, help="runs of each configuration, taking turns")
    args = parser.parse_args()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {os.cpu_count()} CPUs, {platform.processor() or platform.machine()}, "
          f"Python {platform.python_version()}, load average {load:.1f} at start; "
          f"{args.games} games of {SCENARIO}, medians of {args.rounds} alternating rounds")
    configurations = [("local, 1 worker", 1, "local"), (f"local pool, {args.workers} workers", args.workers, "local")]
    if importlib.util.find_spec("ray") is not None:
        configurations.append((f"Ray (local), {args.workers} CPUs", args.workers, "ray"))
    else:
        print("ray: not installed (pip install 'hexlore[ray]')")
    floors = []
    runs: dict[str, list[dict]] = {name: [] for name, _, _ in configurations}
    for number in range(1, args.rounds + 1):
        floors.append(parallel_floor())
        for name, workers, backend in configurations:
            runs[name].append(sweep(args.games, workers, backend))
        print(f"round {number}: CPU loop {floors[-1]:.2f}x; " + ", ".join(
            f"{name} {runs[name][-1]['sweep']:.1f}s (+{runs[name][-1]['ray']:.1f}s Ray)" if backend == "ray" else
            f"{name} {runs[name][-1]['sweep']:.1f}s" for name, _, backend in configurations), flush=True)
    digests = {r["digest"] for measured in runs.values() for r in measured}
    assert len(digests) == 1, f"the results differ between runs or backends: {digests}"
    floor = statistics.median(floors)
    print(f"baseline: a pure CPU loop runs {floor:.2f}x faster on 2 processes than on 1 (2.00x = two idle CPUs)")
    base = runs[configurations[0][0]]
    print(f"{'configuration':26} {'sweep':>8} {'games/s':>8} {'speed-up':>9} {'Ray':>7} {'command':>8} {'speed-up':>9}")
    for name, _, _ in configurations:
        measured = runs[name]
        swept = statistics.median(r["sweep"] for r in measured)
        wall = statistics.median(r["command"] for r in measured)
        ray_time = statistics.median(r["ray"] for r in measured)
        # ratios within each round (same load), then their median
        speed = statistics.median(b["sweep"] / r["sweep"] for b, r in zip(base, measured))
        speed_wall = statistics.median(b["command"] / r["command"] for b, r in zip(base, measured))
        print(f"{name:26} {swept:7.1f}s {args.games / swept:8.1f} {speed:8.2f}x {ray_time:6.1f}s {wall:7.1f}s "
              f"{speed_wall:8.2f}x")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"identical results everywhere (digest {digests.pop()}); load average {load:.1f} at the end")


if __name__ == "__main__":
    main()
