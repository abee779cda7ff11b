"""Property tests for board geometry, range and line of sight (hypothesis).

Example budget: every property here runs under the ``hexlore-geometry`` settings profile,
``EXAMPLES`` (120) examples each, derandomized (the same examples on every run and machine,
so CI is reproducible) and without deadline. The whole file takes a few seconds. Raise the
budget for a deeper local run with ``HEXLORE_GEOMETRY_EXAMPLES=5000 pytest
tests/test_geometry_properties.py``.

Where sight is symmetric and where it is not:

* centre line: symmetric for any blocking predicate (the segment a-b is the segment b-a);
* shortest paths (with or without the four-path rule): symmetric when the predicate does not
  depend on who looks; a predicate such as "an enemy of the viewer blocks" is not, by design;
* elevation: not symmetric (the viewer on high ground sees over lower hexes, the unit below
  does not), so only the one-way property "never sees less than the centre line" is checked.
"""

from __future__ import annotations

import os

from hypothesis import given, settings
from hypothesis import strategies as st

from hexlore.runtime.geometry import sight
from hexlore.runtime.geometry.grid import (
    DIRECTIONS,
    Board,
    Hex,
    axial_to_offset,
    offset_to_axial,
    ring,
    triangles,
    within,
)

EXAMPLES = int(os.environ.get("HEXLORE_GEOMETRY_EXAMPLES", "120"))
settings.register_profile("hexlore-geometry", max_examples=EXAMPLES, deadline=None, derandomize=True,
                          database=None)
PROFILE = settings.get_profile("hexlore-geometry")

coords = st.integers(min_value=-40, max_value=40)
any_hex = st.builds(Hex, coords, coords)
parities = st.sampled_from(["odd", "even"])


@st.composite
def boards(draw) -> Board:
    """Any board shape, small enough to scan: BattleLore, rectangles, hexagons, masks."""
    kind = draw(st.sampled_from(["battlelore", "rectangle", "hexagon", "mask"]))
    if kind == "battlelore":
        return Board.battlelore()
    if kind == "rectangle":
        return Board.rectangle(draw(st.integers(1, 12)), draw(st.integers(1, 9)), draw(parities))
    if kind == "hexagon":
        return Board.hexagon(draw(st.integers(0, 6)))
    width = draw(st.integers(1, 9))
    rows = draw(st.lists(st.text(alphabet="x-", min_size=width, max_size=width), min_size=1, max_size=8))
    rows[0] = "x" + rows[0][1:]  # at least one hex
    return Board.from_mask(rows, draw(parities))


