"""One record per primitive the runtime provides to Lore: the only table of built-ins.

These are the only things Lore can call that are not written in Lore. None of them knows a
game: they are geometry, dice, lists, units on a board, sides and the end of a game. Each
:class:`Builtin` holds everything the project knows about one of them — its signature and
defaults (the compiler's type checks), its effect, what it reads and changes (the memo of
pure functions: a wrong fact here gives wrong memoised answers, so the safe default is
"anything"), whether it is cheap, whether its answer is a fresh list or always an int (the
generated code's special cases), its documentation (the table of docs/language.md and the
editor grammar are generated from it: ``python -m hexlore.compiler.builtin_docs --write``)
and its family, the runtime module that implements it under the same name
(``hexlore/runtime/engine/builtins/``; tests/test_builtin_records.py checks both sides).
Everything else derives its lists of names from :data:`BUILTINS`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from .model import Symbol
from .types import ANY, BOOL, DIE, FN, HEX, INT, POOL, SIDE, TEXT, UNIT, Type, list_of

PURE = "pure"  # allowed in functions and guards
RANDOM = "random"  # consumes the game's randomness
EFFECT = "effect"  # changes the game state

# What a built-in reads, for the memo (hexlore/compiler/memo_plan.py): its answer depends on
READS_NOTHING = "nothing"  # its arguments and the board only (which never changes)
READS_POSITIONS = "positions"  # ... and where the units stand, and whether they live
READS_ANYTHING = "anything"  # ... and who knows what: every change forgets a function calling it

# What a change touches, for the memo: these tokens, or ``(owner, field)`` (a field set)
POSITIONS = "positions"  # a unit's hex or life
LISTS = "lists"  # a list changed in place
DICE = "dice"  # the dice stream: no function reads it
ANYTHING = "*"  # anything at all: every memo is forgotten

# Families: the runtime module implementing a built-in (hexlore/runtime/engine/builtins/<family>.py)
LISTS_FAMILY = "lists"  # numbers, lists, dice and text
GEOMETRY = "geometry"  # the board, range and line of sight
MOVEMENT = "moves"  # movement searches, teleports and forced moves
UNITS = "units"  # units and sides, turns and the end of the game
FAMILIES = (LISTS_FAMILY, GEOMETRY, MOVEMENT, UNITS)


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
    """Everything known about one built-in; every other table of built-ins is derived from these."""

    name: str
    params: tuple[tuple[str, Type], ...]
    returns: Type | None
    effect: str = PURE
    variadic: bool = False  # the last parameter may repeat
    #: the reference's text (docs/language.md's table, a hover in an editor), Markdown
    doc: str = ""
    #: return type follows the element type of the first (list) argument
    returns_item_of_first: bool = False
    returns_first: bool = False
    #: parameter name -> the constant an omitted argument takes (filled in when compiling, so
    #: the rule set and the runtime see every argument); parameters not here are required
    defaults: tuple[tuple[str, object], ...] = ()
    #: the runtime module implementing it (one of FAMILIES)
    family: str = ""
    #: what its answer depends on besides its arguments (READS_*); functions it is handed are
    #: analysed apart (a function value known only at run time reads anything)
    reads: str = READS_ANYTHING
    #: what calling it changes (tokens above); empty for a pure built-in
    writes: tuple[object, ...] = ()
    #: costs about what a memo look-up costs: a function calling only cheap built-ins is
    #: evaluated again rather than memoised
    cheap: bool = False
    #: its every answer is a list made for that call (never one the state or a cache holds)
    new_list: bool = False
    #: answers only whether its one hex argument has a unit on it (a step cost reading only
    #: this keeps its answers on free hexes across moves)
    occupancy_test: bool = False
    #: a chance point: the resumable form of the rules stops here (odds, searches)
    chance_point: bool = False
    #: ends the game at once (the runtime unwinds every trigger and procedure)
    ends_game: bool = False
    #: the hex distance of its two arguments: the generated code writes it out when both are
    #: hexes (a call of the built-in costs more than the arithmetic) and calls it otherwise
    hex_distance: bool = False

    def default(self, param: str) -> tuple[bool, object]:
        """(has a default, its value) of ``param``."""
        for name, value in self.defaults:
            if name == param:
                return True, value
        return False, None

    @property
    def gives_int(self) -> bool:
        """Its answer is always a Python int: generated code adds it without a check (the
        implementation must keep that promise)."""
        return self.returns == INT

    @property
    def never_list(self) -> bool:
        """It can never answer a list: its result needs no budget check of a list's size."""
        return self.returns is None or (self.returns.name not in ("list", "any") and not self.returns_item_of_first)


