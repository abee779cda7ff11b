"""The bounded-child harness itself: honest input passes under the bounds, a hog is caught."""

from __future__ import annotations

import pytest

from bounded import ROOT, assert_refused, run_bounded


def test_a_clean_check_fits_the_bounds():
    outcome = run_bounded("check", str(ROOT / "rules" / "battlelore"))
    assert outcome.returncode == 0, outcome.describe()


def test_a_child_over_its_cpu_bound_is_reported_as_killed(tmp_path):
    # one CPU second is far too little for a hundred games of the spider's ford
    outcome = run_bounded("sweep", "battlelore/spider_ford", "--games", "100", cpu_seconds=1)
    with pytest.raises(AssertionError, match="killed by the bound"):
        assert_refused(outcome)
