"""hexlore's diagnostics and spans as the protocol's.

hexlore counts lines and columns from 1, in characters (Lark's columns: code points); the
protocol counts from 0, in UTF-16 code units by default. The bundled packs are ASCII where
names are, but titles and comments are not ("Araignée Géante"), so columns are converted
through the line's text where a line holds a character outside the Basic Multilingual Plane.
"""

from __future__ import annotations

from lsprotocol import types

from ..diagnostics import Diagnostic, Severity, Span

SEVERITY = {Severity.ERROR: types.DiagnosticSeverity.Error, Severity.WARNING: types.DiagnosticSeverity.Warning,
            Severity.NOTE: types.DiagnosticSeverity.Information}

#: the ``source`` of every diagnostic the server publishes (editors show it beside the code)
SOURCE = "hexlore"


def _utf16(line: str, column: int) -> int:
    """The UTF-16 offset of 0-based code point ``column`` in ``line``."""
    head = line[:column]
    return column + sum(1 for c in head if ord(c) > 0xFFFF)


def _code_point(line: str, offset: int) -> int:
    """The 0-based code point column of UTF-16 ``offset`` in ``line`` (inverse of :func:`_utf16`)."""
    units = 0
    for i, c in enumerate(line):
        if units >= offset:
            return i
        units += 2 if ord(c) > 0xFFFF else 1
    return len(line)


def position(lines: list[str], line: int, column: int) -> types.Position:
    """A 1-based hexlore (line, column) as a protocol position."""
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    return types.Position(line=max(line - 1, 0), character=_utf16(text, max(column - 1, 0)))


def span_range(span: Span, lines: list[str]) -> types.Range:
    """A span as a range; ``Span()`` (the whole file, or no place) is the first line's start."""
    start = position(lines, span.line, span.column)
    end = position(lines, span.end_line, span.end_column)
    if (end.line, end.character) < (start.line, start.character):
        end = start
    return types.Range(start=start, end=end)


def cursor(lines: list[str], pos: types.Position) -> tuple[int, int]:
    """A protocol position as a 0-based (line, code point column)."""
    text = lines[pos.line] if pos.line < len(lines) else ""
    return pos.line, _code_point(text, pos.character)


def diagnostic(d: Diagnostic, lines: list[str]) -> types.Diagnostic:
    """The protocol's diagnostic: the code, message and range of ``hexlore check``; the hint
    is appended to the message (editors show no separate help line) and kept in ``data``
    for the quick fixes."""
    message = d.message + (f"\nhelp: {d.hint}" if d.hint else "")
    return types.Diagnostic(range=span_range(d.span, lines), message=message, severity=SEVERITY[d.severity],
                            code=d.code, source=SOURCE, data={"hint": d.hint, "message": d.message})