T_LIST = list_of(ANY)


def _b(name: str, params: Iterable[tuple[str, Type]], returns: Type | None, effect: str = PURE, doc: str = "",
       **kw: Any) -> Builtin:
    return Builtin(name, tuple(params), returns, effect, doc=doc, **kw)


def _never(*names: str) -> tuple[tuple[str, object], ...]:
    """Function-valued parameters that default to no function."""
    return tuple((n, NO_FUNCTION) for n in names)


#: defaults of the movement searches: every hex costs one point, no obstacle, nothing stops
#: the move, nobody is crossed, no zone of control
_MOVE_DEFAULTS = _never("cost", "obstacle", "stops", "passes", "controls") + (("zoc", enum_value("zoc", "ignore")),)
_MOVE_PARAMS = (("budget", INT), ("cost", FN), ("obstacle", FN), ("stops", FN), ("passes", FN), ("controls", FN),
                ("zoc", ZOC))


def _dice_and_lists() -> list[Builtin]:
    """Dice, numbers, lists and text: they read nothing but their arguments."""
    kw = dict(family=LISTS_FAMILY, reads=READS_NOTHING)
    return [
        _b("roll", [("count", INT), ("die", DIE)], POOL, RANDOM,
           "Roll `count` dice of a declared die; forced results in tests come first.",
           family=LISTS_FAMILY, writes=(DICE,), chance_point=True),
        _b("groups", [("pool", T_LIST)], list_of(INT), cheap=True, **kw,
           doc="How many times each distinct face appears, largest first (`[3, 1]` for a triple and a single)."),
        _b("count", [("items", T_LIST)], INT, cheap=True, **kw, doc="Number of items."),
        _b("sum", [("items", T_LIST)], INT, cheap=True, **kw, doc="Sum of numbers or of numeric faces."),
        _b("max", [("a", INT), ("b", INT)], INT, variadic=True, cheap=True, **kw, doc="Largest of its arguments."),
        _b("min", [("a", INT), ("b", INT)], INT, variadic=True, cheap=True, **kw, doc="Smallest of its arguments."),
        _b("abs", [("n", INT)], INT, cheap=True, **kw, doc="Absolute value."),
        _b("range", [("low", INT), ("high", INT)], list_of(INT), cheap=True, **kw,
           doc="Integers low..high inclusive."),
        _b("empty", [("items", T_LIST)], BOOL, cheap=True, **kw, doc="Is the list empty?"),
        _b("first", [("items", T_LIST)], ANY, returns_item_of_first=True, cheap=True, **kw,
           doc="First item or none."),
        _b("last", [("items", T_LIST)], ANY, returns_item_of_first=True, cheap=True, **kw,
           doc="Last item or none."),
        _b("without", [("items", T_LIST), ("item", ANY)], T_LIST, returns_first=True, cheap=True, new_list=True,
           **kw, doc="A copy of the list with the first occurrence of item removed."),
        _b("shuffle", [("items", T_LIST)], None, RANDOM, family=LISTS_FAMILY, writes=(LISTS,),
           doc="Shuffle a list in place (seeded)."),
        _b("push", [("items", T_LIST), ("item", ANY)], None, EFFECT, family=LISTS_FAMILY, writes=(LISTS,),
           doc="Append to a list in place."),
        _b("pop", [("items", T_LIST)], ANY, EFFECT, returns_item_of_first=True, family=LISTS_FAMILY,
           writes=(LISTS,), doc="Remove and return the first item, or none."),
        _b("remove", [("items", T_LIST), ("item", ANY)], None, EFFECT, family=LISTS_FAMILY, writes=(LISTS,),
           doc="Remove the first occurrence of item from the list in place."),
    ]


