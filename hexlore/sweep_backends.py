"""Sweep backends: the same seeded games on local worker processes or on a Ray cluster.

A sweep is cut into batches (chunks) of game indices. A :class:`SweepJob` carries the scenario,
the variant packs and the text of every non-bundled file they read, so any worker can play it.
Workers start warm and stay warm: each compiles the rule set of every job once, when it starts
(the pool's initializer, the Ray actor's constructor), then receives batches of indices and
sends back small :class:`~hexlore.runtime.analysis.sweep.GameRecord` values. Seeds come from
the game index, so the records, and the summary, are the same for any number of workers and
either backend.

Where the time goes is reported apart from the results (:class:`SweepTiming`): Ray's own
start-up and shutdown (seconds on a shared 2-CPU machine, whatever the sweep) are not counted
as the sweep's time.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .compiler.packs import bundled_rules_root
from .dsl.output_files import write_atomically
from .dsl.confine import command_line_root, read_confined
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
    policies: tuple[tuple[str, str], ...] = ()  # (side, player) replacing the scenario's


def make_job(scenario_path: str, sources: dict, extra_packs: list[str], seed: int,
             max_rounds: int | None, policies: dict[str, str] | None = None) -> SweepJob:
    """A job carrying the text of every file the scenario and its packs read, bundled ones aside."""
    bundled = bundled_rules_root().resolve()
    files = []
    for path, source in sorted(sources.items()):
        p = Path(path).resolve()
        if p.is_file() and bundled not in p.parents:
            files.append((str(p), source.text))
    return SweepJob(str(Path(scenario_path).resolve()), tuple(str(Path(p).resolve()) for p in extra_packs),
                    seed, max_rounds, tuple(files), tuple(sorted((policies or {}).items())))


_LOADED: dict[SweepJob, tuple] = {}
_COMPILED = [0]  # rule sets this process compiled for jobs (what warm workers keep at one per job)


def compiled_here() -> int:
    """How many jobs this process compiled (tests check that workers compile once, not per batch)."""
    return _COMPILED[0]


def _localise(job: SweepJob) -> tuple[str, list[str]]:
    """Paths to load from: the job's own paths when this machine has those files, else a copy."""
    if all(read_confined(p, command_line_root(p))[0] == text for p, text in job.files):
        return job.scenario, list(job.extra_packs)
    root = Path(tempfile.mkdtemp(prefix="hexlore-sweep-"))

    def moved(p: str) -> str:
        return str(root / Path(p).relative_to(Path(p).anchor))

    for p, text in job.files:
        target = Path(moved(p))
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(target, text)
    return moved(job.scenario), [moved(p) for p in job.extra_packs]


def load_job(job: SweepJob):
    """The compiled rules and scenario of a job, loaded once per worker process."""
    key = SweepJob(job.scenario, job.extra_packs, 0, None, job.files)
    cached = _LOADED.get(key)
    if cached is None:
        scenario, packs = _localise(job)
        loaded = open_variant(scenario, packs)
        if not loaded.playable:  # problems inside the scenario's tests do not stop the games
            raise SweepSetupError("; ".join(d.headline() for d in loaded.diagnostics if d.is_error))
        cached = _LOADED[key] = (loaded.rules, loaded.scenario)
        _COMPILED[0] += 1
    return cached


def run_chunk(job: SweepJob, indices: list[int]) -> list[GameRecord]:
    """Play the games with these indices (compiling the job's rules first if this process has not)."""
    rules, scenario = load_job(job)
    return play_games(rules, scenario, job.seed, indices, job.max_rounds, dict(job.policies))


def chunks(games: int, workers: int) -> list[list[int]]:
    """Game indices cut into batches small enough to balance the load and report progress
    (about eight per worker), and never more than 50 games, so a slow batch holds little back."""
    size = max(1, min(50, math.ceil(games / (max(1, workers) * 8))))
    return [list(range(i, min(games, i + size))) for i in range(0, games, size)]


Progress = Callable[[int], None]  # called with the number of games just finished


