"""What a person playing at the terminal is shown: the board as text, each side's state, card
texts, the unit a decision is about, and the odds of an option (issue 31, item 7).

Plain functions of a game, returning plain text, so the terminal player (hexlore/play.py),
a test, or a browser server can use them alike. Every name and text comes from packs,
scenarios and looks, which are untrusted: each is made printable here (control characters
and the characters ``check`` refuses written as escapes, :func:`_safe`) before it is measured
or laid out, and the caller escapes rich markup when it prints (hexlore/cli_output.escape).

The board is drawn as the hex grid lies: one text row per board row (and a row of labels
above it), each hex a cell six characters wide, a row shifted by half a cell for each half
hex its hexes are shifted (pointy-topped hexes, as hexlore/render.py draws them). A unit is
its side's letter, its mark (the look's, else its type's initials) and its strength (the
look's strength field, e.g. figures); an empty hex shows its terrain's letter. A legend
says what each letter means.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

from .diagnostics import printable
from .dsl.text_safety import escaped
from .look import Look
from .render import strength_fields, unit_mark
from .runtime.analysis.odds_state import OptionOdds
from .runtime.analysis.output_budget import too_large_to_draw
from .runtime.engine.core.state import Unit, label

CELL = 6  # characters per hex; a half-hex shift is CELL // 2
MAX_MARK = 5  # what a cell shows of a unit: side letter, mark, strength


def _safe(text) -> str:
    """A name or text from untrusted files, with nothing a terminal would act on."""
    return escaped(printable(str(text)))


def side_letters(state) -> dict[str, str]:
    """A one-character symbol per side: its initial, else a digit when initials collide."""
    initials = [(_safe(s.name)[:1] or "?").lower() for s in state.sides]
    if len(set(initials)) == len(initials):
        return {s.name: i for s, i in zip(state.sides, initials)}
    return {s.name: str(n % 10) for n, s in enumerate(state.sides, 1)}


def terrain_letters(state) -> dict[str, str]:
    """A letter per terrain on the board: '.' for the most common, else the first letter of its
    name not taken yet (then a digit)."""
    counts = Counter(_terrain(state, h) for h in state.board)
    ranked = sorted(counts, key=lambda name: (-counts[name], name))
    letters: dict[str, str] = {}
    for i, name in enumerate(ranked):
        if i == 0:
            letters[name] = "."
            continue
        free = [c for c in _safe(name).lower() + "0123456789" if c.isalnum() and c not in letters.values()]
        letters[name] = free[0] if free else "?"
    return letters


def _terrain(state, h) -> str:
    terrain = state.hex_fields.get(h, {}).get("terrain")
    return getattr(terrain, "name", None) or "none"


def unit_cell(unit: Unit, sides: dict[str, str], look: Look) -> str:
    strength = strength_fields(unit, look)
    number = str(strength[0][1]) if strength else ""
    mark = _safe(unit_mark(unit.definition.name, look))[:MAX_MARK - 1 - len(number)]
    return (sides[unit.side.name] + mark + number)[:MAX_MARK]


def board_text(state, look: Look | None = None) -> str:
    """The board as rows of hexes with their units, and a legend (a board too large to draw
    is refused in one line, as ``render`` refuses it)."""
    look = look or Look()
    board = state.board
    refused = too_large_to_draw(len(board))
    if refused is not None:
        return f"(the board has {len(board):,} hexes: too large to draw as text)"
    sides, terrains = side_letters(state), terrain_letters(state)
    hexes = sorted(board, key=lambda h: (h.r, h.q))
    if not hexes:
        return "(the board has no hexes)"
    left = min(2 * h.q + h.r for h in hexes)
    half = CELL // 2
    lines = []
    marked: dict[str, str] = {}
    for r in sorted({h.r for h in hexes}):
        row = [h for h in hexes if h.r == r]
        labels, cells = [], []
        for h in row:
            column = (2 * h.q + h.r - left) * half
            here = [u for u in state.units_at(h) if u.alive]
            if here:
                text = unit_cell(here[0], sides, look) + ("+" if len(here) > 1 else "")
                marked[unit_mark(here[0].definition.name, look)] = here[0].definition.name
            else:
                text = terrains[_terrain(state, h)]
            labels.append((column, _safe(board.label(h))[:CELL - 1]))
            cells.append((column, text))
        lines.append(_place(labels))
        lines.append(_place(cells))
    return "\n".join(lines + [""] + _legend(state, look, sides, terrains, marked))


def _place(items: list[tuple[int, str]]) -> str:
    line = ""
    for column, text in items:
        line = line.ljust(column) + text.center(CELL - 1) + " "
    return line.rstrip()


def _legend(state, look: Look, sides: dict[str, str], terrains: dict[str, str], marked: dict[str, str]) -> list[str]:
    strength = ", ".join(_safe(s) for s in look.strength or [])
    out = ["sides: " + ", ".join(f"{letter} {_safe(name)}" for name, letter in sides.items())]
    if marked:
        out.append("units: " + ", ".join(f"{_safe(m)} {_safe(t)}" for m, t in sorted(marked.items()))
                   + (f"; the number: {strength}" if strength else ""))
    out.append("terrain: " + ", ".join(f"{letter} {_safe(name)}" for name, letter in terrains.items()))
    return out


def definition_text(definition, game) -> str:
    """A card (any definition) as a player reads it: its name, title and values."""
    values = ", ".join(f"{_safe(k)}: {_safe(_shown(game, game.const(v)))}" for k, v in definition.values)
    title = _safe(definition.title) if definition.title else ""
    return _safe(definition.name) + (f" \u2014 {title}" if title else "") + (f" ({values})" if values else "")


def _shown(game, value):
    shown = label(value, game.state.board)
    if isinstance(shown, list):
        return "[" + ", ".join(str(v) for v in shown) + "]"
    return "none" if shown is None else str(shown).lower() if isinstance(shown, bool) else shown


def _is_definition(value) -> bool:
    return hasattr(value, "kind") and hasattr(value, "title") and hasattr(value, "values")


def sides_text(game, viewer: str | None = None) -> str:
    """The game's fields, then every field the rules declare for each side. A list of cards
    (a hand) is shown card by card with its text to its own side (``viewer``; every side when
    None, hot-seat), to the others as a count, as the game's lists of cards (a deck) are."""
    state = game.state
    lines = ["game: " + ", ".join(_field(game, name, value) for name, value in state.game.items())]
    for side in state.sides:
        own = viewer is None or viewer == side.name
        plain, held = [], []
        for name, value in side.f.items():
            if own and _cards(value):
                held.append((name, value))
            else:
                plain.append(_field(game, name, value))
        lines.append(f"{_safe(side.name)}: " + (", ".join(plain) if plain else "(no side fields)"))
        for name, cards in held:
            lines.append(f"  {_safe(name)} ({len(cards)}):")
            lines.extend(f"    {definition_text(c, game)}" for c in cards)
    return "\n".join(lines)


