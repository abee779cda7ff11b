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
# that survives, holds its hex and was not forced to retreat (a blocked retreat is forced
# too: 002 VII read a contrario) battles back with 2 dice: hits on red (1/6), flags 1/6 push
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
            if flags > ignored:  # forced to retreat, blocked on its hex: no battle back
                add(dist, (left, row, 4, arow), p * q)
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
# The real packs (rules/westeros). The die combat_die has eight faces: green x2, blue, red (rank
# results of level 1, 2, 3), valor, morale x2, blank. With the default cumulative ranks a rank
# result hits for a lead of that rank or higher, so a green lead scores on 2 faces, blue on 3,
# red on 4; valor adds one face only if the lead and every supporter hit on valor (CA ¶3).
# Rank results count by the lead's rank (English reading, hits_for_all false).
# The pool (CA ¶1, ¶6): the lead's dice plus each supporter's dice minus one, never below zero;
# dice by rank green 2, blue 3, red 4, a reduced unit (lost half its strength) one fewer, a
# fierce lead one more in melee. Every die scores independently with chance s/8, so the hits
# are Bin(pool, s/8): P(k) = C(pool, k) (s/8)^k (1 - s/8)^(pool - k).
WESTEROS = str(FIXTURES / "westeros_attack.yaml")
RANK = {"levy": 1, "footmen": 2, "outriders": 1, "riders": 2, "knights": 3, "guard": 3}
VALOR = {"riders", "outriders", "knights"}
REDUCED = {"levy": {"strength": 2}, "footmen": {"strength": 2}, "riders": {"strength": 1},
           "guard": {"strength": 2}}


def westeros_pool(lead: str, supporters: list, reduced: set, melee: bool) -> int:
    def dice(u):
        return {1: 2, 2: 3, 3: 4}[RANK[u]] - (1 if u in reduced else 0)
    fierce = 1 if melee and lead == "knights" else 0
    return dice(lead) + fierce + sum(max(0, dice(u) - 1) for u in supporters)


@pytest.mark.parametrize("lead, supporters, reduced, melee", [
    ("footmen", [], set(), False),                      # blue alone: 3 dice on 3 faces
    ("riders", ["outriders"], set(), True),             # 3 + (2 - 1); all hit on valor: 4 faces
    ("riders", ["outriders", "levy"], set(), True),     # the levy cannot hit on valor: 3 faces
    ("knights", ["riders"], set(), True),               # fierce lead +1 in melee: 4 + 1 + 2
    ("knights", ["riders"], set(), False),              # no fierce die at range
    ("footmen", ["levy"], {"levy"}, True),              # reduced green supporter: 2 - 1 - 1 = 0 dice
    ("levy", ["footmen", "guard"], {"footmen"}, True),  # green lead: only green results hit
    ("guard", ["riders", "footmen"], {"guard", "riders", "footmen"}, True),  # all reduced: 3 + 1 + 1
])
def test_coordinated_attack_hits_match_the_closed_form(lead, supporters, reduced, melee):
    given = {u: REDUCED[u] for u in reduced}
    action = {"call": "resolve_attack",
              "with": {"lead": lead, "supporters": supporters, "target": "enemy", "melee": melee}}
    result = exact(WESTEROS, action, ["event:attack.dice", "event:attack_rolled.hits"], given=given)
    pool = westeros_pool(lead, supporters, reduced, melee)
    assert result.marginal("event:attack.dice") == {pool: 1}
    scoring = {1: 2, 2: 3, 3: 4}[RANK[lead]] + (1 if all(u in VALOR for u in [lead] + supporters) else 0)
    p = Fraction(scoring, 8)
    expected = {k: math.comb(pool, k) * p ** k * (1 - p) ** (pool - k) for k in range(pool + 1)}
    assert result.marginal("event:attack_rolled.hits") == expected


