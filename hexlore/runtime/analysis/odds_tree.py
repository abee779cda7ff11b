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

A roll branches only over the outcomes the rules can tell apart: its dice show *classes* of
faces (:mod:`hexlore.runtime.engine.core.face_classes`), at first one class of every face; a rule
that looks at an undecided face refines that roll (the faces an aggregate's test told apart,
or every face) and the roll is explored again from its fork. Each outcome is a multiset of
classes with its multinomial weight, so a reroll that asks only whether a die shows one face
has ``n + 1`` outcomes for ``n`` dice. What a roll's site learnt is where the next roll of the
same site starts. Rules see pools in canonical order (:mod:`hexlore.runtime.engine.dice`);
classes are runs of adjacent faces, so an abstract pool keeps that order.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from math import comb, lcm
from typing import Callable

from hexlore.compiler.model import FaceSpec
from hexlore.runtime.engine.core.bounds import MAX_LIST_ITEMS, GameOver
from hexlore.runtime.engine.dice import face_groups, multiset_count
from hexlore.runtime.engine.core.face_classes import FaceClass, Observed, Split
from hexlore.runtime.engine.game import Game
from hexlore.runtime.engine.policies import Decision, Policy
from hexlore.runtime.engine.core.requests import CALL, RETURN, Choice, Roll
from hexlore.runtime.engine.resume import drive, roll, start_call
from hexlore.runtime.engine.snapshot import copy_value
from hexlore.runtime.engine.core.state import EventRecord


class TooManyOutcomes(Exception):
    """The enumeration would exceed its budget of branches."""


class _RollNode:
    """A roll being explored: its die and size, and its faces in classes (runs of adjacent
    faces, each with its weight); ``version`` counts refinements (fingerprints carry it)."""

    def __init__(self, count: int, die, partition: tuple[tuple, ...], site: tuple):
        self.count = count
        self.die = die
        self.site = site  # where in the rules it is rolled (what it learns serves the next there)
        weights = dict(face_groups(die))
        self.total = sum(weights.values())
        self.version = 0
        self.classes: list[tuple] = []
        self.weights: list[int] = []
        self.faces: list[object] = []  # per class: its face, or a FaceClass when undecided
        self._set(partition, weights)

    def _set(self, partition, weights) -> None:
        self.classes = list(partition)
        self.weights = [sum(weights[f] for f in members) for members in partition]
        self.faces = [members[0] if len(members) == 1 else FaceClass(self, i, members)
                      for i, members in enumerate(partition)]

    @property
    def partition(self) -> tuple[tuple, ...]:
        return tuple(self.classes)

    def refine(self, face: FaceClass, runs: list[tuple] | None) -> None:
        """Split ``face``'s class into ``runs`` (None: into single faces)."""
        members = self.classes[face.index]
        runs = runs if runs is not None else [(m,) for m in members]
        self.version += 1
        self._set(self.classes[:face.index] + runs + self.classes[face.index + 1:], dict(face_groups(self.die)))

    def outcomes(self) -> tuple[list[tuple[list, int]], int]:
        """Every multiset of classes: the pool (classes in order) and its chance, as integer
        numerators over one denominator (``total ** count``)."""
        counts_and_ways = _multinomials(self.count, tuple(self.weights))
        pools = [[f for f, c in zip(self.faces, counts) for _ in range(c)] for counts, _ in counts_and_ways]
        return [(pool, ways) for pool, (_, ways) in zip(pools, counts_and_ways)], self.total ** self.count


@lru_cache(maxsize=4096)
def _multinomials(n: int, weights: tuple[int, ...]) -> tuple[tuple[tuple[int, ...], int], ...]:
    """Each way to put ``n`` dice in classes of these face weights, with its number of face
    sequences: n! / prod(c_i!) * prod(w_i ** c_i)."""
    k = len(weights)
    out: list[tuple[tuple[int, ...], int]] = []
    counts = [0] * k

    def place(i: int, left: int, ways: int) -> None:
        if i == k - 1:
            counts[i] = left
            out.append((tuple(counts), ways * weights[i] ** left))
            return
        for c in range(left, -1, -1):
            counts[i] = c
            place(i + 1, left - c, ways * comb(left, c) * weights[i] ** c)
    place(0, n, 1)
    return tuple(out)


