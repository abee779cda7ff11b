"""Architecture rules that must not erode: one-way imports, no game rules in Python."""

from __future__ import annotations

import ast
import re

import pytest

from conftest import ROOT

PACKAGE = ROOT / "hexlore"
# The board shape "battlelore" (13x9, alternating rows) is geometry the runtime must offer,
# so the game's name may appear; the words of its rules may not.
GAME_WORDS = re.compile(r"\b(creatures?|spiders?|banners?|trampl\w*|helmets?|flags?|lore token|heroe?s?|"
                        r"figures?|troops?|critical|warlords?|champions?)\b", re.I)


def imports_of(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                parts = path.relative_to(PACKAGE).parent.parts
                base = parts[: len(parts) - node.level + 1]
                yield ".".join(("hexlore", *base, *(node.module.split(".") if node.module else [])))
            else:
                yield node.module or ""
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name


@pytest.mark.parametrize("stage, forbidden", [
    ("dsl", ("hexlore.compiler", "hexlore.runtime", "hexlore.cli", "hexlore.api")),
    ("compiler", ("hexlore.runtime", "hexlore.cli", "hexlore.api")),
    ("runtime", ("hexlore.cli", "hexlore.api", "hexlore.dsl.parser", "lark")),
])
def test_imports_flow_one_way(stage, forbidden):
    offenders = []
    for path in (PACKAGE / stage).rglob("*.py"):
        for imported in imports_of(path):
            if imported.startswith(forbidden):
                offenders.append(f"{path.relative_to(ROOT)} imports {imported}")
    assert not offenders, offenders


@pytest.mark.parametrize("stage", ["runtime", "compiler"])
def test_no_game_words_in_the_engine(stage):
    offenders = []
    for path in (PACKAGE / stage).rglob("*.py"):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if GAME_WORDS.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders)


def test_no_eval_exec_or_unsafe_yaml():
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"\b(eval|exec)\(", text), path
        assert "yaml.load(" not in text and "yaml.unsafe_load" not in text, path
