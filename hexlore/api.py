"""The public Python API: compile packs, load scenarios, check, run and test them.

The CLI is a thin layer over these functions; CI pipelines and notebooks call them
directly. Nothing here raises on bad input files: problems come back as diagnostics.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .compiler import RuleSet, compile_packs
from .compiler.packs import bundled_rules_root
from .dsl.diagnostics import Diagnostic, Source, Span, error
from .runtime.game import Game, GameResult, RuntimeRuleError, ScenarioError
from .runtime.scenario import Scenario, load_scenario
from .runtime.testing import TestOutcome, run_scenario_tests

__all__ = ["Loaded", "open_scenario", "check", "run", "test", "compile_packs", "bundled_scenarios_root",
           "resolve_scenario", "Game"]

NO_SUCH_FILE = "S000"


def bundled_scenarios_root() -> Path:
    here = Path(__file__).resolve().parent
    for candidate in (here / "scenarios", here.parent / "scenarios"):
        if (candidate / "schema").is_dir():
            return candidate
    return here / "scenarios"


def resolve_scenario(name: str) -> Path | None:
    """A scenario path as given, else a bundled scenario (``battlelore/spider_ford``)."""
    path = Path(name)
    if path.is_file():
        return path
    root = bundled_scenarios_root()
    for candidate in (root / name, root / f"{name}.yaml", root / f"{name}.yml"):
        if candidate.is_file():
            return candidate
    return None


@dataclass
class Loaded:
    scenario: Scenario | None
    rules: RuleSet | None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    sources: dict[str, Source] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.scenario is not None and self.rules is not None and \
            not any(d.is_error for d in self.diagnostics)


def search_paths_for(scenario_path: Path) -> list[Path]:
    paths = [scenario_path.parent]
    for parent in scenario_path.resolve().parents:
        if (parent / "rules").is_dir():
            paths.append(parent / "rules")
            break
    paths.append(bundled_rules_root())
    return paths


def open_scenario(name: str) -> Loaded:
    """Load a scenario and compile its packs; build a game once to check what it names."""
    path = resolve_scenario(name)
    if path is None:
        return Loaded(None, None, [error(NO_SUCH_FILE, f"no scenario file '{name}'", name, Span(),
                                         f"bundled scenarios are in {bundled_scenarios_root()}")])
    scenario, diags = load_scenario(path)
    loaded = Loaded(scenario, None, list(diags))
    if scenario is None:
        loaded.sources[str(path)] = Source.from_file(path)
        return loaded
    loaded.sources[scenario.path] = scenario.source
    requests = [str(path.parent / p) if p.endswith(".lore") else p for p in scenario.packs]
    rules = compile_packs(requests, search_paths_for(path))
    loaded.rules = rules
    loaded.sources.update(rules.sources)
    loaded.diagnostics.extend(rules.diagnostics)
    if rules.ok:
        try:
            Game(rules, scenario)
        except ScenarioError as exc:
            loaded.diagnostics.extend(exc.diagnostics)
    return loaded


def check(paths: list[str]) -> tuple[list[Diagnostic], dict[str, Source]]:
    """Check rule files and scenarios; every problem found, sorted by file, line, column."""
    lore: list[str] = []
    scenarios: list[str] = []
    diagnostics: list[Diagnostic] = []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            lore += [str(f) for f in sorted(path.rglob("*.lore"))]
            scenarios += [str(f) for f in sorted(path.rglob("*.y*ml")) if "schema" not in f.parts]
        elif path.suffix == ".lore" and path.is_file():
            lore.append(str(path))
        elif path.suffix in (".yaml", ".yml") and path.is_file():
            scenarios.append(str(path))
        else:
            diagnostics.append(error(NO_SUCH_FILE, f"'{p}' is not a .lore file, a scenario or a directory",
                                     p, Span(), "pass rule files (.lore), scenarios (.yaml) or folders"))
    sources: dict[str, Source] = {}
    # Each folder of packs is its own rule set (a rule set has one game): packs of
    # unrelated games checked together must not see each other's games and fields.
    folders: dict[str, list[str]] = {}
    for f in lore:
        folders.setdefault(str(Path(f).parent), []).append(f)
    for group in folders.values():
        rules = compile_packs(group)
        diagnostics.extend(rules.diagnostics)
        sources.update(rules.sources)
    for s in scenarios:
        loaded = open_scenario(s)
        sources.update(loaded.sources)
        # a scenario's packs may lie outside the checked paths: keep their findings (deduplicated below)
        diagnostics.extend(loaded.diagnostics)
    unique = {(d.file, d.span, d.code, d.message): d for d in diagnostics}
    return sorted(unique.values(), key=Diagnostic.sort_key), sources


def run(name: str, seed: int | None = None, log_file=None, max_rounds: int | None = None,
        policies: dict[str, str] | None = None) -> tuple[GameResult | None, list[Diagnostic], dict]:
    """Play a scenario to the end; returns the result (or None) and any diagnostics."""
    loaded = open_scenario(name)
    if not loaded.ok:
        return None, loaded.diagnostics, loaded.sources
    try:
        game = Game(loaded.rules, loaded.scenario, seed=seed, log_file=log_file, policies=policies)
        return game.play(max_rounds), [], loaded.sources
    except RuntimeRuleError as exc:
        return None, [exc.diagnostic], loaded.sources


def test(paths: list[str]) -> tuple[list[TestOutcome], list[Diagnostic], dict]:
    """Run the ``tests:`` of every scenario under the given paths."""
    files: list[str] = []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            files += [str(f) for f in sorted(path.rglob("*.y*ml")) if "schema" not in f.parts]
        else:
            files.append(p)
    outcomes: list[TestOutcome] = []
    diagnostics: list[Diagnostic] = []
    sources: dict = {}
    for f in files:
        loaded = open_scenario(f)
        sources.update(loaded.sources)
        if not loaded.ok:
            diagnostics.extend(loaded.diagnostics)
            continue
        outcomes.extend(run_scenario_tests(loaded.rules, loaded.scenario))
    return outcomes, diagnostics, sources
