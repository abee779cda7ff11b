"""Which characters of a name or text ``check`` refuses, because an output could not hold them.

Names and texts of scenarios, packs and looks reach the event log, the terminal, the SVG of
``render`` and the replay page. Two kinds of character must never get that far (issue 30):

* text that cannot be written as UTF-8 at all: a lone surrogate (U+D800-U+DFFF), which a
  YAML ``"\\ud800"`` or a Lore ``"\\ud800"`` escape makes. Python keeps it in a ``str``
  and every writer then fails, after a whole game was played, leaving a 0-byte file;
* characters an output acts on rather than shows: the C0 controls except tab, line feed and
  carriage return (the three XML 1.0 allows, and the escapes ``\\t \\n \\r`` Lore offers),
  DEL and the C1 controls (an ESC or CSI retitles a terminal; XML forbids C0, so an SVG with
  one does not open), the noncharacters U+FFFE and U+FFFF (XML forbids them too), and the
  bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069) that make
  text read differently from what it is ("Trojan Source", CVE-2021-42574).

The marks U+200E, U+200F and U+061C stay allowed: right-to-left names need them and they
reorder nothing beyond themselves. ``check`` refuses the rest in advance with a located
diagnostic (S125/S126 in YAML, C024/C025 in Lore strings) instead of every output escaping
them differently; the outputs still escape what they print (:func:`hexlore.diagnostics.printable`).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

#: every character check refuses, surrogates included (a ``str`` may hold them, UTF-8 may not)
REFUSED = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff]")

_NAMES = {"\x00": "NUL", "\x07": "BEL", "\x08": "BACKSPACE", "\x1b": "ESC", "\x7f": "DEL", "\x9b": "CSI"}


@dataclass(frozen=True)
class Refused:
    """The first refused character of a text: where it is, and whether UTF-8 can hold it."""

    index: int
    char: str

    @property
    def encodable(self) -> bool:
        """False for a lone surrogate (no UTF-8 for it), True for a control character."""
        return not 0xD800 <= ord(self.char) <= 0xDFFF

    def describe(self) -> str:
        """What the character is, for a message: ``the control character U+001B (ESC)``."""
        code = f"U+{ord(self.char):04X}"
        if not self.encodable:
            return f"a lone surrogate {code}, which no UTF-8 file can hold"
        if 0x202A <= ord(self.char) <= 0x2069:
            return f"the bidirectional control {code} ({unicodedata.name(self.char, 'bidi control')})"
        if ord(self.char) in (0xFFFE, 0xFFFF):
            return f"the noncharacter {code}"
        return f"the control character {code}" + (f" ({_NAMES[self.char]})" if self.char in _NAMES else "")

    def hint(self, surrogate_fix: str) -> str:
        """How to fix it; ``surrogate_fix`` says it for a lone surrogate in the file's syntax."""
        if not self.encodable:
            return surrogate_fix
        return "remove it: names and texts are shown in terminals, pictures and pages, which act on it"


def first_refused(text: str) -> Refused | None:
    """The first character of ``text`` that check refuses, or None (one regex search: linear)."""
    match = REFUSED.search(text)
    return Refused(match.start(), match.group()) if match else None


def escaped(text: str) -> str:
    """``text`` with every refused character written as ``\\uXXXX``: safe to quote in a message
    (a message holding a lone surrogate could not be printed either)."""
    return REFUSED.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


__all__ = ["REFUSED", "Refused", "escaped", "first_refused"]
