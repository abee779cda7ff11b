"""The one table of output formats (hexlore/output_formats.py), enumerated: each report format
renders a sample report, is documented in docs/diagnostics.md ("Output formats") and offered by
``hexlore check --help``; the answer formats are those of ``run``, ``odds`` and ``sweep``."""

from __future__ import annotations

import ast
import json

import click
import pytest
from click.testing import CliRunner

from conftest import ROOT
from hexlore import output_formats, report
from hexlore.cli import main
from hexlore.diagnostics import Source, Span, codes, error, warning
from hexlore.output_formats import ANSWER_FORMATS, AUTO, REPORT_CHOICES, REPORT_FORMATS

DOCS = (ROOT / "docs" / "diagnostics.md").read_text(encoding="utf-8")
SOURCE = Source("s.yaml", "units:\n  - {id: a, hex: C3}\n  - {id: b, hex: C3}\n")
SAMPLE = [error(codes.STACKED, "units 'a' and 'b' are both on C3", "s.yaml", Span.at(3, 19, 2), "move one"),
          warning(codes.UNUSED, "procedure 'p' is never used", "s.yaml", Span.at(1, 1, 5))]
#: what each format's rendering of SAMPLE must show, beyond the codes and messages
SHAPES = {
    "text": lambda out: "    3 |   - {id: b, hex: C3}" in out and "= help: move one" in out,
    "json": lambda out: [d["code"] for d in json.loads(out)["diagnostics"]] == ["W004", "S006"],
    "github": lambda out: out.startswith("::warning file=s.yaml,line=1") and "::error file=s.yaml,line=3" in out,
    "sarif": lambda out: [r["ruleId"] for r in json.loads(out)["runs"][0]["results"]] == ["W004", "S006"],
}


def test_every_format_has_a_sample_shape_here():
    assert sorted(SHAPES) == sorted(REPORT_FORMATS) and REPORT_CHOICES == (AUTO, *REPORT_FORMATS)


@pytest.mark.parametrize("fmt", REPORT_FORMATS)
def test_each_format_renders_a_sample_report(fmt):
    out = report.render(sorted(SAMPLE, key=lambda d: d.sort_key()), {"s.yaml": SOURCE}, fmt, root=ROOT)
    assert "units 'a' and 'b' are both on C3" in out and "never used" in out
    assert SHAPES[fmt](out), out


@pytest.mark.parametrize("fmt", REPORT_FORMATS)
def test_each_format_is_documented_and_offered(fmt):
    assert f"| `--format {fmt}` |" in DOCS.split("## Output formats", 1)[1].split("\n## ", 1)[0]
    helped = CliRunner().invoke(main, ["check", "--help"], terminal_width=200)
    assert helped.exit_code == 0 and f"{fmt} ({REPORT_FORMATS[fmt].description})" in " ".join(helped.output.split())


def test_the_check_command_offers_exactly_the_table():
    [option] = [p for p in main.commands["check"].params if p.name == "fmt"]
    assert isinstance(option.type, click.Choice) and tuple(option.type.choices) == REPORT_CHOICES
    assert option.default == AUTO


@pytest.mark.parametrize("command", ["run", "odds", "sweep"])
def test_the_answer_commands_offer_the_answer_formats(command):
    [option] = [p for p in main.commands[command].params if p.name == "fmt"]
    assert tuple(option.type.choices) == ANSWER_FORMATS


def test_an_unknown_format_is_refused_by_name():
    with pytest.raises(ValueError, match="no report format 'yaml': one of text, json, github, sarif"):
        report.render(SAMPLE, {}, "yaml")


def test_the_table_imports_nothing_so_help_stays_light():
    tree = ast.parse((ROOT / "hexlore" / "output_formats.py").read_text(encoding="utf-8"))
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names} | \
               {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert imported <= {"__future__", "importlib", "collections.abc", "dataclasses"}
    assert all(f.renders_with.startswith("hexlore.report:") and f.renders_with.split(":")[1] in report.__all__
               for f in output_formats.REPORT_FORMATS.values())
