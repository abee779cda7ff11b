"""Sweep backends: the same seeded games on local worker processes or on a Ray cluster.

A sweep is cut into chunks of game indices; each chunk is a task ``(job, indices)`` that any
worker can run, because a :class:`SweepJob` carries the scenario, the variant packs and the
text of every non-bundled file they read. A worker loads (and caches) the rules once, plays
its games and sends back small :class:`~hexlore.runtime.analysis.sweep.GameRecord` values. Seeds come
from the game index, so the records, and the summary, are the same for any number of workers
and either backend.
"""

from __future__ import annotations

import math
import tempfile
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .compiler.packs import bundled_rules_root
from .loading import open_variant
from .runtime.analysis.sweep import GameRecord, play_games

BACKENDS = ("local", "ray")


class SweepSetupError(Exception):
    """A sweep could not start (a missing optional dependency, a bad backend)."""


@dataclass(frozen=True)
class SweepJob:
    """Everything a worker needs to play games of one scenario (picklable, self-contained)."""

    scenario: str  # absolute path of the scenario file
    extra_packs: tuple[str, ...] = ()  # absolute paths of variant packs
    seed: int = 0
    max_rounds: int | None = None
    files: tuple[tuple[str, str], ...] = field(default=(), repr=False)  # (absolute path, text)


def make_job(scenario_path: str, sources: dict, extra_packs: list[str], seed: int,
             max_rounds: int | None) -> SweepJob:
    """A job carrying the text of every file the scenario and its packs read, bundled ones aside."""
    bundled = bundled_rules_root().resolve()
    files = []
    for path, source in sorted(sources.items()):
        p = Path(path).resolve()
        if p.is_file() and bundled not in p.parents:
            files.append((str(p), source.text))
    return SweepJob(str(Path(scenario_path).resolve()), tuple(str(Path(p).resolve()) for p in extra_packs),
                    seed, max_rounds, tuple(files))


_LOADED: dict[SweepJob, tuple] = {}


def _localise(job: SweepJob) -> tuple[str, list[str]]:
    """Paths to load from: the job's own paths when this machine has those files, else a copy."""
    if all(Path(p).is_file() and Path(p).read_text(encoding="utf-8") == text for p, text in job.files):
        return job.scenario, list(job.extra_packs)
    root = Path(tempfile.mkdtemp(prefix="hexlore-sweep-"))

    def moved(p: str) -> str:
        return str(root / Path(p).relative_to(Path(p).anchor))

    for p, text in job.files:
        target = Path(moved(p))
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return moved(job.scenario), [moved(p) for p in job.extra_packs]


def load_job(job: SweepJob):
    """The compiled rules and scenario of a job, loaded once per worker process."""
    key = SweepJob(job.scenario, job.extra_packs, 0, None, job.files)
    cached = _LOADED.get(key)
    if cached is None:
        scenario, packs = _localise(job)
        loaded = open_variant(scenario, packs)
        if not loaded.ok:
            raise SweepSetupError("; ".join(d.headline() for d in loaded.diagnostics if d.is_error))
        cached = _LOADED[key] = (loaded.rules, loaded.scenario)
    return cached


def run_chunk(job: SweepJob, indices: list[int]) -> list[GameRecord]:
    """One task: play the games with these indices (top-level, so pools and Ray can ship it)."""
    rules, scenario = load_job(job)
    return play_games(rules, scenario, job.seed, indices, job.max_rounds)


def chunks(games: int, workers: int) -> list[list[int]]:
    """Game indices cut into chunks small enough to balance the load and report progress."""
    size = max(1, min(50, math.ceil(games / (max(1, workers) * 8))))
    return [list(range(i, min(games, i + size))) for i in range(0, games, size)]


Progress = Callable[[int], None]  # called with the number of games just finished


def run_local(jobs: list[SweepJob], games: int, workers: int, progress: Progress | None = None) -> list[list[GameRecord]]:
    """Play every job's games with a process pool (in this process when ``workers`` is 1)."""
    out: list[list[GameRecord]] = [[] for _ in jobs]
    parts = chunks(games, workers)
    if workers <= 1:
        for j, job in enumerate(jobs):
            for part in parts:
                out[j].extend(run_chunk(job, part))
                if progress:
                    progress(len(part))
        return out
    # the platform's default start method; where it is spawn, scripts need the usual
    # ``if __name__ == "__main__":`` guard around the call
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = {pool.submit(run_chunk, job, part): (j, len(part)) for j, job in enumerate(jobs) for part in parts}
        for f in as_completed(futures):
            j, n = futures[f]
            try:
                out[j].extend(f.result())
            except BrokenProcessPool as exc:
                raise SweepSetupError(f"a worker process died: {exc}") from None
            if progress:
                progress(n)
    return out


def run_ray(jobs: list[SweepJob], games: int, workers: int, address: str | None = None,
            progress: Progress | None = None) -> list[list[GameRecord]]:
    """Play every job's games as Ray tasks: on the cluster at ``address``, else a local instance.

    A local instance gets ``workers`` CPUs and no dashboard, and is shut down afterwards; a
    cluster hexlore joined is left running. Workers there need hexlore installed.
    """
    try:
        import ray
    except ImportError:
        raise SweepSetupError("the Ray backend needs Ray: pip install 'hexlore[ray]'") from None
    started = False
    if not ray.is_initialized():
        options = {"include_dashboard": False, "log_to_driver": False}
        if address:
            ray.init(address=address, **options)
        else:
            # records are small: a modest object store starts fast even where /dev/shm is tiny
            ray.init(num_cpus=max(1, workers), object_store_memory=200 * 1024 * 1024, **options)
        started = True
    try:
        task = ray.remote(run_chunk)
        parts = chunks(games, workers)
        refs = {}
        for j, job in enumerate(jobs):
            job_ref = ray.put(job)
            for part in parts:
                refs[task.remote(job_ref, part)] = (j, len(part))
        out: list[list[GameRecord]] = [[] for _ in jobs]
        pending = list(refs)
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                j, n = refs[ref]
                try:
                    out[j].extend(ray.get(ref))
                except ray.exceptions.RayError as exc:  # e.g. a cluster whose workers lack hexlore
                    raise SweepSetupError(f"a Ray task failed: {exc}") from None
                if progress:
                    progress(n)
        return out
    finally:
        if started:
            ray.shutdown()


def run_jobs(jobs: list[SweepJob], games: int, workers: int = 1, backend: str = "local",
             address: str | None = None, progress: Progress | None = None) -> list[list[GameRecord]]:
    if backend == "local":
        records = run_local(jobs, games, workers, progress)
    elif backend == "ray":
        records = run_ray(jobs, games, workers, address, progress)
    else:
        raise SweepSetupError(f"no backend named '{backend}' (backends: {', '.join(BACKENDS)})")
    return [sorted(r, key=lambda rec: rec.index) for r in records]
