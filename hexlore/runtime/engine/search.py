"""A player that searches: Monte Carlo tree search over the resumable rules.

At each decision with more than one option the player forks the game where it stands
(``Game.exploring``: the state's journal mark and the frames of the rules that are
running), and plays ``simulations`` short futures from there, each restored in place
before the next. A future answers every request itself, never through the game's dice or
players, so nothing of the real game is consumed or written:

- **decisions** of every side inside the tree are chosen by UCT (each side maximises its own
  reward); below the tree, by a cheap rollout player (the option the rules prefer, or now and
  then any option, from the search's stream);
- **dice** are rolled from the search's own stream (sampled chance: the tree is
  *open-loop*, keyed by the options' labels, so the same node serves every roll that leads
  to it and an option the dice made impossible is simply not offered);
- **the tree is kept**: when the next decision the game asks is this player's again and
  nothing happened in between (nobody was asked anything, no die was rolled: a unit's steps
  within a turn), its search starts from the node the last choice led to, with the futures
  already played below it;
- **hidden order** — every list the rules have shuffled (a deck) — is dealt again from the
  search's stream at the start of each future (determinization: no player knows the order);
- a future stops when the game ends, at the first decision of a turn past the next ``turns``
  turns (with 2: the rest of this turn, the next side's, and this side's next one, so a move
  that puts a unit in danger is judged after the reply to it and the attack it prepares; the
  turns a side begins in a row count as one, so the reply is seen however many turns the
  rules give a side at once), or
  after ``depth`` decisions, whichever comes first. A victory is worth 1 to
  the winner and 0 to the others; a position without a winner (the round limit, a drawn
  game, a future stopped) is **evaluated**: by the packs' ``evaluate(s: side) -> int`` when
  they declare one (more is better for ``s``), else by the units each side has still alive,
  and is worth between 0.2 and 0.8 by how far ahead the side stands. Game knowledge stays
  in the packs.

A **flat** search (the ``rollout`` player, :func:`rollout_settings`) keeps the root alone:
every decision below it is the rollout player's, and its futures play to the end of the
game, so it improves on the rules' own judgement one decision at a time.

The option taken is the one with the best mean among those the root tried at least a
quarter as often as the most tried one. Each search draws from a stream seeded by the game's seed, the side and the
number of searches before it, so the same seed plays the same game, byte for byte; a time
budget (``mcts:0.5s``) is the exception, since how far a search gets then depends on the
machine.
"""

from __future__ import annotations

import math
import random
import time
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol, cast

from hexlore.compiler.model import RuleSet
from hexlore.compiler.usage import EVALUATION_RULE
from hexlore.runtime.engine.core.bounds import GameOver, RuleError
from hexlore.runtime.engine.core.requests import Choice, Roll
from hexlore.runtime.engine.core.state import GameState
from hexlore.runtime.engine.dice import DiceSource, Roller
from hexlore.runtime.engine.policies import Decision, Policy
from hexlore.runtime.engine.resume import DrivenGame, drive, roll


class Future(Protocol):
    """Futures played from one point of a game (game.py's ``Exploration``)."""

    def again(self) -> None: ...

    def on_turn(self, watch: Callable) -> None: ...


class SearchedGame(DrivenGame, Protocol):
    """What a search reads of the game it forks (:class:`~hexlore.runtime.engine.game.Game`),
    besides what the driver reads: a view rather than ``Game`` itself, since game.py seats
    the searching players and a module needing game.py back, even for its type only, is an
    import cycle (tests/test_import_cycles.py)."""

    rules: RuleSet
    state: GameState
    roller: DiceSource
    asked: int

    def exploring(self, dice: DiceSource, shuffler: random.Random) -> AbstractContextManager[Future]: ...

    def deal_again(self, rng: random.Random) -> None: ...

    def call_function(self, name: str, args: list) -> Any: ...


