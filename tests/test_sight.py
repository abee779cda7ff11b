"""Unit tests for hexlore.runtime.geometry.sight and the board additions of hexlore.runtime.geometry.grid.

The golden drawings (test_sight_golden.py) and the properties (test_geometry_properties.py)
cover the models broadly; these pin down specific cases and contracts.
"""

from __future__ import annotations

from itertools import product

import pytest

from hexlore.runtime.geometry import grid
from hexlore.runtime.geometry import sight
from hexlore.runtime.geometry.grid import Board, Hex, axial_to_offset, offset_to_axial
from hexlore.runtime.scenarios.loader import load_scenario_text

BL = Board.battlelore()
O = Hex(0, 0)


# ---------------------------------------------------------------------------
# conversions
# ---------------------------------------------------------------------------


def test_offset_conversions_match_the_printed_boards() -> None:
    assert offset_to_axial(0, 2, "odd") == Hex(-1, 2) == BL.parse_label("A3")
    assert offset_to_axial(0, 1, "even") == Hex(-1, 1)
    assert axial_to_offset(BL.parse_label("M9"), "odd") == (12, 8)
    even = Board.rectangle(4, 3, "even")
    assert even.label(Hex(-1, 1)) == "A2" and even.parse_label("a2") == Hex(-1, 1)


# ---------------------------------------------------------------------------
# rings and areas
# ---------------------------------------------------------------------------


def test_ring_order_starts_east_and_turns_counter_clockwise() -> None:
    assert grid.ring(O, 0) == [O]
    assert grid.ring(O, 1) == [Hex(1, 0), Hex(1, -1), Hex(0, -1), Hex(-1, 0), Hex(-1, 1), Hex(0, 1)]
    with pytest.raises(ValueError):
        grid.ring(O, -1)
    assert grid.within(O, -1) == []


def test_battlelore_corner_areas_and_rings() -> None:
    a1 = BL.parse_label("A1")
    assert BL.ring(a1, 1) == [BL.parse_label("B1"), BL.parse_label("A2")]
    assert BL.areas(a1) == [(a1, BL.parse_label("A2"), BL.parse_label("B1"))]
    assert len(BL.areas(BL.parse_label("F5"))) == 6
    assert BL.areas(Hex(40, 40)) == []
    assert Board.from_mask(["xxx"]).areas(Hex(1, 0)) == []  # a strip has no triangle


# ---------------------------------------------------------------------------
# centre line
# ---------------------------------------------------------------------------


def test_line_hexes_order_and_ends() -> None:
    assert sight.line_hexes(BL, O, O) == [O]
    assert sight.line_hexes(BL, O, Hex(3, 0)) == [O, Hex(1, 0), Hex(2, 0), Hex(3, 0)]
    # along the edge between (1,0) and (0,1): only the hex whose centre is on the line
    assert sight.line_hexes(Board.hexagon(4), O, Hex(2, 2)) == [O, Hex(1, 1), Hex(2, 2)]


def test_fast_and_reference_agree_on_every_pair_of_the_battlelore_board() -> None:
    cells = list(BL)
    for a, b in product(cells[::3], cells):
        assert sight.crossed_hexes(BL, a, b) == sight.crossed_hexes_reference(BL, a, b), (a, b)


def test_elevation_is_one_way() -> None:
    board = Board.hexagon(3)
    wood = Hex(1, 0)
    height = {Hex(0, 0): 1}.get
    level = lambda h: height(h, 0)  # noqa: E731
    blocks = {wood}.__contains__
    assert sight.line_clear_above(board, O, Hex(2, 0), blocks, level)
    assert not sight.line_clear_above(board, Hex(2, 0), O, blocks, level)
    assert not sight.line_clear(board, O, Hex(2, 0), blocks)
    # a blocker as high as the viewer still blocks
    assert not sight.line_clear_above(board, O, Hex(2, 0), blocks, lambda h: 1)


# ---------------------------------------------------------------------------
# shortest paths
# ---------------------------------------------------------------------------


