"""Exact odds of one option of a decision, from a game under way ("What are my odds?").

``hexlore odds`` answers for an action run on a scenario's start (:mod:`.odds`). A person
playing wants the same answer *now*: the game is paused at a decision (a stepped game's
:attr:`~hexlore.runtime.engine.game.Game.pending`, or the decision a player is being asked,
:attr:`~hexlore.runtime.engine.game.Game.paused_at`), and the question is what choosing option
``i`` leads to. :func:`odds_of_option` answers it with the same engine: the game's frames are
resumed with that option, the dice are dealt every distinct outcome at each roll, equal
configurations merge (:class:`~.odds_tree.Tree`), and everything happens inside
:meth:`Game.exploring`, so the game, its log (and log file), its dice and its players are
exactly as they were afterwards.

Where the outcome is read (the horizon): with ``decisions="stop"`` (the default), at the next
decision among several options, whoever makes it (a person's next choice is not the engine's
to guess), or the game's end: what the option leads to, up to the next question.
``decisions="first"`` or ``"greedy"`` answers those decisions as the ``hexlore odds`` policies
of those names do (without asking any player, so a searching player's statistics are
untouched) up to the end of the rule (procedure or trigger) that asked the decision, as
``hexlore odds`` runs an action to its end. The outcome's columns are
``hexlore odds``' outcome specs (``UNIT.FIELD``, ``event:NAME(…).ARG``, ``SIDE.FIELD``…);
without them, every unit, side and winner value that differs between outcomes. A column
``next`` says where each outcome stopped.

The bound is deterministic: ``budget`` counts the outcomes answered at rolls, as ``hexlore
odds --budget`` does, so the same position gives the same answer (or the same refusal) on
any machine; ``max_seconds`` (CPU time) may be added on top by a server that must answer
quickly. Beyond either the result says so (:attr:`OptionOdds.refused`) rather than raising.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, cast

from hexlore.diagnostics import codes
from hexlore.runtime.analysis.odds import (DEFAULT_BUDGET, OddsError, OddsResult, OddsRow, OutcomeSpec,
                                           _NoShuffle, _NotEnumerable, _order, parse_outcome)
from hexlore.runtime.analysis.odds_tree import TooManyOutcomes, Tree
from hexlore.runtime.engine.core.bounds import MAX_LIST_ITEMS, GameOver
from hexlore.runtime.engine.game import Game
from hexlore.runtime.engine.core.requests import Choice, Roll
from hexlore.runtime.engine.resume import drive

#: how decisions met after the option are answered: stopped at, or as these policies answer
HORIZONS = ("stop", "first", "greedy")
NEXT = "next"  # the column saying where each outcome stopped


@dataclass
class OptionOdds:
    """What choosing one option leads to: an exact distribution, or why there is none.

    ``result`` is None exactly when ``refused`` says why (more outcomes than the budget, the
    time bound, randomness that cannot be enumerated)."""

    decision: str
    side: str
    option: int
    label: Any
    horizon: str
    result: OddsResult | None
    refused: str | None = None

    @property
    def exact(self) -> bool:
        return self.result is not None

    def to_json(self) -> dict:
        out = {"decision": self.decision, "side": self.side, "option": self.option, "label": self.label,
               "horizon": self.horizon, "refused": self.refused}
        if self.result is not None:
            out.update(self.result.to_json())
        return out


def pending_choice(game: Game) -> Choice:
    """The decision the game waits on: a stepped game's pending one, or the one a player is
    answering now (a terminal player asked inside :meth:`Game.play`)."""
    request = game.pending if game.pending is not None else game.paused_at
    if request.__class__ is not Choice:
        raise ValueError("no decision is pending" + (": a roll is" if request is not None else ""))
    if not game.context.stack:
        raise ValueError("the game is not played in its resumable form: odds need its rules' frames "
                         "(step it with start()/apply(), or play(resumable=True))")
    return request


def game_at(rules, scenario, at: int, seed: int | None = None) -> Game:
    """The scenario's game (its players; ``seed``, else the scenario's) stepped to its ``at``-th
    decision among several options (``hexlore odds SCENARIO --at N``). Raises
    :class:`~.odds.OddsError` (``O002``) when the game ends first or cannot be stepped."""
    if at < 1:
        raise OddsError(codes.BAD_ACTION, f"--at counts decisions from 1, got {at}", "e.g. --at 1", "--at")
    game = Game(rules, scenario, seed=seed)
    if game.compiled.not_resumable is not None:
        raise OddsError(codes.BAD_ACTION, f"these rules cannot be stopped at a decision: {game.compiled.not_resumable}",
                        "ask the odds of an action instead (--action)", "--at")
    request = game.start()
    seen = 1 if request is not None else 0
    while request is not None and seen < at:
        request = game.apply()
        seen += request is not None
    if request is None:
        raise OddsError(codes.BAD_ACTION, f"the game ended before its decision #{at} (it had {seen})",
                        "choose a smaller --at (hexlore run --log shows the decisions, those with options > 1)",
                        "--at")
    return game


def odds_of_option(game: Game, index: int, *, outcome: list[str] | tuple[str, ...] = (),
                   decisions: str = "stop", budget: int = DEFAULT_BUDGET,
                   max_seconds: float | None = None) -> OptionOdds:
    """The exact distribution of what option ``index`` of the pending decision leads to.

    The game is left exactly as it was (state, frames, log and log file, budget, dice, players).
    Raises ValueError when no decision is pending or ``index``/``decisions`` is out of range,
    :class:`~.odds.OddsError` (``O003``) for a bad outcome spec, and
    :class:`~hexlore.runtime.engine.game.RuntimeRuleError` when the rules fail in some branch.
    """
    request = pending_choice(game)
    if index.__class__ is not int or not 0 <= index < len(request.options):
        raise ValueError(f"decision '{request.name}' has {len(request.options)} options: "
                         f"give an index from 0 to {len(request.options) - 1}")
    if decisions not in HORIZONS:
        raise ValueError(f"no horizon named '{decisions}' (one of: {', '.join(HORIZONS)})")
    specs = [parse_outcome(text, game) for text in outcome] if outcome else _every_value(game)
    since = len(game.log)
    label = game.events.shown(request.options[index])
    found = OptionOdds(request.name, request.side.name, index, label, decisions, None)
    # a shuffle cannot be enumerated: _NoShuffle refuses it where a Random would shuffle
    with game.exploring(_NoDice(), cast(random.Random, _NoShuffle())):
        tree = _OptionTree(game, request.options[index], lambda g: tuple(s.value(g, since) for s in specs),
                           {s.name for s in specs if s.kind == "event"}, budget, decisions,
                           None if max_seconds is None else time.process_time() + max_seconds)
        try:
            tally = game.guarded(tree.run)
        except TooManyOutcomes as exc:
            found.refused = f"too large to enumerate: {exc}"
            return found
        except _NotEnumerable as exc:
            found.refused = f"cannot be enumerated: {exc}"
            return found
    found.result = _distribution(specs, tally, tree.ends, decisions, chosen=bool(outcome))
    return found


def _every_value(game: Game) -> list[OutcomeSpec]:
    """Every unit's fields (with ``alive`` and ``hex``), every side's fields, the winner: the
    columns that differ between outcomes are kept (:func:`_distribution`)."""
    rules, state = game.rules, game.state
    unit_fields = ["alive", "hex"] + list(rules.kinds["unit"].fields)
    specs = [OutcomeSpec(f"{u}.{f}", "unit", u, f) for u in state.units for f in unit_fields]
    specs += [OutcomeSpec(f"{s.name}.{f}", "side", s.name, f) for s in state.sides for f in rules.kinds["side"].fields]
    return specs + [OutcomeSpec("winner", "winner")]


def _distribution(specs: list[OutcomeSpec], tally: dict[tuple, Fraction], runs: int, horizon: str,
                  chosen: bool) -> OddsResult:
    """The rows, most columns first: ``next``, then the specs (default ones only if they vary)."""
    total = sum(tally.values(), Fraction(0))
    if total != 1:  # by construction; a failure means the branches were not deterministic
        raise _NotEnumerable(f"the enumerated chances add up to {total}, not 1")
    keep = [i for i in range(len(specs)) if chosen or len({k[i + 1] for k in tally}) > 1]
    merged: dict[tuple, Fraction] = {}
    for k, p in tally.items():
        key = (k[0],) + tuple(k[i + 1] for i in keep)
        merged[key] = merged.get(key, Fraction(0)) + p
    rows = [OddsRow(k, p) for k, p in sorted(merged.items(), key=lambda kv: tuple(map(_order, kv[0])))]
    return OddsResult([NEXT] + [specs[i].text for i in keep], rows, True, runs, horizon)


class _NoDice:
    """The dice before the tree deals them: never rolled (the tree deals every roll)."""

    def roll(self, count: int, die) -> tuple[list, bool]:
        raise _NotEnumerable("a roll was made outside the enumeration")


class _OptionTree(Tree):
    """The odds tree resumed at a decision with one of its options, instead of running a
    question's actions; decisions end an outcome (``stop``) or are answered by the policy."""

    def __init__(self, game: Game, answer, outcome: Callable[[Game], tuple], event_names: set[str],
                 budget: int, horizon: str, deadline: float | None):
        super().__init__(game, [], outcome, set(), event_names, budget)
        self.answer = answer
        self.horizon = horizon
        self.deadline = deadline

    def run(self) -> dict[tuple, Fraction]:
        game = self.game
        game.use_dice(self.dealt)
        if self.horizon != "stop":  # decisions answered: the end of the rule that asked is the horizon
            asking = game.context.stack[-1]
            game.drop_frames()
            game.push_frame(asking)
        denominator, numerators = self._on(self.answer)
        return {value: Fraction(n, denominator) for value, n in numerators.items()}

    def _on(self, x) -> tuple[int, dict[tuple, int]]:
        game = self.game
        try:
            stopped = drive(game, x, ask=self._stop)
        except GameOver:
            stopped = None
        if stopped.__class__ is Roll:
            return self._branch(stopped)
        self.ends += 1
        if stopped.__class__ is Choice:
            where = f"{stopped.name} ({getattr(stopped.side, 'name', stopped.side)})"
        else:
            where = "game over" if game.over else "end of the rule"
            game.drop_frames()
        return 1, {(where,) + self.outcome(game): 1}

    def _stop(self, request):
        if request.__class__ is Roll:
            count = request.count
            if count.__class__ is int and 0 < count <= MAX_LIST_ITEMS and request.die is not None:
                return request
            return self.game.answer(request)  # the game refuses it, as in play
        options = request.options
        if len(options) == 1:
            return options[0]
        if self.horizon == "stop" or not options or self.game.script.answers.get(request.name):
            return request
        scores = request.scores() if callable(request.scores) else request.scores
        if self.horizon == "greedy" and scores:
            return options[scores.index(max(scores))]
        return options[request.default if request.default is not None else 0]

    def _spend(self, n: int) -> None:
        super()._spend(n)
        if self.deadline is not None and time.process_time() > self.deadline:
            raise TooManyOutcomes(f"more than the time allowed ({self.branches} outcomes explored)")
