"""Signatures of the general primitives the runtime provides to Lore.

These are the only things Lore can call that are not written in Lore. None of them knows a
game: they are geometry, dice, lists, units on a board, sides and the end of a game. The
runtime implements each under the same name (a test checks both tables agree).
"""

from __future__ import annotations

from dataclasses import dataclass

from .model import Symbol
from .types import ANY, BOOL, DIE, FN, HEX, INT, POOL, SIDE, TEXT, UNIT, Type, list_of

PURE = "pure"  # allowed in functions and guards
RANDOM = "random"  # consumes the game's randomness
EFFECT = "effect"  # changes the game state


#: Enums the built-ins take, by name: a closed set of modes instead of magic strings. Their
#: values are written where a built-in expects one (``zoc: stop``) or qualified by the enum
#: (``zoc.stop``), so they take no name from any pack; a parameter or option may be declared
#: with the enum as its type (``zone: zoc``).
ENUMS: dict[str, tuple[str, ...]] = {
    # zones of control in a movement search (hexlore/runtime/geometry/movement.py, ZOC_MODES)
    "zoc": ("ignore", "stop", "forbid", "enter"),
}


def enum_type(name: str) -> Type:
    """The type of the values of built-in enum ``name``."""
    return Type("enum:" + name)


def enum_value(enum: str, value: str) -> Symbol:
    """Value ``value`` of built-in enum ``enum``, as the runtime sees it."""
    return Symbol(enum, value)


def builtin_enum_of(t: Type) -> str | None:
    """The built-in enum ``t`` is the type of, or None."""
    if t.name.startswith("enum:") and t.name[5:] in ENUMS:
        return t.name[5:]
    return None


ZOC = enum_type("zoc")

#: the default of a function-valued parameter: no function at all. The runtime reads it as
#: the function a pack would otherwise write by hand, "never" (always false), or, for a
#: step cost, one point a hex.
NO_FUNCTION = None


@dataclass(frozen=True, slots=True)
class Builtin:
    name: str
    params: tuple[tuple[str, Type], ...]
    returns: Type | None
    effect: str = PURE
    variadic: bool = False  # the last parameter may repeat
    doc: str = ""
    #: return type follows the element type of the first (list) argument
    returns_item_of_first: bool = False
    returns_first: bool = False
    #: parameter name -> the constant an omitted argument takes (filled in when compiling, so
    #: the rule set and the runtime see every argument); parameters not here are required
    defaults: tuple[tuple[str, object], ...] = ()

    def default(self, param: str) -> tuple[bool, object]:
        """(has a default, its value) of ``param``."""
        for name, value in self.defaults:
            if name == param:
                return True, value
        return False, None


T_LIST = list_of(ANY)


def _b(name, params, returns, effect=PURE, doc="", **kw) -> Builtin:
    return Builtin(name, tuple(params), returns, effect, doc=doc, **kw)


def _never(*names: str) -> tuple[tuple[str, object], ...]:
    """Function-valued parameters that default to no function."""
    return tuple((n, NO_FUNCTION) for n in names)


#: defaults of the movement searches: every hex costs one point, no obstacle, nothing stops
#: the move, nobody is crossed, no zone of control
_MOVE_DEFAULTS = _never("cost", "obstacle", "stops", "passes", "controls") + (("zoc", enum_value("zoc", "ignore")),)


