"""The messages between a play page and the server, and the checks every incoming one passes.

JSON objects with a version field ``v`` (:data:`VERSION`). A page sends::

    {"v": 1, "type": "answer", "seq": 12, "option": 3}   # option 3 of the decision after 12 answers
    {"v": 1, "type": "undo", "seq": 12}                   # back to this seat's previous decision
    {"v": 1, "type": "odds", "seq": 12, "option": 3}     # what option 3 leads to, before choosing it
    {"v": 1, "type": "edit", "seq": 12, "edit": {"kind": "field", "unit": "u1", "field": "figures", "value": 2}}
    {"v": 1, "type": "save_test", "seq": 12, "name": "weak archers"}  # designer mode only

and receives ``{"v": 1, "type": "state", ...}`` (the view of the game, after every change),
``{"v": 1, "type": "odds", ...}`` (to the page that asked only: :func:`odds`) or
``{"v": 1, "type": "error", "message": "..."}`` (its message refused, and why: nothing changed).
A message is refused before it reaches the game when it is too large, not JSON, not an object
of a known type, or its numbers are not plain integers; the server then checks it against the
decision actually pending (:func:`check_answer`): the game's sequence number, the side whose
turn it is and the seat's sides, and the option index in range.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

VERSION = 1
#: the largest frame a page may send (an answer is some 60 bytes)
MAX_MESSAGE = 4096
#: messages a socket may send while the game stands still (one decision): past it, a flood
MAX_MESSAGES_PER_STEP = 40
KINDS = ("answer", "undo", "odds", "edit", "save_test")
#: a designer's edits per game (each is replayed at every rebuild)
MAX_EDITS = 500
#: the longest test name, unit id, field name or face list text a page may send
MAX_TEXT = 80


class Refused(Exception):
    """A message the server will not act on; its text is sent back to the page."""


@dataclass(frozen=True)
class Message:
    kind: str
    seq: int
    option: int | None = None
    #: a designer's edit, its scalars checked here (the engine checks them against the game)
    edit: dict | None = None
    name: str = ""


def parse(text: str | bytes | None) -> Message:
    """A page's message, or :class:`Refused` saying what is wrong with it."""
    if text is None:
        raise Refused("send messages as JSON text")
    if len(text) > MAX_MESSAGE:
        raise Refused(f"message too large ({len(text):,} bytes; at most {MAX_MESSAGE:,})")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise Refused("message is not JSON: send an object such as "
                      '{"v": 1, "type": "answer", "seq": 0, "option": 0}') from None
    if not isinstance(data, dict):
        raise Refused("message must be a JSON object with 'v', 'type' and 'seq'")
    if data.get("v") != VERSION:
        raise Refused(f"unknown protocol version {str(data.get('v'))[:20]!r}: this server speaks v{VERSION}; "
                      "reload the page")
    kind = data.get("type")
    if kind not in KINDS:
        raise Refused(f"unknown message type {str(kind)[:40]!r}: expected one of {', '.join(KINDS)}")
    seq = _integer(data, "seq")
    if kind in ("answer", "odds"):
        return Message(kind, seq, _integer(data, "option"))
    if kind == "edit":
        return Message(kind, seq, edit=_edit(data.get("edit")))
    if kind == "save_test":
        name = data.get("name")
        if not isinstance(name, str) or not 0 < len(name) <= MAX_TEXT or not name.isprintable():
            raise Refused(f"'name' must be a test name of 1 to {MAX_TEXT} printable characters")
        return Message(kind, seq, name=name)
    return Message(kind, seq)


def _edit(edit) -> dict:
    """A designer's edit with plain values only: names as short text, a value a scalar or a short
    list of scalars (what the field takes is the engine's to check)."""
    shapes = {"field": ("unit", "field", "value"), "move": ("unit", "hex"), "dice": ("faces",)}
    if not isinstance(edit, dict) or edit.get("kind") not in shapes:
        raise Refused("'edit' must be an object with 'kind': one of " + ", ".join(shapes))
    keys = shapes[edit["kind"]]
    if set(edit) - {"kind", *keys}:
        raise Refused(f"a '{edit['kind']}' edit has only: {', '.join(keys)}")
    for key in keys:
        value = edit.get(key)
        items = value if key in ("value", "faces") and isinstance(value, list) else [value]
        if len(items) > 20 or not all(_plain(v, key) for v in items):
            raise Refused(f"'{key}' of an edit must be " + ("a number, text, true/false or a short list of them"
                                                            if key in ("value", "faces") else "a short name"))
    return {"kind": edit["kind"], **{k: edit.get(k) for k in keys}}


def _plain(value, key: str) -> bool:
    if key == "hex" and value is None:
        return True  # set aside
    if key == "value" and (value is None or type(value) in (bool, int)):
        return value is None or type(value) is bool or abs(value) < 1_000_000_000
    return isinstance(value, str) and 0 < len(value) <= MAX_TEXT


def _integer(data: dict, key: str) -> int:
    value = data.get(key)
    if type(value) is not int or not 0 <= value < 1_000_000_000:
        raise Refused(f"'{key}' must be a whole number from 0, got {str(value)[:40]!r}")
    return value


def check_answer(message: Message, seq: int, side: str | None, sides: tuple[str, ...], count: int,
                 busy: bool) -> None:
    """Refuse an answer (or a question of odds) that is not for the decision pending now, by
    this seat, in range."""
    if side is None:
        raise Refused("no decision is waiting for a person" + (": a player is thinking" if busy else ""))
    if message.seq != seq:
        what = "question" if message.kind == "odds" else "answer"
        raise Refused(f"this {what} is for an old position (move {message.seq}; the game is at move {seq}): "
                      "the page shows the current decision now")
    if side not in sides:
        raise Refused(f"it is {side}'s decision, and this seat plays " +
                      (", ".join(sides) if sides else "no side (a spectator's link)"))
    if not 0 <= (message.option or 0) < count:
        raise Refused(f"option {message.option} is out of range: this decision has options 0 to {count - 1}")


def state(view: dict) -> str:
    return json.dumps({"v": VERSION, "type": "state", **view}, separators=(",", ":"))


def odds(seq: int, table: dict) -> str:
    """The odds of one option (hexlore/serve/odds.py's table), for the decision after ``seq`` answers."""
    return json.dumps({"v": VERSION, "type": "odds", "seq": seq, **table}, separators=(",", ":"))


def position_test(seq: int, saved: dict) -> str:
    """A scenario test of the position (its YAML, or why not), for the asking page to download."""
    return json.dumps({"v": VERSION, "type": "position_test", "seq": seq, **saved}, separators=(",", ":"))


def error(message: str) -> str:
    return json.dumps({"v": VERSION, "type": "error", "message": message}, separators=(",", ":"))
