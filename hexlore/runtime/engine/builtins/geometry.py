"""Built-ins of the family ``geometry``: the board, range and line of sight.

Their records are in :mod:`hexlore.compiler.builtins`; this module implements each under its
record's name. The board never changes during a game, so what a call works out about it
(a hex's neighbours, an edge row) is kept for the next.
"""

from __future__ import annotations

from functools import partial
from typing import Callable

from hexlore.compiler.builtins import GEOMETRY
from hexlore.compiler.model import Symbol
from hexlore.runtime.engine.builtins.kit import Kit
from hexlore.runtime.geometry import grid, sight

FAMILY = GEOMETRY
#: the most answers of ``within`` a game keeps (a few MB at most on a large board)
WITHIN_KEPT = 4096


def _board_facts(kit: Kit) -> dict[str, Callable]:
    """Distances, neighbours, edges and sections: asked everywhere, written out for speed."""
    board, need_hex = kit.board, kit.need_hex
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

    near: dict = {}  # the board never changes: the hexes within n of a hex are listed once

    def within(h, n):
        """``board.within``, kept by (hex, n): a search's futures ask the same areas again and
        again (the ruins: 29,000 times in 800 futures), and each answer sorts its hexes by
        distance. At most :data:`WITHIN_KEPT` answers are kept, each a list of its own."""
        if h.__class__ is not hex_class:
            return board.within(need_hex(h), int(n))
        key = (h, n)
        known = near.get(key)
        if known is None:
            known = board.within(h, int(n))
            if len(near) < WITHIN_KEPT and n.__class__ is int:
                near[key] = tuple(known)
            return known
        return list(known)

    return {"hexes": lambda: list(board), "distance": distance, "adjacent": adjacent, "neighbours": neighbours,
            "toward_edge": toward_edge, "on_edge": on_edge, "in_section": in_section, "within": within}


def _sight(kit: Kit) -> dict[str, Callable]:
    """Shapes on the board, lines of sight and ranges, asking the pack's functions."""
    game, board, need_hex, num = kit.game, kit.board, kit.need_hex, kit.num
    caller, arity = kit.caller, kit.arity

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

    def sight_test(fn, frm):
        """:func:`hex_test` for a look asked again and again (a line of sight of every unit on
        every enemy): a two-parameter test is its search caller bound to the viewer's hex, which
        the look calls without a Python frame between (its answers are tested for truth)."""
        if arity(fn, (1, 2), "(h: hex) or (viewer: hex, h: hex)") == 2:
            return partial(game.search_caller2(fn), frm)
        return hex_test(fn, frm)

    def line_clear(a, b, blocks):
        a, b = need_hex(a), need_hex(b)
        return sight.line_clear(board, a, b, sight_test(blocks, a))

    def line_heights(a, b, height):
        level = hex_number(height)
        return [level(h) for h in sight.line_hexes(board, need_hex(a), need_hex(b))]

    def line_clear_above(a, b, blocks, height):
        a, b = need_hex(a), need_hex(b)
        return sight.line_clear_above(board, a, b, sight_test(blocks, a), hex_number(height))

    def paths_clear(a, b, blocks, four_path_rule):
        a, b = need_hex(a), need_hex(b)
        return sight.paths_clear(board, a, b, sight_test(blocks, a), bool(four_path_rule))

    def path_length(a, b):
        n = sight.path_length(board, need_hex(a), need_hex(b))
        return -1 if n is None else n

    return {
        "ring": lambda h, n: board.ring(need_hex(h), int(n)) if n >= 0 else [],
        "areas": lambda h: [list(t) for t in board.areas(need_hex(h))],
        "line_hexes": lambda a, b: sight.line_hexes(board, need_hex(a), need_hex(b)),
        "line_clear": line_clear, "line_heights": line_heights, "line_clear_above": line_clear_above,
        "paths_clear": paths_clear, "path_length": path_length,
        "in_range": lambda a, b, lo, hi: sight.in_range(board, need_hex(a), need_hex(b), int(lo), int(hi)),
        "hexes_in_range": lambda h, lo, hi: sight.hexes_in_range(board, need_hex(h), int(lo), int(hi)),
    }


def make(kit: Kit, made: dict[str, Callable]) -> dict[str, Callable]:
    """The family's built-ins for the game of ``kit``, by name (``made``: the families made before)."""
    return {**_board_facts(kit), **_sight(kit)}
