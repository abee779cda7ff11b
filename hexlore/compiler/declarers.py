"""Which packs on the rules roots declare a name, loaded or not: the fix for a missing ``use``.

A pack checked alone that writes ``is beast`` without ``use base.beasts`` would otherwise
hear "declare it with 'trait beast { … }'", which is wrong: the trait exists, the pack just
does not use the pack that declares it. Checked through a scenario that also loads
``base.beasts``, the same line is C009 "declared in pack 'base.beasts', which this pack does
not use". Looking the name up in the packs on the roots gives the same diagnostic both ways
(issue 15, defects 1 and 2).

Only asked after a name is found nowhere among the loaded packs, so it costs nothing when
packs are right. The packs are parsed with the ordinary (cached) parser; only files inside
the roots, once links are followed, are read (as the loader does), and a root with very
many files is searched only in part.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ..dsl import ast
from ..dsl.confine import Roots, read_confined, walk
from ..dsl.parser import parse_source
from .names import ENUM_VALUE, FACE, describe
from .packs import pack_name
from .resolve import Sorts

#: files looked at, over all roots, before the search gives up
MAX_FILES = 400


class Declarers:
    """``declarers(name, accept)``: the packs not loaded that declare ``name`` with a sort
    ``accept`` allows, sorted. The index is built at the first question."""

    def __init__(self, roots: list[Path], loaded: set[str]):
        self.roots = roots
        self.loaded = loaded
        self._index: dict[str, list[tuple[str, str]]] | None = None

    def __call__(self, name: str, accept: Sorts) -> list[str]:
        if self._index is None:
            self._index = self._build()
        return sorted({pack for pack, sort in self._index.get(name, ()) if accept(sort)})

    def _build(self) -> dict[str, list[tuple[str, str]]]:
        index: dict[str, list[tuple[str, str]]] = {}
        roots = Roots.of(self.roots)
        for file in _lore_files(self.roots, roots):
            text, _ = read_confined(file, roots, "pack")
            if text is None:
                continue
            module = parse_source(text, str(file)).module
            pack = pack_name(module)
            if pack in self.loaded or module.pack is None:
                continue
            for name, sort in _declared(module):
                index.setdefault(name, []).append((pack, sort))
        return index


def _declared(module: ast.Module) -> Iterator[tuple[str, str]]:
    """(name, sort) of every name a module declares."""
    for decl in module.decls:
        if isinstance(decl, ast.FieldsDecl):
            continue
        yield decl.name, describe(decl)
        if isinstance(decl, ast.EnumDecl):
            for value in decl.values:
                yield value, ENUM_VALUE
        if isinstance(decl, ast.DieDecl):
            for face in decl.faces:
                if not face.label.isdigit():
                    yield face.label, FACE


def _lore_files(folders: list[Path], roots: Roots) -> list[str]:
    """The ``.lore`` files under the roots, at most MAX_FILES, not following linked folders, each
    inside the roots (:func:`hexlore.dsl.confine.walk`: links leading out are left out)."""
    found: list[str] = []
    for folder in folders:
        try:
            found += walk(folder, roots, lambda name: name.endswith(".lore"),
                          prune=lambda name: name.startswith("."), limit=MAX_FILES - len(found)).files
        except OSError:
            continue
        if len(found) >= MAX_FILES:
            return found[:MAX_FILES]
    return found
