"""Hostile page contents for the fuzz tests (issue 30, item 2): a seed names a recording of a real
game with every text the page shows replaced by pieces of hostile markup.

What a page shows that a file or a game can set: the scenario's name (the title), unit ids,
types and sides, look marks, event names and arguments, die faces, decisions and the options
they offered, and the rule and file each entry came from. :func:`hostile_recording` replaces
all of them, mixing the fragments below (the page's old placeholders, Jinja2 syntax, closing
tags, comment openers, quotes, lone surrogates, separators, controls) with random characters.
tests/hostile_page.py's ``inert_page`` says whether the page built from it is inert.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace

from hostile_page import HOSTILE

FRAGMENTS = HOSTILE + [
    "<", ">", "&", "'", '"', "`", "=", "</", "<!--", "-->", "--!>", "<script", "</script", "</SCRIPT ", "</style",
    "<![CDATA[", "]]>", "{{", "}}", "{%", "%}", "{#", "#}", "@TITLE@", "@DATA@", "@SCRIPT@", "@CSS@", "@BOARD@",
    "\u2028", "\u2029", "\ud800", "\udfff", "\ud83d", "\ude00", "\x00", "\x1b[31m", "\u202e", "\ufeff", "\ufffe",
    "é", "\U0001f600", "javascript:window.pwned=1", " onerror=window.pwned=1 ", "\\", "\\u003c", "</title>",
    "<h1>", "<math><mi>x</mi></math>", "<template>", "<noscript>", "<iframe srcdoc='x'>",
]


def hostile_text(rng: random.Random) -> str:
    """One to five fragments, with now and then a few random code points between them."""
    parts = []
    for _ in range(rng.randint(1, 5)):
        parts.append(rng.choice(FRAGMENTS))
        if rng.random() < 0.3:
            parts.append("".join(chr(rng.randint(0, 0x10FFFF)) for _ in range(rng.randint(1, 3))))
    return "".join(parts)


def _entry(k: int, rng: random.Random) -> dict:
    text = lambda: hostile_text(rng)  # noqa: E731
    kind = rng.choice(["event", "roll", "decision", "end"])
    entry = {"round": 1, "seq": k + 1, "turn": 0, "type": kind}
    if kind == "event":
        entry.update(event=text(), args={text(): text(), text(): [text(), rng.randint(-9, 9)]})
    elif kind == "roll":
        entry.update(die=text(), faces=[text() for _ in range(rng.randint(1, 3))])
    elif kind == "decision":
        entry.update(by=text(), decision=text(), choice=text(), options=rng.randint(1, 4))
    else:
        entry.update(winner=text(), reason=text())
    return entry


def hostile_recording(base, rng: random.Random):
    """(recording, where): ``base`` (a Recording) with every text hostile; the positions kept."""
    units = [{**u, "id": hostile_text(rng), "type": hostile_text(rng), "side": hostile_text(rng)}
             for u in base.units]
    lines = [json.dumps(_entry(k, rng), ensure_ascii=False) + "\n" for k in range(len(base.lines))]
    offered = {k: [hostile_text(rng) for _ in range(rng.randint(1, 3))] for k in range(len(base.lines))
               if rng.random() < 0.3}
    where = [[hostile_text(rng), hostile_text(rng), rng.randint(1, 99)] if rng.random() < 0.7 else None
             for _ in base.lines]
    return replace(base, title=hostile_text(rng), units=units, lines=lines, offered=offered), where


def hostile_look(look, recording, rng: random.Random):
    """``look`` with a hostile mark (four characters at most, as look.yaml allows) for each
    unit type of ``recording``."""
    return replace(look, marks={u["type"]: hostile_text(rng)[:4] for u in recording.units})