def _geometry() -> list[Builtin]:
    """The board, range and line of sight: the board never changes, so they read nothing.
    The functions they are handed (``blocks``, ``height``) are analysed apart."""
    kw = dict(family=GEOMETRY, reads=READS_NOTHING)
    return [
        _b("hexes", [], list_of(HEX), **kw, doc="Every hex of the board."),
        _b("distance", [("a", HEX), ("b", HEX)], INT, cheap=True, hex_distance=True, **kw, doc="Hex distance."),
        _b("neighbours", [("h", HEX)], list_of(HEX), cheap=True, new_list=True, **kw,
           doc="Adjacent hexes on the board."),
        _b("adjacent", [("a", HEX), ("b", HEX)], BOOL, cheap=True, **kw, doc="Are the hexes at distance 1?"),
        _b("toward_edge", [("h", HEX), ("side", SIDE)], list_of(HEX), cheap=True, **kw,
           doc="Adjacent hexes one row closer to the side's own edge."),
        _b("on_edge", [("h", HEX), ("side", SIDE)], BOOL, cheap=True, **kw,
           doc="Is the hex on the side's own edge row?"),
        _b("in_section", [("h", HEX), ("section", ANY)], BOOL, cheap=True, **kw,
           doc="Is the hex in the named board section (a symbol or text)?"),
        _b("line_clear", [("a", HEX), ("b", HEX), ("blocks", FN)], BOOL, **kw,
           doc="Centre-to-centre line of sight: no hex crossed (edges and corners excepted) blocks; `blocks` "
               "names a function `(h: hex) -> bool` or `(viewer: hex, h: hex) -> bool`."),
        _b("ring", [("h", HEX), ("n", INT)], list_of(HEX), new_list=True, **kw,
           doc="Board hexes at distance exactly `n`, counter-clockwise from the hex `n` steps east (`[h]` for 0, "
               "6n on an open board)."),
        _b("within", [("h", HEX), ("n", INT)], list_of(HEX), **kw,
           doc="Board hexes at distance 0..`n`, nearest first, then row by row."),
        _b("areas", [("h", HEX)], list_of(list_of(HEX)), **kw,
           doc="The legal three-hex areas `[h, x, y]` around a target: `x`, `y` adjacent to `h` and to each "
               "other, all on the board (at most 6; tick-clock rule 407.2a). A `choose` over it lets the "
               "controller pick one."),
        _b("line_hexes", [("a", HEX), ("b", HEX)], list_of(HEX), **kw,
           doc="`a`, the hexes the centre line crosses in order, then `b` (grazed hexes left out)."),
        _b("line_heights", [("a", HEX), ("b", HEX), ("height", FN)], list_of(INT), **kw,
           doc="`height(h)` for each hex of `line_hexes(a, b)`: read slopes and cliffs along the line."),
        _b("line_clear_above", [("a", HEX), ("b", HEX), ("blocks", FN), ("height", FN)], BOOL, **kw,
           doc="Centre line where crossed hexes lower than `a` never block (the battle system's high ground)."),
        _b("paths_clear", [("a", HEX), ("b", HEX), ("blocks", FN), ("four_path_rule", BOOL)], BOOL, **kw,
           doc="Shortest-path sight (tick-clock rule 405.3): some shortest path has no blocking hex but its "
               "last; with `four_path_rule` (405.4) a range-4 target with four paths needs a clear central path."),
        _b("path_length", [("a", HEX), ("b", HEX)], INT, **kw,
           doc="Range: length of the shortest path of board hexes, counted from the hex next to `a` (0 for the "
               "same hex, -1 if none)."),
        _b("in_range", [("a", HEX), ("b", HEX), ("low", INT), ("high", INT)], BOOL, **kw,
           doc="Is `path_length(a, b)` within `low..high` (minimum and maximum range)?"),
        _b("hexes_in_range", [("h", HEX), ("low", INT), ("high", INT)], list_of(HEX), **kw,
           doc="Board hexes whose path length from `h` is within `low..high`, nearest first."),
    ]