DEFAULT_SIMULATIONS = 200
ROLLOUT_DEPTH = 1000  # a rollout player's future plays to the end of the game, at most this many decisions
DEFAULT_DEPTH = 40  # at most this many decisions a future plays past the root before it is evaluated
DEFAULT_TURNS = 2  # sides' turns a future may begin past the root's before it is evaluated (0: no such cut)
EXPLORATION = 1.0  # PUCT's constant for rewards in [0, 1]
PREFERRED = 0.25  # the share of the prior that goes to the options the rules prefer
GREED = 0.8  # how often a rollout takes the option the rules prefer


@dataclass
class _Edge:
    """One option of a tree node: how often it was tried and the reward its side got."""

    visits: int = 0
    total: float = 0.0
    node: "_Node | None" = None

    @property
    def mean(self) -> float:
        return self.total / self.visits if self.visits else 0.0


@dataclass
class _Node:
    """A decision reached by a sequence of options (open-loop: whatever the dice were)."""

    visits: int = 0
    edges: dict = field(default_factory=dict)  # option label -> _Edge


@dataclass
class SearchCost:
    """What a searching player spent, for the per-decision cost a run reports."""

    searches: int = 0
    reused: int = 0  # searches that started from the tree of the one before
    simulations: int = 0
    decisions_played: int = 0  # decisions answered inside futures
    seconds: float = 0.0

    def per_search_ms(self) -> float:
        return 1000 * self.seconds / self.searches if self.searches else 0.0


class _Spread:
    """A running standard deviation (Welford's), at least 1: how much leads vary."""

    __slots__ = ("n", "mean", "m2")

    def __init__(self):
        self.n, self.mean, self.m2 = 0, 0.0, 0.0

    def add(self, x: float) -> None:
        self.n += 1
        d = x - self.mean
        self.mean += d / self.n
        self.m2 += d * (x - self.mean)

    def deviation(self) -> float:
        return max(1.0, math.sqrt(self.m2 / (self.n - 1))) if self.n > 1 else 1.0


class SearchPolicy(Policy):
    """``mcts``: Monte Carlo tree search, ``simulations`` futures a decision (or ``seconds``)."""

    name = "mcts"
    needs_forks = True

    def __init__(self, seed: str, simulations: int = DEFAULT_SIMULATIONS, seconds: float | None = None,
                 depth: int = DEFAULT_DEPTH, exploration: float = EXPLORATION, greed: float = GREED,
                 turns: int = DEFAULT_TURNS, reuse: bool = True, flat: bool = False,
                 preferred: float = PREFERRED):
        """``flat``: the tree is the root alone, every decision below it is the rollout
        player's (see :func:`rollout_settings`). ``preferred``: the share of a node's prior
        that goes to the options the rules prefer."""
        if flat:
            self.name = ROLLOUT_NAME
        self.flat = flat
        self.seed = seed
        self.simulations = simulations
        self.seconds = seconds
        self.depth = depth
        self.turns = turns
        self.reuse = reuse
        #: after a choice: ((the game's decisions asked, its dice rolled) then, the node the
        #: choice leads to, the leads and spreads its rewards were measured with), for the next
        #: search if it follows: nobody asked anything, no die rolled in between (the futures
        #: below the node rolled their own dice: after a real roll they would be stale)
        self._kept: tuple | None = None
        self.exploration = exploration
        self.greed = greed
        self.preferred = preferred
        self.game: SearchedGame | None = None
        self.cost = SearchCost()

    def attach(self, game: SearchedGame) -> None:
        self.game = game

    def choose(self, decision: Decision) -> int:
        if len(decision.options) <= 1:
            return 0
        game = self.game
        paused = getattr(game, "paused_at", None)
        if game is None or paused is None or paused.options is not decision.options:
            raise RuleError(f"the '{self.name}' player searches only in a game played to the end "
                            f"(hexlore run, sweep): decision '{decision.name}' was asked outside one",
                            hint="give this side another player here (first, greedy, random)")
        started = time.process_time()
        rng = random.Random(f"hexlore-mcts:{self.seed}:{self.cost.searches}")
        kept = self._kept
        # cast: a searched game rolls its own dice (a Roller, never dealt ones)
        follows = self.reuse and kept is not None and kept[0] == (game.asked - 1, cast(Roller, game.roller).rolled)
        search = _Search(game, decision, rng, self, kept[1:] if follows and kept is not None else None)
        index = search.run()
        self._kept = search.kept(index, (game.asked, cast(Roller, game.roller).rolled))
        self.cost.searches += 1
        self.cost.reused += follows
        self.cost.seconds += time.process_time() - started
        return index


