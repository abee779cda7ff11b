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
from hexlore.runtime.dice import Roller, canonical, face_groups, multiset_count, multisets

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "odds"
SKIRMISH = str(FIXTURES / "skirmish_demo.yaml")
WESTEROS = str(FIXTURES / "westeros_demo.yaml")


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


def test_identical_faces_are_grouped_with_their_weight():
    rules = api.open_scenario(WESTEROS).rules
    die = rules.dice["westeros_die"]
    groups = dict((f.name, w) for f, w in face_groups(die))
    assert groups == {"infantry_hit": 2, "cavalry_hit": 2, "archers_hit": 1, "valor": 1, "morale": 1, "blank": 1}
    assert multiset_count(3, die) == math.comb(3 + 5, 5)  # six distinct faces, not eight
    chance = dict((tuple(f.name for f in faces), p) for faces, p in multisets(2, die))
    assert chance[("infantry_hit", "infantry_hit")] == Fraction(2, 8) ** 2
    assert chance[("infantry_hit", "valor")] == 2 * Fraction(2, 8) * Fraction(1, 8)


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
@pytest.mark.parametrize("dice, difficulty", [(1, 4), (2, 7), (3, 10), (3, 14)])
def test_spell_success_is_icepools_sum(dice, difficulty):
    result = exact(SKIRMISH, f"cast(caster: mage, dice: {dice}, difficulty: {difficulty})",
                   ["event:incantation.success", "event:incantation.total"])
    assert result.chance("event:incantation.success", True) == (dice @ icepool.d6).probability(">=", difficulty)
    assert result.marginal("event:incantation.total") == as_dict(dice @ icepool.d6)


@pytest.mark.parametrize("dice", [1, 2, 3])
@pytest.mark.parametrize("per_group", [True, False])
def test_corruption_is_icepools_count_of_matching_dice(tmp_path, dice, per_group):
    scenario = SKIRMISH
    if not per_group:  # the other reading of "triple: two points": only the largest group counts
        text = (FIXTURES / "skirmish_demo.yaml").read_text(encoding="utf-8")
        variant = tmp_path / "largest_group.yaml"
        (tmp_path / "skirmish_demo.lore").write_text((FIXTURES / "skirmish_demo.lore").read_text("utf-8"), "utf-8")
        variant.write_text(text + "options: {corruption_per_group: false}\n", encoding="utf-8")
        scenario = str(variant)
    result = exact(scenario, f"cast(caster: mage, dice: {dice}, difficulty: 7)", ["mage.corruption"])

    def corruption(faces: tuple) -> int:
        sizes = [faces.count(v) for v in set(faces)]
        return sum(s - 1 for s in sizes) if per_group else max(sizes) - 1

    expected = icepool.d6.pool(dice).expand().map(corruption)
    assert result.marginal("mage.corruption") == as_dict(expected)


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
