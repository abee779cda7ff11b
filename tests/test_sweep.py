"""Sweeps: seeded games whose results do not depend on workers or backend; the statistics."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from hexlore import api
from hexlore.cli import main
from hexlore.runtime.engine.game import Game
from hexlore.runtime.analysis.stats import derive_seed, mcnemar_p, mean_interval, wilson
from hexlore.runtime.analysis.sweep import GameRecord, compare, summarize
from hexlore.sweep_backends import SweepJob, chunks, load_job, make_job, run_chunk

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "odds"
SCENARIO = "battlelore/spider_ford"
VARIANT = str(FIXTURES / "bold_spider.lore")
GAMES = 6


def sweep(**kw):
    report, diagnostics, _ = api.sweep(SCENARIO, kw.pop("games", GAMES), **kw)
    assert report is not None, [d.headline() for d in diagnostics]
    return report


def results(report: dict) -> dict:
    """The report without how it was computed."""
    return {k: v for k, v in report.items() if k not in ("backend", "workers", "timing")}


@pytest.fixture(scope="module")
def one_worker():
    return sweep(workers=1, seed=7)


# ---------------------------------------------------------------- determinism
def test_game_i_uses_the_seed_derived_from_the_sweep_seed_and_i(one_worker):
    loaded = api.open_scenario(SCENARIO)
    direct = Game(loaded.rules, loaded.scenario, seed=derive_seed(7, 3)).play()
    record = run_chunk(make_job(loaded.scenario.path, loaded.sources, [], 7, None), [3])[0]
    assert (record.seed, record.winner, record.rounds) == (derive_seed(7, 3), direct.winner, direct.rounds)


def test_two_local_workers_give_the_same_results(one_worker):
    assert results(sweep(workers=2, seed=7)) == results(one_worker)


def test_another_seed_gives_other_games(one_worker):
    assert sweep(workers=1, seed=8)["digest"] != one_worker["digest"]


@pytest.mark.slow
def test_the_ray_backend_gives_the_same_results(one_worker):
    pytest.importorskip("ray", reason="Ray publishes no wheel for this platform (see the test extra's marker)")
    report = sweep(workers=2, seed=7, backend="ray")
    assert report["backend"] == "ray"
    assert results(report) == results(one_worker)
    assert report["timing"]["backend_seconds"] > 0  # Ray's own start-up, reported apart from the games
    import ray
    assert not ray.is_initialized()  # the local instance it started is shut down


@pytest.mark.slow
def test_a_local_ray_instance_runs_its_workers_at_normal_priority(monkeypatch):
    """Ray's default niceness of 15 would make a sweep yield to every other process."""
    ray = pytest.importorskip("ray", reason="Ray publishes no wheel for this platform (see the test extra's marker)")
    from hexlore import sweep_backends

    monkeypatch.delenv(sweep_backends.NICENESS, raising=False)
    sweep_backends.start_local_ray(ray, 1)
    try:
        assert sweep_backends.NICENESS not in os.environ  # the caller's environment is left as it was
        def niceness() -> int:  # nested: Ray ships it by value (workers cannot import the tests)
            import os

            return os.nice(0)

        assert ray.get(ray.remote(num_cpus=1)(niceness).remote()) == os.nice(0)
    finally:
        ray.shutdown()


def test_chunks_cover_every_game_once():
    for games, workers in [(1, 1), (7, 2), (100, 3), (1000, 8)]:
        parts = chunks(games, workers)
        assert [i for p in parts for i in p] == list(range(games))


def test_a_worker_without_the_files_gets_them_from_the_job(tmp_path):
    """A Ray worker on another machine has no copy of a scenario's own packs: the job carries them."""
    text = api.resolve_scenario(SCENARIO).read_text(encoding="utf-8")
    (tmp_path / "ford.yaml").write_text(text.replace("packs: [battlelore.creatures]",
                                                     "packs: [battlelore.creatures, bold_spider.lore]"), "utf-8")
    (tmp_path / "bold_spider.lore").write_text(Path(VARIANT).read_text(encoding="utf-8"), "utf-8")
    loaded = api.open_scenario(str(tmp_path / "ford.yaml"))
    assert loaded.ok
    job = make_job(str(tmp_path / "ford.yaml"), loaded.sources, [], 1, 3)
    assert {Path(p).name for p, _ in job.files} == {"ford.yaml", "bold_spider.lore"}  # bundled packs stay out
    elsewhere = "/nonexistent/machine"
    moved = SweepJob(elsewhere + job.scenario, (), 1, 3, tuple((elsewhere + p, t) for p, t in job.files))
    rules, scenario = load_job(moved)
    assert dict(rules.definitions["giant_spider"].values)["move"].value == 3
    assert not scenario.path.startswith(elsewhere)
    assert run_chunk(moved, [0, 1]) == run_chunk(job, [0, 1])


