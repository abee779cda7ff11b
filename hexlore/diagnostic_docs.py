"""The parts of docs/diagnostics.md that the registry of codes says: headings and the index.

:mod:`hexlore.diagnostics.codes` is the one place a code is declared; its ``### CODE — title``
heading in docs/diagnostics.md and the page's index of every code (code, severity, title,
link) are generated from the entries, so a code's title cannot differ between the registry,
the docs and SARIF output. What the generator cannot write stays written by hand: each
section's failing example, message and fix. A code without a section gets one, placed after
the last code of its family, with its heading and a line saying what it still needs.
tests/test_diagnostic_codes.py regenerates the page and fails if the committed file differs::

    python -m hexlore.diagnostic_docs --write   # after adding a code or changing a title
    python -m hexlore.diagnostic_docs --check   # exit 1 if the page is out of date
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from .diagnostics.codes import CODES, Code
from .dsl import generated_files

ROOT = Path(__file__).resolve().parents[1]
DIAGNOSTICS = Path("docs") / "diagnostics.md"

BEGIN = "<!-- codes: generated from hexlore/diagnostics/codes.py by python -m hexlore.diagnostic_docs --write -->"
END = "<!-- end of the generated index of codes -->"
#: what a new code's section says until someone writes its example, message and fix
TO_WRITE = ("To be written: what the problem is, a failing example, the message it gives and "
            "**Fix**.")
_HEADING = re.compile(r"^### ([PCWNSRO]\d{3})\b[^\n]*$", re.MULTILINE)
_ANY_HEADING = re.compile(r"^#{2,3} ", re.MULTILINE)
_FENCE = re.compile(r"^```.*?^```[ \t]*$", re.MULTILINE | re.DOTALL)


def index() -> str:
    """The index of every code, between its markers: a row per code, linked to its section."""
    lines = [BEGIN, "", "| code | severity | title |", "|---|---|---|"]
    lines += [f"| [{c}](#{c.anchor}) | {c.severity.value} | {c.summary} |" for c in CODES.values()]
    return "\n".join(lines + ["", END])


def _outside_code(text: str, pattern: re.Pattern) -> list[re.Match]:
    """The matches of ``pattern`` in the page that are not inside a fenced code block (whose
    lines may start with '#': a shell comment, a Lore file's name)."""
    fenced = [(m.start(), m.end()) for m in _FENCE.finditer(text)]
    return [m for m in pattern.finditer(text) if not any(a <= m.start() < b for a, b in fenced)]


def _headings(text: str) -> list[re.Match]:
    """The ``### CODE`` headings of the page."""
    return _outside_code(text, _HEADING)


def _retitle(text: str) -> str:
    """``text`` with each code's heading as the registry titles it."""
    out, last = [], 0
    for m in _headings(text):
        out += [text[last:m.start()], f"### {CODES[m.group(1)].heading}"]
        last = m.end()
    return "".join(out) + text[last:]


def _family_end(text: str, code: Code) -> int:
    """Where a new section of ``code`` goes: after the last section of its family, else at the
    end of its family's part of the page (before the next ``##`` heading)."""
    same = [m for m in _headings(text) if m.group(1)[0] == code[0]]
    start = same[-1].end() if same else text.find(f"## {code.family.section}")
    if start < 0:
        raise ValueError(f"{DIAGNOSTICS}: no section '## {code.family.section}' for {code}")
    following = [m.start() for m in _outside_code(text, _ANY_HEADING) if m.start() > start]
    return following[0] if following else len(text)


def _with_missing_sections(text: str) -> str:
    """``text`` with a section for every registered code that has none."""
    present = {m.group(1) for m in _headings(text)}
    for code in CODES.values():
        if code not in present:
            at = _family_end(text, code)
            text = text[:at].rstrip("\n") + f"\n\n### {code.heading}\n\n{TO_WRITE}\n\n" + text[at:]
    return text


def regenerated(root: Path = ROOT) -> dict[Path, str]:
    """Path (relative to ``root``) -> its text with the generated parts as the registry says."""
    text = (root / DIAGNOSTICS).read_text(encoding="utf-8")
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise ValueError(f"{DIAGNOSTICS}: the markers of the generated index of codes are missing")
    text = text[:start] + index() + text[end + len(END):]
    return {DIAGNOSTICS: _with_missing_sections(_retitle(_check_known(text)))}


def _check_known(text: str) -> str:
    """``text``, if each of its code sections is of a registered code and no code has two; the
    generator cannot tell which of two sections, or which code a stray one meant."""
    found = [m.group(1) for m in _headings(text)]
    twice = sorted({c for c in found if found.count(c) > 1})
    if twice:
        raise ValueError(f"{DIAGNOSTICS}: codes with two sections: {', '.join(twice)} (keep one)")
    unknown = [c for c in found if c not in CODES]
    if unknown:
        raise ValueError(f"{DIAGNOSTICS}: sections for codes the registry lacks: {', '.join(unknown)} "
                         "(add them to hexlore/diagnostics/codes.py or remove the sections)")
    return text


def stale(root: Path = ROOT) -> list[Path]:
    """The generated files whose committed text differs from what the registry give."""
    return generated_files.stale(regenerated(root), root)


def main(argv: list[str] | None = None) -> int:
    return generated_files.main("python -m hexlore.diagnostic_docs", (__doc__ or "").split("\n")[0], argv,
                                lambda: regenerated(), lambda: stale(), ROOT)


if __name__ == "__main__":
    sys.exit(main())
