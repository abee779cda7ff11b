"""Random games with heroes stay legal (seed 002, battlelore.heroes activation rules).

Plays the hero-bearing battle of ``scenarios/battlelore/heroes_activation.yaml`` with random
policies on both sides over a few seeds, and checks at the start of every turn and at the
end that the two roles stay consistent:

* a warlord (a hero with ``leading``) is never on the board, and its troop's ``leader``
  points back to it; a troop's ``leader`` is a warlord leading that very troop;
* no two units share a hex once a turn is over (a champion crosses friends and a separated
  warlord stands on its troop's hex only during the movement phase);
* no unit is activated twice in one turn: a unit's ``unit_ordered`` and a hero's
  ``warlord_ordered`` (ordered with its troop) appear at most once per unit and turn.

Also checks the negative movement rules a scenario test cannot state (a scripted answer
that is not an option fails the test instead of proving the option is missing).
"""

from __future__ import annotations

from collections import Counter

import pytest

from conftest import ROOT
from hexlore.compiler import compile_packs
from hexlore.compiler.builtins import enum_value
from hexlore.runtime.engine.game import Game
from hexlore.runtime.scenarios.loader import load_scenario

HEROES = ROOT / "scenarios" / "battlelore" / "heroes_activation.yaml"
SEEDS = range(20)
ROUNDS = 12  # random play rarely ends a battle; 12 rounds exercise every hero rule (see the counts)


@pytest.fixture(scope="module")
def heroes_rules():
    rules = compile_packs(["battlelore.heroes"])
    assert rules.ok, [d.headline() for d in rules.diagnostics]
    return rules


@pytest.fixture(scope="module")
def heroes_scenario():
    scenario, diagnostics = load_scenario(HEROES)
    assert scenario is not None, diagnostics
    return scenario


def is_hero(unit) -> bool:
    return "hero" in unit.definition.traits


def check_position(game: Game, where: str) -> None:
    state = game.state
    for unit in state.units.values():
        troop = unit.f.get("leading")
        if troop is not None:
            assert unit.hex is None, f"{where}: warlord {unit.id} is on the board at {unit.hex}"
            assert troop.f.get("leader") is unit, f"{where}: {troop.id} does not point back to {unit.id}"
        leader = unit.f.get("leader")
        if leader is not None:
            assert leader.f.get("leading") is unit, f"{where}: {unit.id}'s leader {leader.id} leads another"
            assert not is_hero(unit), f"{where}: hero {unit.id} has a warlord"
    for h, here in state.occupants.items():
        alive = [u.id for u in here if u.alive]
        assert len(alive) <= 1, f"{where}: {alive} share a hex"


def play_checked(rules, scenario, seed: int) -> tuple[Game, int]:
    """Play a game, checking the position whenever a turn starts; returns the game and how
    many positions were checked."""
    game = Game(rules, scenario, seed=seed, policies={"north": "random", "south": "random"})
    record_event = game.events.record_event
    checked = 0

    def checking(name: str, args: dict, settled: bool = False, origin=None) -> None:
        nonlocal checked
        if name == "turn_started":
            check_position(game, f"seed {seed}, turn {game.state.game['turn']}")
            checked += 1
        record_event(name, args, settled, origin)

    game.events.record_event = checking
    game.play(max_rounds=ROUNDS)
    check_position(game, f"seed {seed}, end")
    return game, checked + 1


@pytest.mark.slow
def test_random_games_with_heroes_keep_the_roles_consistent(heroes_rules, heroes_scenario):
    deployed = ordered_heroes = joins = separations = 0
    for seed in SEEDS:
        game, checked = play_checked(heroes_rules, heroes_scenario, seed)
        assert checked > 2, f"seed {seed}: the position was checked only {checked} times"
        activations: Counter = Counter()
        for e in game.log:
            if e["type"] != "event":
                continue
            args = e["args"]
            if e["event"] == "unit_ordered":
                activations[(e["turn"], args["unit"])] += 1
            elif e["event"] == "warlord_ordered":
                activations[(e["turn"], args["hero"])] += 1
                ordered_heroes += 1
            elif e["event"] == "hero_deployed":
                assert e["turn"] == 0, f"seed {seed}: a hero deployed in turn {e['turn']}, not before the first"
                deployed += 1
            elif e["event"] == "hero_joined":
                joins += 1
            elif e["event"] == "separation_ordered":
                separations += 1
        twice = [key for key, n in activations.items() if n > 1]
        assert not twice, f"seed {seed}: activated twice in a turn: {twice}"
        assert game.state.over
    # the games really exercised the hero rules
    assert deployed == 2 * len(SEEDS)
    assert ordered_heroes > 0 and separations > 0 and joins > deployed


def fresh(rules, scenario) -> Game:
    game = Game(rules, scenario, seed=1, policies={"north": "first", "south": "first"})
    game.state.game["turn"] = 1
    return game


def place(game: Game, **where: str | None) -> None:
    board = game.state.board
    for uid, label in where.items():
        game.state.place(game.state.units[uid], None if label is None else board.parse_label(label))


def labels(game: Game, hexes) -> set[str]:
    return {game.state.board.label(h) for h in hexes}


def options(game: Game, uid: str) -> set[str]:
    unit = game.state.units[uid]
    found = game.call_function("join_hexes", [unit, unit.f["move"]])
    plain = game.builtins["move_options"](unit, unit.f["move"], "enter_cost", None, "stops_at",
                                          "passes_through", None, enum_value("zoc", "ignore"))
    return labels(game, list(found) + list(plain))


def test_a_champion_never_stops_on_an_enemy_a_creature_another_champion_or_a_troop_of_another_mode(
        heroes_rules, heroes_scenario):
    game = fresh(heroes_rules, heroes_scenario)
    # nh (foot champion) at F5; around it: an enemy troop, the friendly spider, a friendly
    # mounted champion, a friendly cavalry troop, a friendly foot troop
    place(game, nh="F5", sg="G5", ns="E5", nr="F4", nc="E4", nf="E6")
    reach = options(game, "nh")
    assert "E6" in reach                          # the compatible foot troop: join
    assert not {"G5", "E5", "F4", "E4"} & reach   # enemy, creature, champion, other mode
    assert "D5" in reach                          # crossing the friendly spider (E5) to D5


def test_a_troop_entering_a_champions_hex_must_stop_there(heroes_rules, heroes_scenario):
    game = fresh(heroes_rules, heroes_scenario)
    units, hexes = game.state.units, game.state.board.parse_label
    place(game, nc="F3", nr="G3", nf="F2")
    stops = lambda uid, label: game.call_function("stops_at", [units[uid], hexes(label)])
    passes = lambda uid, other: game.call_function("passes_through", [units[uid], units[other]])
    # the cavalry may enter the mounted champion's hex, and its move ends there
    assert passes("nc", "nr") and stops("nc", "G3")
    assert "G3" in options(game, "nc")
    # a foot troop may not enter it (other mode), nor a champion stop there
    assert not passes("nf", "nr") and "G3" not in options(game, "nf")
    # a champion crossing a friend's hex does not stop
    assert passes("nr", "nc") and not stops("nr", "F3")
    # a troop that already has a warlord may not enter it either
    place(game, nh=None, nf="K1")
    units["nc"].f["leader"], units["nh"].f["leading"] = units["nh"], units["nc"]
    assert not passes("nc", "nr") and "G3" not in options(game, "nc")
