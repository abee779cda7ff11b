"""Replay pages (hexlore/replay/, ``hexlore replay``, ``run --html``) and packs' looks (hexlore/look.py).

The positions a page shows are checked against a game played separately here, snapshotting
the engine's own state as each log line is written, and against what the log's events say
(a unit moved is where it moved to; figures lost are gone). The page itself is checked in a
real browser by tests/test_replay_browser.py.
"""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from conftest import ROOT
from hexlore import api
from hexlore.cli import main
from hexlore.look import Look, LookError, look_of, read_look_file
from hexlore.replay.make import ReplayMismatch, page_of, play_recorded, replay_log
from hexlore.replay.record import positions
from hexlore.runtime.engine.game import Game

SPIDER = "battlelore/spider_ford"


class Snapshots:
    """A log file that copies the whole board before each line (the test's own recorder)."""

    def __init__(self):
        self.game = None
        self.lines: list[str] = []
        self.boards: list[dict] = []

    def board(self) -> dict:
        state = self.game.state
        return {u.id: (state.board.label(u.hex) if u.hex is not None else None, u.alive, u.f.get("figures"))
                for u in state.units.values()}

    def write(self, text: str) -> None:
        self.boards.append(self.board())
        self.lines.append(text)


def engine_positions(scenario: str, seed: int) -> tuple[list[str], list[dict]]:
    loaded = api.open_scenario(scenario)
    snaps = Snapshots()
    game = Game(loaded.rules, loaded.scenario, seed=seed, log_file=snaps)
    snaps.game = game
    game.play()
    return snaps.lines, snaps.boards + [snaps.board()]


@pytest.fixture(scope="module")
def spider7():
    loaded = api.open_scenario(SPIDER)
    _, recording, diagnostics, _ = play_recorded(loaded, seed=7)
    assert recording is not None, diagnostics
    return loaded, recording


def test_every_step_is_the_engines_position_after_that_entry(spider7):
    _, recording = spider7
    lines, boards = engine_positions(SPIDER, 7)
    assert recording.lines == lines
    shown = positions(recording)
    assert len(shown) == len(lines) + 1
    for step, (frame, board) in enumerate(zip(shown, boards)):
        assert {uid: (where, alive, numbers.get("figures")) for uid, (where, alive, numbers) in frame.items()} \
            == board, f"step {step}"


def test_the_positions_agree_with_what_the_log_says(spider7):
    _, recording = spider7
    shown = positions(recording)
    moves = losses = 0
    for k, line in enumerate(recording.lines, 1):
        entry = json.loads(line)
        if entry.get("event") == "unit_moved":
            assert shown[k][entry["args"]["unit"]][0] == entry["args"]["to"]
            moves += 1
        if entry.get("event") == "figures_lost":  # taken just before it is announced
            uid, count = entry["args"]["unit"], entry["args"]["count"]
            now = shown[k][uid][2]["figures"]
            earlier = next(s[uid][2]["figures"] for s in reversed(shown[:k]) if s[uid][2]["figures"] != now)
            assert earlier - now == count
            losses += 1
    assert moves > 10 and losses > 3


def test_a_move_carries_the_hexes_it_went_through(spider7):
    """``move(u, h, via: path)`` in BattleLore's move: each such frame change holds a chain of
    adjacent hexes from where the unit stood to where it stands, and the log says it moved there."""
    _, recording = spider7
    shown = positions(recording)
    board = recording.state.board
    ways = 0
    long_ways = 0
    for k, frame in enumerate(recording.frames):
        for change in frame:
            if len(change) < 5:
                continue
            i, where, _, _, way = change
            uid = recording.units[i]["id"]
            before = shown[k - 1][uid][0]
            chain = [board.parse_label(label) for label in [before, *way]]
            assert all(a.distance(b) == 1 for a, b in zip(chain, chain[1:])), (k, uid, before, way)
            assert way[-1] == where
            near = [json.loads(line) for line in recording.lines[max(0, k - 1):k + 1]]
            told = [v for e in near for v in [*e.get("args", {}).values(), e.get("choice")]]
            assert uid in told or where in told, (k, uid)  # the log tells of it: the unit or its new hex
            ways += 1
            long_ways += len(way) >= 2
    assert ways > 10 and long_ways >= 1
    # and every move the log announces was drawn with its way (BattleLore passes it to each move)
    for k, line in enumerate(recording.lines, 1):
        entry = json.loads(line)
        if entry.get("event") == "unit_moved":
            uid = entry["args"]["unit"]
            i = next(i for i, u in enumerate(recording.units) if u["id"] == uid)
            drawn = [c for c in recording.frames[k - 1] + recording.frames[k] if c[0] == i and len(c) > 4]
            assert drawn and drawn[0][4][-1] == entry["args"]["to"], (k, entry)


