"""Shared fixtures: the compiled bundled packs, compiled once per test session."""

from __future__ import annotations

from pathlib import Path

import pytest

from hexlore.compiler import compile_packs

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def battlelore():
    rules = compile_packs(["battlelore.creatures"])
    assert rules.ok, [d.headline() for d in rules.diagnostics]
    return rules


def compile_text(tmp_path: Path, text: str, name: str = "snippet.lore"):
    """Compile one pack written to a temporary file (it may use the bundled packs)."""
    file = tmp_path / name
    file.write_text(text, encoding="utf-8")
    return compile_packs([str(file)])
