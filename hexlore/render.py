"""A game position as an SVG picture: the board, its terrain and the units on it.

``hexlore render SCENARIO -o board.svg`` draws a scenario as it is set out, or after some
rounds (``--rounds N``), so a designer sees the board a scenario describes without counting
hex labels, and a bug report can carry a picture of the position.

The output depends on nothing but the position: no fonts are measured, no library is
needed, and every number is rounded to one decimal, so the same position always gives the
same bytes (tests compare whole pictures with golden files). Hexes are pointy-topped, rows
drawn top to bottom as players read the board; each element says what it shows in
``data-`` attributes (``data-hex``, ``data-terrain``, ``data-unit``), so a test or a script
can find a unit in the picture without reading its geometry.
"""

from __future__ import annotations

import math
from collections import Counter
from xml.sax.saxutils import escape, quoteattr

from .runtime.geometry.grid import Hex
from .runtime.engine.state import GameState

#: terrain fills, the most common terrain first (plain ground stays pale)
TERRAIN_COLOURS = ("#f3efe2", "#9cc58a", "#c9b48a", "#8fb3d9", "#b7a1c9", "#d99c8f", "#a9a9a9",
                   "#e3d27a", "#7fb8a8", "#d0a3b8")
#: side colours, by the side's order in the scenario
SIDE_COLOURS = ("#b8322a", "#2a5db8", "#2f8f3a", "#8a5a16", "#6b3fa0", "#333333")
SQRT3 = math.sqrt(3)


def _n(value: float) -> str:
    text = f"{value:.1f}"
    return "0.0" if text == "-0.0" else text


def _centre(h: Hex, size: float) -> tuple[float, float]:
    return size * SQRT3 * (h.q + h.r / 2), size * 1.5 * h.r


def _corners(x: float, y: float, size: float) -> str:
    points = []
    for i in range(6):
        angle = math.radians(60 * i - 30)
        points.append(f"{_n(x + size * math.cos(angle))},{_n(y + size * math.sin(angle))}")
    return " ".join(points)


def _terrain_of(state: GameState, h: Hex) -> str:
    terrain = state.hex_fields.get(h, {}).get("terrain")
    return getattr(terrain, "name", None) or "none"


def terrain_colours(state: GameState) -> dict[str, str]:
    """A fill per terrain on the board: the most common first, ties by name."""
    counts = Counter(_terrain_of(state, h) for h in state.board)
    ranked = sorted(counts, key=lambda name: (-counts[name], name))
    return {name: TERRAIN_COLOURS[i % len(TERRAIN_COLOURS)] for i, name in enumerate(ranked)}


def board_svg(state: GameState, title: str = "", size: float = 26.0) -> str:
    """The position as an SVG document (text), identical for identical positions."""
    board = state.board
    hexes = sorted(board, key=lambda h: (h.r, h.q))
    centres = {h: _centre(h, size) for h in hexes}
    margin = size * 1.2
    left = min(x for x, _ in centres.values()) - margin
    top = min(y for _, y in centres.values()) - margin - (size if title else 0)
    right = max(x for x, _ in centres.values()) + margin
    bottom = max(y for _, y in centres.values()) + margin
    fills = terrain_colours(state)
    sides = {side.name: SIDE_COLOURS[side.index % len(SIDE_COLOURS)] for side in state.sides}
    legend_rows = len(fills) + len(sides)
    height = bottom - top + legend_rows * size * 0.8 + size * 0.4
    width = right - left
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="{_n(left)} {_n(top)} {_n(width)} {_n(height)}" '
           f'width="{_n(width)}" height="{_n(height)}" font-family="sans-serif">']
    if title:
        out.append(f'<text x="{_n(left + size * 0.5)}" y="{_n(top + size * 0.9)}" font-size="{_n(size * 0.6)}" '
                   f'font-weight="bold">{escape(title)}</text>')
    for h in hexes:
        x, y = centres[h]
        terrain = _terrain_of(state, h)
        label = board.label(h)
        out.append(f'<polygon data-hex={quoteattr(label)} data-terrain={quoteattr(terrain)} '
                   f'points="{_corners(x, y, size)}" fill="{fills[terrain]}" stroke="#555" stroke-width="1"/>')
        out.append(f'<text x="{_n(x)}" y="{_n(y - size * 0.55)}" font-size="{_n(size * 0.3)}" '
                   f'text-anchor="middle" fill="#666">{escape(label)}</text>')
    out.extend(_units(state, centres, sides, size))
    out.extend(_legend(fills, sides, left + size * 0.5, bottom + size * 0.2, size))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _units(state: GameState, centres: dict, sides: dict[str, str], size: float) -> list[str]:
    """A disc per unit on the board, in its side's colour; units sharing a hex side by side."""
    by_hex: dict[Hex, list] = {}
    for unit in state.units.values():
        if unit.alive and unit.hex is not None and unit.hex in centres:
            by_hex.setdefault(unit.hex, []).append(unit)
    out = []
    for h in sorted(by_hex, key=lambda h: (h.r, h.q)):
        units = by_hex[h]
        x, y = centres[h]
        radius = size * (0.5 if len(units) == 1 else 0.34)
        for i, unit in enumerate(units):
            dx = (i - (len(units) - 1) / 2) * radius * 1.6
            colour = sides.get(unit.side.name, "#000")
            out.append(f'<g data-unit={quoteattr(unit.id)} data-type={quoteattr(unit.definition.name)} '
                       f'data-side={quoteattr(unit.side.name)}>')
            out.append(f'<circle cx="{_n(x + dx)}" cy="{_n(y + size * 0.1)}" r="{_n(radius)}" fill="{colour}" '
                       'stroke="#fff" stroke-width="1.5"/>')
            out.append(f'<text x="{_n(x + dx)}" y="{_n(y + size * 0.18)}" font-size="{_n(size * 0.23)}" '
                       f'text-anchor="middle" fill="#fff">{escape(_short(unit.id))}</text>')
            out.append(f"<title>{escape(unit.id)} ({escape(unit.definition.name)}, {escape(unit.side.name)})</title>")
            out.append("</g>")
    return out


def _short(text: str, limit: int = 7) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _legend(fills: dict[str, str], sides: dict[str, str], x: float, y: float, size: float) -> list[str]:
    out = []
    step = size * 0.8
    rows = [(name, colour, "rect") for name, colour in fills.items()]
    rows += [(f"side {name}", colour, "circle") for name, colour in sides.items()]
    for i, (name, colour, shape) in enumerate(rows):
        top = y + i * step
        if shape == "rect":
            out.append(f'<rect x="{_n(x)}" y="{_n(top)}" width="{_n(step * 0.8)}" height="{_n(step * 0.8)}" '
                       f'fill="{colour}" stroke="#555"/>')
        else:
            out.append(f'<circle cx="{_n(x + step * 0.4)}" cy="{_n(top + step * 0.4)}" r="{_n(step * 0.4)}" '
                       f'fill="{colour}"/>')
        out.append(f'<text x="{_n(x + step)}" y="{_n(top + step * 0.65)}" font-size="{_n(size * 0.4)}">'
                   f"{escape(name)}</text>")
    return out
