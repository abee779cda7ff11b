"""The name table: every declaration of every pack, who declares it, duplicates and overrides.

Names belong to their pack. ``base.core`` declaring ``hit`` and an unrelated mod
declaring ``hit`` are two things, ``base.core.hit`` and ``mod.hit``; a pack sees the
names of its own pack and of the packs it uses (:mod:`.resolve` finds what a written name
means). Within what one pack sees a name is still declared once: a pack that declares a name
a pack it uses already declares must say ``override`` — a forgotten ``override`` would
otherwise make a second, unused thing instead of replacing the first. An override replaces
the declaration for every pack (it is the same thing, with a new body), keeps its sort and
signature so the original pack's rules still type-check against it, and is reported as a note.

An override of a function, procedure or trigger may call ``super(…)``: the declaration it
replaces, so a pack extends a rule (``blocked(u, h) = super(u, h) or trapped(u, h)``) instead
of copying its body, and two packs that extend the same rule both keep their part. The table
keeps each replaced declaration that is called that way under a name no pack can write
(``blocked@some.pack``: the name and the pack whose version it is), compiled like
any other (a kept trigger is compiled but listens to nothing: only its override runs it).

An override of a trait, a definition or a kind changes only the fields it names: the table
keeps every declaration of such a thing as a :class:`Layer`, the original first, and
:mod:`.fieldwise` lowers them in turn, each in its own pack.

Each declared thing gets one *key*, its name in the compiled :class:`RuleSet` (and so in
the runtime, the graph and the event log): the name as written when no other pack of the
rule set declares that name, else the qualified name (``base.core.hit``). Rule sets
whose names do not collide therefore compile exactly as before namespaces existed, and a
collision never privileges one pack over the other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePath
from typing import TypeVar

from ..dsl import ast
from ..diagnostics import Diagnostic, Severity, Span, codes, error
from .builtins import BUILTINS
from .packs import LoadedPacks, pack_name


BUILTIN_KINDS = ("unit", "side", "hex", "game", "terrain", "card")
#: inside an override, calls the declaration it replaces; no declaration may take the name
SUPER = "super"
#: the sorts of the names a declaration brings besides its own
ENUM_VALUE = "enum value"
FACE = "face"

D = TypeVar("D", bound=ast.Decl)


#: declarations whose overrides change only the fields they name (see :class:`Layer`)
FIELDWISE = (ast.TraitDecl, ast.Definition, ast.KindDecl)
#: declarations whose overrides may call super(…)
EXTENSIBLE = (ast.FunctionDecl, ast.ProcedureDecl, ast.TriggerDecl)


def calls_super(decl: ast.Decl) -> bool:
    """Whether the body of ``decl`` calls ``super(…)`` (anywhere, iteratively; a trigger's
    guard and question too, where it is reported as misplaced rather than as replacing none)."""
    stack: list[object] = [getattr(decl, "body", None), getattr(decl, "guard", None), getattr(decl, "optional_by", None),
                   getattr(decl, "optional_prefer", None)]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Call) and node.func == SUPER:
            return True
        if isinstance(node, ast.Node):
            stack.extend(getattr(node, f) for f in node.__dataclass_fields__)
        elif isinstance(node, (tuple, list)):
            stack.extend(node)
    return False


def describe(decl: ast.Decl) -> str:
    """'function', 'option', 'unit definition', … — for messages."""
    if isinstance(decl, ast.Definition):
        return f"{decl.kind} definition"
    words = {ast.EnumDecl: "enum", ast.TagDecl: "tag", ast.DieDecl: "die", ast.KindDecl: "kind",
             ast.TraitDecl: "trait", ast.OptionDecl: "option", ast.TableDecl: "table",
             ast.FunctionDecl: "function", ast.ProcedureDecl: "procedure", ast.EventDecl: "event",
             ast.TriggerDecl: "trigger", ast.GameDecl: "game"}
    return words.get(type(decl), "declaration")


def signature(decl: ast.Decl) -> str | None:
    """What callers and readers of a declaration rely on; an override must keep it."""
    def params(ps: tuple[ast.Param, ...]) -> str:
        return "(" + ", ".join(f"{p.name}: {p.type}" for p in ps) + ")"

    if isinstance(decl, ast.FunctionDecl):
        return params(decl.params) + f" -> {decl.returns}"
    if isinstance(decl, ast.ProcedureDecl):
        return params(decl.params) + (f" -> {decl.returns}" if decl.returns else "")
    if isinstance(decl, ast.EventDecl):
        return params(decl.params)
    if isinstance(decl, ast.OptionDecl):
        return f": {decl.type}"
    if isinstance(decl, ast.TableDecl):
        return f": {decl.key_type} -> {decl.value_type}"
    return None


@dataclass(frozen=True)
class Layer:
    """One declaration of a trait, definition or kind: the original or one override of it,
    with the pack and file whose names its values are written in (an override sees other
    names than the pack it overrides)."""

    decl: ast.Decl
    pack: str
    file: str
    override: bool

    def of(self, cls: type[D]) -> D:
        """The declaration, as the class the layered thing is declared with (a trait's layers
        are trait declarations, a definition's definitions, a kind's kind declarations)."""
        assert isinstance(self.decl, cls), self.decl
        return self.decl


@dataclass
class Entry:
    """One declared thing: the pack of its original declaration, and the declaration in force.

    ``decl`` is the enum of an enum value and the die of a face label; ``packs`` lists the
    original pack and every pack that overrides it, so ``mod.x`` names an ``x`` that ``mod``
    overrides too.
    """

    name: str
    owner: str
    sort: str
    decl: ast.Decl
    pack: str
    file: str
    span: Span
    packs: list[str] = field(default_factory=list)
    key: str = ""
    #: for a replaced declaration kept for super(…): the entry it was replaced in
    kept_from: "Entry | None" = None
    #: a trait, definition or kind: its original declaration, then each override, in order
    layers: list[Layer] = field(default_factory=list)

    @property
    def qualified(self) -> str:
        return f"{self.owner}.{self.name}"


@dataclass
class NameTable:
    visible: dict[str, set[str]]
    #: name as declared -> the things of that name, one per pack that declares it originally
    by_name: dict[str, list[Entry]] = field(default_factory=dict)
    #: every entry in declaration order, kept replaced declarations included
    order: list[Entry] = field(default_factory=list)
    #: id of a declaration in force -> its entry
    of_decl: dict[int, Entry] = field(default_factory=dict)
    #: id of an override that calls super -> the entry its replaced declaration is kept in
    super_of: dict[int, Entry] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def _err(self, code: str, message: str, file: str, span: Span, hint: str | None) -> None:
        self.diagnostics.append(error(code, message, file, span, hint))

    def sees(self, pack: str, owner: str) -> bool:
        return owner == pack or owner in self.visible.get(pack, {pack})

    def _new(self, name: str, sort: str, decl: ast.Decl, pack: str, file: str, span: Span) -> Entry:
        entry = Entry(name, pack, sort, decl, pack, file, span, [pack])
        if isinstance(decl, FIELDWISE) and sort not in (ENUM_VALUE, FACE):
            entry.layers.append(Layer(decl, pack, file, False))
        self.by_name.setdefault(name, []).append(entry)
        self.order.append(entry)
        if sort not in (ENUM_VALUE, FACE):
            self.of_decl[id(decl)] = entry
        return entry

    def register_face(self, label: str, die: ast.DieDecl, pack: str, file: str, span: Span) -> None:
        """A face label doubles as a tag unless something this pack sees already has the name."""
        if label.isdigit() or any(self.sees(pack, e.owner) for e in self.by_name.get(label, ())):
            return
        self._new(label, FACE, die, pack, file, span)

    def register(self, name: str, decl: ast.Decl, pack: str, file: str, span: Span,
                 value_of: ast.EnumDecl | None = None) -> None:
        """Declare ``name``; ``value_of`` is set for the values of an enum (they follow the enum)."""
        if name == SUPER:
            self._err(codes.DECLARED_TWICE, f"'{SUPER}' is reserved: in an override it calls the declaration the "
                      "override replaces", file, span, "choose another name")
            return
        if name in BUILTIN_KINDS and not isinstance(decl, ast.FieldsDecl):
            self._err(codes.DECLARED_TWICE, f"'{name}' is a built-in kind and cannot be redeclared", file, span,
                      f"use 'fields {name} {{ … }}' to add fields to it")
            return
        if name in BUILTINS and isinstance(decl, (ast.FunctionDecl, ast.ProcedureDecl)):
            # still registered below, so its body is checked and its calls are not reported twice
            self._err(codes.DECLARED_TWICE, f"'{name}' is a built-in; a {describe(decl)} of that name would replace it "
                      "for every pack", file, span,
                      f"rename it (for example '{name}_{pack.rsplit('.', 1)[-1]}')")
        sort = ENUM_VALUE if value_of is not None else describe(decl)
        # a face label gives way to a declaration of its name in the same pack
        faces = [e for e in self.by_name.get(name, ()) if e.sort == FACE and e.owner == pack]
        for face in faces:
            self.by_name[name].remove(face)
            self.order.remove(face)
        seen = [e for e in self.by_name.get(name, ()) if self.sees(pack, e.owner)]
        if not seen:
            if decl.override and value_of is None:
                hidden = self.by_name.get(name)
                if hidden:
                    owner = hidden[0].owner
                    self._err(codes.BAD_OVERRIDE, f"'{name}' overrides a declaration of pack '{owner}', which this "
                              "pack does not use", file, span,
                              f"add 'use {owner}' at the top of this file, or remove 'override'")
                else:
                    # still declared, so its uses are not reported as undefined too
                    self._err(codes.BAD_OVERRIDE, f"'{name}' overrides nothing", file, span,
                              "remove 'override': no used pack declares this name")
            self._new(name, sort, decl, pack, file, span)
            return
        if len(seen) > 1 and decl.override and value_of is None:
            listed = ", ".join(f"'{e.qualified}'" for e in seen)
            self._err(codes.AMBIGUOUS, f"the override of '{name}' is ambiguous: {len(seen)} packs this pack uses declare "
                      f"it ({listed})", file, span,
                      "an override replaces the declaration of one pack: override it in a pack that uses that "
                      "pack and not the others")
            return
        earlier = seen[0]
        owner = earlier.owner
        first_file, first_span = earlier.file, earlier.span
        # the file's name, not its path: packs may live outside the working directory
        at = (f"line {first_span.line}" if first_file == file else
              f"{PurePath(first_file).name}:{first_span.line}:{first_span.column}")
        if value_of is not None and decl.override and isinstance(earlier.decl, ast.EnumDecl) \
                and earlier.sort == ENUM_VALUE and earlier.decl.name == value_of.name:
            self._replace(earlier, decl, pack, file, span)
            return  # a value the overridden enum already had
        if not decl.override or value_of is not None:
            if owner != pack:
                self._err(codes.BAD_OVERRIDE, f"'{name}' replaces the declaration of pack '{owner}' ({at}) "
                          "without 'override'", file, span,
                          "write 'override' before it to replace it on purpose, or choose another name")
            else:
                self._err(codes.DECLARED_TWICE, f"'{name}' is already declared ({at})", file, span,
                          "rename one of them; a pack cannot override its own declarations")
            return
        problem = self._override_problem(name, decl, earlier, pack, at)
        if problem:
            self._err(codes.BAD_OVERRIDE, problem[0], file, span, problem[1])
            return
        latest_pack = earlier.pack
        of = (f"of pack '{owner}' ({at})" if latest_pack == owner else
              f"of pack '{owner}', as pack '{latest_pack}' overrides it ({at}),")
        self.diagnostics.append(Diagnostic(
            Severity.NOTE, codes.OVERRIDDEN, f"{describe(decl)} '{name}' {of} is overridden by pack '{pack}'",
            file, span, None))
        if isinstance(decl, EXTENSIBLE) and calls_super(decl):
            kept = Entry(name, owner, earlier.sort, earlier.decl, earlier.pack, earlier.file, earlier.span,
                         list(earlier.packs), kept_from=earlier)
            self.order.append(kept)
            self.of_decl[id(earlier.decl)] = kept
            self.super_of[id(decl)] = kept
        self._replace(earlier, decl, pack, file, span)

    def _replace(self, entry: Entry, decl: ast.Decl, pack: str, file: str, span: Span) -> None:
        if entry.sort not in (ENUM_VALUE, FACE):
            if self.of_decl.get(id(entry.decl)) is entry:
                del self.of_decl[id(entry.decl)]
            self.of_decl[id(decl)] = entry
            if entry.layers:
                entry.layers.append(Layer(decl, pack, file, True))
        entry.decl, entry.pack, entry.file, entry.span = decl, pack, file, span
        if pack not in entry.packs:
            entry.packs.append(pack)

    def _override_problem(self, name: str, decl: ast.Decl, earlier: Entry, pack: str,
                          at: str) -> tuple[str, str] | None:
        owner = earlier.owner
        if owner == pack:
            return (f"'{name}' overrides a declaration of its own pack ({at})",
                    "remove 'override' or the earlier declaration")
        if earlier.sort != describe(decl):
            what = earlier.sort
            return (f"'{name}' is {_a(what)} in pack '{owner}' ({at}); its override is {_a(describe(decl))}",
                    f"an override replaces a declaration with one of the same sort: declare {_a(what)}, "
                    "or choose another name")
        if signature(earlier.decl) != signature(decl):
            return (f"the override of {describe(decl)} '{name}' changes its signature from "
                    f"'{signature(earlier.decl)}' to '{signature(decl)}'",
                    f"keep '{signature(earlier.decl)}': the rules of pack '{owner}' rely on it")
        return None

    def assign_keys(self) -> None:
        """Give every entry its key in the rule set (see the module's docstring)."""
        for name, entries in self.by_name.items():
            for e in entries:
                e.key = name if len(entries) == 1 else e.qualified
        for e in self.order:
            if e.kept_from is not None:
                e.key = f"{e.kept_from.key}@{e.pack}"

    def in_force(self) -> list[Entry]:
        """The declarations to compile, in order: each thing's declaration in force, then the
        replaced declarations an override's super(…) calls (under their kept keys)."""
        return [e for e in self.order if e.sort not in (ENUM_VALUE, FACE)]


def register_packs(loaded: LoadedPacks) -> tuple[NameTable, list[tuple[ast.FieldsDecl, str, str]]]:
    """Every declaration of every pack in the name table, keys given; and the ``fields``
    blocks, which add to a kind and declare no name of their own."""
    table = NameTable(loaded.visible)
    fields_decls: list[tuple[ast.FieldsDecl, str, str]] = []
    for module in loaded.modules:
        pack = pack_name(module)
        for decl in module.decls:
            span = decl.name_span if decl.name_span.line else decl.span
            if isinstance(decl, ast.FieldsDecl):
                fields_decls.append((decl, pack, module.path))
                continue
            if isinstance(decl, ast.EnumDecl):
                for value in decl.values:
                    table.register(value, decl, pack, module.path, span, value_of=decl)
            if isinstance(decl, ast.DieDecl):
                for face in decl.faces:
                    table.register_face(face.label, decl, pack, module.path, face.span)
            table.register(decl.name, decl, pack, module.path, span)
    table.assign_keys()
    return table, fields_decls


def _a(noun: str) -> str:
    return ("an " if noun[:1] in "aeiou" else "a ") + noun
