"""ASCII art for hex boards, so geometry golden fixtures show a reader what they test.

A drawing has one text line per board row (row ``r = 0`` first). Each hex is one character;
hexes in a row are separated by one space, and the rows shifted half a hex to the right
(odd rows for ``parity="odd"``, even rows for ``"even"``) start one space further in. ``-``
marks a place that is not a hex. Any other character is a hex, and the character is the
fixture's mark for it (``.`` plain, ``#`` blocking, ``S`` source, ``*`` expected, …)::

    . . # . .
     . S . * .
    . . . . .

Column ``i`` of row ``r`` is ``Hex(i - shift(r), r)``, the same mapping as
:meth:`Board.rectangle`, so letters-and-numbers labels agree with the drawing.
"""

from __future__ import annotations

from collections.abc import Callable

from hexlore.runtime.geometry.grid import Board, Hex


def _shifted(r: int, parity: str) -> bool:
    return (r % 2 == 1) if parity == "odd" else (r % 2 == 0)


def _shift(r: int, parity: str) -> int:
    return r // 2 if parity == "odd" else (r + 1) // 2


def parse_art(text: str, parity: str = "odd") -> tuple[Board, dict[str, set[Hex]]]:
    """The board a drawing shows and, for each mark character, the hexes that carry it."""
    rows = [line.rstrip() for line in text.strip("\n").splitlines()]
    rows = [line for line in rows if line.strip()]
    if not rows:
        raise ValueError("empty drawing")
    unshifted = [line for r, line in enumerate(rows) if not _shifted(r, parity)]
    margin = min(len(line) - len(line.lstrip(" ")) for line in unshifted)
    marks: dict[str, set[Hex]] = {}
    hexes: set[Hex] = set()
    for r, line in enumerate(rows):
        start = margin + (1 if _shifted(r, parity) else 0)
        body = line[start:]
        for pos, ch in enumerate(body):
            if pos % 2 == 1:
                if ch != " ":
                    raise ValueError(f"row {r + 1}: hexes must be one character apart, got {ch!r} "
                                     f"at column {start + pos + 1}")
                continue
            if ch in "- ":
                continue
            h = Hex(pos // 2 - _shift(r, parity), r)
            hexes.add(h)
            marks.setdefault(ch, set()).add(h)
    board = Board.from_mask(_mask_rows(hexes, parity), parity)
    return board, marks


def _mask_rows(hexes: set[Hex], parity: str) -> list[str]:
    height = max(h.r for h in hexes) + 1
    width = max(h.q + _shift(h.r, parity) for h in hexes) + 1
    return ["".join("x" if Hex(i - _shift(r, parity), r) in hexes else "-" for i in range(width))
            for r in range(height)]


def render_art(board: Board, mark: Callable[[Hex], str], parity: str = "odd") -> str:
    """Draw ``board`` with ``mark(hex)`` for each hex (inverse of :func:`parse_art`)."""
    height = max(h.r for h in board) + 1
    width = max(h.q + _shift(h.r, parity) for h in board) + 1
    lines = []
    for r in range(height):
        cells = []
        for i in range(width):
            h = Hex(i - _shift(r, parity), r)
            cells.append(mark(h) if h in board else "-")
        lines.append((" " if _shifted(r, parity) else "") + " ".join(cells).rstrip(" -"))
    return "\n".join(lines)
