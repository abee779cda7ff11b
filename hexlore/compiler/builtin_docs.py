"""The reference's table of built-ins and the editor grammar's list of them, from the records.

The records of :mod:`hexlore.compiler.builtins` are the one place a built-in is described;
the table of docs/language.md (section "Built-in functions") and the names the VS Code
grammar highlights (editors/vscode/syntaxes/lore.tmLanguage.json) are generated from them,
so that adding a built-in touches its record only. tests/test_builtin_records.py
regenerates both and fails if the committed files differ::

    python -m hexlore.compiler.builtin_docs --write   # after changing a record
    python -m hexlore.compiler.builtin_docs --check   # exit 1 if a file is out of date
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from ..dsl import generated_files
from .builtins import BUILTINS, Builtin
from .model import Symbol
from .types import Type

ROOT = Path(__file__).resolve().parents[2]
LANGUAGE = Path("docs") / "language.md"
GRAMMAR = Path("editors") / "vscode" / "syntaxes" / "lore.tmLanguage.json"

BEGIN = "<!-- built-ins: generated from hexlore/compiler/builtins.py by python -m hexlore.compiler.builtin_docs --write -->"
END = "<!-- end of the generated built-ins -->"
#: the grammar's rule for built-in names, up to its pattern (kept as the file writes it)
_GRAMMAR_RULE = re.compile(r'("builtin": \{\s*"name": "support\.function\.builtin\.lore",\s*"match": )"(?:[^"\\]|\\.)*"')


def type_text(t: Type) -> str:
    """A type as the reference writes it: a list of anything is a list, an enum its name."""
    if t.name == "list":
        return "list" if t.item is None or t.item.name == "any" else f"list of {type_text(t.item)}"
    text = t.name[5:] if t.name.startswith("enum:") else t.name
    return text + ("?" if t.optional else "")


def _default_text(value: object) -> str:
    if value is None:
        return "none"
    return value.name if isinstance(value, Symbol) else str(value)


def signature(b: Builtin) -> str:
    """``move_options(unit: unit, budget: int, cost: fn = none, …)``: a built-in as Lore calls it."""
    params = []
    for name, t in b.params:
        text = name if t.name == "any" else f"{name}: {type_text(t)}"
        has, value = b.default(name)
        params.append(text + (f" = {_default_text(value)}" if has else ""))
    return f"{b.name}({', '.join(params)}{', …' if b.variadic else ''})"


def returns_text(b: Builtin) -> str:
    """What the reference's "returns" column says."""
    if b.returns is None:
        return "—"
    if b.returns_item_of_first:
        return "item?"
    return type_text(b.returns)


def row(b: Builtin) -> str:
    """The built-in's row of the reference's table."""
    return f"| `{signature(b)}` | {returns_text(b)} | {b.effect} | {b.doc} |"


def hover(b: Builtin) -> str:
    """The built-in's documentation for an editor: its row, as Markdown."""
    return f"`{signature(b)}` → {returns_text(b)} ({b.effect})\n\n{b.doc}"


def table() -> str:
    """The reference's table of every built-in, between its markers."""
    lines = [BEGIN, "", "| built-in | returns | kind | what it does |", "|---|---|---|---|"]
    lines += [row(b) for b in BUILTINS.values()]
    return "\n".join(lines + ["", END])


def grammar_pattern() -> str:
    """The grammar's pattern of built-in names: longest first, so that no name stops at a
    shorter one it begins with."""
    names = sorted(BUILTINS, key=lambda n: (-len(n), n))
    return r"\b(" + "|".join(names) + r")\b(?=\s*\()"


def regenerated(root: Path = ROOT) -> dict[Path, str]:
    """Path (relative to ``root``) -> its text with the generated parts as the records say."""
    language = (root / LANGUAGE).read_text(encoding="utf-8")
    start, end = language.find(BEGIN), language.find(END)
    if start < 0 or end < start:
        raise ValueError(f"{LANGUAGE}: the markers of the generated table of built-ins are missing")
    grammar = (root / GRAMMAR).read_text(encoding="utf-8")
    found = _GRAMMAR_RULE.search(grammar)
    if found is None:
        raise ValueError(f"{GRAMMAR}: the rule 'builtin' (support.function.builtin.lore) is missing")
    pattern = json.dumps(grammar_pattern())
    return {LANGUAGE: language[:start] + table() + language[end + len(END):],
            GRAMMAR: grammar[:found.start()] + found.group(1) + pattern + grammar[found.end():]}


def stale(root: Path = ROOT) -> list[Path]:
    """The generated files whose committed text differs from what the records give."""
    return generated_files.stale(regenerated(root), root)


def main(argv: list[str] | None = None) -> int:
    return generated_files.main("python -m hexlore.compiler.builtin_docs", (__doc__ or "").split("\n")[0], argv,
                                lambda: regenerated(), lambda: stale(), ROOT)


if __name__ == "__main__":
    sys.exit(main())
