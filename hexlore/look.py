"""How a pack's games are drawn: terrain colours, unit marks, die face colours, strength fields.

A pack's look is a side file, ``look.yaml``, in the pack's folder: presentation is no rule, so
it stays out of the Lore language (the compiler and the runtime never read it), and a designer
edits it without touching the rules. Only the pictures read it (``hexlore render``, ``hexlore
replay``). Every key is optional::

    terrain:  {river: "#7fb2dd", forest: "#5f8f4e"}   # fill of each terrain, by name
    sides:    {north: "#2a5db8"}                       # colour of each side's units
    marks:    {giant_spider: "SP"}                     # short mark drawn on each unit type
    faces:    {flag: "#f2d34b"}                        # fill of each die face, by name
    strength: [figures]                                # numeric unit fields shown on the board

Looks are read from the folders of the rule set's ``.lore`` files: the bundled packs' folders
first, then any other folder (a mod beside its scenario, a folder on ``HEXLORE_PATH``), each
group in path order, every later file changing only the keys it names (a mod's look overrides
its base packs'). A look file that is not valid YAML, or a value of the wrong kind, raises
:class:`LookError` naming the file: a wrong colour must not silently draw a different board.
``hexlore check`` reports the same problems, located (:func:`check_look_file`), for every
look file that a checked pack or scenario would be drawn with (:func:`look_files`).
Terrains no look names get a colour from :data:`DEFAULT_TERRAIN` when their name says what
they are (water is blue, woods are green), else one from a pale palette.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from .diagnostics import Diagnostic, Source, Span, codes, error

LOOK_FILE = "look.yaml"
COLOUR = re.compile(r"#[0-9a-fA-F]{6}|#[0-9a-fA-F]{3}")
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: fills for terrains no look names, by a word in the terrain's name (first match wins)
DEFAULT_TERRAIN = (("river", "#8fc1e8"), ("water", "#8fc1e8"), ("lake", "#8fc1e8"), ("sea", "#7fb0dd"),
                   ("ford", "#b5d6ee"), ("marsh", "#a9c7a0"), ("swamp", "#a9c7a0"),
                   ("forest", "#6f9f5c"), ("wood", "#6f9f5c"), ("jungle", "#5a8a4a"),
                   ("mountain", "#a39a8e"), ("hill", "#d2b27c"), ("rock", "#b0aaa0"),
                   ("desert", "#ecd9a0"), ("sand", "#ecd9a0"), ("road", "#d8cfb8"),
                   ("ruin", "#b9aca0"), ("town", "#c9a7a0"), ("village", "#c9a7a0"), ("city", "#c0a090"),
                   ("plain", "#f3efe2"), ("grass", "#e4ecc8"), ("field", "#efe8c8"), ("none", "#f3efe2"))
#: fills for terrains whose name says nothing, in order of first use
PALETTE = ("#f3efe2", "#e3d9f0", "#f0d9d3", "#d9ecec", "#ece3c4", "#dcdcdc", "#e8d3e3", "#d3e3d3")
#: side colours, by the side's order in the scenario
SIDE_COLOURS = ("#b8322a", "#2a5db8", "#2f8f3a", "#8a5a16", "#6b3fa0", "#333333")
KEYS = ("terrain", "sides", "marks", "faces", "strength")


class LookError(Exception):
    """A look file that cannot be used: its path and what is wrong (``diagnostics``: each
    problem located, as ``hexlore check`` reports them)."""

    def __init__(self, message: str, diagnostics: list[Diagnostic] | None = None,
                 sources: dict[str, Source] | None = None):
        super().__init__(message)
        self.diagnostics = list(diagnostics or [])
        self.sources = dict(sources or {})  # the file's text, for the lines the diagnostics quote


class LookOutside(LookError):
    """A look file that leads, links followed, outside its pack's folder: not read (S121)."""

    def __init__(self, path: str, shown: str | None = None):
        super().__init__(f"{path}: the look file leads outside its pack's folder (S121); it is not read",
                         [outside_diagnostic(shown or path)])
        self.path = path