def _movement() -> list[Builtin]:
    """Movement searches (hexlore/runtime/geometry/movement.py): they read where units stand.
    The functions named are ``cost(unit, hex) -> int`` (negative = cannot enter),
    ``obstacle(unit, from, to) -> bool``, ``stops(unit, hex) -> bool``, ``passes(unit, other:
    unit) -> bool``, ``controls(unit, hex) -> bool``, ``lands(unit, hex) -> bool``; ``zoc`` is
    a value of the built-in enum zoc."""
    kw = dict(family=MOVEMENT, reads=READS_POSITIONS)
    unit, to, forced = ("unit", UNIT), ("to", HEX), (("cost", FN), ("passes", FN))
    return [
        _b("reachable", [unit, ("budget", INT), ("cost", FN), ("stops", FN)], list_of(HEX), new_list=True, **kw,
           doc="Hexes where the unit may end a move: `cost(unit, hex) -> int` (negative = cannot enter), "
               "`stops(unit, hex) -> bool` ends the move on entering.",
           defaults=_never("cost", "stops")),
        _b("move_options", [unit, *_MOVE_PARAMS], list_of(HEX), new_list=True, **kw,
           doc="Hexes where the unit may end a move, cheapest first, its own hex included; see "
               "[Movement](#movement).", defaults=_MOVE_DEFAULTS),
        _b("move_path", [unit, to, *_MOVE_PARAMS], list_of(HEX), new_list=True, **kw,
           doc="The cheapest path to `to`, its own hex excluded; empty when out of reach.",
           defaults=_MOVE_DEFAULTS),
        _b("move_spent", [unit, to, *_MOVE_PARAMS], INT, **kw,
           doc="Points that path spends (the whole budget when a zone of control takes the rest); -1 when out "
               "of reach.", defaults=_MOVE_DEFAULTS),
        _b("teleport_options", [unit, ("reach", INT), ("lands", FN)], list_of(HEX), new_list=True, **kw,
           doc="Hexes within `reach` where `lands(unit, hex)` holds, paths ignored, nearest first."),
        _b("away_options", [unit, ("source", HEX), ("remaining", INT), *forced], list_of(HEX), new_list=True, **kw,
           doc="Next step of a forced move away from `source`: the farthest hexes, or along the board's rim; "
               "empty when blocked.", defaults=_never("cost", "passes")),
        _b("retreat_options", [unit, ("remaining", INT), *forced], list_of(HEX), new_list=True, **kw,
           doc="Next step of a retreat toward the unit's own edge; empty when blocked.",
           defaults=_never("cost", "passes")),
        _b("retreat_from_options", [unit, ("source", HEX), ("remaining", INT), *forced], list_of(HEX),
           new_list=True, **kw, defaults=_never("cost", "passes"),
           doc="Next step of a retreat straight away from `source`, else obliquely away; empty when blocked."),
    ]


