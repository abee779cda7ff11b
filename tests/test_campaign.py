"""Campaigns: units off the board, campaign fields, the aftermath, sheets saved atomically.

The test pack is ``tests/fixtures/campaign/duel.lore`` (a coin-throwing duel whose duellists
are kept on a sheet); docs/campaigns.md walks through it.
"""

from __future__ import annotations

import json
import shutil
import signal
import textwrap
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from conftest import ROOT, compile_text
from midwrite import CHUNK, kill_mid_write
from hexlore import api
from hexlore.campaign import CampaignUsageError, _cast, open_campaign
from hexlore.cli import main
from hexlore.dsl import output_files
from hexlore.dsl.output_files import OutputError
from hexlore.runtime.engine.cast import stored
from hexlore.runtime.scenarios.campaign_files import dump_sheet, file_kind, load_sheet, load_sheet_text, write_atomically
from hexlore.runtime.engine.game import Game, RuntimeRuleError
from hexlore.runtime.scenarios.loader import load_scenario
from hexlore.runtime.engine.snapshot import StateSnapshot

PACK_DIR = ROOT / "tests" / "fixtures" / "campaign"
CAMPAIGN = "two_fords.campaign.yaml"
SHEET = "duellists.sheet.yaml"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A copy of the test campaign: playing it rewrites its sheet."""
    target = tmp_path / "campaign"
    shutil.copytree(PACK_DIR, target)
    return target


def play(folder: Path, **kw):
    results, diagnostics, _ = api.campaign(str(folder / CAMPAIGN), **kw)
    assert not diagnostics, [d.headline() for d in diagnostics]
    return results


def sheet_units(folder: Path) -> dict[str, dict]:
    data = yaml.safe_load((folder / SHEET).read_text(encoding="utf-8"))
    return {u["id"]: u["fields"] for u in data["units"]}


# ---------------------------------------------------------------------------
# the language: campaign fields, aftermath, built-ins
# ---------------------------------------------------------------------------


def test_campaign_fields_are_ordinary_unit_fields_marked_campaign(tmp_path):
    rules = compile_text(tmp_path, textwrap.dedent("""\
        pack demo.camp
        kind campaign { length: int = 1 }
        campaign long "A long one" { length: 3 }
        campaign fields unit { renown: int = 0, marks: list of tag = [] }
        fields unit { campaign: int = 0 }
        unit knight "Knight" { renown: 2 }
        procedure honour(u: unit, campaign: int) "entry" { u.renown += campaign  u.campaign = u.renown }
        """))
    assert rules.ok, [d.headline() for d in rules.diagnostics]
    fields = rules.kinds["unit"].fields
    assert fields["renown"].campaign and fields["marks"].campaign
    assert not fields["campaign"].campaign
    assert fields["renown"].default is not None  # the default survives marking
    # 'campaign' is still a kind name, a definition's kind, a field and a parameter
    assert rules.definitions["long"].kind == "campaign"
    assert dict(rules.definitions["knight"].values)["renown"].value == 2


def test_campaign_fields_of_another_kind_are_c018_and_still_declared(tmp_path):
    rules = compile_text(tmp_path, "pack demo.c18\ncampaign fields side { fame: int = 0 }\n"
                                   "function famous(s: side) -> bool = s.fame > 2\n")
    assert [d.code for d in rules.diagnostics if d.is_error] == ["C018"]
    assert "fields side" in rules.diagnostics[0].hint
    assert not rules.kinds["side"].fields["fame"].campaign


def test_aftermath_is_a_game_block_and_unknown_blocks_list_it(tmp_path):
    rules = compile_text(tmp_path, "pack demo.after\ngame g { round { stop }\n aftermath { stop } }\n")
    assert rules.ok and "aftermath" in rules.game.blocks
    bad = compile_text(tmp_path, "pack demo.after2\ngame g { round { stop }\n aftermth { stop } }\n", "b.lore")
    [d] = [d for d in bad.diagnostics if d.is_error]
    assert d.code == "C014" and "aftermath" in d.hint


def test_hexlore_run_does_not_run_the_aftermath_and_game_aftermath_does():
    path = str(PACK_DIR / "off_board.yaml")  # north_blade is a kept unit: the aftermath remembers it
    result, diagnostics, _ = api.run(path, seed=1)
    assert not diagnostics and result.winner is not None
    assert not [e for e in result.log if e.get("event") == "remembered"]
    loaded = api.open_scenario(path)
    game = Game(loaded.rules, loaded.scenario, seed=1)
    with pytest.raises(ValueError):
        game.aftermath()  # the game is not over yet
    game.play()
    assert game.log == result.log
    game.aftermath()
    after = game.log[len(result.log):]
    assert [(e["event"], e["args"]["unit"]) for e in after] == [("remembered", "north_blade")]
    assert result.log[-1]["type"] == "end"


def test_the_off_board_scenario_tests_pass():
    outcomes, diagnostics, _ = api.test([str(PACK_DIR / "off_board.yaml")])
    assert not diagnostics
    assert len(outcomes) == 6 and all(o.passed for o in outcomes), [(o.name, o.failures) for o in outcomes]


def _off_board_game():
    loaded = api.open_scenario(str(PACK_DIR / "off_board.yaml"))
    assert loaded.ok
    return Game(loaded.rules, loaded.scenario)


def test_an_eliminated_unit_cannot_be_moved_back_and_a_finished_game_cannot_be_won_again():
    game = _off_board_game()
    st = game.state
    game.builtins["remove_unit"](st.units["north_squire"])
    with pytest.raises(RuntimeRuleError) as info:
        game.guarded(game.call_procedure, "send_in", [st.units["north_squire"], st.board.parse_label("C2")])
    assert info.value.diagnostic.code == "R001" and "eliminated" in info.value.diagnostic.message
    game.guarded(game.call_procedure, "concede", [st.side("north")])
    assert st.winner is st.side("south")
    with pytest.raises(RuntimeRuleError) as info:
        game.guarded(game.call_procedure, "concede", [st.side("south")])
    assert "already over" in info.value.diagnostic.message
    assert st.winner is st.side("south")


def test_roster_lists_board_aside_and_eliminated_units_in_scenario_order():
    game = _off_board_game()
    st, b = game.state, game.builtins
    b["set_aside"](st.units["south_squire"])
    b["remove_unit"](st.units["south_guard"])
    south = st.side("south")
    assert [u.id for u in b["roster"](south)] == ["south_squire", "south_reserve", "south_guard"]
    assert b["units_of"](south) == []
    assert st.units["south_squire"].alive and st.units["south_squire"].hex is None
    assert not st.units["south_guard"].alive


def test_a_snapshot_restores_units_set_aside_and_brought_back():
    game = _off_board_game()
    st, b = game.state, game.builtins
    blade, c2 = st.units["north_blade"], st.board.parse_label("C2")
    b["set_aside"](blade)
    snap = StateSnapshot.take(st)
    b["move"](blade, c2)
    b["move"](st.units["south_reserve"], st.board.parse_label("D3"))
    assert b["occupied"](c2)
    snap.restore(st)
    assert blade.hex is None and blade.alive and not b["occupied"](c2)
    assert st.units["south_reserve"].hex is None
    assert [u.id for u in b["units"]()] == ["north_squire", "south_squire"]


def test_loader_keeps_off_board_units_apart_from_unparsed_hexes():
    scenario, diagnostics = load_scenario(PACK_DIR / "off_board.yaml")
    assert not diagnostics
    placed = {u.id: (u.hex is None, u.off_board) for u in scenario.units}
    assert placed["south_reserve"] == (True, True) and placed["south_guard"] == (True, True)
    assert placed["north_squire"] == (False, False)


def test_given_hex_null_frees_the_start_hex_for_another_unit(tmp_path):
    text = (PACK_DIR / "off_board.yaml").read_text(encoding="utf-8").split("tests:")[0] + textwrap.dedent("""\
        tests:
          - name: "one unit steps aside, another takes its hex"
            given: {north_squire: {hex: null}, north_blade: {hex: A1}}
            do: [{call: census, with: {u: north_blade, h: A1}}]
            expect:
              events: [{event: counted, side: north, on_board: 1, taken: true, at: 1}]
          - name: "two units on one hex is still an error"
            given: {north_blade: {hex: A1}}
            do: [{call: census, with: {u: north_blade, h: A1}}]
            expect: {events: []}
        """)
    (tmp_path / "duel.lore").write_text((PACK_DIR / "duel.lore").read_text(encoding="utf-8"), encoding="utf-8")
    path = tmp_path / "aside.yaml"
    path.write_text(text, encoding="utf-8")
    diagnostics, _ = api.check([str(path)])
    assert [(d.code, d.span.line) for d in diagnostics] == [("S006", text.splitlines().index(
        '    given: {north_blade: {hex: A1}}') + 1)]


# ---------------------------------------------------------------------------
# playing a campaign
# ---------------------------------------------------------------------------


def test_a_two_game_campaign_where_the_second_game_reads_what_the_first_wrote(folder):
    before = sheet_units(folder)
    [first] = play(folder, adventure=1)
    after_first = sheet_units(folder)
    sides = {"aldric": "north", "brenna": "south"}
    for uid, side in sides.items():  # the aftermath depends on winner()
        won = first.winner == side
        assert after_first[uid]["renown"] == before[uid].get("renown", 0) + (1 if won else 0)
        assert after_first[uid]["scars"] == before[uid].get("scars", 0) + (0 if won else 1)
    assert after_first["aldric"]["rival"] == "brenna" and after_first["brenna"]["rival"] == "aldric"
    assert after_first["cador"] == before["cador"]  # not in the adventure: untouched
    history = yaml.safe_load((folder / SHEET).read_text(encoding="utf-8"))["history"]
    assert history == [{"number": 1, "adventure": "First blood", "seed": 3, "winner": first.winner}]

    [second] = play(folder)  # only the adventure the history does not list
    assert second.number == 2 and second.name == "Return to the ford" and second.seed == 11
    deployed = {e["args"]["unit"]: e["args"]["strength"] for e in second.result.log if e.get("event") == "deployed"}
    # strength 2 (duellist) + the renown the first adventure wrote
    assert deployed["aldric"] == 2 + after_first["aldric"]["renown"]
    assert deployed["cador"] == 2 + before["cador"].get("renown", 0)
    final = sheet_units(folder)
    assert final["cador"]["rival"] == "brenna"
    assert play(folder) == []  # nothing left to play


def test_a_unit_field_naming_a_sheet_unit_that_sits_the_game_out_reads_none_and_is_kept(folder):
    # cador names brenna; in this adventure brenna sits out, and the aftermath leaves rivals alone
    text = (folder / CAMPAIGN).read_text(encoding="utf-8").replace(
        "units: {aldric: north, brenna: south}", "units: {aldric: north, cador: south}")
    (folder / CAMPAIGN).write_text(text, encoding="utf-8")
    lore = (folder / "duel.lore").read_text(encoding="utf-8")
    (folder / "duel.lore").write_text(lore.replace("  u.rival = first(", "  let r = first("), encoding="utf-8")
    opened = open_campaign(folder / CAMPAIGN)
    assert opened.ok, [d.headline() for d in opened.diagnostics]
    adventure, loaded = opened.campaign.adventures[0], opened.adventures[0]
    game = Game(loaded.rules, loaded.scenario, cast=_cast(opened.campaign, opened.sheet, adventure, []))
    assert game.state.units["cador"].f["rival"] is None  # brenna is not in this game
    [result] = play(folder, adventure=1)
    assert "rival" not in result.changes["cador"]
    assert sheet_units(folder)["cador"]["rival"] == "brenna"  # written back as it was written


def test_the_sheet_keeps_units_of_the_sheet_by_id_and_drops_other_units():
    game = _off_board_game()
    st = game.state
    blade, squire = st.units["north_blade"], st.units["north_squire"]
    on_sheet = frozenset({"north_blade"})
    assert stored(blade, on_sheet, st.board) == "north_blade"
    assert stored(squire, on_sheet, st.board) is None
    assert stored([squire, blade], on_sheet, st.board) == ["north_blade"]
    assert stored([st.board.parse_label("c2"), game.rules.symbols["victor"]], on_sheet, st.board) == ["C2", "victor"]


def test_the_changes_report_every_changed_campaign_field(folder):
    [result] = play(folder, adventure=1)
    sheet = sheet_units(folder)
    for uid, changed in result.changes.items():
        for name, (old, new) in changed.items():
            assert sheet[uid][name] == new and old != new


def test_same_campaign_sheet_and_seeds_give_the_same_logs_and_sheet_byte_for_byte(tmp_path):
    outputs = []
    for n in range(2):
        target = tmp_path / f"copy{n}"
        shutil.copytree(PACK_DIR, target)
        log = target / "log.jsonl"
        with open(log, "w", encoding="utf-8", newline="\n") as f:
            results, diagnostics, _ = api.campaign(str(target / CAMPAIGN), log_file=f)
        assert not diagnostics and len(results) == 2
        outputs.append(((target / SHEET).read_bytes(), log.read_bytes()))
    assert outputs[0] == outputs[1]
    lines = outputs[0][1].decode().splitlines()
    headers = [json.loads(line) for line in lines if '"type":"adventure"' in line]
    assert [(h["number"], h["seed"]) for h in headers] == [(1, 3), (2, 11)]
    other = tmp_path / "other"
    shutil.copytree(PACK_DIR, other)
    api.campaign(str(other / CAMPAIGN), seed=99)
    history = yaml.safe_load((other / SHEET).read_text(encoding="utf-8"))["history"]
    assert [h["seed"] for h in history] == [99, 99]


def test_the_sheet_is_written_with_a_stable_key_order():
    text = dump_sheet([{"id": "b", "type": "t", "fields": {"z": 1, "a": [True, None]}}],
                      [{"winner": None, "seed": 2, "adventure": "x", "number": 1}], revision=3)
    assert text == textwrap.dedent("""\
        hexlore_sheet: 1
        revision: 3
        units:
        - id: b
          type: t
          fields:
            a: [true, null]
            z: 1
        history:
        - {number: 1, adventure: x, seed: 2, winner: null}
        """)
    sheet, diagnostics = load_sheet_text(text, "s.yaml")
    assert not diagnostics and sheet.units[0].fields == {"a": [True, None], "z": 1} and sheet.revision == 3


def test_adventure_numbers_out_of_range_are_a_usage_error(folder):
    with pytest.raises(CampaignUsageError):
        api.campaign(str(folder / CAMPAIGN), adventure=3)


def test_a_rule_failing_in_the_aftermath_stops_the_campaign_and_leaves_the_sheet(folder):
    lore = (folder / "duel.lore").read_text(encoding="utf-8")
    (folder / "duel.lore").write_text(lore.replace("  aftermath {\n", "  aftermath {\n    draw_game()\n"),
                                      encoding="utf-8")
    before = (folder / SHEET).read_bytes()
    results, diagnostics, _ = api.campaign(str(folder / CAMPAIGN))
    assert results == [] and [d.code for d in diagnostics] == ["R001"]
    assert "already over" in diagnostics[0].message
    assert (folder / SHEET).read_bytes() == before


# ---------------------------------------------------------------------------
# saving atomically
# ---------------------------------------------------------------------------

@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX signals")
def test_a_writer_killed_in_the_middle_of_a_sheet_leaves_the_old_sheet_intact(tmp_path):
    sheet = tmp_path / SHEET
    shutil.copy(PACK_DIR / SHEET, sheet)
    old = sheet.read_bytes()
    size = kill_mid_write(tmp_path, f"""
        units = [{{"id": f"u{{i}}", "type": "duellist", "fields": {{"renown": i}}}} for i in range(50)]
        cf.write_atomically({str(sheet)!r}, cf.dump_sheet(units, []))
        """, tmp_path, SHEET)
    assert size == CHUNK  # killed mid-write: one chunk of a longer text
    assert sheet.read_bytes() == old
    loaded, diagnostics = load_sheet(sheet)
    assert not diagnostics and [u.id for u in loaded.units] == ["aldric", "brenna", "cador"]
    # the leftover temporary file is hidden: checking the folder does not read it
    assert api.check([str(tmp_path)])[0] == []


def test_a_successful_save_replaces_the_sheet_and_leaves_no_temporary_file(tmp_path):
    sheet = tmp_path / SHEET
    shutil.copy(PACK_DIR / SHEET, sheet)
    sheet.chmod(0o640)
    text = dump_sheet([{"id": "solo", "type": "duellist", "fields": {"renown": 4}}], [])
    write_atomically(sheet, text)
    assert sheet.read_text(encoding="utf-8") == text
    assert list(tmp_path.iterdir()) == [sheet]
    assert (sheet.stat().st_mode & 0o777) == 0o640


def test_a_failed_save_leaves_the_old_sheet_and_no_temporary_file(tmp_path, monkeypatch):
    sheet = tmp_path / SHEET
    shutil.copy(PACK_DIR / SHEET, sheet)
    old = sheet.read_bytes()

    def full_disk(stream, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(output_files, "_write_chunk", full_disk)
    with pytest.raises(OutputError, match="disk is full"):
        write_atomically(sheet, "hexlore_sheet: 1\nunits: []\n")
    assert sheet.read_bytes() == old and list(tmp_path.iterdir()) == [sheet]


# ---------------------------------------------------------------------------
# checking
# ---------------------------------------------------------------------------


def test_file_kind_reads_the_top_level_format_key():
    assert file_kind("hexlore_sheet: 1\nunits: []\n") == "sheet"
    assert file_kind("# a campaign\nhexlore_campaign: 1\n") == "campaign"
    assert file_kind("{hexlore_sheet: 1, units: []}") == "sheet"
    assert file_kind("hexlore: 1\nname: x\n  hexlore_sheet: 1\n") == "scenario"


def test_the_test_campaign_folder_checks_clean_and_hexlore_test_skips_campaign_files():
    assert api.check([str(PACK_DIR)])[0] == []
    outcomes, diagnostics, _ = api.test([str(PACK_DIR)])
    assert not diagnostics and {Path(o.scenario).name for o in outcomes} == {"off_board.yaml"}


def test_a_sheet_alone_is_checked_against_its_schema_at_the_yaml_line(tmp_path):
    path = tmp_path / "bad.sheet.yaml"
    path.write_text("hexlore_sheet: 1\nunits:\n  - {id: a, type: duellist, feilds: {renown: 1}}\n", encoding="utf-8")
    diagnostics, _ = api.check([str(path)])
    [d] = diagnostics
    assert (d.code, d.span.line, d.span.column) == ("S003", 3, 29) and d.hint == "did you mean 'fields'?"


def test_a_sheet_error_found_when_playing_is_located_in_the_sheet_with_a_did_you_mean(folder):
    sheet = (folder / SHEET).read_text(encoding="utf-8").replace("{scars: 2}", "{scar: 2}")
    (folder / SHEET).write_text(sheet, encoding="utf-8")
    results, diagnostics, _ = api.campaign(str(folder / CAMPAIGN))
    assert results is None
    [d] = diagnostics
    line = sheet.splitlines().index("    fields: {scar: 2}") + 1
    assert (Path(d.file).name, d.span.line, d.code, d.hint) == (SHEET, line, "S109", "did you mean 'scars'?")


# ---------------------------------------------------------------------------
# the command
# ---------------------------------------------------------------------------


def invoke(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_the_campaign_command_plays_prints_changes_and_writes_the_log(folder):
    log = folder / "log.jsonl"
    result = invoke("campaign", str(folder / CAMPAIGN), "--log", str(log))
    assert result.exit_code == 0, result.output
    history = yaml.safe_load((folder / SHEET).read_text(encoding="utf-8"))["history"]
    assert f"adventure 1: First blood (seed 3) winner: {history[0]['winner']}" in result.output
    assert "adventure 2: Return to the ford (seed 11)" in result.output
    # aldric (renown 1, no scars) fought for north in the first adventure
    won = history[0]["winner"] == "north"
    first_block = result.output.split("adventure 2:")[0]
    assert ("aldric: renown 1 -> 2" if won else "aldric: scars 0 -> 1") in first_block
    assert log.read_text(encoding="utf-8").count('"type":"adventure"') == 2
    again = invoke("campaign", str(folder / CAMPAIGN))
    assert again.exit_code == 0 and "nothing left to play" in again.output


def test_the_campaign_command_exit_codes(folder):
    assert invoke("campaign", str(folder / CAMPAIGN), "--adventure", "5").exit_code == 2
    assert invoke("campaign", str(folder / "missing.yaml")).exit_code == 2
    text = (folder / CAMPAIGN).read_text(encoding="utf-8").replace("brenna: south", "brena: south")
    (folder / CAMPAIGN).write_text(text, encoding="utf-8")
    bad = invoke("campaign", str(folder / CAMPAIGN))
    assert bad.exit_code == 1 and "error[S117]" in bad.output and "did you mean 'brenna'?" in bad.output


def test_running_a_campaign_file_as_a_scenario_says_what_to_do():
    result, diagnostics, _ = api.run(str(PACK_DIR / CAMPAIGN))
    assert result is None
    [d] = diagnostics
    assert d.code == "S002" and "campaign file" in d.message and "hexlore campaign" in d.hint


def test_a_history_written_by_hand_without_numbers_counts_adventures_by_name(folder):
    sheet = (folder / SHEET).read_text(encoding="utf-8").replace(
        "history: []", 'history:\n  - {adventure: "First blood", seed: 3, winner: north}')
    (folder / SHEET).write_text(sheet, encoding="utf-8")
    [result] = play(folder)
    assert result.number == 2
    history = yaml.safe_load((folder / SHEET).read_text(encoding="utf-8"))["history"]
    assert history[0] == {"adventure": "First blood", "seed": 3, "winner": "north"} and history[1]["number"] == 2


def test_an_adventure_may_be_a_bundled_scenario(tmp_path):
    (tmp_path / "c.yaml").write_text("hexlore_campaign: 1\nname: bundled\nsheet: s.yaml\n"
                                     "adventures:\n  - {scenario: battlelore/spider_ford}\n"
                                     "  - {scenario: battlelore/no_such_ford}\n", encoding="utf-8")
    (tmp_path / "s.yaml").write_text("hexlore_sheet: 1\nunits: []\n", encoding="utf-8")
    diagnostics, _ = api.check([str(tmp_path / "c.yaml")])
    assert [(d.code, d.span.line) for d in diagnostics] == [("S011", 6)]