def outside_diagnostic(file: str) -> Diagnostic:
    return error(codes.LOOK_OUTSIDE, f"'{file}' leads outside its pack's folder; the look is not read", file,
                 Span(), "copy the look file into the pack's folder instead of linking it")


def _outside(path: Path) -> bool:
    """Whether a look file leads, links followed, outside its pack's folder (the folder it is
    written in): the one confinement (hexlore/dsl/confine.py) with that folder as the root."""
    from .dsl.confine import Roots, confine

    return confine(path, Roots.of([Path(os.path.abspath(path)).parent])) is None


@dataclass
class Look:
    """The merged look of a rule set (every key optional; defaults fill the gaps when drawing)."""

    terrain: dict[str, str] = field(default_factory=dict)
    sides: dict[str, str] = field(default_factory=dict)
    marks: dict[str, str] = field(default_factory=dict)
    faces: dict[str, str] = field(default_factory=dict)
    strength: list[str] | None = None
    files: list[str] = field(default_factory=list)

    def terrain_colour(self, name: str, fallback_index: int) -> str:
        """The fill of terrain ``name``: the look's, else one its name suggests, else the palette's."""
        if name in self.terrain:
            return self.terrain[name]
        lowered = name.lower()
        for word, colour in DEFAULT_TERRAIN:
            if word in lowered:
                return colour
        return PALETTE[fallback_index % len(PALETTE)]

    def side_colour(self, name: str, index: int) -> str:
        return self.sides.get(name) or SIDE_COLOURS[index % len(SIDE_COLOURS)]

    def merge(self, data: dict, path: str) -> None:
        """Take the keys ``data`` (one look file, validated) names, over what is there."""
        for key in ("terrain", "sides", "marks", "faces"):
            getattr(self, key).update(data.get(key, {}))
        if "strength" in data:
            self.strength = list(data["strength"])
        self.files.append(path)


# a look's problems are S003 ("not a valid look: ..."), located; text no output can hold is
# S125/S126 as in any YAML file (hexlore/dsl/text_safety.py)
_HINT = "a look maps terrain, sides, marks and faces to values, and strength to field names (hexlore/look.py)"
JsonPath = tuple


def _problems(data) -> Iterator[tuple[JsonPath, bool, str]]:
    """What is wrong with a look's data: (where, whether at the key, what) for each problem."""
    if data is None:
        return
    if not isinstance(data, dict):
        yield (), False, f"a look is a mapping of {', '.join(KEYS)}"
        return
    for key, value in data.items():
        if key not in KEYS:
            yield (key,), True, f"unknown key '{key}' (a look has {', '.join(KEYS)})"
        elif key == "strength":
            if not isinstance(value, list) or not all(isinstance(v, str) and NAME.fullmatch(v) for v in value):
                yield (key,), False, "'strength' is a list of field names"
        elif not isinstance(value, dict):
            yield (key,), False, f"'{key}' maps names to values"
        else:
            for name, item in value.items():
                if not isinstance(name, str) or not NAME.fullmatch(name):
                    yield (key, name), True, f"'{key}': '{name}' is not a name"
                elif key == "marks":
                    if not isinstance(item, str) or not 0 < len(item) <= 4:
                        yield (key, name), False, f"marks.{name}: a mark is text of 1 to 4 characters"
                elif not isinstance(item, str) or not COLOUR.fullmatch(item):
                    yield (key, name), False, f"{key}.{name}: '{item}' is not a colour (#rgb or #rrggbb)"


def check_look_file(path: Path, shown: str | None = None) -> tuple[dict, list[Diagnostic]]:
    """A look file's data (``{}`` unless it is valid) and every problem in it, located."""
    data, diagnostics, _ = _read_look(path, shown or str(path))
    return data, diagnostics