def test_coordinated_attack_morale_results_and_hits_jointly():
    """Hits and morale results of one throw are a trinomial: each die scores (3/8 for a blue
    lead without valor), shows morale (2/8) or neither; the pool is 3 + (3 - 1) = 5."""
    action = "resolve_attack(lead: footmen, supporters: [riders], target: enemy, melee: true)"
    result = exact(WESTEROS, action, ["event:attack_rolled.hits", "event:attack_rolled.morale"])
    expected = {(h, m): p for (h, m, _), p in multinomial(5, [Fraction(3, 8), Fraction(2, 8), Fraction(3, 8)])}
    assert result.distribution == expected


def test_french_step_eight_counts_only_results_that_hit_for_everyone(tmp_path):
    """Option hits_for_all: a rank result scores only if it hits for every participant,
    so a red lead with a green supporter scores on the green faces alone (2 of 8); the levy
    has no valor. Pool 4 + (2 - 1) = 5: Bin(5, 1/4)."""
    variant = tmp_path / "hits_for_all.yaml"
    variant.write_text((FIXTURES / "westeros_attack.yaml").read_text("utf-8")
                       + "options: {hits_for_all: true}\n", "utf-8")
    result = exact(str(variant), "resolve_attack(lead: guard, supporters: [levy], target: enemy, melee: false)",
                   ["event:attack_rolled.hits"])
    p = Fraction(1, 4)
    assert result.marginal("event:attack_rolled.hits") == {
        k: math.comb(5, k) * p ** k * (1 - p) ** (5 - k) for k in range(6)}


# ---------------------------------------------------------------- save roll and corruption (seed 004)
# The real packs (rules/skirmish), die d6 (faces 1..6).
SKIRMISH = str(FIXTURES / "skirmish_rolls.yaml")
# per unit type: (skill, attacks, armour, hp, damage)
SK = {"archers": (4, 2, 6, 2, 1), "soldiers": (3, 3, 5, 3, 1), "knights": (3, 3, 4, 4, 2),
      "militia": (4, 2, 6, 2, 1)}
SK_UNITS = {"archers": "archers", "soldiers": "soldiers", "knights": "knights", "militia": "militia",
            "guards": "soldiers", "champion": "knights", "hidden": "soldiers"}


def at_least(need: int) -> Fraction:
    """P(d6 >= need), clamped: a need of 7 never succeeds, a need of 1 or less always does."""
    return Fraction(min(6, max(0, 7 - need)), 6)


def binomial(n: int, p: Fraction) -> dict:
    return {k: math.comb(n, k) * p ** k * (1 - p) ** (n - k) for k in range(n + 1)}


@pytest.mark.parametrize("target, damage, ranged, cover_bonus", [
    ("guards", 3, False, 1),    # armour 5: each point saved on 5-6 (1/3)
    ("champion", 4, False, 1),  # armour 4: 1/2
    ("militia", 2, True, 1),    # armour 6, ranged but in the open: no cover, 1/6
    ("hidden", 3, False, 1),    # in a forest, but cover helps only against ranged attacks: 1/3
    ("hidden", 3, True, 1),     # in a forest, ranged: need 5 - 1 = 4, 1/2
    ("hidden", 2, True, 2),     # option cover_bonus 2: need 3, 2/3
])
def test_save_roll_loses_each_point_with_the_closed_form_chance(tmp_path, target, damage, ranged, cover_bonus):
    """One d6 per point of damage; a die at or above armour (less the cover bonus against
    ranged attacks for a target in cover) saves that point. The points lost are
    Bin(damage, 1 - P(save))."""
    scenario = SKIRMISH
    if cover_bonus != 1:
        scenario = str(tmp_path / "cover.yaml")
        Path(scenario).write_text((FIXTURES / "skirmish_rolls.yaml").read_text("utf-8")
                                  + f"options: {{cover_bonus: {cover_bonus}}}\n", "utf-8")
    need = SK[SK_UNITS[target]][2] - (cover_bonus if ranged and target == "hidden" else 0)
    result = exact(scenario, f"save_roll(target: {target}, damage: {damage}, ranged: {str(ranged).lower()})",
                   ["event:saves.lost", "event:saves.need"])
    assert result.marginal("event:saves.need") == {need: 1}
    assert result.marginal("event:saves.lost") == binomial(damage, 1 - at_least(need))


