"""One budget for every output: pictures, replay pages, their recordings and sweeps.

A game's own work is bounded by :class:`~hexlore.runtime.engine.core.bounds.Budget` (steps, events,
log bytes), but what is made *from* a game can cost far more than playing it: a replay notes
the whole board before each of 100,000 log entries, a 288-byte scenario asks for a 500x500
board drawn as 71 MB of SVG, ``sweep --games 100000000`` asks for 10^8 records. Each output
therefore counts against a limit of :mod:`hexlore.dsl.limits`, and a refusal says which limit,
the amount, and what to do, as a diagnostic (never a MemoryError, never a partial file):

- ``S127``: a board too large to draw (``check`` warns in advance; ``render``, ``run --html``
  and ``replay`` refuse before playing or writing);
- ``S128``: a replay past its budget (cells compared by the recorder, bytes of the page);
  the game itself plays on and its log is whole;
- ``S129``: a sweep of more games than one sweep plays.

Kept in the runtime so that the scenario checks, the recorder, the drawing and the API share
the same limits and messages.
"""

from __future__ import annotations

from dataclasses import dataclass

from hexlore.diagnostics import Diagnostic, Severity, Span, codes
from hexlore.dsl.limits import MAX_DRAWN_HEXES, MAX_PAGE_BYTES, MAX_REPLAY_CELLS, MAX_SWEEP_GAMES


@dataclass(eq=False)
class OutputTooLarge(Exception):
    """An output refused against its limit: the code, what went over, and what to do."""

    code: str
    message: str
    hint: str

    def __str__(self) -> str:
        return self.message

    def diagnostic(self, file: str, span: Span | None = None, severity: Severity = Severity.ERROR) -> Diagnostic:
        return Diagnostic(severity, self.code, self.message, file, span or Span(), self.hint)


def too_large_to_draw(hexes: int) -> OutputTooLarge | None:
    """Why a board of ``hexes`` hexes is not drawn, or None when it may be."""
    if hexes <= MAX_DRAWN_HEXES:
        return None
    return OutputTooLarge(codes.BOARD_TOO_LARGE_TO_DRAW,
                          f"the board has {hexes:,} hexes, more than a picture or a replay page draws "
                          f"({MAX_DRAWN_HEXES:,})",
                          "the game plays, but 'render', 'run --html' and 'replay' refuse to draw it: use a "
                          "smaller board (at most 100x100) to see it")


def board_problem(scenario, severity: Severity = Severity.WARNING) -> Diagnostic | None:
    """``S127`` at the scenario's ``board:`` when its board is too large to draw: a warning for
    ``check`` (the game still plays), an error for the commands that would draw it."""
    refused = too_large_to_draw(len(scenario.board))
    if refused is None:
        return None
    return refused.diagnostic(scenario.path, scenario.span_of("board"), severity)


def sweep_problem(games: int) -> Diagnostic | None:
    """``S129`` at ``--games`` when a sweep asks for more games than one sweep plays."""
    if games <= MAX_SWEEP_GAMES:
        return None
    return OutputTooLarge(codes.TOO_MANY_GAMES, f"a sweep of {games:,} games is more than one sweep plays "
                          f"({MAX_SWEEP_GAMES:,})",
                          f"sweep at most {MAX_SWEEP_GAMES:,} games at a time; for more, run several sweeps "
                          "with different --seed").diagnostic("--games")


class RecordingBudget:
    """What a replay's recorder may still spend: cells compared (hexes and units looked at
    before each entry) and bytes of page (entries and recorded changes, as JSON).

    Spent as the recording grows, so that a recording too large for its page stops at once
    (the recorder then drops what it holds and only passes the log on) instead of holding
    gigabytes until the page is refused.
    """

    __slots__ = ("cells", "bytes")

    def __init__(self) -> None:
        self.cells = MAX_REPLAY_CELLS
        self.bytes = MAX_PAGE_BYTES

    def compare(self, cells: int, entries: int) -> None:
        self.cells -= cells
        if self.cells < 0:
            raise OutputTooLarge(codes.REPLAY_TOO_LARGE,
                                 f"the replay passed its budget of {MAX_REPLAY_CELLS:,} cells (hexes and units "
                                 f"compared before each log entry) at entry {entries:,}",
                                 "the game and its log are whole; a replay shows a shorter game or a smaller "
                                 "board: play fewer rounds (--max-rounds N) or leave out --html")

    def write(self, size: int) -> None:
        self.bytes -= size
        if self.bytes < 0:
            raise page_too_large(f"more than {MAX_PAGE_BYTES:,}")


def page_too_large(size: int | str) -> OutputTooLarge:
    """``S128`` for a page of ``size`` bytes (a number, or a text such as "more than N")."""
    shown = f"{size:,}" if isinstance(size, int) else size
    return OutputTooLarge(codes.REPLAY_TOO_LARGE,
                          f"the replay page would hold {shown} bytes, more than a page may ({MAX_PAGE_BYTES:,})",
                          "the game and its log are whole; a replay shows a shorter game: play fewer rounds "
                          "(--max-rounds N) or leave out --html")


def check_page(html: str) -> str:
    """``html``, if the page it makes fits :data:`MAX_PAGE_BYTES` (OutputTooLarge if not)."""
    if len(html) * 4 > MAX_PAGE_BYTES:  # only then can its UTF-8 bytes pass the limit
        size = len(html.encode("utf-8", "surrogatepass"))
        if size > MAX_PAGE_BYTES:
            raise page_too_large(size)
    return html


def located(refused: OutputTooLarge, scenario) -> Diagnostic:
    """A refusal as an error in ``scenario``'s file: at its ``board:`` for a board too large to
    draw, at the top for a replay past its budget (no one line of the scenario made it)."""
    span = scenario.span_of("board") if refused.code == codes.BOARD_TOO_LARGE_TO_DRAW else Span()
    return refused.diagnostic(scenario.path, span)
