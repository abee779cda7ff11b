"""Refuse Lore strings that hold a character no output can hold (C024, C025; issue 30).

A pack's strings (a unit's title, a game's name, a ``require`` message, a text value) reach
the terminal, the event log, ``render``'s SVG and the replay page. Lore's ``\\uXXXX`` escape
can write half of a surrogate pair, which no UTF-8 file can hold (every writer fails after the
game was played), and a string may hold control or bidirectional characters as written
(hexlore/dsl/text_safety.py says which and why). Each string holding one is reported at the
character, or at the escape that makes it; the file is still parsed, so every other problem
is found in the same run.

Nearly every file holds neither an escape ``\\u`` nor a refused character: one search over
the text proves it, and only other files are scanned string by string.
"""

from __future__ import annotations

import re

from ..diagnostics import Diagnostic, Span, codes, error
from .text_safety import REFUSED, Refused


# comments and strings, as the token scan reads them (hexlore/dsl/token_limits.py)
_COMMENT_OR_STRING = re.compile(r'#[^\n]*|"(?:[^"\\\n]|\\.)*"?')
# what a string holds: an escape (as ast_builder._unquote reads them) or one character
_PIECE = re.compile(r"\\(?:u[0-9A-Fa-f]{4}|.)|.", re.DOTALL)
_MAY_REFUSE = re.compile(REFUSED.pattern[:-1] + "]|\\\\u")
_PLAIN_ESCAPES = "ntr\\\""


def _decoded(piece: str) -> str:
    """The character a piece of a string stands for that may be refused: itself, the character
    of a ``\\uXXXX`` escape, the character after the backslash of an unknown escape (kept as
    written); nothing for ``\\n``, ``\\t``, ``\\r``, ``\\\\`` and ``\\"``, which are allowed."""
    if len(piece) == 1:
        return piece
    if piece[1] in _PLAIN_ESCAPES:
        return ""
    if piece[1] == "u" and len(piece) == 6:
        return chr(int(piece[2:], 16))
    return piece[1]


def string_problems(text: str, path: str) -> list[Diagnostic]:
    """C024/C025 for each string literal of a Lore file that holds a refused character."""
    if _MAY_REFUSE.search(text) is None:
        return []
    problems: list[Diagnostic] = []
    line, counted = 1, 0
    for token in _COMMENT_OR_STRING.finditer(text):
        if token.group()[0] == "#":
            continue
        inner = token.group()[1:]
        found = next((p for p in _PIECE.finditer(inner) if REFUSED.match(_decoded(p.group()))), None)
        if found is None:
            continue
        at = token.start() + 1 + found.start()
        line += text.count("\n", counted, at)
        counted = at
        column = at - (text.rfind("\n", 0, at) + 1) + 1
        refused = Refused(found.start(), _decoded(found.group()))
        code = codes.STRING_NOT_UTF8 if not refused.encodable else codes.STRING_CONTROL
        problems.append(error(code, f"a string holds {refused.describe()}", path,
                              Span.at(line, column, len(found.group())),
                              refused.hint("write the character itself: half of a surrogate pair is no character, "
                                           "and a \\uXXXX escape stops at U+FFFF")))
    return problems


__all__ = ["string_problems"]
