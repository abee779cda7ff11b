"""One diagnostic type for every stage: parser, compiler, scenario loader, runtime.

Every problem hexlore reports is a :class:`Diagnostic` located at a :class:`Span` of a
:class:`Source`, so the CLI can print gcc-style ``file:line:col: error[CODE]: message``
lines with the offending source line and a caret, emit JSON, or GitHub annotations.
Stages never raise on bad input: they collect diagnostics and keep going where they can.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path


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

    @staticmethod
    def from_file(path: str | Path) -> "Source":
        return Source(str(path), Path(path).read_text(encoding="utf-8"))

    def line_text(self, line: int) -> str:
        lines = self.text.splitlines()
        return lines[line - 1] if 1 <= line <= len(lines) else ""


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
        return (f"{self.file}:{self.span.line}:{self.span.column}: "
                f"{self.severity.value}[{self.code}]: {self.message}")

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
            gutter = f"{self.span.line:>5} | "
            out.append(gutter + text)
            pad = "".join(c if c == "\t" else " " for c in text[: self.span.column - 1])
            out.append(" " * (len(gutter) - 2) + "| " + pad + "^" + "~" * (width - 1))
        if self.hint:
            out.append(f"      = help: {self.hint}")
        return "\n".join(out)

    def to_json(self) -> dict:
        return {
            "severity": self.severity.value, "code": self.code, "message": self.message,
            "file": self.file, "line": self.span.line, "column": self.span.column,
            "end_line": self.span.end_line, "end_column": self.span.end_column,
            "hint": self.hint,
        }

    def to_github(self) -> str:
        kind = {"error": "error", "warning": "warning", "note": "notice"}[self.severity.value]
        msg = self.message + (f" (help: {self.hint})" if self.hint else "")
        msg = msg.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
        return (f"::{kind} file={self.file},line={self.span.line},col={self.span.column},"
                f"title={self.code}::{msg}")


def error(code: str, message: str, file: str, span: Span, hint: str | None = None) -> Diagnostic:
    return Diagnostic(Severity.ERROR, code, message, file, span, hint)


def warning(code: str, message: str, file: str, span: Span, hint: str | None = None) -> Diagnostic:
    return Diagnostic(Severity.WARNING, code, message, file, span, hint)


class DiagnosticError(Exception):
    """Raised by entry points that cannot go on; carries every diagnostic found so far."""

    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = sorted(diagnostics, key=Diagnostic.sort_key)
        super().__init__("\n".join(d.headline() for d in self.diagnostics))


def did_you_mean(name: str, candidates) -> str | None:
    """The closest candidate by edit distance, if it is close enough to be a likely typo."""
    import difflib

    matches = difflib.get_close_matches(name, sorted(set(candidates)), n=1, cutoff=0.6)
    return matches[0] if matches else None


def dumps_json(diagnostics: list[Diagnostic]) -> str:
    items = [d.to_json() for d in sorted(diagnostics, key=Diagnostic.sort_key)]
    return json.dumps({"version": 1, "diagnostics": items}, indent=2, ensure_ascii=False)
