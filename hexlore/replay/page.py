"""A recording as one HTML file: the board, the entries, the positions, and a small viewer script.

Everything the page needs is inside it (the board as inline SVG, the CSS, ``viewer.js`` and
the data as JSON in a ``<script type="application/json">``), so it opens from disk with no
server and no network. The board's terrain is drawn here by hexlore/render.py in the packs'
look, as it was before the first entry; the viewer recolours the hexes whose terrain changed
and draws each step's units from the frames, the same way render.py draws them.
The page is the same bytes for the same game and look. It is built by hexlore/markup.py (Jinja2
with autoescaping, the data as escaped JSON, a Content-Security-Policy admitting only the
viewer's own script and style), so no name or event in a game can become markup or script, and
viewer.js puts every text in with DOM calls (``textContent``, ``setAttribute``), never as HTML.
"""

from __future__ import annotations

import json
from importlib import resources

from markupsafe import Markup

from ..look import Look
from ..markup import Page, build_page
from ..render import board_svg, centres, side_colours, terrain_colours, unit_mark
from .record import Recording, positions

BOARD_SIZE = 26.0


def default_strength(recording: Recording) -> list[str]:
    """Strength fields when the look names none: the numeric fields that changed during the game
    and never rose above where they started (what a unit loses: figures, hit points, health)."""
    frames = positions(recording)
    if not frames:
        return []
    start = frames[0]
    changed: set[str] = set()
    rose: set[str] = set()
    for frame in frames[1:]:
        for uid, (_, _, numbers) in frame.items():
            first = start.get(uid, (None, False, {}))[2]
            for name, value in numbers.items():
                if name in first and value != first[name]:
                    changed.add(name)
                    if value > first[name]:
                        rose.add(name)
    return sorted(changed - rose)[:3]


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def page_data(recording: Recording, look: Look, where: list | None = None) -> dict:
    """What the viewer script reads: entries, frames, units, hex centres, colours, and for each
    entry the rule that made it (``where``: [rule, file, line] or None)."""
    state = recording.state
    assert state is not None
    sides = side_colours(state, look)
    units = [{**u, "mark": unit_mark(u["type"], look), "colour": sides.get(u["side"], "#000")}
             for u in recording.units]
    return {"title": recording.title, "entries": [json.loads(line) for line in recording.lines],
            "frames": recording.frames, "units": units, "size": BOARD_SIZE,
            "centres": {k: list(v) for k, v in centres(state, BOARD_SIZE).items()},
            "strength": look.strength if look.strength is not None else default_strength(recording),
            "faces": dict(look.faces), "where": where or [None] * len(recording.lines),
            "terrain": {str(k): v for k, v in sorted(recording.terrain_changes.items())},
            "offered": {str(k): v for k, v in sorted(recording.offered.items())},
            "fills": terrain_colours(state, look, recording.terrain_at_start or None, later_terrains(recording))}


def later_terrains(recording: Recording) -> list[str]:
    """Terrains the game put on the board after it began, in the order they came."""
    seen: dict[str, None] = {}
    for _, changes in sorted(recording.terrain_changes.items()):
        for _, name in changes:
            seen.setdefault(name)
    return list(seen)


def replay_html(recording: Recording, look: Look, where: list | None = None) -> str:
    """The whole page (text, writable as UTF-8; the same game and look give the same bytes).
    Built by :func:`hexlore.markup.build_page`: the title is escaped text, the board is the
    picture render.py made (every text in it escaped there), the rest is JSON data."""
    state = recording.state
    assert state is not None
    board = board_svg(state, "", BOARD_SIZE, look, units=False, terrains=recording.terrain_at_start or None,
                      also=later_terrains(recording), svg_id="board", layers=("paths", "units"))
    return build_page(Page(title=f"{recording.title} - hexlore replay", body=BODY, css=_asset("viewer.css"),
                           script=_asset("viewer.js"), data=page_data(recording, look, where),
                           data_id="replay-data", context={"heading": recording.title, "board": Markup(board)}))


#: the page's body (hexlore/markup.py's SKELETON holds the head, the data and the script)
BODY = """<header><h1>{{ heading }}</h1>
<div id="controls">
<button id="prev" type="button" title="previous entry (Left arrow)">&#9664;</button>
<input id="slider" type="range" min="0" max="0" value="0" aria-label="step">
<button id="next" type="button" title="next entry (Right arrow)">&#9654;</button>
<span id="where"></span>
</div></header>
<main>
<section id="board-pane">
{{ board }}</section>
<aside>
<div id="detail" aria-live="polite"></div>
<ol id="entries" start="0"></ol>
</aside>
</main>"""
