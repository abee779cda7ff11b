"""The public Python API: compile packs, load scenarios, check, run and test them.

The CLI is a thin layer over these functions; CI pipelines and notebooks call them
directly. Nothing here raises on bad input files: problems come back as diagnostics.

Only the compiler and the loader's light half are imported with this module; the runtime
(games, scenario files and their schemas, odds, sweeps, campaigns, the renderer) is imported
by the functions that use it, so that ``hexlore check`` of a pack starts without them
(issue 19). ``api.Game`` and the other runtime names still work: :func:`__getattr__` finds them.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import IO, TYPE_CHECKING, Any, Protocol

from .compiler import compile_packs
from .diagnostics import codes, Diagnostic, Severity, Source, Span, error
from .compiler.packs import display_path
from .dsl.confine import Roots, command_line_root, confine, walk
from .dsl.files import is_dir, is_file
from .loading import (COMPILE_CACHE, PATH_VARIABLE, CompileCache, Loaded,  # noqa: F401 (public)
                      bundled_scenarios_root, declared_search_paths, open_scenario, open_variant, resolve_scenario,
                      search_paths_for, unique_diagnostics, yaml_kind)

#: a path named to check (or an editor's document) that leads outside the project root
#: a pack's look.yaml that is a link leading outside the pack's folder

if TYPE_CHECKING:
    from .runtime.engine.game import Game, GameResult
    from .runtime.engine.policies import Policy
    from .runtime.analysis.scenario_tests import TestOutcome
    from .runtime.engine.event_log import EventLog
    from .runtime.engine.core.state import GameState

__all__ = ["Loaded", "open_scenario", "check", "run", "render", "test", "compile_packs", "bundled_scenarios_root",
           "resolve_scenario", "Game", "CompileCache", "COMPILE_CACHE", "unique_diagnostics", "PATH_VARIABLE",
           "declared_search_paths", "search_paths_for"]

def __getattr__(name: str) -> Any:
    """The runtime's public names (``api.Game``…), imported on first use."""
    module: ModuleType | None
    if name in ("Game", "GameResult", "RuntimeRuleError"):
        from .runtime.engine import game as module
    elif name == "Policy":
        from .runtime.engine import policies as module
    elif name == "TestOutcome":
        from .runtime.analysis import scenario_tests as module
    elif name == "board_svg":
        from . import render as module
    else:
        module = None
    if module is not None:
        value = globals()[name] = getattr(module, name)
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

def _walk(folder: Path, refused: list[Diagnostic]) -> tuple[list[str], list[str]]:
    """The ``.lore`` and YAML files under ``folder``, leaving out hidden ones (``.github/``,
    ``.pre-commit-config.yaml``, virtual environments) and ``schema`` folders: YAML there is no
    scenario. The folder must lie inside the project root (C023 if it leads out: ``rules ->
    ../outside`` or a link to ``/`` walks nothing); linked folders are not followed, and a link
    inside it that leads out of the folder is not read (``refused`` gets a C019 for it)."""
    shown_folder = display_path(folder, resolve=False)
    if confine(folder, command_line_root(folder)) is None:
        refused.append(_outside_root(str(folder)))
        return [], []
    try:  # inside the project, and each file inside the folder checked
        walked = walk(folder, Roots.of([folder]), lambda name: name.endswith((".lore", ".yaml", ".yml")),
                      prune=lambda name: name.startswith(".") or name == "schema")
    except OSError:
        return [], []
    for f in walked.refused:
        shown = display_path(Path(f), resolve=False)
        refused.append(error(codes.PACK_OUTSIDE_ROOTS, f"'{shown}' is a link that leads outside "
                             f"'{shown_folder}'; it is not read", shown, Span(),
                             "check the file it links to directly, or copy it into the folder"))
    return [f for f in walked.files if f.endswith(".lore")], [f for f in walked.files if not f.endswith(".lore")]


def _outside_root(path: str) -> Diagnostic:
    """C023: a path named to check that leads, links followed, outside the project root."""
    return error(codes.PATH_OUTSIDE_ROOT, f"'{path}' leads outside the project root; it is not read", path, Span(),
                 "check it from the folder it belongs to, name that folder with --root, or copy the files "
                 "into the project instead of linking them")