@dataclass
class SweepTiming:
    """Where a sweep's wall-clock time went, in seconds (not part of its results).

    ``backend`` is Ray's own start-up (a local instance, or joining a cluster) and, when hexlore
    started it, its shutdown: seconds that do not depend on the sweep; 0 for the local backend.
    ``sweep`` runs from the first job sent to the last record back: workers starting, each
    compiling the rules once, and the games.
    """

    backend: float = 0.0
    sweep: float = 0.0

    def to_json(self) -> dict:
        return {"backend_seconds": round(self.backend, 3), "sweep_seconds": round(self.sweep, 3)}


# ---------------------------------------------------------------- local process pool
_POOL_JOBS: list[SweepJob] = []  # in a pool worker: the jobs its initializer compiled


def _compile_all(jobs: list[SweepJob]) -> None:
    """Compile every job now; one that fails is left to the first batch, which raises its
    diagnostics to the caller (an initializer or constructor that raised would only kill
    the worker, and the caller would learn that a process died, not why)."""
    for job in jobs:
        try:
            load_job(job)
        except SweepSetupError:
            pass


def _warm_up(jobs: list[SweepJob]) -> None:
    """A pool worker's initializer: compile every job once, before the first batch arrives."""
    _POOL_JOBS[:] = jobs
    _compile_all(jobs)


def _play_batch(j: int, indices: list[int]) -> list[GameRecord]:
    """A pool task: only the job's number and the indices travel, not the job."""
    return run_chunk(_POOL_JOBS[j], indices)


def run_local(jobs: list[SweepJob], games: int, workers: int, progress: Progress | None = None,
              timing: SweepTiming | None = None) -> list[list[GameRecord]]:
    """Play every job's games with a process pool (in this process when ``workers`` is 1)."""
    out: list[list[GameRecord]] = [[] for _ in jobs]
    parts = chunks(games, workers)
    start = time.perf_counter()
    if workers <= 1:
        for j, job in enumerate(jobs):
            for part in parts:
                out[j].extend(run_chunk(job, part))
                if progress:
                    progress(len(part))
    else:
        # the platform's default start method; where it is spawn, scripts need the usual
        # ``if __name__ == "__main__":`` guard around the call
        context = multiprocessing.get_context()
        if context.get_start_method() == "fork":
            _compile_all(jobs)  # here, once: every worker the pool forks inherits the rules
        with ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_warm_up,
                                 initargs=(jobs,)) as pool:
            futures = {pool.submit(_play_batch, j, part): (j, len(part)) for j in range(len(jobs)) for part in parts}
            for f in as_completed(futures):
                j, n = futures[f]
                try:
                    out[j].extend(f.result())
                except BrokenProcessPool as exc:
                    raise SweepSetupError(f"a worker process died: {exc}") from None
                if progress:
                    progress(n)
    if timing is not None:
        timing.sweep = time.perf_counter() - start
    return out


# ---------------------------------------------------------------- Ray
class SweepWorker:
    """A Ray actor: compiles the jobs once when created, then plays the batches it is sent."""

    def __init__(self, jobs: list[SweepJob]):
        self.jobs = jobs
        _compile_all(jobs)

    def play(self, j: int, indices: list[int]) -> list[GameRecord]:
        return run_chunk(self.jobs[j], indices)


#: batches each actor holds at once: one playing, one waiting, so it never idles between them
IN_FLIGHT = 2


