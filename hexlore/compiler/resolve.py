"""What a name written in a pack means: the one declaration it names, or why there is none.

A pack sees its own names and those of the packs it uses (directly or through other
packs). A name is written

- unqualified (``hit``) when exactly one pack it sees declares it;
- qualified by the declaring pack (``base.core.hit``) or by an alias of it
  (``use base.core as bc``, then ``bc.hit``) when several do.

Lookups are by *sort* (a call looks among functions and procedures, ``is`` among traits and
definitions…), so a function ``x`` of one pack and a tag ``x`` of another never make a
call to ``x`` ambiguous. Every lookup in the compiler goes through :meth:`Resolver.find`, so
what a pack sees is the same whichever way it is reached: alone, with the packs a scenario
adds, or used by another pack (issue 15, defect 1).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ..dsl import ast
from ..diagnostics import Diagnostic, Span, codes, error
from .names import Entry, NameTable


#: a test on an entry's sort ('function', 'enum value', 'unit definition', …)
Sorts = Callable[[str], bool]


def sorts(*names: str, definitions: bool = False) -> Sorts:
    """A test that accepts the listed sorts, and any definition when ``definitions``."""
    wanted = frozenset(names)
    return lambda sort: sort in wanted or (definitions and sort.endswith(" definition"))


VALUES = sorts("option", "enum value", "tag", "face", "die", "function", definitions=True)
CALLABLE = sorts("function", "procedure")
EVENTS = sorts("event")
TRAITS_AND_DEFINITIONS = sorts("trait", definitions=True)
TRAITS = sorts("trait")
TYPES = sorts("enum", "kind")
KINDS = sorts("kind")
TABLES = sorts("table")
TAGS = sorts("tag", "enum value", "face")
ANY_SORT: Sorts = lambda sort: True  # noqa: E731


@dataclass
class Found:
    """The outcome of a lookup: ``entry`` when the name names one thing, else a ``problem``:
    ``undefined`` (no loaded pack declares it), ``hidden`` (only packs this pack does not use,
    listed in ``candidates``), ``ambiguous`` (several packs it sees: their qualified names) or
    ``qualifier`` (``a.b.x`` where ``a.b`` is neither a pack nor an alias)."""

    entry: Entry | None = None
    problem: str | None = None
    candidates: list[str] = field(default_factory=list)
    #: for an undefined name: the sorts looked among (to search the packs not loaded)
    accept: Sorts | None = None

    @property
    def key(self) -> str | None:
        return self.entry.key if self.entry is not None else None


class Resolver:
    """Looks names up for the packs of one rule set (see the module's docstring)."""

    def __init__(self, table: NameTable, packs: list[str], aliases: dict[str, dict[str, str]],
                 elsewhere: Callable[[str, Sorts], list[str]] | None = None):
        self.table = table
        self.packs = set(packs)
        self.aliases = aliases
        #: name, sorts -> packs not loaded that declare it (for the hint of a missing 'use')
        self.elsewhere = elsewhere
        #: (pack, name, sorts) -> what was found: a pack names the same things many times
        self._found: dict[tuple[str | None, str, Sorts], Found] = {}

    def sees(self, pack: str | None, owner: str) -> bool:
        """Whether ``pack`` sees the names of ``owner``; ``None`` (a scenario) sees every pack."""
        return pack is None or self.table.sees(pack, owner)

    def qualifier(self, pack: str | None, text: str) -> str | None:
        """The pack that ``text`` (an alias of ``pack`` or a pack's name) stands for, or None."""
        if pack is not None and text in self.aliases.get(pack, {}):
            return self.aliases[pack][text]
        return text if text in self.packs else None

    def split(self, pack: str | None, parts: list[str]) -> tuple[str, int] | None:
        """For a chain ``a.b.c.d``: (the pack its shortest qualifying prefix names, how many
        parts that prefix has), or None when no prefix is a pack or an alias."""
        for n in range(1, len(parts)):
            target = self.qualifier(pack, ".".join(parts[:n]))
            if target is not None:
                return target, n
        return None

    def find(self, pack: str | None, written: str, accept: Sorts) -> Found:
        """What ``written`` names in ``pack`` among the sorts ``accept`` allows (kept: the
        table does not change once the names are registered)."""
        key = (pack, written, accept)
        found = self._found.get(key)
        if found is None:
            found = self._found[key] = self._find(pack, written, accept)
        return found

    def _find(self, pack: str | None, written: str, accept: Sorts) -> Found:
        if "." in written:
            qualifier, _, name = written.rpartition(".")
            target = self.qualifier(pack, qualifier)
            if target is None:
                return Found(problem="qualifier", candidates=[qualifier])
            found = [e for e in self.table.by_name.get(name, ()) if accept(e.sort) and target in e.packs]
            if not found:
                return Found(problem="undefined")
            if not self.sees(pack, found[0].owner) and not self.sees(pack, target):
                return Found(problem="hidden", candidates=[target])
            return Found(found[0])
        entries = [e for e in self.table.by_name.get(written, ()) if accept(e.sort)]
        seen = [e for e in entries if self.sees(pack, e.owner)]
        if len(seen) == 1:
            return Found(seen[0])
        if seen:
            return Found(problem="ambiguous", candidates=sorted(e.qualified for e in seen))
        if entries:
            return Found(problem="hidden", candidates=sorted({e.owner for e in entries}))
        return Found(problem="undefined", candidates=[written], accept=accept)

    def problem(self, found: Found, written: str, file: str, span: Span, search: bool = True) -> Diagnostic | None:
        """C009 or C020 for a lookup that found a reason; None for a name no pack on the roots
        declares (the caller says what was expected there, C003). Packs not loaded are searched
        only here, when a name is to be reported (``search``): never for a built-in's name, a
        name a syntax error dropped, or a lookup that may still find the name elsewhere."""
        if search and found.problem == "undefined" and found.accept is not None and self.elsewhere is not None \
                and "." not in written:
            owners = self.elsewhere(written, found.accept)
            if owners:
                found = Found(problem="hidden", candidates=owners)
        if found.problem == "hidden":
            owners = found.candidates
            packs = " or ".join(f"'{o}'" for o in owners[:3])
            return error(codes.NOT_VISIBLE, f"'{written}' is declared in pack {packs}, which this pack does not use",
                         file, span, f"add 'use {owners[0]}' at the top of this file")
        if found.problem == "ambiguous":
            name = written.rpartition(".")[2]
            listed = ", ".join(found.candidates)
            return error(codes.AMBIGUOUS, f"'{written}' is ambiguous: the packs this pack uses declare "
                         f"{len(found.candidates)} of that name ({listed})", file, span,
                         f"say which with the pack's name or an alias: {found.candidates[0]}, or "
                         f"'use {found.candidates[0].rpartition('.')[0]} as x' and then x.{name}")
        if found.problem == "qualifier":
            return error(codes.NOT_VISIBLE, f"'{found.candidates[0]}' in '{written}' is neither a pack nor an alias "
                         "this pack knows", file, span,
                         "qualify a name by a pack this pack uses (battlelore.core.hit) or by an alias "
                         "of one ('use battlelore.core as bl', then bl.hit)")
        return None


def leading_qualified(resolver: Resolver, pack: str, is_local: Callable[[str], bool], node: ast.Expr) -> ast.Expr:
    """``node`` with a leading qualified name (``bl.hit``, ``base.core.knight.title``) made one
    :class:`ast.Name` (``bl.hit``, ``base.core.knight`` with the field ``title`` on it);
    ``node`` itself when it starts with no pack or alias.

    The parser reads ``bl.hit`` as the field ``hit`` of ``bl``; only the compiler, knowing
    the packs, the aliases and the local names, can tell the two apart. A local name wins.
    """
    if not isinstance(node, ast.Field):
        return node
    chain: list[ast.Field] = []
    head: ast.Expr = node
    while isinstance(head, ast.Field):
        chain.append(head)
        head = head.obj
    if not isinstance(head, ast.Name) or head.name == "game" or is_local(head.name):
        return node
    chain.reverse()
    parts = [head.name] + [f.name for f in chain]
    split = resolver.split(pack, parts)
    if split is None:
        return node
    n = split[1]
    qualified: ast.Expr = ast.Name(".".join(parts[:n + 1]), span=chain[n - 1].span)
    for f in chain[n:]:
        qualified = ast.Field(qualified, f.name, span=f.span)
    return qualified
