"""``super()`` in an overriding trigger: the trigger it replaces, kept as a hidden procedure.

A trigger declared ``override`` replaces the trigger of a used pack; when its body calls
``super()``, the replaced trigger must still run, with the same event, but only from there:
it no longer listens to the event itself. Functions and procedures already keep what they
replace under a name no pack can write (``name@pack``, see :mod:`.names`) and call it like any
other; a kept trigger is made into such a procedure so that it goes the same way through
both execution modes of the runtime (the direct compiled engine and the resumable frame
machines), the graph and every analysis, with nothing new to run:

* its parameters are the event's arguments, and ``super()`` passes the overriding trigger's
  locals of the same names (so a change the override made before calling it is seen);
* its guard, and its ``optional by`` question, are checked inside, as the dispatch would;
* a ``before`` trigger changes the event's arguments: its procedure hands them back as a
  list on every way out (the end, ``stop``), and the call site assigns them to the
  overriding trigger's locals, which that trigger writes back to the event as it ends.

``super()`` of a trigger takes no arguments (the event is the one being dispatched) and the
override must listen to the same event as the trigger it replaces.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from . import ir

#: the local that holds what a kept ``before`` trigger hands back (no Lore name has an '@')
HANDED_BACK = "super@args"


@dataclass(frozen=True)
class KeptTrigger:
    """A replaced trigger that an override's ``super()`` runs."""

    #: its key among the rule set's procedures (``name@pack``)
    key: str
    #: the event it listens to (its key), and that event's argument names, in order
    event: str
    params: tuple[str, ...]
    #: a ``before`` trigger: it returns the event's arguments as it leaves them
    hands_back: bool


def kept_body(kept: KeptTrigger, guard: ir.X | None, ask: ir.Ask | None,
              body: tuple[ir.S, ...], origin: ir.Origin) -> tuple[ir.S, ...]:
    """The body of a kept trigger's procedure: the body under its guard and question, and,
    for a ``before`` trigger, the arguments handed back however it ends."""
    if kept.hands_back:
        back = ir.Return(ir.MakeList(tuple(ir.Local(p, origin=origin) for p in kept.params), origin=origin),
                         origin=origin)
        body = _stops_return(body, back)
    for cond in (ask, guard):
        if cond is not None:
            body = (ir.If(((cond, body),), (), origin=origin),)
    return body + ((back,) if kept.hands_back else ())


def _stops_return(body: tuple[ir.S, ...], back: ir.Return) -> tuple[ir.S, ...]:
    """``body`` with each ``stop`` (in any nested block) made ``back``: a stopped ``before``
    trigger keeps the changes it made so far."""
    out: list[ir.S] = []
    for s in body:  # no IR class derives from another: isinstance is an exact test here
        if isinstance(s, ir.Stop):
            s = dataclasses.replace(back, origin=s.origin)
        elif isinstance(s, ir.If):
            s = dataclasses.replace(s, branches=tuple((c, _stops_return(b, back)) for c, b in s.branches),
                                    otherwise=_stops_return(s.otherwise, back))
        elif isinstance(s, (ir.ForEach, ir.Repeat, ir.While)):
            s = dataclasses.replace(s, body=_stops_return(s.body, back))
        out.append(s)
    return tuple(out)


def super_call(kept: KeptTrigger, origin: ir.Origin) -> ir.CallProcedure:
    """``super()`` in the overriding trigger: the kept trigger on this trigger's arguments."""
    return ir.CallProcedure(kept.key, tuple(ir.Local(p, origin=origin) for p in kept.params), origin=origin)


def super_statements(kept: KeptTrigger, origin: ir.Origin) -> tuple[ir.S, ...]:
    """``super()`` as a statement: the call, then, for a ``before`` trigger, the arguments it
    hands back assigned to this trigger's locals."""
    call = super_call(kept, origin)
    if not kept.hands_back:
        return (ir.Do(call, origin=origin),)
    back = [ir.SetLocal(p, "=", ir.ListIndex(ir.Local(HANDED_BACK, origin=origin), ir.Const(i, origin=origin),
                                             origin=origin), origin=origin)
            for i, p in enumerate(kept.params)]
    return (ir.Let(HANDED_BACK, call, origin=origin), *back)
