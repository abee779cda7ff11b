"""Diagnostics as people and CI systems read them: text, JSON, GitHub annotations and SARIF.

``hexlore check`` picks one of these formats; each is a pure function of the diagnostics, so
tests compare outputs exactly. The formats, their samples and the exit codes are documented in
``docs/diagnostics.md`` ("Output formats"); the JSON output follows the JSON Schema shipped
next to this module (:func:`json_schema_path`).
"""

from __future__ import annotations

import json
import os
import re
from functools import lru_cache
from pathlib import Path
from typing import IO, Any, Mapping

from .diagnostics import Diagnostic, Severity, Source, dumps_json, json_safe, printable
from .diagnostics.codes import CODES, github_anchor
from .output_formats import REPORT_CHOICES, REPORT_FORMATS

__all__ = ["FORMATS", "choose_format", "use_colour", "render", "render_text", "render_json",
           "render_github", "render_sarif", "text_report", "json_report", "github_report", "sarif_report", "sarif_log", "summary", "exit_code", "json_schema_path",
           "rule_catalogue", "rule_help", "github_anchor"]

#: every ``--format`` choice of ``hexlore check`` (the table: hexlore/output_formats.py)
FORMATS = REPORT_CHOICES

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"

def choose_format(fmt: str, environ: Mapping[str, str] | None = None) -> str:
    """``auto`` is GitHub annotations on GitHub Actions (``GITHUB_ACTIONS=true``), else text."""
    env = os.environ if environ is None else environ
    if fmt == "auto":
        return "github" if env.get("GITHUB_ACTIONS") == "true" else "text"
    return fmt


def use_colour(stream: IO[str], environ: Mapping[str, str] | None = None) -> bool:
    """Colour only for a person at a terminal: never in pipes, files or CI logs, nor with NO_COLOR."""
    env = os.environ if environ is None else environ
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and "NO_COLOR" not in env and env.get("TERM") != "dumb"


def exit_code(diagnostics: list[Diagnostic], strict: bool = False) -> int:
    """1 when an error (or, with ``strict``, a warning) was found, else 0."""
    failing = any(d.is_error or (strict and d.severity is Severity.WARNING) for d in diagnostics)
    return 1 if failing else 0


def summary(diagnostics: list[Diagnostic]) -> str:
    errors = sum(d.severity is Severity.ERROR for d in diagnostics)
    warnings = sum(d.severity is Severity.WARNING for d in diagnostics)
    return f"{errors} error(s), {warnings} warning(s)"


def render(diagnostics: list[Diagnostic], sources: Mapping[str, Source], fmt: str,
           colour: bool = False, root: Path | None = None) -> str:
    """The whole report in format ``fmt`` (not ``auto``: see :func:`choose_format`), by the
    renderer the table of formats names for it (hexlore/output_formats.py)."""
    if fmt not in REPORT_FORMATS:
        raise ValueError(f"no report format {fmt!r}: one of {', '.join(REPORT_FORMATS)}")
    return REPORT_FORMATS[fmt].renderer()(diagnostics, sources, colour, root)


# The renderers the table names, each called alike; each format uses what it needs.


def text_report(diagnostics: list[Diagnostic], sources: Mapping[str, Source], colour: bool,
                root: Path | None) -> str:
    return render_text(diagnostics, sources, colour)


def json_report(diagnostics: list[Diagnostic], sources: Mapping[str, Source], colour: bool,
                root: Path | None) -> str:
    return render_json(diagnostics)


def github_report(diagnostics: list[Diagnostic], sources: Mapping[str, Source], colour: bool,
                  root: Path | None) -> str:
    return render_github(diagnostics, root)


def sarif_report(diagnostics: list[Diagnostic], sources: Mapping[str, Source], colour: bool,
                 root: Path | None) -> str:
    return render_sarif(diagnostics, root)


# ---------------------------------------------------------------------------
# text and JSON
# ---------------------------------------------------------------------------


def render_text(diagnostics: list[Diagnostic], sources: Mapping[str, Source], colour: bool = False) -> str:
    """gcc style: ``file:line:col: severity[CODE]: message``, the source line, a caret, the help."""
    return "\n".join(d.render(sources.get(d.file), colour=colour) for d in diagnostics)


def render_json(diagnostics: list[Diagnostic]) -> str:
    """``{"version": 1, "diagnostics": [...]}``; the shape is fixed by :func:`json_schema_path`."""
    return dumps_json(diagnostics)


def json_schema_path() -> Path:
    """The JSON Schema of ``--format json`` (shipped in the wheel next to this module)."""
    return Path(__file__).resolve().parent / "diagnostics.schema.json"


# ---------------------------------------------------------------------------
# GitHub workflow commands
# ---------------------------------------------------------------------------


def _relative(file: str, root: Path | None) -> str:
    """A path as CI tools want it: relative to the checkout (the working directory), with '/'."""
    base = (root or Path.cwd()).resolve()
    path = Path(file)
    if path.is_absolute():
        try:
            path = path.resolve().relative_to(base)
        except ValueError:
            return path.as_posix()
    return path.as_posix()


