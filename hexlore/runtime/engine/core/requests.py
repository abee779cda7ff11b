"""What resumable rules hand the driver when they stop: a request, or that a frame called or ended.

Kept apart from the driver (:mod:`.resume`) so that the helpers of compiled code, which make
these, and the driver, which answers them, import neither each other.
"""

from __future__ import annotations

from hexlore.compiler import ir


class _Signal:
    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return self.name


#: a frame pushed a callee and waits for its result; a frame ended (its result in context.result)
CALL = _Signal("CALL")
RETURN = _Signal("RETURN")


class Roll:
    """The rules roll ``count`` dice of ``die`` here; answered with the faces."""

    __slots__ = ("count", "die", "origin")

    def __init__(self, count, die, origin: ir.Origin):
        self.count = count
        self.die = die
        self.origin = origin

    def __repr__(self) -> str:
        return f"Roll({self.count} {getattr(self.die, 'name', self.die)})"


class Choice:
    """A side decides here (``choose``, ``ask``, an optional trigger); answered with the option."""

    __slots__ = ("name", "side", "options", "scores", "default", "origin")

    def __init__(self, name: str, side, options: list, scores, default, origin: ir.Origin):
        self.name = name
        self.side = side
        self.options = options
        self.scores = scores
        self.default = default
        self.origin = origin

    def __repr__(self) -> str:
        return f"Choice({self.name}, {len(self.options)} options)"
