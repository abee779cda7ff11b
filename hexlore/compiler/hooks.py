"""Functions the runtime calls by name (hooks) must take and give what the runtime passes.

A pack declares a hook like any function; the runtime finds it by its name. A hook with
another signature would fail only when the runtime first calls it — in the middle of a game,
or of a search — so its signature is checked here, with the rest of the pack.
"""

from __future__ import annotations

from ..diagnostics import Diagnostic, codes, error
from .model import RuleSet
from .types import BOOL, INT, SIDE, UNIT, Type
from .usage import EVALUATION_RULE, SHARING_RULE


#: the runtime's hooks: name -> ((parameter, type)…, result type, what the runtime asks with it).
#: The occupancy rule (``may_occupy``) is checked where a scenario places units instead (S107).
HOOKS: dict[str, tuple[tuple[tuple[str, Type], ...], Type, str]] = {
    SHARING_RULE: ((("u", UNIT), ("other", UNIT)), BOOL, "whether a unit may stand with another unit"),
    EVALUATION_RULE: ((("s", SIDE),), INT, "how well a side stands, more is better, for a searching player"),
}


def _signature(params: tuple[tuple[str, Type], ...], returns: Type) -> str:
    return "(" + ", ".join(f"{name}: {t}" for name, t in params) + f") -> {returns}"


def check_hooks(rules: RuleSet) -> list[Diagnostic]:
    """C022 for each declared hook whose parameters or result differ from what the runtime uses."""
    diags: list[Diagnostic] = []
    for name, (params, returns, purpose) in HOOKS.items():
        spec = rules.functions.get(name)
        if spec is None:
            continue
        declared = tuple(p.type for p in spec.params)
        if declared == tuple(t for _, t in params) and spec.returns == returns:
            continue
        wanted = _signature(params, returns)
        diags.append(error(
            codes.HOOK_SIGNATURE,
            f"'{name}' is a runtime hook ({purpose}): it must take and give "
            f"{wanted}, not ({', '.join(str(t) for t in declared)}) -> {spec.returns}",
            spec.origin.file, spec.origin.span,
            f"declare it as 'function {name}{wanted} = …', or give your function another name"))
    return diags
