"""The public Python API: compile packs, load scenarios, check, run and test them.

The CLI is a thin layer over these functions; CI pipelines and notebooks call them
directly. Nothing here raises on bad input files: problems come back as diagnostics.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

from .compiler import RuleSet, compile_packs
from .compiler.packs import PACK_OUTSIDE_ROOTS, PackLoader, bundled_rules_root, display_path, inside, resolved
from .dsl.diagnostics import Diagnostic, Source, Span, did_you_mean, error
from .dsl.files import is_dir, is_file, read_text
from .runtime.game import Game, GameResult, RuntimeRuleError, ScenarioError
from .render import board_svg
from .runtime.policies import Policy
from .runtime.scenario import NOT_A_SCENARIO, Scenario, load_scenario
from .runtime.scenario_checks import check_against_rules
from .runtime.testing import TestOutcome, run_scenario_tests

__all__ = ["Loaded", "open_scenario", "check", "run", "render", "test", "compile_packs", "bundled_scenarios_root",
           "resolve_scenario", "Game", "CompileCache", "COMPILE_CACHE", "unique_diagnostics"]

NO_SUCH_FILE = "S000"
UNKNOWN_PACK = "S102"
PACK_OUTSIDE_TREE = "S118"
NOT_A_PACK = "S119"

#: Folders searched for packs after the scenario's own, as a PATH-like variable
#: (``--packs-path`` adds to it for one command).
PATH_VARIABLE = "HEXLORE_PATH"
_PACK_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


def bundled_scenarios_root() -> Path:
    here = Path(__file__).resolve().parent
    for candidate in (here / "scenarios", here.parent / "scenarios"):
        if is_dir(candidate / "schema"):
            return candidate
    return here / "scenarios"


def resolve_scenario(name: str) -> Path | None:
    """A scenario path as given, else a bundled scenario (``battlelore/spider_ford``)."""
    path = Path(name)
    if is_file(path):
        return path
    root = bundled_scenarios_root()
    for candidate in (root / name, root / f"{name}.yaml", root / f"{name}.yml"):
        if is_file(candidate):
            return candidate
    return None


@dataclass
class Loaded:
    """A scenario with its compiled packs and every problem found in them.

    With errors, ``scenario`` may be the partial scenario the checks ran on: use ``ok``, not
    ``scenario is not None``, to know whether it can be played.
    """

    scenario: Scenario | None
    rules: RuleSet | None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    sources: dict[str, Source] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.scenario is not None and self.rules is not None and \
            not any(d.is_error for d in self.diagnostics)


def unique_diagnostics(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """Sorted by file, line, column; one of each (file, place, code, message), the first found.

    Two stages may find the same problem (the loader and the game set-up both see a unit of
    an unknown side); the first, the loader's, has the better hint.
    """
    unique: dict[tuple, Diagnostic] = {}
    for d in diagnostics:
        unique.setdefault((d.file, d.span, d.code, d.message), d)
    return sorted(unique.values(), key=Diagnostic.sort_key)


def declared_search_paths() -> list[Path]:
    """The folders of ``HEXLORE_PATH`` (``--packs-path`` adds to it), in order."""
    return [Path(p) for p in os.environ.get(PATH_VARIABLE, "").split(os.pathsep) if p]


def search_paths_for(scenario_path: Path) -> list[Path]:
    """Where a scenario's packs are looked for: its own folder, the nearest ``rules/`` folder
    above it (a project's own packs), the declared search paths, the bundled rules."""
    paths = [scenario_path.parent]
    for parent in scenario_path.resolve().parents:
        if is_dir(parent / "rules"):
            paths.append(parent / "rules")
            break
    paths += declared_search_paths()
    paths.append(bundled_rules_root())
    return paths


def _pack_exists(request: str, roots: list[Path]) -> bool:
    """Whether the pack loader can find a request (a ``.lore`` path or a pack name)."""
    if request.endswith(".lore"):
        return is_file(request)
    rel = Path(*request.split("."))
    return any(is_file((root / rel).with_suffix(".lore")) or is_dir(root / rel) for root in roots)


def _refused_pack(written: str, request: str, roots: list[Path]) -> tuple[str, str, str] | None:
    """(code, message, hint) when a ``packs:`` entry names a file hexlore must not read.

    An entry is a pack name (looked up under the roots) or a relative ``.lore`` path that stays,
    links followed, inside the scenario's folder or a search path. Nothing else is opened:
    the message shows the entry as written and none of the target's content.
    """
    if written.endswith(".lore"):
        if Path(written).is_absolute() or not inside(Path(request), resolved(roots)):
            return (PACK_OUTSIDE_TREE, f"pack file '{written}' lies outside the scenario's folder and the "
                    "search paths; it is not read",
                    "put the pack beside the scenario (or in a folder below it), or add its folder to "
                    "--packs-path or HEXLORE_PATH")
        return None
    if not _PACK_NAME.fullmatch(written):
        return (NOT_A_PACK, f"'{written}' is neither a pack name nor a .lore file",
                "name a pack (battlelore.core) or a .lore file beside the scenario (my_rules.lore)")
    return None


def _pack_problems(scenario: Scenario, requests: list[str], roots: list[Path]) -> list[Diagnostic]:
    problems = []
    known: list[str] | None = None
    for i, (written, request) in enumerate(zip(scenario.packs, requests)):
        refused = _refused_pack(written, request, roots)
        if refused:
            code, message, hint = refused
            problems.append(error(code, message, scenario.path, scenario.span_of("packs", i), hint))
            continue
        if _pack_exists(request, roots):
            continue
        if written.endswith(".lore"):
            message = f"no pack file '{written}'"
            hint = f"looked for {request}: paths of .lore files are relative to the scenario"
        else:
            known = PackLoader(roots).known_pack_names() if known is None else known
            guess = did_you_mean(written, known)
            message = f"no pack named '{written}'"
            hint = f"did you mean '{guess}'?" if guess else \
                f"packs are looked up in: {', '.join(str(r) for r in roots)}"
        problems.append(error(UNKNOWN_PACK, message, scenario.path, scenario.span_of("packs", i), hint))
    return problems


class CompileCache:
    """Compiled rule sets, reused while the pack files they were compiled from are unchanged.

    Checking a thousand scenarios that use the same packs compiles them once. An entry is
    keyed on the request (packs, search paths, working directory) and is valid only while
    every source file it was compiled from still has the same text, so an edited pack is
    recompiled. Rule sets are read-only for the runtime, so sharing one is safe.
    """

    def __init__(self, size: int = 64):
        self.size = size
        self._entries: OrderedDict[tuple, RuleSet] = OrderedDict()
        self.compiled = 0  # how many real compilations happened (for tests and benchmarks)

    def get(self, requests: list[str], search_paths: list[Path]) -> RuleSet:
        key = (tuple(requests), tuple(str(p) for p in search_paths), os.getcwd())
        rules = self._entries.get(key)
        if rules is not None and self._fresh(rules):
            self._entries.move_to_end(key)
            return rules
        rules = compile_packs(requests, search_paths, names_only=True)
        self.compiled += 1
        self._entries[key] = rules
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)
        return rules

    def clear(self) -> None:
        self._entries.clear()

    @staticmethod
    def _fresh(rules: RuleSet) -> bool:
        for path, source in rules.sources.items():
            text, _ = read_text(path)
            if text != source.text:
                return False
        return True


