"""Refuse overlong tokens, huge integer literals and runaway nesting before Lark sees the text.

A rule file from a pull request may hold a 1 MB identifier or a 5,000-digit number. Lark
lexes those fine, but later stages would not: Python refuses ``int()`` of more than 4,300
digits, recovery and did-you-mean would spend time proportional to the token's length on
every error. One linear scan (comments, strings and words, each character read once)
finds them first; a file with such a token is reported and not parsed further, because
no sensible rule needs one and every diagnostic after it would be noise. Brackets nested
deeper than any rule needs are refused the same way: Lark would build a tree node per level
and recovery would try to close each one, slowly, only for P009 to drop the declaration.

Nearly every file is fine, and proving it needs no Python loop over the text: every step of
:func:`clearly_fine` runs inside ``str`` and ``re``. Only a file it cannot clear is scanned
token by token, to say where the problems are.
"""

from __future__ import annotations

import re
from itertools import accumulate

from ..diagnostics import Diagnostic, Span, codes, error
from .limits import MAX_INT, MAX_NESTING, MAX_TOKEN_CHARS

_OPENERS, _CLOSERS = "{([", "})]"

#: how many overlong tokens of one file are reported (the scan itself always runs to the end)
MAX_REPORTED = 10

# Each alternative consumes what it matches, so finditer reads every character once.
_SCAN = re.compile(r'#[^\n]*|"(?:[^"\\\n]|\\.)*"?|[A-Za-z0-9_]+')
_DIGITS_OF_MAX = len(str(MAX_INT))


# comments and strings, whose brackets do not count (the same alternatives as _SCAN: a word
# holds no '#', '"' or bracket, so skipping words changes nothing)
_NOT_CODE = re.compile(r'#[^\n]*|"(?:[^"\\\n]|\\.)*"?')
_NOT_BRACKET = re.compile(r"[^{}()\[\]]+")
_DEPTH_STEP = {"{": 1, "(": 1, "[": 1, "}": -1, ")": -1, "]": -1}
# an integer literal beyond MAX_INT has at least as many digits in a row
_LONG_DIGITS = re.compile(f"[0-9]{{{_DIGITS_OF_MAX}}}")


def clearly_fine(text: str) -> bool:
    """True when ``text`` surely holds no overlong token, huge integer or deep nesting.

    No token spans lines, so none is longer than the longest line; a number too large has
    at least as many digits in a row as MAX_INT. Nesting is the running count of brackets
    outside comments and strings, where a '}' at depth 0 is ignored: with S the running sum
    of +1 and -1, that depth is S minus the lowest S so far (if below 0).
    """
    if max(map(len, text.split("\n"))) > MAX_TOKEN_CHARS or _LONG_DIGITS.search(text):
        return False
    brackets = _NOT_BRACKET.sub("", _NOT_CODE.sub("", text))
    if len(brackets) <= MAX_NESTING:
        return True
    sums = list(accumulate(map(_DEPTH_STEP.__getitem__, brackets)))
    lows = accumulate(sums, min, initial=0)
    next(lows)  # the lowest before any bracket is 0; each later one pairs with its sum
    return max(map(int.__sub__, sums, lows)) <= MAX_NESTING


def token_problems(text: str, path: str) -> list[Diagnostic]:
    """Diagnostics for every word or string longer than MAX_TOKEN_CHARS and every integer
    literal beyond MAX_INT (at most :data:`MAX_REPORTED`), and for brackets nested deeper
    than MAX_NESTING."""
    return [] if clearly_fine(text) else scan(text, path)


def scan(text: str, path: str) -> list[Diagnostic]:
    """What :func:`token_problems` finds, token by token: where each problem is."""
    problems: list[Diagnostic] = []
    line, line_start, counted = 1, 0, 0
    depth, gap_start = 0, 0
    for match in _SCAN.finditer(text):
        # the brackets between the previous token and this one (outside comments and strings)
        depth, too_deep = _gap(text, gap_start, match.start(), depth, path)
        if too_deep:
            problems.append(too_deep)
            break
        gap_start = match.end()
        token = match.group()
        if token[0] == "#":
            continue
        number = token.isdigit()
        too_large = number and (len(token) > _DIGITS_OF_MAX
                                or (len(token) == _DIGITS_OF_MAX and int(token) > MAX_INT))
        too_long = not number and len(token) > MAX_TOKEN_CHARS
        if not (too_long or too_large):
            continue
        start = match.start()
        line += text.count("\n", counted, start)
        newline = text.rfind("\n", 0, start)
        line_start = newline + 1
        counted = start
        span = Span.at(line, start - line_start + 1, min(len(token), 80))
        if too_large:
            shown = token if len(token) <= 24 else f"{token[:12]}…{token[-6:]} ({len(token):,} digits)"
            problems.append(error(codes.INTEGER_TOO_LARGE, f"the number {shown} is larger than hexlore allows "
                                  f"({MAX_INT:,})", path, span,
                                  "game values are small: check for a typo, or scale the value down"))
        else:
            kind = "string" if token[0] == '"' else "name"
            problems.append(error(codes.TOKEN_TOO_LONG, f"a {kind} of {len(token):,} characters is longer than "
                                  f"the {MAX_TOKEN_CHARS:,} a Lore file may hold; the rest of the file "
                                  "is not checked", path, span,
                                  "shorten it; long texts belong in several strings or a README"))
        if len(problems) >= MAX_REPORTED:
            break
    else:  # the brackets after the last token count too
        too_deep = _gap(text, gap_start, len(text), depth, path)[1]
        if too_deep:
            problems.append(too_deep)
    return problems


def _gap(text: str, start: int, end: int, depth: int, path: str) -> tuple[int, Diagnostic | None]:
    """Depth after the brackets of text[start:end], and a P009 if they nest too deep."""
    gap = text[start:end]
    if not gap.strip(" \t\r\n"):
        return depth, None
    depth_after, deepest = _nesting(gap, depth)
    if deepest <= MAX_NESTING:
        return depth_after, None
    at = start + _first_too_deep(gap, depth)
    line_no = text.count("\n", 0, at) + 1
    column = at - (text.rfind("\n", 0, at) + 1) + 1
    return depth_after, error(codes.TOO_DEEP, f"brackets nested more than {MAX_NESTING} levels deep; "
                              "the rest of the file is not checked", path, Span.at(line_no, column),
                              "split it up: name parts with 'let', or move them into functions")


def _nesting(gap: str, depth: int) -> tuple[int, int]:
    """Depth after the brackets of ``gap`` and the deepest reached inside it."""
    if not any(c in gap for c in _OPENERS):
        return max(0, depth - sum(gap.count(c) for c in _CLOSERS)), depth
    deepest = depth
    for c in gap:
        if c in _OPENERS:
            depth += 1
            deepest = max(deepest, depth)
        elif c in _CLOSERS:
            depth = max(0, depth - 1)
    return depth, deepest


def _first_too_deep(gap: str, depth_before: int) -> int:
    depth = depth_before
    for i, c in enumerate(gap):
        if c in _OPENERS:
            depth += 1
            if depth > MAX_NESTING:
                return i
        elif c in _CLOSERS:
            depth = max(0, depth - 1)
    return 0


__all__ = ["token_problems"]
