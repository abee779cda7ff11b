"""Dice and random players draw with ``dice.below``, which must draw what ``randrange`` draws:
every recorded log (tests/test_golden_logs.py) was made with ``random.Random.randrange``."""

from __future__ import annotations

import random

import pytest

from hexlore.runtime.engine.dice import below


@pytest.mark.parametrize("n", [1, 2, 3, 5, 6, 7, 8, 12, 20, 33, 64, 100, 1000])
def test_below_draws_what_randrange_draws(n):
    ours, theirs = random.Random(f"draws:{n}"), random.Random(f"draws:{n}")
    assert [below(ours, n) for _ in range(500)] == [theirs.randrange(n) for _ in range(500)]
    assert ours.getstate() == theirs.getstate()  # and leaves the stream where randrange does


def test_below_nothing_fails_as_randrange_does():
    with pytest.raises(ValueError):
        below(random.Random(0), 0)
