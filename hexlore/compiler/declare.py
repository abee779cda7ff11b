"""Collect the declarations of every loaded pack into one RuleSet.

Declarations may be used before they appear, so the work is done in passes over every
declaration in force, one pass per kind of declaration, in the order :data:`PASSES` lists
(the model is sqlglot's optimizer: plain functions in a list). The first passes register every
name and signature (:mod:`.declare_shapes`; duplicates and overrides were checked when the name
table was built, :mod:`.names`), the next lower values and bodies to IR (:mod:`.declare_bodies`,
with :mod:`.lower`), the last checks for recursion (:mod:`.recursion`). Every name a
declaration mentions is looked up from its own pack (:mod:`.resolve`), and the rule set is
keyed by each thing's key. The passes share one :class:`~.declaring.Declaring`.
"""

from __future__ import annotations

from collections.abc import Callable

from . import declare_bodies as bodies
from . import declare_shapes as shapes
from . import ir
from .declarers import Declarers
from .declaring import Declaring
from .fieldwise import Fieldwise
from .findings import Findings
from .lower import Lowerer
from .model import KindSpec, RuleSet
from .names import BUILTIN_KINDS, register_packs
from .packs import LoadedPacks
from .recursion import recursion
from .resolve import Resolver

Pass = Callable[[Declaring], None]

#: the passes, in order: each may use what the ones before it declared
PASSES: tuple[Pass, ...] = (
    # names and signatures
    shapes.symbols, shapes.kinds, shapes.dice, shapes.fields, shapes.events, shapes.functions,
    shapes.procedures, shapes.options, shapes.tables, shapes.traits, shapes.definitions,
    # values and bodies
    bodies.field_defaults, bodies.option_defaults, bodies.table_entries, bodies.trait_values,
    bodies.definition_values, bodies.function_bodies, bodies.procedure_bodies, bodies.triggers, bodies.game,
    # checks of the whole
    recursion,
)


def declare(loaded: LoadedPacks) -> RuleSet:
    """The rule set the loaded packs declare; its diagnostics are the name table's, those of
    the passes (less those about names a syntax error dropped: see :class:`~.declaring.Findings`)
    and the lowerer's."""
    rules = RuleSet(packs=loaded.pack_names, sources=dict(loaded.sources))
    table, fields_decls = register_packs(loaded)
    resolver = Resolver(table, loaded.pack_names, loaded.aliases,
                        Declarers(loaded.roots, set(loaded.pack_names)))
    rules.qualified = {f"{p}.{e.name}": e.key for entries in table.by_name.values() for e in entries
                       for p in e.packs}
    for kind in BUILTIN_KINDS:
        rules.kinds[kind] = KindSpec(kind, {}, True, ir.NOWHERE)
    lowerer = Lowerer(rules, resolver, loaded.skipped)
    found = Findings()
    st = Declaring(loaded, rules, table, lowerer, found, Fieldwise(lowerer, rules, found), fields_decls)
    for run in PASSES:
        run(st)
    rules.diagnostics = table.diagnostics + found.kept(lowerer.skipped) + lowerer.diagnostics
    rules.written_qualified = lowerer.written_qualified
    rules.calls = st.calls
    rules.emits = st.emits
    return rules
