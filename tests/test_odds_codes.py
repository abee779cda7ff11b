"""Every odds and sweep code (the O entries of hexlore/diagnostics/codes.py) is triggered here,
by the example docs/diagnostics.md gives for it, and gives the very message printed there."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

import hexlore
from hexlore import api
from hexlore.diagnostics.codes import CODES

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "diagnostics.md"
SPIDER = str(ROOT / "tests" / "fixtures" / "odds" / "spider_attack.yaml")
STRIKE = "strike(attacker: attacker, target: spider, melee: true)"
MIX_LORE = ("pack my.mix\nfields game { pile: list of int = [1, 2, 3] }\nevent mixed(top: int)\n"
            "procedure mix() {\n  shuffle(game.pile)\n  emit mixed(top: first(game.pile))\n}\n")


def _mix(tmp_path: Path) -> str:
    (tmp_path / "mix.lore").write_text(MIX_LORE, "utf-8")
    (tmp_path / "mix.yaml").write_text(
        "hexlore: 1\nname: mix\npacks: [mix.lore]\nboard: {shape: hexagon, radius: 1}\n"
        "sides: [{name: a, edge: top}, {name: b, edge: bottom}]\nunits: []\n", "utf-8")
    return str(tmp_path / "mix.yaml")


QUESTIONS = {
    "O001": lambda tmp: api.odds(SPIDER, STRIKE, ["spider.alive"], given={"attacker": {"melee_dice": 6}}, budget=50),
    "O002": lambda tmp: api.odds(SPIDER, STRIKE.replace("strike", "strik"), ["spider.alive"]),
    "O003": lambda tmp: api.odds(SPIDER, STRIKE, ["spider.figurs"]),
    "O004": lambda tmp: api.odds(_mix(tmp), "mix()", ["event:mixed.top"]),
    "O005": lambda tmp: hexlore.sweep("battlelore/spider_ford", 100, backend="nosuch"),
    "O006": lambda tmp: hexlore.sweep("battlelore/spider_ford", 10, policies={"west": "mcts"}),
}


def test_every_odds_code_of_the_registry_is_asked_here():
    assert sorted(QUESTIONS) == sorted(code for code in CODES if code.startswith("O"))


def _section(code: str) -> str:
    text = DOCS.read_text(encoding="utf-8")
    match = re.search(rf"^### {code}\b.*?(?=^##)", text + "\n## end", re.MULTILINE | re.DOTALL)
    assert match, f"docs/diagnostics.md has no '### {code}' section"
    return match.group(0)


@pytest.mark.parametrize("code", sorted(QUESTIONS))
def test_each_odds_code_is_triggered_with_its_documented_message(tmp_path, code):
    answer, diagnostics, _ = QUESTIONS[code](tmp_path)
    assert answer is None and [d.code for d in diagnostics] == [code]
    d = diagnostics[0]
    section = _section(code)
    assert f"error[{code}]: {d.message}" in section, d.headline()
    assert f"= help: {d.hint}" in section


def test_the_ray_backend_without_ray_is_o005(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # importing ray now fails, as when not installed
    answer, diagnostics, _ = hexlore.sweep("battlelore/spider_ford", 4, backend="ray")
    assert answer is None and [d.code for d in diagnostics] == ["O005"]
    assert "pip install 'hexlore[ray]'" in diagnostics[0].message
