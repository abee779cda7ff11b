"""Policies answer decisions: every choice a player makes is a :class:`Decision`.

A scripted policy answers from a scenario's list, by label; when the script runs out the
side's own policy takes over: ``random`` (seeded by the game), ``greedy`` (the option the
rules prefer, via ``prefer``), or ``first`` (the rules' default, else the first option).
"""

from __future__ import annotations

import random
from collections import deque
from typing import Callable

from hexlore.runtime.engine.dice import below
from hexlore.runtime.engine.player_names import SCENARIO_NAMES


class Decision:
    """One choice a side makes: its options (and their labels), the rules' default and the
    'prefer' scores. The scores are computed when a policy first reads them: a random player
    never does, and for it they would be most of the cost of a choice."""

    __slots__ = ("name", "side", "options", "_labels", "_scores", "default")

    def __init__(self, name: str, side, options: list, labels: "list | Callable[[], list]",
                 scores: "list[int] | Callable[[], list[int]] | None", default: int | None):
        self.name = name
        self.side = side  # a Side
        self.options = options
        self._labels = labels  # label(option) for each option; or how to make them
        self._scores = scores  # from 'prefer', higher is better; or how to compute them
        self.default = default  # index of the rules' default option

    @property
    def labels(self) -> list:
        if callable(self._labels):
            self._labels = self._labels()
        return self._labels

    @property
    def labelled(self) -> bool:
        """Whether the labels were made (a script or a player read them)."""
        return not callable(self._labels)

    @property
    def scores(self) -> list[int] | None:
        if callable(self._scores):
            self._scores = self._scores()
        return self._scores


class ScriptError(Exception):
    pass


class Policy:
    name = "policy"
    #: ``pick(count) -> index`` for a player that reads nothing of a decision but how many
    #: options it has: the game then asks it without making a :class:`Decision` (labels,
    #: scores) at all. None: the player reads the decision.
    pick: Callable[[int], int] | None = None

    def choose(self, decision: Decision) -> int:
        raise NotImplementedError


class FirstPolicy(Policy):
    name = "first"

    def choose(self, decision: Decision) -> int:
        return decision.default if decision.default is not None else 0


class GreedyPolicy(Policy):
    """Takes the best 'prefer' score; ties go to the earliest option, so play is repeatable."""

    name = "greedy"

    def choose(self, decision: Decision) -> int:
        if decision.scores:
            best = max(decision.scores)
            return decision.scores.index(best)
        return decision.default if decision.default is not None else 0


class RandomPolicy(Policy):
    """Uniform among the options, from a stream seeded by the game's seed and the side (made
    at the first choice: seeding costs more than many short actions that never choose)."""

    name = "random"

    def __init__(self, seed: str):
        self.seed = seed
        self.rng: random.Random | None = None

    def choose(self, decision: Decision) -> int:
        return self.pick(len(decision.options))

    def pick(self, count: int) -> int:
        """An option's index among ``count``: all a random player reads of a decision (the
        game asks this directly, without making a :class:`Decision`)."""
        if self.rng is None:
            self.rng = random.Random(self.seed)
        return below(self.rng, count)  # rng.randrange, the same draw


#: the policies a scenario may name: the registry's (engine/player_names.py)
POLICY_NAMES = SCENARIO_NAMES


_GREEDY, _FIRST = GreedyPolicy(), FirstPolicy()  # they keep nothing: one of each serves every game


class Script:
    """Scripted answers per decision name, consumed in order."""

    def __init__(self, answers: dict | None = None):
        self.answers: dict[str, deque] = {k: deque(v if isinstance(v, list) else [v])
                                          for k, v in (answers or {}).items()}

    def answer(self, decision: Decision) -> int | None:
        queue = self.answers.get(decision.name)
        if not queue:
            return None
        wanted = queue.popleft()
        for i, lab in enumerate(decision.labels):
            if _same(lab, wanted):
                return i
        shown = ", ".join(str(l) for l in decision.labels)
        raise ScriptError(f"scripted answer {wanted!r} for decision '{decision.name}' is not one of "
                          f"the options: {shown}")

    def leftover(self) -> dict[str, list]:
        return {k: list(v) for k, v in self.answers.items() if v}


def _same(label, wanted) -> bool:
    if isinstance(label, list) and isinstance(wanted, list):  # a choice among lists, e.g. areas of hexes
        return len(label) == len(wanted) and all(_same(a, b) for a, b in zip(label, wanted))
    if isinstance(label, bool) or isinstance(wanted, bool):
        return label is wanted or (isinstance(wanted, str) and str(label).lower() == wanted.lower())
    if isinstance(label, str) and isinstance(wanted, str):
        return label.lower() == wanted.lower()
    return label == wanted or str(label) == str(wanted)
