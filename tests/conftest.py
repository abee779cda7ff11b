"""Shared fixtures: the compiled bundled packs, compiled once per test session."""

from __future__ import annotations

import gc
import os
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


def demo_pack(folder: Path, pack: str, scenario: str):
    """``(rules, scenario)`` of a small test pack (written as ``demo/<name>.lore`` under
    ``folder``, its name from its ``pack demo.NAME`` line) and a scenario text using it."""
    from hexlore.runtime.scenarios.loader import load_scenario_text
    name = pack.split("\n", 1)[0].split(".")[-1].strip()
    (folder / "demo").mkdir()
    (folder / "demo" / f"{name}.lore").write_text(pack, encoding="utf-8")
    rules = compile_packs([str(folder / "demo" / f"{name}.lore")])
    assert rules.ok, [d.headline() for d in rules.diagnostics]
    loaded, diagnostics = load_scenario_text(scenario, str(folder / f"{name}.yaml"))
    assert loaded is not None, diagnostics
    return rules, loaded


#: set by .ci/run, which installs every system program the tests drive: a missing one is then a
#: failure, never a skip
TOOLS_REQUIRED = os.environ.get("HEXLORE_SYSTEM_TOOLS") == "required"


def need_program(found: bool, what: str, install: str, module_level: bool = False) -> None:
    """Skip a test that drives a real system program (tmux, Chromium, Node.js) where it is not
    installed, saying how to install it; fail instead under .ci/run (HEXLORE_SYSTEM_TOOLS=required)."""
    if found:
        return
    message = (f"{what} is not installed here ({install}): this test drives the real program, "
               "so it cannot run without it")
    if TOOLS_REQUIRED:
        pytest.fail(message + "; .ci/run installs it", pytrace=False)
    pytest.skip(message, allow_module_level=module_level)
