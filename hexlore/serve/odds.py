"""'What are my odds?' on the play page: an option's exact outcomes as a small table.

The engine answers (:func:`hexlore.runtime.analysis.odds_state.odds_of_option`: the game is
resumed with the option in an exploration, every roll dealt every face, and left exactly as it
was); this module bounds the question for a server and shapes the answer for a page. The
bound is the engine's outcome budget plus a CPU-time bound, both small, because the engine
runs one game at a time on the server (hexlore/serve/session.py): past either, the page is told
"too large to enumerate" rather than kept waiting.

Columns holding a side's cards (a hand, a deck: a side field declared as a list of a card-like
kind) are left out and the rows merged: they would show a person what is drawn next, which
nobody at the table knows. Values become text here (:func:`_text`), and the page puts them in
with ``textContent`` only.
"""

from __future__ import annotations

from fractions import Fraction

from ..runtime.analysis.odds_state import odds_of_option
from ..runtime.engine.game import Game, RuntimeRuleError

#: outcomes answered at rolls before the page is told "too large to enumerate"
ODDS_BUDGET = 20_000
#: CPU seconds one question may take (the engine is the server's, one game at a time)
ODDS_SECONDS = 1.0
#: rows a page is sent (the likeliest); the rest are summed as "other outcomes"
MAX_ROWS = 20
#: kinds that are board things, not cards: a side field holding a list of these is shown
_BOARD_KINDS = ("unit", "side", "hex", "game", "terrain")


def card_columns(game: Game) -> set[str]:
    """The outcome columns (``SIDE.FIELD``) that hold a side's cards."""
    kinds = game.rules.kinds
    fields = [name for name, spec in kinds["side"].fields.items()
              if spec.type.name == "list" and spec.type.item is not None
              and spec.type.item.name in kinds and spec.type.item.name not in _BOARD_KINDS]
    return {f"{side.name}.{name}" for side in game.state.sides for name in fields}


def odds_table(game: Game, option: int, *, budget: int = ODDS_BUDGET,
               max_seconds: float | None = ODDS_SECONDS) -> dict:
    """What option ``option`` of the pending decision leads to, as the page's table:
    ``{"option", "label", "decision", "columns", "rows": [{"values", "probability", "percent"}],
    "other": {...} | None, "outcomes", "refused"}``. The game is left as it was."""
    try:
        found = odds_of_option(game, option, budget=budget, max_seconds=max_seconds)
    except (RuntimeRuleError, ValueError) as exc:
        diagnostic = getattr(exc, "diagnostic", None)
        return {"option": option, "refused": diagnostic.headline() if diagnostic is not None else str(exc)}
    out: dict = {"option": option, "label": _text(found.label), "decision": found.decision,
                 "refused": found.refused}
    result = found.result
    if result is None:
        return out
    hidden = card_columns(game)
    keep = [i for i, c in enumerate(result.columns) if c not in hidden]
    merged: dict[tuple, Fraction] = {}
    for row in result.rows:
        key = tuple(_text(row.values[i]) for i in keep)
        merged[key] = merged.get(key, Fraction(0)) + row.probability
    ranked = sorted(merged.items(), key=lambda kv: (-kv[1], kv[0]))
    rest = ranked[MAX_ROWS:]
    out.update({"columns": [result.columns[i] for i in keep], "outcomes": result.enumerated,
                "rows": [_row(list(values), p) for values, p in ranked[:MAX_ROWS]],
                "other": _row([f"{len(rest)} other outcome(s)"], sum((p for _, p in rest), Fraction(0)))
                if rest else None})
    return out


def _row(values: list[str], p: Fraction) -> dict:
    return {"values": values, "probability": f"{p.numerator}/{p.denominator}", "percent": f"{float(p) * 100:.1f}%"}


def _text(value) -> str:
    """A value of an outcome as the page shows it (lists bracketed, none for nothing)."""
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(_text(v) for v in value) + "]"
    if value is None:
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    name = getattr(value, "name", None)
    return name if isinstance(name, str) else str(value)
