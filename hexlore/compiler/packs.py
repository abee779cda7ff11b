"""Find, parse and order rules packs.

A pack is one ``.lore`` file that starts with ``pack a.b``; it lives at ``a/b.lore`` under
a rules root. Naming a directory (``battlelore``) means every pack inside it. ``use``
pulls in other packs; they are ordered dependencies-first, so a later pack may
``override`` what an earlier one declared, and every pack sees only what it uses.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..dsl import ast
from ..dsl.confine import Roots, Walked, command_line_root, confine, read_confined, walk
from ..diagnostics import codes, Diagnostic, Source, Span, did_you_mean, error
from ..dsl.files import is_dir, is_file
from ..dsl.parser import parse_source



def inside(path: Path, folders: list[Path]) -> bool:
    """Whether ``path`` (resolved: links followed) lies in one of ``folders`` (resolved too):
    :func:`hexlore.dsl.confine.confine`, the one confinement, asked."""
    return confine(path, Roots(tuple(folders))) is not None


def resolved(folders: list[Path]) -> list[Path]:
    return list(Roots.of(folders).folders)


def bundled_rules_root() -> Path:
    """The rules shipped with hexlore: inside the wheel, or at the top of a source checkout."""
    here = Path(__file__).resolve().parent.parent
    for candidate in (here / "rules", here.parent / "rules"):
        if candidate.is_dir():
            return candidate
    return here / "rules"


@dataclass
class LoadedPacks:
    modules: list[ast.Module] = field(default_factory=list)  # dependencies first
    sources: dict[str, Source] = field(default_factory=dict)
    visible: dict[str, set[str]] = field(default_factory=dict)  # pack -> packs it may see
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: names mentioned in text that syntax-error recovery dropped: later stages do not report
    #: them as undefined or unused, since the syntax error is the real problem
    skipped: set[str] = field(default_factory=set)
    #: pack -> its aliases (``use base.core as bc``: bc -> base.core)
    aliases: dict[str, dict[str, str]] = field(default_factory=dict)
    #: where packs were looked for (to tell which pack declares a name no loaded pack has)
    roots: list[Path] = field(default_factory=list)

    @property
    def pack_names(self) -> list[str]:
        return [pack_name(m) for m in self.modules]


def pack_name(module: ast.Module) -> str:
    return module.pack.name if module.pack else Path(module.path).stem


class PackLoader:
    """Finds packs by name under the rules roots and loads them with what they ``use``.

    A pack found by name (a ``use``, or a scenario's ``packs:`` entry) must lie inside the
    roots once links are followed: a link planted in a shared pack folder cannot make hexlore
    read (and print lines of) a file elsewhere. ``names_only`` (a scenario's packs) also
    stops a name from being read as a folder relative to the working directory.
    """

    def __init__(self, search_paths: list[Path] | None = None, names_only: bool = False,
                 overlay: Mapping[str, str] | None = None):
        #: resolved path -> text to read instead of the file's: an editor's unsaved buffers
        #: (hexlore/lsp), so that what is checked is what the designer sees
        self.overlay = overlay or {}
        roots = [Path(p) for p in (search_paths or [])]
        bundled = bundled_rules_root()
        if bundled not in roots:
            roots.append(bundled)
        self.roots = roots
        self.names_only = names_only
        self.result = LoadedPacks()
        self._by_name: dict[str, ast.Module] = {}
        self._state: dict[str, str] = {}  # name -> "loading" | "done"
        # a loaded file (resolved path) -> its pack: a file named again is not read again, and
        # looking it up must not resolve the path of every pack loaded so far
        self._name_of_file: dict[str, str] = {}
        self._refused: set[str] = set()  # files found but not read (links leading out)

    # -- locating
    def _files_for(self, name: str, origin: tuple[str, Span] | None = None) -> list[Path]:
        rel = Path(*name.split("."))
        for root in self.roots:
            file = root / rel.with_suffix(".lore")
            if is_file(file):
                return self._confined([file], origin)
            folder = root / rel
            if is_dir(folder):
                return self._confined(_lore_files(folder, self._roots()), origin)
        return []

    def _roots(self) -> Roots:
        return Roots.of(self.roots)

    def _confined(self, files: list[Path] | Walked, origin: tuple[str, Span] | None,
                  roots: Roots | None = None) -> list[Path]:
        """The files inside the roots (:func:`hexlore.dsl.confine.confine`); C019 for the others."""
        roots = roots or self._roots()
        kept = []
        if isinstance(files, Walked):
            found, out = [Path(f) for f in files.files], [Path(f) for f in files.refused]
        else:
            found, out = files, []
        for f in found:
            if confine(f, roots) is not None:
                kept.append(f)
            else:
                out.append(f)
        for f in out:
            self._refused.add(str(f))
            where, span = origin or ("<command line>", Span())
            self.result.diagnostics.append(error(
                codes.PACK_OUTSIDE_ROOTS, f"'{f}' is a link that leads outside the rules roots; it is not read",
                where, span, "packs are read only inside the scenario's folder and the search paths "
                "(the bundled rules, --packs-path, HEXLORE_PATH): copy the pack there instead of linking it"))
        return kept

    def known_pack_names(self) -> list[str]:
        names = []
        roots = self._roots()
        for root in self.roots:
            for f in _lore_files(root, roots).files:
                names.append(".".join(Path(f).relative_to(root).with_suffix("").parts))
        return names

    # -- loading
    def load_request(self, request: str, origin: tuple[str, Span] | None = None) -> list[str]:
        """Load a pack name, a directory or a file path; return the pack names it stands for."""
        path = Path(request)
        if (request.endswith(".lore") and is_file(path)) or (not self.names_only and is_dir(path)):
            # a path named by the caller: confined to the roots and to where it is written
            allowed = self._roots() + command_line_root(path)
            if confine(path, allowed) is None:
                self._confined(Walked([], [request]), origin)
                return []
            if request.endswith(".lore"):
                return _named([self._load_file(path)])
            if not self._files_for(request):
                files = self._confined(_lore_files(path, allowed), origin, allowed)
                return _named(self._load_file(f) for f in files)
        refused_before = len(self._refused)
        files = self._files_for(request, origin)
        if not files and len(self._refused) > refused_before:
            return []  # found, refused and reported (C019)
        if not files:
            file, span = origin or ("<command line>", Span())
            guess = did_you_mean(request, self.known_pack_names())
            self.result.diagnostics.append(error(
                codes.PACK_NOT_FOUND, f"no pack named '{request}'", file, span,
                f"did you mean '{guess}'?" if guess else
                f"packs are looked up in: {', '.join(str(r) for r in self.roots)}"))
            return []
        names = _named(self._load_file(f) for f in files)
        if len(files) == 1 and len(names) == 1 and files[0].suffix == ".lore" and names[0] != request:
            module = self._by_name.get(names[0])
            span = module.pack.span if module is not None and module.pack else Span()
            self.result.diagnostics.append(error(
                codes.PACK_NAME_MISMATCH, f"'{display_path(files[0])}' is looked up as pack '{request}' but "
                f"declares 'pack {names[0]}'", display_path(files[0]), span,
                f"rename the pack to '{request}' or move the file to match '{names[0]}'"))
        return names

    def _load_file(self, path: Path) -> str | None:
        key = str(path.resolve())
        if key in self._name_of_file:
            return self._name_of_file[key]
        shown = display_path(path)
        text: str | None = self.overlay.get(key)
        if text is None:  # found by name inside the roots, or named by the caller where it is written
            text, problem = read_confined(path, self._roots() + command_line_root(path), "pack")
        if text is None:
            assert problem is not None  # read_confined gives a text or a problem
            self.result.diagnostics.append(error(codes.CANNOT_READ_PACK, problem.message, shown, problem.span,
                                                 problem.hint))
            return None
        source = Source(shown, text)
        self.result.sources[shown] = source
        parsed = parse_source(text, shown)
        self.result.diagnostics.extend(parsed.diagnostics)
        self.result.skipped |= parsed.skipped
        module = parsed.module
        name = pack_name(module)
        if module.pack:
            expected = Path(*name.split(".")).with_suffix(".lore")
            if path.parts[-len(expected.parts):] == expected.parts:
                root = Path(*path.parts[: len(path.parts) - len(expected.parts)]) or Path(".")
                if root not in self.roots:
                    self.roots.insert(0, root)
        if name in self._by_name:
            return name
        self._by_name[name] = module
        self._name_of_file[key] = name
        self._state[name] = "loading"
        visible = {name}
        self.result.aliases[name] = self._aliases(module, shown)
        for use in module.uses:
            if self._state.get(use.name) == "loading":
                self.result.diagnostics.append(error(
                    codes.USE_CYCLE, f"packs use each other in a cycle through '{use.name}'", shown,
                    use.span, "move the shared declarations into a pack both can use"))
                continue
            for used in (self._resolve_use(use, shown)):
                visible.add(used)
                visible |= self.result.visible.get(used, set())
        self.result.visible[name] = visible
        self._state[name] = "done"
        self.result.modules.append(module)
        return name

    def _aliases(self, module: ast.Module, file: str) -> dict[str, str]:
        """A pack's aliases; an alias given twice is C002 (the second is not kept)."""
        aliases: dict[str, str] = {}
        for use in module.uses:
            if use.alias is None:
                continue
            if use.alias in aliases and aliases[use.alias] != use.name:
                self.result.diagnostics.append(error(
                    codes.DECLARED_TWICE, f"alias '{use.alias}' already stands for pack '{aliases[use.alias]}'",
                    file, use.span, "give each used pack its own alias"))
                continue
            aliases[use.alias] = use.name
        return aliases

    def _resolve_use(self, use: ast.Use, file: str) -> list[str]:
        if use.name in self._by_name:
            return [use.name]
        return self.load_request(use.name, (file, use.span))


def _named(names: Iterable[str | None]) -> list[str]:
    return [n for n in names if n is not None]


def _lore_files(folder: Path, roots: Roots) -> Walked:
    """The ``.lore`` files under a folder inside ``roots`` (not following linked folders), sorted,
    and the links there that lead out; none if unreadable."""
    try:
        return walk(folder, roots, lambda name: name.endswith(".lore"))
    except OSError:
        return Walked([], [])


def display_path(path: Path, resolve: bool = True) -> str:
    """A path as diagnostics show it: relative to the working directory when inside it.
    ``resolve=False`` keeps a link as itself (the name of a refused link, not its target)."""
    try:
        full = path.resolve() if resolve else Path(os.path.abspath(path))
        return str(full.relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return str(path)


def load_packs(requests: list[str], search_paths: list[Path] | None = None,
               names_only: bool = False, overlay: Mapping[str, str] | None = None) -> LoadedPacks:
    loader = PackLoader(search_paths, names_only, overlay)
    for request in requests:
        loader.load_request(request)
    loader.result.roots = list(loader.roots)
    return loader.result
