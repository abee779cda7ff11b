"""What the editor shows, compiled as ``hexlore check`` compiles it.

A ``.lore`` file is compiled with every ``.lore`` file of its folder, as ``hexlore check
FOLDER`` groups them (a folder of packs is one rule set), with the editor's unsaved buffers
read instead of the files (:func:`hexlore.compiler.compile_packs`'s ``overlay``). The
diagnostics are therefore those of ``check``: same codes, messages, hints and spans.

Keystrokes are cheap to recompile: the parser caches by text, so only the edited file is
parsed again; the rest (naming, typing, the graph) runs over the whole rule set, which takes
tens of milliseconds for the bundled packs (benchmarks/bench_lsp.py measures it).

A scenario's YAML is checked from the editor's text, as ``hexlore check`` checks the file
(:func:`hexlore.api.open_scenario` with ``text``), against its packs as saved; campaign files
and sheets are checked as saved.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..compiler import RuleSet, compile_packs
from ..dsl import ast
from ..dsl.confine import Roots, command_line_root, confine, read_confined
from ..diagnostics import Diagnostic, Span, codes, error
from ..dsl.parser import parse_source


def absolute(shown: str) -> str:
    """A path as diagnostics show it (relative to the working directory when inside it) made
    absolute and resolved, the form the server keys documents by."""
    return str(Path(shown).resolve())


@dataclass
class Analysis:
    """One compile: the rule set, its parsed modules and its diagnostics, by absolute path."""

    rules: RuleSet | None
    modules: dict[str, ast.Module] = field(default_factory=dict)
    diagnostics: dict[str, list[Diagnostic]] = field(default_factory=dict)
    #: a scenario's board, as its YAML names hexes (for completion)
    hexes: tuple[str, ...] = ()


class Documents:
    """The open documents' texts and the compiles made of them.

    A compile is kept per folder (a scenario's per file) until a document changes: completion,
    hover and definition right after a diagnostic pass reuse its rule set instead of compiling
    again. Any change drops every kept compile: a pack is used by other folders' packs and by
    scenarios, which must not answer from a rule set made of its old text.
    """

    def __init__(self) -> None:
        self.texts: dict[str, str] = {}
        self._compiled: dict[str, Analysis] = {}
        #: counts the changes: a compile that started before a change (on a worker thread,
        #: lsp/scheduling.py) must not keep its result for texts that are gone
        self.generation = 0
        #: the workspace folders (and the trusted roots): no file outside them is read; None
        #: (no workspace) confines each document to the folder it is written in
        self.roots: Roots | None = None
        #: documents (resolved paths) that lead outside the roots: never read nor compiled
        self.outside: set[str] = set()

    def roots_of(self, path: str) -> Roots:
        return self.roots if self.roots is not None else command_line_root(path)

    def admit(self, written: str, path: str) -> None:
        """Note whether the document ``written`` (as its URI names it; ``path`` resolved) lies
        inside the roots: a linked file leading out of the workspace is not compiled (C023)."""
        if confine(written, self.roots_of(written)) is None:
            self.outside.add(path)
        else:
            self.outside.discard(path)

    def set(self, path: str, text: str) -> None:
        self.texts[path] = text
        self.generation += 1
        self._compiled.clear()

    def close(self, path: str) -> None:
        self.texts.pop(path, None)
        self.generation += 1
        self._compiled.clear()

    def key(self, path: str) -> str:
        """What a compile of ``path`` is kept under, with the texts' generation: a ``.lore``
        file is compiled with its folder, a scenario alone."""
        return f"{Path(path).parent if path.endswith('.lore') else path}@{self.generation}"

    def _keep(self, key: str, generation: int, analysis: Analysis) -> Analysis:
        if generation == self.generation:
            self._compiled[key] = analysis
        return analysis

    def analyses(self) -> list[Analysis]:
        """The compiles kept (for workspace symbols: the rule sets the editor has open)."""
        return list(self._compiled.copy().values())

    def text(self, path: str) -> str:
        """The editor's text of ``path``, else the saved file's ('' when unreadable)."""
        if path in self.texts:
            return self.texts[path]
        text, _ = read_confined(path, self.roots_of(path))
        return text or ""

    def lore(self, path: str) -> Analysis:
        """The compile of the folder of ``path`` (a ``.lore`` file), with the unsaved buffers."""
        if path in self.outside:
            return _refused(path)
        folder, generation = str(Path(path).parent), self.generation
        kept = self._compiled.get(folder)
        if kept is not None:
            return kept
        roots = self.roots_of(path)
        files = sorted({str(f.resolve()) for f in Path(folder).glob("*.lore")
                        if f.is_file() and confine(f, roots) is not None} | {path})
        rules = compile_packs(files, overlay=dict(self.texts))  # a copy: the loop may change texts meanwhile
        analysis = Analysis(rules, modules_of(rules))
        for d in rules.diagnostics:
            analysis.diagnostics.setdefault(_file_of(d, path), []).append(d)
        return self._keep(folder, generation, analysis)

    def scenario(self, path: str) -> Analysis:
        """``hexlore check`` of a scenario (its unsaved text), campaign or sheet (as saved), with
        the scenario's rule set and board when it has them (for definitions and completion)."""
        from .. import api
        from ..runtime.scenarios.campaign_files import file_kind

        if path in self.outside:
            return _refused(path)
        generation = self.generation
        kept = self._compiled.get(path)
        if kept is not None:
            return kept
        rules = None
        hexes: tuple[str, ...] = ()
        text = self.text(path)
        if file_kind(text) != "scenario":
            diagnostics, _ = api.check([path])
        else:
            loaded = api.open_scenario(path, text=text)
            diagnostics = api.unique_diagnostics(loaded.diagnostics)
            rules = loaded.rules
            if loaded.scenario is not None:
                board = loaded.scenario.board
                hexes = tuple(board.label(h) for h in sorted(board, key=lambda h: (h.r, h.q)))
        analysis = Analysis(rules, modules_of(rules) if rules is not None else {}, hexes=hexes)
        for d in diagnostics:
            analysis.diagnostics.setdefault(_file_of(d, path), []).append(d)
        return self._keep(path, generation, analysis)


def _refused(path: str) -> Analysis:
    """A document outside the workspace: one C023 on it, nothing read or compiled."""
    return Analysis(None, diagnostics={path: [error(
        codes.PATH_OUTSIDE_ROOT, "this file leads outside the workspace folders; it is not read nor checked", path, Span(),
        "open the folder it belongs to as a workspace folder, or copy it into the workspace")]})


def modules_of(rules: RuleSet) -> dict[str, ast.Module]:
    """The parsed modules of a rule set's packs (the parser's cache answers: no parse again)."""
    return {absolute(shown): parse_source(source.text, shown).module
            for shown, source in rules.sources.items() if shown.endswith(".lore")}


def _file_of(d: Diagnostic, requested: str) -> str:
    """The file a diagnostic belongs to; one about no file (the command line) goes to the
    document that was checked."""
    if d.file.startswith("<"):
        return requested
    return absolute(d.file)