def test_blocks_is_asked_once_per_hex_and_never_about_the_ends() -> None:
    board = Board.hexagon(6)
    asked: list[Hex] = []

    def blocks(h: Hex) -> bool:
        asked.append(h)
        return h.r == 1

    a, b = Hex(0, 0), Hex(2, 3)
    sight.paths_clear(board, a, b, blocks)
    assert asked and len(asked) == len(set(asked))
    assert a not in asked and b not in asked


def test_paths_counts_at_range_four() -> None:
    board = Board.hexagon(6)
    counts = sorted(len(list(sight.shortest_paths(board, O, h))) for h in board.ring(O, 4))
    assert counts == [1] * 6 + [4] * 12 + [6] * 6
    assert sum(sight.central_paths(O, h) is not None for h in board.ring(O, 4)) == 12


def test_four_path_rule_only_in_the_four_path_case() -> None:
    board = Board.hexagon(6)
    target = Hex(3, 1)  # three steps east, one south-east
    first_east = {Hex(1, 0)}.__contains__
    assert sight.paths_clear(board, O, target, first_east)
    assert not sight.paths_clear(board, O, target, first_east, four_path_rule=True)
    # central paths: (1,0) (1,1) (2,1) and (1,0) (2,0) (2,1); outer: (0,1) (1,1) (2,1) and
    # (1,0) (2,0) (3,0). Blocking (1,1) and (3,0) leaves only the second central path clear.
    one_central = {Hex(1, 1), Hex(3, 0)}.__contains__
    assert sight.paths_clear(board, O, target, one_central, four_path_rule=True)
    assert sight.paths_clear(board, O, target, one_central)
    # six paths at range 4: the rule does not apply
    six = Hex(2, 2)
    assert sight.central_paths(O, six) is None
    assert sight.paths_clear(board, O, six, first_east, four_path_rule=True)
    # a central path leaving the board counts as blocked
    holed = Board("mask", board.hexes - {Hex(1, 0)})
    assert sight.paths_clear(holed, O, target, lambda h: False)
    assert not sight.paths_clear(holed, O, target, lambda h: False, four_path_rule=True)


def test_range_and_sight_off_the_board_or_cut_off() -> None:
    islands = Board.from_mask(["xx-xx"])
    a, b = islands.parse_label("A1"), islands.parse_label("E1")
    assert sight.path_length(islands, a, b) is None
    assert not sight.in_range(islands, a, b, 0, 10)
    assert not sight.paths_clear(islands, a, b, lambda h: False)
    assert sight.geodesic_layers(islands, a, Hex(99, 0)) is None
    assert sight.path_length(islands, a, a) == 0
    assert sight.hexes_in_range(islands, a, 0, 5) == [a, islands.parse_label("B1")]
    assert sight.hexes_in_range(islands, a, 3, 2) == []


# ---------------------------------------------------------------------------
# mask boards in scenarios
# ---------------------------------------------------------------------------

SCENARIO = """\
hexlore: 1
name: mask
packs: [battlelore.core]
board:
{board}
sides:
  - {{name: north, edge: top}}
  - {{name: south, edge: bottom}}
units: []
"""


def _load(board: str):
    return load_scenario_text(SCENARIO.format(board=board), "mask.yaml")


def test_scenario_mask_board() -> None:
    scenario, diags = _load('  shape: mask\n  parity: even\n  rows: ["xx-x", " xxx"]\n'
                            '  terrain: {forest: [D1]}')
    assert scenario is not None, [d.headline() for d in diags]
    board = scenario.board
    assert board.shape == "mask" and board.parity == "even" and len(board) == 6
    assert board.parse_label("D1") in scenario.terrain
    with pytest.raises(ValueError):
        board.parse_label("C1")


@pytest.mark.parametrize("board, code, words", [
    ('  shape: mask\n  rows: ["--", "  "]', "S004", "no hex"),
    ('  shape: mask', "S003", "rows"),
    ('  shape: mask\n  rows: ["x"]\n  width: 3', "S003", "width"),
    ('  shape: rectangle\n  width: 2\n  height: 2\n  rows: ["x"]', "S003", "rows"),
])
def test_bad_mask_boards_are_diagnosed(board: str, code: str, words: str) -> None:
    scenario, diags = _load(board)
    assert scenario is None
    assert any(d.code == code and words in d.message for d in diags), [d.headline() for d in diags]