def _cards(value) -> bool:
    return isinstance(value, list) and bool(value) and all(_is_definition(v) for v in value)


def _field(game, name: str, value) -> str:
    if _cards(value):  # a deck, or another side's hand: how many, not which
        return f"{_safe(name)} {len(value)} card(s)"
    return f"{_safe(name)} {_safe(_shown(game, value))}"


def option_note(option, game) -> str:
    """What an option is, beyond its label: a card's text, a unit's type and hex."""
    if _is_definition(option):
        text = definition_text(option, game)
        return text[len(_safe(option.name)):].lstrip(" \u2014")
    if isinstance(option, Unit):
        where = label(option.hex, game.state.board) if option.hex is not None else "off the board"
        return f"{_safe(option.definition.name)} at {_safe(where)}"
    return ""


def decision_subjects(game) -> list[Unit]:
    """The units the pending decision is about: the units among the arguments and locals of
    the rule that asks it, before the question (``move_to`` of ``move(u)``: u; a battle back:
    the unit and its attacker). Empty when no rule frame is paused (direct play)."""
    request = game.pending if game.pending is not None else game.paused_at
    stack = game.context.stack
    if request is None or not stack:
        return []
    frame = stack[-1]
    found: list[Unit] = []
    for value in frame[2:]:
        if value is request:
            break
        if isinstance(value, Unit) and value not in found:
            found.append(value)
    return found[:3]


def subjects_text(game) -> str:
    units = decision_subjects(game)
    board = game.state.board
    return ", ".join(f"{_safe(u.id)} ({_safe(u.definition.name)}"
                     + (f" at {_safe(label(u.hex, board))})" if u.hex is not None else ")") for u in units)


def odds_text(found: OptionOdds, limit: int = 12) -> str:
    """An option's odds as a small table, most likely first; or why there are none."""
    head = f"odds of {found.decision} = {_safe(_plain(found.label))} ({found.side})"
    if found.result is None:
        return f"{head}: {found.refused}"
    result = found.result
    rows = sorted(result.rows, key=lambda r: -r.probability)
    out = [f"{head}, {result.enumerated:,} outcome(s) enumerated, exact:",
           "  " + " | ".join(_safe(c) for c in result.columns)]
    for row in rows[:limit]:
        out.append(f"  {_percent(row.probability):>6}  " + " | ".join(_safe(_plain(v)) for v in row.values)
                   + f"   ({row.probability})")
    if len(rows) > limit:
        rest = sum((r.probability for r in rows[limit:]), Fraction(0))
        out.append(f"  {_percent(rest):>6}  {len(rows) - limit} other outcome(s)")
    return "\n".join(out)


def _plain(value) -> str:
    if isinstance(value, tuple):
        return "[" + ", ".join(_plain(v) for v in value) + "]"
    return "none" if value is None else str(value).lower() if isinstance(value, bool) else str(value)


def _percent(p: Fraction) -> str:
    return f"{float(p) * 100:.1f}%"