# ---------------------------------------------------------------- a variant on the same seeds
def test_a_variant_is_compared_game_by_game(one_worker):
    report = sweep(workers=1, seed=7, vs=VARIANT)
    assert results(report)["digest"] == one_worker["digest"]  # the base half is the plain sweep
    cmp = report["comparison"]
    assert cmp["games"] == GAMES and set(cmp["sides"]) == {"north", "south"}
    for side, s in cmp["sides"].items():
        assert s["base"] == report["wins"][side]["rate"]
        assert s["variant"] == report["variant"]["wins"][side]["rate"]
        assert math.isclose(s["change"], s["variant"] - s["base"])
        assert s["low"] <= s["change"] <= s["high"]


def test_a_variant_pack_must_exist():
    report, diagnostics, _ = api.sweep(SCENARIO, 2, vs=str(FIXTURES / "missing.lore"))
    assert report is None and "no pack file" in diagnostics[0].message


def test_the_variant_pack_really_overrides():
    loaded = api.open_variant(api.resolve_scenario(SCENARIO).as_posix(), [VARIANT])
    assert loaded.ok
    spider = loaded.rules.definitions["giant_spider"]
    assert dict(spider.values)["move"].value == 3


# ---------------------------------------------------------------- statistics
def test_wilson_interval_known_values():
    lo, hi = wilson(0, 10)
    assert lo == 0 and math.isclose(hi, 0.27753279, rel_tol=1e-6)
    lo, hi = wilson(5, 10)
    assert math.isclose(lo + hi, 1) and math.isclose(lo, 0.23659309, rel_tol=1e-6)
    assert wilson(0, 0) == (0.0, 1.0)


def test_mcnemar_exact_p_values():
    assert mcnemar_p(0, 0) == 1.0
    assert mcnemar_p(0, 5) == 2 / 32
    assert mcnemar_p(3, 3) == 1.0
    assert math.isclose(mcnemar_p(1, 9), 2 * 11 / 1024)


def test_mean_interval():
    assert mean_interval([]) == (0.0, 0.0, 0.0)
    m, lo, hi = mean_interval([1.0, 2.0, 3.0])
    assert m == 2 and math.isclose(hi - m, 1.959963984540054 * 1 / math.sqrt(3))


def test_summary_counts():
    records = [GameRecord(0, 1, "a", 10, 20, {"a": {}, "b": {"x": 1}}),
               GameRecord(1, 2, "b", 12, 24, {"a": {"x": 2}, "b": {}}),
               GameRecord(2, 3, None, 40, 80, {"a": {}, "b": {}}),
               GameRecord(3, 4, None, 0, 0, {}, "r.lore:1:1: error[R001]: boom")]
    s = summarize(records, ["a", "b"], {"a": {"x": 2}, "b": {"x": 1}})
    assert s["games"] == 4 and s["wins"]["a"]["count"] == 1 and s["draws"]["count"] == 1
    assert s["errors"]["count"] == 1 and "boom" in s["errors"]["first"][0]
    assert s["length"]["median"] == 12 and s["length"]["min"] == 10 and s["length"]["max"] == 40
    assert math.isclose(s["losses"]["a"]["x"]["loss_rate"], 2 / (2 * 3))
    assert math.isclose(s["losses"]["b"]["x"]["lost_mean"], 1 / 3)
    cmp = compare(records[:3], [GameRecord(i, 0, "a", 5, 5, {}) for i in range(3)], ["a", "b"])
    assert cmp["sides"]["a"]["won_only_in_variant"] == 2 and cmp["sides"]["b"]["won_only_in_base"] == 1