# ---------------------------------------------------------------------------
# the built-ins' function parameters
# ---------------------------------------------------------------------------

ARITY_PACK = """\
pack arity
function three(a: hex, b: hex, c: hex) -> bool = false
function flat(a: hex, b: hex) -> int = 0
function never(h: hex) -> bool = false
event seen(v: bool)
procedure look(a: hex, b: hex) { emit seen(v: line_clear(a, b, three)) }
procedure climb(a: hex, b: hex) { emit seen(v: line_clear_above(a, b, never, flat)) }
"""

ARITY_SCENARIO = """\
hexlore: 1
name: arity
packs: [arity]
board: {shape: hexagon, radius: 3}
sides: [{name: north, edge: top}, {name: south, edge: bottom}]
units: []
tests:
  - {name: look, do: [{call: look, with: {a: "0,0", b: "3,0"}}], expect: {}}
  - {name: climb, do: [{call: climb, with: {a: "0,0", b: "3,0"}}], expect: {}}
"""


def test_a_function_argument_with_the_wrong_arity_is_a_located_rule_error(tmp_path) -> None:
    from conftest import compile_text
    from hexlore.runtime.analysis.scenario_tests import run_scenario_tests

    rules = compile_text(tmp_path, ARITY_PACK, "arity.lore")
    assert rules.ok, [d.headline() for d in rules.diagnostics]
    scenario, diags = load_scenario_text(ARITY_SCENARIO, "arity.yaml")
    assert scenario is not None, [d.headline() for d in diags]
    look, climb = run_scenario_tests(rules, scenario)
    assert not look.passed and "R001" in look.failures[0] and "'three' takes 3" in look.failures[0]
    assert "arity.lore:6:" in look.failures[0]
    assert not climb.passed and "'flat' takes 2" in climb.failures[0]


def test_what_is_kept_per_board_is_never_another_boards():
    """sight keeps, per board, whether a straight-as-possible path joins two hexes, the hexes in
    range of one and the centre lines (the last board's found by identity, besides a weak dict):
    boards taken in turn, and a board made after another was freed (it may get the freed one's
    id), each get answers of their own hexes, the answers worked out afresh."""
    import gc

    def check(board: Board) -> None:
        hexes = sorted(board)
        for a in hexes:
            assert sight.hexes_in_range(board, a, 1, 3) == sight._hexes_in_range(board, a, 1, 3)
            for b in hexes:
                if a.distance(b) > 1:
                    assert sight._straight(board, a, b) == sight._through(board, a, b, None), (a, b)
                assert sight.line_hexes(board, a, b) == ([a] if a == b else [a, *sight._crossed(board, a, b), b])

    small = Board("mask", frozenset(h for h in Board.hexagon(3) if h.q >= 0))
    large = Board("mask", frozenset(Board.hexagon(3)))
    holed = Board("mask", frozenset(h for h in Board.hexagon(3) if h.r != -1))
    for board in (small, large, holed, small, small, large, holed):
        check(board)
    assert sight._straight(holed, Hex(0, 0), Hex(0, -2)) is False  # the kept answers differ by board
    assert sight._straight(large, Hex(0, 0), Hex(0, -2)) is True
    del small, large, holed
    gc.collect()
    for radius in (3, 4, 3):
        check(Board("mask", frozenset(h for h in Board.hexagon(radius) if h.r != -1 or radius == 4)))
        gc.collect()


def test_kept_answers_are_new_lists_each_time():
    """hexes_in_range and line_hexes keep their answers per board: a caller that changes the
    list it got changes nothing kept."""
    board = Board("mask", frozenset(Board.hexagon(3)))
    a, b = Hex(0, 0), Hex(3, -1)
    first = sight.hexes_in_range(board, a, 0, 2)
    first.clear()
    assert sight.hexes_in_range(board, a, 0, 2) == sight._hexes_in_range(board, a, 0, 2) != []
    line = sight.line_hexes(board, a, b)
    line.append(a)
    assert sight.line_hexes(board, a, b) == [a, *sight._crossed(board, a, b), b]