class _Looks:
    """The look files one ``check`` validates: each once, however many packs, scenarios and
    folders lead to it (hexlore/look.py). A look is checked with the packs it draws (issue 30):
    ``render`` and ``run --html`` read it, so a bad one must fail ``check`` first."""

    def __init__(self) -> None:
        self.seen: set[Path] = set()
        self.diagnostics: list[Diagnostic] = []
        self.sources: dict[str, Source] = {}

    def check(self, path: Path, shown: str | None = None) -> None:
        from .dsl.confine import Roots, read_confined
        from .look import check_look_file

        try:
            real = path.resolve()
        except (OSError, RuntimeError, ValueError):
            real = path
        if real in self.seen:
            return
        self.seen.add(real)
        shown = shown or display_path(path, resolve=False)  # a link as itself, never its target
        _, found = check_look_file(path, shown)
        self.diagnostics += found
        folder = Roots.of([Path(os.path.abspath(path)).parent])  # a look is its pack folder's own
        text = read_confined(path, folder, "look")[0] if found else None
        if text is not None:  # the lines the diagnostics quote
            self.sources[shown] = Source(shown, text)

    def of_rules(self, rules) -> None:
        """The looks ``rules`` would be drawn with."""
        from .look import look_files

        if rules is not None:
            for path in look_files(rules):
                self.check(path)


def check(paths: list[str]) -> tuple[list[Diagnostic], dict[str, Source]]:
    """Check rule files and scenarios; every problem found, sorted by file, line, column."""
    from .collector import fewer_collections

    with fewer_collections():  # a quarter of the time went to the cyclic collector (collector.py)
        return _check(paths)


def _check(paths: list[str]) -> tuple[list[Diagnostic], dict[str, Source]]:
    from .look import LOOK_FILE

    lore: list[str] = []
    scenarios: list[str] = []
    diagnostics: list[Diagnostic] = []
    for p in paths:
        path = Path(p)
        if is_dir(path):
            found_lore, found_yaml = _walk(path, diagnostics)
            lore += found_lore
            scenarios += found_yaml
        elif (os.path.lexists(path) and path.suffix in (".lore", ".yaml", ".yml")
              and confine(path, command_line_root(path)) is None):  # a link out, even one that dangles
            diagnostics.append(_outside_root(p))
        elif path.suffix == ".lore" and is_file(path):
            lore.append(str(path))
        elif path.suffix in (".yaml", ".yml") and is_file(path):
            scenarios.append(str(path))
        else:
            diagnostics.append(error(codes.CANNOT_READ, f"'{p}' is not a .lore file, a scenario or a directory",
                                     p, Span(), "pass rule files (.lore), scenarios (.yaml) or folders"))
    sources: dict[str, Source] = {}
    # Each folder of packs is its own rule set (a rule set has one game): packs of
    # unrelated games checked together must not see each other's games and fields.
    folders: dict[str, list[str]] = {}
    for f in lore:
        folders.setdefault(str(Path(f).parent), []).append(f)
    looks = _Looks()
    for s in scenarios:  # look files named or walked: shown as found
        if Path(s).name == LOOK_FILE:  # how a pack is drawn (hexlore/look.py), not a scenario
            looks.check(Path(s))
    for group in folders.values():
        rules = compile_packs(group)
        diagnostics.extend(rules.diagnostics)
        sources.update(rules.sources)
        looks.of_rules(rules)
    for s in scenarios:
        if Path(s).name == LOOK_FILE:
            continue
        kind = yaml_kind(s)
        if kind == "scenario":
            loaded = open_scenario(s)
            found, more = loaded.diagnostics, loaded.sources
            looks.of_rules(loaded.rules)
        else:  # campaign files and sheets (docs/campaigns.md)
            from . import campaign as campaigns

            found, more = (campaigns.check_campaign if kind == "campaign" else campaigns.check_sheet)(s)
        sources.update(more)
        # a scenario's packs may lie outside the checked paths: keep their findings (deduplicated below)
        diagnostics.extend(found)
    sources.update(looks.sources)
    return unique_diagnostics(diagnostics + looks.diagnostics), sources


class PositionRecorder(Protocol):
    """What :func:`run` asks of a recorder (``Recorder``, hexlore/replay/record.py): a protocol,
    so that the API does not import the replay page built on it (no import cycle)."""

    inner: IO[str] | None

    def watch(self, state: GameState, events: EventLog | None = None) -> None: ...

    def write(self, text: str, /) -> object: ...

    def finish(self) -> None: ...


