"""A designer's edits of a game under way: set a unit's field, move a unit, force the next roll.

A designer playtesting wants to try "what if this unit were weaker, or stood there, or the
next roll came up swords": these are the Game-level primitives for it (issue 31, designer
mode), general to any rules. Each checks its input against the rules and the board as a
scenario's values are checked (a field the units have, a value of the field's type converted
by the scenario's own converter, a hex on the board and free) and raises :class:`EditError`
with a message naming what is wrong, changing nothing. Changes go through the state's
journalled writes (``state.write``/``state.place``), so forks and explorations see them like
any rule's change. An edit is data (a small dict, :func:`apply_edit`), so a server can store
it and replay it to rebuild the same position.

What the pending decision offers is not recomputed: it was asked of the position before the
edit (as a test's ``given:`` sets a position before anything is asked).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hexlore.runtime.engine.dice import Roller
from hexlore.runtime.engine.core.state import Unit, label

if TYPE_CHECKING:
    from hexlore.runtime.engine.game import Game

#: the kinds of edit, as :func:`apply_edit` reads them
KINDS = ("field", "move", "dice")
#: the most forced rolls waiting at once, and dice in one
MAX_FORCED = 20


class EditError(ValueError):
    """An edit refused: its text says what is wrong."""


def _unit(game: "Game", uid: object) -> Unit:
    unit = game.state.units.get(uid) if isinstance(uid, str) else None
    if unit is None:
        raise EditError(f"no unit '{str(uid)[:60]}' in this game")
    return unit


def set_unit_field(game: "Game", uid: object, name: object, value) -> None:
    """Set a unit's declared field to ``value`` (a scenario value: number, name, list…)."""
    unit = _unit(game, uid)
    fields = game.rules.kinds["unit"].fields
    if not isinstance(name, str) or name not in fields:
        raise EditError(f"units have no field '{str(name)[:60]}'"
                        + (f" (fields: {', '.join(sorted(fields))})" if fields else ""))
    problems: list = []
    converted = game.values.convert(value, fields[name].type, problems, ("edit", uid, name))
    if problems:
        raise EditError(f"{unit.id}.{name}: {problems[0].message}")
    game.state.write(unit.f, name, converted)


def move_unit(game: "Game", uid: object, where: object) -> None:
    """Put a unit on a free hex of the board (``where`` its label), or set it aside (None)."""
    unit = _unit(game, uid)
    state = game.state
    if where is None:
        state.place(unit, None)
        return
    try:
        hex_ = state.board.parse_label(str(where)) if isinstance(where, str) else None
    except ValueError:
        hex_ = None
    if hex_ is None or hex_ not in state.board:
        raise EditError(f"'{str(where)[:20]}' is not a hex of this board")
    others = [u for u in state.units_at(hex_) if u is not unit]
    if others:
        raise EditError(f"{label(hex_, state.board)} holds {others[0].id}: move a unit to a free hex")
    if not unit.alive:
        raise EditError(f"unit '{uid}' was eliminated: it cannot be placed")
    state.place(unit, hex_)


def force_next_roll(game: "Game", faces: object) -> None:
    """The next roll of the game comes up ``faces`` (face names; checked against the die when
    rolled, as a test's ``dice:`` are). Refused when the names are no die's faces."""
    if not isinstance(faces, list) or not 0 < len(faces) <= MAX_FORCED or not all(isinstance(f, str) for f in faces):
        raise EditError(f"give the next roll as a list of 1 to {MAX_FORCED} face names")
    known = {face.name for die in game.rules.dice.values() for face in die.faces}
    unknown = [f for f in faces if f not in known]
    if unknown:
        raise EditError(f"'{unknown[0][:40]}' is no die's face (faces: {', '.join(sorted(known))})")
    roller = game.roller
    if not isinstance(roller, Roller):
        raise EditError("this game's dice are not its own (an exploration deals them): no roll can be forced")
    forced = roller.forced
    if len(forced) >= MAX_FORCED:
        raise EditError(f"{MAX_FORCED} rolls are forced already")
    forced.append(list(faces))


def apply_edit(game: "Game", edit: dict) -> None:
    """Apply one edit given as data: ``{"kind": "field", "unit", "field", "value"}``,
    ``{"kind": "move", "unit", "hex"}`` or ``{"kind": "dice", "faces": [...]}``."""
    kind = edit.get("kind") if isinstance(edit, dict) else None
    if kind == "field":
        set_unit_field(game, edit.get("unit"), edit.get("field"), edit.get("value"))
    elif kind == "move":
        move_unit(game, edit.get("unit"), edit.get("hex"))
    elif kind == "dice":
        force_next_roll(game, edit.get("faces"))
    else:
        raise EditError(f"unknown edit '{str(kind)[:40]}': one of {', '.join(KINDS)}")