class _Search:
    """One search from one decision; leaves the game exactly as it found it."""

    def __init__(self, game: SearchedGame, decision: Decision, rng: random.Random, player: SearchPolicy,
                 kept: tuple | None = None):
        """``kept``: the node the previous search's choice led to, with the leads and spreads its
        rewards were measured against (the next decision asked was this one: the tree goes on,
        and so does the measure, so old and new futures are worth the same)."""
        self.game = game
        self.decision = decision
        self.rng = rng
        self.player = player
        self.sides = [s.name for s in game.state.sides]
        self.evaluation = game.rules.functions.get(EVALUATION_RULE)
        if kept is not None:
            self.root, self.root_leads, self.spread = kept
        else:
            self.root = _Node()
            self.root_leads = _leads(self._scores(), self.sides)
            self.spread = {s: _Spread() for s in self.sides}

    def kept(self, index: int, asked: tuple) -> tuple | None:
        """What the next search keeps if it follows this one: the node option ``index`` leads
        to (None when no future went past it)."""
        edge = self.root.edges.get(_key(self.decision.name, self.decision.labels[index]))
        if edge is None or edge.node is None:
            return None
        return asked, edge.node, self.root_leads, self.spread

    def run(self) -> int:
        game, player = self.game, self.player
        labels = self.decision.labels
        deadline = None if player.seconds is None else time.process_time() + player.seconds
        # the futures roll their own dice and shuffle from the search's stream; the game is
        # left exactly as it was found (Game.exploring)
        with game.exploring(Roller(self.rng.getrandbits(64)), self.rng) as future:
            done = 0
            while (done < player.simulations) if deadline is None else (time.process_time() < deadline or done == 0):
                future.again()
                game.deal_again(self.rng)  # the hidden order guessed anew
                self._simulate(labels, future)
                done += 1
            player.cost.simulations += done
        return self._best(labels)

    # ------------------------------------------------------------ one future
    def _simulate(self, root_labels: list, future: Future) -> None:
        game = self.game
        path: list[tuple[_Node, _Edge, str]] = []
        decision = self.decision
        index, edge = self._select(self.root, decision.name, root_labels, decision.scores, decision.default)
        path.append((self.root, edge, decision.side.name))
        # grow the tree by one node a future (a flat search keeps the root alone)
        node = self._child(edge) if edge.visits and not self.player.flat else None
        played = 0
        turns = self.player.turns
        # [how many times the side whose turns run has changed since the root, that side]: a
        # side's turns in a row (a clock that lets it act again, several characters ready at
        # once) are one turn of the horizon, so the reply to them is always seen
        runs = [0, game.state.game["active"]]

        def turned(side) -> None:
            if side is not runs[1]:
                runs[0] += 1
                runs[1] = side
        future.on_turn(turned)

        def ask(request):
            nonlocal node, played
            if request.__class__ is Roll:
                return roll(game, request)
            options = request.options
            if len(options) <= 1:
                return options[0] if options else request
            if played >= self.player.depth or (turns > 0 and runs[0] > turns):
                return request  # stop here: the position is evaluated
            played += 1
            if node is not None:
                shown = game.events.shown
                scores = request.scores() if callable(request.scores) else request.scores
                i, chosen = self._select(node, request.name, [shown(o) for o in options], scores,
                                         request.default)
                path.append((node, chosen, request.side.name))
                node = self._child(chosen) if chosen.visits else None
                return options[i]
            return options[self._rollout(request)]

        try:
            drive(game, decision.options[index], ask=ask)
        except GameOver:
            pass
        self.player.cost.decisions_played += played
        rewards = self._rewards()
        for owner, chosen, who in path:
            owner.visits += 1
            chosen.visits += 1
            chosen.total += rewards[who]

    def _select(self, node: _Node, name: str, labels: list, scores, default) -> tuple[int, _Edge]:
        """PUCT among the options offered now: the mean reward of an option plus a bonus that
        its prior earns and its visits spend. The prior leans on the rules' judgement: half
        of it goes to the options the rules prefer most (their 'prefer' scores, else their
        default), half to every option alike; an option never tried counts as a draw."""
        edges = node.edges
        n = len(labels)
        keys = [_key(name, label) for label in labels]
        if scores:
            best = max(scores)
            favoured = [i for i in range(n) if scores[i] == best]
        else:
            favoured = [default] if default is not None and 0 <= default < n else []
        preferred = self.player.preferred
        spread = preferred / len(favoured) if favoured else 0.0
        base = (1.0 - preferred * bool(favoured)) / n
        bonus_scale = self.player.exploration * math.sqrt(max(1, node.visits))
        best_i, best_score = 0, -math.inf
        favoured_set = set(favoured)
        for i in range(n):
            edge = edges.get(keys[i])
            prior = base + (spread if i in favoured_set else 0.0)
            if edge is None or not edge.visits:
                score = 0.5 + bonus_scale * prior
            else:
                score = edge.mean + bonus_scale * prior / (1 + edge.visits)
            if score > best_score:
                best_i, best_score = i, score
        key = keys[best_i]
        edge = edges.get(key)
        if edge is None:
            edge = edges[key] = _Edge()
        return best_i, edge

    def _rollout(self, request: Choice) -> int:
        """Below the tree: the option the rules prefer (their 'prefer' scores, ties at random)
        with probability ``greed``, else any option."""
        rng = self.rng
        n = len(request.options)
        if rng.random() < self.player.greed:
            scores = request.scores() if callable(request.scores) else request.scores
            if scores:
                best = max(scores)
                tied = [i for i, s in enumerate(scores) if s == best]
                return tied[rng.randrange(len(tied))] if len(tied) > 1 else tied[0]
        return rng.randrange(n)

    def _child(self, edge: _Edge) -> _Node:
        if edge.node is None:
            edge.node = _Node()
        return edge.node

    def _best(self, labels: list) -> int:
        """The option with the best mean reward among those tried at least a quarter as often as
        the most tried (a mean from a few lucky futures is not trusted); ties go to the more
        tried, then the earlier option."""
        edges, name = self.root.edges, self.decision.name
        keys = [_key(name, label) for label in labels]
        tried = [(edges[key], i) for i, key in enumerate(keys) if key in edges]
        most = max((edge.visits for edge, _ in tried), default=0)
        ranked = [(edge.mean, edge.visits, -i) for edge, i in tried if 4 * edge.visits >= most and edge.visits]
        return -max(ranked)[2] if ranked else 0

    # ------------------------------------------------------------ rewards
    def _rewards(self) -> dict[str, float]:
        """Each side's reward in [0, 1]: 1 for the winner, 0 for the others. A game ended without
        a winner, or a future stopped before the end, is worth between the two by how much the
        side's lead (its evaluation less the best of the others') grew or shrank since the
        root: from 0.2 to 0.8, so that a victory is always worth more than any lead. A lead is
        measured against how much leads vary among this search's futures (their standard
        deviation), so the evaluation's units do not matter."""
        state = self.game.state
        if state.winner is not None:
            return {s: float(s == state.winner.name) for s in self.sides}
        leads = _leads(self._scores(), self.sides)
        rewards = {}
        for s in self.sides:
            delta = leads[s] - self.root_leads[s]
            spread = self.spread[s]
            spread.add(delta)
            rewards[s] = 0.5 + 0.3 * math.tanh(delta / spread.deviation())
        return rewards

    def _scores(self) -> dict[str, float]:
        return standing(self.game, self.evaluation is not None)