def run(name: str | Loaded, seed: int | None = None, log_file=None, max_rounds: int | None = None,
        policies: dict[str, str | Policy] | None = None,
        watch: Callable[[Game], None] | None = None,
        recorder: PositionRecorder | None = None, resumable: bool = False
        ) -> tuple[GameResult | None, list[Diagnostic], dict]:
    """Play a scenario (a name, or one :func:`open_scenario` loaded) to the end; returns the
    result (or None) and the diagnostics. ``resumable``: in the rules' resumable form where
    they have one (the same log; a player asked a decision can then fork the game: odds).

    Errors inside the scenario's ``tests:`` do not stop the game (it never reads them): they
    come back as warnings beside the result (:meth:`Loaded.play_warnings`). ``watch`` is
    handed the game before it starts (a terminal player's view of the position reads its
    state); it must not change the game. ``recorder`` (hexlore/replay/record.py) notes the board
    after every entry for a replay page: it takes the log's lines and passes them to ``log_file``."""
    from .runtime.engine.game import Game, RuntimeRuleError

    loaded = open_scenario(name) if isinstance(name, str) else name
    if not loaded.playable:
        return None, loaded.diagnostics, loaded.sources
    warnings = loaded.play_warnings()
    scenario, rules = loaded.parts()
    try:
        if recorder is not None:
            recorder.inner = log_file
        game = Game(rules, scenario, seed=seed, policies=policies,
                    log_file=recorder if recorder is not None else log_file)
        if watch is not None:
            watch(game)
        resumable = resumable and game.compiled.not_resumable is None
        if recorder is None:
            return game.play(max_rounds, resumable=resumable), warnings, loaded.sources
        recorder.watch(game.state, game.events)
        result = game.play(max_rounds, resumable=resumable)
        recorder.finish()
        return result, warnings, loaded.sources
    except RuntimeRuleError as exc:
        return None, warnings + [exc.diagnostic], loaded.sources


def render(name: str, seed: int | None = None, rounds: int = 0,
           policies: dict[str, str | Policy] | None = None) -> tuple[str | None, list[Diagnostic], dict]:
    """The position of a scenario as SVG text (hexlore/render.py): as the scenario sets it out,
    or after ``rounds`` rounds played (the game's setup first) with the seed and policies, in
    the packs' look (hexlore/look.py; a bad look file gives its diagnostics, as ``check`` does)."""
    from .look import LookError, look_of
    from .render import board_svg
    from .runtime.analysis.output_budget import board_problem
    from .runtime.engine.game import Game, RuntimeRuleError

    loaded = open_scenario(name)
    if not loaded.playable:  # a problem inside the tests does not change the position
        return None, loaded.diagnostics, loaded.sources
    scenario, rules = loaded.parts()
    too_large = board_problem(scenario, Severity.ERROR)
    if too_large is not None:  # refused before a round is played or a byte drawn
        return None, [too_large], loaded.sources
    try:  # before playing: a bad look is found in the time it takes to read it
        look = look_of(rules)
    except LookError as exc:
        return None, exc.diagnostics, {**loaded.sources, **exc.sources}
    try:
        game = Game(rules, scenario, seed=seed, policies=policies)
        if rounds > 0:
            game.play(rounds)
    except RuntimeRuleError as exc:
        return None, [exc.diagnostic], loaded.sources
    title = scenario.name + (f", after round {game.state.game['round']}" if rounds > 0 else "")
    return board_svg(game.state, title, look=look), loaded.play_warnings(), loaded.sources


def test(paths: list[str], name: str | None = None) -> tuple[list[TestOutcome], list[Diagnostic], dict]:
    """Run the ``tests:`` of every scenario under the given paths (with ``name``, only the tests
    whose name contains it, in any case).

    A test with a problem of its own (an error inside its YAML) fails with it and the others
    run. When the scenario itself has errors (outside ``tests:``), none of its tests can run:
    each fails as "not run", and the errors come back with the diagnostics.
    """
    files: list[str] = []
    diagnostics: list[Diagnostic] = []  # folders and files leading outside the project first (C023, C019)
    for p in paths:
        path = Path(p)
        if is_dir(path):
            files += _walk(path, diagnostics)[1]
        else:
            files.append(p)
    outcomes: list[TestOutcome] = []
    sources: dict = {}
    for f in files:
        if yaml_kind(f) != "scenario":
            continue  # campaign files and sheets hold no tests
        loaded = open_scenario(f)
        sources.update(loaded.sources)
        found, problems = _scenario_tests(loaded, name)
        outcomes += found
        diagnostics += problems
    return outcomes, diagnostics, sources


