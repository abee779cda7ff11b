"""Scenario checks against the packs: all problems in one run, occupancy, the compile cache, no tracebacks."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import ROOT
from hexlore import api
from hexlore.runtime.scenarios.loader import load_scenario_text

FIXTURES = ROOT / "tests" / "fixtures" / "errors"
DOCS = ROOT / "docs" / "diagnostics.md"
FORD = ROOT / "scenarios" / "battlelore" / "spider_ford.yaml"


def codes(path: Path) -> list[str]:
    diagnostics, _ = api.check([str(path)])
    return [d.code for d in diagnostics]


def test_five_unrelated_mistakes_give_five_diagnostics_in_one_run():
    # a schema error, then mistakes only the packs reveal: the first does not hide the others
    assert codes(FIXTURES / "five_mistakes.yaml") == ["S003", "S103", "S004", "S112", "S110"]


def test_a_broken_section_does_not_echo_through_the_rest_of_the_file():
    # 'units:' is missing: tests naming units are not reported as naming unknown units
    assert codes(FIXTURES / "schema_missing_key.yaml") == ["S003", "S004"]
    # a side with a bad edge is still a side: its units are not 'of an unknown side'
    assert codes(FIXTURES / "schema_bad_enum.yaml") == ["S003"]


def test_the_bundled_scenarios_are_clean():
    for path in sorted((ROOT / "scenarios").rglob("*.yaml")):
        # notes (N001: a pack overrides a declaration on purpose) are not problems
        assert [c for c in codes(path) if not c.startswith("N")] == [], path


def test_run_refuses_a_scenario_with_problems_and_says_why():
    result, diagnostics, _ = api.run(str(FIXTURES / "unknown_unit_type.yaml"))
    assert result is None and [d.code for d in diagnostics] == ["S103"]


CONCURRENT = {"S017", "S018"}  # need two runs at once: tests/test_campaign_lock.py checks their text
# refuse outputs `check` cannot see (a replay past its budget, a sweep of too many games):
# tests/test_output_budget.py checks their text
CONCURRENT |= {"S128", "S129"}
# about a command's output files and the log given to replay (S130-S132): tests/test_writes.py
CONCURRENT |= {"S130", "S131", "S132"}
# need a link leading out of the project, which a documented example cannot hold: their fixtures
# (tests/fixtures/errors/*link*, campaign_sheet_outside) and tests/test_hostile_files.py check their text
CONCURRENT |= {"S120", "S121", "S122"}


def _documented_headlines() -> list[tuple[str, str]]:
    """(fixture path, headline) for every message quoted in the S and R sections of the docs."""
    text = DOCS.read_text(encoding="utf-8")
    mine = text[text.index("## Scenario problems (S)"):]
    blocks = re.findall(r"^```text\n(.*?)^```", mine, re.S | re.M)
    found = []
    for block in blocks:
        for line in block.splitlines():
            m = re.match(r"^(\S+?):\d+:\d+: (?:error|warning|note)\[([A-Z]\d{3})\]: ", line)
            if m and m.group(2) not in CONCURRENT:  # quoted from tests/test_campaign_lock.py's runs
                found.append((m.group(1), line))
    return found


DOCUMENTED = _documented_headlines()


def test_every_s_and_r_section_quotes_a_real_message():
    text = DOCS.read_text(encoding="utf-8")
    sections = re.findall(r"^### ([SR]\d{3})\b", text, re.M)
    quoted = {re.search(r"\[([A-Z]\d{3})\]", line).group(1) for _, line in DOCUMENTED}
    assert sections and set(sections) <= quoted | CONCURRENT


@pytest.mark.parametrize("file, headline", DOCUMENTED, ids=[h.split(": ", 1)[0] for _, h in DOCUMENTED])
def test_documented_message_is_what_hexlore_prints(file, headline, monkeypatch):
    monkeypatch.chdir(FIXTURES)
    top = file.split("/")[0]
    if (FIXTURES / f"{top}.run.expected").exists():
        _, found, _ = api.run(f"{top}/scenario.yaml")
    else:
        found, _ = api.check([top])
    assert headline in [d.headline() for d in found]


# ---------------------------------------------------------------------------
# occupancy
# ---------------------------------------------------------------------------

SCENARIO = textwrap.dedent("""\
    hexlore: 1
    name: occupancy
    packs: [{pack}]
    board:
      shape: rectangle
      width: 4
      height: 3
      terrain: {{deep: [B2, C2]}}
    sides:
      - {{name: west, edge: top}}
      - {{name: east, edge: bottom}}
    units:
      - {{id: boat, type: skiff, side: west, hex: B2}}
      - {{id: walker, type: hiker, side: east, hex: A1}}
    tests:
      - name: the walker wades
        given: {{walker: {{hex: C2}}, boat: {{hex: D3}}}}
        do: [{{call: rest}}]
        expect: {{}}
    """)

PACK = textwrap.dedent("""\
    pack water
    fields terrain {{ wet: bool = false }}
    fields unit {{ floats: bool = false }}
    terrain dry "Dry" {{ }}
    terrain deep "Deep" {{ wet: true }}
    unit skiff "Skiff" {{ floats: true }}
    unit hiker "Hiker" {{ }}
    procedure rest() {{ }}
    {rule}
    """)


def _write(tmp_path: Path, rule: str) -> Path:
    (tmp_path / "water.lore").write_text(PACK.format(rule=rule), encoding="utf-8")
    scenario = tmp_path / "s.yaml"
    scenario.write_text(SCENARIO.format(pack="water.lore"), encoding="utf-8")
    return scenario


def test_occupancy_is_the_packs_rule_at_the_start_and_after_given(tmp_path):
    scenario = _write(tmp_path, "function may_occupy(u: unit, h: hex) -> bool = u.floats or not h.terrain.wet")
    diagnostics, _ = api.check([str(scenario)])
    assert [(d.code, d.span.line, d.message) for d in diagnostics] == [
        ("S107", 17, "unit 'walker' (hiker) may not occupy C2 (deep)")]
    # the boat may float on deep water; moved by 'given' to dry land it may stand there too


def test_without_an_occupancy_rule_nothing_is_forbidden(tmp_path):
    scenario = _write(tmp_path, "")
    assert codes(scenario) == []


def test_an_argument_yaml_reads_as_a_boolean_is_reported_not_raised(tmp_path):
    # YAML 1.1 loads the key `on:` as true: the checker says so instead of crashing
    scenario = _write(tmp_path, "")
    text = scenario.read_text(encoding="utf-8").replace("do: [{call: rest}]", "do: [{call: rest, with: {on: 1}}]")
    scenario.write_text(text, encoding="utf-8")
    diagnostics, _ = api.check([str(scenario)])
    assert [(d.code, d.message) for d in diagnostics] == [("S113", "procedure 'rest' has no parameter 'True'")]


def test_an_occupancy_rule_that_fails_is_a_located_run_time_error(tmp_path):
    rule = ("table depth: int -> int { 0: 0 }\n"
            "function may_occupy(u: unit, h: hex) -> bool = depth[h.r] == 0")
    scenario = _write(tmp_path, rule)
    diagnostics, _ = api.check([str(scenario)])
    assert {d.code for d in diagnostics} == {"R001"}
    assert all(d.file.endswith("water.lore") and d.span.line == 10 for d in diagnostics)


# ---------------------------------------------------------------------------
# the compile cache
# ---------------------------------------------------------------------------


def test_scenarios_sharing_packs_compile_them_once_until_a_pack_changes(tmp_path):
    pack = tmp_path / "water.lore"
    for i in range(3):
        (tmp_path / f"s{i}.yaml").write_text(SCENARIO.format(pack="water.lore"), encoding="utf-8")
    pack.write_text(PACK.format(rule=""), encoding="utf-8")
    api.COMPILE_CACHE.clear()
    before = api.COMPILE_CACHE.compiled
    diagnostics, _ = api.check([str(tmp_path / f"s{i}.yaml") for i in range(3)])
    assert diagnostics == [] and api.COMPILE_CACHE.compiled == before + 1
    pack.write_text(PACK.format(rule="").replace('unit hiker "Hiker" { }', ""), encoding="utf-8")
    diagnostics, _ = api.check([str(tmp_path / "s0.yaml")])
    assert [d.code for d in diagnostics] == ["S103"] and api.COMPILE_CACHE.compiled == before + 2


# ---------------------------------------------------------------------------
# no input makes check raise
# ---------------------------------------------------------------------------

BASE = yaml.safe_load(FORD.read_text(encoding="utf-8"))
BASE["tests"] = BASE["tests"][:1]


def _paths(node, path=()):
    yield path
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, path + (i,))


PATHS = [p for p in _paths(BASE) if p]
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 20)
    | st.sampled_from(["F5", "Z9", "north", "spider", "", "x y", "flag"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["hex", "id", "event", "a"]), inner,
                                                                max_size=3),
    max_leaves=6)


def _replace(data, path, value):
    import copy
    data = copy.deepcopy(data)
    node = data
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value
    return data


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=st.lists(st.tuples(st.sampled_from(PATHS), VALUES), min_size=1, max_size=3))
def test_no_mangled_scenario_makes_the_checker_raise(edits, tmp_path):
    data = BASE
    for path, value in edits:
        try:
            data = _replace(data, path, value)
        except (KeyError, IndexError, TypeError):
            continue
    text = yaml.safe_dump(data, allow_unicode=True, sort_keys=False)
    file = tmp_path / "mangled.yaml"
    file.write_text(text, encoding="utf-8")
    diagnostics, _ = api.check([str(file)])  # must not raise
    scenario, strict = load_scenario_text(text, "mangled.yaml")
    assert (scenario is None) == any(d.is_error for d in strict)
    for d in diagnostics:
        assert d.code and d.span.line >= 1 and d.message


def test_libyaml_and_pure_python_yaml_locate_nodes_alike():
    from hexlore.runtime.scenarios import located_yaml as loader

    if loader._LIBYAML_LOADER is None:
        pytest.skip(reason="this PyYAML was built without libyaml: only the pure-Python loader is used")
    text = FORD.read_text(encoding="utf-8") + "extra: {clé: 'Château', list: [1, {a: b}]}\n"
    spans = []
    for name in ("CSafeLoader", "SafeLoader"):
        idx = loader.SpanIndexer("f.yaml")
        idx.walk(yaml.compose(text, Loader=getattr(yaml, name)))
        spans.append((idx.spans, idx.key_spans))
    assert spans[0] == spans[1] and len(spans[0][0]) > 300


def test_a_folder_walk_skips_hidden_files_and_schema_folders(tmp_path):
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / "ci.yml").write_text("on: push\n", encoding="utf-8")
    (tmp_path / ".pre-commit-config.yaml").write_text("repos: []\n", encoding="utf-8")
    (tmp_path / "schema").mkdir()
    (tmp_path / "schema" / "x.yaml").write_text("a: 1\n", encoding="utf-8")
    (tmp_path / "broken.yaml").write_text("hexlore: 1\n", encoding="utf-8")
    diagnostics, _ = api.check([str(tmp_path)])
    assert {Path(d.file).name for d in diagnostics} == {"broken.yaml"}


def test_occupancy_is_not_asked_of_units_off_the_board(tmp_path):
    # a hiker may stand nowhere: only the units on a hex are reported, not the reserve
    scenario = _write(tmp_path, "function may_occupy(u: unit, h: hex) -> bool = u.floats")
    text = scenario.read_text(encoding="utf-8").replace(
        "  - {id: walker, type: hiker, side: east, hex: A1}\n",
        "  - {id: walker, type: hiker, side: east, hex: A1}\n  - {id: reserve, type: hiker, side: east}\n"
        "  - {id: later, type: hiker, side: west, hex: null}\n")
    scenario.write_text(text, encoding="utf-8")
    diagnostics, _ = api.check([str(scenario)])
    assert [(d.code, d.message) for d in diagnostics] == [
        ("S107", "unit 'walker' (hiker) may not occupy A1 (dry)"),
        ("S107", "unit 'walker' (hiker) may not occupy C2 (deep)")]
