"""The documentation of the built-ins a hover shows, from their records.

Each built-in's record (hexlore/compiler/builtins.py) holds the text of its row of the
reference (docs/language.md, generated from the records), which says more than a signature
(what a ``blocks`` function may take, for example); a hover shows that row, installed or not.
"""

from __future__ import annotations

import functools

from ..compiler.builtin_docs import hover
from ..compiler.builtins import BUILTINS


@functools.cache
def documented() -> dict[str, str]:
    """Built-in name -> its row of the reference as Markdown (signature, returns, effect, text)."""
    return {name: hover(b) for name, b in BUILTINS.items()}