# ---------------------------------------------------------------- the command
def test_cli_sweep_json_and_text(tmp_path):
    runner = CliRunner()
    out = runner.invoke(main, ["sweep", SCENARIO, "--games", "4", "--seed", "7", "--format", "json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["games"] == 4 and set(data["wins"]) == {"north", "south"}
    plot = tmp_path / "sweep.png"
    text = runner.invoke(main, ["sweep", SCENARIO, "--games", "4", "--workers", "2", "--seed", "7",
                                "--vs", VARIANT, "--plot", str(plot)])
    assert text.exit_code == 0, text.output
    assert data["digest"] in text.output and "paired comparison" in text.output
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_sweep_rejects_a_bad_backend_and_zero_games():
    runner = CliRunner()
    assert runner.invoke(main, ["sweep", SCENARIO, "--games", "0"]).exit_code == 2
    assert runner.invoke(main, ["sweep", SCENARIO, "--games", "2", "--backend", "spark"]).exit_code == 2


def test_the_package_exports_the_functions(one_worker):
    import hexlore

    assert hexlore.sweep is api.sweep and hexlore.odds is api.odds  # not shadowed by a submodule


def test_a_variant_scenario_file_plays_the_same_seeds(tmp_path):
    text = api.resolve_scenario(SCENARIO).read_text(encoding="utf-8")
    variant = tmp_path / "short.yaml"
    variant.write_text(text.replace("options: {banners_to_win: 4}", "options: {banners_to_win: 2}"), "utf-8")
    report = sweep(workers=1, seed=7, vs=str(variant))
    assert report["variant"]["length"]["mean"] < report["length"]["mean"]  # two banners end games sooner
    assert report["comparison"]["rounds_change"]["high"] < 0


def test_a_sweep_with_a_broken_scenario_is_a_diagnostic(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("hexlore: 1\nname: bad\npacks: [battlelore.creatures]\nboard: {shape: battlelore}\n"
                   "sides: [{name: a, edge: top}, {name: b, edge: bottom}]\nunits: [{id: x, type: nope, side: a, hex: A1}]\n",
                   encoding="utf-8")
    report, diagnostics, _ = api.sweep(str(bad), 2)
    assert report is None and any("no unit type 'nope'" in d.message for d in diagnostics)


# ---------------------------------------------------------------- warm workers
def _batch_then_count(j: int, indices: list[int]) -> tuple[int, int, int]:
    """A pool task: a batch played as the sweep plays it, then what this worker compiled so far."""
    import os

    from hexlore import sweep_backends

    return os.getpid(), len(sweep_backends._play_batch(j, indices)), sweep_backends.compiled_here()


def test_pool_workers_compile_once_when_they_start_not_per_batch():
    """Started with spawn, so nothing is inherited: each worker's initializer compiles the
    two jobs (base and variant), and none of the six batches it may play compiles again."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from hexlore import sweep_backends

    loaded = api.open_scenario(SCENARIO)
    base = make_job(loaded.scenario.path, loaded.sources, [], 7, 2)
    variant = make_job(loaded.scenario.path, loaded.sources, [VARIANT], 7, 2)
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn"),
                             initializer=sweep_backends._warm_up, initargs=([base, variant],)) as pool:
        answers = list(pool.map(_batch_then_count, [0, 1] * 3, [[i] for i in range(6)]))
    assert [played for _, played, _ in answers] == [1] * 6
    assert {compiled for _, _, compiled in answers} == {2}  # two jobs, once each, in every worker


def test_a_ray_actor_compiles_when_created_and_plays_batches_without_compiling(monkeypatch):
    from hexlore import sweep_backends

    monkeypatch.setattr(sweep_backends, "_LOADED", {})
    loaded = api.open_scenario(SCENARIO)
    job = make_job(loaded.scenario.path, loaded.sources, [], 7, 2)
    before = sweep_backends.compiled_here()
    worker = sweep_backends.SweepWorker([job])  # the class Ray runs as an actor, here in-process
    assert sweep_backends.compiled_here() == before + 1
    assert worker.play(0, [0, 1]) + worker.play(0, [2]) == run_chunk(job, [0, 1, 2])
    assert sweep_backends.compiled_here() == before + 1


def test_a_job_that_cannot_compile_in_a_worker_is_reported_by_its_first_batch(monkeypatch, tmp_path):
    from hexlore import sweep_backends

    missing = SweepJob(str(tmp_path / "gone.yaml"))
    worker = sweep_backends.SweepWorker([missing])  # does not raise: a dead actor would say nothing
    with pytest.raises(sweep_backends.SweepSetupError, match="gone.yaml"):
        worker.play(0, [0])


def test_the_report_says_where_the_time_went(one_worker):
    timing = one_worker["timing"]
    assert set(timing) == {"backend_seconds", "sweep_seconds"}
    assert timing["backend_seconds"] == 0 and timing["sweep_seconds"] > 0  # no Ray: nothing before the games
