"""Opening scenarios with their packs: where packs are found, the compile cache, variants.

What the public API (:mod:`hexlore.api`), campaigns and sweep workers share; kept apart from
the API so that those modules import it without importing each other.

The runtime (scenario files with their JSON Schemas, games, the checks against the packs) is
imported by the functions that open scenarios, not with this module: ``hexlore check`` of a
pack goes through here and needs none of it (issue 19).
"""

from __future__ import annotations

import os
import re
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .compiler import RuleSet, compile_packs
from .compiler.packs import PackLoader, bundled_rules_root, display_path, inside, resolved
from .dsl.confine import (PATH_VARIABLE, Roots, command_line_root, confine, declared_folders, project_root,
                          read_confined, trusted_roots)
from .diagnostics import codes, Diagnostic, Severity, Source, Span, did_you_mean, error
from .dsl.files import is_dir, is_file

if TYPE_CHECKING:
    from .runtime.scenarios.loader import Scenario


__all__ = ["PATH_VARIABLE"]  # HEXLORE_PATH (hexlore.dsl.confine), re-exported for the API
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

    @property
    def playable(self) -> bool:
        """Whether the game can be played: no error outside the scenario's ``tests:``.

        A game never reads the tests, so a problem inside them (a test that moves a unit onto
        a hex another holds once the scenario gained a unit there) does not stop ``run``,
        ``render``, ``odds`` or ``sweep``; ``check`` and ``test`` report it as an error.
        """
        return self.scenario is not None and self.rules is not None and \
            not any(d.is_error and self.test_of(d) is None for d in self.diagnostics)

    def parts(self) -> tuple[Scenario, RuleSet]:
        """The scenario and its rules, for a caller that checked ``ok`` or ``playable`` first
        (which say both are there, in a way a type checker cannot follow)."""
        if self.scenario is None or self.rules is None:
            raise ValueError("the scenario could not be loaded: check Loaded.playable before playing it")
        return self.scenario, self.rules

    def test_of(self, d: Diagnostic) -> int | None:
        """The index of the test whose YAML holds ``d`` (-1: the ``tests:`` section itself, not
        inside one test), or None when ``d`` lies outside ``tests:`` or in another file."""
        sc = self.scenario
        if sc is None or d.file != sc.path or ("tests",) not in sc.spans or d.span == Span():
            return None
        start = (d.span.line, d.span.column)

        def inside(span: Span) -> bool:
            return (span.line, span.column) <= start < (span.end_line, span.end_column)

        if not inside(sc.spans[("tests",)]):
            return None
        i = 0
        while ("tests", i) in sc.spans:
            if inside(sc.spans[("tests", i)]):
                return i
            i += 1
        return -1

    def test_problems(self) -> dict[int, list[Diagnostic]]:
        """The errors inside ``tests:``, by test index (-1: the section itself)."""
        out: dict[int, list[Diagnostic]] = {}
        for d in self.diagnostics:
            i = self.test_of(d) if d.is_error else None
            if i is not None:
                out.setdefault(i, []).append(d)
        return out

    def play_warnings(self) -> list[Diagnostic]:
        """The errors inside ``tests:`` as warnings, for commands that play the scenario without
        its tests: they are said, and the game goes on."""
        return [Diagnostic(Severity.WARNING, d.code, d.message, d.file, d.span,
                           (f"{d.hint}; " if d.hint else "") + "this test is not played by a game "
                           "('hexlore test' reports it as an error)")
                for problems in self.test_problems().values() for d in problems]