def _scenario_tests(loaded: Loaded, name: str | None) -> tuple[list[TestOutcome], list[Diagnostic]]:
    """The outcomes of one scenario's (selected) tests, and the diagnostics to show with them."""
    from .runtime.analysis.scenario_tests import TestOutcome, run_test

    scenario = loaded.scenario
    wanted = name.casefold() if name is not None else None
    tests = [t for t in (scenario.tests if scenario is not None else [])
             if wanted is None or wanted in t.name.casefold()]
    problems = loaded.test_problems()
    chosen = {t.index for t in tests} | ({-1} | set(problems) if wanted is None else set())
    shown = sorted((d for d in loaded.diagnostics if loaded.test_of(d) is None or loaded.test_of(d) in chosen),
                   key=Diagnostic.sort_key)
    if scenario is None:  # nothing could be read: no tests to report either
        return [], shown
    if not loaded.playable:
        errors = sum(d.is_error and loaded.test_of(d) is None for d in loaded.diagnostics)
        reason = f"not run: the scenario has {errors} error(s) outside its tests (above)"
        return [TestOutcome(scenario.path, t.name, False, [reason], span=t.span) for t in tests], shown
    shown = [d for d in shown if d.is_error]  # a playable scenario: only its tests' errors (check shows the rest)
    _, rules = loaded.parts()
    outcomes = []
    built = {t.index for t in scenario.tests}
    for t in tests:
        if t.index in problems:
            outcomes.append(TestOutcome(scenario.path, t.name, False, [_failure(d) for d in problems[t.index]],
                                        span=t.span))
        else:
            outcomes.append(run_test(rules, scenario, t))
    if wanted is None:  # tests whose YAML is too broken to be read: failed, named by their place
        for i in sorted(i for i in problems if i >= 0 and i not in built):
            outcomes.append(TestOutcome(scenario.path, f"test {i + 1} of tests:", False,
                                        [_failure(d) for d in problems[i]], span=scenario.span_of("tests", i)))
        outcomes.sort(key=lambda o: (o.span.line, o.span.column))
    return outcomes, shown


def _failure(d: Diagnostic) -> str:
    return f"{d.severity.value}[{d.code}] at line {d.span.line}: {d.message}"


# ---------------------------------------------------------------- odds and sweeps
__all__ += ["open_variant", "odds", "sweep"]


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
    from .runtime.analysis import odds as engine
    from .runtime.engine.game import RuntimeRuleError

    loaded = open_scenario(scenario)
    if not loaded.playable:
        return None, loaded.diagnostics, loaded.sources
    played, rules = loaded.parts()
    try:
        g, acts, dec = {}, action, {}
        if test is not None:
            found = [t for t in played.tests if t.name == test]
            if not found:
                names = [t.name for t in played.tests]
                raise engine.OddsError(codes.BAD_ACTION, f"the scenario has no test named {test!r}",
                                       f"tests: {', '.join(names) or 'none'}", "--test")
            t = found[0]
            broken = loaded.test_problems().get(t.index)
            if broken:  # problems of other tests do not matter here, this one's do
                return None, broken, loaded.sources
            if not t.actions and not acts:
                raise engine.OddsError(codes.BAD_ACTION, f"test {test!r} has no 'do:': it does nothing to "
                                       "measure", "pass the action with --action", "--test")
            # the test's dice and scripted decisions were written for one throw: not reused
            g = {uid: dict(v) for uid, v in t.given.items()}
            acts = acts or [{"call": a.call, "with": dict(a.args)} for a in t.actions]
        if acts is None:
            raise engine.OddsError(codes.BAD_ACTION, "no action given", "pass action= or test=", "--action")
        actions = engine.parse_actions(acts) if isinstance(acts, str) else engine.actions_from(acts)
        g.update(engine.parse_mapping(given, "--given") if isinstance(given, str) else (given or {}))
        dec.update(engine.parse_mapping(decisions, "--decisions") if isinstance(decisions, str) else
                   (decisions or {}))
        specs = [outcome] if isinstance(outcome, str) else list(outcome or [])
        question = engine.Question(rules, played, actions, g, dec, policy, specs)
        if samples:
            return engine.sample_odds(question, samples, seed), [], loaded.sources
        return engine.enumerate_odds(question, budget), [], loaded.sources
    except engine.OddsError as exc:
        return None, [exc.diagnostic], loaded.sources
    except RuntimeRuleError as exc:
        return None, [exc.diagnostic], loaded.sources


