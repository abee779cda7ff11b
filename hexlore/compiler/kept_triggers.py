"""Declaring the triggers an override's ``super()`` runs (the design: :mod:`.trigger_super`).

Two steps, because an override's body may be lowered before or after the trigger it
replaces: :func:`keep_trigger` gives each kept trigger its signature (the event's
arguments) so that ``super()`` can be lowered anywhere, then :func:`lower_kept_trigger`
lowers its guard, question and body, in its own pack, into the body of its procedure.
"""

from __future__ import annotations

import dataclasses

from ..dsl import ast
from ..diagnostics import codes, did_you_mean, error
from . import ir
from .findings import Findings
from .lower import Context, Lowerer, Scope
from .model import ParamSpec, ProcedureSpec
from .names import Entry
from .resolve import EVENTS
from .trigger_super import KeptTrigger, kept_body
from .types import ANY, BOOL, list_of


def keep_trigger(lowerer: Lowerer, entry: Entry, decl: ast.TriggerDecl, found: Findings) -> None:
    """Register the procedure a replaced trigger is kept as, with no body yet."""
    rules = lowerer.rules
    event_key = lowerer.lookup(Context(entry.file, entry.pack), decl.event, decl.event_span, EVENTS)
    event = rules.events.get(event_key) if event_key else None
    if event_key is None:
        guess = did_you_mean(decl.event, rules.events)
        found.add(error(codes.UNDEFINED_NAME, f"undefined event '{decl.event}'", entry.file, decl.event_span,
                        f"did you mean '{guess}'?" if guess else "declare it with 'event NAME(…)'"),
                  about=(decl.event,))
    params = event.params if event is not None else ()
    hands_back = decl.timing == "before"
    # event "" marks a trigger on an unknown event, as in declare_bodies.py
    lowerer.kept_triggers[entry.key] = KeptTrigger(entry.key, event_key if event_key and event is not None else "",
                                                   tuple(p.name for p in params), hands_back)
    rules.procedures[entry.key] = ProcedureSpec(
        entry.key, tuple(ParamSpec(p.name, p.type, None) for p in params), list_of(ANY) if hands_back else None,
        (), ir.Origin(entry.file, decl.span), entry.pack)


def lower_kept_trigger(lowerer: Lowerer, entry: Entry, decl: ast.TriggerDecl, replaces: str | None) -> Context:
    """Lower a kept trigger into its procedure; the context its body was lowered in (for the
    calls and events it makes). ``replaces``: the trigger it replaces in turn, in a chain."""
    rules = lowerer.rules
    kept = lowerer.kept_triggers[entry.key]
    spec = rules.procedures[entry.key]
    scope = Scope({p.name: p.type for p in spec.params})
    what = f"trigger '{decl.name}' of pack '{entry.pack}'"
    gctx = Context(entry.file, entry.pack, pure=True, what=f"the guard of {what}", event=kept.event,
                   trigger=decl.name, replaces=replaces)
    guard = ask = None
    if decl.guard is not None:
        guard, gt = lowerer.expr(gctx, scope, decl.guard)
        lowerer.expect(gctx, BOOL, gt, decl.guard.span, "a trigger guard")
    if decl.optional_by is not None:
        by = lowerer.expr(gctx, scope, decl.optional_by)[0]
        prefer = None
        if decl.optional_prefer is not None:
            prefer, pt = lowerer.expr(gctx, scope, decl.optional_prefer)
            lowerer.expect(gctx, BOOL, pt, decl.optional_prefer.span, "the preferred answer")
        ask = ir.Ask(decl.name, by, prefer, None, origin=ir.Origin(entry.file, decl.optional_by.span))
    ctx = Context(entry.file, entry.pack, what=what, event=kept.event, trigger=decl.name, replaces=replaces)
    body = lowerer.block(ctx, scope, decl.body)
    rules.procedures[entry.key] = dataclasses.replace(
        spec, body=kept_body(kept, guard, ask, body, ir.Origin(entry.file, decl.span)))
    return ctx
