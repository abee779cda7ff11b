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
Terrains no look names get a colour from :data:`DEFAULT_TERRAIN` when their name says what
they are (water is blue, woods are green), else one from a pale palette.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

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
    """A look file that cannot be used: its path and what is wrong."""


class LookOutside(LookError):
    """A look file that leads, links followed, outside its pack's folder: not read (S121)."""

    def __init__(self, path: str):
        super().__init__(f"{path}: the look file leads outside its pack's folder (S121); it is not read")
        self.path = path


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


def _check(data, path: str) -> dict:
    """``data`` if it is a valid look, else :class:`LookError` saying what is wrong where."""
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise LookError(f"{path}: a look is a mapping of {', '.join(KEYS)}")
    for key, value in data.items():
        if key not in KEYS:
            raise LookError(f"{path}: unknown key '{key}' (a look has {', '.join(KEYS)})")
        if key == "strength":
            if not isinstance(value, list) or not all(isinstance(v, str) and NAME.fullmatch(v) for v in value):
                raise LookError(f"{path}: 'strength' is a list of field names")
            continue
        if not isinstance(value, dict):
            raise LookError(f"{path}: '{key}' maps names to values")
        for name, item in value.items():
            if not isinstance(name, str) or not NAME.fullmatch(name):
                raise LookError(f"{path}: '{key}': '{name}' is not a name")
            if key == "marks":
                if not isinstance(item, str) or not 0 < len(item) <= 4:
                    raise LookError(f"{path}: marks.{name}: a mark is text of 1 to 4 characters")
            elif not isinstance(item, str) or not COLOUR.fullmatch(item):
                raise LookError(f"{path}: {key}.{name}: '{item}' is not a colour (#rgb or #rrggbb)")
    return data


def read_look_file(path: Path) -> dict:
    """One look file, validated (yaml.safe_load: a look runs nothing). PyYAML is imported here,
    so that naming the look file (``check`` of a pack) loads none of it."""
    import yaml

    from .dsl.confine import Roots, confine, read_confined

    folder = Roots.of([Path(os.path.abspath(path)).parent])  # a look is its pack folder's own
    if confine(path, folder) is None:
        raise LookOutside(str(path))
    text, problem = read_confined(path, folder, "look")
    if text is None:
        raise LookError(f"{path}: {problem.message if problem else 'cannot read the look'}")
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise LookError(f"{path}: cannot read the look: {exc}") from exc
    return _check(data, str(path))


def refused_looks(source_paths: list[str]) -> list[str]:
    """The look files beside a rule set's packs that lead outside their folder (S121): ``check``
    reports them, as ``render`` and the replay pages refuse them."""
    from .compiler.packs import bundled_rules_root
    from .dsl.confine import Roots, confine

    out = []
    for folder in look_folders(source_paths, bundled_rules_root().resolve()):
        path = folder / LOOK_FILE
        if path.is_file() and confine(path, Roots.of([folder])) is None:
            out.append(str(path))
    return out


def look_folders(source_paths: list[str], bundled_root: Path) -> list[Path]:
    """The folders of the rule set's files: bundled ones first, then the others, each in path order."""
    folders = {Path(p).resolve().parent for p in source_paths if p.endswith(".lore")}

    def bundled(folder: Path) -> bool:
        return folder == bundled_root or bundled_root in folder.parents
    return sorted(folders, key=lambda f: (not bundled(f), str(f)))


def look_of(rules) -> Look:
    """The look of a compiled rule set (``rules.sources`` names its files)."""
    from .compiler.packs import bundled_rules_root

    look = Look()
    for folder in look_folders(list(rules.sources), bundled_rules_root().resolve()):
        path = folder / LOOK_FILE
        if path.is_file():
            look.merge(read_look_file(path), str(path))
    return look