def _outcome_count(count: int, classes: int) -> int:
    return comb(count + classes - 1, classes - 1)


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
        self.known: dict[tuple, tuple[int, dict[tuple, int]]] = {}
        self.learned: dict[tuple, tuple] = {}  # a roll's site -> the classes its faces were split into
        self.dealt = _Dealt()
        self.chosen = _Answered()
        self.base = game.state.mark()
        game.keep_log(rolls_only=not event_names)  # the question reads no event: keep only the dice

    # ------------------------------------------------------------ the walk
    def run(self) -> dict[tuple, Fraction]:
        game = self.game
        game.use_dice(self.dealt)
        for side in self.random_sides:
            game.seat(side, self.chosen)
        game.drop_frames()
        game.push_frame([actions_frame, 0, self.calls])
        denominator, numerators = self._on(None)
        return {value: Fraction(n, denominator) for value, n in numerators.items()}

    # A distribution is (denominator, {outcome: numerator}): exact, with integer arithmetic
    # only, reduced once at the end.
    def _on(self, x) -> tuple[int, dict[tuple, int]]:
        """Run from here (the top frame resumed with ``x``) to the next chance point or the end."""
        try:
            stopped = drive(self.game, x, ask=self._stop)
        except GameOver:
            stopped = None
        if stopped is None or stopped.__class__ not in (Roll, Choice):
            self.ends += 1
            self.game.drop_frames()
            return 1, {self.outcome(self.game): 1}
        return self._branch(stopped)

    def _stop(self, request):
        """Stop at a chance point (a roll, a random side's choice among several options);
        answer anything else as the game would."""
        game = self.game
        if request.__class__ is Roll:
            count = request.count
            if count.__class__ is int and 0 < count <= MAX_LIST_ITEMS and request.die is not None:
                return request  # (the game refuses other counts: answered, they fail as in play)
        elif len(request.options) > 1 and request.side is not None and \
                getattr(request.side, "name", None) in self.random_sides and not game.script.answers.get(request.name):
            return request
        return game.answer(request)

    def _branch(self, request) -> tuple[int, dict[tuple, int]]:
        key = self._configuration(request)
        known = self.known.get(key)
        if known is not None:
            self.merged += 1
            return known
        game = self.game
        point = game.fork()
        node = self._roll_node(request) if request.__class__ is Roll else None
        while True:
            try:
                outcomes, denominator = self._outcomes(request, node)
                below = []
                for i, (apply, numerator) in enumerate(outcomes):
                    if i:
                        game.restore(point)
                    below.append((numerator, self._on(apply())))
                break
            except (Observed, Split) as exc:
                if node is None or exc.face.node is not node:
                    raise
                node.refine(exc.face, exc.runs if exc.__class__ is Split else None)
                self.learned[node.site] = node.partition
                game.restore(point)
        common = lcm(*(d for _, (d, _) in below)) * denominator
        found: dict[tuple, int] = {}
        for numerator, (d, numerators) in below:
            factor = numerator * (common // (denominator * d))
            for value, n in numerators.items():
                found[value] = found.get(value, 0) + n * factor
        self.known[key] = (common, found)
        return common, found

    def _site(self, request) -> tuple:
        top = self.game.context.stack[-1]
        return top[0], top[1], request.die.name

    def _roll_node(self, request) -> _RollNode:
        count, die, site = request.count, request.die, self._site(request)
        partition = self.learned.get(site)
        if partition is None:
            partition = (tuple(face for face, _ in face_groups(die)),)
        return _RollNode(count, die, partition, site)

    def _outcomes(self, request, node: _RollNode | None) -> tuple[list[tuple[Callable[[], object], int]], int]:
        """How to answer each outcome, with its chance (numerators over one denominator)."""
        game = self.game
        if node is not None:
            if _outcome_count(node.count, len(node.classes)) > self.budget:
                raise TooManyOutcomes(f"one roll of {node.count} '{node.die.name}' dice alone has "
                                      f"{multiset_count(node.count, node.die)} outcomes")
            outcomes, denominator = node.outcomes()
            self._spend(len(outcomes))

            def dealing(faces):
                def apply():
                    self.dealt.faces = faces
                    return roll(game, request)
                return apply
            return [(dealing(faces), ways) for faces, ways in outcomes], denominator
        n = len(request.options)
        self._spend(n)

        def choosing(index):
            def apply():
                self.chosen.index = index
                return game.answer(request)
            return apply
        return [(choosing(i), 1) for i in range(n)], n

    def _spend(self, n: int) -> None:
        self.branches += n
        if self.branches > self.budget:
            raise TooManyOutcomes(f"{self.branches} outcomes of chance points to explore")

    # ------------------------------------------------------------ equal configurations
    def _configuration(self, request) -> tuple:
        """What decides everything from this chance point on: the request, the frames and their
        locals, what the action changed in the state, the events the outcome reads so far."""
        game = self.game
        asked: tuple
        if request.__class__ is Roll:
            asked = ("roll", request.count, request.die.name)
        else:
            asked = ("choice", request.name, request.side, fingerprint(request.options))
        frames = tuple((frame[0], frame[1], fingerprint(frame[2:])) for frame in game.context.stack)
        changed: dict = {}
        for kind, target, key, _ in (game.state.journal or [])[self.base:]:  # kept since the tree began
            changed[(kind, id(target), key if kind != 2 else None)] = (kind, target, key)
        state = frozenset((where, _current(*what)) for where, what in changed.items())
        events: tuple = ()
        if self.event_names:
            events = tuple((e["event"], fingerprint(e["args"])) for e in game.log
                           if e["type"] == "event" and e["event"] in self.event_names)
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
    (lists and records by content; units, sides, hexes, definitions as themselves; an
    undecided face as its roll, the roll's refinement and its class)."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is FaceClass:
        return ("class", id(value.node), value.node.version, value.index)
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
