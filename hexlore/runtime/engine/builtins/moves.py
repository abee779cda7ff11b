"""Built-ins of the family ``moves``: movement searches, teleports and forced moves.

Their records are in :mod:`hexlore.compiler.builtins`; this module implements each under its
record's name, over the searches of :mod:`hexlore.runtime.geometry.movement`. A search asks
the pack's functions (a step cost, what stops a move, who may be crossed) about every hex it
reaches, so their answers are kept by hex number across searches while what they read is
unchanged (memo tables, :mod:`hexlore.runtime.engine.core.memo`).
"""

from __future__ import annotations

from functools import partial
from typing import Callable, cast

from hexlore.compiler import ir
from hexlore.compiler.builtins import MOVEMENT
from hexlore.compiler.memo_plan import POSITIONS, positions_at_own_hex
from hexlore.compiler.model import Symbol
from hexlore.compiler.usage import SHARING_RULE
from hexlore.runtime.engine.core.bounds import RuleError
from hexlore.runtime.engine.builtins.kit import Kit
from hexlore.runtime.geometry import movement

FAMILY = MOVEMENT

#: the values of the built-in enum zoc (hexlore/compiler/builtins.py) -> the search's modes
ZOC_MODES = {"ignore": movement.ZOC_NONE, "stop": movement.ZOC_STOP, "forbid": movement.ZOC_FORBID,
             "enter": movement.ZOC_ENTER}


def zoc_rule(value):
    """The search's mode for a value of the built-in enum ``zoc`` (its ``ignore`` is the
    search's "none": a Lore name cannot be the keyword)."""
    name = value.name if isinstance(value, Symbol) else str(value)
    mode = ZOC_MODES.get(name)
    if mode is None:
        raise RuleError(f"zone of control rule must be one of {', '.join(ZOC_MODES)}, got {name!r}")
    return mode


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


def _occupancy(kit: Kit) -> Callable:
    """``occupancy(u, passes)``: who may pass and end a move on a hex, from who stands there."""
    game, state, functions, never, arity = kit.game, kit.state, kit.functions, kit.never, kit.arity

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
            return all(cast(Callable, passes_by)(u, o) for o in others(h))  # passes is given

        def may_end(h):
            return not occupants.get(h) or not others(h)  # most hexes: nobody there (no call)

        return may_pass, may_end
    return occupancy


def _answers(kit: Kit, made: dict[str, Callable]) -> Callable:
    """``hex_answers(fn, u, convert, free_only)``: a function's answers by hex number, kept."""
    game, memo, functions, numbered = kit.game, kit.memo, kit.functions, kit.numbered
    enemies, friends = made["enemies"], made["friends"]

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
    return hex_answers


def reach_cost(c):
    return None if c is None or c < 0 else c


def step_cost(c):
    return None if c is None or c < 0 else int(c)


def _per_hex(kit: Kit, hex_answers: Callable) -> Callable:
    """``per_hex(fn, u, convert)``: a function of a unit and a hex asked by hex."""
    arity_of, numbered, caller = kit.arity_of, kit.numbered, kit.caller

    def per_hex(fn, u, convert):
        """``(test(h), answers by hex number or None)`` for ``convert(fn(u, h))``: answers kept
        across searches (:func:`hex_answers`) for a function of a unit and a hex."""
        if arity_of(fn) == 2:
            answers, number = hex_answers(fn, u, convert), numbered().number
            return (lambda h: answers(number[h])), answers
        of = caller(fn)
        return (lambda h: convert(of([u, h]))), None

    return per_hex


def _hex_cost(kit: Kit, hex_answers: Callable) -> Callable:
    """``hex_cost(u, cost, may_pass)``: the step cost of a search, kept by hex where it may be."""
    game, memo, caller, arity, numbered = kit.game, kit.memo, kit.caller, kit.arity, kit.numbered
    everyone = kit.state.units
    occupants = kit.state.occupants

    at_own_hex: dict = {}  # cost function -> does it read where units stand only as occupied(h)?

    def cost_at_own_hex(fn) -> bool:
        """Does step cost ``fn`` read where the units stand, and only as ``occupied(h)`` of the
        hex entered (memo.positions_at_own_hex)? Its answers on free hexes then outlive moves."""
        found = at_own_hex.get(fn)
        if found is None:
            found = at_own_hex[fn] = POSITIONS in memo.reads.get(fn, ()) and positions_at_own_hex(game.rules, fn)
        return found

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
    return hex_cost


def _searches(kit: Kit, occupancy: Callable, per_hex: Callable, hex_cost: Callable) -> dict[str, Callable]:
    """The movement searches: reachable hexes, move options, paths and points spent."""
    memo, board, need_unit, need_hex = kit.memo, kit.board, kit.need_unit, kit.need_hex
    caller, never = kit.caller, kit.never

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


    move_tables: dict = {}  # the functions a search asks -> memo.table of its searches (the same each time)

    def move_search(unit, budget, cost, obstacle, stops, passes, controls, zoc):
        """The routes of a unit's move; move_options, move_path and move_spent with the same
        arguments and nothing moved or changed in between (what the functions read) share one
        search while the rules run (hexlore/runtime/engine/core/memo.py)."""
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

    return {"reachable": reachable, "move_options": move_options, "move_path": move_path, "move_spent": move_spent}


def _forced(kit: Kit, occupancy: Callable, hex_cost: Callable) -> dict[str, Callable]:
    """Teleports and forced moves (away from a hex, retreats)."""
    board, need_unit, need_hex, caller = kit.board, kit.need_unit, kit.need_hex, kit.caller

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

    return {"teleport_options": teleport_options, "away_options": away_options,
            "retreat_options": retreat_options, "retreat_from_options": retreat_from_options}


def make(kit: Kit, made: dict[str, Callable]) -> dict[str, Callable]:
    """The family's built-ins for the game of ``kit``, by name (``made``: the families made
    before; the searches read the lists of units of :mod:`.units`)."""
    occupancy, hex_answers = _occupancy(kit), _answers(kit, made)
    hex_cost = _hex_cost(kit, hex_answers)
    return {**_searches(kit, occupancy, _per_hex(kit, hex_answers), hex_cost), **_forced(kit, occupancy, hex_cost)}
