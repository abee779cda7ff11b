"""A human at the terminal plays a side (``hexlore run … --policy SIDE=human``, hexlore/play.py).

The answers are piped in through click's test runner, as a player's keystrokes would be.
Watching a game must not change it: the log a human writes equals, byte for byte, the log of
a policy that makes the same choices without a terminal.
"""

from __future__ import annotations

import io
import json

from click.testing import CliRunner
from rich.console import Console

from hexlore import api
from hexlore.cli import main
from hexlore.play import HumanPolicy, PositionView
from hexlore.runtime.engine.game import Game
from hexlore.runtime.engine.policies import Decision, Policy

SCENARIO = "battlelore/spider_ford"


class AlwaysFirst(Policy):
    """Option 1 of every decision, as a player typing '1' each time would choose."""

    def choose(self, decision) -> int:
        return 0


def _play(tmp_path, answers: str, *options: str):
    log = tmp_path / "game.jsonl"
    result = CliRunner().invoke(main, ["run", SCENARIO, "--seed", "3", "--max-rounds", "1", "--log", str(log),
                                       "--policy", "north=human", *options], input=answers)
    return result, log


def test_watching_a_game_changes_nothing_in_its_log(tmp_path):
    result, log = _play(tmp_path, "1\n" * 200)
    assert result.exit_code == 0, result.output
    plain = tmp_path / "plain.jsonl"
    with open(plain, "w", encoding="utf-8", newline="\n") as out:
        outcome, diagnostics, _ = api.run(SCENARIO, seed=3, log_file=out, max_rounds=1,
                                          policies={"north": AlwaysFirst()})
    assert outcome is not None and not diagnostics
    assert log.read_bytes() == plain.read_bytes()
    # the player was asked (north's decisions with a choice), and saw south's moves as they came
    assert "north decides command_card:" in result.output
    assert "south chose" in result.output and "card_played" in result.output


def _options_listed(output: str, decision: str) -> list[str]:
    listed = output[output.index(f"decides {decision}:"):].splitlines()[1:]
    return [line.split(".", 1)[1].split()[0] for line in listed if line.startswith("   ")]


def test_an_answer_is_a_number_or_a_label_and_a_wrong_one_is_asked_again(tmp_path):
    asked, _ = _play(tmp_path, "")  # no answer: the game stops at the first question
    hand = _options_listed(asked.output, "command_card")
    assert len(hand) == 4
    result, log = _play(tmp_path, f"9\nno such card\n{hand[2].upper()}\n" + "1\n" * 200)
    assert result.exit_code == 0, result.output
    assert "9 is not on the list: type a number from 1 to 4" in result.output
    assert "'no such card' is not an option" in result.output
    first = next(json.loads(line) for line in log.read_text().splitlines() if '"decision"' in line)
    assert first["decision"] == "command_card" and first["by"] == "north"
    assert first["choice"] == hand[2] and "scripted" not in first  # labels are read in any case


def test_the_end_of_input_abandons_the_game_and_keeps_its_log(tmp_path):
    result, log = _play(tmp_path, "2\n")
    assert result.exit_code == 1
    assert "game abandoned: north stopped answering at decision" in result.output
    assert "Traceback" not in result.output
    entries = [json.loads(line) for line in log.read_text().splitlines()]  # every line whole
    assert entries[-1]["type"] != "end"
    assert any(e.get("decision") == "command_card" and e["by"] == "north" for e in entries)


def test_an_empty_answer_takes_the_rules_default():
    console = Console(file=io.StringIO(), width=100)
    answers = iter(["", "x"])
    human = HumanPolicy("north", console, lambda prompt: next(answers))
    decision = Decision("move_to", None, ["a", "b", "c"], ["B2", "C3", "D4"], [0, 5, 1], 2)
    assert human.choose(decision) == 2  # Enter: the default, not the first or the preferred
    listing = console.file.getvalue()
    assert "3. D4  (default)" in listing and "2. C3  (preferred)" in listing
    no_default = Decision("card", None, ["a", "b"], ["one", "two"], None, None)
    answers = iter(["", "TWO"])
    assert human.choose(no_default) == 1
    assert "no option is the default or preferred here: type a number from 1 to 2" in console.file.getvalue()
    level = Decision("card", None, ["a", "b"], ["one", "two"], [3, 3], None)  # equal scores: none preferred
    answers = iter(["", "1"])
    assert human.choose(level) == 0
    assert console.file.getvalue().count("no option is the default or preferred here") == 2