def _leads(scores: dict[str, float], sides: list[str]) -> dict[str, float]:
    """Each side's evaluation less the best of the others'."""
    return {s: scores[s] - max((scores[o] for o in sides if o != s), default=scores[s]) for s in sides}


def standing(game: SearchedGame, declared: bool | None = None) -> dict[str, float]:
    """How well each side stands now: the packs' ``evaluate(s)`` when they declare it, else the
    units each side has alive (on the board or not). ``declared``: whether they do, if known."""
    if declared is None:
        declared = EVALUATION_RULE in game.rules.functions
    if declared:
        return {s.name: float(game.call_function(EVALUATION_RULE, [s])) for s in game.state.sides}
    alive = {s.name: 0.0 for s in game.state.sides}
    for u in game.state.units.values():
        if u.alive:
            alive[u.side.name] = alive.get(u.side.name, 0.0) + 1.0
    return alive


def _key(name: str, label):
    """An option of decision ``name`` as a dictionary key: the decision's name and the option's
    label (a list of hexes is labelled as a list), so that two decisions a node may stand for
    (open loop: after different dice) never share an option."""
    return name, _hashable(label)


def _hashable(label):
    if label.__class__ is list:
        return tuple(_hashable(x) for x in label)
    return label


ROLLOUT_NAME = "rollout"
#: the searching players, as the registry names them (engine/player_names.py; a test keeps them these)
SEARCH_NAMES = (SearchPolicy.name, ROLLOUT_NAME)


