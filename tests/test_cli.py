"""The hexlore command, exercised as a user would: check, run, test, graph, and the README tour."""

from __future__ import annotations

import json
import re
import shlex
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


def _tour_scenario(readme: str, wolf_line: str | None = None) -> str:
    """Step 3 of the tour as written: the bundled scenario copied, the wolf added to its units
    and the pack to its packs."""
    step = readme.split("**3. Play it.**", 1)[1].split("**4. Test it.**", 1)[0]
    wolf = wolf_line or re.search(r"add `(- \{id: wolf[^`]*)` to its `units:`", step).group(1)
    pack = re.search(r"add `(\w+\.lore)` to `packs:`", step).group(1)
    scenario = open(FORD, encoding="utf-8").read()
    head, units = scenario.split("\nunits:\n", 1)
    listed, rest = re.match(r"((?:  - [^\n]*\n)+)(.*)", units, re.S).groups()
    scenario = head + "\nunits:\n" + listed + "  " + wolf + "\n" + rest
    return scenario.replace("packs: [battlelore.creatures]", f"packs: [battlelore.creatures, {pack}]")


def test_readme_tour_works_as_written(tmp_path, monkeypatch):
    """Issue 15: the tour is followed exactly as the README writes it, from the text of README.md."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    tour = readme.split("## The five-minute tour", 1)[1].split("\n## ", 1)[0]
    lore = re.search(r"```lore\n(.*?)```", tour, re.S).group(1)
    name = re.match(r"# (\S+\.lore)\n", lore).group(1)
    (tmp_path / name).write_text(lore, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    # 2. check it
    check = re.search(r"^hexlore (check \S+\.lore)$", tour, re.M).group(1).split()
    assert invoke(*check).exit_code == 0
    broken = lore.replace("banner: blue", "banner: bleu")
    (tmp_path / "broken.lore").write_text(broken, encoding="utf-8")
    result = invoke("check", "broken.lore", "--format", "text")
    assert result.exit_code == 1 and "did you mean 'blue'?" in result.output
    # 3. copy the scenario, add the wolf and the pack, play it
    (tmp_path / "my_scenario.yaml").write_text(_tour_scenario(tour), encoding="utf-8")
    result = invoke("check", "my_scenario.yaml")
    assert result.exit_code == 0, result.output
    play = re.search(r"^hexlore (run my_scenario\.yaml --seed .+)$", tour, re.M).group(1).split()
    result = invoke(*play)
    assert result.exit_code == 0, result.output
    assert "winner:" in result.stdout and result.stderr == ""
    assert (tmp_path / "game.jsonl").read_text().count("\n") > 10
    # 4. add the tests after the spider's, and run them
    block = re.search(r"```yaml\n(tests:\n.*?)```", tour, re.S).group(1)
    added = "".join(line + "\n" for line in block.splitlines()[1:] if not line.lstrip().startswith("#"))
    with open(tmp_path / "my_scenario.yaml", "a", encoding="utf-8") as f:
        f.write(added)
    runs = re.findall(r"^hexlore (test my_scenario\.yaml.*?)\s*#\s*(.*)$", tour, re.M)
    assert len(runs) == 2
    everything = invoke(*runs[0][0].split())
    assert everything.exit_code == 0, everything.output
    ends = re.search(r'ends with "(.*)"', runs[0][1]).group(1)
    assert everything.stdout.splitlines()[-1] == ends
    assert "PASS my_scenario.yaml:" in everything.stdout and "the wolf is as its card says" in everything.stdout
    wolf = invoke(*shlex.split(runs[1][0]))
    assert wolf.exit_code == 0, wolf.output
    assert wolf.stdout.splitlines()[-1] == "2 passed, 0 failed" and "000 II" not in wolf.stdout
    # playing a side yourself, one round of it (the answers typed: option 1 each time)
    human = re.search(r"^hexlore (run my_scenario\.yaml --policy .+)$", tour, re.M).group(1).split()
    result = CliRunner().invoke(main, human + ["--max-rounds", "1"], input="1\n" * 300)
    assert result.exit_code == 0, result.output
    assert "north decides command_card:" in result.output and "winner:" in result.output
    drawn = re.search(r"`hexlore (render my_scenario\.yaml -o board\.svg)`", tour).group(1).split()
    result = invoke(*drawn)
    assert result.exit_code == 0, result.output


def test_problems_inside_tests_do_not_stop_run(tmp_path, monkeypatch):
    """Issue 15: the tour as it first read, the wolf on F4, where two of the spider's tests move
    s_left: the game is played (with warnings), the tests report S006, check fails."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    lore = re.search(r"```lore\n(.*?)```", readme, re.S).group(1)
    (tmp_path / "my_creatures.lore").write_text(lore, encoding="utf-8")
    (tmp_path / "my_scenario.yaml").write_text(
        _tour_scenario(readme, "- {id: wolf, type: dire_wolf, side: north, hex: F4}"), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = invoke("run", "my_scenario.yaml", "--seed", "3", "--log", "game.jsonl")
    assert result.exit_code == 0, result.output
    assert "winner:" in result.stdout and "warning[S006]" not in result.stdout
    assert result.stderr.count("warning[S006]: after 'given', units 's_left' and 'wolf' are both on F4") == 2
    assert "this test is not played by a game" in result.stderr
    assert (tmp_path / "game.jsonl").stat().st_size > 0
    json_run = invoke("run", "my_scenario.yaml", "--seed", "3", "--format", "json")
    assert json_run.exit_code == 0 and json.loads(json_run.stdout)["winner"]
    assert invoke("render", "my_scenario.yaml", "-o", "board.svg").exit_code == 0
    attack = invoke("odds", "my_scenario.yaml", "--action", "melee_attack(attacker: n_left, target: s_left)",
                    "--given", "{n_left: {hex: C6}}", "--outcome", "s_left.alive")
    assert attack.exit_code == 0, attack.output
    broken = invoke("odds", "my_scenario.yaml", "--test", "000 IV: a spider killed by the critical roll of its "
                    "blocked retreat tramples nobody", "--outcome", "spider.alive")
    assert broken.exit_code == 1 and "error[S006]" in broken.stdout
    check = invoke("check", "my_scenario.yaml")
    assert check.exit_code == 1 and check.stdout.count("error[S006]") == 2
    tested = invoke("test", "my_scenario.yaml")
    assert tested.exit_code == 1
    assert tested.stdout.count("error[S006]: after 'given'") == 2  # the located report, then the FAILs
    assert re.search(r"^FAIL my_scenario\.yaml:\d+: 000 IV: the spider survives both critical rolls.*\n"
                     r"     error\[S006\] at line \d+: after 'given', units 's_left' and 'wolf' are both on F4$",
                     tested.stdout, re.M)
    assert "PASS my_scenario.yaml" in tested.stdout  # the other tests ran
    assert re.search(r"^\d+ passed, 3 failed$", tested.stdout, re.M)


def test_a_run_that_cannot_start_leaves_no_log(tmp_path, monkeypatch):
    text = open(FORD, encoding="utf-8").read().replace("type: giant_spider", "type: giant_spyder")
    (tmp_path / "bad.yaml").write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = invoke("run", "bad.yaml", "--log", "game.jsonl")
    assert result.exit_code == 1 and "error[S103]" in result.output
    assert not (tmp_path / "game.jsonl").exists()
    (tmp_path / "old.jsonl").write_text("a log kept from before\n", encoding="utf-8")
    assert invoke("run", "bad.yaml", "--log", "old.jsonl").exit_code == 1
    assert (tmp_path / "old.jsonl").read_text(encoding="utf-8") == "a log kept from before\n"


def test_test_command_prints_the_errors_of_a_scenario_that_cannot_run(tmp_path):
    """Issue 15: it said only "no scenario tests found"."""
    text = open(FORD, encoding="utf-8").read().replace("type: giant_spider", "type: giant_spyder")
    f = tmp_path / "bad.yaml"
    f.write_text(text, encoding="utf-8")
    result = invoke("test", str(f))
    assert result.exit_code == 1
    assert "error[S103]: no unit type 'giant_spyder' in the packs" in result.stdout
    assert "no scenario tests found" not in result.output
    assert result.stdout.count("     not run: the scenario has 1 error(s) outside its tests (above)") == 4
    assert result.stdout.splitlines()[-1] == "0 passed, 4 failed"
    unreadable = tmp_path / "unreadable.yaml"
    unreadable.write_text("hexlore: 1\nname: [\n", encoding="utf-8")
    result = invoke("test", str(unreadable))
    assert result.exit_code == 1 and "error[S001]" in result.stdout
    assert "no test was run: fix the errors above first" in result.stderr


def test_test_command_runs_the_tests_whose_name_contains_k():
    result = invoke("test", FORD, "-k", "TRAMPLES")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        line for line in result.stdout.splitlines() if line.startswith("PASS")] + ["2 passed, 0 failed"]
    none = invoke("test", FORD, "-k", "no such test")
    assert none.exit_code == 1 and "no test's name contains 'no such test'" in none.stderr


