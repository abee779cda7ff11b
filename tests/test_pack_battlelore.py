"""The BattleLore packs' coverage: every paragraph of seeds 000 and 002 has a row in
rules/battlelore/COVERAGE.md, and every test it cites (by name prefix) exists."""

from __future__ import annotations

import re

from conftest import ROOT
from hexlore.runtime.scenarios.loader import load_scenario

COVERAGE = ROOT / "rules" / "battlelore" / "COVERAGE.md"
SCENARIOS = ROOT / "scenarios" / "battlelore"

# One id per rule paragraph of the two texts (headings and sub-paragraphs, in their order).
PARAGRAPHS = [
    "000.intro", "000.I", "000.II", "000.II.slayer", "000.II.any_hits", "000.III", "000.IV", "000.V",
    "000.anatomy", "000.list",
    "002.intro", "002.I.creation", "002.I.continuing", "002.I.deployment", "002.I.role",
    "002.I.activate_champion", "002.I.activate_warlord", "002.I.tactic_cards", "002.I.champion_move",
    "002.I.warlord_move", "002.I.combat", "002.I.wound_test", "002.I.wound_procedure",
    "002.I.troops_wounding", "002.I.life", "002.I.morale", "002.I.champion_retreat", "002.I.flight",
    "002.I.leaving", "002.I.warlord_retreat", "002.I.quests", "002.I.quest_done", "002.I.chests",
    "002.II.card", "002.II.gaining", "002.II.limit", "002.II.equip", "002.II.use", "002.II.phases",
    "002.III.cards", "002.III.experience", "002.III.level", "002.III.use",
    "002.IV.1", "002.IV.2", "002.IV.3", "002.IV.4", "002.IV.5", "002.IV.6", "002.IV.7", "002.IV.8",
    "002.IV.order", "002.V.council", "002.V.legacy", "002.VI.call_to_arms", "002.VI.multiplayer",
    "002.VII", "002.VIII.tent", "002.VIII.cemetery", "002.VIII.hut",
]


def scenario_test_names() -> list[str]:
    names = []
    for path in sorted(SCENARIOS.rglob("*.yaml")):
        if path.read_text(encoding="utf-8").lstrip().startswith(("hexlore_campaign", "hexlore_sheet")):
            continue
        scenario, diagnostics = load_scenario(path)
        assert scenario is not None, diagnostics
        names += [t.name for t in scenario.tests]
    return names


def rows() -> dict[str, str]:
    text = COVERAGE.read_text(encoding="utf-8")
    return {line.split("|")[1].strip(): line for line in text.splitlines() if re.match(r"\| 00[02]\.", line)}


def test_every_paragraph_of_seeds_000_and_002_has_a_row():
    assert sorted(rows()) == sorted(PARAGRAPHS)


def test_every_cited_test_exists():
    names = scenario_test_names()
    text = COVERAGE.read_text(encoding="utf-8")
    for paragraph, line in rows().items():
        cited = re.findall(r"`([^`]+)`", line.split("|")[3])
        assert cited, f"{paragraph}: no test cited"
        for prefix in cited:
            assert any(n.startswith(prefix) for n in names), f"{paragraph}: no scenario test starts with {prefix!r}"
    examples = re.findall(r"^`(00[02] [^`]+)`", text, re.M) + re.findall(r",\n`(00[02] [^`]+)`", text)
    assert len(examples) >= 9
    for prefix in examples:
        assert any(n.startswith(prefix) for n in names), f"worked example: no scenario test {prefix!r}"
