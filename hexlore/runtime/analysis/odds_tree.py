"""Exact odds by forking the game at each chance point (issue 14).

The action runs in the resumable form of the rules (:mod:`hexlore.runtime.engine.resume`)
until a roll or a random player's decision. There the game is forked; each outcome is
answered in turn, from the state reached, the game put back between two (the state's
journal, the frames copied); what follows an outcome runs on to the next chance point or the
end of the action, whose outcome (the question's columns) weighs the product of the chances
on its way. Nothing is replayed from the start.

Equal configurations are merged: at each chance point the game's configuration (the frames
with their locals, what the action changed in the state, the events the question reads) is
fingerprinted, and a configuration met again by other outcomes answers with the
distribution found the first time — its chances add, and the rules below it run once.

A roll of ``n`` dice branches over the multisets of faces with multinomial weights (rules
see pools in canonical order, :mod:`hexlore.runtime.engine.dice`).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable

from hexlore.compiler.model import FaceSpec
from hexlore.runtime.engine.bounds import GameOver
from hexlore.runtime.engine.dice import chances, multiset_count, multisets
from hexlore.runtime.engine.game import Game
from hexlore.runtime.engine.policies import Decision, Policy
from hexlore.runtime.engine.requests import CALL, RETURN, Choice, Roll
from hexlore.runtime.engine.resume import answer, drive, fork, restore, roll, start_call
from hexlore.runtime.engine.snapshot import copy_value
from hexlore.runtime.engine.state import EventRecord


class TooManyOutcomes(Exception):
    """The enumeration would exceed its budget of branches."""


class _Answered(Policy):
    """A random side during enumeration: the option the tree is exploring."""

    name = "random"

    def __init__(self) -> None:
        self.index = 0

    def choose(self, decision: Decision) -> int:
        return self.index


class _Dealt:
    """The dice during enumeration: the multiset the tree is exploring."""

    def __init__(self) -> None:
        self.faces: list = []

    def roll(self, count: int, die) -> tuple[list, bool]:
        return list(self.faces), False


def actions_frame(context, frame, x):
    """The question's actions in order, as a frame: ``[actions_frame, next, calls]``; the
    actions stop when the game is over, as a scenario test's do: list does."""
    game = context.game
    calls = frame[2]
    while True:
        step = frame[1]
        if step >= len(calls) or game.state.over:
            context.result = None
            return RETURN
        frame[1] = step + 1
        name, args = calls[step]
        if start_call(game, name, copy_value(args)):
            return CALL


