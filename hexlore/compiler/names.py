"""The global name table: who declares each name, duplicates and overrides.

Every declared name (and every enum value) lives in one namespace shared by all loaded
packs. A name may be declared once; a later pack that *uses* the declaring pack may
replace the declaration, but only on purpose, with ``override`` — and the replacement
must be the same sort of declaration with the same signature, so the rules of the
original pack still type-check against it. Every override is reported as a note.

An override of a function or procedure may call ``super(…)``: the declaration it replaces,
so a pack extends a rule (``blocked(u, h) = super(u, h) or trapped(u, h)``) instead of
copying its body, and two packs that extend the same rule both keep their part. The table
keeps each replaced declaration that is called that way under a name no pack can write
(``blocked@some.pack``: the name and the pack whose version it is), compiled like
any other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePath

from ..dsl import ast
from ..dsl.diagnostics import Diagnostic, Severity, Span, error
from .builtins import BUILTINS

DUPLICATE = "C002"
BAD_OVERRIDE = "C012"
OVERRIDDEN = "N001"

BUILTIN_KINDS = ("unit", "side", "hex", "game", "terrain", "card")
#: inside an override, calls the declaration it replaces; no declaration may take the name
SUPER = "super"


def calls_super(decl: ast.Decl) -> bool:
    """Whether the body of ``decl`` calls ``super(…)`` (anywhere, iteratively)."""
    stack: list = [getattr(decl, "body", None)]
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


@dataclass
class NameTable:
    visible: dict[str, set[str]]
    owners: dict[str, str] = field(default_factory=dict)  # name -> pack of the original declaration
    where: dict[str, tuple[str, Span]] = field(default_factory=dict)  # name -> latest declaration site
    chosen: dict[str, tuple[ast.Decl, str, str]] = field(default_factory=dict)  # name -> (decl, pack, file)
    order: list[str] = field(default_factory=list)
    #: id of an override that calls super -> the name its replaced declaration is kept under
    super_of: dict[int, str] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def _err(self, code: str, message: str, file: str, span: Span, hint: str | None) -> None:
        self.diagnostics.append(error(code, message, file, span, hint))

    def register(self, name: str, decl: ast.Decl, pack: str, file: str, span: Span,
                 value_of: ast.EnumDecl | None = None) -> None:
        """Declare ``name``; ``value_of`` is set for the values of an enum (they follow the enum)."""
        if name == SUPER:
            self._err(DUPLICATE, f"'{SUPER}' is reserved: in an override it calls the declaration the "
                      "override replaces", file, span, "choose another name")
            return
        if name in BUILTIN_KINDS and not isinstance(decl, ast.FieldsDecl):
            self._err(DUPLICATE, f"'{name}' is a built-in kind and cannot be redeclared", file, span,
                      f"use 'fields {name} {{ … }}' to add fields to it")
            return
        if name in BUILTINS and isinstance(decl, (ast.FunctionDecl, ast.ProcedureDecl)):
            # still registered below, so its body is checked and its calls are not reported twice
            self._err(DUPLICATE, f"'{name}' is a built-in; a {describe(decl)} of that name would replace it "
                      "for every pack", file, span,
                      f"rename it (for example '{name}_{pack.rsplit('.', 1)[-1]}')")
        if name not in self.owners:
            if decl.override and value_of is None:
                # still declared, so its uses are not reported as undefined too
                self._err(BAD_OVERRIDE, f"'{name}' overrides nothing", file, span,
                          "remove 'override': no used pack declares this name")
            self.order.append(name)
            self.owners[name] = pack
            self.where[name] = (file, span)
            self.chosen[name] = (decl, pack, file)
            return
        owner = self.owners[name]
        first_file, first_span = self.where[name]
        # the file's name, not its path: packs may live outside the working directory
        at = (f"line {first_span.line}" if first_file == file else
              f"{PurePath(first_file).name}:{first_span.line}:{first_span.column}")
        earlier = self.chosen.get(name, (None, owner, first_file))[0]
        if value_of is not None and decl.override and isinstance(earlier, ast.EnumDecl) \
                and earlier.name == value_of.name:
            self.where[name] = (file, span)
            self.chosen[name] = (decl, pack, file)
            return  # a value the overridden enum already had
        sees_owner = owner in self.visible.get(pack, {pack})
        if not decl.override or value_of is not None:
            if owner != pack and sees_owner:
                self._err(BAD_OVERRIDE, f"'{name}' replaces the declaration of pack '{owner}' ({at}) "
                          "without 'override'", file, span,
                          "write 'override' before it to replace it on purpose, or choose another name")
            else:
                where = f"in pack '{owner}' " if owner != pack else ""
                hint = "rename one of them" + ("" if owner != pack else
                                               "; a pack cannot override its own declarations")
                if isinstance(decl, ast.GameDecl) and owner != pack:
                    hint = (f"a rule set has one game: compile packs that do not use each other apart, or "
                            f"write 'use {owner}' and 'override game {name} …' to replace its game")
                self._err(DUPLICATE, f"'{name}' is already declared {where}({at})", file, span, hint)
            return
        problem = self._override_problem(name, decl, earlier, owner, pack, at)
        if problem:
            self._err(BAD_OVERRIDE, problem[0], file, span, problem[1])
            return
        latest_pack = self.chosen[name][1]
        of = (f"of pack '{owner}' ({at})" if latest_pack == owner else
              f"of pack '{owner}', as pack '{latest_pack}' overrides it ({at}),")
        self.diagnostics.append(Diagnostic(
            Severity.NOTE, OVERRIDDEN, f"{describe(decl)} '{name}' {of} is overridden by pack '{pack}'",
            file, span, None))
        if isinstance(decl, (ast.FunctionDecl, ast.ProcedureDecl)) and calls_super(decl):
            kept = f"{name}@{latest_pack}"
            self.order.append(kept)
            self.chosen[kept] = self.chosen[name]
            self.super_of[id(decl)] = kept
        self.where[name] = (file, span)
        self.chosen[name] = (decl, pack, file)

    def _override_problem(self, name: str, decl: ast.Decl, earlier: ast.Decl | None, owner: str,
                          pack: str, at: str) -> tuple[str, str] | None:
        if owner == pack:
            return (f"'{name}' overrides a declaration of its own pack ({at})",
                    "remove 'override' or the earlier declaration")
        if owner not in self.visible.get(pack, {pack}):
            return (f"'{name}' overrides a declaration of pack '{owner}', which this pack does not use",
                    f"add 'use {owner}' at the top of this file, or remove 'override'")
        if earlier is None or describe(earlier) != describe(decl):
            what = describe(earlier) if earlier is not None else "die face"
            return (f"'{name}' is {_a(what)} in pack '{owner}' ({at}); its override is {_a(describe(decl))}",
                    f"an override replaces a declaration with one of the same sort: declare {_a(what)}, "
                    "or choose another name")
        if signature(earlier) != signature(decl):
            return (f"the override of {describe(decl)} '{name}' changes its signature from "
                    f"'{signature(earlier)}' to '{signature(decl)}'",
                    f"keep '{signature(earlier)}': the rules of pack '{owner}' rely on it")
        return None



def _a(noun: str) -> str:
    return ("an " if noun[:1] in "aeiou" else "a ") + noun