def _units() -> list[Builtin]:
    """Units and sides, turns and the end of the game."""
    at = dict(family=UNITS, reads=READS_POSITIONS)
    fixed = dict(family=UNITS, reads=READS_NOTHING)
    return [
        _b("units", [], list_of(UNIT), new_list=True, **at,
           doc="Every unit on the board (not those set aside or eliminated)."),
        _b("units_of", [("side", SIDE)], list_of(UNIT), new_list=True, **at, doc="The side's units on the board."),
        # state.units keeps its units (a campaign adds them before the game): their order never changes
        _b("roster", [("side", SIDE)], list_of(UNIT), **fixed,
           doc="Every unit of the side the game knows — on the board, set aside or eliminated — in scenario "
               "order, campaign units last."),
        _b("units_at", [("h", HEX)], list_of(UNIT), cheap=True, **at, doc="Units on the hex."),
        _b("units_in", [("hexes", list_of(HEX))], list_of(UNIT), new_list=True, **at,
           doc="Units on any of the hexes."),
        _b("unit_at", [("h", HEX)], UNIT.maybe(), cheap=True, **at, doc="The unit on the hex, or none."),
        _b("occupied", [("h", HEX)], BOOL, cheap=True, occupancy_test=True, **at, doc="Is a unit on the hex?"),
        _b("friends", [("unit", UNIT)], list_of(UNIT), new_list=True, **at, doc="Other units of the same side."),
        _b("enemies", [("unit", UNIT)], list_of(UNIT), new_list=True, **at, doc="Units of the other sides."),
        _b("sides", [], list_of(SIDE), cheap=True, new_list=True, **fixed, doc="Sides in turn order."),
        _b("opponent", [("side", SIDE)], SIDE, cheap=True, **fixed, doc="The next other side in turn order."),
        _b("move", [("unit", UNIT), ("h", HEX), ("via", list_of(HEX))], None, EFFECT, family=UNITS,
           writes=(POSITIONS,), defaults=(("via", None),),
           doc="Place the unit on the hex; a unit off the board (set aside) comes back on it. An eliminated "
               "unit cannot be moved (`R001`). `via:` (optional) is the way it went, the hexes entered ending "
               "on `h` (what `move_path` gives): the rules never read it, a replay page draws it (`R001` when "
               "it does not end on `h`)."),
        _b("remove_unit", [("unit", UNIT)], None, EFFECT, family=UNITS, writes=(POSITIONS,),
           doc="Take the unit off the board: it is eliminated (`alive` becomes false)."),
        _b("set_aside", [("unit", UNIT)], None, EFFECT, family=UNITS, writes=(POSITIONS,),
           doc="Take the unit off the board *without* eliminating it: `alive` stays true, `hex` becomes none. "
               "See [Units off the board](#units-off-the-board)."),
        _b("set_terrain", [("h", HEX), ("terrain", Type("terrain"))], None, EFFECT, family=UNITS,
           writes=(("hex", "terrain"),),
           doc="Give the hex another terrain during play (a landmark deployed or removed); what stood there "
               "before is the pack's to remember."),
        # the turn count and the active side (game.turn, game.active): a turn begins before nearly
        # every move, so forgetting every memo then would leave them little to answer
        _b("begin_turn", [("side", SIDE)], None, EFFECT, family=UNITS,
           writes=(("game", "turn"), ("game", "active")), doc="Count a turn and make the side active."),
        _b("win", [("side", SIDE)], None, EFFECT, family=UNITS, writes=(ANYTHING,), ends_game=True,
           doc="End the game with this side winning (`R001` once the game is over: its result is final)."),
        _b("draw_game", [], None, EFFECT, family=UNITS, writes=(ANYTHING,), ends_game=True,
           doc="End the game with no winner."),
        _b("winner", [], SIDE.maybe(), cheap=True, family=UNITS, reads=READS_ANYTHING,
           doc="The side that won, or none (the game is not over, or it was a draw). Useful in a campaign's "
               "`aftermath`."),
        _b("text", [("value", ANY)], TEXT, cheap=True, family=LISTS_FAMILY, reads=READS_NOTHING,
           doc="A value as text, for messages."),
    ]


#: every built-in, in the order of the reference's table
BUILTINS: dict[str, Builtin] = {b.name: b for b in _dice_and_lists() + _geometry() + _movement() + _units()}


def named(test: Callable[[Builtin], object]) -> frozenset[str]:
    """The names of the built-ins whose record passes ``test``: how other modules derive
    their sets of names (no second list of names anywhere)."""
    return frozenset(name for name, b in BUILTINS.items() if test(b))


AGGREGATES = {"count": INT, "sum": INT, "any": BOOL, "all": BOOL, "min": INT, "max": INT,
              "list": T_LIST}
