"""The keywords of Lore, read from the grammar itself so completion never lags behind it."""

from __future__ import annotations

import functools
import re
from pathlib import Path

GRAMMARS = Path(__file__).resolve().parent.parent / "dsl"


@functools.cache
def keywords() -> tuple[str, ...]:
    """Every quoted word of the Lark grammars (``"trigger"``, ``"instead"``…), sorted."""
    words: set[str] = set()
    for grammar in GRAMMARS.glob("*.lark"):
        words |= set(re.findall(r'"([a-z_][a-z0-9_]*)"', grammar.read_text(encoding="utf-8")))
    return tuple(sorted(words))
