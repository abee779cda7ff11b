"""Rules questions: hexlore's exact odds against closed forms and models derived here.

Every expected value below is computed in this file from the rule text, with no hexlore code,
and compared as exact fractions.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest

from hexlore import api

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "odds"
TROOP = str(FIXTURES / "troop_attack.yaml")
SPIDER = str(FIXTURES / "spider_attack.yaml")


def exact(scenario, action, outcome=None, **kw):
    result, diagnostics, _ = api.odds(scenario, action, outcome, **kw)
    assert result is not None, [d.headline() for d in diagnostics]
    assert result.exact
    assert sum(result.distribution.values()) == 1
    return result


def multinomial(n: int, chances: list[Fraction]):
    """Every way n independent dice fall into categories with these chances: (counts, chance)."""
    for counts in product(range(n + 1), repeat=len(chances)):
        if sum(counts) == n:
            ways = math.factorial(n) // math.prod(math.factorial(c) for c in counts)
            yield counts, ways * math.prod(p ** c for p, c in zip(chances, counts))


def add(dist: dict, key, p: Fraction) -> None:
    dist[key] = dist.get(key, Fraction(0)) + p


# ---------------------------------------------------------------- the spider (seed 000, II and IV)
# The spider (green banner) at F8, the attacker at F9, nothing else on the board. A die scores
# a hit with chance p = 1/6 (green helmet) or 2/6 (and the bonus strike, when the attacker's
# weapon counts it); a flag has chance 1/6. The hits are rolled again as a critical roll,
# which kills unless no die shows the green helmet: survival (5/6)^hits.

def spider_critical_only(n: int, bonus: bool) -> Fraction:
    """With one hex per flag, the spider always has room (5 hexes at most, 7 rows behind it),
    so only the critical roll of the hits kills: 1 - E[(5/6)^K], K ~ Bin(n, p) = 1 - (1 - p/6)^n."""
    p = Fraction(2 if bonus else 1, 6)
    return 1 - (1 - p / 6) ** n


def spider_death(n: int, bonus: bool) -> Fraction:
    """With the real two hexes per flag: the spider ignores one flag (bold 1, no support) and
    retreats 2(f-1) hexes; past the 7 rows behind it the missing hexes are hits, a second
    critical roll. Survival needs both rolls clean: (5/6)^(hits + missing)."""
    p = Fraction(2 if bonus else 1, 6)
    survive = Fraction(0)
    for (hits, flags, _), chance in multinomial(n, [p, Fraction(1, 6), 1 - p - Fraction(1, 6)]):
        missing = max(0, 2 * (flags - 1) - 7) if flags else 0
        survive += chance * Fraction(5, 6) ** (hits + missing)
    return 1 - survive


@pytest.mark.slow
@pytest.mark.parametrize("bonus", [False, True], ids=["no bonus strike", "bonus strike"])
def test_spider_critical_hit_odds_for_one_to_six_dice(bonus):
    for n in range(1, 7):
        given = {"attacker": {"melee_dice": n, "counts_bonus_strike": bonus}, "spider": {"retreat_per_flag": 1}}
        result = exact(SPIDER, "strike(attacker: attacker, target: spider, melee: true)",
                       ["spider.alive", "event:critical_roll(killed=true)"], given=given)
        assert result.chance("spider.alive", False) == spider_critical_only(n, bonus), n
        assert result.chance("event:critical_roll(killed=true)", 1) == spider_critical_only(n, bonus)


@pytest.mark.slow
@pytest.mark.parametrize("bonus", [False, True], ids=["no bonus strike", "bonus strike"])
def test_spider_death_with_two_hex_retreats_and_blocked_retreats(bonus):
    for n in range(1, 7):
        given = {"attacker": {"melee_dice": n, "counts_bonus_strike": bonus}}
        result = exact(SPIDER, "strike(attacker: attacker, target: spider, melee: true)",
                       ["spider.alive", "event:retreat_blocked"], given=given)
        assert result.chance("spider.alive", False) == spider_death(n, bonus), n
        # a blocked retreat needs five flags or more, and a spider that survived the hits
        p = Fraction(2 if bonus else 1, 6)
        blocked = sum(c * Fraction(5, 6) ** h
                      for (h, f, _), c in multinomial(n, [p, Fraction(1, 6), 1 - p - Fraction(1, 6)]) if f >= 5)
        assert result.chance("event:retreat_blocked", 1) == blocked


def test_the_two_spider_forms_agree_where_no_retreat_can_be_blocked():
    for n in range(1, 5):
        for bonus in (False, True):
            assert spider_death(n, bonus) == spider_critical_only(n, bonus)
    assert spider_death(6, True) > spider_critical_only(6, True)


# ---------------------------------------------------------------- a whole attack on a troop (core)
# A red foot troop (4 dice, counts bonus strikes) attacks a green foot troop (4 figures) in
# melee. Hits on green: green helmet or bonus strike (2/6); flags 1/6. Each flag not ignored
# retreats the target one row toward its edge; rows it cannot go are figures lost. A target
# that survives and holds its hex battles back with 2 dice: hits on red (1/6), flags 1/6 push
# the attacker back toward its own edge (rows 9 - its row available).

def troop_model(row: int, supported: bool, policy: str) -> dict:
    """(target figures, target row, attacker figures, attacker row) -> chance."""
    dist: dict = {}
    arow = row + 1
    third = Fraction(1, 6)
    for (hits, flags, _), p in multinomial(4, [Fraction(2, 6), third, Fraction(3, 6)]):
        figures = 4 - min(hits, 4)
        if figures == 0:
            add(dist, (0, None, 4, arow), p)
            continue
        ignorable = min(flags, 1 if supported else 0)
        if ignorable == 0:
            choices = [(Fraction(1), 0)]
        elif policy == "random":
            choices = [(Fraction(1, ignorable + 1), k) for k in range(ignorable + 1)]
        else:  # first takes the rules' default, greedy the preferred: both ignore all they may
            choices = [(Fraction(1), ignorable)]
        for q, ignored in choices:
            moved = min(flags - ignored, row - 1)
            missing = flags - ignored - moved
            left = figures - min(missing, figures)
            if left == 0:
                add(dist, (0, None, 4, arow), p * q)
                continue
            if moved > 0:
                add(dist, (left, row - moved, 4, arow), p * q)
                continue
            backs = [(Fraction(1), True)] if policy != "random" else [(Fraction(1, 2), True), (Fraction(1, 2), False)]
            for q2, back in backs:
                if not back:
                    add(dist, (left, row, 4, arow), p * q * q2)
                    continue
                for (h2, f2, _), p2 in multinomial(2, [third, third, Fraction(4, 6)]):
                    add(dist, (left, row, 4 - h2, arow + min(f2, 9 - arow)), p * q * q2 * p2)
    return dist


def rows_of(result) -> dict:
    """The distribution with hexes as rows (labels are letter + row number)."""
    def row(label):
        return None if label is None else int(re.fullmatch(r"[A-Z]+(\d+)", label).group(1))

    out: dict = {}
    for (tf, th, af, ah), p in result.distribution.items():
        add(out, (tf, row(th), af, row(ah)), p)
    return out


TROOP_CASES = {
    "open ground": ({"target": {"hex": "F5"}, "attacker": {"hex": "F6"}}, 5, False),
    "blocked retreat (own edge)": ({"target": {"hex": "F1"}, "attacker": {"hex": "F2"}}, 1, False),
    "partly blocked retreat": ({"target": {"hex": "F2"}, "attacker": {"hex": "F3"}}, 2, False),
    "supported": ({"target": {"hex": "F5"}, "attacker": {"hex": "F6"}, "friend1": {"hex": "E5"},
                   "friend2": {"hex": "G5"}}, 5, True),
}


# greedy differs from first only where a decision has preferences: the supported case
TROOP_RUNS = [(case, policy) for case in TROOP_CASES for policy in ("first", "random")] + [("supported", "greedy")]


@pytest.mark.parametrize("case, policy", TROOP_RUNS)
def test_a_whole_melee_attack_on_a_troop_matches_the_model(case, policy):
    given, row, supported = TROOP_CASES[case]
    result = exact(TROOP, "{call: melee_attack, with: {attacker: attacker, target: target}}",
                   ["target.figures", "target.hex", "attacker.figures", "attacker.hex"],
                   given=given, policy=policy)
    assert rows_of(result) == troop_model(row, supported, policy)


# ---------------------------------------------------------------- coordinated attack (seed 001)
WESTEROS = str(FIXTURES / "westeros_demo.yaml")


@pytest.mark.parametrize("lead, supports, target, dice, scoring", [
    # foot (3) alone on foot: infantry faces (2 of 8) and valor (foot hits on valor)
    ("foot1", [], "enemy_foot", 3, 3),
    # + horse (4 - 1): horse does not hit on valor, so valor scores for nobody
    ("foot1", ["horse1"], "enemy_foot", 6, 2),
    # + bows (2 - 1) and foot (3 - 1): all hit on valor
    ("foot1", ["bows1", "foot2"], "enemy_horse", 6, 3),
    # + levy (1 - 1 = 0 dice) still takes part: valor needs it too, and it has it
    ("horse1", ["levy1"], "enemy_horse", 4, 2),
    ("foot1", ["levy1", "horse1"], "enemy_foot", 6, 2),
])
def test_coordinated_attack_hits_are_binomial(lead, supports, target, dice, scoring):
    action = {"call": "coordinated_attack", "with": {"lead": lead, "supports": supports, "target": target}}
    result = exact(WESTEROS, action, ["event:coordinated.dice", "event:attack_hits.hits"])
    assert result.marginal("event:coordinated.dice") == {dice: 1}
    p = Fraction(scoring, 8)
    expected = {k: math.comb(dice, k) * p ** k * (1 - p) ** (dice - k) for k in range(dice + 1)}
    assert result.marginal("event:attack_hits.hits") == {k: v for k, v in expected.items() if v}


# ---------------------------------------------------------------- save roll and corruption (seed 004)
SKIRMISH = str(FIXTURES / "skirmish_demo.yaml")


@pytest.mark.parametrize("attacker, target", [("soldier", "guard"), ("knight", "champion"),
                                              ("knight", "guard"), ("mage", "guard")])
def test_saves_make_wounds_binomial(attacker, target):
    """Each attack die wounds iff it hits (>= combat) and its save fails (< armour):
    wounds ~ Bin(attacks, P(hit) * P(no save)), capped at the target's hit points."""
    stats = {"soldier": (4, 3, 5, 3), "knight": (3, 4, 4, 4), "mage": (5, 1, 6, 2)}
    combat, attacks, _, _ = stats[attacker]
    _, _, armour, hp = stats["soldier" if target == "guard" else "knight"]
    q = Fraction(7 - combat, 6) * Fraction(armour - 1, 6)
    expected: dict = {}
    for k in range(attacks + 1):
        add(expected, hp - min(k, hp), math.comb(attacks, k) * q ** k * (1 - q) ** (attacks - k))
    result = exact(SKIRMISH, f"attack(attacker: {attacker}, target: {target})",
                   [f"{target}.hp", f"{target}.alive", "event:saved"])
    assert result.marginal(f"{target}.hp") == expected
    assert result.chance(f"{target}.alive", False) == expected.get(0, 0)
    # a save roll happens exactly when something hit
    assert result.chance("event:saved", 1) == 1 - (1 - Fraction(7 - combat, 6)) ** attacks


def stirling2(n: int, k: int) -> int:
    return sum((-1) ** i * math.comb(k, i) * (k - i) ** n for i in range(k + 1)) // math.factorial(k)


@pytest.mark.parametrize("dice", [1, 2, 3])
def test_corruption_on_doubles_closed_form(dice):
    """Each group of k equal dice corrupts k - 1, so corruption = dice - (distinct faces), and
    P(j distinct faces among n d6) = C(6, j) * j! * S(n, j) / 6^n."""
    result = exact(SKIRMISH, f"cast(caster: mage, dice: {dice}, difficulty: 9)", ["mage.corruption"])
    expected = {dice - j: Fraction(math.comb(6, j) * math.factorial(j) * stirling2(dice, j), 6 ** dice)
                for j in range(1, dice + 1)}
    assert result.marginal("mage.corruption") == expected
    if dice >= 2:  # "a double appears": at least one pair
        assert result.chance("mage.corruption", lambda c: c >= 1) == 1 - Fraction(math.perm(6, dice), 6 ** dice)