def rollout_settings() -> dict:
    """The ``rollout`` player as :class:`SearchPolicy` settings: Monte Carlo *policy
    improvement* over the rules' judgement. Each option of a decision is tried in futures
    played to the end of the game (at most ``ROLLOUT_DEPTH`` decisions), where every side,
    this one included, takes the option the rules prefer (ties and unjudged decisions at
    random) and the dice fall from the search's stream; the option with the best mean wins.

    Why besides ``mcts``: where a side's turn is a long chain of small decisions (the
    action-point skirmish's one-hex steps), the tree spreads its futures over chains that
    the evaluation cannot tell apart before its cut, and over other sides' replies tried at
    random while their nodes are young; the flat search spends every future on the root's
    options and judges each by how the game ends when everybody plays on as ``greedy``
    would. It plays what ``greedy`` plays except where the futures show better
    (docs/players.md, "The rollout player"). A decision costs more the longer the game has
    left to run, since every future plays it out."""
    return {"flat": True, "turns": 0, "depth": ROLLOUT_DEPTH, "greed": 1.0}


def parse_search(spec: str) -> dict | None:
    """``mcts``, ``mcts:400`` (futures a decision) or ``mcts:0.5s`` (seconds a decision), and
    the same for ``rollout``, as keyword arguments of :class:`SearchPolicy`; None when
    ``spec`` is not one."""
    name, _, budget = spec.partition(":")
    if name not in SEARCH_NAMES:
        return None
    settings = rollout_settings() if name == ROLLOUT_NAME else {}
    if not budget:
        return settings
    try:
        if budget.endswith("s"):
            seconds = float(budget[:-1])
            return {**settings, "seconds": seconds} if 0 < seconds <= 3600 else None
        simulations = int(budget)
    except ValueError:
        return None
    return {**settings, "simulations": simulations} if 1 <= simulations <= 1_000_000 else None