@st.composite
def board_and_pair(draw, board_strategy=None):
    board = draw(board_strategy if board_strategy is not None else boards())
    cells = list(board)
    a = draw(st.sampled_from(cells))
    b = draw(st.sampled_from(cells))
    blockers = draw(st.sets(st.sampled_from(cells), max_size=max(1, len(cells) // 3)))
    return board, a, b, frozenset(blockers)


# ---------------------------------------------------------------------------
# distance, conversions
# ---------------------------------------------------------------------------


@PROFILE
@given(any_hex, any_hex, any_hex)
def test_distance_is_a_metric(a: Hex, b: Hex, c: Hex) -> None:
    assert (a.distance(b) == 0) == (a == b)
    assert a.distance(b) == b.distance(a) >= 0
    assert a.distance(c) <= a.distance(b) + b.distance(c)


@PROFILE
@given(board_and_pair())
def test_path_length_is_a_metric_on_the_board(case) -> None:
    board, a, b, _ = case
    c = list(board)[len(board) // 2]
    ab, ba = sight.path_length(board, a, b), sight.path_length(board, b, a)
    assert ab == ba
    assert (ab == 0) == (a == b)
    if ab is not None:
        assert ab >= a.distance(b)
        ac, cb = sight.path_length(board, a, c), sight.path_length(board, c, b)
        if ac is not None and cb is not None:
            assert ab <= ac + cb


@PROFILE
@given(coords, coords, parities)
def test_offset_conversions_round_trip(column: int, row: int, parity: str) -> None:
    h = offset_to_axial(column, row, parity)
    assert axial_to_offset(h, parity) == (column, row)
    assert offset_to_axial(*axial_to_offset(h, parity), parity) == h


@PROFILE
@given(boards())
def test_labels_round_trip_on_every_shape(board: Board) -> None:
    hex_of = {board.label(h): h for h in board}
    assert len(hex_of) == len(board)  # no two hexes share a label
    assert all(board.parse_label(t) == h == board.parse_label(t.lower()) for t, h in hex_of.items())


# ---------------------------------------------------------------------------
# rings, discs, areas
# ---------------------------------------------------------------------------


@PROFILE
@given(any_hex, st.integers(0, 12))
def test_ring_on_an_open_grid(h: Hex, n: int) -> None:
    members = ring(h, n)
    assert len(members) == (6 * n if n else 1) == len(set(members))
    assert all(h.distance(x) == n for x in members)
    # the walk: each member is next to the one before, and the last closes the loop
    if n:
        assert all(x.distance(y) == 1 for x, y in zip(members, members[1:] + members[:1]))
        assert members[0] == Hex(h.q + n, h.r)


@PROFILE
@given(any_hex, st.integers(0, 8))
def test_within_is_the_union_of_rings(h: Hex, n: int) -> None:
    disc = within(h, n)
    assert len(disc) == 3 * n * (n + 1) + 1
    assert set(disc) == {x for k in range(n + 1) for x in ring(h, k)}
    assert [h.distance(x) for x in disc] == sorted(h.distance(x) for x in disc)


@PROFILE
@given(boards(), st.data())
def test_board_rings_and_areas_are_cut_to_the_board(board: Board, data) -> None:
    h = data.draw(st.sampled_from(list(board)))
    n = data.draw(st.integers(0, 6))
    assert board.ring(h, n) == [x for x in ring(h, n) if x in board]
    areas = board.areas(h)
    assert all(len({x, y, z}) == 3 and x == h for x, y, z in areas)
    for _, x, y in areas:
        assert x in board and y in board
        assert h.distance(x) == h.distance(y) == x.distance(y) == 1
    # exactly the consecutive pairs of on-board neighbours
    assert len(areas) == sum(t[1] in board and t[2] in board for t in triangles(h))


# ---------------------------------------------------------------------------
# centre line
# ---------------------------------------------------------------------------


@PROFILE
@given(board_and_pair())
def test_fast_centre_line_equals_the_whole_board_fraction_scan(case) -> None:
    board, a, b, _ = case
    assert sight.crossed_hexes(board, a, b) == sight.crossed_hexes_reference(board, a, b)


@PROFILE
@given(board_and_pair())
def test_centre_line_is_symmetric(case) -> None:
    board, a, b, blockers = case
    line = sight.line_hexes(board, a, b)
    assert sight.line_hexes(board, b, a) == line[::-1]
    assert line[0] == a and line[-1] == b
    blocks = blockers.__contains__
    assert sight.line_clear(board, a, b, blocks) == sight.line_clear(board, b, a, blocks)


near_hex = st.builds(Hex, st.integers(-12, 12), st.integers(-12, 12))


def _open_board(centre: Hex, radius: int) -> Board:
    """Every hex within ``radius`` of ``centre``: an open grid as far as lines there can tell."""
    return Board("hexagon", frozenset(within(centre, radius)))


@PROFILE
@given(near_hex, near_hex)
def test_centre_line_on_an_open_grid_walks_outward(a: Hex, b: Hex) -> None:
    board = _open_board(a, a.distance(b))
    line = sight.line_hexes(board, a, b)
    steps = [x.distance(y) for x, y in zip(line, line[1:])]
    assert all(1 <= s <= 2 for s in steps)  # 2: a line running along edges skips the pair
    assert [a.distance(x) for x in line] == sorted(a.distance(x) for x in line)


@PROFILE
@given(board_and_pair(), st.integers(0, 3))
def test_elevation_never_sees_less_than_the_centre_line(case, base: int) -> None:
    board, a, b, blockers = case
    blocks = blockers.__contains__
    height = {h: (h.q * 7 + h.r * 3) % 3 for h in board}
    height[a] = base
    above = sight.line_clear_above(board, a, b, blocks, height.__getitem__)
    assert above >= sight.line_clear(board, a, b, blocks)
    # and it ignores exactly the lower hexes
    higher = {h for h in blockers if height[h] >= base}
    assert above == sight.line_clear(board, a, b, higher.__contains__)


# ---------------------------------------------------------------------------
# shortest paths and range
# ---------------------------------------------------------------------------


def _enumerated(board: Board, a: Hex, b: Hex, blocks, four_path_rule: bool) -> bool:
    """405.3 and 405.4 straight from the text, by listing every shortest path."""
    if a == b:
        return True
    paths = list(sight.shortest_paths(board, a, b))
    clear = [p for p in paths if not any(blocks(h) for h in p[:-1])]
    central = sight.central_paths(a, b) if four_path_rule else None
    if central is not None and sight.path_length(board, a, b) == 4:
        return any(p in clear for p in central)
    return bool(clear)


small_boards = st.one_of(
    st.builds(Board.rectangle, st.integers(1, 8), st.integers(1, 7), parities),
    st.builds(Board.hexagon, st.integers(0, 4)),
    boards(),
)


@PROFILE
@given(board_and_pair(small_boards), st.booleans())
def test_paths_clear_equals_enumerating_every_shortest_path(case, four: bool) -> None:
    board, a, b, blockers = case
    if a.distance(b) > 9:
        b = a  # keep the enumeration small; the same-hex case is worth checking anyway
    blocks = blockers.__contains__
    assert sight.paths_clear(board, a, b, blocks, four) == _enumerated(board, a, b, blocks, four)


@PROFILE
@given(board_and_pair(), st.booleans())
def test_paths_clear_is_symmetric_for_a_viewer_independent_predicate(case, four: bool) -> None:
    board, a, b, blockers = case
    blocks = blockers.__contains__
    assert sight.paths_clear(board, a, b, blocks, four) == sight.paths_clear(board, b, a, blocks, four)


@PROFILE
@given(any_hex, st.sampled_from(range(6)), st.sampled_from([1, 3]))
def test_central_paths_exist_exactly_in_the_four_path_case(a: Hex, k: int, odd_steps: int) -> None:
    (x1, y1), (x2, y2) = DIRECTIONS[k], DIRECTIONS[(k + 1) % 6]
    b = Hex(a.q + (4 - odd_steps) * x1 + odd_steps * x2, a.r + (4 - odd_steps) * y1 + odd_steps * y2)
    board = _open_board(a, 4)
    paths = list(sight.shortest_paths(board, a, b))
    central = sight.central_paths(a, b)
    assert len(paths) == 4 and central is not None and set(central) <= set(paths)
    # reversing the look gives the same central paths, reversed
    back = sight.central_paths(b, a)
    as_hexes = {frozenset(p[:-1]) for p in central}
    assert {frozenset(p[:-1]) for p in back} == as_hexes
    # and the straight line or the middle direction has none
    straight = Hex(a.q + 4 * x1, a.r + 4 * y1)
    middle = Hex(a.q + 2 * x1 + 2 * x2, a.r + 2 * y1 + 2 * y2)
    assert sight.central_paths(a, straight) is None and sight.central_paths(a, middle) is None


@PROFILE
@given(board_and_pair(), st.integers(0, 6), st.integers(0, 8))
def test_range_with_minimum_is_consistent_with_distance(case, low: int, high: int) -> None:
    board, a, b, _ = case
    n = sight.path_length(board, a, b)
    assert sight.in_range(board, a, b, low, high) == (n is not None and low <= n <= high)
    if board.shape != "mask":  # no holes: the path length is the grid distance
        assert n == a.distance(b)
    listed = sight.hexes_in_range(board, a, low, high)
    assert set(listed) == {h for h in board if sight.in_range(board, a, h, low, high)}
    assert (a in listed) == (low <= 0 <= high)
