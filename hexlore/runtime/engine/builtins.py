"""Implementations of the primitives declared in :mod:`hexlore.compiler.builtins`.

Each is general: geometry, dice, lists, units and sides. No game's rule lives here; the
packs combine these into rules.
"""

from __future__ import annotations

import weakref
from collections import Counter
from functools import partial
from typing import TYPE_CHECKING, Callable

from hexlore.compiler import ir
from hexlore.compiler.model import DefinitionSpec, FaceSpec, Symbol
from hexlore.compiler.usage import SHARING_RULE
from hexlore.runtime.geometry import grid
from hexlore.runtime.geometry import movement
from hexlore.runtime.geometry import sight
from hexlore.runtime.engine.memo import POSITIONS, positions_at_own_hex
from hexlore.runtime.engine.bounds import MAX_LIST_ITEMS, GameOver, PreconditionFailed, RuleError, bounded_list
from hexlore.runtime.engine.state import Side, Unit

#: the values of the built-in enum zoc (hexlore/compiler/builtins.py) -> the search's modes
ZOC_MODES = {"ignore": movement.ZOC_NONE, "stop": movement.ZOC_STOP, "forbid": movement.ZOC_FORBID,
             "enter": movement.ZOC_ENTER}

if TYPE_CHECKING:
    from hexlore.runtime.engine.game import Game


#: built-ins listing the units of a unit's side, or of the other sides, that stand on the board
_UNIT_LISTS = ("enemies", "friends")


def units_next_to_of(spec) -> str | None:
    """For a function ``f(u, h) = any(each e in L(u) where adjacent(e.hex, h))`` (the two hexes
    in either order), L being the built-in enemies or friends: L's name; else None. A search
    asks such a test ("does the move stop next to an enemy?") of every hex it reaches, and each
    answer walks the whole list; the built-ins then answer them all from one walk of it."""
    if len(spec.params) != 2:
        return None
    u, h = spec.params[0].name, spec.params[1].name
    body = spec.body
    if body.__class__ is not ir.Aggregate or body.func != "any" or body.mapped is not None or body.var in (u, h):
        return None
    source, where = body.source, body.where
    if source.__class__ is not ir.CallBuiltin or source.name not in _UNIT_LISTS or source.args != (ir.Local(u),):
        return None
    unit_hex = ir.GetField(ir.Local(body.var), "hex", "unit")
    if where.__class__ is not ir.CallBuiltin or where.name != "adjacent" \
            or where.args not in ((unit_hex, ir.Local(h)), (ir.Local(h), unit_hex)):
        return None
    return source.name


