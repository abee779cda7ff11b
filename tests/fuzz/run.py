"""The long fuzzing run: N mutated packs and scenarios through hexlore's API, counting crashes and hangs.

    python tests/fuzz/run.py --inputs 100000 --workers 2 [--seed 0] [--out fuzz-found]

Input ``i`` is the corpus file ``i % len(CORPUS)`` mutated by ``random.Random(f"{seed}:{i}")``
(tests/fuzz/mutators.py), written over its own name in a copy of its folder, so it uses the
packs and scenarios beside it as the original does. Every input goes through ``api.check``;
one in ``--play-every`` also through ``api.run`` (two rounds), ``api.test`` and ``api.render``
(whose picture must encode as UTF-8 when ``check`` found no error). Each worker
runs under a memory limit (RLIMIT_AS) and each input under a CPU-time alarm: an exception
that escapes the API is a crash (its site: the exception type and the innermost hexlore
frame), an alarm is a hang. Crashing and hanging inputs are saved to ``--out`` with the seed
that makes them. The last line is a summary to paste into the README.
"""

from __future__ import annotations

import argparse
import importlib
import multiprocessing
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from fuzz.mutators import CORPUS, mutate, seed_files  # noqa: E402

SECONDS_PER_INPUT = 10
MEMORY_BYTES = 2 * 1024 ** 3


class Hang(Exception):
    pass


def _alarm(_signum, _frame):
    raise Hang()


def crash_site(exc: BaseException) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "/hexlore/" in f.filename]
    where = f"{Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else "?"
    return f"{type(exc).__name__} at {where}"


def check_one(path: Path, kind: str, play: bool) -> None:
    """What the harness asks of one input; raises whatever escapes hexlore's API."""
    from hexlore import api

    diagnostics, _ = api.check([str(path)])
    if play and kind == "yaml":
        api.run(str(path), max_rounds=2)
        api.test([str(path)])
        svg, _, _ = api.render(str(path))
        if svg is not None and not any(d.is_error for d in diagnostics):
            svg.encode("utf-8")  # what check let through, render's writer must write (issue 30)


def worker(args) -> dict:
    seed, start, stop, play_every, out = args
    for module in ("hexlore.runtime.scenarios.located_yaml", "hexlore.api"):  # imported before the limit
        importlib.import_module(module)

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    signal.signal(signal.SIGPROF, _alarm)
    corpus = seed_files()
    work = Path(tempfile.mkdtemp(prefix="hexlore-fuzz-"))
    copies = []
    for path, kind, data in corpus:
        folder = work / f"{len(copies)}"
        shutil.copytree(path.parent, folder, symlinks=False, ignore=shutil.ignore_patterns("__pycache__"))
        copies.append((folder / path.name, kind, data))
    crashes: dict[str, str] = {}
    hangs: list[str] = []
    count = 0
    for i in range(start, stop):
        target, kind, original = copies[i % len(copies)]
        rng = random.Random(f"{seed}:{i}")
        data = mutate(original, rng)
        target.write_bytes(data)
        signal.setitimer(signal.ITIMER_PROF, SECONDS_PER_INPUT)
        try:
            check_one(target, kind, i % play_every == 0)
        except Hang:
            hangs.append(f"{seed}:{i}")
            _save(out, f"hang-{seed}-{i}", target, data)
        except BaseException as exc:  # noqa: BLE001 — anything escaping the API is what we count
            site = crash_site(exc)
            if site not in crashes:
                crashes[site] = f"{seed}:{i}"
                _save(out, f"crash-{seed}-{i}", target, data)
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
        target.write_bytes(original)
        count += 1
    shutil.rmtree(work, ignore_errors=True)
    return {"inputs": count, "crashes": crashes, "hangs": hangs}


def _save(out: Path | None, name: str, target: Path, data: bytes) -> None:
    if out is None:
        return
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}{target.suffix}").write_bytes(data)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=int, default=5000)
    parser.add_argument("--workers", type=int, default=max(1, os.cpu_count() or 1))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--play-every", type=int, default=20)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    chunk = -(-args.inputs // args.workers)
    jobs = [(args.seed, k * chunk, min(args.inputs, (k + 1) * chunk), args.play_every, args.out)
            for k in range(args.workers)]
    began = time.time()
    with multiprocessing.get_context("fork").Pool(args.workers) as pool:
        results = pool.map(worker, jobs)
    elapsed = time.time() - began
    inputs = sum(r["inputs"] for r in results)
    crashes: dict[str, str] = {}
    for r in results:
        for site, where in r["crashes"].items():
            crashes.setdefault(site, where)
    hangs = [h for r in results for h in r["hangs"]]
    for site, where in sorted(crashes.items()):
        print(f"crash: {site} (input {where})")
    for h in hangs:
        print(f"hang: input {h}")
    try:  # the revision fuzzed, for the record; an exported tree (no .git, or no git at all) has none
        revision = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                                  text=True).stdout.strip() or "?"
    except OSError:
        revision = "?"
    print(f"fuzz: {inputs:,} inputs ({len(CORPUS)} seed files, 1 in {args.play_every} also run and tested), "
          f"{len(crashes)} distinct crash sites, {len(hangs)} hangs, {inputs / elapsed:.0f} inputs/s on "
          f"{args.workers} worker(s), seed {args.seed}, revision {revision}, {time.strftime('%Y-%m-%d')}")
    return 1 if crashes or hangs else 0


if __name__ == "__main__":
    sys.exit(main())