#: The cache ``open_scenario`` uses; ``COMPILE_CACHE.clear()`` forgets every entry.
COMPILE_CACHE = CompileCache()


def open_scenario(name: str) -> Loaded:
    """Load a scenario and compile its packs, and check the one against the other.

    Every problem is reported in one go: the scenario's own, then (when its board and packs
    are usable and the packs compile) those that need the packs, even if the first found some.
    """
    path = resolve_scenario(name)
    if path is None:
        return Loaded(None, None, [error(NO_SUCH_FILE, f"no scenario file '{name}'", name, Span(),
                                         f"bundled scenarios are in {bundled_scenarios_root()}")])
    kind = _yaml_kind(str(path))
    if kind != "scenario":  # a campaign file or a sheet given where a scenario is wanted
        hint = ("play a campaign with 'hexlore campaign FILE'" if kind == "campaign" else
                "a sheet is played through the campaign that names it: 'hexlore campaign CAMPAIGN'")
        loaded = Loaded(None, None, [error(NOT_A_SCENARIO, f"this is a {kind} file, not a scenario", str(path),
                                           Span(), hint)])
        try:
            loaded.sources[str(path)] = Source.from_file(path)
        except (OSError, UnicodeDecodeError):
            pass
        return loaded
    scenario, diags = load_scenario(path, partial=True)
    loaded = Loaded(scenario, None, list(diags))
    if scenario is None:
        try:
            loaded.sources[str(path)] = Source.from_file(path)
        except (OSError, UnicodeDecodeError):
            pass
        return loaded
    loaded.sources[scenario.path] = scenario.source
    requests = [str(path.parent / p) if p.endswith(".lore") else p for p in scenario.packs]
    roots = search_paths_for(path)
    missing = _pack_problems(scenario, requests, roots)
    if missing:  # the other packs' names would be reported as unknown too: stop here
        loaded.diagnostics.extend(missing)
        return loaded
    rules = COMPILE_CACHE.get(requests, roots)
    loaded.rules = rules
    loaded.sources.update(rules.sources)
    loaded.diagnostics.extend(rules.diagnostics)
    if rules.ok:
        loaded.diagnostics.extend(check_against_rules(rules, scenario))
    loaded.diagnostics = unique_diagnostics(loaded.diagnostics)
    return loaded


