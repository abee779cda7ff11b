"""Seed 000's list of creatures: a summary card the seed gives no stats for cannot be played.

The cards are data (``creature_card`` definitions in battlelore.creatures) with no unit type,
so a scenario that places one is refused with S103, naming the card; only the Giant Spider
has a unit type. The scenario tests of the cards themselves are in
scenarios/battlelore/creatures.yaml.
"""

from __future__ import annotations

import pytest

from hexlore.runtime.engine.game import Game, ScenarioError
from hexlore.runtime.scenarios.loader import load_scenario_text

PLACING = """
hexlore: 1
name: a card placed as a unit
packs: [battlelore.creatures]
board: {{shape: battlelore}}
sides:
  - {{name: north, edge: top}}
  - {{name: south, edge: bottom}}
units:
  - {{id: beast, type: {type}, side: north, hex: F5}}
"""

CARDS_WITHOUT_STATS = ["hill_giant_card", "earth_elemental_card", "troll_card", "forest_giant_card",
                       "stone_elemental_card", "hydra_card", "blue_spider_card", "wood_wyvern_card",
                       "ice_drake_card", "fire_dragon_card", "troll_dragon_card"]


@pytest.mark.parametrize("card", CARDS_WITHOUT_STATS)
def test_a_card_without_stats_cannot_be_placed(battlelore, card):
    assert battlelore.definitions[card].kind == "creature_card"
    scenario, diagnostics = load_scenario_text(PLACING.format(type=card), "cards.yaml")
    assert scenario is not None, diagnostics
    with pytest.raises(ScenarioError) as info:
        Game(battlelore, scenario)
    found = info.value.diagnostics[0]
    assert found.code == "S103" and f"no unit type '{card}'" in found.message


def test_the_giant_spider_is_the_one_unit_type_with_a_card(battlelore):
    scenario, diagnostics = load_scenario_text(PLACING.format(type="giant_spider"), "cards.yaml")
    assert scenario is not None, diagnostics
    game = Game(battlelore, scenario)
    assert game.state.units["beast"].f["summary"].name == "giant_spider_card"
    with_cards = {d.name: game.values.definition_values(d)["summary"].name for d in battlelore.definitions_of("unit")
                  if game.values.definition_values(d).get("summary") is not None}
    assert with_cards == {"giant_spider": "giant_spider_card"}
