"""Every bundled scenario's log, seed by seed, is the one recorded before the engine work.

``tests/fixtures/golden_logs.json`` holds a digest of the log of seeds 0..199 of each playable
bundled scenario (tests/golden_logs.py). The first seeds are compared on every run; all 200
with ``-m golden`` (CI runs it). A difference names the scenario and the first seeds that
changed: ``hexlore run SCENARIO --seed N`` shows the log. The resumable form of the rules (the
one exact odds and search players fork) must play every seed to the same log too.
"""

from __future__ import annotations

import pytest

from golden_logs import ROOT, log_digests, playable_scenarios, recorded

RECORDED = recorded()
QUICK_SEEDS = 8


def _compare(scenario: str, seeds: range, resumable: bool = False) -> None:
    expected = RECORDED[scenario][seeds.start:seeds.stop]
    actual = log_digests(scenario, seeds, resumable)
    changed = [seed for seed, a, e in zip(seeds, actual, expected) if a != e]
    assert not changed, f"{scenario}: the log changed for seeds {changed[:10]}" + (" (resumable)" if resumable else "")


def test_every_playable_scenario_is_recorded():
    assert sorted(RECORDED) == playable_scenarios()
    assert all(len(digests) == 200 for digests in RECORDED.values())


@pytest.mark.parametrize("resumable", [False, True], ids=["direct", "resumable"])
@pytest.mark.parametrize("scenario", sorted(RECORDED))
def test_first_seeds_log_as_recorded(scenario, resumable):
    _compare(scenario, range(QUICK_SEEDS), resumable)


@pytest.mark.golden
@pytest.mark.parametrize("resumable", [False, True], ids=["direct", "resumable"])
@pytest.mark.parametrize("scenario", sorted(RECORDED))
def test_all_seeds_log_as_recorded(scenario, resumable):
    assert (ROOT / scenario).is_file()
    _compare(scenario, range(QUICK_SEEDS, 200), resumable)