def test_each_decision_keeps_the_options_it_offered(spider7):
    """The log keeps a decision's number of options; the page lists them, the choice among them."""
    _, recording = spider7
    decisions = [(k, json.loads(line)) for k, line in enumerate(recording.lines)
                 if json.loads(line)["type"] == "decision"]
    assert len(decisions) > 50 and set(recording.offered) == {k for k, _ in decisions}
    for k, entry in decisions:
        offered = recording.offered[k]
        assert len(offered) == entry["options"] and entry["choice"] in offered, (k, entry)
    assert max(len(o) for o in recording.offered.values()) > 10


def test_terrain_placed_in_play_is_shown_from_the_step_it_was_placed():
    """A command tent deployed during the game (set_terrain): the board starts with the hex's
    own terrain and the tent appears on the frame the tent_deployed entry shows."""
    loaded = api.open_scenario("battlelore/ford_campaign/haunted_crossing")
    _, recording, diagnostics, _ = play_recorded(loaded, seed=1)
    assert recording is not None, diagnostics
    deployed = [(k, json.loads(line)["args"]["hex"]) for k, line in enumerate(recording.lines, 1)
                if json.loads(line).get("event") == "tent_deployed"]
    assert len(deployed) == 2
    for k, hex_label in deployed:
        assert recording.terrain_at_start[hex_label] != "command_tent"
        assert [hex_label, "command_tent"] in recording.terrain_changes[k - 1]
    assert sum(len(c) for c in recording.terrain_changes.values()) == 2
    page = page_of(loaded, recording)
    for _, hex_label in deployed:  # drawn as it began; the tent has a colour and a legend row
        start = re.search(rf'<polygon data-hex="{hex_label}" data-terrain="([a-z_]+)"', page).group(1)
        assert start == recording.terrain_at_start[hex_label]
    assert ">command_tent</text>" in page


def test_run_html_leaves_the_log_as_it_was_and_replay_makes_the_same_page(tmp_path):
    plain, with_page, page = tmp_path / "plain.jsonl", tmp_path / "game.jsonl", tmp_path / "run.html"
    runner = CliRunner()
    assert runner.invoke(main, ["run", SPIDER, "--seed", "7", "--log", str(plain)]).exit_code == 0
    done = runner.invoke(main, ["run", SPIDER, "--seed", "7", "--log", str(with_page), "--html", str(page)])
    assert done.exit_code == 0, done.output
    assert with_page.read_bytes() == plain.read_bytes()
    again = tmp_path / "replay.html"
    done = runner.invoke(main, ["replay", str(plain), "--scenario", SPIDER, "--seed", "7", "-o", str(again)])
    assert done.exit_code == 0, done.output
    assert again.read_text(encoding="utf-8") == page.read_text(encoding="utf-8")


def test_the_page_needs_no_network_and_carries_the_game(spider7):
    loaded, recording = spider7
    html = replay_log(recording.lines, loaded, seed=7).html
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert "@import" not in html and "url(" not in html
    assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", html)  # only the SVG namespace
    data = json.loads(re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', html,
                                re.S).group(1).replace("<\\/", "</"))
    assert len(data["entries"]) == len(recording.lines) == 614
    assert data["strength"] == ["figures"]  # from rules/battlelore/look.yaml
    assert data["faces"]["flag"].startswith("#")


def test_a_log_of_another_game_is_refused_and_a_cut_log_replays_its_part(tmp_path, spider7):
    loaded, recording = spider7
    with pytest.raises(ReplayMismatch, match="line 6 differs"):
        replay_log(recording.lines, loaded, seed=8)
    part = replay_log(recording.lines[:50], loaded, seed=7)
    assert len(part.recording.lines) == 50 and len(part.recording.frames) == 51
    log = tmp_path / "game.jsonl"
    log.write_text("".join(recording.lines), encoding="utf-8")
    done = CliRunner().invoke(main, ["replay", str(log), "--scenario", SPIDER, "--seed", "8",
                                     "-o", str(tmp_path / "r.html")])
    assert done.exit_code == 1 and "differs" in done.output and not (tmp_path / "r.html").exists()
    longer = tmp_path / "longer.jsonl"
    longer.write_text("".join(recording.lines) + recording.lines[-1], encoding="utf-8")
    with pytest.raises(ReplayMismatch, match="ended after 614 entries"):
        replay_log(longer.read_text(encoding="utf-8").splitlines(), loaded, seed=7)


