"""One budget for every output (issue 30, item 4): pictures, replay pages and sweeps.

A game is held to its own budget (tests/test_hostile_runtime.py); what is made from it is held
to the limits of hexlore/dsl/limits.py, each refusal a diagnostic naming the limit, the figure
and what to do, with no file left behind: a board too large to draw (``S127``: a warning from
``check``, an error from ``render``, ``run --html`` and ``replay``), a replay past its budget
(``S128``: the game and its log are as without ``--html``), a sweep of too many games
(``S129``). The issue's reproducers run through the CLI in a child held to CPU and memory
rlimits (tests/bounded.py): on the code before this work each was killed by the bound.
"""

from __future__ import annotations

import io
import json
import re

import pytest

from bounded import assert_refused, run_bounded
from conftest import ROOT
from hexlore import api
from hexlore.replay.make import page_of, play_recorded
from hexlore.replay.record import Recorder, recording_of
from hexlore.runtime.analysis import output_budget
from hexlore.runtime.analysis.output_budget import OutputTooLarge, check_page

DOCS = (ROOT / "docs" / "diagnostics.md").read_text(encoding="utf-8")

#: the issue's 199-byte pack: its setup floods the log until the game's event budget stops it
FLOODING = '''pack flooding
event ping(n: int) "a ping"
trigger echo on ping {
  if n > 0 {
    emit ping(n: n - 1)
    emit ping(n: n - 1)
  }
}
game flooding "Floods from its setup" {
  setup { emit ping(n: @N@) }
  round { }
}
'''

SCENARIO = '''hexlore: 1
name: flooding
packs: [flooding.lore]
board: {shape: rectangle, width: @W@, height: @H@}
sides:
  - {name: north, edge: top}
  - {name: south, edge: bottom}
units: []
'''


def flooding(tmp_path, n: int, width: int, height: int):
    (tmp_path / "flooding.lore").write_text(FLOODING.replace("@N@", str(n)), encoding="utf-8")
    scenario = tmp_path / "flooding.yaml"
    scenario.write_text(SCENARIO.replace("@W@", str(width)).replace("@H@", str(height)), encoding="utf-8")
    return scenario


def _documented(code: str) -> str:
    return re.search(rf"^\S+: error\[{code}\]: (.*)$", DOCS, re.M).group(1)


# ---------------------------------------------------------------- S127: a board too large to draw
def test_the_issues_flood_on_a_large_board_is_refused_before_it_is_played(tmp_path):
    # run plays it in seconds; under --html the recorder compared 100,000 hexes before each of
    # 100,000 entries (129 s, 6 GB): now the board is refused before the log is opened
    scenario = flooding(tmp_path, 60, 500, 200)
    log, page = tmp_path / "game.jsonl", tmp_path / "game.html"
    outcome = run_bounded("run", str(scenario), "--log", str(log), "--html", str(page), cpu_seconds=10)
    assert_refused(outcome, "S127")
    assert "error[S127]: the board has 100,000 hexes, more than a picture or a replay page draws (10,000)" \
        in outcome.output
    assert not page.exists() and not log.exists()


@pytest.mark.slow  # tens of seconds: run by CI (.ci/run: -m slow)
def test_a_288_byte_scenario_asks_for_no_77_mb_page_nor_71_mb_picture(tmp_path):
    scenario = tmp_path / "wide.yaml"
    scenario.write_text(SCENARIO.replace("flooding.lore", "battlelore.core").replace("@W@", "500")
                        .replace("@H@", "500"), encoding="utf-8")
    assert len(scenario.read_bytes()) < 300
    picture, page = tmp_path / "board.svg", tmp_path / "game.html"
    # opening a 250,000-hex scenario costs about 5 CPU s by itself (the board and its hexes'
    # fields are set up, as for any command), so the bound is on what comes after
    for args, output in ((("render", "-o", str(picture)), picture), (("run", "--html", str(page)), page)):
        outcome = run_bounded(args[0], str(scenario), *args[1:], cpu_seconds=20)
        assert_refused(outcome, "S127")
        assert "wide.yaml:4:8: error[S127]: the board has 250,000 hexes" in outcome.output
        assert not output.exists()
    checked = run_bounded("check", str(scenario), cpu_seconds=20)  # a warning in advance: the game plays
    assert checked.returncode == 0 and "warning[S127]" in checked.output, checked.describe()


def test_api_render_refuses_a_board_too_large_to_draw(tmp_path):
    scenario = flooding(tmp_path, 1, 101, 100)
    svg, diagnostics, _ = api.render(str(scenario))
    assert svg is None
    assert [(d.code, d.is_error, d.span.line) for d in diagnostics] == [("S127", True, 4)]
    drawn, _, _ = api.render(str(flooding(tmp_path, 1, 100, 100)))  # 10,000 hexes: drawn
    assert drawn is not None and drawn.count("<polygon data-hex=") == 10_000


