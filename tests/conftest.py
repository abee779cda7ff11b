"""Shared fixtures: the compiled bundled packs, compiled once per test session."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from hexlore.compiler import compile_packs

ROOT = Path(__file__).resolve().parent.parent

# The pack tests play thousands of games, each a few thousand objects that live while it
# runs: with the default thresholds the cyclic collector runs every 700 of them and takes a
# tenth of the suite's time. Collecting less often changes no result (only when memory that
# is garbage anyway is reclaimed).
gc.set_threshold(20_000, 10, 10)


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