def _read_look(path: Path, file: str) -> tuple[dict, list[Diagnostic], str | None]:
    """The data, the problems (sorted) and the text of a look file.

    Read as every untrusted YAML file is (hexlore/runtime/scenarios/located_yaml.py): bounded
    in size, nesting and aliases before anything walks it (a 5,000-deep look once stopped
    ``check`` with a RecursionError), ``yaml.safe_load`` semantics, text no output can hold
    refused. PyYAML is imported here, so that naming the look file loads none of it."""
    import yaml

    from .dsl.confine import Roots, read_confined
    from .dsl.files import ReadProblem
    from .runtime.scenarios.located_yaml import SpanIndexer, compose, construct, nearest_span, syntax_error

    if _outside(path):  # a link to a file of the machine: nothing of it is read or quoted
        return {}, [outside_diagnostic(file)], None
    text, problem = read_confined(path, Roots.of([Path(os.path.abspath(path)).parent]), "look")
    if text is None:
        why = problem or ReadProblem("cannot read look", Span(), "check that the look can be read")
        return {}, [error(codes.SCHEMA_VIOLATION, f"not a valid look: cannot read the look: {why.message}", file,
                          why.span, why.hint)], None
    try:
        root = compose(text)
        if root is None:
            return {}, [], text
        idx = SpanIndexer(file, text)
        idx.walk(root)
        data = construct(root)
    except yaml.YAMLError as exc:
        found = syntax_error(exc, file)
        return {}, [replace(found, code=codes.SCHEMA_VIOLATION, message=f"not a valid look: cannot read the look: "
                            f"{found.message}")], text
    diagnostics = list(idx.diagnostics)
    for where, at_key, message in _problems(data):
        span = (idx.key_spans.get(where) if at_key else None) or nearest_span(idx.spans, where)
        diagnostics.append(error(codes.SCHEMA_VIOLATION, f"not a valid look: {message}", file, span, _HINT))
    return ({} if diagnostics else data), sorted(diagnostics, key=Diagnostic.sort_key), text


def read_look_file(path: Path) -> dict:
    """One look file, validated; :class:`LookError` naming the file and its first problem."""
    from .compiler.packs import display_path

    shown = display_path(path)  # as check shows it: relative to the working directory when inside it
    if _outside(path):
        raise LookOutside(str(path), display_path(path, resolve=False))  # the link's name, not its target's
    data, diagnostics, text = _read_look(path, shown)
    if diagnostics:
        first = diagnostics[0]
        what = first.message.removeprefix("not a valid look: ")
        sources = {shown: Source(shown, text)} if text is not None else {}
        raise LookError(f"{shown}:{first.span.line}:{first.span.column}: {what}", diagnostics, sources)
    return data


def look_folders(source_paths: list[str], bundled_root: Path) -> list[Path]:
    """The folders of the rule set's files: bundled ones first, then the others, each in path order."""
    folders = {Path(p).resolve().parent for p in source_paths if p.endswith(".lore")}

    def bundled(folder: Path) -> bool:
        return folder == bundled_root or bundled_root in folder.parents
    return sorted(folders, key=lambda f: (not bundled(f), str(f)))


def look_files(rules) -> list[Path]:
    """The look files a compiled rule set is drawn with (``rules.sources`` names its files), in
    the order they are merged: what ``render`` and ``run --html`` read, so ``check`` of the
    packs or of a scenario validates these (issue 30)."""
    from .compiler.packs import bundled_rules_root

    folders = look_folders(list(rules.sources), bundled_rules_root().resolve())
    return [folder / LOOK_FILE for folder in folders if (folder / LOOK_FILE).is_file()]


def look_of(rules) -> Look:
    """The look of a compiled rule set; :class:`LookError` if one of its files is bad."""
    look = Look()
    for path in look_files(rules):
        look.merge(read_look_file(path), str(path))
    return look
