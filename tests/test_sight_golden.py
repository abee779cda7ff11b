"""Golden tests for board geometry and line of sight, drawn as ASCII art.

Each file in ``tests/fixtures/geometry/`` shows a board, a source and what the model must
give, so a reader checks the expectation by eye. Format::

    # comments (header only)
    model: centre_line            # or paths, paths_four, elevation, range, ring, areas
    parity: odd                   # optional (odd)
    range: 2 4                    # range: minimum and maximum
    ring: 2                       # ring: radius
    source_height: 1              # elevation: height of the source hex (default 0)
    board:
    <drawing: S source, # blocks sight, ^ blocks sight at height 1, 1-9 open hex of that
     height, . open hex, - no hex>
    expected:
    <drawing: S source, * yes, . no; paths_four: x = seen under 405.3 alone but not with
     405.4; ring: a, b, c... in ring order; areas: for every hex, how many areas it has>

The test computes the drawing and compares; on a mismatch it prints both.
"""

from __future__ import annotations

import string
from pathlib import Path

import pytest

from hexart import parse_art, render_art
from hexlore.runtime.geometry import sight
from hexlore.runtime.geometry.grid import Board, Hex

FIXTURES = sorted((Path(__file__).parent / "fixtures" / "geometry").glob("*.txt"))


def _read(path: Path) -> tuple[dict[str, str], str, str]:
    header, board, expected = {}, [], []
    section = None
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() in ("board:", "expected:"):
            section = line.strip()
            continue
        if section == "board:":
            board.append(line)
        elif section == "expected:":
            expected.append(line)
        elif line.strip() and not line.lstrip().startswith("#"):
            key, _, value = line.partition(":")
            header[key.strip()] = value.split("#")[0].strip()
    return header, "\n".join(board), "\n".join(expected)


def _marks(board: Board, marks: dict[str, set[Hex]]):
    def where(ch: str) -> set[Hex]:
        return marks.get(ch, set())

    source = where("S")
    blocks = where("#") | where("^")
    height = {h: 1 for h in where("^")}
    for d in "123456789":
        height.update({h: int(d) for h in where(d)})
    return source, blocks, height


def compute(header: dict[str, str], board: Board, marks: dict[str, set[Hex]]) -> str:
    """The expected drawing, computed by the model the header names."""
    parity = header.get("parity", "odd")
    model = header["model"]
    source, blocks, height = _marks(board, marks)
    if model == "areas":
        return render_art(board, lambda h: str(len(board.areas(h))), parity)
    (s,) = source
    if model == "ring":
        order = board.ring(s, int(header["ring"]))
        letters = string.ascii_lowercase + string.ascii_uppercase
        return render_art(board, lambda h: "S" if h == s else
                          (letters[order.index(h)] if h in order else "."), parity)
    is_blocker = blocks.__contains__
    if "source_height" in header:
        height[s] = int(header["source_height"])

    def seen(h: Hex) -> str:
        if model == "centre_line":
            return "*" if sight.line_clear(board, s, h, is_blocker) else "."
        if model == "paths":
            return "*" if sight.paths_clear(board, s, h, is_blocker) else "."
        if model == "paths_four":
            if sight.paths_clear(board, s, h, is_blocker, four_path_rule=True):
                return "*"
            return "x" if sight.paths_clear(board, s, h, is_blocker) else "."
        if model == "elevation":
            return "*" if sight.line_clear_above(board, s, h, is_blocker,
                                                 lambda x: height.get(x, 0)) else "."
        if model == "range":
            low, high = (int(v) for v in header["range"].split())
            return "*" if sight.in_range(board, s, h, low, high) else "."
        raise AssertionError(f"unknown model {model!r}")

    return render_art(board, lambda h: "S" if h == s else seen(h), parity)


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_golden(path: Path) -> None:
    header, board_art, expected_art = _read(path)
    parity = header.get("parity", "odd")
    board, marks = parse_art(board_art, parity)
    expected_board, expected_marks = parse_art(expected_art, parity)
    assert set(expected_board) == set(board), "the expected drawing must show the same hexes"
    expected = render_art(board, lambda h: next(ch for ch, hs in expected_marks.items() if h in hs),
                          parity)
    actual = compute(header, board, marks)
    assert actual == expected, f"\n{path.name}: expected\n{expected}\n\nactual\n{actual}\n"


def test_there_is_a_fixture_per_variant() -> None:
    models = {_read(p)[0]["model"] for p in FIXTURES}
    assert models >= {"centre_line", "paths", "paths_four", "elevation", "range", "ring", "areas"}
    # the range-4 fixture must show the four-path rule changing at least one answer
    four = [p for p in FIXTURES if _read(p)[0]["model"] == "paths_four"]
    assert any("x" in _read(p)[2] for p in four)
