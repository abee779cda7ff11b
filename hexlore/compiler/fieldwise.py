"""Traits, definitions and kinds, whose overrides change only the fields they name.

``override trait mounted { speed: 1 }`` changes one value of the trait and keeps
every other: a mod says what it changes, and nothing it leaves out is lost (issue 15). The
name table keeps the original declaration and each override of such a thing as *layers*
(:class:`~.names.Layer`); this module lowers them in order, each layer in its own pack (an
override sees other names than the pack it overrides), a later layer's value of a field
replacing an earlier one. Traits an override lists after ``is`` are added to the original's.

An override changes what the original has; naming anything else is a mistake, reported
(``C021``) rather than silently taken:

* a trait's override may set the fields the trait gives (its own values and those of the
  traits it includes); to give it another value, include a trait that sets it
  (``override trait mounted is armoured { }``);
* a definition's override may set the fields of its kind;
* a kind's override may change the default of its fields (the type stays: the original
  pack's rules rely on it, ``C012``); ``fields KIND { … }`` adds fields.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Iterator

from ..dsl import ast
from ..diagnostics import codes, Span, did_you_mean, error
from . import ir
from .findings import Findings
from .lower import Context, Lowerer, Scope
from .model import DefinitionSpec, KindSpec, RuleSet, TraitSpec
from .names import Layer
from .resolve import TRAITS
from .types import Type



def guess(name: str, pool: Iterable[str]) -> str | None:
    """'did you mean …?' for ``name`` among ``pool``, or None."""
    g = did_you_mean(name, list(pool))
    return f"did you mean '{g}'?" if g else None


def title_of(layers: list[Layer]) -> str:
    """A definition's title: the latest layer's that gives one, else its name."""
    titles = (la.of(ast.Definition).title for la in reversed(layers))
    return next((title for title in titles if title), layers[0].decl.name)


class Fieldwise:
    """Lowers the layers of traits, definitions and kinds of one rule set."""

    def __init__(self, lowerer: Lowerer, rules: RuleSet, found: Findings):
        self.lowerer = lowerer
        self.rules = rules
        self.found = found
        #: (trait, field) -> (type, span, file, pack) of the value in force: checked against
        #: the kind of each definition that takes it
        self.trait_types: dict[tuple[str, str], tuple[Type, Span, str, str]] = {}
        #: overridden values of traits, checked once every trait is lowered: (trait, layers
        #: before the override, the value set)
        self._trait_overrides: list[tuple[str, list[Layer], ast.Prop, Layer]] = []

    def _err(self, code: str, message: str, file: str, span: Span, hint: str | None = None,
             about: tuple[str, ...] = ()) -> None:
        """Report; ``about``: the names the message is about, left out if a syntax error dropped one."""
        self.found.add(error(code, message, file, span, hint), about)

    # ------------------------------------------------------------ traits
    def _once(self, props: Iterable[ast.Prop], owner: str, file: str) -> Iterator[ast.Prop]:
        """The props of one declaration, each field's first only: a second is reported."""
        seen: set[str] = set()
        for prop in props:
            if prop.name in seen:
                self._err(codes.DECLARED_TWICE, f"{owner} sets '{prop.name}' twice", file, prop.span, "keep one of them")
                continue
            seen.add(prop.name)
            yield prop

    def trait(self, key: str, layers: list[Layer]) -> TraitSpec:
        """The trait ``key``: its included traits and values, over every layer."""
        inner: list[str] = []
        values: dict[str, ir.X] = {}
        for i, layer in enumerate(layers):
            decl = layer.of(ast.TraitDecl)
            ctx = Context(layer.file, layer.pack, pure=True, what="a declaration")
            for written in decl.traits:
                found = self.trait_key(ctx, written, word_span(self.rules, layer.file, decl.span, written))
                if (found or written) not in inner:
                    inner.append(found or written)
            for p in self._once(decl.props, f"trait '{key}'", layer.file):
                x, t = self.lowerer.expr(ctx, Scope(), p.value)
                values[p.name] = x
                self.trait_types[(key, p.name)] = (t, p.value.span, layer.file, layer.pack)
                if layer.override:
                    self._trait_overrides.append((key, layers[:i], p, layer))
        return TraitSpec(key, tuple(inner), tuple(values.items()), self.rules.traits[key].origin)

    def check_trait_overrides(self) -> None:
        """C021 for each value an override sets that the trait it overrides does not give (the
        value is dropped, so the definitions that take the trait do not report it again)."""
        for key, before, prop, layer in self._trait_overrides:
            gives = self._gives(before)
            if prop.name in gives:
                continue
            trait = self.rules.traits[key]
            self.rules.traits[key] = dataclasses.replace(
                trait, values=tuple((n, x) for n, x in trait.values if n != prop.name))
            original = before[0]
            hint = guess(prop.name, gives) or (
                "an override changes the values the trait sets (its own and its traits'); to give it another, "
                f"include a trait that sets it: 'override trait {original.decl.name} is OTHER_TRAIT {{ }}'")
            self._err(codes.NOT_IN_ORIGINAL, f"the override of trait '{original.decl.name}' sets '{prop.name}', which "
                      f"the trait of pack '{original.pack}' does not set", layer.file, prop.span, hint)

    def _gives(self, layers: list[Layer]) -> set[str]:
        """The fields these layers of a trait give: their own values and their included traits'."""
        out: set[str] = set()
        todo: list[str] = []
        for layer in layers:
            decl = layer.of(ast.TraitDecl)
            out.update(p.name for p in decl.props)
            todo += [k for t in decl.traits
                     if (k := self.lowerer.resolver.find(layer.pack, t, TRAITS).key) is not None]
        seen: set[str] = set()
        while todo:
            name = todo.pop()
            trait = self.rules.traits.get(name)
            if name in seen or trait is None:
                continue
            seen.add(name)
            out.update(n for n, _ in trait.values)
            todo.extend(trait.traits)
        return out

    def trait_key(self, ctx: Context, written: str, span: Span) -> str | None:
        """The key of a trait named after 'is', or None after reporting why there is none."""
        key = self.lowerer.lookup(ctx, written, span, TRAITS)
        if key is None:
            self._err(codes.UNDEFINED_NAME, f"undefined trait '{written}'", ctx.file, span,
                      guess(written, self.rules.traits) or f"declare it with 'trait {written} {{ … }}'",
                      about=(written,))
        return key or None

    # ------------------------------------------------------------ definitions
    def definition(self, first: DefinitionSpec, layers: list[Layer]) -> DefinitionSpec:
        """A definition's traits and values over every layer (``first``: its spec from pass 1)."""
        rules = self.rules
        kind = rules.kinds[first.kind]
        last = layers[-1]
        decl = last.of(ast.Definition)
        traits: list[str] = []
        visiting: set[str] = set()

        def add_trait(name: str) -> None:
            if name in traits or name in visiting:
                return  # a cycle of traits is reported at the traits themselves (C015)
            trait = rules.traits.get(name)
            if trait is None:
                return  # an undefined trait inside a trait is reported at that trait
            visiting.add(name)
            for inner in trait.traits:
                add_trait(inner)
            traits.append(name)

        for layer in layers:
            ctx = Context(layer.file, layer.pack, pure=True, what=f"{decl.kind} '{decl.name}'")
            for t in layer.of(ast.Definition).traits:
                key = self.trait_key(ctx, t, word_span(rules, layer.file, layer.decl.span, t))
                if key:
                    add_trait(key)
        values: dict[str, ir.X] = {}
        for tname in traits:
            self._trait_values(tname, kind, decl, values)
        for layer in layers:
            self._own_values(layer, kind, values)
        self._missing(kind, decl, last, values)
        return DefinitionSpec(first.kind, first.name, first.title, frozenset(traits),
                              tuple(values.items()), first.origin, first.pack)

    def _trait_values(self, tname: str, kind: KindSpec, decl: ast.Definition, values: dict[str, ir.X]) -> None:
        trait = self.rules.traits[tname]
        for fname, value in trait.values:
            if fname not in kind.fields:
                self._err(codes.UNKNOWN_FIELD, f"trait '{tname}' sets '{fname}', which {decl.kind} "
                          f"'{decl.name}' does not have", trait.origin.file, trait.origin.span,
                          guess(fname, kind.fields), about=(tname, fname, decl.name))
                continue
            if (tname, fname) in self.trait_types:
                t, span, tfile, tpack = self.trait_types[(tname, fname)]
                tctx = Context(tfile, tpack, pure=True, what=f"trait '{tname}'")
                self.lowerer.expect(tctx, kind.fields[fname].type, t, span, f"field '{fname}' of trait '{tname}'")
            values[fname] = value

    def _own_values(self, layer: Layer, kind: KindSpec, values: dict[str, ir.X]) -> None:
        """The values one layer of a definition sets, over those before it."""
        decl = layer.of(ast.Definition)
        ctx = Context(layer.file, layer.pack, pure=True, what=f"{decl.kind} '{decl.name}'")
        for prop in self._once(decl.props, f"{decl.kind} '{decl.name}'", layer.file):
            spec = kind.fields.get(prop.name)
            value, t = self.lowerer.expr(ctx, Scope(), prop.value)
            if spec is None:
                add = f"'fields {decl.kind} {{ {prop.name}: … }}'"
                if layer.override:
                    self._err(codes.NOT_IN_ORIGINAL, f"the override of {decl.kind} '{decl.name}' sets '{prop.name}', "
                              f"which a {decl.kind} does not have", layer.file, prop.span,
                              guess(prop.name, kind.fields) or f"an override changes the fields the original "
                              f"has; add the field to the kind first with {add}")
                else:
                    self._err(codes.UNKNOWN_FIELD, f"{decl.kind} has no field '{prop.name}'", layer.file, prop.span,
                              guess(prop.name, kind.fields) or f"declare it with {add}", about=(prop.name,))
                continue
            self.lowerer.expect(ctx, spec.type, t, prop.value.span, f"field '{prop.name}'")
            values[prop.name] = value

    def _missing(self, kind: KindSpec, decl: ast.Definition, last: Layer, values: dict[str, ir.X]) -> None:
        """C013 for each field left unset that has no default.

        A field another pack adds is required only of definitions whose pack sees that pack;
        elsewhere it starts as none, like an optional field (reading it in arithmetic is an R001).
        """
        pack = last.pack
        sees = self.lowerer.resolver.table.visible.get(pack, {pack})
        for fname, spec in kind.fields.items():
            if fname not in values and spec.default is None and not spec.type.optional \
                    and spec.type.name != "list" and (not spec.pack or spec.pack == pack or spec.pack in sees):
                adds = f"; pack {spec.pack} adds it to {decl.kind})" if spec.pack and spec.pack != pack else ")"
                self._err(codes.MISSING_FIELD, f"{decl.kind} '{decl.name}' does not set '{fname}'", last.file,
                          decl.name_span, f"add '{fname}: …' (it has no default" + adds)

    # ------------------------------------------------------------ kinds
    def kind_field(self, kind: KindSpec, layer: Layer, f: ast.FieldDecl) -> None:
        """An override of a kind changes one of its fields: its default, never its type."""
        spec = kind.fields.get(f.name)
        name = layer.decl.name
        if spec is None:
            self._err(codes.NOT_IN_ORIGINAL, f"the override of kind '{name}' declares '{f.name}', which the kind "
                      "does not have", layer.file, f.span,
                      guess(f.name, kind.fields) or f"an override changes the fields a kind has; add one with "
                      f"'fields {name} {{ {f.name}: … }}'")
            self.lowerer.skipped.add(f.name)
            return
        new = self.lowerer.resolve_type(Context(layer.file, layer.pack), f.type)
        if new != spec.type:
            self._err(codes.BAD_OVERRIDE, f"the override of kind '{name}' changes the type of field '{f.name}' from "
                      f"'{spec.type}' to '{new}'", layer.file, f.span,
                      f"keep '{spec.type}': the rules of the packs that declare the kind rely on it")
            return
        kind.fields[f.name] = dataclasses.replace(spec, default=None, origin=ir.Origin(layer.file, f.span))


def word_span(rules: RuleSet, file: str, span: Span, word: str) -> Span:
    """The span of ``word`` on the first line of ``span`` (after its start), else ``span``.

    Trait names in the syntax tree carry no span of their own; they sit on the header line.
    """
    source = rules.sources.get(file)
    if source is None:
        return span
    line = source.line_text(span.line)
    match = re.compile(rf"\b{re.escape(word)}\b").search(line, max(span.column - 1, 0))
    return Span.at(span.line, match.start() + 1, len(word)) if match else span