def run_ray(jobs: list[SweepJob], games: int, workers: int, address: str | None = None,
            progress: Progress | None = None, timing: SweepTiming | None = None) -> list[list[GameRecord]]:
    """Play every job's games on Ray actors: on the cluster at ``address``, else a local instance.

    A local instance gets ``workers`` CPUs and no dashboard, and is shut down afterwards; a
    cluster hexlore joined is left running, and gets one actor per CPU it has (at least
    ``workers``). Workers there need hexlore installed.
    """
    try:
        import ray
    except ImportError:
        raise SweepSetupError("the Ray backend needs Ray: pip install 'hexlore[ray]'") from None
    timing = timing if timing is not None else SweepTiming()
    started = False
    begin = time.perf_counter()
    if not ray.is_initialized():
        if address:
            ray.init(address=address, include_dashboard=False, log_to_driver=False)
        else:
            start_local_ray(ray, workers)
        started = True
    timing.backend = time.perf_counter() - begin
    try:
        begin = time.perf_counter()
        actors = max(1, workers) if started and not address else \
            max(workers, int(ray.cluster_resources().get("CPU", workers)))
        out = _play_on_actors(ray, jobs, games, actors, progress)
        timing.sweep = time.perf_counter() - begin
        return out
    finally:
        if started:
            begin = time.perf_counter()
            ray.shutdown()
            timing.backend += time.perf_counter() - begin


def start_local_ray(ray, workers: int) -> None:
    """Start the local Ray instance a sweep runs on: ``workers`` CPUs, no dashboard, and
    workers at the normal priority of the local pool's.

    Ray starts its workers at niceness 15 so that its own services never starve; on a
    machine shared with other work that makes a sweep yield to everything else, and a local
    sweep on Ray slower than the same sweep on the process pool. The sweep is the job the user
    is waiting for, and its two services need little CPU: ``RAY_worker_niceness`` (Ray's own
    setting, read by the processes the instance starts) is 0 unless the user set it.
    """
    previous = os.environ.get(NICENESS)
    os.environ.setdefault(NICENESS, "0")
    try:
        # records are small: a modest object store starts fast even where /dev/shm is tiny
        ray.init(num_cpus=max(1, workers), object_store_memory=200 * 1024 * 1024, include_dashboard=False,
                 log_to_driver=False)
    finally:
        if previous is None:
            os.environ.pop(NICENESS, None)


NICENESS = "RAY_worker_niceness"


def _play_on_actors(ray, jobs: list[SweepJob], games: int, actors: int,
                    progress: Progress | None) -> list[list[GameRecord]]:
    """Hand batches to the actors as they finish others, ``IN_FLIGHT`` at a time each."""
    worker_class = ray.remote(num_cpus=1)(SweepWorker)
    jobs_ref = ray.put(jobs)
    pool = [worker_class.remote(jobs_ref) for _ in range(actors)]
    waiting = [(j, part) for j in range(len(jobs)) for part in chunks(games, actors)]
    waiting.reverse()  # pop() hands them out in order
    running: dict = {}

    def send(actor) -> None:
        j, part = waiting.pop()
        running[actor.play.remote(j, part)] = (actor, j, len(part))

    for _ in range(IN_FLIGHT):
        for actor in pool:
            if waiting:
                send(actor)
    out: list[list[GameRecord]] = [[] for _ in jobs]
    try:
        while running:
            done, _ = ray.wait(list(running), num_returns=1)
            for ref in done:
                actor, j, n = running.pop(ref)
                try:
                    out[j].extend(ray.get(ref))
                except ray.exceptions.RayError as exc:  # e.g. a cluster whose workers lack hexlore
                    raise SweepSetupError(f"a Ray worker failed: {exc}") from None
                if waiting:
                    send(actor)
                if progress:
                    progress(n)
    finally:
        for actor in pool:  # on a cluster that stays up, the actors must not outlive the sweep
            ray.kill(actor)
    return out


def run_jobs(jobs: list[SweepJob], games: int, workers: int = 1, backend: str = "local",
             address: str | None = None, progress: Progress | None = None,
             timing: SweepTiming | None = None) -> list[list[GameRecord]]:
    """Every job's records, sorted by game index; ``timing`` (if given) is filled in."""
    if backend == "local":
        records = run_local(jobs, games, workers, progress, timing)
    elif backend == "ray":
        records = run_ray(jobs, games, workers, address, progress, timing)
    else:
        raise SweepSetupError(f"no backend named '{backend}' (backends: {', '.join(BACKENDS)})")
    return [sorted(r, key=lambda rec: rec.index) for r in records]
