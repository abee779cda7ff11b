"""Teleports and forced moves on a hex board (the second and third families of
:mod:`hexlore.runtime.geometry.movement`, which re-exports them).

* **Teleport** (:func:`teleport_options`): any hex within a distance that the pack lets the
  unit land on; paths, terrain and units in between do not matter.
* **Forced moves** (:func:`forced_options`, :func:`forced_paths`): a count of hexes (not
  points) spent one step at a time, where a *rank* says which neighbours a step may enter
  and which of them are preferred: :func:`away_rank`, :func:`edge_rank` and
  :func:`directional_rank`. When several hexes tie, all are returned so a decision or policy
  picks; when none is possible the move is blocked and the count left over is the rules'
  business (:attr:`ForcedPath.missing`).

A module of its own so that the searches' module stays readable (and under 800 lines).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from hexlore.runtime.geometry.grid import Board, Hex

#: the callbacks' shapes, as in movement.py: a step's cost (None: not enterable), a hex's test
StepCost = Callable[[Hex, Hex], "int | None"]
HexTest = Callable[[Hex], bool]


# ---------------------------------------------------------------------------
# Teleport
# ---------------------------------------------------------------------------


def _within(board: Board, centre: Hex, n: int) -> Iterator[Hex]:
    if 3 * n * (n + 1) + 1 > len(board):
        yield from (h for h in board if centre.distance(h) <= n)
        return
    for dr in range(-n, n + 1):
        for dq in range(max(-n, -dr - n), min(n, -dr + n) + 1):
            h = Hex(centre.q + dq, centre.r + dr)
            if h in board:
                yield h


def teleport_options(board: Board, start: Hex, reach: int, can_land: HexTest) -> list[Hex]:
    """Hexes a unit at ``start`` may teleport to: within ``reach`` steps and ``can_land``.

    Teleporting ignores paths (seed 003, 404.2): terrain, units and sight in between do not
    matter, and the landing hex costs nothing extra; ``can_land`` says which hexes are legal
    (typically: not impassable, not occupied). The start itself is never an option. Sorted
    by distance, then row by row.
    """
    if start not in board:
        raise ValueError(f"start hex {start} is not on the board")
    if reach < 0:
        raise ValueError(f"teleport reach must be non-negative, got {reach}")
    out = [h for h in _within(board, start, reach) if h != start and can_land(h)]
    out.sort(key=lambda h: (start.distance(h), h.r, h.q))
    return out


# ---------------------------------------------------------------------------
# Forced moves
# ---------------------------------------------------------------------------

#: ``rank(here, nxt)`` says whether a forced step may go from ``here`` to the neighbour
#: ``nxt`` (``None``: it may not) and how much it is preferred: a step goes to one of the
#: enterable neighbours of the highest rank. Ranks must be comparable with each other.
Rank = Callable[[Hex, Hex], Any]


@dataclass(frozen=True, slots=True)
class ForcedPath:
    """One way a forced move can go: the hexes entered, and the count left when it stopped
    (0: the whole count was spent; more: the move was blocked, see the rules)."""

    path: tuple[Hex, ...]
    missing: int


@dataclass
class _Forced:
    """Forced-step options with look-ahead, memoised on ``(hex, count left)``.

    A neighbour is *viable* when the unit may end there, or when the move can go on from it
    (a unit it may pass through stands there, but the count is not spent yet). Options are
    the viable neighbours of the best rank. Every rank in this module strictly increases a
    potential along a move (distance from a source, then closeness to the rim's far end; or
    the row), so a move never comes back to a hex and the memo needs no "visited" set; a
    rank that did cycle is cut (a hex under evaluation counts as blocked).
    """

    board: Board
    rank: Rank
    enter_cost: StepCost
    can_end: HexTest | None
    memo: dict[tuple[Hex, int], list[tuple[Hex, int]]] = field(default_factory=dict)
    busy: set[tuple[Hex, int]] = field(default_factory=set)

    def options(self, here: Hex, remaining: int) -> list[tuple[Hex, int]]:
        key = (here, remaining)
        known = self.memo.get(key)
        if known is not None:
            return known
        if key in self.busy:
            return []
        self.busy.add(key)
        groups: dict[Any, list[tuple[Hex, int]]] = {}  # keyed by rank: comparable (Rank)
        if remaining > 0:
            for nxt in self.board.neighbours(here):
                r = self.rank(here, nxt)
                if r is None:
                    continue
                c = self.enter_cost(here, nxt)
                if c is None or c > remaining:
                    continue
                if c < 1:
                    raise ValueError(f"a forced step must count at least one hex, got {c} entering {nxt}")
                groups.setdefault(r, []).append((nxt, c))
        result: list[tuple[Hex, int]] = []
        for r in sorted(groups, reverse=True):
            viable = [(n, c) for n, c in groups[r] if self.viable(n, remaining - c)]
            if viable:
                result = sorted(viable, key=lambda nc: (nc[0].r, nc[0].q))
                break
        self.busy.discard(key)
        self.memo[key] = result
        return result

    def viable(self, h: Hex, remaining: int) -> bool:
        if self.can_end is None or self.can_end(h):
            return True
        return bool(self.options(h, remaining))


def forced_options(
    board: Board,
    here: Hex,
    remaining: int,
    rank: Rank,
    enter_cost: StepCost,
    can_end: HexTest | None = None,
) -> list[Hex]:
    """The hexes the next step of a forced move may enter, row by row; empty: blocked.

    ``remaining`` is the count of hexes still to move; ``enter_cost(frm, to)`` is how much
    of it a step uses (at least 1; cover costing 2 is seed 003's 404.3a) or ``None`` when
    the unit may not enter. A hex costing more than is left cannot be entered. Hexes the
    unit may cross but not end on (``can_end`` false) are offered only when the move can
    go on from them. Several hexes: the rules' controller chooses (a decision).
    """
    if here not in board:
        raise ValueError(f"hex {here} is not on the board")
    return [n for n, _ in _Forced(board, rank, enter_cost, can_end).options(here, remaining)]


def forced_paths(
    board: Board,
    start: Hex,
    count: int,
    rank: Rank,
    enter_cost: StepCost,
    can_end: HexTest | None = None,
    limit: int = 100_000,
) -> list[ForcedPath]:
    """Every way a forced move of ``count`` hexes can go, each step among its options.

    A move goes on while it has options and stops when the count is spent or it is blocked.
    Paths are listed depth first, options row by row. ``limit`` bounds the number of paths
    (a ``ValueError`` beyond it) since branching makes their number grow exponentially.
    """
    if start not in board:
        raise ValueError(f"start hex {start} is not on the board")
    if count < 0:
        raise ValueError(f"count must be non-negative, got {count}")
    forced = _Forced(board, rank, enter_cost, can_end)
    out: list[ForcedPath] = []
    stack: list[tuple[Hex, int, tuple[Hex, ...]]] = [(start, count, ())]
    while stack:
        here, left, path = stack.pop()
        opts = forced.options(here, left)
        if not opts:
            out.append(ForcedPath(path, left))
            if len(out) > limit:
                raise ValueError(f"more than {limit} forced paths")
            continue
        for nxt, c in reversed(opts):
            stack.append((nxt, left - c, path + (nxt,)))
    return out


def on_rim(board: Board, h: Hex) -> bool:
    """Is ``h`` on the board's rim (at least one of its six neighbours is off the board)?"""
    return any(n not in board for n in h.neighbours())


def _far2(source: Hex, h: Hex) -> int:
    """Squared straight-line distance between hex centres, times 4/3 (an exact integer).

    A pointy-top centre is at ``(sqrt(3) * (q + r/2), 3/2 * r)`` in hex widths, so the
    squared distance is ``3/4 * ((2dq + dr)^2 + 3 dr^2)``; only comparisons are needed.
    """
    dq, dr = h.q - source.q, h.r - source.r
    return (2 * dq + dr) ** 2 + 3 * dr * dr


def away_rank(board: Board, source: Hex) -> Rank:
    """Move away from ``source`` (seed 003, 404.3b).

    Each hex entered must be one of the farthest possible from the source: a neighbour one
    step farther ranks ``(1, 0)``, and all such neighbours tie (a decision picks). A unit on
    the board's rim that cannot get farther slides along the rim "in the direction that
    takes it farthest": rim neighbours at the same distance rank ``(0, e)`` where ``e`` is
    the straight-line distance from the source, only if ``e`` grows. Anything else (moving
    nearer, sideways off the rim) is not allowed, so a move that can get no farther stops.
    """

    def rank(here: Hex, nxt: Hex) -> tuple[int, int] | None:
        d_here, d_next = source.distance(here), source.distance(nxt)
        if d_next > d_here:
            return (1, 0)
        if d_next == d_here and on_rim(board, here) and on_rim(board, nxt):
            e_next = _far2(source, nxt)
            if e_next > _far2(source, here):
                return (0, e_next)
        return None

    return rank


def edge_rank(board: Board, edge: str) -> Rank:
    """Retreat toward the edge row ``edge`` ("top" or "bottom"): each step enters one of the
    (at most two) neighbours one row closer to it (:meth:`Board.toward_edge`), which tie (a
    decision picks). Rows grow toward the bottom edge."""
    if edge not in ("top", "bottom"):
        raise ValueError(f"edge must be 'top' or 'bottom', got {edge!r}")
    step = -1 if edge == "top" else 1

    def rank(here: Hex, nxt: Hex) -> int | None:
        return 0 if nxt.r - here.r == step and here.distance(nxt) == 1 else None

    return rank


def directional_rank(source: Hex) -> Rank:
    """Retreat away from ``source``: straight away if possible, else obliquely away.

    Neighbours one step farther from the source are allowed. The *primary* ones (rank 2)
    are those whose centre is farthest in a straight line, i.e. directly away (from an
    adjacent source, the one hex opposite it); the others are *secondary* (rank 1) and are
    used only when no primary hex can be entered. The primary direction is found among all
    six geometric neighbours, so a primary hex off the board also falls back to secondary.
    """

    def rank(here: Hex, nxt: Hex) -> int | None:
        d = source.distance(here) + 1
        if source.distance(nxt) != d:
            return None
        top = max(_far2(source, n) for n in here.neighbours() if source.distance(n) == d)
        return 2 if _far2(source, nxt) == top else 1

    return rank


def forced_ends(start: Hex, paths: Iterable[ForcedPath]) -> dict[Hex, int]:
    """Where forced paths from ``start`` end -> the least count left over ending there."""
    out: dict[Hex, int] = {}
    for fp in paths:
        end = fp.path[-1] if fp.path else start
        old = out.get(end)
        out[end] = fp.missing if old is None else min(old, fp.missing)
    return out