# ---------------------------------------------------------------- S128: a replay past its budget
def test_a_long_game_on_a_drawable_board_stops_recording_and_keeps_its_log(tmp_path):
    # 32,767 entries on 10,000 hexes: 330 million cells for the recorder, 1,000 times the
    # bundled games' most; refused at 10 million, the game played on and its log whole
    scenario = flooding(tmp_path, 14, 100, 100)
    plain, logged, page = tmp_path / "plain.jsonl", tmp_path / "game.jsonl", tmp_path / "game.html"
    run_bounded("run", str(scenario), "--log", str(plain), "--max-rounds", "1", cpu_seconds=15)
    outcome = run_bounded("run", str(scenario), "--log", str(logged), "--max-rounds", "1", "--html", str(page),
                          cpu_seconds=15)
    assert_refused(outcome, "S128")
    assert f"flooding.yaml:1:1: error[S128]: {_documented('S128')}" in outcome.output
    assert "no replay written" in outcome.output and not page.exists()
    assert "winner:" in outcome.output  # the game's own summary is still said
    assert logged.read_bytes() == plain.read_bytes() and len(plain.read_text().splitlines()) > 30_000
    again = run_bounded("replay", str(logged), "--scenario", str(scenario), "--max-rounds", "1", "-o", str(page),
                        cpu_seconds=15)
    assert_refused(again, "S128")
    assert not page.exists()


def _log_of(loaded, recorder=None) -> str:
    out = io.StringIO()
    if recorder is None:
        api.run(loaded, seed=7, log_file=out)
    else:
        api.run(loaded, seed=7, log_file=out, recorder=recorder)
    return out.getvalue()


@pytest.mark.parametrize("limit, figure", [("MAX_REPLAY_CELLS", "cells"), ("MAX_PAGE_BYTES", "bytes")])
def test_a_recorder_past_its_budget_lets_go_and_the_log_is_the_same(monkeypatch, limit, figure):
    loaded = api.open_scenario("battlelore/spider_ford")
    plain = _log_of(loaded)
    monkeypatch.setattr(output_budget, limit, 5_000)
    recorder = Recorder()
    assert _log_of(loaded, recorder) == plain
    assert recorder.refused is not None and recorder.refused.code == "S128" and figure in str(recorder.refused)
    assert recorder.frames == [] and recorder.lines == []  # what it held is let go
    with pytest.raises(OutputTooLarge):
        recording_of(recorder, "spider ford")


def test_a_page_larger_than_its_budget_is_refused(monkeypatch):
    loaded = api.open_scenario("battlelore/spider_ford")
    _, recording, _, _ = play_recorded(loaded, seed=7)
    page = page_of(loaded, recording)
    assert check_page(page) is page
    monkeypatch.setattr(output_budget, "MAX_PAGE_BYTES", len(page.encode()) - 1)
    with pytest.raises(OutputTooLarge, match=f"would hold {len(page.encode()):,} bytes"):
        page_of(loaded, recording)


def test_a_log_larger_than_any_game_writes_is_not_read(tmp_path):
    log = tmp_path / "huge.jsonl"
    with open(log, "wb") as f:
        f.truncate(40 * 1024 * 1024)  # sparse: no 40 MB written
    page = tmp_path / "game.html"
    outcome = run_bounded("replay", str(log), "--scenario", "battlelore/spider_ford", "-o", str(page))
    assert_refused(outcome)
    assert "more than a game's log may (33,554,432)" in outcome.output and not page.exists()


# ---------------------------------------------------------------- S129: a sweep of too many games
def test_a_sweep_of_a_hundred_million_games_is_refused_before_the_first(tmp_path):
    outcome = run_bounded("sweep", "battlelore/spider_ford", "--games", "100000000")
    assert_refused(outcome, "S129")
    assert f"--games:1:1: error[S129]: {_documented('S129')}" in outcome.output


def test_api_sweep_refuses_too_many_games_and_plays_the_limit_s_worth(monkeypatch):
    report, diagnostics, _ = api.sweep("battlelore/spider_ford", 100_001)
    assert report is None and [d.code for d in diagnostics] == ["S129"]
    monkeypatch.setattr(output_budget, "MAX_SWEEP_GAMES", 2)
    report, diagnostics, _ = api.sweep("battlelore/spider_ford", 2, max_rounds=1)
    assert report is not None and report["games"] == 2, diagnostics
    report, diagnostics, _ = api.sweep("battlelore/spider_ford", 3, max_rounds=1)
    assert report is None and "a sweep of 3 games is more than one sweep plays (2)" in diagnostics[0].message


def test_the_documented_limits_are_the_ones_enforced():
    from hexlore.dsl import limits

    language = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    for figure in (limits.MAX_DRAWN_HEXES, limits.MAX_REPLAY_CELLS, limits.MAX_SWEEP_GAMES):
        assert f"| {figure:,} |" in language
    assert limits.MAX_PAGE_BYTES == 16 * 1024 * 1024 and "| 16 MiB |" in language


def _json_bytes(value) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False))


def test_the_recorder_spends_what_the_page_will_hold():
    # a game with terrain placed in play and decisions with their options: every part of the
    # recording the page carries is counted, so the budget is spent as the recording grows
    loaded = api.open_scenario("battlelore/ford_campaign/haunted_crossing")
    recorder = Recorder()
    api.run(loaded, seed=1, recorder=recorder)
    assert recorder.refused is None and recorder.terrain_changes and recorder.offered
    spent = output_budget.MAX_PAGE_BYTES - recorder.budget.bytes
    assert spent == (sum(map(len, recorder.lines)) + sum(_json_bytes(f) + 1 for f in recorder.frames)
                     + sum(map(_json_bytes, recorder.terrain_changes.values()))
                     + sum(map(_json_bytes, recorder.offered.values())))
    cells = output_budget.MAX_REPLAY_CELLS - recorder.budget.cells
    assert cells == len(recorder.frames) * (len(loaded.scenario.board) + len(recorder.unit_ids))
