"""The spider's death rate under many seeded attacks agrees with the exact probability.

Derivation (seed 000, II). The spider has a green banner. Each battle die shows one of six
faces with probability 1/6. A die *scores* a hit on the spider if it shows the green helmet,
or the bonus strike when the attacker's melee weapon counts bonus strikes; so
p = 1/6 without bonus strikes and p = 2/6 with them. Dice are independent, so the number K
of scoring dice among n is Binomial(n, p). The critical roll rolls K dice again and kills iff
at least one shows the green helmet: P(survive | K) = (5/6)^K. Hence

    P(death) = 1 - E[(5/6)^K] = 1 - (1 - p + p * 5/6)^n = 1 - (1 - p/6)^n,

i.e. 1 - (35/36)^n without bonus strikes and 1 - (17/18)^n with them. Flags cannot kill the
spider here: it has open ground behind it for every retreat (at most (n-1) * 2 hexes), and
lore symbols do nothing to it. We call the pack's `strike` procedure directly (no battle
back), N times with seeds 0..N-1, and require the observed rate within three standard errors.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from hexlore.runtime.engine.game import Game
from hexlore.runtime.scenarios.loader import load_scenario_text

SCENARIO = """
hexlore: 1
name: spider statistics
packs: [battlelore.creatures]
board: {shape: battlelore}
sides:
  - {name: north, edge: top, policy: first}
  - {name: south, edge: bottom, policy: first}
units:
  - {id: spider, type: giant_spider, side: north, hex: F8}
  - {id: attacker, type: foot_blue, side: south, hex: F9}
"""

TRIALS = 2500


def exact_death(n: int, counts_bonus_strike: bool) -> Fraction:
    p = Fraction(2 if counts_bonus_strike else 1, 6)
    return 1 - (1 - p / 6) ** n


@pytest.mark.slow
@pytest.mark.parametrize("dice", [1, 2, 4])
@pytest.mark.parametrize("counts_bonus_strike", [False, True])
def test_spider_death_rate_matches_the_exact_probability(battlelore, dice, counts_bonus_strike):
    scenario, diagnostics = load_scenario_text(SCENARIO, "statistics.yaml")
    assert scenario is not None, diagnostics
    deaths = 0
    for seed in range(TRIALS):
        game = Game(battlelore, scenario, seed=seed)
        attacker, spider = game.state.units["attacker"], game.state.units["spider"]
        attacker.f["melee_dice"] = dice
        attacker.f["counts_bonus_strike"] = counts_bonus_strike
        game.guarded(game.call_procedure, "strike", [attacker, spider, True])
        deaths += not spider.alive
    p = float(exact_death(dice, counts_bonus_strike))
    standard_error = math.sqrt(p * (1 - p) / TRIALS)
    observed = deaths / TRIALS
    assert abs(observed - p) <= 3 * standard_error, (observed, p, standard_error)


def test_the_closed_form_is_the_sum_over_scoring_dice():
    # the closed form equals the explicit sum over K ~ Binomial(n, p) of P(K) * (1 - (5/6)^K)
    for n in range(1, 7):
        for counts in (False, True):
            p = Fraction(2 if counts else 1, 6)
            explicit = sum(math.comb(n, k) * p ** k * (1 - p) ** (n - k) * (1 - Fraction(5, 6) ** k)
                           for k in range(n + 1))
            assert explicit == exact_death(n, counts)