@pytest.mark.parametrize("attacker, target", [("archers", "hidden"), ("archers", "militia"), ("knights", "hidden")])
def test_a_whole_shot_matches_the_closed_form(attacker, target):
    """shoot: to-hit then saves. Each attack die independently hits (>= skill) and, if it
    does, deals `damage` points each lost with chance q = 1 - P(save), so the points lost by one
    die are 0 w.p. 1 - h + h(1-q)^dmg, and j (1 <= j <= dmg) w.p. h C(dmg, j) q^j (1-q)^(dmg-j); the
    attack's loss is the sum over its dice (a convolution), the hit points left max(0, hp - loss)."""
    skill, attacks, _, _, dmg = SK[SK_UNITS[attacker]]
    _, _, armour, hp, _ = SK[SK_UNITS[target]]
    need = armour - (1 if target == "hidden" else 0)
    h, q = at_least(skill), 1 - at_least(need)
    one = {j: h * v for j, v in binomial(dmg, q).items()}
    one[0] += 1 - h
    loss = {0: Fraction(1)}
    for _ in range(attacks):
        nxt: dict = {}
        for a, p in loss.items():
            for b, r in one.items():
                add(nxt, a + b, p * r)
        loss = nxt
    left: dict = {}
    for k, p in loss.items():
        add(left, max(0, hp - k), p)
    result = exact(SKIRMISH, f"shoot(attacker: {attacker}, target: {target})",
                   [f"{target}.hp", f"{target}.alive"])
    assert result.marginal(f"{target}.hp") == left
    assert result.chance(f"{target}.alive", False) == left.get(0, 0)


def stirling2(n: int, k: int) -> int:
    return sum((-1) ** i * math.comb(k, i) * (k - i) ** n for i in range(k + 1)) // math.factorial(k)


def ways_to_reach(n: int, total: int) -> int:
    """Sequences of n d6 summing to exactly `total`: inclusion-exclusion over the dice that
    exceed 6, sum_k (-1)^k C(n, k) C(total - 6k - 1, n - 1)."""
    return sum((-1) ** k * math.comb(n, k) * math.comb(total - 6 * k - 1, n - 1)
               for k in range(n + 1) if total - 6 * k - 1 >= n - 1)


@pytest.mark.parametrize("caster, spell, dice", [
    ("mage", "mend", 1), ("mage", "firebolt", 2), ("archmage", "firebolt", 2),
    ("archmage", "lightning", 3), ("mage", "firebolt", 3),  # the mage's power 2 caps the dice
])
def test_casting_success_and_corruption_closed_forms(caster, spell, dice):
    """The casting roll: n = min(dice, power) d6. Success: the sum reaches the difficulty,
    P = sum_{t >= difficulty} ways(n, t) / 6^n. Corruption (doubles 1, triples 2, two doubles 2):
    each group of k equal dice gives k - 1, so corruption = n - (distinct faces), and
    P(j distinct faces) = C(6, j) j! S(n, j) / 6^n (S: Stirling numbers of the second kind)."""
    power = {"mage": 2, "archmage": 3}[caster]
    difficulty = {"mend": 5, "firebolt": 7, "lightning": 10}[spell]
    target = "soldiers" if spell == "mend" else "guards"
    n = min(dice, power)
    result = exact(SKIRMISH, f"casting_roll(caster: {caster}, s: {spell}, target: {target}, dice: {dice})",
                   [f"{caster}.corruption", "event:casting.success", "event:corrupted"])
    success = Fraction(sum(ways_to_reach(n, t) for t in range(difficulty, 6 * n + 1)), 6 ** n)
    assert result.chance("event:casting.success", True) == success
    corruption = {n - j: Fraction(math.comb(6, j) * math.factorial(j) * stirling2(n, j), 6 ** n)
                  for j in range(1, n + 1)}
    assert result.marginal(f"{caster}.corruption") == corruption
    # "a double appears": at least two equal dice, 1 - 6!/(6-n)!/6^n; corrupted is emitted then
    assert result.chance("event:corrupted", 1) == 1 - Fraction(math.perm(6, n), 6 ** n)
