"""``check`` refuses in advance what later commands would crash on (issue 30).

Each case was a reproducer on the main branch: a 5,000-deep ``look.yaml`` stopped ``check``
with a RecursionError and no report in any format; a NUL in a ``packs:`` entry crashed
``check``; a lone surrogate (a ``"\\ud800"`` escape) in a scenario, a Lore string or a look
mark passed ``check``, then ``render`` and ``run --html`` crashed and left a 0-byte file; a
bad ``look.yaml`` beside a pack passed ``check`` of the pack and of its scenario, then
``render`` printed a traceback. Every command runs as ``python -m hexlore`` in a child held to
the bounds of tests/bounded.py, in a project folder of its own.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bounded import ROOT, assert_refused, run_bounded

SCENARIO = (ROOT / "scenarios/battlelore/spider_ford.yaml").read_text(encoding="utf-8").split("\ntests:\n")[0]
MOD = "pack mod\nuse battlelore.creatures\n"


def _project(tmp_path: Path, files: dict[str, str]) -> Path:
    """A folder holding ``files`` (name -> text): a mod, its look, a scenario played with it."""
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def _modded(scenario: str = SCENARIO) -> str:
    return scenario.replace("packs: [battlelore.creatures]", "packs: [mod.lore]")


DEEP_LOOK = "terrain: " + "[" * 5000 + "]" * 5000 + "\n"


@pytest.mark.parametrize("fmt", ["text", "json", "github", "sarif"])
def test_a_deep_look_is_reported_whole_in_every_format(tmp_path, fmt):
    project = _project(tmp_path, {"mod.lore": MOD, "look.yaml": DEEP_LOOK, "s.yaml": _modded()})
    outcome = run_bounded("check", ".", "--format", fmt, cwd=project)
    assert_refused(outcome, "S003")
    assert "RecursionError" not in outcome.output and "nested more than 64 levels" in outcome.stdout
    if fmt == "json":
        found = json.loads(outcome.stdout)["diagnostics"]
        assert [(d["file"], d["line"], d["code"]) for d in found] == [("look.yaml", 1, "S003")]
    elif fmt == "sarif":
        results = json.loads(outcome.stdout)["runs"][0]["results"]
        assert [r["ruleId"] for r in results] == ["S003"]
    elif fmt == "github":
        assert outcome.stdout.startswith("::error file=look.yaml,line=1,")
    else:
        assert outcome.stdout.startswith("look.yaml:1:")


@pytest.mark.parametrize("entry", ['"battlelore.creat\\0ures"', '"mod\\0.lore"', '"mod.lore\\0"'])
def test_a_nul_in_a_packs_entry_is_refused_where_it_is(tmp_path, entry):
    scenario = _modded().replace("packs: [mod.lore]", f"packs: [{entry}]")
    project = _project(tmp_path, {"mod.lore": MOD, "s.yaml": scenario})
    outcome = run_bounded("check", "s.yaml", cwd=project)
    assert_refused(outcome, "S126")
    column = scenario.splitlines()[7].index("\\0") + 1
    assert f"s.yaml:8:{column}: error[S126]: 'packs[0]' holds the control character U+0000 (NUL)" in outcome.stdout


#: (where the text is, the files of the project, the code check gives, the position it names)
TEXTS = {
    "scenario name": ({"mod.lore": MOD, "s.yaml": _modded(SCENARIO.replace(
        "name: The Spider at the Ford", 'name: "The Spider \\ud800"'))}, "S125", "s.yaml:2:19"),
    "side name": ({"mod.lore": MOD, "s.yaml": _modded(SCENARIO.replace(
        "  - name: north\n", '  - name: "nor\\x1bth"\n').replace("side: north", 'side: "nor\\x1bth"'))},
        "S126", "s.yaml:17:15"),
    "unit id": ({"mod.lore": MOD, "s.yaml": _modded(SCENARIO.replace("{id: spider,", '{id: "spi\\uD800der",'))},
                "S125", "s.yaml:24:14"),
    "lore title": ({"mod.lore": MOD + 'fields unit { bite: int = 0 }\nunit wolf "Loup \\ud800" is creature '
                    '{ banner: blue\n move: 3\n counts_bonus_strike: true }\n',
                    "s.yaml": _modded()}, "C024", "mod.lore:4:17"),
    "lore text value": ({"mod.lore": MOD + 'function motto() -> text = "\\u202eesrever"\n',
                         "s.yaml": _modded()}, "C025", "mod.lore:3:29"),
    "look mark": ({"mod.lore": MOD, "look.yaml": 'marks: {giant_spider: "S\\ud800"}\n', "s.yaml": _modded()},
                  "S125", "look.yaml:1:25"),
    "bad look colour": ({"mod.lore": MOD, "look.yaml": "terrain: {river: green}\n", "s.yaml": _modded()},
                        "S003", "look.yaml:1:18"),
    "deep look": ({"mod.lore": MOD, "look.yaml": DEEP_LOOK, "s.yaml": _modded()}, "S003", "look.yaml:1:73"),
}


#: each case, checked as the scenario and, when the problem is in the packs' files, as the pack
CHECKED = [(name, target) for name, (_, _, where) in TEXTS.items()
           for target in (["s.yaml"] if where.startswith("s.yaml") else ["s.yaml", "mod.lore"])]


@pytest.mark.parametrize("case, checked", CHECKED, ids=[f"{c} ({t})" for c, t in CHECKED])
def test_check_of_the_scenario_and_of_the_pack_refuses_what_render_cannot_draw(tmp_path, case, checked):
    files, code, where = TEXTS[case]
    project = _project(tmp_path, files)
    outcome = run_bounded("check", checked, cwd=project)
    assert_refused(outcome, code)
    assert f"{where}: error[{code}]" in outcome.stdout, outcome.describe()


@pytest.mark.parametrize("files, code, where", TEXTS.values(), ids=TEXTS.keys())
@pytest.mark.parametrize("command", [["render", "s.yaml", "-o", "out.svg"], ["run", "s.yaml", "--html", "out.html"]])
def test_render_and_run_html_refuse_it_without_a_traceback_or_a_file(tmp_path, files, code, where, command):
    project = _project(tmp_path, files)
    outcome = run_bounded(*command, cwd=project)
    assert_refused(outcome, code)
    assert f"{where}: error[{code}]" in outcome.output, outcome.describe()
    assert not (project / command[-1]).exists(), "a refused output must not be left behind, even empty"


#: (YAML text, code, line, column): each refused character found where it is written
LOCATED = [
    ('name: "ok \\ud800"\n', "S125", 1, 11),
    ('name: "two\\n\\\n  lines \\x1b"\n', "S126", 2, 9),
    ("name: plain \u202e text\n", "S126", 1, 13),
    ("description: |\n  first\n  second \u2066 line\n", "S126", 3, 10),
    ('"key \\0": 1\n', "S126", 1, 6),
    ('list: [a, "b\\N"]\n', "S126", 1, 13),
    ('name: "fine \\t tab \\u200f mark \\U0001F577 spider"\n', None, 0, 0),
]


@pytest.mark.parametrize("text, code, line, column", LOCATED)
def test_refused_text_is_located_at_the_character_or_its_escape(text, code, line, column):
    from hexlore.runtime.scenarios.located_yaml import SpanIndexer, compose

    index = SpanIndexer("t.yaml", text)
    index.walk(compose(text))
    found = [(d.code, d.span.line, d.span.column) for d in index.diagnostics]
    assert found == ([(code, line, column)] if code else [])


def test_a_sheet_and_a_campaign_refuse_it_and_leave_the_unit_out():
    from hexlore.runtime.scenarios.campaign_files import load_campaign_text, load_sheet_text

    sheet, problems = load_sheet_text('hexlore_sheet: 1\nunits:\n  - {id: "al\\ud800", type: hero}\n'
                                      "  - {id: bo, type: hero}\nhistory: []\n", "s.sheet.yaml", partial=True)
    assert [(d.code, d.span.line, d.span.column) for d in problems if d.code == "S125"] == [("S125", 3, 13)]
    assert [u.id for u in sheet.units] == ["bo"]
    _, problems = load_campaign_text('hexlore_campaign: 1\nname: "c\\x9b"\nsheet: s.sheet.yaml\nadventures: []\n',
                                     "c.campaign.yaml")
    assert ("S126", 2, 9) in [(d.code, d.span.line, d.span.column) for d in problems]


def test_what_check_refuses_is_what_an_output_cannot_hold():
    """Every refused character is one UTF-8 cannot encode or one XML 1.0 or a terminal acts on;
    the characters right-to-left names need, and tab, newline, carriage return, are kept."""
    from hexlore.dsl.text_safety import REFUSED

    refused = {c for c in map(chr, range(0x110000)) if REFUSED.match(c)}
    for c in refused:
        try:
            c.encode("utf-8")
        except UnicodeEncodeError:
            continue
        assert ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F or c in "\ufffe\uffff" or 0x202A <= ord(c) <= 0x2069, hex(ord(c))
    assert not refused & set("\t\n\r\u200e\u200f\u061c é🕷")
    assert {"\x00", "\x1b", "\x7f", "\x9b", "\ud800", "\udfff", "\u202e", "\u2066"} <= refused
