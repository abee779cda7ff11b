"""What the terminal player shows (hexlore/play_view.py): the board as text, each side's state,
card texts, the units a decision is about, the odds of an option — on small boards and on
hostile names and texts, which must reach the terminal as text, never as control codes or
rich markup."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from hexlore import api
from hexlore.cli_output import escape
from hexlore.look import Look
from hexlore.play_view import board_text, decision_subjects, definition_text, odds_text, option_note, sides_text
from hexlore.runtime.analysis.odds_state import odds_of_option
from hexlore.runtime.engine.game import Game

PACK = '''pack hostile
use battlelore.core
card sneaky "[bold red]Charge[/] <b>&amp;" { units: 1 }
'''

SMALL = '''hexlore: 1
name: small
packs: [hostile.lore]
board: {shape: rectangle, width: 3, height: 2, terrain: {forest: [C2]}}
sides:
  - {name: north, edge: top, policy: first}
  - {name: south, edge: bottom, policy: first}
units:
  - {id: a, type: foot_green, side: north, hex: A1}
  - {id: b, type: mounted_red, side: south, hex: B2}
'''


@pytest.fixture
def small(tmp_path: Path) -> Game:
    (tmp_path / "hostile.lore").write_text(PACK, encoding="utf-8")
    (tmp_path / "small.yaml").write_text(SMALL, encoding="utf-8")
    loaded = api.open_scenario(str(tmp_path / "small.yaml"))
    assert loaded.playable, loaded.diagnostics
    return Game(loaded.rules, loaded.scenario, seed=1)


def printed(text: str) -> str:
    """What a terminal shows of ``text`` printed as the player prints it."""
    out = io.StringIO()
    Console(file=out, width=200, color_system=None).print(escape(text), highlight=False)
    return out.getvalue()


def test_a_small_board_in_offset_rows_with_a_legend(small):
    assert board_text(small.state, Look(strength=["figures"])) == "\n".join([
        "  A1    B1    C1",
        " nFG4   .     .",
        "     A2    B2    C2",
        "     .    sMR3   f",
        "",
        "sides: n north, s south",
        "units: FG foot_green, MR mounted_red; the number: figures",
        "terrain: . plain, f forest",
    ])


def test_a_unit_eliminated_leaves_its_hex_empty(small):
    small.state.units["b"].alive = False
    assert "sMR" not in board_text(small.state) and "MR mounted_red" not in board_text(small.state)


def test_hostile_marks_reach_the_terminal_as_text(small):
    look = Look(marks={"foot_green": "\x1b]0;owned\x07[bold]Z"}, strength=["figures"])
    text = board_text(small.state, look)
    assert "\x1b" not in text and "\x07" not in text
    assert "\\x1b]0;owned\\x07[bold]Z foot_green" in text  # the legend names it, escaped
    shown = printed(text)
    assert "[bold]Z" in shown and "\x1b" not in shown


def test_card_texts_with_markup_are_shown_as_written(small):
    card = small.rules.definitions["sneaky"]
    text = definition_text(card, small)
    assert text == "sneaky \u2014 [bold red]Charge[/] <b>&amp; (units: 1)"
    assert "[bold red]Charge[/] <b>&amp;" in printed(text)
    assert option_note(card, small) == "[bold red]Charge[/] <b>&amp; (units: 1)"
    assert option_note(small.state.units["b"], small) == "mounted_red at B2"


def test_every_side_field_and_the_hand(small):
    side = small.state.side("north")
    side.f["hand"] = [small.rules.definitions["sneaky"], small.rules.definitions["scout_left"]]
    side.f["lore"] = 2
    small.state.game["command_deck"] = [small.rules.definitions["scout_left"]] * 3
    text = sides_text(small)
    assert text.startswith("game: round 0, turn 0, active none, command_deck 3 card(s), discard [], phase none, ")
    north = text[text.index("north:"):text.index("south:")]
    assert north.startswith("north: orders_left 0, banners 0, lore 2, order_faces []\n  hand (2):\n")
    assert "    sneaky \u2014 [bold red]Charge[/]" in north
    assert "    scout_left \u2014 Reconnaissance à gauche (section: left, units: 1)" in north
    # another side's hand is a count, as a deck is
    assert "north: orders_left 0, banners 0, lore 2, hand 2 card(s), order_faces []" in sides_text(small, "south")
    assert "  hand (2):" in sides_text(small, "north")


def test_a_board_too_large_is_refused_in_one_line(tmp_path):
    (tmp_path / "hostile.lore").write_text(PACK, encoding="utf-8")
    (tmp_path / "big.yaml").write_text(SMALL.replace("width: 3, height: 2", "width: 120, height: 100")
                                       .replace("[C2]", "[C2]"), encoding="utf-8")
    loaded = api.open_scenario(str(tmp_path / "big.yaml"))
    game = Game(loaded.rules, loaded.scenario, seed=1)
    assert board_text(game.state) == "(the board has 12,000 hexes: too large to draw as text)"


@pytest.fixture(scope="module")
def ford():
    loaded = api.open_scenario("battlelore/spider_ford")
    game = Game(loaded.rules, loaded.scenario, seed=3, policies={"north": "greedy", "south": "greedy"})
    game.start(max_rounds=2)
    return game


def test_a_decision_names_the_units_it_is_about(ford):
    seen = {}
    request = ford.pending
    while request is not None and len(seen) < 3:
        seen.setdefault(request.name, [u.id for u in decision_subjects(ford)])
        request = ford.apply()
    assert seen["command_card"] == [] and seen["order_unit"] == []  # the side's, about no unit
    assert seen["move_to"] == ["spider"]


def test_odds_as_a_table_or_why_not(ford):
    request = ford.pending
    while request.name != "battle_back":
        request = ford.apply()
    exact = odds_text(odds_of_option(ford, 0))
    assert exact.startswith("odds of battle_back = true (south), ") and "exact:" in exact
    assert "  next | " in exact and "%" in exact
    refused = odds_text(odds_of_option(ford, 0, budget=1))
    assert refused.startswith("odds of battle_back = true (south): too large to enumerate: ")
