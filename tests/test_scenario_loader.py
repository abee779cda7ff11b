"""Scenario loader: schema validity, located diagnostics, and the parsed Scenario."""

from __future__ import annotations

import textwrap

import pytest
from jsonschema import Draft202012Validator

from hexlore.runtime.geometry.grid import Hex
from hexlore.runtime.scenarios.loader import (
    Scenario,
    load_scenario,
    load_scenario_text,
    scenario_schema,
)

VALID = textwrap.dedent("""\
    hexlore: 1
    name: Spider at the ford
    packs: [battlelore.creatures]
    seed: 7
    board:
      shape: battlelore
      terrain:
        forest: [C4, D5]
    sides:
      - name: north
        edge: top
        fields: {lore: 2}
      - name: south
        edge: bottom
        policy: greedy
    units:
      - id: spider
        type: giant_spider
        side: north
        hex: F5
        fields: {figures: 3}
      - id: archers
        type: blue_archers
        side: south
        hex: F7
    tests:
      - name: spider survives
        given:
          spider: {hex: F6}
        do:
          - call: melee_attack
            with: {attacker: archers, target: spider}
        dice: [[green_helmet, flag], [bonus_strike]]
        decisions: {retreat_hex: [F4]}
        expect:
          events:
            - {event: hit, target: spider, count: 2}
          units:
            spider: {alive: true, hex: F4}
          sides:
            north: {lore: 2}
          winner: null
    """)


def load(text: str):
    return load_scenario_text(text, "test.yaml")


def only(diags, code):
    found = [d for d in diags if d.code == code]
    assert found, f"no {code} in {[d.headline() for d in diags]}"
    return found[0]


def pos(text: str, needle: str, nth: int = 0) -> tuple[int, int]:
    """1-based (line, column) of the nth occurrence of ``needle`` in ``text``."""
    start = -1
    for _ in range(nth + 1):
        start = text.index(needle, start + 1)
    line = text.count("\n", 0, start) + 1
    column = start - (text.rfind("\n", 0, start) + 1) + 1
    return line, column


def test_schema_is_valid_draft_2020_12():
    schema = scenario_schema()
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["additionalProperties"] is False
    for name, prop in schema["properties"].items():
        assert "description" in prop, name


def test_valid_scenario_loads():
    scenario, diags = load(VALID)
    assert diags == []
    assert isinstance(scenario, Scenario)
    assert len(scenario.board) == 113
    assert scenario.seed == 7 and scenario.packs == ["battlelore.creatures"]
    b = scenario.board
    assert scenario.terrain == {b.parse_label("C4"): "forest", b.parse_label("D5"): "forest"}
    assert [s.name for s in scenario.sides] == ["north", "south"]
    assert scenario.sides[0].policy == "random" and scenario.sides[1].policy == "greedy"
    assert scenario.sides[0].fields == {"lore": 2}
    spider, archers = scenario.units
    assert spider.hex == b.parse_label("F5") and isinstance(spider.hex, Hex)
    assert b.label(archers.hex) == "F7"
    assert spider.fields == {"figures": 3}
    assert spider.span.line == pos(VALID, "- id: spider")[0]

    (test,) = scenario.tests
    assert test.name == "spider survives"
    assert [a.call for a in test.actions] == ["melee_attack"]
    assert test.actions[0].args == {"attacker": "archers", "target": "spider"}
    assert test.actions[0].span.line == pos(VALID, "- call: melee_attack")[0]
    assert test.dice == (("green_helmet", "flag"), ("bonus_strike",))
    assert test.decisions == {"retreat_hex": ["F4"]}
    assert test.given["spider"]["hex"] == b.parse_label("F6")
    assert test.expect["units"]["spider"] == {"alive": True, "hex": b.parse_label("F4")}
    assert test.expect["winner"] is None


def test_rectangle_and_hexagon_boards():
    rect = VALID.replace("shape: battlelore", "shape: rectangle\n  width: 10\n  height: 8")
    scenario, diags = load(rect)
    assert diags == [] and len(scenario.board) == 80
    hexagon = (VALID.replace("shape: battlelore", "shape: hexagon\n  radius: 4")
               .replace("[C4, D5]", "['0,0']").replace("F5", "'1,-1'")
               .replace("F7", "'0,1'").replace("F6", "'2,-2'").replace("F4", "'0,2'"))
    scenario, diags = load(hexagon)
    assert diags == [], [d.headline() for d in diags]
    assert len(scenario.board) == 61 and scenario.units[0].hex == Hex(1, -1)


def test_wrong_type_points_at_value():
    text = VALID.replace("seed: 7", "seed: three")
    scenario, diags = load(text)
    assert scenario is None
    d = only(diags, "S003")
    assert (d.span.line, d.span.column) == pos(text, "three")
    assert d.message == "expected an integer here, got the string 'three'"
    assert d.file == "test.yaml"


def test_unknown_key_did_you_mean():
    text = VALID.replace("units:", "unts:", 1)
    scenario, diags = load(text)
    assert scenario is None
    unknown = [d for d in diags if "unknown key" in d.message]
    assert len(unknown) == 1
    assert unknown[0].message == "unknown key 'unts'"
    assert unknown[0].hint == "did you mean 'units'?"
    assert (unknown[0].span.line, unknown[0].span.column) == pos(text, "unts:")
    assert any(d.message == "missing required key 'units'" for d in diags)


