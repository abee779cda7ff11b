"""The hexlore command, exercised as a user would: check, run, test, graph, and the README tour."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import pytest
from click.testing import CliRunner

from conftest import ROOT
from hexlore.cli import main

FORD = str(ROOT / "scenarios" / "battlelore" / "spider_ford.yaml")


def invoke(*args, cwd=None):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_check_of_the_bundled_rules_and_scenarios_is_clean():
    result = invoke("check", str(ROOT / "rules"), str(ROOT / "scenarios"), "--format", "text")
    assert result.exit_code == 0, result.output


def test_check_reports_a_misspelt_name_with_caret_and_did_you_mean(tmp_path):
    f = tmp_path / "typo.lore"
    f.write_text("pack demo.typo\nuse battlelore.core\nunit wolf { banner: bleu }\n")
    result = invoke("check", str(f), "--format", "text")
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert re.match(r".*typo\.lore:3:21: error\[C003\]: undefined name 'bleu'$", lines[0])
    assert lines[2].strip().startswith("|") and lines[2].rstrip().endswith("^~~~")
    assert "did you mean 'blue'?" in result.output


def test_check_reports_a_wrong_type_at_the_yaml_line_and_column(tmp_path):
    text = open(FORD, encoding="utf-8").read().replace("seed: 1", "seed: one")
    f = tmp_path / "bad.yaml"
    f.write_text(text, encoding="utf-8")
    line = next(i for i, l in enumerate(text.splitlines(), 1) if l.startswith("seed:"))
    result = invoke("check", str(f), "--format", "json")
    assert result.exit_code == 1
    [d] = json.loads(result.output)["diagnostics"]
    assert (d["code"], d["line"], d["column"]) == ("S003", line, 7)


def test_check_finds_unknown_unit_types_in_scenarios(tmp_path):
    text = open(FORD, encoding="utf-8").read().replace("type: giant_spider", "type: giant_spyder")
    f = tmp_path / "bad.yaml"
    f.write_text(text, encoding="utf-8")
    result = invoke("check", str(f), "--format", "github")
    assert result.exit_code == 1
    assert result.output.startswith(f"::error file={f},line=")
    assert "giant_spider" in result.output


def test_check_usage_errors_exit_2(tmp_path):
    assert invoke("check").exit_code == 2
    assert invoke("check", str(tmp_path / "missing.lore")).exit_code == 2


def test_run_twice_with_the_same_seed_gives_identical_logs(tmp_path):
    logs = []
    for name in ("a.jsonl", "b.jsonl", "c.jsonl"):
        seed = "4" if name != "c.jsonl" else "5"
        result = invoke("run", "battlelore/spider_ford", "--seed", seed, "--log", str(tmp_path / name))
        assert result.exit_code == 0, result.output
        assert "winner:" in result.output and "rounds:" in result.output and "losses of north" in result.output
        logs.append((tmp_path / name).read_bytes())
    assert logs[0] == logs[1]
    assert logs[0] != logs[2]
    for line in logs[0].decode().splitlines():
        json.loads(line)


def test_run_json_summary():
    result = invoke("run", "battlelore/spider_ford", "--seed", "2", "--format", "json")
    summary = json.loads(result.output)
    assert set(summary) == {"winner", "rounds", "turns", "eliminated"}
    assert set(summary["eliminated"]) == {"north", "south"}


def test_test_command_ends_with_the_totals_line():
    result = invoke("test", FORD)
    assert result.exit_code == 0, result.output
    assert re.search(r"^\d+ passed, 0 failed$", result.output.splitlines()[-1])


def test_test_command_fails_when_an_expectation_fails(tmp_path):
    text = open(FORD, encoding="utf-8").read().replace("spider: {alive: true, hex: F3, figures: 1}",
                                                       "spider: {alive: true, hex: F2, figures: 1}")
    f = tmp_path / "wrong.yaml"
    f.write_text(text, encoding="utf-8")
    result = invoke("test", str(f))
    assert result.exit_code == 1
    assert "spider.hex: expected F2, got F3" in result.output
    assert result.output.splitlines()[-1].endswith("1 failed")


def test_graph_exports(tmp_path):
    data = json.loads(invoke("graph", "battlelore").output)
    assert {"nodes", "edges", "dispatch"} <= set(data)
    assert "digraph" in invoke("graph", "battlelore", "--format", "dot").output
    assert invoke("graph", "battlelore", "--format", "mermaid").output.startswith("flowchart LR")


def test_readme_tour_works_as_written(tmp_path, monkeypatch):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    lore = re.search(r"```lore\n(.*?)```", readme, re.S).group(1)
    (tmp_path / "my_creatures.lore").write_text(lore, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert invoke("check", "my_creatures.lore").exit_code == 0
    broken = lore.replace("banner: blue", "banner: bleu")
    (tmp_path / "broken.lore").write_text(broken, encoding="utf-8")
    result = invoke("check", "broken.lore", "--format", "text")
    assert result.exit_code == 1 and "did you mean 'blue'?" in result.output
    scenario = open(FORD, encoding="utf-8").read()
    scenario = scenario.replace("packs: [battlelore.creatures]", "packs: [battlelore.creatures, my_creatures.lore]")
    scenario = scenario.replace("units:\n", "units:\n  - {id: wolf, type: dire_wolf, side: north, hex: F4}\n", 1)
    tests_yaml = re.search(r"```yaml\n(tests:\n.*?)```", readme, re.S).group(1)
    scenario = scenario.split("\ntests:\n")[0] + "\n" + tests_yaml
    (tmp_path / "my_scenario.yaml").write_text(scenario, encoding="utf-8")
    result = invoke("run", "my_scenario.yaml", "--seed", "3", "--log", "game.jsonl")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "game.jsonl").read_text().count("\n") > 10
    result = invoke("test", "my_scenario.yaml")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1] == "1 passed, 0 failed"
    # playing a side yourself, one round of it (the answers typed: option 1 each time)
    human = re.search(r"^hexlore (run my_scenario\.yaml --policy .+)$", readme, re.M).group(1).split()
    result = CliRunner().invoke(main, human + ["--max-rounds", "1"], input="1\n" * 300)
    assert result.exit_code == 0, result.output
    assert "north decides command_card:" in result.output and "winner:" in result.output
    drawn = re.search(r"`hexlore (render my_scenario\.yaml -o board\.svg)`", readme).group(1).split()
    result = invoke(*drawn)
    assert result.exit_code == 0, result.output
    assert 'data-unit="wolf"' in (tmp_path / "board.svg").read_text(encoding="utf-8")


def test_python_dash_m_entry_point():
    out = subprocess.run([sys.executable, "-m", "hexlore", "--help"], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0 and "check" in out.stdout and "run" in out.stdout


def test_installed_hexlore_runs_a_bundled_scenario_from_any_directory(tmp_path):
    """After `pip install .`, the bundled rules and scenarios ship inside the package."""
    probe = subprocess.run([sys.executable, "-c", "import hexlore, sys; print(hexlore.__file__)"],
                           capture_output=True, text=True, cwd=tmp_path, env={"PATH": "/usr/bin:/bin"})
    if probe.returncode != 0:
        pytest.skip(reason="hexlore is not installed in this interpreter (run `pip install .` first)")
    out = subprocess.run([sys.executable, "-m", "hexlore", "run", "battlelore/spider_ford", "--seed", "7"],
                         capture_output=True, text=True, cwd=tmp_path, env={"PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    assert "winner:" in out.stdout
    # a bundled scenario with packs of its own (the adventure's .lore beside its .yaml) ships too
    out = subprocess.run([sys.executable, "-m", "hexlore", "run", "battlelore/ford_campaign/haunted_crossing",
                          "--seed", "5", "--max-rounds", "1"],
                         capture_output=True, text=True, cwd=tmp_path, env={"PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stdout + out.stderr
    assert "winner:" in out.stdout


def test_check_keeps_findings_of_packs_outside_the_checked_paths(tmp_path):
    (tmp_path / "packs").mkdir()
    (tmp_path / "packs" / "broken.lore").write_text("pack broken\nuse battlelore.core\nunit w { banner: bleu }\n")
    (tmp_path / "other.lore").write_text("pack other\n")
    scenario = open(FORD, encoding="utf-8").read().replace(
        "packs: [battlelore.creatures]", "packs: [battlelore.creatures, packs/broken.lore]").split("\ntests:\n")[0]
    (tmp_path / "s.yaml").write_text(scenario, encoding="utf-8")
    result = invoke("check", str(tmp_path / "other.lore"), str(tmp_path / "s.yaml"), "--format", "json")
    assert result.exit_code == 1
    codes = [d["code"] for d in json.loads(result.output)["diagnostics"]]
    assert codes == ["C003"]


def test_readme_heroes_commands_work_as_written(tmp_path, monkeypatch):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Heroes and campaigns", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"^(hexlore .+?|cp .+?)(?:\s+#.*)?$", section, re.M)
    assert [c.split()[:2] for c in commands] == [["hexlore", "run"], ["cp", "-r"], ["hexlore", "campaign"]]
    run = invoke(*commands[0].split()[1:])
    assert run.exit_code == 0, run.output
    assert "winner:" in run.output
    monkeypatch.chdir(tmp_path)
    shutil.copytree(ROOT / commands[1].split()[2], commands[1].split()[3])
    played = invoke(*commands[2].split()[1:])
    assert played.exit_code == 0, played.output
    assert played.output.count("adventure ") >= 2  # both adventures played, each reported
    again = invoke(*commands[2].split()[1:])  # nothing left to play: the sheet's history says so
    assert again.exit_code == 0 and "adventure 1" not in again.output


@pytest.mark.parametrize("args", [
    ["check", "nothere.yaml"], ["run", "nothere.yaml"], ["render", "nothere.yaml"], ["test", "nothere.yaml"],
    ["graph", "nothere.lore"], ["graph", "battlelore", "nothere"], ["campaign", "nothere.yaml"],
    ["odds", "nothere.yaml", "--action", "melee_attack(attacker: a, target: b)"],
    ["sweep", "nothere.yaml", "--games", "2"], ["sweep", "battlelore/spider_ford", "--games", "2", "--vs", "nothere.lore"],
    ["sweep", "battlelore/spider_ford", "--games", "2", "--vs", "nothere.yaml"],
], ids=lambda a: " ".join(a))
def test_a_missing_file_exits_2_for_every_command(args, tmp_path, monkeypatch):
    """Issue 15: 'run nothere.yaml' exited 1 where 'check nothere.yaml' exits 2."""
    monkeypatch.chdir(tmp_path)
    result = invoke(*args)
    assert result.exit_code == 2, result.output
    assert "nothere" in result.output
    assert not list(tmp_path.iterdir())  # nothing written