def _walk(folder: Path, pattern: str, refused: list[Diagnostic] | None = None) -> list[str]:
    """Files under ``folder``, leaving out hidden ones (``.github/``, ``.pre-commit-config.yaml``,
    virtual environments) and ``schema`` folders: YAML there is no scenario. A file that is a
    link leading out of the folder is not read (``refused`` gets a C019 for it)."""
    found = []
    try:
        files = sorted(folder.rglob(pattern))
    except OSError:
        return found
    root = resolved([folder])
    for f in files:
        parts = f.relative_to(folder).parts
        if any(p.startswith(".") for p in parts) or "schema" in parts:
            continue
        if not inside(f, root):
            if refused is not None:
                shown = display_path(f, resolve=False)
                refused.append(error(PACK_OUTSIDE_ROOTS, f"'{shown}' is a link that leads outside "
                                     f"'{display_path(folder, resolve=False)}'; it is not read", shown, Span(),
                                     "check the file it links to directly, or copy it into the folder"))
            continue
        found.append(str(f))
    return found


def check(paths: list[str]) -> tuple[list[Diagnostic], dict[str, Source]]:
    """Check rule files and scenarios; every problem found, sorted by file, line, column."""
    lore: list[str] = []
    scenarios: list[str] = []
    diagnostics: list[Diagnostic] = []
    for p in paths:
        path = Path(p)
        if is_dir(path):
            lore += _walk(path, "*.lore", diagnostics)
            scenarios += _walk(path, "*.y*ml", diagnostics)
        elif path.suffix == ".lore" and is_file(path):
            lore.append(str(path))
        elif path.suffix in (".yaml", ".yml") and is_file(path):
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
        kind = _yaml_kind(s)
        if kind == "scenario":
            loaded = open_scenario(s)
            found, more = loaded.diagnostics, loaded.sources
        else:  # campaign files and sheets (docs/campaigns.md)
            from . import campaign

            found, more = (campaign.check_campaign if kind == "campaign" else campaign.check_sheet)(s)
        sources.update(more)
        # a scenario's packs may lie outside the checked paths: keep their findings (deduplicated below)
        diagnostics.extend(found)
    return unique_diagnostics(diagnostics), sources


def _yaml_kind(path: str) -> str:
    """``scenario``, ``campaign`` or ``sheet``: what a YAML file is, from its top-level format key."""
    from .runtime.campaign_files import file_kind

    text, _ = read_text(path)
    if text is None:
        return "scenario"  # the scenario loader reports why it cannot be read
    return file_kind(text)


def run(name: str, seed: int | None = None, log_file=None, max_rounds: int | None = None,
        policies: dict[str, str | Policy] | None = None,
        watch: Callable[[Game], None] | None = None) -> tuple[GameResult | None, list[Diagnostic], dict]:
    """Play a scenario to the end; returns the result (or None) and any diagnostics.

    ``watch`` is handed the game before it starts (a terminal player's view of the position
    reads its state); it must not change the game."""
    loaded = open_scenario(name)
    if not loaded.ok:
        return None, loaded.diagnostics, loaded.sources
    try:
        game = Game(loaded.rules, loaded.scenario, seed=seed, log_file=log_file, policies=policies)
        if watch is not None:
            watch(game)
        return game.play(max_rounds), [], loaded.sources
    except RuntimeRuleError as exc:
        return None, [exc.diagnostic], loaded.sources


