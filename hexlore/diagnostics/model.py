"""One diagnostic type for every stage: parser, compiler, scenario loader, runtime.

Every problem hexlore reports is a :class:`Diagnostic` located at a :class:`Span` of a
:class:`Source`, so the CLI can print gcc-style ``file:line:col: error[CODE]: message``
lines with the offending source line and a caret, emit JSON, or GitHub annotations.
Stages never raise on bad input: they collect diagnostics and keep going where they can.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from enum import Enum


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


@dataclass(frozen=True, slots=True)
class Span:
    """A 1-based line/column range; end is exclusive. ``Span()`` means 'whole file'."""

    line: int = 1
    column: int = 1
    end_line: int = 1
    end_column: int = 1

    @staticmethod
    def at(line: int, column: int, length: int = 1) -> "Span":
        return Span(line, column, line, column + max(length, 1))


@dataclass(frozen=True, slots=True)
class Source:
    """The text of one input file, kept so diagnostics can quote the offending line."""

    path: str
    text: str
    #: offsets where each line starts, found on the first quote: a file with N problems is
    #: printed in linear time (finding each line from the top of the file was quadratic)
    _starts: list[int] | None = field(default=None, init=False, repr=False, compare=False)

    def line_text(self, line: int) -> str:
        """Line ``line`` (1-based) as the parser counts lines: split at '\n' only (str.splitlines
        would also split at form feeds, U+2028 and other characters Lark reads as ordinary)."""
        starts = self._starts
        if starts is None:  # built whole, then set: a reader on another thread never sees half
            starts = [0] + [m.end() for m in _NEWLINE.finditer(self.text)]
            object.__setattr__(self, "_starts", starts)
        line = max(line, 1)  # as before: a line before the first quotes the first
        if line > len(starts):
            return ""
        start = starts[line - 1]
        end = starts[line] - 1 if line < len(starts) else len(self.text)
        text = self.text[start:end]
        return text[:-1] if text.endswith("\r") else text


_NEWLINE = re.compile("\n")


@dataclass(frozen=True, slots=True)
class Diagnostic:
    severity: Severity
    code: str
    message: str
    file: str
    span: Span = field(default_factory=Span)
    hint: str | None = None

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def sort_key(self) -> tuple:
        return (self.file, self.span.line, self.span.column, self.code, self.message)

    def headline(self) -> str:
        return (f"{printable(self.file)}:{self.span.line}:{self.span.column}: "
                f"{self.severity.value}[{self.code}]: {printable(self.message)}")

    def render(self, source: Source | None = None, colour: bool = False) -> str:
        """gcc-style text: headline, the source line, a caret under the column, the hint."""
        head = self.headline()
        if colour:
            tint = {"error": "\x1b[1;31m", "warning": "\x1b[1;33m", "note": "\x1b[1;36m"}
            head = head.replace(f"{self.severity.value}[", f"{tint[self.severity.value]}"
                                f"{self.severity.value}\x1b[0m[", 1)
        out = [head]
        text = source.line_text(self.span.line) if source else ""
        if text:
            width = 1
            if self.span.end_line == self.span.line:
                width = max(1, self.span.end_column - self.span.column)
            before, marked = _excerpt(text, self.span.column - 1, width)
            gutter = f"{self.span.line:>5} | "
            out.append(gutter + before + marked)
            pad = "".join(c if c == "\t" else " " for c in before)
            out.append(" " * (len(gutter) - 2) + "| " + pad + "^" + "~" * (max(1, min(len(marked), width)) - 1))
        if self.hint:
            out.append(f"      = help: {printable(self.hint)}")
        return "\n".join(out)

    def to_json(self) -> dict:
        return {
            "severity": self.severity.value, "code": self.code, "message": self.message,
            "file": self.file, "line": self.span.line, "column": self.span.column,
            "end_line": self.span.end_line, "end_column": self.span.end_column,
            "hint": self.hint,
        }


def error(code: str, message: str, file: str, span: Span, hint: str | None = None) -> Diagnostic:
    return Diagnostic(Severity.ERROR, code, message, file, span, hint)


def warning(code: str, message: str, file: str, span: Span, hint: str | None = None) -> Diagnostic:
    return Diagnostic(Severity.WARNING, code, message, file, span, hint)


class DiagnosticError(Exception):
    """Raised by entry points that cannot go on; carries every diagnostic found so far."""

    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = sorted(diagnostics, key=Diagnostic.sort_key)
        super().__init__("\n".join(d.headline() for d in self.diagnostics))


def did_you_mean(name, candidates) -> str | None:
    """The closest candidate by edit distance, if it is close enough to be a likely typo.

    Anything that is not a short string (a number where a name was expected, a megabyte of
    text) has no likely spelling: difflib's time grows with the product of the lengths.
    """
    import difflib

    if not isinstance(name, str) or len(name) > MAX_GUESSED:
        return None
    pool = sorted({c for c in candidates if isinstance(c, str) and len(c) <= MAX_GUESSED})
    matches = difflib.get_close_matches(name, pool, n=1, cutoff=0.6)
    return matches[0] if matches else None


#: names longer than this get no did-you-mean (no bundled name is longer than 40)
MAX_GUESSED = 80

# Characters a terminal acts on rather than shows: C0 controls but tab and newline, DEL, the
# C1 controls (0x9b is CSI on many terminals) and the bidirectional overrides that make text
# read differently from what it is ("Trojan Source"), and lone surrogates, which no UTF-8 output
# can hold (a message quoting one would fail to print; check refuses them: dsl/text_safety.py).
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_UNSAFE_OR_NEWLINE = re.compile(_UNSAFE.pattern[:-1] + "\n]")


def _escape(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str, newlines: bool = False) -> str:
    """``text`` with every character a terminal would act on written as an escape (``\\x1b``).

    File names, messages and source lines come from untrusted files; printed raw, an ESC or
    OSC sequence could retitle the window, hide text or plant a link. Newlines are escaped
    too unless ``newlines`` (a single-line format must stay one line).
    """
    pattern = _UNSAFE if newlines else _UNSAFE_OR_NEWLINE
    return pattern.sub(_escape, text) if pattern.search(text) else text


def json_safe(encoded: str) -> str:
    """JSON text with DEL, C1 and bidi characters written as ``\\uXXXX`` (json escapes only C0).

    Such characters can only stand inside JSON strings, where the escape decodes to the same
    character: readers get the same data, terminals showing the file get no control codes.
    """
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", encoded) if _UNSAFE.search(encoded) else encoded


#: longest source excerpt shown around a diagnostic's column
EXCERPT = 120


def _excerpt(text: str, column: int, width: int) -> tuple[str, str]:
    """The part of a source line before the column and the marked part, escaped and cut to
    about :data:`EXCERPT` characters (a minified or hostile file may have megabyte lines)."""
    start = max(0, column - EXCERPT // 2) if len(text) > EXCERPT else 0
    before = ("…" if start else "") + printable(text[start:column])
    rest = text[column:column + EXCERPT]
    marked = printable(rest) + ("…" if column + EXCERPT < len(text) else "")
    return before, marked


def dumps_json(diagnostics: list[Diagnostic]) -> str:
    items = [d.to_json() for d in sorted(diagnostics, key=Diagnostic.sort_key)]
    return json_safe(json.dumps({"version": 1, "diagnostics": items}, indent=2, ensure_ascii=False))
