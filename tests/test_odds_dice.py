"""Pure dice questions: hexlore's enumeration against icepool, computed independently.

icepool (a test dependency) works on its own dice model; hexlore runs the compiled rules of a
pack over every multiset of faces. Equal ``Fraction`` results, not tolerances.
"""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import icepool
import pytest

from hexlore import api
from hexlore.runtime.engine.dice import Roller, canonical, face_groups, multiset_count, multisets

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "odds"
SKIRMISH = str(FIXTURES / "skirmish_rolls.yaml")
WESTEROS = str(FIXTURES / "westeros_attack.yaml")


def exact(scenario, action, outcome, **kw):
    result, diagnostics, _ = api.odds(scenario, action, outcome, **kw)
    assert result is not None, [d.headline() for d in diagnostics]
    assert result.exact
    return result


def as_dict(die: icepool.Die) -> dict:
    return dict(zip(die.outcomes(), die.probabilities()))


@pytest.fixture(scope="module")
def battle_die(battlelore):
    return battlelore.dice["battle"]


# ---------------------------------------------------------------- the multiset model itself
@pytest.mark.parametrize("n", range(0, 7))
def test_multisets_cover_every_sequence_once(battle_die, n):
    outcomes = multisets(n, battle_die)
    assert len(outcomes) == multiset_count(n, battle_die) == math.comb(n + 5, 5)
    assert sum(p for _, p in outcomes) == 1
    # each multiset's chance is (number of orderings) / 6**n
    for faces, p in outcomes:
        counts = [faces.count(f) for f, _ in face_groups(battle_die)]
        assert p == Fraction(math.factorial(n) // math.prod(math.factorial(c) for c in counts), 6 ** n)
        assert list(faces) == canonical(list(faces), battle_die)


REPEATED = """pack odds_test.repeated
die stand_in "A die with repeated faces" {
  face hit is hit_tag
  face hit is hit_tag
  face other
}
tag hit_tag
"""


def test_identical_faces_are_grouped_with_their_weight(tmp_path):
    # no real pack declares a face twice (westeros's combat_die names its two greens apart), so a
    # three-line pack asks the question
    (tmp_path / "repeated.lore").write_text(REPEATED, "utf-8")
    (tmp_path / "repeated.yaml").write_text(
        "hexlore: 1\nname: repeated faces\npacks: [repeated.lore]\nboard: {shape: rectangle, width: 2, height: 2}\n"
        "sides: [{name: a, edge: top}, {name: b, edge: bottom}]\nunits: []\n", "utf-8")
    opened = api.open_scenario(str(tmp_path / "repeated.yaml"))
    die = opened.rules.dice["stand_in"]
    assert dict((f.name, w) for f, w in face_groups(die)) == {"hit": 2, "other": 1}
    assert multiset_count(3, die) == math.comb(3 + 1, 1)  # two distinct faces, not three
    chance = dict((tuple(f.name for f in faces), p) for faces, p in multisets(2, die))
    assert chance[("hit", "hit")] == Fraction(2, 3) ** 2
    assert chance[("hit", "other")] == 2 * Fraction(2, 3) * Fraction(1, 3)


def test_the_westeros_die_has_eight_distinct_faces():
    # green_hit and green_hit2 (and morale, morale2) differ by name, so the engine branches on
    # all eight faces: C(n + 7, 7) multisets of n dice, each face with chance 1/8
    die = api.open_scenario(WESTEROS).rules.dice["combat_die"]
    assert [w for _, w in face_groups(die)] == [1] * 8
    assert multiset_count(4, die) == math.comb(4 + 7, 7)
    assert sum(p for _, p in multisets(4, die)) == 1


def test_random_rolls_come_in_canonical_order(battle_die):
    roller = Roller(11)
    order = [f for f, _ in face_groups(battle_die)]
    for _ in range(200):
        faces, forced = roller.roll(5, battle_die)
        assert not forced
        assert [order.index(f) for f in faces] == sorted(order.index(f) for f in faces)


def test_forced_rolls_keep_the_order_the_test_wrote(battle_die):
    faces, forced = Roller(0, [["lore", "green_helmet"]]).roll(2, battle_die)
    assert forced and [f.name for f in faces] == ["lore", "green_helmet"]


# ---------------------------------------------------------------- against icepool
@pytest.mark.parametrize("caster, spell, dice", [("mage", "mend", 1), ("mage", "firebolt", 2),
                                                  ("archmage", "firebolt", 3), ("archmage", "lightning", 3)])
def test_casting_success_is_icepools_sum(caster, spell, dice):
    difficulty = {"mend": 5, "firebolt": 7, "lightning": 10}[spell]
    result = exact(SKIRMISH, f"casting_roll(caster: {caster}, s: {spell}, target: guards, dice: {dice})",
                   ["event:casting.success", "event:casting.total"])
    assert result.chance("event:casting.success", True) == (dice @ icepool.d6).probability(">=", difficulty)
    assert result.marginal("event:casting.total") == as_dict(dice @ icepool.d6)


@pytest.mark.parametrize("dice", [1, 2, 3])
def test_corruption_is_icepools_count_of_matching_dice(dice):
    result = exact(SKIRMISH, f"casting_roll(caster: archmage, s: firebolt, target: guards, dice: {dice})",
                   ["archmage.corruption"])

    def corruption(faces: tuple) -> int:  # each group of k equal dice: k - 1 points
        return sum(faces.count(v) - 1 for v in set(faces))

    expected = icepool.d6.pool(dice).expand().map(corruption)
    assert result.marginal("archmage.corruption") == as_dict(expected)


@pytest.mark.parametrize("target, ranged", [("guards", False), ("hidden", True)])
def test_save_roll_is_icepools_count_of_saves(target, ranged):
    need = 5 - (1 if ranged else 0)  # soldiers' armour 5; in a forest, -1 against ranged attacks
    result = exact(SKIRMISH, f"save_roll(target: {target}, damage: 4, ranged: {str(ranged).lower()})",
                   ["event:saves.saved"])
    assert result.marginal("event:saves.saved") == as_dict(4 @ (icepool.d6 >= need))


def test_westeros_attack_faces_match_icepool():
    # a blue lead (3 dice) and a green supporter (2 - 1): 4 combat_die; hits on green or blue
    # (neither can hit on valor), morale on either morale face
    bow = icepool.Die(["green", "green", "blue", "red", "valor", "morale", "morale", "blank"])
    result = exact(WESTEROS, "resolve_attack(lead: footmen, supporters: [levy], target: enemy, melee: false)",
                   ["event:attack_rolled.hits", "event:attack_rolled.morale"])
    assert result.marginal("event:attack_rolled.hits") == as_dict(4 @ bow.map(lambda f: f in ("green", "blue")))
    assert result.marginal("event:attack_rolled.morale") == as_dict(4 @ (bow == "morale"))


def test_battle_die_counts_match_icepool(battlelore):
    # a 5-die ranged strike: hits (green helmets only, no bonus strikes at range), flags, lore
    result = exact("battlelore/spider_ford", "strike(attacker: s_archers, target: n_left, melee: false)",
                   ["event:hit.count", "event:flags.count", "north.lore", "south.lore"],
                   given={"s_archers": {"ranged_dice": 5}, "n_left": {"hex": "C3"}})
    battle = icepool.Die(["green_helmet", "blue_helmet", "red_helmet", "flag", "bonus_strike", "lore"])
    for column, face in (("event:hit.count", "green_helmet"), ("south.lore", "lore")):
        assert result.marginal(column) == as_dict(5 @ (battle == face)), column
    # flags are resolved only while the target lives: with 4 figures and at most 5 hits it may not
    joint = as_dict(battle.pool(5).expand().map(
        lambda t: (t.count("flag") if t.count("green_helmet") < 4 else 0)))
    assert result.marginal("event:flags.count") == joint
    assert result.marginal("north.lore") == {0: 1}
