"""The documentation of the built-ins, from the table of docs/language.md.

The reference is where a built-in is explained for designers (tests/test_docs.py keeps every
built-in in it); its row says more than the one-line doc of compiler/builtins.py (what a
``blocks`` function may take, for example), so a hover shows the row when docs/language.md
is found: inside the wheel (``hexlore/docs``) or at the top of a source checkout.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

#: ``| `roll(count: int, die: die)` | list of face | random | Roll `count` dice… |``
ROW = re.compile(r"^\|\s*`([a-z_]+)\((.*?)\)`\s*\|\s*(.*?)\s*\|\s*(.*?)\s*\|\s*(.*?)\s*\|\s*$", re.M)


def _reference() -> str:
    here = Path(__file__).resolve().parent.parent
    for candidate in (here / "docs" / "language.md", here.parent / "docs" / "language.md"):
        try:
            return candidate.read_text(encoding="utf-8")
        except OSError:
            continue
    return ""


@functools.cache
def documented() -> dict[str, str]:
    """Built-in name -> its row of the reference as Markdown (signature, returns, effect, text)."""
    found = {}
    for name, params, returns, effect, text in ROW.findall(_reference()):
        found.setdefault(name, f"`{name}({params})` → {returns} ({effect})\n\n{text}")
    return found