def test_an_empty_answer_takes_the_preferred_option_when_there_is_no_default():
    """Issue 15: Enter on a decision with a 'prefer' score said "there is no default here" for ever."""
    console = Console(file=io.StringIO(), width=100)
    answers = iter([""])
    human = HumanPolicy("north", console, lambda prompt: next(answers))
    decision = Decision("command_card", None, ["a", "b", "c", "d"], ["probe_left", "attack_centre", "scout_right",
                                                                    "attack_left"], [1, 4, 0, 4], None)
    assert human.choose(decision) == 1  # the highest score, the first of equals (as greedy takes)
    listing = console.file.getvalue()
    assert "2. attack_centre  (preferred)" in listing and "Enter for the preferred option (2)" in listing


def test_enter_takes_the_preferred_card(tmp_path):
    result, log = _play(tmp_path, "\n")  # Enter at the first question, then the input ends
    assert result.exit_code == 1 and "game abandoned" in result.output
    asked = result.output[result.output.index("decides command_card:"):]
    assert "1. attack_centre  (preferred)" in asked and "Enter for the preferred option (1)" in asked
    first = next(json.loads(line) for line in log.read_text().splitlines() if '"decision"' in line)
    assert (first["decision"], first["by"], first["choice"]) == ("command_card", "north", "attack_centre")


def test_bad_policy_options_are_usage_errors(tmp_path):
    runner = CliRunner()
    unknown_side = runner.invoke(main, ["run", SCENARIO, "--policy", "west=human"])
    assert unknown_side.exit_code == 2
    assert "'west' is not a side of this scenario (its sides: north, south)" in unknown_side.output
    unknown_policy = runner.invoke(main, ["run", SCENARIO, "--policy", "north=robot"])
    assert unknown_policy.exit_code == 2 and "for example north=human" in unknown_policy.output


def test_a_named_policy_replaces_the_scenarios(tmp_path):
    runner = CliRunner()
    greedy = runner.invoke(main, ["run", SCENARIO, "--seed", "7", "--format", "json",
                                  "--policy", "north=greedy", "--policy", "south=greedy"])
    assert greedy.exit_code == 0, greedy.output
    outcome, _, _ = api.run(SCENARIO, seed=7, policies={"north": "greedy", "south": "greedy"})
    assert json.loads(greedy.output) == json.loads(json.dumps(outcome.summary()))


def test_a_question_mark_shows_the_position_and_asks_again(tmp_path):
    result, log = _play(tmp_path, "?\n" + "1\n" * 200)
    assert result.exit_code == 0, result.output
    view = result.output[result.output.index("north> ?"):]
    assert "north: 7 unit(s) on the board" in view and "G4  spider (giant_spider)" in view
    first = next(json.loads(line) for line in log.read_text().splitlines() if '"decision"' in line)
    assert first["decision"] == "command_card"  # '?' answered nothing: the question came again


def test_the_position_shows_what_changed_since_the_game_began():
    loaded = api.open_scenario(SCENARIO)
    game = Game(loaded.rules, loaded.scenario, seed=1)
    view = PositionView(game)
    spider = game.state.units["spider"]
    assert "G4  spider (giant_spider)\n" in view.text() + "\n"
    rider = game.state.units["n_right"]
    rider.f["figures"] -= 1
    game.state.units["s_left"].alive = False
    text = view.text()
    assert "n_right (mounted_blue)  figures 3→2" in text
    assert "s_left (" not in text and "s_left2 (" in text and "south: 6 unit(s) on the board" in text
    assert spider.id in text


def test_save_writes_the_position_as_a_scenario_test_that_passes(tmp_path):
    """Issue 31, item 6 at the terminal: ``save FILE`` mid-game keeps the position as a test."""
    kept = tmp_path / "kept.yaml"
    scenario = api.open_scenario(SCENARIO).scenario.path
    # the card, the spider, two more units, the spider's move: then save, and refuse the scenario itself
    result, _ = _play(tmp_path, "\n\n1\n1\n1\n" + f"save {kept}\nsave {scenario}\nsave\n")
    said = " ".join(result.output.split())  # as one line: the console wraps long ones
    assert "saved the position as the test 'north to decide move_to, round 1'" in said
    assert f"not saved: save '{scenario}' is a file this command reads" in said
    assert "save where? type save and a file name" in said
    outcomes, problems, _ = api.test([str(kept)])
    assert problems == [] and [(o.name, o.passed) for o in outcomes] == [("north to decide move_to, round 1", True)]
    import yaml
    given = yaml.safe_load(kept.read_text(encoding="utf-8"))["tests"][0]["given"]
    assert given["spider"]["ordered_turn"] == 1  # ordered this turn: the position is the game's, not the start
