"""What each command imports (issue 19): a command loads only what it uses.

Each command runs in a fresh interpreter through the CLI's own ``main``, and reports the
modules it ended with; the assertions name the heavy ones it must not have loaded. No time is
measured here (benchmarks/bench_startup.py does that): a module list does not depend on the
machine's load, so these tests fail only when an import really moved.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT

#: runs the CLI, then writes the names of the loaded modules to the file named first
PROBE = """
import json, sys
out, sys.argv = sys.argv[1], ["hexlore"] + sys.argv[2:]
try:
    from hexlore.cli import main
    main()
except SystemExit as stop:
    code = stop.code
else:
    code = 0
with open(out, "w", encoding="utf-8") as f:
    json.dump({"code": code, "modules": sorted(sys.modules)}, f)
"""

#: third-party libraries no command but their own may load
HEAVY = ("jsonschema", "ray", "matplotlib", "numpy", "rich.table", "rich.progress")

SPIDER_ODDS = ["odds", "tests/fixtures/odds/spider_attack.yaml", "--given",
               "{attacker: {melee_dice: 1, counts_bonus_strike: true}}", "--action",
               "strike(attacker: attacker, target: spider, melee: true)", "--outcome", "spider.alive"]


def loaded_by(tmp_path, *args: str) -> set[str]:
    """The modules loaded by ``hexlore ARGS`` (which must not fail)."""
    report = tmp_path / "modules.json"
    env = {k: v for k, v in os.environ.items() if k != "HEXLORE_NO_CACHE"}
    done = subprocess.run([sys.executable, "-c", PROBE, str(report), *args], capture_output=True, text=True,
                          cwd=ROOT, env=env)
    assert done.returncode == 0, done.stderr
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["code"] in (0, None), done.stdout + done.stderr
    return set(data["modules"])


def family(modules: set[str], *names: str) -> list[str]:
    """The loaded modules that are one of ``names`` or inside one of them."""
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in names))


@pytest.fixture
def small_pack(tmp_path):
    pack = tmp_path / "small.lore"
    pack.write_text("pack small\n\nfunction double(x: int) -> int = x * 2\n", encoding="utf-8")
    return pack


def test_help_loads_click_and_the_command_modules_only(tmp_path):
    modules = loaded_by(tmp_path, "--help")
    # hexlore.output_formats: the table of --format choices, which imports nothing
    assert family(modules, "hexlore") == ["hexlore", "hexlore.cli", "hexlore.cli_analysis", "hexlore.cli_output",
                                          "hexlore.cli_serve", "hexlore.output_formats"]
    assert family(modules, "lark", "yaml", "rich", *HEAVY) == []


def test_each_command_help_loads_no_more(tmp_path):
    for command in ("check", "run", "odds", "sweep", "campaign"):
        modules = loaded_by(tmp_path, command, "--help")
        assert family(modules, "hexlore.compiler", "hexlore.runtime", "hexlore.api", "lark", "rich", *HEAVY) == [], command


def test_lsp_help_loads_no_language_server(tmp_path):
    """pygls is optional (the lsp extra): ``hexlore lsp --help`` must work without importing it."""
    modules = loaded_by(tmp_path, "lsp", "--help")
    assert family(modules, "hexlore.lsp", "pygls", "lsprotocol", "hexlore.compiler", "lark") == []


def test_check_of_a_pack_loads_the_compiler_and_nothing_of_the_runtime(tmp_path, small_pack):
    modules = loaded_by(tmp_path, "check", str(small_pack))
    assert "hexlore.compiler.declare" in modules and "lark" in modules  # it did compile
    assert family(modules, "hexlore.runtime", "hexlore.render", "hexlore.campaign", "hexlore.sweep_backends",
                  "hexlore.play", "yaml", "rich", *HEAVY) == []


def test_check_of_valid_scenarios_loads_neither_jsonschema_nor_the_game(tmp_path):
    """A campaign, its sheet and its scenarios, all valid: jsonschema-rs vouches for each file
    (runtime/scenarios/quick_schema.py), so jsonschema, which only words errors, stays unloaded,
    and checking builds no Game (hexlore/campaign.py imports the engine's game when it plays)."""
    modules = loaded_by(tmp_path, "check", "scenarios/battlelore/ford_campaign")
    assert "jsonschema_rs" in modules and "hexlore.runtime.scenarios.loader" in modules  # it checked scenarios
    assert "hexlore.campaign" in modules  # and the campaign
    assert family(modules, "jsonschema", "hexlore.runtime.engine.game") == []


def test_run_loads_the_runtime_but_no_tables_ray_or_plots(tmp_path):
    modules = loaded_by(tmp_path, "run", "battlelore/spider_ford", "--seed", "7", "--max-rounds", "1")
    assert "hexlore.runtime.engine.game" in modules
    # the scenario is validated against its JSON Schema (jsonschema itself only for a file with errors)
    assert family(modules, "ray", "matplotlib", "numpy", "rich.table", "rich.progress", "hexlore.sweep_backends",
                  "hexlore.runtime.analysis.odds", "hexlore.runtime.analysis.sweep", "hexlore.render",
                  "jinja2") == []  # pages only: run --html


def test_odds_loads_no_sweep_ray_or_plots(tmp_path):
    modules = loaded_by(tmp_path, *SPIDER_ODDS)
    assert "hexlore.runtime.analysis.odds" in modules and "rich.table" in modules  # it printed its table
    assert family(modules, "ray", "matplotlib", "numpy", "rich.progress", "hexlore.sweep_backends",
                  "hexlore.runtime.analysis.sweep", "hexlore.campaign", "hexlore.render") == []


def test_the_names_help_spells_out_are_those_of_their_modules():
    """``--help`` lists policies without importing the modules that define them."""
    from hexlore import cli_analysis
    from hexlore.runtime.engine.policies import POLICY_NAMES
    from hexlore.runtime.engine.search import SEARCH_NAMES

    # the budgets --policy accepts are those of every searching player, and of no other
    assert all(cli_analysis._search_spec(f"{name}:5") for name in SEARCH_NAMES)
    assert not any(cli_analysis._search_spec(f"{name}:5") for name in POLICY_NAMES if name not in SEARCH_NAMES)


def test_the_package_front_door_finds_its_names_when_asked():
    """``import hexlore`` is light, yet ``hexlore.check`` and the rest still work (PEP 562)."""
    probe = ("import sys, hexlore; light = 'hexlore.api' not in sys.modules; "
             "print(light, hexlore.check is __import__('hexlore.api').api.check, hexlore.Game.__name__)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT)
    assert done.stdout.split() == ["True", "True", "Game"], done.stderr
    import hexlore
    with pytest.raises(AttributeError):
        hexlore.not_a_name  # noqa: B018


def test_the_engine_loads_without_jsonschema():
    """Only the loaders that validate scenario files use jsonschema; a game needs none of it."""
    probe = "import sys, hexlore.runtime.engine.game; print('jsonschema' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT)
    assert done.stdout.strip() == "False", done.stderr
