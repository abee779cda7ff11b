"""Tests for hexlore.runtime.geometry.grid: boards, labels, sections, line of sight, movement."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hexlore.runtime.geometry.grid import DIRECTIONS, Board, Hex
from hexlore.runtime.geometry.sight import crossed_hexes, line_clear
from hexlore.runtime.geometry.movement import reachable

BL = Board.battlelore()
HEX5 = Board.hexagon(5)
HEX5_LIST = list(HEX5)

coords = st.integers(min_value=-30, max_value=30)
any_hex = st.builds(Hex, coords, coords)
hex5 = st.sampled_from(HEX5_LIST)


def unit_cost(_frm: Hex, _to: Hex) -> int:
    return 1


# ---------------------------------------------------------------------------
# Hex
# ---------------------------------------------------------------------------


def test_hex_str_and_direction_order() -> None:
    assert str(Hex(0, -2)) == "(0,-2)"
    assert DIRECTIONS == ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
    assert Hex(2, 3).neighbours() == (
        Hex(3, 3), Hex(3, 2), Hex(2, 2), Hex(1, 3), Hex(1, 4), Hex(2, 4),
    )


@given(any_hex, any_hex, any_hex)
def test_distance_is_a_metric(a: Hex, b: Hex, c: Hex) -> None:
    assert a.distance(a) == 0
    assert (a.distance(b) == 0) == (a == b)
    assert a.distance(b) == b.distance(a)
    assert a.distance(c) <= a.distance(b) + b.distance(c)


@given(any_hex)
def test_neighbours_are_at_distance_one(h: Hex) -> None:
    ns = h.neighbours()
    assert len(set(ns)) == 6
    assert all(h.distance(n) == 1 for n in ns)


@pytest.mark.parametrize("radius", [0, 1, 2, 5])
def test_hexagon_size(radius: int) -> None:
    board = Board.hexagon(radius)
    assert len(board) == 3 * radius * radius + 3 * radius + 1
    assert all(h.distance(Hex(0, 0)) <= radius for h in board)
    assert board.shape == "hexagon"


# ---------------------------------------------------------------------------
# BattleLore board and labels
# ---------------------------------------------------------------------------


def test_battlelore_shape() -> None:
    assert BL.shape == "battlelore"
    assert len(BL) == 113
    assert BL.rows == 9
    for r in range(9):
        row = [h for h in BL if h.r == r]
        assert len(row) == (13 if r % 2 == 0 else 12)
        assert min(h.q for h in row) == -(r // 2)


def test_iteration_is_sorted_by_row_then_q() -> None:
    order = list(BL)
    assert order == sorted(BL.hexes, key=lambda h: (h.r, h.q))
    assert order[0] == Hex(0, 0)


def test_battlelore_labels_round_trip() -> None:
    labels = set()
    for h in BL:
        text = BL.label(h)
        labels.add(text)
        assert BL.parse_label(text) == h
        assert BL.parse_label(text.lower()) == h
    assert len(labels) == 113


def test_battlelore_specific_labels() -> None:
    assert BL.parse_label("A1") == Hex(0, 0)
    assert BL.label(Hex(0, 0)) == "A1"
    assert BL.parse_label("M1") == Hex(12, 0)
    assert BL.parse_label("A2") == Hex(0, 1)
    assert BL.parse_label("A3") == Hex(-1, 2)
    with pytest.raises(ValueError, match="M2"):
        BL.parse_label("M2")


@pytest.mark.parametrize("bad", ["Z9", "A0", "A10", "", "1A", "0,0", "N1"])
def test_parse_errors_mention_label(bad: str) -> None:
    with pytest.raises(ValueError) as info:
        BL.parse_label(bad)
    assert repr(bad) in str(info.value)
    assert re.search(r"A\d*–M", str(info.value))  # the columns of the board, or of the row named


@pytest.mark.parametrize("bad, says", [
    ("M2", "(row 2 has 12 hexes: A2–L2)"),  # issue 15: was "columns A–M, rows 1–9", which M2 seems to fit
    ("M8", "(row 8 has 12 hexes: A8–L8)"),
    ("N3", "(row 3 has 13 hexes: A3–M3)"),
    ("F10", "(rows 1–9; odd rows have columns A–M, even rows A–L)"),
])
def test_a_label_off_a_short_row_says_which_hexes_the_row_has(bad: str, says: str) -> None:
    with pytest.raises(ValueError) as info:
        BL.parse_label(bad)
    assert str(info.value) == f"no hex {bad!r} on this board {says}"


def test_rectangles_and_masks_describe_their_labels() -> None:
    with pytest.raises(ValueError, match=r"^no hex 'F2' on this board \(columns A–E, rows 1–4\)$"):
        Board.rectangle(5, 4).parse_label("F2")
    mask = Board.from_mask(["xx-xx", "xxxxx", " xx"])
    with pytest.raises(ValueError, match=r"\(row 1 has 4 hexes: A1–B1, D1–E1\)$"):
        mask.parse_label("C1")
    with pytest.raises(ValueError, match=r"\(row 3 has 2 hexes: B3–C3\)$"):
        mask.parse_label("A3")
    with pytest.raises(ValueError, match=r"\(columns A–E, rows 1–3; not every row has every column\)$"):
        mask.parse_label("A4")


def test_label_of_off_board_hex_raises() -> None:
    with pytest.raises(ValueError):
        BL.label(Hex(-5, 0))


def test_hexagon_labels() -> None:
    board = Board.hexagon(2)
    assert board.label(Hex(0, -2)) == "0,-2"
    assert board.parse_label("0,-2") == Hex(0, -2)
    assert board.parse_label(" -1, 2") == Hex(-1, 2)
    for h in board:
        assert board.parse_label(board.label(h)) == h
    with pytest.raises(ValueError, match="3,0"):
        board.parse_label("3,0")
    with pytest.raises(ValueError):
        board.parse_label("A1")


@pytest.mark.parametrize("parity", ["odd", "even"])
def test_rectangle_layout_and_labels(parity: str) -> None:
    board = Board.rectangle(4, 3, parity)
    assert board.shape == "rectangle"
    assert len(board) == 12 and board.rows == 3
    first_q = {r: min(h.q for h in board if h.r == r) for r in range(3)}
    if parity == "odd":
        assert first_q == {0: 0, 1: 0, 2: -1}
    else:
        assert first_q == {0: 0, 1: -1, 2: -1}
    for h in board:
        assert board.parse_label(board.label(h)) == h
    assert board.parse_label("d3") in board
    with pytest.raises(ValueError):
        board.parse_label("E1")
    assert board.sections(Hex(0, 0)) == frozenset()


def test_bad_parity_rejected() -> None:
    with pytest.raises(ValueError):
        Board.rectangle(3, 3, "sideways")


def test_from_mask() -> None:
    board = Board.from_mask([".-.", " ..", "x"])
    assert board.shape == "mask"
    assert set(board) == {Hex(0, 0), Hex(2, 0), Hex(1, 1), Hex(2, 1), Hex(-1, 2)}
    # Labels use the mask column, so the hole keeps "C1" on the third character.
    assert board.parse_label("C1") == Hex(2, 0)
    with pytest.raises(ValueError):
        board.parse_label("B1")
    for h in board:
        assert board.parse_label(board.label(h)) == h


# ---------------------------------------------------------------------------
# Sections, edges
# ---------------------------------------------------------------------------


def test_battlelore_sections_per_row() -> None:
    for r in range(9):
        row = sorted((h for h in BL if h.r == r), key=lambda h: h.q)
        secs = [BL.sections(h) for h in row]
        counts = {name: sum(name in s for s in secs) for name in ("left", "centre", "right")}
        if r % 2 == 0:
            assert counts == {"left": 4, "centre": 5, "right": 4}
            assert all(len(s) == 1 for s in secs)
        else:
            assert counts == {"left": 4, "centre": 6, "right": 4}
            assert secs[3] == {"left", "centre"}
            assert secs[8] == {"centre", "right"}
            assert sum(len(s) == 2 for s in secs) == 2
        assert secs[0] == {"left"} and secs[-1] == {"right"}


def test_sections_cover_board() -> None:
    covered = {h for h in BL if BL.sections(h)}
    assert covered == set(BL.hexes)
    assert BL.sections(Hex(50, 50)) == frozenset()


def test_edges() -> None:
    assert BL.edge("top") == {h for h in BL if h.r == 0}
    assert BL.edge("bottom") == {h for h in BL if h.r == 8}
    assert len(BL.edge("top")) == 13
    with pytest.raises(ValueError):
        BL.edge("left")


def test_toward_edge() -> None:
    middle = BL.parse_label("F4")
    assert middle.r == 3
    assert BL.toward_edge(middle, "bottom") == [Hex(middle.q - 1, 4), Hex(middle.q, 4)]
    assert BL.toward_edge(middle, "top") == [Hex(middle.q, 2), Hex(middle.q + 1, 2)]
    for h in BL.edge("top"):
        assert BL.toward_edge(h, "top") == []
    for h in BL.edge("bottom"):
        assert BL.toward_edge(h, "bottom") == []
    # Ends of a 13-row have only one neighbour in the 12-row below.
    assert BL.toward_edge(Hex(0, 0), "bottom") == [Hex(0, 1)]
    assert BL.toward_edge(Hex(12, 0), "bottom") == [Hex(11, 1)]
    # Every hex of a 12-row has two neighbours in the 13-row above.
    assert all(len(BL.toward_edge(h, "top")) == 2 for h in BL if h.r == 1)


# ---------------------------------------------------------------------------
# Line of sight
# ---------------------------------------------------------------------------


def test_adjacent_hexes_cross_nothing() -> None:
    for n in Hex(0, 0).neighbours():
        assert crossed_hexes(HEX5, Hex(0, 0), n) == []
    assert crossed_hexes(HEX5, Hex(1, 1), Hex(1, 1)) == []


def test_straight_row_line() -> None:
    assert crossed_hexes(HEX5, Hex(0, 0), Hex(3, 0)) == [Hex(1, 0), Hex(2, 0)]
    assert crossed_hexes(HEX5, Hex(3, 0), Hex(0, 0)) == [Hex(2, 0), Hex(1, 0)]


def test_line_along_shared_edge_crosses_neither() -> None:
    # (0,0)->(1,1) runs exactly along the edge shared by (1,0) and (0,1).
    assert crossed_hexes(HEX5, Hex(0, 0), Hex(1, 1)) == []
    # Same for the other "between" directions.
    assert crossed_hexes(HEX5, Hex(0, 0), Hex(2, -1)) == []
    assert crossed_hexes(HEX5, Hex(0, 0), Hex(-1, 2)) == []


def test_oblique_lines() -> None:
    # Checked by hand in the X=2q+r, Y=3r frame: each line crosses one hex edge
    # transversally between the two crossed hexes.
    assert crossed_hexes(HEX5, Hex(0, 0), Hex(-1, 3)) == [Hex(0, 1), Hex(-1, 2)]
    assert crossed_hexes(HEX5, Hex(0, 0), Hex(1, 2)) == [Hex(0, 1), Hex(1, 1)]
    assert crossed_hexes(HEX5, Hex(0, 0), Hex(-1, -2)) == [Hex(0, -1), Hex(-1, -1)]


def test_crossed_only_board_hexes() -> None:
    small = Board.from_mask([".-.."])  # (1,0) missing
    assert crossed_hexes(small, Hex(0, 0), Hex(3, 0)) == [Hex(2, 0)]


def test_line_clear() -> None:
    a, b = Hex(0, 0), Hex(3, 0)
    assert line_clear(HEX5, a, b, lambda h: False)
    assert not line_clear(HEX5, a, b, lambda h: h == Hex(2, 0))
    # The endpoints themselves never block.
    assert line_clear(HEX5, a, b, lambda h: h in (a, b))
    # A blocker the line only grazes along an edge does not block.
    assert line_clear(HEX5, Hex(0, 0), Hex(1, 1), lambda h: h in (Hex(1, 0), Hex(0, 1)))


@given(hex5, hex5)
def test_crossed_hexes_symmetric(a: Hex, b: Hex) -> None:
    forward = crossed_hexes(HEX5, a, b)
    backward = crossed_hexes(HEX5, b, a)
    assert set(forward) == set(backward)
    assert len(forward) == len(set(forward))
    assert a not in forward and b not in forward
    dists = [a.distance(h) for h in forward]
    assert dists == sorted(dists)


@given(hex5, st.sampled_from(DIRECTIONS), st.integers(min_value=1, max_value=10))
def test_lines_along_axes_cross_every_hex_between(
    a: Hex, direction: tuple[int, int], length: int
) -> None:
    dq, dr = direction
    b = Hex(a.q + dq * length, a.r + dr * length)
    expected = [Hex(a.q + dq * k, a.r + dr * k) for k in range(1, length)]
    assert crossed_hexes(HEX5, a, b) == [h for h in expected if h in HEX5]


@given(hex5, hex5)
def test_crossed_hexes_lie_near_the_line(a: Hex, b: Hex) -> None:
    d = a.distance(b)
    crossed = crossed_hexes(HEX5, a, b)
    assert all(a.distance(h) + h.distance(b) <= d + 1 for h in crossed)
    assert all(0 < a.distance(h) < d for h in crossed)


# ---------------------------------------------------------------------------
# Movement
# ---------------------------------------------------------------------------


def test_reachable_open_board_budget_two() -> None:
    start = Hex(0, 0)
    result = reachable(HEX5, start, 2, unit_cost)
    assert set(result) == {h for h in HEX5 if h.distance(start) <= 2}
    assert result[start] == (0, ())
    for h, (cost, path) in result.items():
        assert cost == h.distance(start) == len(path)


def test_reachable_tie_break_is_lexicographic_by_row_then_q() -> None:
    result = reachable(HEX5, Hex(0, 0), 2, unit_cost)
    # Two shortest routes to (1,1): via (1,0) [row 0] or via (0,1) [row 1].
    assert result[Hex(1, 1)] == (2, (Hex(1, 0), Hex(1, 1)))
    # Deterministic across calls.
    assert reachable(HEX5, Hex(0, 0), 2, unit_cost) == result


def test_wall_is_not_crossed() -> None:
    board = Board.rectangle(7, 7)

    def solid_wall(_frm: Hex, to: Hex) -> int | None:
        return None if to.r == 3 else 1

    start = board.parse_label("D1")
    result = reachable(board, start, 30, solid_wall)
    assert result and all(h.r < 3 for h in result)
    assert len(result) == 21

    gap = board.parse_label("A4")

    def wall_with_gap(_frm: Hex, to: Hex) -> int | None:
        return None if to.r == 3 and to != gap else 1

    result = reachable(board, start, 30, wall_with_gap)
    beyond = [h for h in result if h.r > 3]
    assert beyond
    assert all(gap in result[h][1] for h in beyond)


def test_stop_hex_ends_movement() -> None:
    corridor = Board.from_mask(["....."])
    stop = Hex(2, 0)
    result = reachable(corridor, Hex(0, 0), 10, unit_cost, stops=lambda h: h == stop)
    assert set(result) == {Hex(0, 0), Hex(1, 0), stop}
    assert result[stop] == (2, (Hex(1, 0), stop))


def test_stop_at_start_does_not_pin_the_unit() -> None:
    corridor = Board.from_mask(["..."])
    result = reachable(corridor, Hex(0, 0), 10, unit_cost, stops=lambda h: True)
    assert set(result) == {Hex(0, 0), Hex(1, 0)}


def test_can_end_false_is_passed_through() -> None:
    corridor = Board.from_mask(["....."])
    occupied = Hex(2, 0)
    result = reachable(corridor, Hex(0, 0), 10, unit_cost, can_end=lambda h: h != occupied)
    assert occupied not in result
    assert result[Hex(4, 0)] == (4, (Hex(1, 0), occupied, Hex(3, 0), Hex(4, 0)))
    assert Hex(0, 0) in result


def test_budget_and_costs() -> None:
    corridor = Board.from_mask(["....."])

    def cost(_frm: Hex, to: Hex) -> int:
        return 2 if to == Hex(1, 0) else 1

    result = reachable(corridor, Hex(0, 0), 3, cost)
    assert {h: c for h, (c, _) in result.items()} == {Hex(0, 0): 0, Hex(1, 0): 2, Hex(2, 0): 3}
    assert reachable(corridor, Hex(0, 0), 0, cost) == {Hex(0, 0): (0, ())}
    with pytest.raises(ValueError):
        reachable(corridor, Hex(9, 9), 3, cost)


HEX3 = Board.hexagon(3)
HEX3_LIST = list(HEX3)


@settings(max_examples=60, deadline=None)
@given(
    start=st.sampled_from(HEX3_LIST),
    budget=st.integers(min_value=0, max_value=6),
    costs=st.lists(st.one_of(st.none(), st.integers(0, 3)), min_size=len(HEX3_LIST),
                   max_size=len(HEX3_LIST)),
    stop_flags=st.lists(st.booleans(), min_size=len(HEX3_LIST), max_size=len(HEX3_LIST)),
    end_flags=st.lists(st.booleans(), min_size=len(HEX3_LIST), max_size=len(HEX3_LIST)),
)
def test_reachable_paths_are_consistent(
    start: Hex,
    budget: int,
    costs: list[int | None],
    stop_flags: list[bool],
    end_flags: list[bool],
) -> None:
    cost_of = dict(zip(HEX3_LIST, costs))
    stops = dict(zip(HEX3_LIST, stop_flags))
    ends = dict(zip(HEX3_LIST, end_flags))

    result = reachable(
        HEX3, start, budget, lambda _f, t: cost_of[t],
        stops=lambda h: stops[h], can_end=lambda h: ends[h],
    )
    assert result[start] == (0, ())
    for h, (cost, path) in result.items():
        if h == start:
            continue
        assert ends[h]
        assert path[-1] == h
        prev = start
        total = 0
        for step in path:
            assert step in HEX3
            assert prev.distance(step) == 1
            assert cost_of[step] is not None
            total += cost_of[step]  # type: ignore[operator]
            if prev != start:
                assert not stops[prev]
            prev = step
        assert total == cost <= budget

    # Optimality against a brute-force relaxation of the same rules.
    best = {start: 0}
    changed = True
    while changed:
        changed = False
        for h, c in list(best.items()):
            if h != start and stops[h]:
                continue
            for n in HEX3.neighbours(h):
                step = cost_of[n]
                if step is None or c + step > budget:
                    continue
                if c + step < best.get(n, budget + 1):
                    best[n] = c + step
                    changed = True
    expected = {h: c for h, c in best.items() if h == start or ends[h]}
    assert {h: c for h, (c, _) in result.items()} == expected


def test_a_hex_is_a_pair_that_hashes_orders_and_shows_as_before():
    # a named tuple (hashed in C); the hash is the pair's, as the dataclass had: sets of hexes
    # iterate in the same order, so games log the same
    h = Hex(2, -1)
    assert hash(h) == hash((2, -1)) and h == Hex(2, -1) and h != Hex(-1, 2)
    assert repr(h) == "Hex(q=2, r=-1)" and str(h) == "(2,-1)"
    assert sorted([Hex(1, 0), Hex(0, 5), Hex(0, 1)]) == [Hex(0, 1), Hex(0, 5), Hex(1, 0)]
    with pytest.raises(AttributeError):
        h.q = 3


def test_labels_are_kept_per_board_and_off_board_hexes_still_raise() -> None:
    """Board.label keeps each label once made: asked again it gives the same text, each board
    its own (an offset board and an axial one label one hex differently), and an off-board
    hex raises every time (it is never kept)."""
    offset, axial = Board.battlelore(), Board.hexagon(2)
    h = Hex(0, 0)
    assert offset.label(h) == offset._label(h) == offset.label(h)
    assert axial.label(h) == axial._label(h) == "0,0" != offset.label(h)
    for _ in range(2):
        with pytest.raises(ValueError):
            axial.label(Hex(9, 9))