def make_builtins(game: "Game") -> dict[str, Callable]:
    state = game.state
    # the game holds these built-ins: they hold it weakly, so that a dropped game is freed at
    # once rather than left to the cyclic garbage collector
    game = weakref.proxy(game)
    memo = game.memo
    board = state.board

    def num(v):
        return v.value if isinstance(v, FaceSpec) else v

    def need_unit(u, what="unit"):
        if not isinstance(u, Unit):
            raise RuleError(f"expected a {what}, got {u!r}")
        return u

    def need_hex(h):
        if not isinstance(h, grid.Hex):
            raise RuleError(f"expected a hex, got {h!r}")
        return h

    def roll(count, die):
        if die is None:
            raise RuleError("roll of no die")
        return game.roll(int(count), die)

    def smallest(*xs):
        if len(xs) == 2:  # min(a, b) of two ints, nearly every call: no generator, no num
            a, b = xs
            if a.__class__ is int and b.__class__ is int:
                return a if a <= b else b
        return min(num(x) for x in xs)

    def largest(*xs):
        if len(xs) == 2:
            a, b = xs
            if a.__class__ is int and b.__class__ is int:
                return a if a >= b else b
        return max(num(x) for x in xs)

    def groups(pool):
        return sorted(Counter(getattr(f, "name", f) for f in pool).values(), reverse=True)

    def first(items):
        return items[0] if items else None

    def last(items):
        return items[-1] if items else None

    def without(items, item):
        out = list(items)
        if item in out:
            out.remove(item)
        return out

    def shuffle(items):
        state.will_change(items)
        game.policy_rng.shuffle(items)
        game.shuffled[id(items)] = items  # an order no player knows (a searching player deals it anew)

    def pop(items):
        if not items:
            return None
        state.will_change(items)
        return items.pop(0)

    def remove(items, item):
        if item in items:
            state.will_change(items)
            items.remove(item)

    toward: dict = {}  # the board never changes: each hex's way to each edge is listed once

    def toward_edge(h, side):
        key = (h, side.edge)
        known = toward.get(key) if h.__class__ is grid.Hex else None
        if known is None:
            known = toward[key] = tuple(board.toward_edge(need_hex(h), side.edge))
        return list(known)  # a list of its own for each call

    edges: dict[str, frozenset] = {}  # the board never changes: each edge row is computed once

    def on_edge(h, side):
        h = need_hex(h)
        row = edges.get(side.edge)
        if row is None:
            row = edges[side.edge] = board.edge(side.edge)
        return h in row

    section_map = board.section_map  # the board never changes

    def in_section(h, section):
        name = section.name if isinstance(section, Symbol) else str(section)
        # board.sections(need_hex(h)) written out: a card's section is asked of every unit it may order
        found = section_map.get(h) if h.__class__ is grid.Hex else board.sections(need_hex(h))
        return found is not None and name in found

    def caller(fn):
        """Function ``fn`` as a Python callable of an argument list, looked up once per built-in
        call rather than at every hex: the same answers as game.call_function, memoised for
        searches (game.search_caller), which ask a callback the same questions again and again."""
        return None if fn is None else game.search_caller(fn)

    functions = game.rules.functions

    def never(fn) -> bool:
        """Does function ``fn`` answer false whatever it is asked: no function given (the
        default of a built-in's function-valued parameter), or one whose body is a false
        constant? A search then need not ask it at all."""
        if fn is None:
            return True
        spec = functions.get(fn) if isinstance(fn, str) else None
        return spec is not None and spec.body.__class__ is ir.Const and not spec.body.value

    arities: dict = {}  # function -> its number of parameters (asked at every search's set-up)

    def arity_of(fn) -> int:
        n = arities.get(fn)
        if n is None:
            n = arities[fn] = game.function_arity(fn)
        return n

    def arity(fn, allowed, shape):
        n = arity_of(fn)
        if n not in allowed:
            raise RuleError(f"function '{fn}' takes {n} parameter(s); here it must be {shape}")
        return n

    def hex_test(fn, frm):
        """A pack predicate as a Python one: ``fn(h)``, or ``fn(from, h)`` if it takes two."""
        call = caller(fn)
        if arity(fn, (1, 2), "(h: hex) or (viewer: hex, h: hex)") == 2:
            return lambda h: bool(call([frm, h]))
        return lambda h: bool(call([h]))

    def hex_number(fn):
        arity(fn, (1,), "(h: hex) -> int")
        call = caller(fn)
        return lambda h: int(num(call([h])))

    def line_clear(a, b, blocks):
        a, b = need_hex(a), need_hex(b)
        return sight.line_clear(board, a, b, sight_test(blocks, a))

    def ring(h, n):
        return board.ring(need_hex(h), int(n)) if n >= 0 else []

    def areas(h):
        return [list(t) for t in board.areas(need_hex(h))]

    def line_heights(a, b, height):
        level = hex_number(height)
        return [level(h) for h in sight.line_hexes(board, need_hex(a), need_hex(b))]

    def line_clear_above(a, b, blocks, height):
        a, b = need_hex(a), need_hex(b)
        return sight.line_clear_above(board, a, b, sight_test(blocks, a), hex_number(height))

    def sight_test(fn, frm):
        """:func:`hex_test` for a look asked again and again (a line of sight of every unit on
        every enemy): a two-parameter test is its search caller bound to the viewer's hex, which
        the look calls without a Python frame between (its answers are tested for truth)."""
        if arity(fn, (1, 2), "(h: hex) or (viewer: hex, h: hex)") == 2:
            return partial(game.search_caller2(fn), frm)
        return hex_test(fn, frm)

    def paths_clear(a, b, blocks, four_path_rule):
        a, b = need_hex(a), need_hex(b)
        return sight.paths_clear(board, a, b, sight_test(blocks, a), bool(four_path_rule))

    def path_length(a, b):
        n = sight.path_length(board, need_hex(a), need_hex(b))
        return -1 if n is None else n

    geometry = {
        "ring": ring, "within": lambda h, n: board.within(need_hex(h), int(n)), "areas": areas,
        "line_hexes": lambda a, b: sight.line_hexes(board, need_hex(a), need_hex(b)),
        "line_heights": line_heights, "line_clear_above": line_clear_above,
        "paths_clear": paths_clear, "path_length": path_length,
        "in_range": lambda a, b, lo, hi: sight.in_range(board, need_hex(a), need_hex(b), int(lo), int(hi)),
        "hexes_in_range": lambda h, lo, hi: sight.hexes_in_range(board, need_hex(h), int(lo), int(hi)),
    }

    def reachable(unit, budget, cost, stops):
        u = need_unit(unit)
        if u.hex is None:
            return []

        if cost is None:  # no cost function: every hex costs one point
            enter, costs = (lambda _frm, to: 1), None
        else:
            cost_at, costs = per_hex(cost, u, reach_cost)
            enter = lambda _frm, to: cost_at(to)
        stops_at, stop_answers = (None, None) if never(stops) else per_hex(stops, u, bool)
        routes = movement.search(board, u.hex, int(budget), movement.MoveRules(
            enter, stops=stops_at, costs=costs, stop_answers=stop_answers))
        return movement.end_hexes(routes)

    # -- movement: searches, teleport, forced moves (hexlore/runtime/geometry/movement.py)
    share_rule: list = []  # the sharing rule's caller, or None, once a search has asked

    def sharing(u):
        """The pack's sharing rule for ``u`` (``may_share(u, other)``, a runtime hook), or None
        when the packs declare none: then no two units ever stand on one hex after a move."""
        if not share_rule:
            if SHARING_RULE not in functions:
                share_rule.append(None)
            else:
                arity(SHARING_RULE, (2,), "(u: unit, other: unit) -> bool")
                share_rule.append(game.search_caller2(SHARING_RULE))  # asked at every search: memoised
        share = share_rule[0]
        if share is None:
            return None
        return partial(share, u)  # share(u, o), tested for truth, without a Python frame between

    def occupancy(u, passes):
        """(may enter, may end) tests from who stands on a hex: other units block the end of
        a move, and block passing unless passes(unit, other) says the unit may go through.
        Units the pack's sharing rule lets ``u`` stand with block neither."""
        shares = sharing(u)
        occupants = state.occupants
        passes_none = never(passes)
        passes_by = None if passes is None else game.search_caller2(passes)

        def others(h):
            here = occupants.get(h)
            if not here:  # most hexes: nobody there (no list to make)
                return ()
            return [o for o in here if o is not u and o.alive and not (shares is not None and shares(o))]

        def may_pass(h):
            if not occupants.get(h):  # most hexes: nobody there
                return True
            if passes_none:
                return not others(h)
            return all(passes_by(u, o) for o in others(h))

        def may_end(h):
            return not occupants.get(h) or not others(h)  # most hexes: nobody there (no call)

        return may_pass, may_end

    index: list[movement.BoardIndex] = []  # the board's index once a search has asked for it

    def numbered() -> movement.BoardIndex:
        """The board's hexes by number (made at the first search: a game that never searches,
        a scenario checked on a huge board, never pays for it; made and kept by movement, and
        held here too once asked: a search set-up asks for it several times)."""
        if index:
            return index[0]
        index.append(movement.board_index(board))
        return index[0]

    answer_tables: dict = {}  # function -> (its table of hex answers, how searches call it)

    def hex_caller(fn):
        """``call(u, h)`` for the answers by hex: the function's body itself when it reads the
        hex (the list of answers is its memo), else its searches' memo, so that one answer
        serves every hex of a function that ignores them (a constant cost)."""
        if 1 in memo.search_shape(fn)[0]:
            body, context = game.compiled.functions[fn][0], game.context
            return partial(body, context)  # body(context, u, h) without a Python frame between
        return game.search_caller2(fn)

    def hex_answers(fn, u, convert, free_only: bool = False) -> movement.HexAnswers:
        """``convert(fn(u, h))`` by hex number, for a two-parameter function (a unit and a hex).
        While the rules run the list is kept from one search to the next, in a memo table that
        is forgotten when what ``fn`` reads changes (memo.py), and only then: a unit's step
        costs and stopping hexes are asked once for many searches, not once per search. A
        function that does not read its unit has one list for every unit. ``free_only``: the
        caller keeps in the list only answers on hexes nobody stands on, of a function that
        reads where units stand only as occupied(h) (:func:`memo.positions_at_own_hex`), so
        the list is not forgotten when a unit moves (:func:`hex_cost`)."""
        found = answer_tables.get((fn, free_only))
        if found is None:  # memo.table gives the same table each time (emptied in place)
            found = answer_tables[(fn, free_only)] = (
                memo.table("hex answers", (fn,), positions=False, positions_kept=free_only), hex_caller(fn),
                units_next_to(fn), 0 in memo.search_shape(fn)[0])
        table, call, near, reads_unit = found
        hexes = numbered().hexes
        if memo.on:
            key = (u if reads_unit else None, convert)
            known = table.get(key)
            if known is None:
                known = table[key] = [movement.UNASKED] * len(hexes)
        else:
            known = [movement.UNASKED] * len(hexes)
        if near is not None:
            return movement.HexAnswers(known, next_to_units(near, u, convert))

        def ask(j):
            return convert(call(u, hexes[j]))
        return movement.HexAnswers(known, ask)

    def units_next_to(fn) -> str | None:
        """:func:`units_next_to_of` of function ``fn`` of the rules (None for any other value)."""
        spec = functions.get(fn) if isinstance(fn, str) else None
        return None if spec is None else units_next_to_of(spec)

    def next_to_units(near: str, u, convert) -> Callable[[int], object]:
        """``ask(j)`` for a function :func:`units_next_to_of` recognised: ``convert(j in beside)``,
        where ``beside`` holds the numbers of the board hexes adjacent to a unit of
        ``enemies(u)`` (or ``friends(u)``), listed at the first hex asked, once per search.
        The same answers as the function's body: a unit in those lists stands on the board."""
        beside: set[int] = set()
        listed = False
        index = numbered()
        around, number = index.neighbours, index.number

        def ask(j):
            nonlocal listed
            if not listed:
                for e in (enemies(u) if near == "enemies" else friends(u)):
                    beside.update(around[number[e.hex]])
                listed = True
            return convert(j in beside)
        return ask

    at_own_hex: dict = {}  # cost function -> does it read where units stand only as occupied(h)?

    def cost_at_own_hex(fn) -> bool:
        """Does step cost ``fn`` read where the units stand, and only as ``occupied(h)`` of the
        hex entered (memo.positions_at_own_hex)? Its answers on free hexes then outlive moves."""
        found = at_own_hex.get(fn)
        if found is None:
            found = at_own_hex[fn] = POSITIONS in memo.reads.get(fn, ()) and positions_at_own_hex(game.rules, fn)
        return found

    def per_hex(fn, u, convert):
        """``(test(h), answers by hex number or None)`` for ``convert(fn(u, h))``: answers kept
        across searches (:func:`hex_answers`) for a function of a unit and a hex."""
        if arity_of(fn) == 2:
            answers, number = hex_answers(fn, u, convert), numbered().number
            return (lambda h: answers(number[h])), answers
        of = caller(fn)
        return (lambda h: convert(of([u, h]))), None

    def reach_cost(c):
        return None if c is None or c < 0 else c

    def step_cost(c):
        return None if c is None or c < 0 else int(c)

    def hex_cost(u, cost, may_pass):
        """Step cost from a Lore function (negative: cannot enter), and who stands on the hex
        (``may_pass``): ``(enter(frm, to), answers by hex number or None)``, asked once per hex
        and call. The function takes ``(unit, hex)``, or ``(unit, from, to)`` when the step
        itself matters (a cliff between two hexes)."""
        if cost is None:  # no cost function: every hex a unit may pass costs one point
            return (lambda _frm, to: 1 if may_pass(to) else None), None
        if arity(cost, (2, 3), "(u: unit, h: hex) or (u: unit, from: hex, to: hex)") == 3:
            cache = {}
            cost_of = caller(cost)

            def enter_step(frm, to):
                key = (frm, to)
                if key not in cache:
                    c = cost_of([u, frm, to])
                    cache[key] = None if c is None or c < 0 or not may_pass(to) else int(c)
                return cache[key]
            return enter_step, None

        # the terrain's part (kept across searches) and, for this call, who stands where:
        # an occupied hex is asked again (may_pass), any other answers what the terrain says
        free_only = cost_at_own_hex(cost)
        terrain = hex_answers(cost, u, step_cost, free_only)
        numbers = numbered()
        hexes, number = numbers.hexes, numbers.number
        known = terrain.known.copy()
        unasked = movement.UNASKED
        # every unit on a hex is in its occupants (state.place keeps both): the units' hexes
        # are every occupied hex, found in fewer steps than the hexes ever occupied
        for v in everyone.values():
            h = v.hex
            if h is not None:
                known[number[h]] = unasked

        terrain_known, terrain_ask = terrain.known, terrain.ask

        def ask(j):  # terrain(j) written out: asked for every hex a search reaches first
            c = terrain_known[j]
            if c is unasked:
                c = terrain_known[j] = terrain_ask(j)
            return None if c is None or not may_pass(hexes[j]) else c

        def ask_free(j):  # ask, keeping only the answers on hexes nobody stands on (free_only)
            h = hexes[j]
            if occupants.get(h):  # asked afresh each time: the answer may read who stands here
                c = terrain_ask(j)
                return None if c is None or not may_pass(h) else c
            c = terrain_known[j]
            if c is unasked:
                c = terrain_known[j] = terrain_ask(j)
            return c  # nobody here: may_pass holds
        costs = movement.HexAnswers(known, ask_free if free_only else ask)
        return (lambda _frm, to: costs(number[to])), costs

    def zoc_rule(value):
        """The search's mode for a value of the built-in enum ``zoc`` (its ``ignore`` is the
        search's "none": a Lore name cannot be the keyword)."""
        name = value.name if isinstance(value, Symbol) else str(value)
        mode = ZOC_MODES.get(name)
        if mode is None:
            raise RuleError(f"zone of control rule must be one of {', '.join(ZOC_MODES)}, got {name!r}")
        return mode

    move_tables: dict = {}  # the functions a search asks -> memo.table of its searches (the same each time)

    def move_search(unit, budget, cost, obstacle, stops, passes, controls, zoc):
        """The routes of a unit's move; move_options, move_path and move_spent with the same
        arguments and nothing moved or changed in between (what the functions read) share one
        search while the rules run (hexlore/runtime/engine/memo.py)."""
        if not memo.on:
            return search_routes(unit, budget, cost, obstacle, stops, passes, controls, zoc)
        key = (unit, budget, cost, obstacle, stops, passes, controls, zoc)
        try:
            table = move_tables.get((cost, obstacle, stops, passes, controls))
            if table is None:
                table = move_tables[(cost, obstacle, stops, passes, controls)] = memo.table(
                    "move", tuple(f for f in (cost, obstacle, stops, passes, controls) if f is not None))
            found = table.get(key)
        except TypeError:  # an argument that cannot be hashed: search, keep nothing
            return search_routes(unit, budget, cost, obstacle, stops, passes, controls, zoc)
        if found is None:
            found = table[key] = search_routes(unit, budget, cost, obstacle, stops, passes, controls, zoc)
        return found

    def search_routes(unit, budget, cost, obstacle, stops, passes, controls, zoc):
        u = need_unit(unit)
        if u.hex is None:
            return u, {}
        may_pass, may_end = occupancy(u, passes)
        obstacle_at, controls_at = caller(obstacle), caller(controls)
        enter, costs = hex_cost(u, cost, may_pass)
        # a callback that is always false is left out: the search never asks it
        stops_at, stop_answers = (None, None) if never(stops) else per_hex(stops, u, bool)
        rules = movement.MoveRules(
            enter,
            stops=stops_at,
            can_end=may_end,
            obstacle=None if never(obstacle) else lambda a, b: bool(obstacle_at([u, a, b])),
            controlled=None if never(controls) else lambda h: bool(controls_at([u, h])),
            zoc=zoc_rule(zoc), costs=costs, stop_answers=stop_answers)
        return u, movement.search(board, u.hex, max(0, int(budget)), rules)

    def move_options(unit, budget, cost, obstacle, stops, passes, controls, zoc):
        _, routes = move_search(unit, budget, cost, obstacle, stops, passes, controls, zoc)
        return movement.end_hexes(routes)

    def move_path(unit, to, budget, cost, obstacle, stops, passes, controls, zoc):
        _, routes = move_search(unit, budget, cost, obstacle, stops, passes, controls, zoc)
        route = routes.get(need_hex(to))
        return list(route.path) if route is not None else []

    def move_spent(unit, to, budget, cost, obstacle, stops, passes, controls, zoc):
        _, routes = move_search(unit, budget, cost, obstacle, stops, passes, controls, zoc)
        route = routes.get(need_hex(to))
        return route.cost if route is not None else -1

    def teleport_options(unit, reach, lands):
        u = need_unit(unit)
        if u.hex is None:
            return []
        lands_on = caller(lands)
        return movement.teleport_options(board, u.hex, max(0, int(reach)),
                                         lambda h: bool(lands_on([u, h])))

    def forced(unit, remaining, cost, passes, rank_for):
        u = need_unit(unit)
        if u.hex is None:
            return []
        may_pass, may_end = occupancy(u, passes)
        enter, _ = hex_cost(u, cost, may_pass)

        def step(frm, to):
            c = enter(frm, to)
            if c is not None and c < 1:
                raise RuleError(f"a forced move counts hexes: entering {board.label(to)} must cost "
                                f"at least 1, the cost function gave {c}")
            return c
        return movement.forced_options(board, u.hex, int(remaining), rank_for(u), step, may_end)

    def away_options(unit, source, remaining, cost, passes):
        src = need_hex(source)
        return forced(unit, remaining, cost, passes, lambda u: movement.away_rank(board, src))

    def retreat_options(unit, remaining, cost, passes):
        return forced(unit, remaining, cost, passes, lambda u: movement.edge_rank(board, u.side.edge))

    def retreat_from_options(unit, source, remaining, cost, passes):
        src = need_hex(source)
        return forced(unit, remaining, cost, passes, lambda u: movement.directional_rank(src))

    # the unit lists read state.units and state.occupants in place (one pass, no copies):
    # the same units in the same order as filtering state.on_board() or state.units_at(h)
    everyone = state.units
    occupants = state.occupants

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

    def units():
        return state.on_board()

    def units_of(side):
        found = standing(side)
        return list(found) if found.__class__ is tuple else found  # a list of the caller's own

    def units_in(hexes):
        out = []
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

    def roster(side):
        # state.units keeps the order units were created in: the scenario's, then a campaign's
        return [u for u in state.units.values() if u.side is side]

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

    def set_terrain(h, terrain):
        h = need_hex(h)
        if h not in board:
            raise RuleError(f"set_terrain: {h!r} is not on the board")
        if not isinstance(terrain, DefinitionSpec) or terrain.kind != "terrain":
            raise RuleError(f"set_terrain needs a terrain, got {terrain!r}")
        state.write(state.hex_fields[h], "terrain", terrain)

    def draw_game():
        game_over_already("draw_game")
        state.set(state, "over", True)
        game.events.record({"type": "end", "winner": None})
        raise GameOver()

    hex_class = grid.Hex  # read at every call of the two below

    def distance(a, b):
        if a.__class__ is hex_class and b.__class__ is hex_class:  # what need_hex lets through
            dq, dr = a[0] - b[0], a[1] - b[1]  # Hex.distance written out: rules ask it everywhere
            return (abs(dq) + abs(dr) + abs(dq + dr)) // 2
        return need_hex(a).distance(need_hex(b))

    def adjacent(a, b):
        if a.__class__ is hex_class and b.__class__ is hex_class:
            dq, dr = a[0] - b[0], a[1] - b[1]
            # distance 1 without a call: both steps in -1..1 and not equal (which leaves out
            # the hex itself and the two hexes at distance 2 that the square around it holds)
            return -1 <= dq <= 1 and -1 <= dr <= 1 and dq != dr
        return distance(a, b) == 1

    around: dict = {}  # the board never changes: each hex's neighbours are listed once

    def neighbours(h):
        known = around.get(h) if h.__class__ is grid.Hex else None
        if known is None:
            known = board.neighbours(need_hex(h))
            around[h] = tuple(known)
            return known
        return list(known)  # a list of its own for each call, as board.neighbours gives

    def numbers_from(lo, hi):
        if hi - lo + 1 > MAX_LIST_ITEMS:  # checked before the list is made
            bounded_list(range(lo, hi + 1), None)
        return list(range(lo, hi + 1))

    def push(items, item):
        state.will_change(items)
        items.append(item)
        bounded_list(items, None)

    def text(value):
        from hexlore.runtime.engine.state import label
        shown = label(value, board)
        return shown if isinstance(shown, str) else str(shown)

    return {
        "roll": roll, "groups": groups,
        "count": lambda items: len(items), "sum": lambda items: sum(num(v) for v in items),
        "max": largest, "min": smallest,
        "abs": lambda n: abs(n) if n.__class__ is int else abs(num(n)), "range": numbers_from,  # ints: no num
        "empty": lambda items: not items, "first": first, "last": last, "without": without,
        "shuffle": shuffle, "push": push, "pop": pop,
        "remove": remove, "hexes": lambda: list(board),
        "distance": distance, "neighbours": neighbours,
        "adjacent": adjacent,
        "toward_edge": toward_edge, "on_edge": on_edge, "in_section": in_section,
        "line_clear": line_clear, "reachable": reachable,
        "move_options": move_options, "move_path": move_path, "move_spent": move_spent,
        "teleport_options": teleport_options, "away_options": away_options,
        "retreat_options": retreat_options, "retreat_from_options": retreat_from_options,
        "units": units, "units_of": units_of,
        "units_at": lambda h: [u for u in occupants.get(need_hex(h), ()) if u.alive],
        "units_in": units_in, "unit_at": unit_at,
        "occupied": lambda h: bool(occupants.get(h if h.__class__ is hex_class else need_hex(h))),
        "friends": friends, "enemies": enemies, "sides": lambda: list(state.sides),
        "opponent": opponent, "move": move, "remove_unit": remove_unit, "set_aside": set_aside, "set_terrain": set_terrain,
        "roster": roster, "winner": lambda: state.winner, "begin_turn": begin_turn,
        "win": win, "draw_game": draw_game, "text": text,
        **geometry,
    }