def test_packs_give_their_look_and_a_mod_changes_only_what_it_names(tmp_path):
    look = look_of(api.open_scenario(SPIDER).rules)
    assert look.terrain["river"] == "#7fb2dd" and look.strength == ["figures"]
    (tmp_path / "mod.lore").write_text('pack moddy\nuse battlelore.creatures\n', encoding="utf-8")
    (tmp_path / "look.yaml").write_text('terrain: {river: "#0000ff"}\n', encoding="utf-8")
    text = (ROOT / "scenarios/battlelore/spider_ford.yaml").read_text(encoding="utf-8").split("\ntests:\n")[0]
    (tmp_path / "s.yaml").write_text(text.replace("packs: [battlelore.creatures]",
                                                  "packs: [mod.lore]"), encoding="utf-8")
    loaded = api.open_scenario(str(tmp_path / "s.yaml"))
    assert loaded.playable, [d.headline() for d in loaded.diagnostics]
    modded = look_of(loaded.rules)
    assert modded.terrain["river"] == "#0000ff" and modded.terrain["forest"] == look.terrain["forest"]
    assert modded.strength == ["figures"] and modded.files[-1].endswith(str(tmp_path / "look.yaml"))


def _rgb(colour: str) -> tuple[int, int, int]:
    return tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))


def test_default_colours_follow_the_terrain_names():
    look = Look()
    r, g, b = _rgb(look.terrain_colour("river", 0))
    assert b > g and b > r  # water is blue
    r, g, b = _rgb(look.terrain_colour("dark_forest", 0))
    assert g > r and g > b  # woods are green
    r, g, b = _rgb(look.terrain_colour("hill", 0))
    assert r > b  # hills are brown, not blue
    assert look.terrain_colour("zzz", 0) != look.terrain_colour("yyy", 1)


@pytest.mark.parametrize("text, says", [
    ("terrain: {river: green}", "not a colour"),
    ("colours: {}", "unknown key 'colours'"),
    ("marks: {foot: TOOLONG}", "1 to 4 characters"),
    ("strength: figures", "list of field names"),
    ("terrain: [river]", "maps names to values"),
    ("terrain: {river: '#00f'", "cannot read the look"),
])
def test_a_bad_look_is_refused_saying_what_is_wrong(tmp_path, text, says):
    path = tmp_path / "look.yaml"
    path.write_text(text + "\n", encoding="utf-8")
    with pytest.raises(LookError, match=re.escape(says)):
        read_look_file(path)
    done = CliRunner().invoke(main, ["check", str(path)])
    assert done.exit_code == 1 and "error[S003]: not a valid look" in done.output


def test_long_unit_ids_are_drawn_whole(tmp_path):
    text = (ROOT / "scenarios/battlelore/spider_ford.yaml").read_text(encoding="utf-8").split("\ntests:\n")[0]
    long_id = "the_very_long_named_spider_of_the_ford"
    (tmp_path / "s.yaml").write_text(text.replace("{id: spider,", "{id: " + long_id + ","), encoding="utf-8")
    svg, diagnostics, _ = api.render(str(tmp_path / "s.yaml"))
    assert svg is not None, diagnostics
    assert f">{long_id}</text>" in svg and 'data-strength="figures=1"' in svg and ">SPI</text>" in svg


def test_each_entry_names_the_rule_and_the_line_that_made_it():
    """An event's line emits that event, a roll's line rolls, a decision's line chooses or asks;
    the rule named is the procedure, function or trigger whose declaration holds the line."""
    from hexlore.replay.make import rules_at

    loaded = api.open_scenario(SPIDER)
    _, recording, _, _ = play_recorded(loaded, seed=7)
    where = rules_at(loaded.rules, recording.origins)
    assert len(where) == len(recording.lines)
    checked = 0
    for line, at in zip(recording.lines, where):
        entry = json.loads(line)
        if entry["type"] == "round" or entry.get("reason") == "round limit":
            assert at is None  # the game's own loop, no rule
            continue
        if entry["type"] == "end":  # a win: the rule that called win()
            assert "win(" in open(at[1], encoding="utf-8").read().split("\n")[at[2] - 1]
            continue
        rule, file, number = at
        source = open(file, encoding="utf-8").read().split("\n")
        text = source[number - 1]
        if entry["type"] == "event":
            assert f"emit {entry['event']}" in text, (entry, text)
        elif entry["type"] == "roll":
            assert "roll(" in text, (entry, text)
        else:
            assert "choose" in text or "ask" in text or "optional" in text, (entry, text)
        kind, name = rule.split(" ", 1)
        declared = {"procedure": loaded.rules.procedures, "function": loaded.rules.functions}.get(kind)
        spec = declared[name] if declared is not None else next(t for t in loaded.rules.triggers if t.name == name)
        assert spec.origin.span.line <= number <= spec.origin.span.end_line
        checked += 1
    assert checked > 500
