"""What compiled rules call besides each other: the slow paths of Lore's value rules.

The code generated from the IR (:mod:`.expressions`, :mod:`.statements`) does the common
case inline (ints added, fields read, lists walked) and calls these only when a value needs
more than Python gives: a face or a truth value where a number is wanted, a list index or a
table key to check, a field another pack leaves unset, a number beyond ±MAX_INT. They are
bound into the generated module under fixed names (``h_…``, see :data:`HELPERS`); each
failure is a :class:`RuleError` at the origin the generated code passes in.
"""

from __future__ import annotations

from functools import partial

from hexlore.compiler import ir
from hexlore.compiler.model import DefinitionSpec, FaceSpec, Symbol
from hexlore.dsl.limits import MAX_INT
from hexlore.runtime.engine.core.bounds import (MAX_LIST_ITEMS, Budget, RuleError, as_number, bounded_list,
                                           out_of_range, precondition_failed)
from hexlore.runtime.engine.core.face_classes import Observed, aggregate
from hexlore.runtime.engine.core.requests import CALL, RETURN, Choice, Roll
from hexlore.runtime.engine.core.state import MISSING, EventRecord, Side, Unit
from hexlore.runtime.geometry.grid import Hex

MAX_REPEAT = 10_000


def number(value, op: str, origin: ir.Origin):
    """An operand that is not a plain int: none is an error, a face counts its value."""
    if value is None:
        raise RuleError(f"'{op}' got none instead of a number", origin)
    return as_number(value)


def too_large(value: int, op: str, origin: ir.Origin):
    raise out_of_range(value, op, origin)


def divided_by_zero(origin: ir.Origin):
    raise RuleError("division by zero", origin)


def concat(left, right, origin: ir.Origin) -> list:
    return bounded_list(list(left or []) + list(right or []), origin)


def list_item(items, i, origin: ir.Origin):
    if not 0 <= i < len(items):
        raise RuleError(f"index {i} is outside a list of {len(items)}", origin)
    return items[i]


def no_entry(table: str, key, origin: ir.Origin):
    raise RuleError(f"table '{table}' has no entry for {key}", origin)


def unset(name: str, what: str, definition, declarer: str, origin: ir.Origin):
    raise RuleError(f"{what} has no value for '{name}': pack '{declarer}' adds that field, and "
                    f"'{definition.name}' comes from pack '{definition.pack}', which does not use it", origin,
                    f"make pack '{definition.pack}' 'use {declarer}' and set '{name}', or give the field a default")


def unit_unset(unit: Unit, name: str, declarer: str, origin: ir.Origin):
    unset(name, f"unit '{unit.id}'", unit.definition, declarer, origin)


def definition_unset(d: DefinitionSpec, name: str, unset_in: dict, origin: ir.Origin):
    """A definition's field read as none: an error where the kind's field may be left unset by
    a pack that does not see it (``unset_in``: kind -> the pack that adds the field)."""
    declarer = unset_in.get(d.kind)
    if declarer:
        unset(name, f"{d.kind} '{d.name}'", d, declarer, origin)
    return None


def dynamic_field(value, name: str, origin: ir.Origin):
    """A field read on a value of type any."""
    if value is None:
        raise RuleError(f"cannot read '{name}' of none (expected a value with fields)", origin)
    if isinstance(value, (Unit, Side)):
        return value.f[name]
    if isinstance(value, EventRecord):
        return value.args[name]
    raise RuleError(f"cannot read '{name}' of {value!r}", origin)


def is_a(value, name: str, names: frozenset, definitions: dict) -> bool:
    """``value is NAME``: a unit's or a definition's kind or trait (``names``: the definitions
    that are NAME, by name; one not in the rule set is asked for its own traits)."""
    d = value.definition if value.__class__ is Unit else value
    if not isinstance(d, DefinitionSpec):
        return False
    if d.name in definitions:
        return d.name in names
    return d.name == name or name in d.traits


def has_tag(face, tag) -> bool:
    if not isinstance(face, FaceSpec) or tag is None:
        return False
    return (tag.name if isinstance(tag, Symbol) else str(tag)) in face.tags


def spend_list(items, origin: ir.Origin, budget: Budget):
    """A list a built-in made: within MAX_LIST_ITEMS, and its items spent from the game's
    budget (generated code passes ``R.budget``)."""
    if items.__class__ is list:
        n = len(items)
        if n > MAX_LIST_ITEMS:
            bounded_list(items, origin)
        budget.left -= n  # budget.spend written out: this runs at nearly every built-in call
        if budget.left < 0:
            budget.spend(0, origin)
    return items


def spend_source(items, origin: ir.Origin, budget: Budget):
    """The list an aggregate reads: one step of the budget per item, before reading them."""
    budget.spend(len(items), origin)
    return items


def repeat_count(times, origin: ir.Origin, budget: Budget) -> int:
    n = as_number(times)
    if n > MAX_REPEAT:
        raise RuleError(f"'repeat {n}' exceeds the bound of {MAX_REPEAT}", origin)
    n = max(n, 0)
    budget.spend(n, origin)
    return n


def add_to(current, value, op: str, origin: ir.Origin):
    """``x += v`` and ``x -= v`` on a local or a field: lists grow (bounded), numbers add."""
    if op == "+=":
        if isinstance(current, list):
            return bounded_list(list(current) + list(value), origin)
        result = current + as_number(value)
    else:
        result = current - as_number(value)
    if result.__class__ is int and not -MAX_INT <= result <= MAX_INT:
        raise out_of_range(result, op, origin)
    return result


def change_none(name: str, op: str, origin: ir.Origin):
    raise RuleError(f"cannot use '{op}' on '{name}': it has no value", origin,
                    "set it with '=' first, or give the field a default")


def set_on_none(name: str, origin: ir.Origin):
    raise RuleError(f"cannot change '{name}' of none", origin)


def default_index(options: list, value):
    return options.index(value) if value in options else None


#: the name each helper has in generated code
HELPERS = {
    "h_number": number, "h_too_large": too_large, "h_zero": divided_by_zero, "h_concat": concat,
    "h_item": list_item, "h_no_entry": no_entry, "h_unit_unset": unit_unset,
    "h_def_unset": definition_unset, "h_dynamic": dynamic_field, "h_is_a": is_a, "h_has_tag": has_tag,
    "h_spend_list": spend_list, "h_spend": spend_source, "h_repeat": repeat_count, "h_add_to": add_to,
    "h_change_none": change_none, "h_set_on_none": set_on_none, "h_default_index": default_index,
    "h_as_number": as_number, "h_bounded": bounded_list, "h_rule_error": RuleError,
    "h_event": EventRecord, "h_unit": Unit, "h_int": int, "h_list": list, "h_len": len,
    "h_range": range, "h_partial": partial, "h_missing": MISSING, "h_face": FaceSpec,
    "h_call": CALL, "h_return": RETURN, "h_roll": Roll, "h_choice": Choice,
    "h_observed": Observed, "h_aggregate": aggregate, "h_precondition": precondition_failed,
    "h_hex": Hex,
}