class Tree:
    """The exploration of one question on a game set up for it (its ``given`` applied)."""

    def __init__(self, game: Game, calls: list, outcome: Callable[[Game], tuple], random_sides: set[str],
                 event_names: set[str], budget: int):
        self.game = game
        self.calls = calls
        self.outcome = outcome
        self.random_sides = random_sides
        self.event_names = event_names  # events the outcome reads: part of a configuration
        self.budget = budget
        self.branches = 0  # outcomes answered at chance points
        self.ends = 0  # runs that reached the end of the actions
        self.merged = 0  # chance points answered from an equal configuration met before
        self.known: dict[tuple, dict] = {}
        self.dealt = _Dealt()
        self.chosen = _Answered()
        self.base = game.state.mark()

    # ------------------------------------------------------------ the walk
    def run(self) -> dict[tuple, Fraction]:
        game = self.game
        game.roller = self.dealt
        for side in self.random_sides:
            game.policies[side] = self.chosen
        game.context.stack[:] = [[actions_frame, 0, self.calls]]
        return self._on(None)

    def _on(self, x) -> dict[tuple, Fraction]:
        """Run from here (the top frame resumed with ``x``) to the next chance point or the end."""
        try:
            stopped = drive(self.game, x, ask=self._stop)
        except GameOver:
            stopped = None
        if stopped is None or stopped.__class__ not in (Roll, Choice):
            self.ends += 1
            self.game.context.stack.clear()
            return {self.outcome(self.game): Fraction(1)}
        return self._branch(stopped)

    def _stop(self, request):
        """Stop at a chance point (a roll, a random side's choice among several options);
        answer anything else as the game would."""
        game = self.game
        if request.__class__ is Roll:
            if int(request.count) > 0 and request.die is not None:
                return request
        elif len(request.options) > 1 and request.side is not None and \
                getattr(request.side, "name", None) in self.random_sides and not game.script.answers.get(request.name):
            return request
        return answer(game, request)

    def _branch(self, request) -> dict[tuple, Fraction]:
        key = self._configuration(request)
        known = self.known.get(key)
        if known is not None:
            self.merged += 1
            return known
        game = self.game
        point = fork(game)
        found: dict[tuple, Fraction] = {}
        for i, (apply, chance) in enumerate(self._outcomes(request)):
            if i:
                restore(game, point)
            for value, p in self._on(apply()).items():
                found[value] = found.get(value, Fraction(0)) + chance * p
        self.known[key] = found
        return found

    def _outcomes(self, request) -> list[tuple[Callable[[], object], Fraction]]:
        game = self.game
        if request.__class__ is Roll:
            count, die = int(request.count), request.die
            if multiset_count(count, die) > self.budget:
                raise TooManyOutcomes(f"one roll of {count} '{die.name}' dice alone has "
                                      f"{multiset_count(count, die)} outcomes")
            outcomes = multisets(count, die)
            self._spend(len(outcomes))

            def dealing(faces):
                def apply():
                    self.dealt.faces = faces
                    return roll(game, request)
                return apply
            return [(dealing(faces), chance) for (faces, _), chance in zip(outcomes, chances(count, die))]
        n = len(request.options)
        self._spend(n)

        def choosing(index):
            def apply():
                self.chosen.index = index
                return answer(game, request)
            return apply
        return [(choosing(i), Fraction(1, n)) for i in range(n)]

    def _spend(self, n: int) -> None:
        self.branches += n
        if self.branches > self.budget:
            raise TooManyOutcomes(f"{self.branches} outcomes of chance points to explore")

    # ------------------------------------------------------------ equal configurations
    def _configuration(self, request) -> tuple:
        """What decides everything from this chance point on: the request, the frames and their
        locals, what the action changed in the state, the events the outcome reads so far."""
        game = self.game
        if request.__class__ is Roll:
            asked = ("roll", int(request.count), request.die.name)
        else:
            asked = ("choice", request.name, request.side, fingerprint(request.options))
        frames = tuple((frame[0], frame[1], fingerprint(frame[2:])) for frame in game.context.stack)
        changed: dict = {}
        for kind, target, key, _ in game.state.journal[self.base:]:
            changed[(kind, id(target), key if kind != 2 else None)] = (kind, target, key)
        state = frozenset((where, _current(*what)) for where, what in changed.items())
        events = ()
        if self.event_names:
            events = tuple((e["event"], fingerprint(e["args"])) for e in game.events._entries
                           if e.get("type") == "event" and e["event"] in self.event_names)
        return asked, frames, state, events, game.context.depth


def _current(kind: int, target, key):
    if kind == 0:
        return fingerprint(target.get(key, _ABSENT))
    if kind == 1:
        return fingerprint(getattr(target, key))
    return fingerprint(target)


_ABSENT = ("absent",)
_PLAIN = (int, str, bool, type(None), FaceSpec)


def fingerprint(value):
    """A hashable stand-in for a runtime value, equal for values the rules cannot tell apart
    (lists and records by content; units, sides, hexes, definitions as themselves)."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is list or kind is tuple:
        return ("list", tuple(fingerprint(v) for v in value))
    if kind is dict:
        return ("dict", tuple((k, fingerprint(v)) for k, v in value.items()))
    if kind is EventRecord:
        return ("event", value.name, fingerprint(value.args), value.replaced)
    try:
        hash(value)
    except TypeError:
        return ("object", id(value))
    return value
