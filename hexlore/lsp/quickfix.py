"""Quick fixes from the hints of diagnostics: a did-you-mean replaces the misspelt name, and
a missing ``override`` or ``use`` (or one too many ``override``) is written or removed.

A hint is text meant for people; the fixes read the few forms the compiler writes
(``did you mean 'X'?``, ``add 'use P' at the top of this file``, ``write 'override' before
it``, ``remove 'override'``) and offer nothing for any other.
"""

from __future__ import annotations

import re

from lsprotocol import types

GUESS = re.compile(r"did you mean '([^']+)'\?")
ADD_USE = re.compile(r"add 'use ([\w.]+)' at the top of this file")
QUOTED = re.compile(r"'([A-Za-z_][\w]*)'")


def _edit(uri: str, title: str, diagnostic: types.Diagnostic, edits: list[types.TextEdit]) -> types.CodeAction:
    return types.CodeAction(title=title, kind=types.CodeActionKind.QuickFix, diagnostics=[diagnostic],
                            is_preferred=True, edit=types.WorkspaceEdit(changes={uri: edits}))


def _misspelt(text: str, message: str) -> tuple[int, int] | None:
    """Where in ``text`` (the diagnostic's range) the misspelt name is: the last occurrence of
    a name quoted in the message (``terrain has no field 'impassible'`` over
    ``h.terrain.impassible``), else the whole range when it is one name."""
    for name in reversed(QUOTED.findall(message)):
        found = [m for m in re.finditer(r"[A-Za-z_]\w*", text) if m.group() == name]
        if found:
            return found[-1].start(), found[-1].end()
    if re.fullmatch(r"[A-Za-z_]\w*", text):
        return 0, len(text)
    return None


def fixes(uri: str, lines: list[str], diagnostic: types.Diagnostic) -> list[types.CodeAction]:
    """The quick fixes of one published diagnostic (its ``data`` carries the hint)."""
    data = diagnostic.data if isinstance(diagnostic.data, dict) else {}
    hint, message = data.get("hint") or "", data.get("message") or diagnostic.message
    r = diagnostic.range
    actions = []
    guess = GUESS.search(hint)
    if guess and r.start.line == r.end.line and r.start.line < len(lines):
        text = lines[r.start.line][r.start.character:r.end.character]
        cut = _misspelt(text, message)
        if cut is not None:
            start = types.Position(line=r.start.line, character=r.start.character + cut[0])
            end = types.Position(line=r.start.line, character=r.start.character + cut[1])
            actions.append(_edit(uri, f"Change to '{guess.group(1)}'", diagnostic,
                                 [types.TextEdit(range=types.Range(start=start, end=end), new_text=guess.group(1))]))
    use = ADD_USE.search(hint)
    if use:
        after = max((i for i, t in enumerate(lines) if re.match(r"\s*(pack|use)\s", t)), default=-1) + 1
        at = types.Position(line=after, character=0)
        actions.append(_edit(uri, f"Add 'use {use.group(1)}'", diagnostic,
                             [types.TextEdit(range=types.Range(start=at, end=at), new_text=f"use {use.group(1)}\n")]))
    line = lines[r.start.line] if r.start.line < len(lines) else ""
    if "write 'override' before it" in hint:
        indent = len(line) - len(line.lstrip())
        at = types.Position(line=r.start.line, character=indent)
        actions.append(_edit(uri, "Add 'override'", diagnostic,
                             [types.TextEdit(range=types.Range(start=at, end=at), new_text="override ")]))
    if "remove 'override'" in hint:
        m = re.search(r"\boverride\s+", line)
        if m:
            actions.append(_edit(uri, "Remove 'override'", diagnostic, [types.TextEdit(
                range=types.Range(start=types.Position(line=r.start.line, character=m.start()),
                                  end=types.Position(line=r.start.line, character=m.end())), new_text="")]))
    return actions