def sweep(scenario: str, games: int, workers: int = 1, backend: str = "local", seed: int = 0,
          address: str | None = None, vs: list[str] | str | None = None, max_rounds: int | None = None,
          progress=None, policies: dict[str, str] | None = None):
    """Play ``games`` seeded games and summarise them; returns ``(report | None, diagnostics, sources)``.

    Game ``i`` uses a seed derived from ``(seed, i)`` only, so the report is the same for any
    ``workers`` and ``backend`` (``"local"`` process pool, or ``"ray"``: a local Ray instance,
    or the cluster at ``address``). ``vs`` names a variant: ``.lore`` packs added after the
    scenario's own (typically ``override`` of a unit or card), or another scenario file; the
    same seeds are played on it and the report gains a paired ``comparison``. ``policies``:
    who plays each side instead of the scenario's players (``{"north": "mcts:200"}``; the
    side ``all`` stands for every side). ``progress`` is
    called with the number of games finished after each chunk. ``timing`` says where the
    wall-clock time went: ``backend_seconds`` for Ray's own start-up and shutdown (0 locally),
    ``sweep_seconds`` for the rest (workers starting and compiling once each, the games); it is
    the one part of the report that differs from run to run. A sweep plays at most
    ``MAX_SWEEP_GAMES`` games (hexlore/dsl/limits.py; ``S129`` beyond).
    """
    from . import sweep_backends as backends
    from .runtime.analysis import sweep as stats
    from .runtime.analysis.output_budget import sweep_problem

    too_many = sweep_problem(games)
    if too_many is not None:  # refused before a scenario is opened or a seed derived
        return None, [too_many], {}
    loaded = open_scenario(scenario)
    if not loaded.playable:  # problems inside the tests do not stop the games
        return None, loaded.diagnostics, loaded.sources
    played, _ = loaded.parts()
    path = played.path
    problem = _bad_players(policies, [s.name for s in played.sides])
    if problem is not None:
        return None, [error(codes.BAD_PLAYERS, problem, "--policy", Span(),
                            "write SIDE=POLICY with a side of the scenario (or 'all') and one of random, "
                            "greedy, first, mcts, mcts:N, rollout, rollout:N")], loaded.sources
    policies = _every_side(policies, [s.name for s in played.sides])
    jobs = [backends.make_job(path, loaded.sources, [], seed, max_rounds, policies)]
    variant = None
    if vs:
        names = [vs] if isinstance(vs, str) else list(vs)
        if len(names) == 1 and not names[0].endswith(".lore"):
            variant = open_scenario(names[0])
            vpath, extra = variant.scenario.path if variant.scenario else names[0], []
        else:
            variant = open_variant(path, names)
            vpath, extra = path, names
        if not variant.playable:
            return None, variant.diagnostics, {**loaded.sources, **variant.sources}
        jobs.append(backends.make_job(vpath, variant.sources, extra, seed, max_rounds,
                                      _every_side(policies, [s.name for s in variant.parts()[0].sides])))
    timing = backends.SweepTiming()
    try:
        results = backends.run_jobs(jobs, games, workers, backend, address, progress, timing)
    except backends.SweepSetupError as exc:
        return None, [error(codes.BACKEND_CANNOT_START, str(exc), "--backend", Span(), "see docs/odds.md, 'Sweeps'")], loaded.sources
    sides = [s.name for s in played.sides]
    report = {"scenario": path, "seed": seed, "backend": backend, "workers": workers, "timing": timing.to_json(),
              **stats.summarize(results[0], sides, stats.fielded(played))}
    if variant is not None:
        vplayed, _ = variant.parts()
        vsides = [s.name for s in vplayed.sides]
        report["variant"] = {"name": vs if isinstance(vs, str) else list(vs or ()),
                             **stats.summarize(results[1], vsides, stats.fielded(vplayed))}
        report["comparison"] = stats.compare(results[0], results[1], sides)
    return report, [], loaded.sources


def _bad_players(policies: dict[str, str] | None, sides: list[str]) -> str | None:
    """What is wrong with a sweep's players, if anything: a side the scenario lacks, a player
    that cannot play unattended (a human), a search budget out of range."""
    from .runtime.engine.policies import POLICY_NAMES
    from .runtime.engine.search import parse_search

    for side, name in (policies or {}).items():
        if side != "all" and side not in sides:
            return f"'{side}' is not a side of this scenario (its sides: {', '.join(sides)}; 'all' for every side)"
        if name not in POLICY_NAMES and parse_search(name) is None:
            return f"'{name}' cannot play a sweep's games (a sweep plays unattended)"
    return None


def _every_side(policies: dict[str, str] | None, sides: list[str]) -> dict[str, str]:
    """``policies`` with ``all`` given to every side that has no player of its own."""
    policies = dict(policies or {})
    everyone = policies.pop("all", None)
    if everyone is not None:
        for side in sides:
            policies.setdefault(side, everyone)
    return policies


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
    from . import campaign as campaigns

    return campaigns.play_campaign(path, seed=seed, adventure=adventure, log_file=log_file, on_result=on_result)
