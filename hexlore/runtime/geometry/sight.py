"""Line of sight and range: the models a pack chooses from, all exact.

Three models, each a general primitive (what blocks is always the pack's predicate):

* **Centre line** (:func:`line_clear`): the segment from the centre of ``a`` to the
  centre of ``b`` is blocked by a board hex whose *interior* it crosses and whose
  predicate says it blocks. Grazing an edge or touching a corner does not count; the
  end hexes never block.
* **Shortest paths** (:func:`paths_clear`): clear if ANY shortest path of board hexes
  from ``a`` to ``b`` has no blocking hex except its last (the path starts with the hex
  next to ``a``, so ``a`` never blocks either). Optional "four-path rule": at distance
  4, when exactly four shortest paths exist (the target is one step off a straight
  line), sight is clear only if one of the two central paths is.
* **Elevation** (:func:`line_clear_above`): the centre line, where hexes lower than the
  viewer's hex never block. :func:`line_hexes` gives the hexes the line crosses in
  order, so a pack can read heights along it (slopes, cliffs, attack bonuses).

Range (:func:`path_length`, :func:`in_range`, :func:`hexes_in_range`) is the length of
the shortest path of board hexes (0 for the same hex), with an optional minimum.

Why it is exact (no floating-point flakiness)
---------------------------------------------
Hex centres are mapped to the integer frame ``X = 2q + r, Y = 3r``: an affine image of
the real pointy-top layout in which every hexagon has integer vertices
``(X±1, Y±1), (X, Y±2)``. Affine maps preserve incidence (which point lies in which
polygon, which segment meets which interior), so tests done in the frame are the tests
on the real board. The crossing test (:func:`_crossed_cells`) is a separating-axis test
on the hexagon's three edge normals and the segment's normal, with integer dot products
and strict comparisons only: no rounding, no epsilon. Candidates are, row by row, the
hexes whose extent overlaps the segment's extent within the row's band (integer floor
and ceiling divisions), a few per row, never the whole board. The result equals the
whole-board scan with Fractions of :func:`crossed_hexes_reference`, which tests check.
"""

from __future__ import annotations

import weakref
from collections import deque
from collections.abc import Callable, Iterator
from fractions import Fraction

from hexlore.runtime.geometry.grid import DIRECTIONS, Board, Hex

__all__ = [
    "crossed_hexes",
    "crossed_hexes_reference",
    "line_hexes",
    "line_clear",
    "line_clear_above",
    "geodesic_layers",
    "shortest_paths",
    "central_paths",
    "paths_clear",
    "path_length",
    "in_range",
    "hexes_in_range",
]

Blocks = Callable[[Hex], bool]

# ---------------------------------------------------------------------------
# Centre line
# ---------------------------------------------------------------------------


def _centre(h: Hex) -> tuple[int, int]:
    """Integer image of a hex centre under the affine map (q, r) -> (2q + r, 3r)."""
    return 2 * h.q + h.r, 3 * h.r


