"""Hex-grid geometry for the runtime: coordinates, boards, labels, rings, areas, movement.

Everything here is exact. Hex coordinates are integers and movement costs are integers,
so two runs of the same game on different machines always agree on what a unit can
see and where it can go. No floating point is used anywhere in this module. Line of
sight lives in :mod:`hexlore.runtime.geometry.sight` (``crossed_hexes`` and ``line_clear`` are
still importable from here, for older callers).

Conventions (see ``docs/geometry.md`` for drawings)
--------------------------------------------------
* Hexes are POINTY-TOP and addressed with axial coordinates ``(q, r)``. Rows are
  horizontal; ``r`` grows toward the bottom edge of the board; ``q`` grows to the
  right along a row. The six directions, in the fixed order of :data:`DIRECTIONS`, are
  east, north-east, north-west, west, south-west, south-east.
* Offset boards (BattleLore, rectangles, masks) have their top row at ``r = 0`` and
  are labelled like the printed boards: a column letter (index of the hex within its
  row, from the left) followed by a 1-based row number, e.g. ``"A1"``. ``parity``
  says which rows are pushed half a hex to the right: ``"odd"`` (rows 2, 4, … as
  printed; BattleLore) or ``"even"`` (rows 1, 3, …). :func:`offset_to_axial` and
  :func:`axial_to_offset` convert.
* Hexagon-shaped boards have no natural columns, so their labels are ``"q,r"``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import NamedTuple

__all__ = [
    "DIRECTIONS",
    "Hex",
    "Board",
    "axial_to_offset",
    "offset_to_axial",
    "ring",
    "within",
    "triangles",
]

#: The six axial directions, in the fixed order every neighbour list follows.
#: A fixed order keeps iteration (and therefore every derived result) deterministic.
DIRECTIONS: tuple[tuple[int, int], ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))


class Hex(NamedTuple):
    """One hex in axial coordinates: an immutable ``(q, r)`` pair that keys dicts and lives in sets.

    A named tuple rather than a dataclass because hexes key the hottest dicts of a game (the
    board, the hex fields, the occupants, every search's tables): a tuple hashes and compares
    in C, where a dataclass's ``__hash__``/``__eq__`` are Python calls. The hash is the one the
    dataclass had (that of the pair ``(q, r)``), so sets of hexes iterate in the same order;
    hexes order as ``(q, r)`` pairs, as before. Unlike the dataclass, a hex equals the plain
    pair ``(q, r)``; nothing mixes the two.
    """

    q: int
    r: int

    def neighbours(self) -> tuple[Hex, ...]:
        """The six adjacent hexes in :data:`DIRECTIONS` order (board-agnostic)."""
        return tuple(Hex(self.q + dq, self.r + dr) for dq, dr in DIRECTIONS)

    def distance(self, other: Hex) -> int:
        """Number of steps between two hexes on an unbounded grid."""
        dq = self.q - other.q
        dr = self.r - other.r
        return (abs(dq) + abs(dr) + abs(dq + dr)) // 2

    def __str__(self) -> str:
        return f"({self.q},{self.r})"


# ---------------------------------------------------------------------------
# Labels
# ---------------------------------------------------------------------------

_OFFSET_LABEL = re.compile(r"^\s*([A-Za-z]+)\s*(\d+)\s*$")
_AXIAL_LABEL = re.compile(r"^\s*\(?\s*(-?\d+)\s*,\s*(-?\d+)\s*\)?\s*$")
_EDGES = ("top", "bottom")


def _column_letters(index: int) -> str:
    """0 -> "A", 25 -> "Z", 26 -> "AA": bijective base 26, so wide boards still label."""
    if index < 0:
        raise ValueError(f"column index must be non-negative, got {index}")
    letters = ""
    n = index + 1
    while n:
        n, rem = divmod(n - 1, 26)
        letters = chr(ord("A") + rem) + letters
    return letters


def _column_index(letters: str) -> int:
    """Inverse of :func:`_column_letters` (case-insensitive)."""
    n = 0
    for ch in letters.upper():
        n = n * 26 + (ord(ch) - ord("A") + 1)
    return n - 1


def _row_shift(r: int, parity: str) -> int:
    """How far axial ``q`` lags the column index in row ``r`` of an offset layout.

    "odd" means odd rows are pushed half a hex to the right, "even" means even rows
    are; in axial terms that is ``q = i - shift``.
    """
    if parity == "odd":
        return r // 2
    if parity == "even":
        return (r + 1) // 2
    raise ValueError(f"parity must be 'odd' or 'even', got {parity!r}")


def offset_to_axial(column: int, row: int, parity: str = "odd") -> Hex:
    """The hex at 0-based ``column`` of 0-based ``row`` in an offset layout of ``parity``.

    Column ``i`` counts hexes from the left edge of the row, as players read a printed
    board; label ``"C2"`` is column 2, row 1.
    """
    return Hex(column - _row_shift(row, parity), row)


def axial_to_offset(h: Hex, parity: str = "odd") -> tuple[int, int]:
    """Inverse of :func:`offset_to_axial`: ``(column, row)``, both 0-based."""
    return h.q + _row_shift(h.r, parity), h.r


# ---------------------------------------------------------------------------
# Rings, discs and triangles (unbounded grid; Board filters them)
# ---------------------------------------------------------------------------


def ring(center: Hex, n: int) -> list[Hex]:
    """The ``6n`` hexes at distance exactly ``n`` (``[center]`` for ``n == 0``).

    The walk starts at the hex ``n`` steps east of ``center`` and runs counter-clockwise
    as drawn (east, north-east, north-west, west, south-west, south-east corners), so the
    order is fixed and every derived result is deterministic.
    """
    if n < 0:
        raise ValueError(f"ring radius must be non-negative, got {n}")
    if n == 0:
        return [center]
    q, r = center.q + n * DIRECTIONS[0][0], center.r + n * DIRECTIONS[0][1]
    out: list[Hex] = []
    for k in range(6):
        dq, dr = DIRECTIONS[(k + 2) % 6]
        for _ in range(n):
            out.append(Hex(q, r))
            q, r = q + dq, r + dr
    return out


def within(center: Hex, n: int) -> list[Hex]:
    """Hexes at distance ``0..n``, nearest first, then by row and ``q`` (``3n(n+1)+1`` of them)."""
    if n < 0:
        return []
    out = [
        Hex(center.q + dq, center.r + dr)
        for dq in range(-n, n + 1)
        for dr in range(max(-n, -dq - n), min(n, -dq + n) + 1)
    ]
    out.sort(key=lambda h: (center.distance(h), h.r, h.q))
    return out


def triangles(center: Hex) -> list[tuple[Hex, Hex, Hex]]:
    """The six areas ``(center, x, y)`` where ``x`` and ``y`` are adjacent to ``center`` and to
    each other, i.e. ``x`` and ``y`` are consecutive neighbours; ordered like :data:`DIRECTIONS`
    (the first pairs the east and north-east neighbours)."""
    ns = center.neighbours()
    return [(center, ns[k], ns[(k + 1) % 6]) for k in range(6)]


# ---------------------------------------------------------------------------
# Board
# ---------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Board:
    """An immutable set of hexes plus the naming conventions of the physical board.

    Build boards with the classmethods; they record ``shape`` so that error messages,
    labels and serialisers know which convention applies. ``parity`` is ``None`` for
    boards labelled axially ("q,r"); otherwise offset labels are used.
    """

    shape: str
    hexes: frozenset[Hex]
    parity: str | None = None
    section_map: Mapping[Hex, frozenset[str]] = field(default_factory=dict)
    _order: tuple[Hex, ...] = field(init=False, repr=False)
    _min_r: int = field(init=False, repr=False)
    _max_r: int = field(init=False, repr=False)
    _labels: dict[Hex, str] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        # Precompute once: the board never changes, and sorted order is used often.
        order = tuple(sorted(self.hexes, key=lambda h: (h.r, h.q)))
        object.__setattr__(self, "hexes", frozenset(self.hexes))
        object.__setattr__(self, "section_map", MappingProxyType(dict(self.section_map)))
        object.__setattr__(self, "_order", order)
        object.__setattr__(self, "_min_r", order[0].r if order else 0)
        object.__setattr__(self, "_max_r", order[-1].r if order else -1)
        object.__setattr__(self, "_labels", {})  # hex -> label, made at its first use (label)

    # -- container protocol -------------------------------------------------

    def __copy__(self) -> "Board":
        return self

    def __deepcopy__(self, memo) -> "Board":
        # boards are immutable: snapshots of a game state share them
        return self

    def __contains__(self, h: object) -> bool:
        return isinstance(h, Hex) and h in self.hexes

    def __iter__(self) -> Iterator[Hex]:
        """Row by row from the top, left to right: stable across runs and platforms."""
        return iter(self._order)

    def __len__(self) -> int:
        return len(self.hexes)

    def neighbours(self, h: Hex) -> list[Hex]:
        """Adjacent hexes that are on this board, in :data:`DIRECTIONS` order."""
        return [n for n in h.neighbours() if n in self.hexes]

    def ring(self, h: Hex, n: int) -> list[Hex]:
        """Board hexes at distance exactly ``n`` from ``h``, in :func:`ring` order."""
        return [x for x in ring(h, n) if x in self.hexes]

    def within(self, h: Hex, n: int) -> list[Hex]:
        """Board hexes at distance at most ``n`` from ``h``, in :func:`within` order."""
        return [x for x in within(h, n) if x in self.hexes]

    def areas(self, h: Hex) -> list[tuple[Hex, Hex, Hex]]:
        """Three-hex areas around a target ``h``: ``h`` plus two hexes adjacent to it and to
        each other, all on the board, in :func:`triangles` order. An effect whose area is
        "chosen by the controller" offers exactly this list (empty when ``h`` is off the
        board or no such pair exists, e.g. on a one-hex-wide strip)."""
        if h not in self.hexes:
            return []
        return [t for t in triangles(h) if t[1] in self.hexes and t[2] in self.hexes]

    # -- rows and edges -----------------------------------------------------

    @property
    def rows(self) -> int:
        """Number of rows spanned by the board (top row to bottom row inclusive)."""
        return self._max_r - self._min_r + 1

    def edge(self, name: str) -> frozenset[Hex]:
        """Hexes of the first ("top") or last ("bottom") row."""
        r = self._edge_row(name)
        return frozenset(h for h in self.hexes if h.r == r)

    def toward_edge(self, h: Hex, name: str) -> list[Hex]:
        """On-board neighbours of ``h`` one row closer to edge ``name``, left to right.

        Rules such as "retreat toward your own edge" need exactly this set; it is
        empty when ``h`` already sits on that edge row.
        """
        self._edge_row(name)  # validates the name
        dirs = ((0, 1), (-1, 1)) if name == "bottom" else ((1, -1), (0, -1))
        out = [Hex(h.q + dq, h.r + dr) for dq, dr in dirs]
        return sorted((n for n in out if n in self.hexes), key=lambda n: n.q)

    def _edge_row(self, name: str) -> int:
        if name not in _EDGES:
            raise ValueError(f"edge must be one of {_EDGES}, got {name!r}")
        return self._min_r if name == "top" else self._max_r

    # -- sections -------------------------------------------------------------

    def sections(self, h: Hex) -> frozenset[str]:
        """Section names of ``h`` (a hex on a section line belongs to both sides)."""
        return self.section_map.get(h, frozenset())

    # -- labels ---------------------------------------------------------------

    def label(self, h: Hex) -> str:
        """Human label of a board hex: "A1"-style on offset boards, "q,r" otherwise. Kept once
        made: the log labels the hexes of every event, the same few again and again."""
        found = self._labels.get(h)
        if found is None:
            found = self._labels[h] = self._label(h)
        return found

    def _label(self, h: Hex) -> str:
        """:meth:`label` worked out."""
        if h not in self.hexes:
            raise ValueError(f"hex {h} is not on this board")
        if self.parity is None:
            return f"{h.q},{h.r}"
        column, row = axial_to_offset(h, self.parity)
        return f"{_column_letters(column)}{row + 1}"

    def parse_label(self, text: str) -> Hex:
        """Inverse of :meth:`label`; case-insensitive. Raises ``ValueError`` if invalid."""
        if self.parity is None:
            m = _AXIAL_LABEL.match(text)
            if m:
                h = Hex(int(m.group(1)), int(m.group(2)))
                if h in self.hexes:
                    return h
        else:
            m = _OFFSET_LABEL.match(text)
            if m:
                row = int(m.group(2)) - 1
                h = offset_to_axial(_column_index(m.group(1)), row, self.parity)
                if h in self.hexes:
                    return h
                if self._row_columns().get(row) and not self._rows_alike():
                    # a row not as wide as the board (BattleLore's even rows have 12 hexes): say which it has
                    raise ValueError(f"no hex {text!r} on this board ({self._row_hint(row)})")
        raise ValueError(f"no hex {text!r} on this board ({self._label_hint()})")

    def _row_columns(self) -> dict[int, list[int]]:
        """Offset row (0-based) -> the column indexes of its hexes, left to right (computed once)."""
        cached = self.__dict__.get("_rows")
        if cached is None:
            parity = self.parity
            if parity is None:  # only offset boards have rows of columns (labels)
                raise ValueError("parity must be 'odd' or 'even', got None")
            cached = {}
            for h in self.hexes:
                cached.setdefault(h.r, []).append(axial_to_offset(h, parity)[0])
            for cols in cached.values():
                cols.sort()
            object.__setattr__(self, "_rows", cached)
        return cached

    def _rows_alike(self) -> bool:
        """Whether every row has every column from A to the last (a rectangle)."""
        rows = self._row_columns()
        last = max((cols[-1] for cols in rows.values()), default=0)
        return len(rows) == self._max_r + 1 and all(len(cols) == last + 1 for cols in rows.values())

    def _row_hint(self, row: int) -> str:
        """The hexes of one row, as ranges of labels: ``row 2 has 12 hexes: A2–L2``."""
        runs: list[list[int]] = []
        for c in self._row_columns().get(row, []):
            if runs and c == runs[-1][1] + 1:
                runs[-1][1] = c
            else:
                runs.append([c, c])
        if not runs:
            return f"row {row + 1} has no hex"
        shown = ", ".join(f"{_column_letters(a)}{row + 1}" + (f"–{_column_letters(b)}{row + 1}" if b > a else "")
                          for a, b in runs)
        count = sum(b - a + 1 for a, b in runs)
        return f"row {row + 1} has {count} hex{'es' if count > 1 else ''}: {shown}"

    def _label_hint(self) -> str:
        """Describe the valid label range so a typo in a scenario is easy to fix (computed once:
        a scenario with thousands of units off a large board asks it for each)."""
        cached = self.__dict__.get("_hint")
        if cached is None:
            cached = self._describe_labels()
            object.__setattr__(self, "_hint", cached)
        return cached

    def _describe_labels(self) -> str:
        if self.parity is None:
            return f"{self.shape} board, labels are 'q,r'"
        if not self.hexes:
            return "the board is empty"
        last_col = max(h.q + _row_shift(h.r, self.parity) for h in self.hexes)
        rows = f"rows 1–{self._max_r + 1}"
        if self._rows_alike():
            return f"columns A–{_column_letters(last_col)}, {rows}"
        widths = {r: self._row_columns().get(r, []) for r in range(self._max_r + 1)}
        odd, even = widths.get(0), widths.get(1)
        if all(cols == (odd if r % 2 == 0 else even) for r, cols in widths.items()) and odd and even \
                and odd == list(range(len(odd))) and even == list(range(len(even))):
            # BattleLore: rows of 13 and 12 hexes alternate
            return (f"{rows}; odd rows have columns A–{_column_letters(len(odd) - 1)}, even rows "
                    f"A–{_column_letters(len(even) - 1)}")
        return f"columns A–{_column_letters(last_col)}, {rows}; not every row has every column"

    # -- constructors -----------------------------------------------------------

    @classmethod
    def battlelore(cls) -> Board:
        """BattleLore's board: 9 rows alternating 13 and 12 hexes, odd rows shifted right.

        Sections are measured in hex widths from the board's left side. To stay in
        integers we use ``2x``: a hex at index ``i`` has ``2x = 2i + 1`` in a 13-row
        and ``2x = 2i + 2`` in a 12-row; the section lines sit at ``2x = 8`` and
        ``2x = 18``. Hexes centred on a line belong to both adjacent sections.
        """
        hexes: set[Hex] = set()
        sections: dict[Hex, frozenset[str]] = {}
        for r in range(9):
            long_row = r % 2 == 0
            for i in range(13 if long_row else 12):
                h = Hex(i - r // 2, r)
                hexes.add(h)
                x2 = 2 * i + (1 if long_row else 2)
                names = set()
                if x2 <= 8:
                    names.add("left")
                if 8 <= x2 <= 18:
                    names.add("centre")
                if x2 >= 18:
                    names.add("right")
                sections[h] = frozenset(names)
        return cls("battlelore", frozenset(hexes), "odd", sections)

    @classmethod
    def rectangle(cls, width: int, height: int, parity: str = "odd") -> Board:
        """Offset rectangle with ``width`` hexes in every row."""
        if width < 1 or height < 1:
            raise ValueError(f"rectangle needs positive size, got {width}x{height}")
        hexes = frozenset(
            Hex(i - _row_shift(r, parity), r) for r in range(height) for i in range(width)
        )
        return cls("rectangle", hexes, parity)

    @classmethod
    def hexagon(cls, radius: int) -> Board:
        """All hexes within ``radius`` steps of the origin (axially labelled)."""
        if radius < 0:
            raise ValueError(f"radius must be non-negative, got {radius}")
        hexes = frozenset(
            Hex(q, r)
            for q in range(-radius, radius + 1)
            for r in range(max(-radius, -q - radius), min(radius, -q + radius) + 1)
        )
        return cls("hexagon", hexes)

    @classmethod
    def from_mask(cls, rows: list[str], parity: str = "odd") -> Board:
        """Board drawn as text: any character except ' ' and '-' is a hex.

        Column ``i`` of line ``r`` maps like :meth:`rectangle`, so labels use the
        mask column (a hole keeps later hexes' letters stable).
        """
        _row_shift(0, parity)  # validate parity even for an empty mask
        hexes = frozenset(
            Hex(i - _row_shift(r, parity), r)
            for r, line in enumerate(rows)
            for i, ch in enumerate(line)
            if ch not in " -"
        )
        return cls("mask", hexes, parity)