def test_a_test_without_do_checks_the_position_after_given(tmp_path):
    text = open(FORD, encoding="utf-8").read().split("\ntests:\n")[0] + """
tests:
  - name: the spider's card
    expect:
      units:
        spider: {figures: 1, banner: green, retreat_per_flag: 2, hex: G4}
  - name: the spider moved
    given: {spider: {hex: F5}}
    do: []
    expect:
      units:
        spider: {hex: F5, move: 3}
"""
    f = tmp_path / "card.yaml"
    f.write_text(text, encoding="utf-8")
    assert invoke("check", str(f)).exit_code == 0
    result = invoke("test", str(f))
    assert result.exit_code == 1
    assert "PASS" in result.stdout and "spider.move: expected 3, got 2" in result.stdout
    assert result.stdout.splitlines()[-1] == "1 passed, 1 failed"


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


def test_a_campaign_that_cannot_start_leaves_no_log(tmp_path):
    folder = tmp_path / "campaign"  # a copy: the command leaves a lock file beside the sheet
    shutil.copytree(ROOT / "tests" / "fixtures" / "errors" / "campaign_missing_files", folder)
    campaign = folder / "campaign.yaml"
    log = tmp_path / "campaign.jsonl"
    result = invoke("campaign", str(campaign), "--log", str(log))
    assert result.exit_code == 1 and "error[" in result.output
    assert not log.exists()
    log.write_text("a log kept from before\n", encoding="utf-8")  # refused: an existing log stays whole
    assert invoke("campaign", str(campaign), "--log", str(log)).exit_code == 1
    assert log.read_text(encoding="utf-8") == "a log kept from before\n"
    assert not [p.name for p in folder.iterdir() if p.name.endswith(".lock")]  # no lock beside a missing sheet


