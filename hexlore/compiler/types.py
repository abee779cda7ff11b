"""Static types of Lore values.

Types are deliberately few: scalars (int, bool, text), board things (hex, side, unit),
dice things (die, face), symbols of an enum or the ``tag`` set, definitions of a kind
(terrain, card, a user kind), lists, events and function references. ``any`` switches
checks off where the compiler cannot know better; it never appears in a declaration.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Type:
    name: str
    item: "Type | None" = None
    optional: bool = False

    def __str__(self) -> str:
        text = f"list of {self.item}" if self.name == "list" else self.name
        return text + ("?" if self.optional else "")

    def required(self) -> "Type":
        return Type(self.name, self.item, False) if self.optional else self

    def maybe(self) -> "Type":
        return Type(self.name, self.item, True)


INT = Type("int")
BOOL = Type("bool")
TEXT = Type("text")
NONE = Type("none")
HEX = Type("hex")
SIDE = Type("side")
UNIT = Type("unit")
FACE = Type("face")
DIE = Type("die")
FN = Type("fn")
ANY = Type("any")
GAME = Type("game")


def list_of(item: Type) -> Type:
    return Type("list", item)


POOL = list_of(FACE)



def is_numeric(t: Type) -> bool:
    return t.name in ("int", "face", "any")


def compatible(expected: Type, actual: Type) -> bool:
    """Can a value of ``actual`` be used where ``expected`` is declared?"""
    if expected.name == "any" or actual.name == "any":
        return True
    if actual.name == "none":
        return expected.optional or expected.name == "none"
    if actual.optional and not expected.optional:
        # optional values flow into required slots; a none there is a runtime error with a span
        actual = actual.required()
    if expected.name == "list" and actual.name == "list":
        if actual.item is None or expected.item is None:
            return True
        return compatible(expected.item, actual.item)
    if expected.name == "int" and actual.name == "face":
        return True  # a numeric face is its value
    if expected.name == "tag":
        return actual.name == "tag" or actual.name.startswith("enum:")
    return expected.name == actual.name