def _escape_data(text: str) -> str:
    """Workflow-command data: '%', CR and LF as GitHub wants them, other controls as escapes."""
    return printable(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(diagnostics: list[Diagnostic], root: Path | None = None) -> str:
    """One ``::error file=…,line=…,col=…,title=CODE::message`` workflow command per diagnostic."""
    lines = []
    for d in diagnostics:
        kind = {"error": "error", "warning": "warning", "note": "notice"}[d.severity.value]
        message = d.message + (f" (help: {d.hint})" if d.hint else "")
        lines.append(f"::{kind} file={_escape_property(_relative(d.file, root))},line={d.span.line},"
                     f"col={d.span.column},title={_escape_property(d.code)}::{_escape_data(message)}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# SARIF 2.1.0
# ---------------------------------------------------------------------------


def _docs_file() -> Path | None:
    here = Path(__file__).resolve().parent
    for candidate in (here / "docs" / "diagnostics.md", here.parent / "docs" / "diagnostics.md"):
        if candidate.is_file():
            return candidate
    return None


_HEADING = re.compile(r"^###[ \t]+(([PCWNSRO]\d{3})\b[^\n]*?)[ \t]*$", re.MULTILINE)


def _section_end(text: str, start: int) -> int:
    """Where the section starting at ``start`` ends: the next heading outside a code block."""
    fenced = False
    position = start
    for line in text[start:].splitlines(keepends=True):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(r"#{1,6}[ \t]", line):
            return position
        position += len(line)
    return len(text)


@lru_cache(maxsize=1)
def _sections() -> dict[str, str]:
    """Code -> the Markdown of its ``### CODE — title`` section of docs/diagnostics.md, up to
    the next heading (its title and anchor come from the registry: :func:`rule_catalogue`)."""
    docs = _docs_file()
    if docs is None:
        return {}
    text = docs.read_text(encoding="utf-8")
    out: dict[str, str] = {}
    for m in _HEADING.finditer(text):
        out.setdefault(m.group(2), text[m.end():_section_end(text, m.end())].strip())
    return out


def rule_catalogue() -> dict[str, tuple[str, str]]:
    """Code -> (title, anchor in docs/diagnostics.md), from the registry of codes."""
    return {code: (entry.summary, entry.anchor) for code, entry in CODES.items()}


def _paragraphs(markdown: str) -> list[str]:
    """The prose paragraphs of a section, each on one line (code blocks left out)."""
    prose = re.sub(r"^```.*?^```[ \t]*$", "", markdown, flags=re.MULTILINE | re.DOTALL)
    return [" ".join(p.split()) for p in re.split(r"\n[ \t]*\n", prose) if p.strip()]


def rule_help(code: str) -> tuple[str, str, str]:
    """(description, plain-text help, Markdown help) of a code, from its section of
    docs/diagnostics.md: what the problem is, an example, the message and the fix. SARIF rules
    carry them, so a viewer shows the help without a link to follow."""
    body = _sections().get(code, "")
    paragraphs = _paragraphs(body)
    if not paragraphs:
        return "", "", ""
    plain = [p.replace("**", "") for p in paragraphs]  # **Fix**: bold means nothing in plain text
    return plain[0], "\n\n".join(plain), body


def _rule(code: str) -> dict:
    entry = CODES.get(code)
    family = entry.family.kind if entry else "diagnostic"
    level = entry.severity.value if entry else "error"
    title = entry.summary if entry else ""
    short = title[:1].upper() + title[1:] if title else f"{family[:1].upper()}{family[1:]} {code}"
    description, text, markdown = rule_help(code)
    rule: dict[str, Any] = {
        "id": code,
        "name": "".join(w.capitalize() for w in re.findall(r"[A-Za-z0-9]+", short)) or code,
        "shortDescription": {"text": short},
        "fullDescription": {"text": description or f"{short}: a {family}."},
        "help": {"text": text or f"{short}: a {family}."},
        "defaultConfiguration": {"level": level},
        "properties": {"tags": ["hexlore", family]},
    }
    if markdown:
        rule["help"]["markdown"] = markdown
    return rule


def _region(d: Diagnostic) -> dict:
    s = d.span
    end_line, end_column = s.end_line, s.end_column
    if (end_line, end_column) <= (s.line, s.column):  # an empty span: mark one character
        end_line, end_column = s.line, s.column + 1
    return {"startLine": s.line, "startColumn": s.column, "endLine": end_line, "endColumn": end_column}


def _artifact(file: str, root: Path | None) -> dict:
    uri = _relative(file, root)
    if Path(uri).is_absolute():
        return {"uri": Path(uri).as_uri()}
    return {"uri": uri, "uriBaseId": "%SRCROOT%"}


def sarif_log(diagnostics: list[Diagnostic], root: Path | None = None) -> dict:
    """A SARIF 2.1.0 log with one run: the rules used and one result per diagnostic.

    Paths are relative to ``root`` (default: the working directory, which in CI is the
    checkout), so GitHub code scanning places each result on its line.
    """
    from . import __version__

    codes = sorted({d.code for d in diagnostics})
    index = {code: i for i, code in enumerate(codes)}
    results = []
    for d in diagnostics:
        message = d.message + (f" (help: {d.hint})" if d.hint else "")
        results.append({
            "ruleId": d.code,
            "ruleIndex": index[d.code],
            "level": d.severity.value,
            "message": {"text": message},
            "locations": [{"physicalLocation": {"artifactLocation": _artifact(d.file, root),
                                                "region": _region(d)}}],
        })
    base = (root or Path.cwd()).resolve().as_uri() + "/"
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "hexlore", "version": __version__, "semanticVersion": __version__,
                                "rules": [_rule(c) for c in codes]}},
            "originalUriBaseIds": {"%SRCROOT%": {"uri": base}},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }


def render_sarif(diagnostics: list[Diagnostic], root: Path | None = None) -> str:
    return json_safe(json.dumps(sarif_log(diagnostics, root), indent=2, ensure_ascii=False))