def unique_diagnostics(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """Sorted by file, line, column; one of each (file, place, code, message), the first found.

    For reports that gather several loads of the same file: ``check`` compiles a pack in its
    folder's rule set and again in each scenario's that uses it, a campaign opens a scenario
    for each adventure that plays it, and each finds the same problems. One load of one
    scenario reports each problem once (:func:`open_scenario` only sorts).
    """
    unique: dict[tuple, Diagnostic] = {}
    for d in diagnostics:
        unique.setdefault((d.file, d.span, d.code, d.message), d)
    return sorted(unique.values(), key=Diagnostic.sort_key)


def declared_search_paths() -> list[Path]:
    """The folders of ``HEXLORE_PATH`` (``--packs-path`` adds to it), in order."""
    return declared_folders()


def project_rules(scenario_path: Path) -> tuple[Path | None, Path | None]:
    """(the project's ``rules/`` folder, a ``rules/`` refused): the nearest ``rules/`` above the
    scenario's folder, used only when it lies, links followed, inside the project: ``--root``
    when one is given, else the folder that holds it. A ``rules -> ../outside`` (or a link
    to ``/``) committed in a repository is refused (S120) instead of searched."""
    try:
        parents = Path(os.path.abspath(scenario_path)).parents
    except (OSError, ValueError):
        return None, None
    for parent in parents:
        rules = parent / "rules"
        if is_dir(rules):
            root = project_root()  # --root names the project; else the folder holding rules/ is it
            project = Roots.of([root]) + trusted_roots() if root is not None else Roots.of([parent])
            if confine(rules, project) is None:
                return None, rules
            return rules, None
    return None, None


def search_paths_for(scenario_path: Path) -> list[Path]:
    """Where a scenario's packs are looked for: its own folder, the nearest ``rules/`` folder
    above it (a project's own packs, when it stays inside the project: :func:`project_rules`),
    the declared search paths, the bundled rules."""
    paths = [scenario_path.parent]
    rules, _ = project_rules(scenario_path)
    if rules is not None:
        paths.append(rules)
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
            return (codes.PACK_OUTSIDE_TREE, f"pack file '{written}' lies outside the scenario's folder and the "
                    "search paths; it is not read",
                    "put the pack beside the scenario (or in a folder below it), or add its folder to "
                    "--packs-path or HEXLORE_PATH")
        return None
    if not _PACK_NAME.fullmatch(written):
        return (codes.NOT_A_PACK, f"'{written}' is neither a pack name nor a .lore file",
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
        problems.append(error(codes.UNKNOWN_PACK, message, scenario.path, scenario.span_of("packs", i), hint))
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
            text, _ = read_confined(path, command_line_root(path))
            if text != source.text:
                return False
        return True


#: The cache ``open_scenario`` uses; ``COMPILE_CACHE.clear()`` forgets every entry.
COMPILE_CACHE = CompileCache()


def open_scenario(name: str, text: str | None = None) -> Loaded:
    """Load a scenario and compile its packs, and check the one against the other.

    Every problem is reported in one go: the scenario's own, then (when its board and packs
    are usable and the packs compile) those that need the packs, even if the first found some.
    ``text``, when given, is read instead of the file's (an editor's unsaved buffer: the
    language server checks what the designer sees); the packs are read as saved.
    """
    from .runtime.analysis.scenario_checks import check_against_rules
    from .runtime.scenarios.campaign_files import file_kind
    from .runtime.scenarios.loader import load_scenario_text
    from .runtime.scenarios.located_yaml import read_input

    path = resolve_scenario(name)
    if path is None:
        return Loaded(None, None, [error(codes.CANNOT_READ, f"no scenario file '{name}'", name, Span(),
                                         f"bundled scenarios are in {bundled_scenarios_root()}")])
    edited = text is not None  # an editor's buffer: quoted diagnostics show the file as saved
    if text is None:  # the file is read once: its kind, its YAML and the quoted lines come from this text
        text, unreadable = read_input(path, "scenario")
        if text is None:
            return Loaded(None, None, unreadable)
    kind = file_kind(text)
    if kind != "scenario":  # a campaign file or a sheet given where a scenario is wanted
        hint = ("play a campaign with 'hexlore campaign FILE'" if kind == "campaign" else
                "a sheet is played through the campaign that names it: 'hexlore campaign CAMPAIGN'")
        loaded = Loaded(None, None, [error(codes.NOT_A_SCENARIO, f"this is a {kind} file, not a scenario", str(path),
                                           Span(), hint)])
        _keep_source(loaded, path, None if edited else text)
        return loaded
    scenario, diags = load_scenario_text(text, str(path), partial=True)
    loaded = Loaded(scenario, None, list(diags))
    if scenario is None:
        _keep_source(loaded, path, None if edited else text)
        return loaded
    loaded.sources[scenario.path] = scenario.source
    _, refused_rules = project_rules(path)
    if refused_rules is not None:
        loaded.diagnostics.append(error(
            codes.RULES_LINK_OUTSIDE, f"the project's rules folder '{display_path(refused_rules, resolve=False)}' leads outside the project; "
            "no pack is looked up in it", scenario.path, scenario.span_of("packs"),
            "make 'rules' a folder of the project instead of a link, or name the folder it links to "
            "with --packs-path"))
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
    loaded.diagnostics.sort(key=Diagnostic.sort_key)  # each stage reports its own problems: none twice
    return loaded


def _keep_source(loaded: Loaded, path: Path, text: str | None = None) -> None:
    """The scenario's text for quoting its diagnostics, when it can be read (inside the project)."""
    if text is None:
        text, _ = read_confined(path, command_line_root(path))
    if text is not None:
        loaded.sources[str(path)] = Source(str(path), text)


def open_variant(name: str, extra_packs: list[str] | tuple[str, ...] = ()) -> Loaded:
    """Load a scenario with more packs after its own (a variant: packs that ``override``)."""
    from .runtime.engine.setup import check_set_up

    loaded = open_scenario(name)
    if not extra_packs or not loaded.playable:
        return loaded
    scenario, _ = loaded.parts()
    path = Path(scenario.path)
    outside = [p for p in extra_packs if confine(p, command_line_root(p)) is None]
    if outside:  # a variant that is a link leading out of the project is not read
        loaded.diagnostics.append(error(codes.PATH_OUTSIDE_ROOT, f"'{outside[0]}' leads outside the project root; it is not read",
                                        outside[0], Span(), "copy the variant into the project, or name its "
                                        "folder with --root"))
        return loaded
    missing = [p for p in extra_packs if not Path(p).is_file()]
    if missing:
        loaded.diagnostics.append(error(codes.CANNOT_READ, f"no pack file '{missing[0]}'", missing[0], Span(),
                                        "a variant is a .lore pack that overrides definitions"))
        return loaded
    requests = [str(path.parent / p) if p.endswith(".lore") else p for p in scenario.packs]
    rules = compile_packs(requests + [str(Path(p).resolve()) for p in extra_packs], search_paths_for(path))
    loaded.rules = rules
    loaded.sources.update(rules.sources)
    loaded.diagnostics = list(rules.diagnostics)  # the base compiled cleanly: its notes are superseded
    if rules.ok:  # the scenario set up against the variant's packs, as a game would (no game needed)
        loaded.diagnostics.extend(check_set_up(rules, scenario).problems)
    return loaded


def yaml_kind(path: str) -> str:
    """``scenario``, ``campaign`` or ``sheet``: what a YAML file is, from its top-level format key."""
    from .runtime.scenarios.campaign_files import file_kind

    text, _ = read_confined(path, command_line_root(path))
    if text is None:
        return "scenario"  # the scenario loader reports why it cannot be read
    return file_kind(text)