BUILTINS: dict[str, Builtin] = {b.name: b for b in [
    # dice
    _b("roll", [("count", INT), ("die", DIE)], POOL, RANDOM,
       "Roll `count` dice of a declared die; forced results in tests come first."),
    _b("groups", [("pool", T_LIST)], list_of(INT), doc="How many times each distinct face appears."),
    # numbers and lists
    _b("count", [("items", T_LIST)], INT, doc="Number of items."),
    _b("sum", [("items", T_LIST)], INT, doc="Sum of numbers or of numeric faces."),
    _b("max", [("a", INT), ("b", INT)], INT, variadic=True, doc="Largest of its arguments."),
    _b("min", [("a", INT), ("b", INT)], INT, variadic=True, doc="Smallest of its arguments."),
    _b("abs", [("n", INT)], INT),
    _b("range", [("low", INT), ("high", INT)], list_of(INT), doc="Integers low..high inclusive."),
    _b("empty", [("items", T_LIST)], BOOL),
    _b("first", [("items", T_LIST)], ANY, returns_item_of_first=True, doc="First item or none."),
    _b("last", [("items", T_LIST)], ANY, returns_item_of_first=True, doc="Last item or none."),
    _b("without", [("items", T_LIST), ("item", ANY)], T_LIST, returns_first=True,
       doc="A copy of the list with the first occurrence of item removed."),
    _b("shuffle", [("items", T_LIST)], None, RANDOM, doc="Shuffle a list in place (seeded)."),
    _b("push", [("items", T_LIST), ("item", ANY)], None, EFFECT, doc="Append to a list in place."),
    _b("pop", [("items", T_LIST)], ANY, EFFECT, returns_item_of_first=True,
       doc="Remove and return the first item, or none."),
    _b("remove", [("items", T_LIST), ("item", ANY)], None, EFFECT,
       doc="Remove the first occurrence of item from the list in place."),
    # board geometry
    _b("hexes", [], list_of(HEX), doc="Every hex of the board."),
    _b("distance", [("a", HEX), ("b", HEX)], INT),
    _b("neighbours", [("h", HEX)], list_of(HEX), doc="Adjacent hexes on the board."),
    _b("adjacent", [("a", HEX), ("b", HEX)], BOOL),
    _b("toward_edge", [("h", HEX), ("side", SIDE)], list_of(HEX),
       doc="Adjacent hexes one row closer to the side's own edge."),
    _b("on_edge", [("h", HEX), ("side", SIDE)], BOOL, doc="Is the hex on the side's own edge row?"),
    _b("in_section", [("h", HEX), ("section", ANY)], BOOL,
       doc="Is the hex in the named board section (a symbol or text)?"),
    _b("line_clear", [("a", HEX), ("b", HEX), ("blocks", FN)], BOOL,
       doc="Centre-to-centre line of sight: no hex crossed (edges and corners excepted) blocks."),
    _b("ring", [("h", HEX), ("n", INT)], list_of(HEX),
       doc="Board hexes at distance exactly n, counter-clockwise from the one n steps east."),
    _b("within", [("h", HEX), ("n", INT)], list_of(HEX),
       doc="Board hexes at distance 0..n, nearest first."),
    _b("areas", [("h", HEX)], list_of(list_of(HEX)),
       doc="Three-hex areas [h, x, y] with x, y adjacent to h and to each other, all on the board."),
    _b("line_hexes", [("a", HEX), ("b", HEX)], list_of(HEX),
       doc="a, the hexes the centre line crosses in order, then b."),
    _b("line_heights", [("a", HEX), ("b", HEX), ("height", FN)], list_of(INT),
       doc="height(h) of each hex of line_hexes(a, b), in order."),
    _b("line_clear_above", [("a", HEX), ("b", HEX), ("blocks", FN), ("height", FN)], BOOL,
       doc="Centre line where crossed hexes lower than a never block."),
    _b("paths_clear", [("a", HEX), ("b", HEX), ("blocks", FN), ("four_path_rule", BOOL)], BOOL,
       doc="Shortest-path line of sight: some shortest path has no blocking hex but its last."),
    _b("path_length", [("a", HEX), ("b", HEX)], INT,
       doc="Shortest path length over board hexes (0 for the same hex, -1 if none)."),
    _b("in_range", [("a", HEX), ("b", HEX), ("low", INT), ("high", INT)], BOOL,
       doc="Is path_length(a, b) within low..high?"),
    _b("hexes_in_range", [("h", HEX), ("low", INT), ("high", INT)], list_of(HEX),
       doc="Board hexes whose path length from h is within low..high, nearest first."),
    _b("reachable", [("unit", UNIT), ("budget", INT), ("cost", FN), ("stops", FN)], list_of(HEX),
       doc="Hexes where the unit may end a move: cost(unit, hex) -> int (negative = cannot "
           "enter), stops(unit, hex) -> bool ends the move on entering.",
       defaults=_never("cost", "stops")),
    # movement (hexlore/runtime/geometry/movement.py); the functions named are:
    #   cost(unit, hex) -> int (negative = cannot enter), obstacle(unit, from, to) -> bool,
    #   stops(unit, hex) -> bool, passes(unit, other: unit) -> bool, controls(unit, hex) -> bool,
    #   lands(unit, hex) -> bool; zoc is a value of the built-in enum zoc
    _b("move_options", [("unit", UNIT), ("budget", INT), ("cost", FN), ("obstacle", FN), ("stops", FN),
                        ("passes", FN), ("controls", FN), ("zoc", ZOC)], list_of(HEX),
       doc="Hexes where the unit may end a move, cheapest first (its own hex included).",
       defaults=_MOVE_DEFAULTS),
    _b("move_path", [("unit", UNIT), ("to", HEX), ("budget", INT), ("cost", FN), ("obstacle", FN),
                     ("stops", FN), ("passes", FN), ("controls", FN), ("zoc", ZOC)], list_of(HEX),
       doc="The cheapest path to a hex, its own hex excluded; empty when out of reach.",
       defaults=_MOVE_DEFAULTS),
    _b("move_spent", [("unit", UNIT), ("to", HEX), ("budget", INT), ("cost", FN), ("obstacle", FN),
                      ("stops", FN), ("passes", FN), ("controls", FN), ("zoc", ZOC)], INT,
       doc="Points the cheapest move to a hex spends; -1 when out of reach.",
       defaults=_MOVE_DEFAULTS),
    _b("teleport_options", [("unit", UNIT), ("reach", INT), ("lands", FN)], list_of(HEX),
       doc="Hexes within reach the unit may teleport to (paths ignored), nearest first."),
    _b("away_options", [("unit", UNIT), ("source", HEX), ("remaining", INT), ("cost", FN),
                        ("passes", FN)], list_of(HEX),
       doc="Next step of a forced move away from a hex: the farthest hexes, or along the rim.",
       defaults=_never("cost", "passes")),
    _b("retreat_options", [("unit", UNIT), ("remaining", INT), ("cost", FN), ("passes", FN)],
       list_of(HEX), doc="Next step of a retreat toward the unit's own edge; empty when blocked.",
       defaults=_never("cost", "passes")),
    _b("retreat_from_options", [("unit", UNIT), ("source", HEX), ("remaining", INT), ("cost", FN),
                                ("passes", FN)], list_of(HEX),
       doc="Next step of a retreat straight away from a hex, else obliquely away.",
       defaults=_never("cost", "passes")),
    # units and sides
    _b("units", [], list_of(UNIT), doc="Every unit on the board."),
    _b("units_of", [("side", SIDE)], list_of(UNIT)),
    _b("units_at", [("h", HEX)], list_of(UNIT)),
    _b("units_in", [("hexes", list_of(HEX))], list_of(UNIT)),
    _b("unit_at", [("h", HEX)], UNIT.maybe()),
    _b("occupied", [("h", HEX)], BOOL),
    _b("friends", [("unit", UNIT)], list_of(UNIT), doc="Other units of the same side."),
    _b("enemies", [("unit", UNIT)], list_of(UNIT), doc="Units of the other sides."),
    _b("sides", [], list_of(SIDE), doc="Sides in turn order."),
    _b("opponent", [("side", SIDE)], SIDE, doc="The next other side in turn order."),
    _b("move", [("unit", UNIT), ("h", HEX), ("via", list_of(HEX))], None, EFFECT,
       doc="Place the unit on the hex; `via:` the hexes it went through, ending on that hex (a "
           "replay marks them; the rules never read them).",
       defaults=(("via", None),)),
    _b("remove_unit", [("unit", UNIT)], None, EFFECT, doc="Take the unit off the board."),
    _b("set_terrain", [("h", HEX), ("terrain", Type("terrain"))], None, EFFECT,
       doc="Give the hex another terrain (a piece placed or removed during play)."),
    _b("set_aside", [("unit", UNIT)], None, EFFECT,
       doc="Take the unit off the board without eliminating it: it stays alive, with no hex."),
    _b("roster", [("side", SIDE)], list_of(UNIT),
       doc="Every unit of the side the game knows (on the board, set aside or eliminated), in scenario order."),
    _b("winner", [], SIDE.maybe(), doc="The side that won, or none (no winner yet, or a draw)."),
    _b("begin_turn", [("side", SIDE)], None, EFFECT, doc="Count a turn and make the side active."),
    _b("win", [("side", SIDE)], None, EFFECT, doc="End the game with this side winning."),
    _b("draw_game", [], None, EFFECT, doc="End the game with no winner."),
    _b("text", [("value", ANY)], TEXT, doc="A value as text, for messages."),
]}

AGGREGATES = {"count": INT, "sum": INT, "any": BOOL, "all": BOOL, "min": INT, "max": INT,
              "list": T_LIST}