def _row_spans(ax: int, ay: int, bx: int, by: int) -> Iterator[tuple[int, int, int]]:
    """For each row ``r`` the segment can touch, a range ``q_lo..q_hi`` holding every hex of that
    row whose interior it may cross (a superset: :func:`_enters` decides).

    The hexagon of row ``r`` spans ``3r - 2 < Y < 3r + 2`` and ``X - 1 < X < X + 1`` around its
    centre ``X = 2q + r``; the segment's ``X`` over that band of ``Y`` is an interval, computed
    with integer floor and ceiling divisions.
    """
    dy = by - ay
    dx = bx - ax
    if dy < 0:
        ax, ay, bx, by, dx, dy = bx, by, ax, ay, -dx, -dy
    for r in range(ay // 3, by // 3 + 1):
        y1, y2 = max(3 * r - 2, ay), min(3 * r + 2, by)
        # X(Y) = ax + dx (Y - ay) / dy, as numerators over dy
        n1, n2 = ax * dy + dx * (y1 - ay), ax * dy + dx * (y2 - ay)
        lo, hi = (n1, n2) if n1 <= n2 else (n2, n1)
        x_lo, x_hi = lo // dy, -((-hi) // dy)  # floor of the smaller, ceiling of the larger
        yield r, (x_lo - 1 - r) // 2, (x_hi + 2 - r) // 2


def _crossed_cells(a: Hex, b: Hex) -> list[tuple[int, int]]:
    """``(q, r)`` of every hex (board or not, ends excluded) whose interior the segment a-b
    crosses. Integers only; Hex objects are made for the few that remain.

    The test is a separating-axis test: two open convex sets are disjoint iff their
    projections are disjoint on one of the candidate axes, here the hexagon's edge normals
    ``(1,0), (1,1), (-1,1)`` (half-widths 1, 2, 2) and the segment's normal ``(-dy, dx)``
    (on which the whole segment projects to one value). Touching a corner or running
    along an edge leaves the open projections disjoint, so it does not count as crossing.
    """
    ax, ay = 2 * a.q + a.r, 3 * a.r
    bx, by = 2 * b.q + b.r, 3 * b.r
    dx, dy = bx - ax, by - ay
    if dy == 0:  # along a row, through the centres of the hexes in between
        step = 1 if b.q > a.q else -1
        return [(q, a.r) for q in range(a.q + step, b.q, step)]
    reach = max(abs(dx - dy), abs(dx + dy), 2 * abs(dx))
    # projections of the segment on the hexagon's edge normals (1,0), (1,1), (-1,1)
    p0 = sorted((ax, bx))
    p1 = sorted((ax + ay, bx + by))
    p2 = sorted((ay - ax, by - bx))
    out = []
    ends = ((a.q, a.r), (b.q, b.r))
    for r, q_lo, q_hi in _row_spans(ax, ay, bx, by):
        cy = 3 * r
        for q in range(q_lo, q_hi + 1):
            cx = 2 * q + r
            if abs(dx * (ay - cy) - dy * (ax - cx)) >= reach:
                continue
            c = cx  # (the same test holds when a projection is a single point)
            if p0[1] <= c - 1 or p0[0] >= c + 1:
                continue
            c = cx + cy
            if p1[1] <= c - 2 or p1[0] >= c + 2:
                continue
            c = cy - cx
            if p2[1] <= c - 2 or p2[0] >= c + 2:
                continue
            if (q, r) not in ends:
                out.append((q, r))
    return out


def _along(a: Hex, b: Hex) -> Callable[[tuple[int, int]], int]:
    """Sort key: position of a hex centre ``(q, r)`` along the direction a->b (Euclidean).

    For hexes crossed by the segment this is their order along it: consecutive crossed
    hexes share an edge whose line is the perpendicular bisector of their centres.
    """
    ax, ay = _centre(a)
    bx, by = _centre(b)
    dx, dy = bx - ax, by - ay

    def key(cell: tuple[int, int]) -> int:
        q, r = cell
        # real x = (sqrt 3 / 2) X, y = Y / 2: the dot product is (3 dX cX + dY cY) / 4
        return 3 * dx * (2 * q + r - ax) + dy * (3 * r - ay)

    return key


def _crossed(board: Board, a: Hex, b: Hex) -> list[Hex]:
    """Crossed board hexes, in order along the line from a to b."""
    cells = _crossed_cells(a, b)
    cells.sort(key=_along(a, b))
    hexes = board.hexes
    return [h for h in (Hex(q, r) for q, r in cells) if h in hexes]


def crossed_hexes(board: Board, a: Hex, b: Hex) -> list[Hex]:
    """Board hexes (other than ``a`` and ``b``) whose interior the segment a-b passes through.

    Sorted by distance from ``a``, then by ``(r, q)``, so callers can walk it outward (use
    :func:`line_hexes` for the exact order along the line). See the module docstring for
    why the result is exact.
    """
    if a == b:
        return []
    found = _crossed(board, a, b)
    found.sort(key=lambda h: (a.distance(h), h.r, h.q))
    return found


def line_hexes(board: Board, a: Hex, b: Hex) -> list[Hex]:
    """``a``, the board hexes the centre line crosses in order from ``a`` to ``b``, then ``b``.

    ``[a]`` when ``a == b``. Hexes only grazed (edge or corner) are left out: a line that
    runs along hex edges (directions such as ``(1, 1)``) jumps from one crossed hex to the
    next two steps away, with the pair it runs between left out of the list.
    """
    if a == b:
        return [a]
    return [a, *_line(board, a, b), b]


def _line(board: Board, a: Hex, b: Hex) -> tuple[Hex, ...]:
    """:func:`_crossed` (nothing when ``a == b``), worked out once per pair of hexes and kept
    with the board, which never changes: packs ask the same lines turn after turn."""
    ref, _, _, lines = _last_kept
    if ref() is not board:
        lines = _kept(board)[2]
    try:
        return lines[(a, b)]
    except KeyError:
        line = lines[(a, b)] = () if a == b else tuple(_crossed(board, a, b))
        return line


def line_clear(board: Board, a: Hex, b: Hex, blocks: Blocks) -> bool:
    """True iff no hex crossed by the segment a-b blocks sight (ends never block)."""
    for h in _line(board, a, b):
        if blocks(h):
            return False
    return True


def line_clear_above(board: Board, a: Hex, b: Hex, blocks: Blocks,
                     height: Callable[[Hex], int]) -> bool:
    """Centre line where a crossed hex lower than ``a`` never blocks (a viewer on high
    ground sees over lower hexes). Not symmetric: the low end does not see over them."""
    base = height(a)
    for h in _line(board, a, b):
        if height(h) >= base and blocks(h):
            return False
    return True


# The reference the fast version must equal: the original whole-board scan with Fractions.
_HALF_PLANES: tuple[tuple[int, int, int], ...] = (
    (1, 0, 1), (1, 1, 2), (-1, 1, 2), (-1, 0, 1), (-1, -1, 2), (1, -1, 2),
)


def _segment_enters_fraction(ax: int, ay: int, bx: int, by: int, h: Hex) -> bool:
    """Parametric clipping of ``A + t(B - A)`` by the six open edge half-planes, in Fractions."""
    cx0, cy0 = _centre(h)
    dx, dy = bx - ax, by - ay
    lo, hi = Fraction(0), Fraction(1)
    for cx, cy, c in _HALF_PLANES:
        alpha = cx * dx + cy * dy
        beta = c - cx * (ax - cx0) - cy * (ay - cy0)
        if alpha == 0:
            if beta <= 0:
                return False
        elif alpha > 0:
            hi = min(hi, Fraction(beta, alpha))
        else:
            lo = max(lo, Fraction(beta, alpha))
        if lo >= hi:
            return False
    return True


def crossed_hexes_reference(board: Board, a: Hex, b: Hex) -> list[Hex]:
    """Slow exact version of :func:`crossed_hexes`: scan the whole board, clip in Fractions.

    Kept so tests and the benchmark can check the fast version against it.
    """
    if a == b:
        return []
    span = a.distance(b)
    ax, ay = _centre(a)
    bx, by = _centre(b)
    found = [h for h in board
             if h != a and h != b and a.distance(h) + h.distance(b) <= span + 1
             and _segment_enters_fraction(ax, ay, bx, by, h)]
    found.sort(key=lambda h: (a.distance(h), h.r, h.q))
    return found


# ---------------------------------------------------------------------------
# Shortest paths
# ---------------------------------------------------------------------------


def _split(a: Hex, b: Hex) -> tuple[tuple[int, int], int, tuple[int, int], int]:
    """Write ``b - a`` as ``n1 * D1 + n2 * D2`` with D1, D2 consecutive directions, n1, n2 >= 0.

    Every shortest path on the open grid is an ordering of those ``n1 + n2`` steps, so
    there are ``C(n1 + n2, n2)`` of them and their hexes fill a parallelogram.
    """
    dq, dr = b.q - a.q, b.r - a.r
    for k in range(6):
        (x1, y1), (x2, y2) = DIRECTIONS[k], DIRECTIONS[(k + 1) % 6]
        det = x1 * y2 - x2 * y1  # consecutive directions: det is +1 or -1
        n1 = (dq * y2 - x2 * dr) * det
        n2 = (x1 * dr - dq * y1) * det
        if n1 >= 0 and n2 >= 0:
            return (x1, y1), n1, (x2, y2), n2
    raise AssertionError("unreachable: the six sectors cover the plane")


def _open_layers(a: Hex, b: Hex) -> list[list[Hex]]:
    """Hexes strictly between a and b on shortest paths of the open grid, by distance from a."""
    (x1, y1), n1, (x2, y2), n2 = _split(a, b)
    d = n1 + n2
    layers: list[list[Hex]] = []
    for k in range(1, d):
        layer = [Hex(a.q + i * x1 + (k - i) * x2, a.r + i * y1 + (k - i) * y2)
                 for i in range(max(0, k - n2), min(n1, k) + 1)]
        layer.sort(key=lambda h: (h.r, h.q))
        layers.append(layer)
    return layers


def _walk(layers: list[list[Hex]], a: Hex, open_: Callable[[Hex], bool]) -> bool:
    """Is there a chain a -> layer 1 -> ... -> last layer of adjacent hexes, all ``open_``?

    The last layer is adjacent to b by construction, so this is "some path reaches b".
    """
    frontier = {a}
    for layer in layers:
        nxt = {h for h in layer if any(n in frontier for n in h.neighbours()) and open_(h)}
        if not nxt:
            return False
        frontier = nxt
    return True


def _always(h: Hex) -> bool:
    return True


class _Shape:
    """The parallelogram of :func:`_split` for one offset ``b - a``, as numbered cells
    (``i * (n2 + 1) + j`` for ``i`` steps one way and ``j`` the other): each cell's offset
    from ``a`` and the cells a step may go to next, nearest the straight line first. It
    depends on the offset alone, so one shape serves every pair of hexes so far apart on
    every board (a game looks between many pairs, a few times each: a shape per pair would
    cost more to make than the searches it serves)."""

    __slots__ = ("cells", "steps", "goal")

    def __init__(self, a: Hex, b: Hex):
        (x1, y1), n1, (x2, y2), n2 = _split(a, b)
        width = n2 + 1
        self.cells: list[tuple[int, int]] = []
        self.steps: list[tuple[int, ...]] = []
        for i in range(n1 + 1):
            for j in range(n2 + 1):
                self.cells.append((i * x1 + j * x2, i * y1 + j * y2))
                order = ((i + 1, j), (i, j + 1)) if i * n2 <= j * n1 else ((i, j + 1), (i + 1, j))
                self.steps.append(tuple(ci * width + cj for ci, cj in order if ci <= n1 and cj <= n2))
        self.goal = n1 * width + n2


_SHAPES: dict[tuple[int, int], _Shape] = {}


def _shape(a: Hex, b: Hex) -> _Shape:
    """The shape of a look from ``a`` to ``b`` (made once per offset, for every board)."""
    key = (b.q - a.q, b.r - a.r)
    try:
        return _SHAPES[key]
    except KeyError:
        shape = _SHAPES[key] = _Shape(a, b)
        return shape


def _through(board: Board, a: Hex, b: Hex, blocks: Blocks | None) -> bool:
    """Is there a path from a to b, each step one nearer b on the grid, through board hexes
    that ``blocks`` does not block (b itself exempt; None: none blocks)? ``a`` and ``b`` are
    at least two steps apart.

    Depth-first over the cells of :class:`_Shape`, trying first the step that keeps the path
    nearest the straight line (a fixed order). Cells from which b cannot be reached are
    remembered, so each is expanded, and its hex asked, once: ``O(d)`` when the straightest
    path is clear, ``O(d^2)`` at worst, never the exponential list of paths.
    """
    shape = _shape(a, b)
    cells, steps, goal = shape.cells, shape.steps, shape.goal
    on_board = board.hexes
    aq, ar = a
    dead: set[int] = set()
    stack = [iter(steps[0])]
    while stack:
        for cell in stack[-1]:
            if cell == goal:
                return True
            if cell in dead:
                continue
            dead.add(cell)  # reached once: if a path through it existed, the search would end there
            dq, dr = cells[cell]
            h = Hex(aq + dq, ar + dr)
            if h not in on_board or (blocks is not None and blocks(h)):
                continue
            stack.append(iter(steps[cell]))
            break
        else:
            stack.pop()
    return False


#: per board: whether a straight-as-possible path of board hexes joins a pair of hexes
#: (:func:`_straight`), its answers of :func:`hexes_in_range`, and its centre lines (:func:`_line`)
_KEPT: "weakref.WeakKeyDictionary[Board, tuple[dict, dict, dict]]" = weakref.WeakKeyDictionary()

#: the board last looked on and its three dicts: nearly every look is on the board of the one
#: before, found by identity (a weak reference: a freed board is never matched) without the weak dict
_last_kept: tuple[Callable[[], "Board | None"], dict, dict, dict] = (lambda: None, {}, {}, {})


def _kept(board: Board) -> tuple[dict, dict, dict]:
    """The straight paths, the ranges and the lines kept for ``board`` (see :data:`_KEPT`)."""
    global _last_kept
    ref, paths, ranges, lines = _last_kept
    if ref() is not board:
        paths, ranges, lines = _KEPT.get(board) or _KEPT.setdefault(board, ({}, {}, {}))
        _last_kept = (weakref.ref(board), paths, ranges, lines)
    return paths, ranges, lines


def _straight(board: Board, a: Hex, b: Hex) -> bool:
    """Does a path of board hexes, each step one nearer, join ``a`` and ``b`` (at least two
    steps apart)? The board's answer alone (it never changes): asked once per pair."""
    ref, straight, _, _ = _last_kept
    if ref() is not board:
        straight = _kept(board)[0]
    try:
        return straight[(a, b)]
    except KeyError:
        found = straight[(a, b)] = _through(board, a, b, None)
        return found


def _cone_search(board: Board, a: Hex, b: Hex, open_: Callable[[Hex], bool]) -> bool:
    """:func:`_through` with a test of the hexes that are open (True: the same or adjacent
    hexes). With ``open_`` :func:`_always` the answer is the board's alone (:func:`_straight`)."""
    if a.distance(b) <= 1:
        return True
    if open_ is _always:
        return _straight(board, a, b)
    return _through(board, a, b, lambda h: not open_(h))


def _bfs(board: Board, start: Hex, limit: int | None = None) -> dict[Hex, int]:
    """Path length over board hexes from ``start`` to every hex within ``limit`` steps."""
    dist = {start: 0}
    queue = deque([start])
    while queue:
        h = queue.popleft()
        d = dist[h]
        if limit is not None and d >= limit:
            continue
        for n in board.neighbours(h):
            if n not in dist:
                dist[n] = d + 1
                queue.append(n)
    return dist


def geodesic_layers(board: Board, a: Hex, b: Hex) -> list[list[Hex]] | None:
    """Board hexes strictly between ``a`` and ``b`` that lie on a shortest board path, grouped
    by their distance from ``a`` (layer ``k`` holds the hexes ``k + 1`` steps from ``a``).

    ``[]`` when ``a == b`` or they are adjacent; ``None`` when no path of board hexes joins
    them. On boards where a straight-as-possible path always exists (BattleLore,
    rectangles, hexagons) this is the open grid's parallelogram cut to the board; around
    holes of a mask the shortest board paths are longer, and are found by two searches.
    """
    if a not in board or b not in board:
        return None
    if a == b:
        return []
    if _cone_search(board, a, b, _always):
        return [[h for h in layer if h in board] for layer in _open_layers(a, b)]
    da = _bfs(board, a)
    if b not in da:
        return None
    db = _bfs(board, b)
    length = da[b]
    out: list[list[Hex]] = [[] for _ in range(length - 1)]
    for h in board:  # board order: rows, then q
        if h in db and 0 < da[h] < length and da[h] + db[h] == length:
            out[da[h] - 1].append(h)
    return out


def shortest_paths(board: Board, a: Hex, b: Hex) -> Iterator[tuple[Hex, ...]]:
    """Every shortest path of board hexes from ``a`` to ``b``, as the hexes after ``a`` (the
    last is ``b``). Exponential in the distance: for tests, references and small cases."""
    layers = geodesic_layers(board, a, b)
    if layers is None:
        return
    sets = [set(layer) for layer in layers] + [{b}]

    def extend(here: Hex, k: int) -> Iterator[tuple[Hex, ...]]:
        if k == len(sets):
            yield ()
            return
        for n in here.neighbours():
            if n in sets[k]:
                for rest in extend(n, k + 1):
                    yield (n, *rest)

    yield from extend(a, 0)


def central_paths(a: Hex, b: Hex) -> tuple[tuple[Hex, ...], tuple[Hex, ...]] | None:
    """The two central paths of the four-path case, else ``None``.

    At distance 4 a target has 1, 4 or 6 shortest paths on the open grid; exactly four
    when it is one step off a straight line (three steps one way, one step the next
    way). Ordering the paths by where the odd step is taken (first, second, third,
    fourth), the central ones take it second or third. Each path is given as the hexes
    after ``a``, ending with ``b``. Reversing a and b swaps nothing: the central paths of
    ``b -> a`` are those of ``a -> b`` reversed.
    """
    if a.distance(b) != 4:
        return None
    main, n1, odd, n2 = _split(a, b)
    if n2 == 3:
        main, odd = odd, main
    elif n2 != 1:
        return None

    def path(at: int) -> tuple[Hex, ...]:
        q, r, out = a.q, a.r, []
        for k in range(4):
            dq, dr = odd if k == at else main
            q, r = q + dq, r + dr
            out.append(Hex(q, r))
        return tuple(out)

    return path(1), path(2)


def paths_clear(board: Board, a: Hex, b: Hex, blocks: Blocks,
                four_path_rule: bool = False) -> bool:
    """Shortest-path line of sight: clear iff some shortest board path from ``a`` to ``b``
    has no blocking hex but (possibly) its last. ``a == b`` is clear.

    ``blocks`` is asked only about hexes strictly between the ends, at most once each.
    With ``four_path_rule``, in the four-path case (:func:`central_paths`) sight is clear
    iff one of the two central paths is clear (a central path leaving the board counts as
    blocked); the outer paths do not matter there. Symmetric whenever ``blocks`` does not
    depend on the direction of the look.

    Most looks are on a board where a straight-as-possible path joins the two hexes: they
    ask ``blocks`` itself in the search, in the order of the general one below
    (:func:`_paths_clear`), which the rest take.
    """
    if a not in board or b not in board:
        return False
    d = a.distance(b)
    if d <= 1:
        return True
    if (d != 4 or not four_path_rule or central_paths(a, b) is None) and _straight(board, a, b):
        return _through(board, a, b, blocks)
    return _paths_clear(board, a, b, blocks, four_path_rule)


def _paths_clear(board: Board, a: Hex, b: Hex, blocks: Blocks, four_path_rule: bool) -> bool:
    """:func:`paths_clear` of looks with no geometry kept: the four-path case, and boards
    with holes where the shortest board paths are not straight-as-possible ones."""
    if a not in board or b not in board:
        return False
    seen: dict[Hex, bool] = {}

    def open_(h: Hex) -> bool:
        if h not in seen:
            seen[h] = not blocks(h)
        return seen[h]

    central = central_paths(a, b) if four_path_rule else None
    if central is not None:
        if any(all(h in board and open_(h) for h in p[:-1]) for p in central):
            return True
        if _cone_search(board, a, b, _always):
            return False  # the range is 4 on the board: 405.4 decides
    if _cone_search(board, a, b, open_):
        return True
    if _cone_search(board, a, b, _always):
        return False  # shortest paths are straight-as-possible ones, and all are blocked
    layers = geodesic_layers(board, a, b)  # holes: the shortest board paths are longer
    return layers is not None and _walk(layers, a, open_)


# ---------------------------------------------------------------------------
# Range
# ---------------------------------------------------------------------------


def path_length(board: Board, a: Hex, b: Hex) -> int | None:
    """Length of the shortest path of board hexes from ``a`` to ``b``, counted from the hex
    next to ``a`` through ``b`` (0 for the same hex); ``None`` if no such path exists."""
    if a not in board or b not in board:
        return None
    if _cone_search(board, a, b, _always):
        return a.distance(b)
    return _bfs(board, a).get(b)


def in_range(board: Board, a: Hex, b: Hex, low: int, high: int) -> bool:
    """Is the path length from ``a`` to ``b`` within ``low..high`` (a minimum range, then a
    maximum)? Cheap rejection first: a path is never shorter than the grid distance."""
    if a.distance(b) > high:
        return False
    n = path_length(board, a, b)
    return n is not None and low <= n <= high


def hexes_in_range(board: Board, a: Hex, low: int, high: int) -> list[Hex]:
    """Board hexes whose path length from ``a`` is within ``low..high``; nearest first, then
    by row and ``q``. Empty when ``a`` is off the board or ``high < low``. The board never
    changes: each answer is worked out once and kept with it, and each call gets a new list."""
    ref, _, ranges, _ = _last_kept
    if ref() is not board:
        ranges = _kept(board)[1]
    key = (a, low, high)
    found = ranges.get(key)
    if found is None:
        found = ranges[key] = tuple(_hexes_in_range(board, a, low, high))
    return list(found)


def _hexes_in_range(board: Board, a: Hex, low: int, high: int) -> list[Hex]:
    """:func:`hexes_in_range` worked out: a search from ``a`` as far as ``high``."""
    if a not in board or high < max(low, 0):
        return []
    dist = _bfs(board, a, high)
    found = [h for h, d in dist.items() if low <= d <= high]
    found.sort(key=lambda h: (dist[h], h.r, h.q))
    return found