def render(name: str, seed: int | None = None, rounds: int = 0,
           policies: dict[str, str | Policy] | None = None) -> tuple[str | None, list[Diagnostic], dict]:
    """The position of a scenario as SVG text (hexlore/render.py): as the scenario sets it out,
    or after ``rounds`` rounds played (the game's setup first) with the seed and policies."""
    loaded = open_scenario(name)
    if not loaded.ok:
        return None, loaded.diagnostics, loaded.sources
    try:
        game = Game(loaded.rules, loaded.scenario, seed=seed, policies=policies)
        if rounds > 0:
            game.play(rounds)
    except RuntimeRuleError as exc:
        return None, [exc.diagnostic], loaded.sources
    title = loaded.scenario.name + (f", after round {game.state.game['round']}" if rounds > 0 else "")
    return board_svg(game.state, title), [], loaded.sources


def test(paths: list[str]) -> tuple[list[TestOutcome], list[Diagnostic], dict]:
    """Run the ``tests:`` of every scenario under the given paths."""
    files: list[str] = []
    for p in paths:
        path = Path(p)
        if is_dir(path):
            files += _walk(path, "*.y*ml")
        else:
            files.append(p)
    outcomes: list[TestOutcome] = []
    diagnostics: list[Diagnostic] = []
    sources: dict = {}
    for f in files:
        if _yaml_kind(f) != "scenario":
            continue  # campaign files and sheets hold no tests
        loaded = open_scenario(f)
        sources.update(loaded.sources)
        if not loaded.ok:
            diagnostics.extend(loaded.diagnostics)
            continue
        outcomes.extend(run_scenario_tests(loaded.rules, loaded.scenario))
    return outcomes, diagnostics, sources


# ---------------------------------------------------------------- odds and sweeps
__all__ += ["open_variant", "odds", "sweep"]


def open_variant(name: str, extra_packs: list[str] | tuple[str, ...] = ()) -> Loaded:
    """Load a scenario with more packs after its own (a variant: packs that ``override``)."""
    loaded = open_scenario(name)
    if not extra_packs or not loaded.ok:
        return loaded
    path = Path(loaded.scenario.path)
    missing = [p for p in extra_packs if not Path(p).is_file()]
    if missing:
        loaded.diagnostics.append(error(NO_SUCH_FILE, f"no pack file '{missing[0]}'", missing[0], Span(),
                                        "a variant is a .lore pack that overrides definitions"))
        return loaded
    requests = [str(path.parent / p) if p.endswith(".lore") else p for p in loaded.scenario.packs]
    rules = compile_packs(requests + [str(Path(p).resolve()) for p in extra_packs], search_paths_for(path))
    loaded.rules = rules
    loaded.sources.update(rules.sources)
    loaded.diagnostics = list(rules.diagnostics)  # the base compiled cleanly: its notes are superseded
    if rules.ok:
        try:
            Game(rules, loaded.scenario)
        except ScenarioError as exc:
            loaded.diagnostics.extend(exc.diagnostics)
    return loaded


def odds(scenario: str, action, outcome: list[str] | str | None = None, policy: str = "first",
         budget: int = 50_000, samples: int | None = None, seed: int = 0, given: dict | str | None = None,
         decisions: dict | str | None = None, test: str | None = None):
    """The distribution of the outcome of one action; returns ``(result | None, diagnostics, sources)``.

    ``action`` is a scenario test's ``do:`` item (a dict, a list of them, or the same as text:
    ``"{call: melee_attack, with: {attacker: a, target: b}}"`` or ``"melee_attack(attacker: a,
    target: b)"``). ``outcome`` lists what to measure (``"event:NAME"``, ``"UNIT.FIELD"``…, see
    docs/odds.md); by default every field of the units the action names that can change.
    Exact by default (every distinct dice outcome, exact fractions); when that needs more than
    ``budget`` runs the answer is a diagnostic ``O001`` suggesting ``samples=N``, a seeded Monte
    Carlo estimate with 95% Wilson intervals. ``test`` takes ``given`` and ``do`` from a test of
    the scenario (its dice and scripted decisions, written for one throw, are not used);
    decisions follow ``policy`` unless ``decisions`` scripts them.
    """
    from .runtime import odds as engine

    loaded = open_scenario(scenario)
    if not loaded.ok:
        return None, loaded.diagnostics, loaded.sources
    try:
        g, acts, dec = {}, action, {}
        if test is not None:
            found = [t for t in loaded.scenario.tests if t.name == test]
            if not found:
                names = [t.name for t in loaded.scenario.tests]
                raise engine.OddsError(engine.BAD_ACTION, f"the scenario has no test named {test!r}",
                                       f"tests: {', '.join(names) or 'none'}", "--test")
            t = found[0]
            # the test's dice and scripted decisions were written for one throw: not reused
            g = {uid: dict(v) for uid, v in t.given.items()}
            acts = acts or [{"call": a.call, "with": dict(a.args)} for a in t.actions]
        if acts is None:
            raise engine.OddsError(engine.BAD_ACTION, "no action given", "pass action= or test=", "--action")
        actions = engine.parse_actions(acts) if isinstance(acts, str) else engine.actions_from(acts)
        g.update(engine.parse_mapping(given, "--given") if isinstance(given, str) else (given or {}))
        dec.update(engine.parse_mapping(decisions, "--decisions") if isinstance(decisions, str) else
                   (decisions or {}))
        specs = [outcome] if isinstance(outcome, str) else list(outcome or [])
        question = engine.Question(loaded.rules, loaded.scenario, actions, g, dec, policy, specs)
        if samples:
            return engine.sample_odds(question, samples, seed), [], loaded.sources
        return engine.enumerate_odds(question, budget), [], loaded.sources
    except engine.OddsError as exc:
        return None, [exc.diagnostic], loaded.sources
    except RuntimeRuleError as exc:
        return None, [exc.diagnostic], loaded.sources


