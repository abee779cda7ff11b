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

Colours and unit marks come from the packs' look (hexlore/look.py: ``look.yaml`` beside a
pack), with defaults a terrain's name suggests; a unit shows its mark (or its type's initials),
its whole id under the disc, and its strength fields (the look's ``strength``) in a badge.

A picture is an output of untrusted files, bounded like them: a board of more than
``MAX_DRAWN_HEXES`` hexes (hexlore/dsl/limits.py) is refused with ``S127``, which ``hexlore
check`` reports in advance as a warning.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable

from .look import Look
from .markup import xml_attr, xml_text
from .runtime.analysis.output_budget import too_large_to_draw
from .runtime.geometry.grid import Hex
from .runtime.engine.core.state import GameState, Unit

SQRT3 = math.sqrt(3)


def _n(value: float) -> str:
    text = f"{value:.1f}"
    return "0.0" if text == "-0.0" else text


def _centre(h: Hex, size: float) -> tuple[float, float]:
    return size * SQRT3 * (h.q + h.r / 2), size * 1.5 * h.r


def centres(state: GameState, size: float) -> dict[str, tuple[float, float]]:
    """Each hex's centre in the picture, by label (rounded as the picture rounds)."""
    return {state.board.label(h): (round(x, 1), round(y, 1)) for h in state.board for x, y in [_centre(h, size)]}


def _corners(x: float, y: float, size: float) -> str:
    points = []
    for i in range(6):
        angle = math.radians(60 * i - 30)
        points.append(f"{_n(x + size * math.cos(angle))},{_n(y + size * math.sin(angle))}")
    return " ".join(points)


def _terrain_of(state: GameState, h: Hex) -> str:
    terrain = state.hex_fields.get(h, {}).get("terrain")
    return getattr(terrain, "name", None) or "none"


def terrain_colours(state: GameState, look: Look | None = None, terrains: dict[str, str] | None = None,
                    also: Iterable[str] = ()) -> dict[str, str]:
    """A fill per terrain on the board, the most common first, ties by name: the look's colour,
    else one the terrain's name suggests, else the next of a pale palette. ``terrains``: hex
    label -> terrain name to count instead of the state's; ``also``: terrains met at other times
    of a game (placed and removed in play), after those on the board."""
    look = look or Look()
    if terrains is None:
        counts = Counter(_terrain_of(state, h) for h in state.board)
    else:
        counts = Counter(terrains.values())
    ranked = sorted(counts, key=lambda name: (-counts[name], name))
    ranked += sorted(set(also) - set(counts))
    return {name: look.terrain_colour(name, i) for i, name in enumerate(ranked)}


def side_colours(state: GameState, look: Look | None = None) -> dict[str, str]:
    look = look or Look()
    return {side.name: look.side_colour(side.name, side.index) for side in state.sides}


def unit_mark(type_name: str, look: Look) -> str:
    """The short mark drawn on a unit: the look's, else the initials of its type's words."""
    mark = look.marks.get(type_name)
    if mark:
        return mark
    words = [w for w in type_name.split("_") if w]
    return "".join(w[0] for w in words[:3]).upper() or "?"


def strength_fields(unit: Unit, look: Look) -> list[tuple[str, int]]:
    """The look's strength fields the unit has, with their numbers (bools are no strength)."""
    names = look.strength or []
    return [(n, unit.f[n]) for n in names if isinstance(unit.f.get(n), int) and not isinstance(unit.f.get(n), bool)]


def board_svg(state: GameState, title: str = "", size: float = 26.0, look: Look | None = None,
              units: bool = True, terrains: dict[str, str] | None = None, also: Iterable[str] = (),
              svg_id: str | None = None, layers: Iterable[str] = ()) -> str:
    """The position as an SVG document (text), identical for identical positions and looks;
    ``units=False`` draws the board alone (a replay draws the units of each step itself).
    ``terrains`` and ``also`` as :func:`terrain_colours` (a replay draws the board as it began,
    with a colour for every terrain the game will show); ``svg_id`` and ``layers`` (ids of empty
    groups drawn last) for a page that draws over the picture. Every text and attribute value
    is escaped (hexlore/markup.py), so a page may embed the picture as markup. A board of more
    than MAX_DRAWN_HEXES hexes is refused (OutputTooLarge, S127) before anything is drawn."""
    look = look or Look()
    board = state.board
    refused = too_large_to_draw(len(board))
    if refused is not None:
        raise refused
    hexes = sorted(board, key=lambda h: (h.r, h.q))
    centres = {h: _centre(h, size) for h in hexes}
    margin = size * 1.2
    left = min(x for x, _ in centres.values()) - margin
    top = min(y for _, y in centres.values()) - margin - (size if title else 0)
    right = max(x for x, _ in centres.values()) + margin
    bottom = max(y for _, y in centres.values()) + margin
    fills = terrain_colours(state, look, terrains, also)
    sides = side_colours(state, look)
    legend_rows = len(fills) + len(sides)
    height = bottom - top + legend_rows * size * 0.8 + size * 0.4
    width = right - left
    named = f"id={xml_attr(svg_id)} " if svg_id else ""
    out = [f'<svg {named}xmlns="http://www.w3.org/2000/svg" viewBox="{_n(left)} {_n(top)} {_n(width)} {_n(height)}" '
           f'width="{_n(width)}" height="{_n(height)}" font-family="sans-serif">']
    if title:
        out.append(f'<text x="{_n(left + size * 0.5)}" y="{_n(top + size * 0.9)}" font-size="{_n(size * 0.6)}" '
                   f'font-weight="bold">{xml_text(title)}</text>')
    for h in hexes:
        x, y = centres[h]
        label = board.label(h)
        terrain = _terrain_of(state, h) if terrains is None else terrains[label]
        out.append(f'<polygon data-hex={xml_attr(label)} data-terrain={xml_attr(terrain)} '
                   f'points="{_corners(x, y, size)}" fill={xml_attr(fills[terrain])} stroke="#555" stroke-width="1"/>')
        out.append(f'<text x="{_n(x)}" y="{_n(y - size * 0.55)}" font-size="{_n(size * 0.3)}" '
                   f'text-anchor="middle" fill="#666">{xml_text(label)}</text>')
    if units:
        out.extend(_units(state, centres, sides, size, look))
    out.extend(_legend(fills, sides, left + size * 0.5, bottom + size * 0.2, size))
    out.extend(f"<g id={xml_attr(layer)}></g>" for layer in layers)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _units(state: GameState, centres: dict, sides: dict[str, str], size: float, look: Look) -> list[str]:
    """A disc per unit on the board, in its side's colour; units sharing a hex side by side."""
    by_hex: dict[Hex, list] = {}
    for unit in state.units.values():
        if unit.alive and unit.hex is not None and unit.hex in centres:
            by_hex.setdefault(unit.hex, []).append(unit)
    out = []
    for h in sorted(by_hex, key=lambda h: (h.r, h.q)):
        x, y = centres[h]
        units = by_hex[h]
        for i, unit in enumerate(units):
            strength = strength_fields(unit, look)
            out.extend(unit_svg(unit.id, unit.definition.name, unit.side.name, state.board.label(h), strength,
                                sides.get(unit.side.name, "#000"), unit_mark(unit.definition.name, look),
                                x, y, size, i, len(units)))
    return out


def unit_svg(uid: str, type_name: str, side: str, hex_label: str, strength: list[tuple[str, int]],
             colour: str, mark: str, x: float, y: float, size: float, i: int = 0, count: int = 1) -> list[str]:
    """One unit: a disc with its mark, its whole id below (shrunk to fit, never cut off) and a
    badge with its strength numbers; ``data-`` attributes say what it is."""
    radius = size * (0.46 if count == 1 else 0.32)
    cx = x + (i - (count - 1) / 2) * radius * 1.7
    cy = y - size * 0.05
    shown = " ".join(f"{n}={v}" for n, v in strength)
    label_size = min(size * 0.32, size * 1.9 / max(len(uid), 1) / 0.55 / max(count, 1))
    out = [f'<g data-unit={xml_attr(uid)} data-type={xml_attr(type_name)} data-side={xml_attr(side)} '
           f'data-hex={xml_attr(hex_label)} data-strength={xml_attr(shown)}>',
           f'<circle cx="{_n(cx)}" cy="{_n(cy)}" r="{_n(radius)}" fill={xml_attr(colour)} stroke="#fff" stroke-width="1.5"/>',
           f'<text x="{_n(cx)}" y="{_n(cy + radius * 0.3)}" font-size="{_n(radius * 0.8)}" text-anchor="middle" '
           f'font-weight="bold" fill="#fff">{xml_text(mark)}</text>',
           f'<text x="{_n(cx)}" y="{_n(cy + radius + label_size * 0.95)}" font-size="{_n(label_size)}" '
           f'text-anchor="middle" fill="#111" stroke="#fff" stroke-width="0.25">{xml_text(uid)}</text>']
    if strength:
        text = "/".join(str(v) for _, v in strength)
        bx, by = cx + radius * 0.75, cy - radius * 0.75
        out.append(f'<circle cx="{_n(bx)}" cy="{_n(by)}" r="{_n(size * 0.2)}" fill="#fff" stroke={xml_attr(colour)}/>')
        out.append(f'<text x="{_n(bx)}" y="{_n(by + size * 0.09)}" font-size="{_n(size * 0.25)}" '
                   f'text-anchor="middle" fill="#111">{xml_text(text)}</text>')
    details = f"{uid} ({type_name}, {side})" + (f": {shown}" if shown else "")
    out.append(f"<title>{xml_text(details)}</title>")
    out.append("</g>")
    return out


def _legend(fills: dict[str, str], sides: dict[str, str], x: float, y: float, size: float) -> list[str]:
    out = []
    step = size * 0.8
    rows = [(name, colour, "rect") for name, colour in fills.items()]
    rows += [(f"side {name}", colour, "circle") for name, colour in sides.items()]
    for i, (name, colour, shape) in enumerate(rows):
        top = y + i * step
        if shape == "rect":
            out.append(f'<rect x="{_n(x)}" y="{_n(top)}" width="{_n(step * 0.8)}" height="{_n(step * 0.8)}" '
                       f'fill={xml_attr(colour)} stroke="#555"/>')
        else:
            out.append(f'<circle cx="{_n(x + step * 0.4)}" cy="{_n(top + step * 0.4)}" r="{_n(step * 0.4)}" '
                       f'fill={xml_attr(colour)}/>')
        out.append(f'<text x="{_n(x + step)}" y="{_n(top + step * 0.65)}" font-size="{_n(size * 0.4)}">'
                   f"{xml_text(name)}</text>")
    return out
