"""The SVG picture of a position (hexlore/render.py, ``hexlore render``).

Golden files pin the exact bytes of two bundled scenarios' pictures; the other tests read
the picture as XML and compare what it shows (hexes, terrain, units) with the game state,
so a change of layout fails the golden tests only, and a wrong position fails both.
To accept a deliberate change of the drawing, regenerate the golden files:
``hexlore render battlelore/spider_ford -o tests/fixtures/render/spider_ford.svg`` (and
``scenarios/tickclock/ruins.yaml`` to ``ruins.svg``), then look at them.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from click.testing import CliRunner

from conftest import ROOT
from hexlore import api
from hexlore.cli import main
from hexlore.render import board_svg
from hexlore.runtime.engine.game import Game

GOLDEN = ROOT / "tests" / "fixtures" / "render"
SVG = "{http://www.w3.org/2000/svg}"


@pytest.mark.parametrize("scenario, golden", [("battlelore/spider_ford", "spider_ford.svg"),
                                              (str(ROOT / "scenarios/tickclock/ruins.yaml"), "ruins.svg")])
def test_pictures_match_their_golden_files(scenario, golden):
    svg, diagnostics, _ = api.render(scenario)
    assert not diagnostics
    assert svg == (GOLDEN / golden).read_text(encoding="utf-8")


def _shown(svg: str):
    root = ET.fromstring(svg)  # well-formed XML, or this raises
    hexes = {p.get("data-hex"): p.get("data-terrain") for p in root.iter(f"{SVG}polygon")}
    units = {g.get("data-unit"): g.get("data-side") for g in root.iter(f"{SVG}g")}
    return root, hexes, units


def test_the_picture_shows_every_hex_its_terrain_and_every_unit_on_the_board():
    loaded = api.open_scenario("battlelore/ford_campaign/haunted_crossing")
    game = Game(loaded.rules, loaded.scenario, seed=5)
    game.play(2)
    state = game.state
    _, hexes, units = _shown(board_svg(state, "after two rounds"))
    assert len(hexes) == len(state.board)
    assert hexes == {state.board.label(h): state.hex_fields[h]["terrain"].name for h in state.board}
    on_board = {u.id: u.side.name for u in state.units.values() if u.alive and u.hex is not None}
    assert units == on_board
    assert any(u.hex is None or not u.alive for u in state.units.values())  # and those are left out


def test_after_rounds_the_picture_is_the_played_position():
    svg, _, _ = api.render("battlelore/ford_campaign/haunted_crossing", seed=5, rounds=2)
    assert svg == api.render("battlelore/ford_campaign/haunted_crossing", seed=5, rounds=2)[0]
    root, _, units = _shown(svg)
    loaded = api.open_scenario("battlelore/ford_campaign/haunted_crossing")
    game = Game(loaded.rules, loaded.scenario, seed=5)
    game.play(2)
    assert units == {u.id: u.side.name for u in game.state.units.values() if u.alive and u.hex is not None}
    assert "after round 2" in "".join(root.itertext())
    assert svg != api.render("battlelore/ford_campaign/haunted_crossing")[0]  # the set-out position differs


def test_text_from_the_scenario_is_escaped(tmp_path):
    text = (ROOT / "scenarios/battlelore/spider_ford.yaml").read_text(encoding="utf-8")
    text = text.replace("name: The Spider at the Ford", 'name: "Fords & <spiders>"', 1)
    assert "Fords & <spiders>" in text
    (tmp_path / "s.yaml").write_text(text.split("\ntests:\n")[0], encoding="utf-8")
    svg, diagnostics, _ = api.render(str(tmp_path / "s.yaml"))
    assert not diagnostics
    root, _, _ = _shown(svg)
    assert "Fords & <spiders>" in "".join(root.itertext())


def test_the_command_writes_the_picture_and_reports_bad_input(tmp_path):
    out = tmp_path / "board.svg"
    result = CliRunner().invoke(main, ["render", "battlelore/spider_ford", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_text(encoding="utf-8") == (GOLDEN / "spider_ford.svg").read_text(encoding="utf-8")
    missing = CliRunner().invoke(main, ["render", "no_such_scenario"])
    assert missing.exit_code == 2 and "error[S000]: no scenario file 'no_such_scenario'" in missing.output
    negative = CliRunner().invoke(main, ["render", "battlelore/spider_ford", "--rounds", "-1"])
    assert negative.exit_code == 2
