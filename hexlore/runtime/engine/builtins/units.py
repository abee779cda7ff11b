"""Built-ins of the family ``units``: units and sides, turns and the end of the game.

Their records are in :mod:`hexlore.compiler.builtins`; this module implements each under its
record's name.
"""

from __future__ import annotations

from typing import Callable

from hexlore.compiler.builtins import UNITS
from hexlore.compiler.model import DefinitionSpec
from hexlore.runtime.engine.core.bounds import GameOver, PreconditionFailed, RuleError
from hexlore.runtime.engine.builtins.kit import Kit
from hexlore.runtime.engine.core.state import Side
from hexlore.runtime.geometry import grid

FAMILY = UNITS


def _standing(kit: Kit) -> dict[str, Callable]:
    """Who stands where: the lists of units, and the sides."""
    state, memo, need_unit, need_hex = kit.state, kit.memo, kit.need_unit, kit.need_hex
    # the unit lists read state.units and state.occupants in place (one pass, no copies):
    # the same units in the same order as filtering state.on_board() or state.units_at(h)
    everyone = state.units
    occupants = state.occupants
    hex_class = grid.Hex

    # The lists of units on the board by side, kept while the rules run until a unit moves,
    # leaves the board or dies (a memo table reading where the units stand: memo.py forgets
    # it then, and when the rules stop running). A search asks the rules about each hex it
    # reaches (Westeros: "is an enemy next to this hex?"), which asks for the same list again
    # and again; each caller still gets a list of its own.
    on_board_of = memo.table("units of a side", ())
    on_board_against = memo.table("units of the other sides", ())

    def standing(side) -> tuple | list:
        """The units of ``side`` on the board, in the order of state.units."""
        if memo.on:
            found = on_board_of.get(side)
            if found is None:
                found = on_board_of[side] = tuple(
                    [u for u in everyone.values() if u.alive and u.hex is not None and u.side is side])
            return found
        return [u for u in everyone.values() if u.alive and u.hex is not None and u.side is side]

    def against(side) -> tuple | list:
        """The units on the board of every side but ``side``, in the order of state.units."""
        if memo.on:
            found = on_board_against.get(side)
            if found is None:
                found = on_board_against[side] = tuple(
                    [u for u in everyone.values() if u.alive and u.hex is not None and u.side is not side])
            return found
        return [u for u in everyone.values() if u.alive and u.hex is not None and u.side is not side]

    def units_of(side):
        found = standing(side)
        return list(found) if found.__class__ is tuple else found  # a list of the caller's own

    def units_in(hexes):
        out: list = []
        for h in hexes:
            out.extend(u for u in occupants.get(h, ()) if u.alive)
        return out

    def unit_at(h):
        here = occupants.get(need_hex(h))
        return here[0] if here else None

    def friends(unit):
        u = need_unit(unit)
        return [v for v in standing(u.side) if v is not u]

    def enemies(unit):
        found = against(need_unit(unit).side)
        return list(found) if found.__class__ is tuple else found

    def opponent(side):
        sides = state.sides
        return sides[(side.index + 1) % len(sides)]

    def roster(side):
        # state.units keeps the order units were created in: the scenario's, then a campaign's
        return [u for u in state.units.values() if u.side is side]

    return {
        "units": lambda: state.on_board(), "units_of": units_of,
        "units_at": lambda h: [u for u in occupants.get(need_hex(h), ()) if u.alive],
        "units_in": units_in, "unit_at": unit_at,
        "occupied": lambda h: bool(occupants.get(h if h.__class__ is hex_class else need_hex(h))),
        "friends": friends, "enemies": enemies, "sides": lambda: list(state.sides), "opponent": opponent,
        "roster": roster,
    }


def _placing(kit: Kit) -> dict[str, Callable]:
    """Changes of the board: units placed, taken off, set aside; a hex's terrain."""
    game, state, board, need_unit, need_hex = kit.game, kit.state, kit.board, kit.need_unit, kit.need_hex

    def move(unit, h, via=None):
        u = need_unit(unit)
        h = need_hex(h)
        if h not in board:
            raise RuleError(f"hex {h} is not on the board")
        if not u.alive:
            raise RuleError(f"unit '{u.id}' was eliminated: it cannot be moved back onto the board",
                            hint="set_aside(u) takes a unit off the board and keeps it alive")
        if via:
            if via[-1] != h or not all(step.__class__ is grid.Hex and step in board for step in via):
                raise RuleError(f"move of '{u.id}': via must be hexes of the board ending on the hex moved to",
                                hint="pass the path move_path gives for the same hex")
            events = game.events
            if events.paths is not None and events.file is not None:  # a game being recorded, not a future
                events.paths[u.id] = tuple(via)
        state.place(u, h)

    def remove_unit(unit):
        u = need_unit(unit)
        if not u.alive:  # a unit is eliminated once: a second elimination is a pack's mistake
            raise PreconditionFailed(f"unit '{u.id}' was already eliminated: it cannot be removed again", None,
                                     "test 'u.alive' before eliminating (a hit on a unit already gone)")
        state.place(u, None)
        state.set(u, "alive", False)

    def set_aside(unit):
        """Off the board but alive: a reserve, a unit carried by another, one waiting to deploy."""
        state.place(need_unit(unit), None)

    def set_terrain(h, terrain):
        h = need_hex(h)
        if h not in board:
            raise RuleError(f"set_terrain: {h!r} is not on the board")
        if not isinstance(terrain, DefinitionSpec) or terrain.kind != "terrain":
            raise RuleError(f"set_terrain needs a terrain, got {terrain!r}")
        state.write(state.hex_fields[h], "terrain", terrain)

    return {"move": move, "remove_unit": remove_unit, "set_aside": set_aside, "set_terrain": set_terrain}


def _turns(kit: Kit) -> dict[str, Callable]:
    """Turns and the end of the game."""
    game, state = kit.game, kit.state

    def game_over_already(what):
        if state.over:
            raise RuleError(f"{what}: the game is already over and its result is final",
                            hint="a campaign's 'aftermath' block runs after the end; read winner() there")

    def begin_turn(side):
        state.write(state.game, "turn", state.game["turn"] + 1)
        state.write(state.game, "active", side)
        if state.opener is None and isinstance(side, Side):
            state.set(state, "opener", side)
        for watch in game.turn_watchers:
            watch(side)

    def win(side):
        if not isinstance(side, Side):
            raise RuleError(f"win needs a side, got {side!r}")
        game_over_already("win")
        state.set(state, "winner", side)
        state.set(state, "over", True)
        game.events.record({"type": "end", "winner": side.name})
        raise GameOver()

    def draw_game():
        game_over_already("draw_game")
        state.set(state, "over", True)
        game.events.record({"type": "end", "winner": None})
        raise GameOver()

    return {"begin_turn": begin_turn, "win": win, "draw_game": draw_game, "winner": lambda: state.winner}


def make(kit: Kit, made: dict[str, Callable]) -> dict[str, Callable]:
    """The family's built-ins for the game of ``kit``, by name (``made``: the families made before)."""
    return {**_standing(kit), **_placing(kit), **_turns(kit)}
