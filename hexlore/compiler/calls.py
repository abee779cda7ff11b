"""Which argument of a call goes to which parameter: positional and named arguments alike.

Functions, procedures, events and built-ins share one rule so a designer learns it once:
positional arguments fill the parameters in order, ``name: value`` fills the parameter of that
name, and a parameter left out takes its default or is reported missing. Matching is kept
apart from lowering because a built-in lowers an argument by the parameter it goes to (a
function-valued parameter takes a function's name, an enum parameter reads the enum's values),
so the parameter must be known before the argument's expression is looked at.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..dsl import ast
from ..diagnostics import Span, did_you_mean

#: the parameter of an argument that fills no parameter (the repeats of a variadic call)
EXTRA = ""


@dataclass(frozen=True, slots=True)
class Problem:
    """A call-level mistake found while matching, reported where the argument is written."""

    message: str
    span: Span
    hint: str | None


@dataclass
class Match:
    """The outcome of matching a call's arguments, in the order they are written.

    ``targets[i]`` is the parameter argument ``i`` fills, :data:`EXTRA` for a repeat of a
    variadic call, or None when it fills none (``problems[i]`` says why).
    """

    targets: list[str | None] = field(default_factory=list)
    problems: list[Problem | None] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(p is None for p in self.problems)


def _where(span: Span) -> str:
    return f"{span.line}:{span.column}"


def match(names: list[str], args: tuple[ast.Arg, ...], what: str, variadic: bool = False) -> Match:
    """Match ``args`` to the parameters ``names`` of ``what`` ('function 'f'', …)."""
    out = Match()
    given: dict[str, ast.Arg] = {}
    positional = 0
    named = False
    for a in args:
        target: str | None = None
        problem: Problem | None = None
        if a.name is None and named:
            problem = Problem(f"a positional argument of {what} follows a named one", a.span,
                              "name this argument too ('name: value'), or put it before the named ones")
        elif a.name is None:
            if positional < len(names):
                target = names[positional]
            elif variadic:
                target = EXTRA
            else:
                problem = Problem(f"{what} takes {len(names)} argument{'s' if len(names) != 1 else ''}, "
                                  f"got {len(args)}", a.span, f"parameters: {', '.join(names) or 'none'}")
            positional += 1
        elif a.name in names:
            named = True
            target = a.name
        else:
            named = True
            guess = did_you_mean(a.name, names)
            problem = Problem(f"{what} has no parameter '{a.name}'", a.span,
                              f"did you mean '{guess}'?" if guess else f"parameters: {', '.join(names) or 'none'}")
        if target and target in given:
            first = given[target]
            how = "by name" if first.name is not None else "by position"
            problem = Problem(f"{what} gets argument '{target}' twice", a.span,
                              f"it is already given {how} at {_where(first.span)}: keep one of them")
            target = None
        elif target:
            given[target] = a
        out.targets.append(target)
        out.problems.append(problem)
    return out