def test_missing_sides():
    start = VALID.index("sides:")
    text = VALID[:start] + VALID[VALID.index("units:"):]
    scenario, diags = load(text)
    assert scenario is None
    assert [d.message for d in diags] == ["missing required key 'sides'"]
    assert diags[0].code == "S003" and diags[0].span.line == 1


def test_board_shape_specific_keys():
    text = VALID.replace("shape: battlelore", "shape: rectangle\n  radius: 3\n  width: 5")
    scenario, diags = load(text)
    assert scenario is None
    messages = {d.message for d in diags}
    assert "missing required key 'height'" in messages
    assert "key 'radius' is not used by a 'rectangle' board" in messages


def test_enum_and_min_items_are_human():
    text = VALID.replace("edge: top", "edge: tpo").replace("packs: [battlelore.creatures]", "packs: []")
    _, diags = load(text)
    edge = next(d for d in diags if "one of" in d.message)
    assert edge.hint == "did you mean 'top'?"
    assert (edge.span.line, edge.span.column) == pos(text, "tpo")
    assert any(d.message == "expected at least 1 item here, got 0" for d in diags)


def test_all_schema_errors_reported_in_order():
    text = VALID.replace("seed: 7", "seed: -1").replace("hex: F7", "hex: 7")
    _, diags = load(text)
    assert [d.code for d in diags] == ["S003", "S003"]
    assert diags[0].span.line < diags[1].span.line
    assert diags[1].message == "expected a string or null here, got the integer 7"


@pytest.mark.parametrize("bad", [
    "name: [unclosed\n",
    "hexlore: 1\n  name: x\n name: y\n",
    "hexlore: 1\nname: 'oops\n",
])
def test_yaml_syntax_error_is_a_diagnostic(bad):
    scenario, diags = load(bad)
    assert scenario is None
    assert len(diags) == 1
    d = diags[0]
    assert d.code == "S001" and d.span.line >= 1
    assert d.hint == "check indentation and quoting near this line"


def test_yaml_syntax_error_line():
    text = "hexlore: 1\nname: x\nboard: {shape: battlelore\nsides: []\n"
    _, (d,) = load(text)
    assert d.code == "S001"
    assert d.span.line == 4


@pytest.mark.parametrize("text", ["", "- a\n- b\n", "just a string\n"])
def test_non_mapping_document(text):
    scenario, diags = load(text)
    assert scenario is None and [d.code for d in diags] == ["S002"]


def test_bad_hex_label():
    text = VALID.replace("hex: F5", "hex: Z99")
    scenario, diags = load(text)
    assert scenario is None
    d = only(diags, "S004")
    assert (d.span.line, d.span.column) == pos(text, "Z99")
    assert "Z99" in d.message and d.hint


def test_two_units_on_one_hex():
    text = VALID.replace("hex: F7", "hex: F5")
    scenario, diags = load(text)
    assert scenario is None
    d = only(diags, "S006")
    assert "spider" in d.message and "archers" in d.message
    assert d.span.line == pos(text, "hex: F5", nth=1)[0]


def test_duplicate_ids_and_unknown_side():
    text = VALID.replace("id: archers", "id: spider").replace("side: south", "side: suoth")
    _, diags = load(text)
    dup = only(diags, "S005")
    assert dup.span.line == pos(text, "id: spider", nth=1)[0]
    side = only(diags, "S007")
    assert side.hint == "did you mean 'south'?"


def test_unknown_unit_in_expectation():
    text = VALID.replace("    spider: {alive: true", "    spidr: {alive: true")
    scenario, diags = load(text)
    assert scenario is None
    d = only(diags, "S008")
    assert "spidr" in d.message
    assert d.hint == "did you mean 'spider'?"
    assert (d.span.line, d.span.column) == pos(text, "spidr")


def test_unknown_side_and_winner_in_expectation():
    text = VALID.replace("north: {lore: 2}", "nort: {lore: 2}").replace("winner: null", "winner: west")
    _, diags = load(text)
    assert [d.code for d in diags] == ["S008", "S008"]
    assert diags[0].hint == "did you mean 'north'?"
    assert "west" in diags[1].message


def test_duplicate_yaml_key_is_reported():
    text = VALID.replace("seed: 7", "seed: 7\nseed: 8")
    scenario, diags = load(text)
    assert scenario is None
    assert only(diags, "S001").span.line == pos(text, "seed: 8")[0]


def test_span_of():
    scenario, _ = load(VALID)
    assert (scenario.span_of("units", 1, "hex").line,
            scenario.span_of("units", 1, "hex").column) == pos(VALID, "F7", nth=0)
    assert scenario.span_of("tests", 0, "do", 0, "with", "target").line == pos(VALID, "target: spider")[0]
    # A missing child falls back to its nearest parent.
    assert scenario.span_of("units", 1, "nonexistent") == scenario.span_of("units", 1)
    assert scenario.span_of("units", 1).line == pos(VALID, "- id: archers")[0]


def test_load_scenario_from_file(tmp_path):
    f = tmp_path / "s.yaml"
    f.write_text(VALID.replace("seed: 7", "seed: three"), encoding="utf-8")
    scenario, diags = load_scenario(f)
    assert scenario is None and diags[0].file == str(f)
    missing, diags = load_scenario(tmp_path / "nope.yaml")
    assert missing is None and diags[0].code == "S000"
