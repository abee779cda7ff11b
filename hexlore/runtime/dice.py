"""Dice: a seeded roller whose results tests can force.

Every roll goes through :class:`Roller`. Forced rolls (from a scenario test) are used first,
in order, and each must have exactly as many faces as the rules roll at that moment, so a
test that miscounts fails loudly instead of silently rolling.
"""

from __future__ import annotations

import random
from collections import deque

from ..compiler.model import DieSpec, FaceSpec


class ForcedRollError(Exception):
    pass


class Roller:
    def __init__(self, seed: int, forced: list[list] | None = None):
        self.rng = random.Random(f"hexlore-dice:{seed}")
        self.forced: deque[list] = deque(forced or [])
        self.rolled = 0

    def force(self, rolls: list[list]) -> None:
        self.forced.extend(rolls)

    def roll(self, count: int, die: DieSpec) -> tuple[list[FaceSpec], bool]:
        """Roll ``count`` dice; returns the faces and whether they were forced.

        Rolling no dice is no roll at all: it consumes no forced result.
        """
        if count <= 0:
            return [], False
        self.rolled += 1
        if self.forced:
            wanted = self.forced.popleft()
            if len(wanted) != count:
                raise ForcedRollError(
                    f"forced roll {list(wanted)} has {len(wanted)} dice, but the rules roll "
                    f"{count} '{die.name}' dice here (roll #{self.rolled})")
            faces = []
            for label in wanted:
                face = die.face(str(label))
                if face is None:
                    names = ", ".join(f.name for f in die.faces)
                    raise ForcedRollError(f"'{label}' is not a face of die '{die.name}' (faces: {names})")
                faces.append(face)
            return faces, True
        return [die.faces[self.rng.randrange(len(die.faces))] for _ in range(max(count, 0))], False
