"""Find, parse and order rules packs.

A pack is one ``.lore`` file that starts with ``pack a.b``; it lives at ``a/b.lore`` under
a rules root. Naming a directory (``battlelore``) means every pack inside it. ``use``
pulls in other packs; they are ordered dependencies-first, so a later pack may
``override`` what an earlier one declared, and every pack sees only what it uses.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..dsl import ast
from ..dsl.diagnostics import Diagnostic, Source, Span, did_you_mean, error
from ..dsl.parser import parse_source

PACK_NOT_FOUND = "C001"
USE_CYCLE = "C010"
PACK_NAME_MISMATCH = "C011"


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

    @property
    def pack_names(self) -> list[str]:
        return [pack_name(m) for m in self.modules]


def pack_name(module: ast.Module) -> str:
    return module.pack.name if module.pack else Path(module.path).stem


class PackLoader:
    def __init__(self, search_paths: list[Path] | None = None):
        roots = [Path(p) for p in (search_paths or [])]
        bundled = bundled_rules_root()
        if bundled not in roots:
            roots.append(bundled)
        self.roots = roots
        self.result = LoadedPacks()
        self._by_name: dict[str, ast.Module] = {}
        self._state: dict[str, str] = {}  # name -> "loading" | "done"

    # -- locating
    def _files_for(self, name: str) -> list[Path]:
        rel = Path(*name.split("."))
        for root in self.roots:
            file = root / rel.with_suffix(".lore")
            if file.is_file():
                return [file]
            folder = root / rel
            if folder.is_dir():
                return sorted(folder.rglob("*.lore"))
        return []

    def known_pack_names(self) -> list[str]:
        names = []
        for root in self.roots:
            for f in root.rglob("*.lore"):
                names.append(".".join(f.relative_to(root).with_suffix("").parts))
        return names

    # -- loading
    def load_request(self, request: str, origin: tuple[str, Span] | None = None) -> list[str]:
        """Load a pack name, a directory or a file path; return the pack names it stands for."""
        path = Path(request)
        if request.endswith(".lore") and path.is_file():
            return [self._load_file(path)]
        if path.is_dir() and not self._files_for(request):
            return [self._load_file(f) for f in sorted(path.rglob("*.lore"))]
        files = self._files_for(request)
        if not files:
            file, span = origin or ("<command line>", Span())
            guess = did_you_mean(request, self.known_pack_names())
            self.result.diagnostics.append(error(
                PACK_NOT_FOUND, f"no pack named '{request}'", file, span,
                f"did you mean '{guess}'?" if guess else
                f"packs are looked up in: {', '.join(str(r) for r in self.roots)}"))
            return []
        names = [self._load_file(f) for f in files]
        if len(files) == 1 and files[0].suffix == ".lore" and names[0] != request:
            module = self._by_name.get(names[0])
            span = module.pack.span if module is not None and module.pack else Span()
            self.result.diagnostics.append(error(
                PACK_NAME_MISMATCH, f"'{_display_path(files[0])}' is looked up as pack '{request}' but "
                f"declares 'pack {names[0]}'", _display_path(files[0]), span,
                f"rename the pack to '{request}' or move the file to match '{names[0]}'"))
        return names

    def _load_file(self, path: Path) -> str:
        key = str(path.resolve())
        for name, module in self._by_name.items():
            if str(Path(module.path).resolve()) == key:
                return name
        text = path.read_text(encoding="utf-8")
        shown = _display_path(path)
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
        self._state[name] = "loading"
        visible = {name}
        for use in module.uses:
            if self._state.get(use.name) == "loading":
                self.result.diagnostics.append(error(
                    USE_CYCLE, f"packs use each other in a cycle through '{use.name}'", shown,
                    use.span, "move the shared declarations into a pack both can use"))
                continue
            for used in (self._resolve_use(use, shown)):
                visible.add(used)
                visible |= self.result.visible.get(used, set())
        self.result.visible[name] = visible
        self._state[name] = "done"
        self.result.modules.append(module)
        return name

    def _resolve_use(self, use: ast.Use, file: str) -> list[str]:
        if use.name in self._by_name:
            return [use.name]
        return self.load_request(use.name, (file, use.span))


def _display_path(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def load_packs(requests: list[str], search_paths: list[Path] | None = None) -> LoadedPacks:
    loader = PackLoader(search_paths)
    for request in requests:
        loader.load_request(request)
    return loader.result