def sweep(scenario: str, games: int, workers: int = 1, backend: str = "local", seed: int = 0,
          address: str | None = None, vs: list[str] | str | None = None, max_rounds: int | None = None,
          progress=None):
    """Play ``games`` seeded games and summarise them; returns ``(report | None, diagnostics, sources)``.

    Game ``i`` uses a seed derived from ``(seed, i)`` only, so the report is the same for any
    ``workers`` and ``backend`` (``"local"`` process pool, or ``"ray"``: a local Ray instance,
    or the cluster at ``address``). ``vs`` names a variant: ``.lore`` packs added after the
    scenario's own (typically ``override`` of a unit or card), or another scenario file; the
    same seeds are played on it and the report gains a paired ``comparison``. ``progress`` is
    called with the number of games finished after each chunk.
    """
    from . import sweep_backends as backends
    from .runtime import sweep as stats

    loaded = open_scenario(scenario)
    if not loaded.ok:
        return None, loaded.diagnostics, loaded.sources
    path = loaded.scenario.path
    jobs = [backends.make_job(path, loaded.sources, [], seed, max_rounds)]
    variant = None
    if vs:
        names = [vs] if isinstance(vs, str) else list(vs)
        if len(names) == 1 and not names[0].endswith(".lore"):
            variant = open_scenario(names[0])
            vpath, extra = variant.scenario.path if variant.scenario else names[0], []
        else:
            variant = open_variant(path, names)
            vpath, extra = path, names
        if not variant.ok:
            return None, variant.diagnostics, {**loaded.sources, **variant.sources}
        jobs.append(backends.make_job(vpath, variant.sources, extra, seed, max_rounds))
    try:
        results = backends.run_jobs(jobs, games, workers, backend, address, progress)
    except backends.SweepSetupError as exc:
        return None, [error("O005", str(exc), "--backend", Span(), "see docs/odds.md, 'Sweeps'")], loaded.sources
    sides = [s.name for s in loaded.scenario.sides]
    report = {"scenario": path, "seed": seed, "backend": backend, "workers": workers,
              **stats.summarize(results[0], sides, stats.fielded(loaded.scenario))}
    if variant is not None:
        vsides = [s.name for s in variant.scenario.sides]
        report["variant"] = {"name": vs if isinstance(vs, str) else list(vs),
                             **stats.summarize(results[1], vsides, stats.fielded(variant.scenario))}
        report["comparison"] = stats.compare(results[0], results[1], sides)
    return report, [], loaded.sources


# ---------------------------------------------------------------- campaigns
__all__ += ["campaign"]


def campaign(path: str, seed: int | None = None, adventure: int | None = None, log_file=None, on_result=None):
    """Play a campaign (docs/campaigns.md); returns ``(results | None, diagnostics, sources)``.

    Plays the adventures the sheet's history does not list yet, in order, or only the
    ``adventure``-th (from 1); the sheet is rewritten atomically after each. ``seed``
    overrides every adventure's seed. ``results`` is None when the campaign, its sheet or an
    adventure has problems (nothing is played); a rule failing stops the campaign with its
    diagnostic, the adventures before it saved. An adventure number the campaign does not
    have raises :class:`hexlore.campaign.CampaignUsageError`.
    """
    from .campaign import play_campaign

    return play_campaign(path, seed=seed, adventure=adventure, log_file=log_file, on_result=on_result)
