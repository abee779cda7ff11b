"""Exact odds of an attack on the Giant Spider, against icepool and against Monte Carlo.

    python benchmarks/bench_odds.py [--samples N]

For 1 to 6 battle dice (the attacker's weapon counts bonus strikes), the question is "what is
the chance the spider dies?", under the real BattleLore packs: the hits are rolled again as a
critical roll; flags push the spider back two hexes each after the one it ignores, and hexes
it cannot retreat become a second critical roll. Three ways to answer, timed in the same run:

- hexlore's exact odds: every distinct dice outcome through the compiled rules;
- icepool: the same question written by hand as dice maths (no rules engine), the floor;
- Monte Carlo through the same rules: 10^5 seeded attacks; by default 10^4 are run and the
  time is scaled up by 10 (say ``--samples 100000`` to run them all).

The exact answer is also checked equal to icepool's.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from fractions import Fraction
from pathlib import Path

import icepool

from hexlore.api import open_scenario
from hexlore.runtime.analysis.odds import ActionCall, Question, enumerate_odds, sample_odds

# the spider (green) at F8 with seven rows behind it, a blue foot troop at F9
SCENARIO = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "odds" / "spider_attack.yaml"
MC_TARGET = 100_000


def icepool_death(n: int) -> Fraction:
    """P(spider dies) for n dice, as dice maths: hits 2/6 and flags 1/6 per die; the spider
    ignores one flag, retreats 2 hexes per other flag with 7 rows behind it; missing hexes and
    hits are critical dice, each killing with the green helmet (1/6)."""
    face = icepool.Die(["hit", "hit", "flag", "other", "other", "other"])
    helmet = icepool.Die([1, 0, 0, 0, 0, 0])

    def killed(t: tuple):
        hits, flags = t.count("hit"), t.count("flag")
        missing = max(0, 2 * (flags - 1) - 7) if flags else 0
        critical = hits + missing
        return (critical @ helmet) >= 1 if critical else False

    return face.pool(n).expand().map(killed).probability(True)


def timed(fn, repeat: int = 1):
    start = time.perf_counter()
    for _ in range(repeat):
        out = fn()
    return (time.perf_counter() - start) / repeat, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=10_000, help="Monte Carlo runs actually played")
    args = parser.parse_args()
    loaded = open_scenario(str(SCENARIO))
    assert loaded.ok, [d.headline() for d in loaded.diagnostics]
    action = [ActionCall("strike", {"attacker": "attacker", "target": "spider", "melee": True})]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {os.cpu_count()} CPUs, {platform.processor() or platform.machine()}, "
          f"Python {platform.python_version()}, load average {load:.1f} at start")
    print(f"{'dice':>4} {'outcomes':>9} {'exact':>9} {'icepool':>9} {'exact/icepool':>13} "
          f"{'MC 1e5':>9} {'MC/exact':>9}  P(death)")
    totals = [0.0, 0.0, 0.0]
    for n in range(1, 7):
        q = Question(loaded.rules, loaded.scenario, action,
                     given={"attacker": {"melee_dice": n, "counts_bonus_strike": True}}, outcome=["spider.alive"])
        t_exact, result = timed(lambda: enumerate_odds(q, budget=10**6))
        t_ice, p_ice = timed(lambda: icepool_death(n))  # first call: icepool caches
        p_exact = result.chance("spider.alive", False)
        assert p_exact == p_ice, (n, p_exact, p_ice)
        t_mc, _ = timed(lambda: sample_odds(q, args.samples, seed=n))
        t_mc *= MC_TARGET / args.samples
        totals = [totals[0] + t_exact, totals[1] + t_ice, totals[2] + t_mc]
        print(f"{n:>4} {result.enumerated:>9} {t_exact:>8.3f}s {t_ice:>8.4f}s {t_exact / t_ice:>12.0f}x "
              f"{t_mc:>8.1f}s {t_mc / t_exact:>8.0f}x  {p_exact} = {float(p_exact):.5f}")
    scaled = "" if args.samples >= MC_TARGET else f" (MC: {args.samples} runs played, time scaled to {MC_TARGET})"
    print(f"all six: exact {totals[0]:.2f}s, icepool {totals[1]:.3f}s, Monte Carlo 1e5 {totals[2]:.1f}s{scaled}")
    print(f"exact odds cost {totals[0] / totals[1]:.0f}x icepool's dice maths and "
          f"{totals[0] / totals[2]:.3f}x a 1e5 Monte Carlo of the same rules")


if __name__ == "__main__":
    main()