def _hexlore(*args, cwd):
    return subprocess.run([sys.executable, "-m", "hexlore", *args], cwd=cwd, capture_output=True, timeout=120)


def test_a_log_to_standard_output_is_the_file_s_bytes_and_the_summary_goes_to_standard_error(tmp_path):
    """`--log -` is standard output, as in most tools: the log can be piped (`| jq`)."""
    piped = _hexlore("run", "battlelore/spider_ford", "--seed", "4", "--log", "-", cwd=tmp_path)
    assert piped.returncode == 0, piped.stderr
    _hexlore("run", "battlelore/spider_ford", "--seed", "4", "--log", "game.jsonl", cwd=tmp_path)
    assert piped.stdout == (tmp_path / "game.jsonl").read_bytes()
    assert b"winner:" in piped.stderr and b"event log: standard output" in piped.stderr
    assert not (tmp_path / "-").exists()
    as_json = _hexlore("run", "battlelore/spider_ford", "--seed", "4", "--log", "-", "--format", "json", cwd=tmp_path)
    assert as_json.stdout == piped.stdout and json.loads(as_json.stderr)["winner"]


def test_a_run_refused_with_its_log_on_standard_output_reports_on_standard_error(tmp_path):
    text = open(FORD, encoding="utf-8").read().replace("type: giant_spider", "type: giant_spyder")
    (tmp_path / "bad.yaml").write_text(text, encoding="utf-8")
    refused = _hexlore("run", "bad.yaml", "--log", "-", cwd=tmp_path)
    assert refused.returncode == 1 and refused.stdout == b"" and b"error[S103]" in refused.stderr
    human = invoke("run", "battlelore/spider_ford", "--log", "-", "--policy", "north=human")
    assert human.exit_code == 2 and "give it a file name" in human.output


def test_a_campaign_refused_with_its_log_on_standard_output_reports_on_standard_error(tmp_path):
    folder = tmp_path / "campaign"
    shutil.copytree(ROOT / "tests" / "fixtures" / "errors" / "campaign_missing_files", folder)
    refused = _hexlore("campaign", str(folder / "campaign.yaml"), "--log", "-", cwd=tmp_path)
    assert refused.returncode == 1 and refused.stdout == b"" and b"error[" in refused.stderr
    assert not (tmp_path / "-").exists()
