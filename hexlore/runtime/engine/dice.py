"""Dice: a seeded roller whose results tests can force, and exact roll distributions.

Every roll goes through a roller (:class:`Roller` in play; the odds engine injects its own).
Forced rolls (from a scenario test) are used first, in order, and each must have exactly as
many faces as the rules roll at that moment, so a test that miscounts fails loudly instead of
silently rolling.

A pool of dice has no order: random rolls come back in **canonical order** (the order the die
declares its faces), so the rules see the same list for every throw showing the same faces.
That is what lets :mod:`hexlore.runtime.analysis.odds` enumerate a roll as multisets of faces with
multinomial weights instead of as ordered sequences. Forced rolls keep the order the test
wrote, so a test can still state any order it needs.
"""

from __future__ import annotations

import math
import random
from collections import deque
from fractions import Fraction
from functools import lru_cache
from typing import Protocol

from hexlore.compiler.model import DieSpec, FaceSpec


class ForcedRollError(Exception):
    pass


class DiceSource(Protocol):
    """What a game needs from its dice: ``roll`` returns the faces and whether they were forced."""

    def roll(self, count: int, die: DieSpec) -> tuple[list[FaceSpec], bool]: ...


def face_groups(die: DieSpec) -> tuple[tuple[FaceSpec, int], ...]:
    """The distinct faces of a die in declared order, each with how many faces show it.

    Two faces are the same when the rules cannot tell them apart (equal name, value and tags),
    e.g. a die declared with ``face hit`` twice has one group of weight 2.
    """
    return _face_groups(die)


@lru_cache(maxsize=256)
def _face_groups(die: DieSpec) -> tuple[tuple[FaceSpec, int], ...]:
    weights: dict[FaceSpec, int] = {}
    for f in die.faces:
        weights[f] = weights.get(f, 0) + 1
    return tuple(weights.items())


@lru_cache(maxsize=256)
def _rank(die: DieSpec) -> dict[FaceSpec, int]:
    return {face: i for i, (face, _) in enumerate(_face_groups(die))}


#: id(die) -> (die, what _ranked answers): looked up by identity at every roll, as hashing a
#: die (a dataclass holding its faces, each hashed field by field) cost more than the roll
_RANKED: dict[int, tuple[DieSpec, tuple[tuple[int, ...], tuple[FaceSpec, ...]]]] = {}


def _ranked(die: DieSpec) -> tuple[tuple[int, ...], tuple[FaceSpec, ...]]:
    """Per face of the die (by position), its group's rank; per rank, the group's face: a
    random roll is sorted as small ints, with no face hashed."""
    found = _RANKED.get(id(die))
    if found is not None and found[0] is die:
        return found[1]
    rank = _rank(die)
    ranked = tuple(rank[f] for f in die.faces), tuple(f for f, _ in _face_groups(die))
    if len(_RANKED) >= 256:  # the dice of rule sets no longer played (a test process compiles many)
        _RANKED.clear()
    _RANKED[id(die)] = (die, ranked)
    return ranked


def canonical(faces: list[FaceSpec], die: DieSpec) -> list[FaceSpec]:
    """The faces sorted in the die's declared face order (stable for equal faces)."""
    rank = _rank(die)
    return sorted(faces, key=rank.__getitem__)


def multiset_count(count: int, die: DieSpec) -> int:
    """How many distinct multisets ``count`` dice of this die can show: C(n+g-1, g-1)."""
    groups = len(face_groups(die))
    return math.comb(count + groups - 1, groups - 1) if count > 0 else 1


def chances(count: int, die: DieSpec) -> tuple[Fraction, ...]:
    """The chances of :func:`multisets`, in the same order."""
    return _chances(count, die)


@lru_cache(maxsize=1024)
def _chances(count: int, die: DieSpec) -> tuple[Fraction, ...]:
    return tuple(p for _, p in _multisets(count, die))


def multisets(count: int, die: DieSpec) -> tuple[tuple[tuple[FaceSpec, ...], Fraction], ...]:
    """Every distinct outcome of rolling ``count`` dice, in canonical order, with its exact chance.

    The chance of a multiset with ``c_i`` faces of group ``i`` (weight ``w_i`` out of ``W``
    faces) is the multinomial ``n! / prod(c_i!) * prod((w_i / W) ** c_i)``; the chances sum to 1.
    """
    return _multisets(count, die)


@lru_cache(maxsize=1024)
def _multisets(count: int, die: DieSpec) -> tuple[tuple[tuple[FaceSpec, ...], Fraction], ...]:
    groups = face_groups(die)
    total = len(die.faces)
    probs = [Fraction(w, total) for _, w in groups]
    out: list[tuple[tuple[FaceSpec, ...], Fraction]] = []
    counts = [0] * len(groups)
    fact = math.factorial

    def place(i: int, left: int) -> None:
        if i == len(groups) - 1:
            counts[i] = left
            ways = fact(count)
            chance = Fraction(1)
            for c, p in zip(counts, probs):
                ways //= fact(c)
                chance *= p ** c
            faces = tuple(f for (f, _), c in zip(groups, counts) for _ in range(c))
            out.append((faces, ways * chance))
            return
        for c in range(left, -1, -1):
            counts[i] = c
            place(i + 1, left - c)

    place(0, count)  # recursion depth = number of face groups, which the die bounds
    return tuple(out)


class Roller:
    """The game's dice: forced results first, then a seeded random stream in canonical order."""

    def __init__(self, seed: int, forced: list[list] | None = None):
        self.rng = random.Random(f"hexlore-dice:{seed}")
        self.forced: deque[list] = deque(forced or [])
        self.rolled = 0

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
        groups, representatives = _ranked(die)
        rng, n = self.rng, len(die.faces)
        ranks = sorted([groups[below(rng, n)] for _ in range(count)])  # the same draws, in canonical order
        return [representatives[r] for r in ranks], False


def below(rng: random.Random, n: int) -> int:
    """``rng.randrange(n)`` for an int ``n >= 1``, the same draw (what random.Random does for
    it: draws of ``n.bit_length()`` bits until one is below ``n``) in one Python call rather
    than two: every die and every random player's choice is one."""
    if n < 1:
        return rng.randrange(n)  # its error, as before
    getrandbits, bits = rng.getrandbits, n.bit_length()
    r = getrandbits(bits)
    while r >= n:
        r = getrandbits(bits)
    return r
