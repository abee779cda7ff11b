"""A game: a compiled rule set played on a scenario, with seeded dice and policies.

The game owns the state, the event bus (dispatch of compiled triggers), the dice, the
decisions and the JSON-lines event log. Same rules + scenario + seed + decisions give the
same log, byte for byte: the only randomness is the seeded dice and policy streams.
"""

from __future__ import annotations

import json
import random
import weakref
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Iterator, Mapping

from hexlore.compiler import ir
from hexlore.compiler.memo_plan import new_lists
from hexlore.compiler.model import FaceSpec, RuleSet
from hexlore.diagnostics import Diagnostic, Span, codes, error
from hexlore.runtime.engine.builtins import make_builtins
from hexlore.runtime.engine.cast import Cast, add_campaign_units
from hexlore.runtime.engine.dice import DiceSource, ForcedRollError, Roller, multiset_count, multisets
from hexlore.runtime.engine.event_log import EventLog, LogSink
from hexlore.runtime.engine.compiled.locate import rule_error
from hexlore.runtime.engine.compiled.program import compiled
from hexlore.runtime.engine.context import Context
from hexlore.runtime.engine.core.bounds import MAX_LIST_ITEMS, Budget, GameOver, RuleError
from hexlore.runtime.engine.core.memo import DEFINITION_LISTS, LISTS, MISS, NUMBERS, SKIP, KeptList, Memo, Plan
from hexlore.runtime.engine.players import make_policy
from hexlore.runtime.engine.policies import Decision, Policy, Script, ScriptError
from hexlore.runtime.engine.core.requests import Choice, Roll
from hexlore.runtime.engine.resume import drive, play_frame, roll
from hexlore.runtime.engine.search import SearchPolicy
from hexlore.runtime.engine.setup import ScenarioValues, set_up
from hexlore.runtime.engine.core.state import EventRecord, GameState, Side

DEFAULT_MAX_ROUNDS = 100
#: a pending roll with more distinct outcomes than this is refused by Game.chance_outcomes
MAX_CHANCE_OUTCOMES = 100_000


class ScenarioError(Exception):
    def __init__(self, diagnostics: list[Diagnostic]):
        super().__init__("\n".join(d.headline() for d in diagnostics))
        self.diagnostics = diagnostics


class RuntimeRuleError(Exception):
    """A rule failed while playing; carries a located diagnostic."""

    def __init__(self, diagnostic: Diagnostic):
        super().__init__(diagnostic.headline())
        self.diagnostic = diagnostic


@dataclass
class GameResult:
    winner: str | None
    rounds: int
    turns: int
    eliminated: dict[str, list[str]] = field(default_factory=dict)
    log: list[dict] = field(default_factory=list)
    #: what each searching side spent (side -> searches, futures, ms a decision); CPU time,
    #: so it is kept out of the summary, which stays the same for the same seed
    search: dict[str, dict] = field(default_factory=dict)

    def summary(self) -> dict:
        return {"winner": self.winner, "rounds": self.rounds, "turns": self.turns,
                "eliminated": self.eliminated}


class Game:
    #: Memoise pure function calls while the rules run (see :meth:`_caller`); the benchmark
    #: turns this off to measure what it saves.
    memoise = True

    def __init__(self, rules: RuleSet, scenario, seed: int | None = None,
                 decisions: dict | None = None, forced_dice: list | None = None,
                 log_file: LogSink | None = None, policies: Mapping[str, str | Policy] | None = None,
                 tolerate_problems: bool = False, roller: DiceSource | None = None, cast: Cast | None = None):
        """Set the game up; a scenario that does not fit the packs raises :class:`ScenarioError`.

        With ``tolerate_problems`` the game is built anyway around what does not fit, and the
        problems are left in ``self.problems``: the scenario checker uses this to report them
        all and to go on checking the position. ``cast``: units a campaign adds from its sheet
        (off the board, after the scenario's units; see :mod:`.cast`).
        """
        if not rules.ok:
            raise ValueError("rules have errors; compile them cleanly first")
        self.rules = rules
        self.scenario = scenario
        self.seed = scenario.seed if seed is None else seed
        # the dice are injectable: the odds engine answers rolls from an enumeration
        self.roller = roller if roller is not None else Roller(self.seed, forced_dice)
        self._policy_rng: random.Random | None = None  # made on first use (shuffles): seeding one costs
        # more than a short action
        #: the lists the rules shuffled, by identity: orders no player knows (engine/search.py)
        self.shuffled: dict[int, list] = {}
        #: the request a resumable game is stopped at while a policy answers it (engine/resume.py)
        self.paused_at: Choice | None = None
        #: called with the game at the start of each round (a sweep follows who leads)
        self.round_watchers: list = []
        #: called with the side at each begin_turn (a search counts whose turns its futures reach)
        self.turn_watchers: list = []
        #: decisions with more than one option asked so far (a searching player keeps its tree
        #: for the next decision only when nobody was asked anything, and no die rolled, between)
        self.asked = 0
        self.script = Script(decisions if decisions is not None else scenario.decisions)
        self.state = GameState(scenario.board)
        # memoised results of pure functions (hexlore/runtime/engine/core/memo.py): filled only while
        # memo.on (inside guarded)
        self.memo = Memo(rules)
        self._callers: dict = {}
        self._search_callers: dict = {}
        #: what this game's rules may still spend (steps, events, log bytes): its own, so that
        #: another game built or played meanwhile neither refills nor drains it
        self.budget = Budget()
        self.events = EventLog(self.state, log_file, self.budget)
        # the rules as Python functions, compiled once per rule set and shared by every game
        self.compiled = compiled(rules)
        self.options: dict = {}
        self.tables: dict = {}
        self.values = ScenarioValues(rules, scenario, self.state, _evaluator(self))
        self.builtins = make_builtins(self)
        self.context = Context(self, self.compiled, self.builtins)
        chosen = policies or {}
        #: side name -> the player answering its decisions (:meth:`seat` changes one)
        self.policies: dict[str, Policy] = {
            s.name: make_policy(chosen.get(s.name, s.policy), self.seed, s.name, self) for s in scenario.sides}
        problems: list[Diagnostic] = []
        set_up(self, problems)
        self.cast = cast
        if cast is not None:
            add_campaign_units(self, cast, problems)
        self.problems = problems
        if problems and not tolerate_problems:
            raise ScenarioError(problems)
        #: a token always has a forgetter (None is for no token): the fallback only satisfies the type
        self.forget_round: Callable[[], None] = self.memo.forgetter(("game", "round")) or _nothing
        self._pending: Roll | Choice | None = None  # what a stepped game waits on (Game.start)
        self._stepping: bool | None = None  # whether a stepped game stops at rolls (None: not stepped)

    # ------------------------------------------------------------ construction
    def const(self, node: ir.X):
        """The value of a constant expression of the rules (a default, a table entry…)."""
        if node.__class__ is ir.Const:
            return node.value
        entry = self.compiled.constants.get(id(node))
        if entry is None or entry[0] is not node:
            raise ValueError(f"not a constant expression of these rules: {node!r}")
        return entry[1](self.context)

    @property
    def policy_rng(self) -> random.Random:
        """The game's stream for shuffles, seeded by the game's seed."""
        rng = self._policy_rng
        if rng is None:
            rng = self._policy_rng = random.Random(f"hexlore-game:{self.seed}")
        return rng

    @property
    def log(self) -> list[dict]:
        """The entries logged so far (the same list the event log appends to)."""
        return self.events.entries

    @property
    def depth(self) -> int:
        """How deeply events are nested now (emitted by the triggers of other events)."""
        return self.context.depth

    # ------------------------------------------------------------ calling the rules
    @property
    def memo_on(self) -> bool:
        """Whether function calls are memoised now (inside :meth:`guarded`)."""
        return self.memo.on

    @memo_on.setter
    def memo_on(self, on: bool) -> None:
        self.memo.on = on

    def function_arity(self, name: str) -> int:
        return len(self.compiled.functions[name][2])

    def call_function(self, name: str, args: list):
        call = self._callers.get(name)
        if call is None:
            call = self._callers[name] = self._caller(name, self.memo.plan(name))
        return call(args)

    def search_caller(self, name: str):
        """``call(args)`` for a built-in's search: like :meth:`call_function`, but memoised
        even when the function is cheap (:meth:`Memo.search_plan`), as a search asks it the
        same questions search after search."""
        call = self._search_callers.get(name)
        if call is None:
            call = self._search_callers[name] = self._caller(name, self.memo.search_plan(name))
        return call

    def search_caller2(self, name: str):
        """``call(a, b)`` for a built-in's search asking a two-parameter function (a step's cost,
        a hex's test for a unit): :meth:`search_caller` without an argument list to build and
        take apart at every hex, for the usual memo shapes."""
        call = self._search_callers.get((name, 2))
        if call is None:
            call = self._search_callers[(name, 2)] = self._caller2(name, self.memo.search_plan(name))
        return call

    def _caller2(self, name: str, plan: Plan):
        body = self.compiled.functions[name][0]
        context, memo = self.context, self.memo
        positions, exact, unknown, objects, arity = memo.search_shape(name)
        if arity != 2 or exact or unknown:
            general = self._caller(name, plan)
            return lambda a, b: general([a, b])
        table, numbers = plan.table, NUMBERS
        keeps_lists = name in new_lists(self.rules)
        get = table.get
        check_a, check_b = 0 in objects, 1 in objects

        def call(a, b):
            if memo.on and plan.active:
                key = (a, b) if positions == (0, 1) else a if positions == (0,) else b if positions == (1,) else ()
                try:
                    result = get(key, MISS)
                except TypeError:  # an unhashable argument (a list)
                    return body(context, a, b)
                if result is not MISS:
                    plan.hits += 1
                    return result if result.__class__ is not KeptList else list(result)
                result = body(context, a, b)
                if not (check_a and a.__class__ in numbers) and not (check_b and b.__class__ in numbers):
                    if result.__class__ is not list:
                        table[key] = result
                    elif keeps_lists:
                        table[key] = KeptList(result)
                plan.missed()
                return result
            return body(context, a, b)
        return call

    def _caller(self, name: str, plan: Plan | None):
        """How Python calls function ``name`` (built-ins asking for a cost, a test…): through its
        memo while the rules run (hexlore/runtime/engine/core/memo.py) as ``plan`` says (None: not memoised).

        Each call must keep returning a list of its own: a list answer is kept only when the
        function always makes a new one (memo.new_lists), as a ``KeptList`` copied for each
        caller. Calls with a list argument (unhashable) or a number that could equal one of
        another class are not memoised.
        """
        body = self.compiled.functions[name][0]
        context, memo = self.context, self.memo  # neither holds the game: a dropped game is freed
        if plan is None:
            return lambda args: body(context, *args)
        table, key_of, storable = plan.table, plan.key, plan.storable
        keeps_lists = name in new_lists(self.rules)

        def memoised(args):
            if memo.on and plan.active:
                key = key_of(args)
                if key is not SKIP:
                    try:
                        result = table.get(key, MISS)
                    except TypeError:  # an unhashable argument (a list)
                        return body(context, *args)
                    if result is not MISS:
                        plan.hits += 1
                        return result if result.__class__ is not KeptList else list(result)
                    result = body(context, *args)
                    if storable is None or storable(args):
                        if result.__class__ is not list:
                            table[key] = result
                        elif keeps_lists:
                            table[key] = KeptList(result)
                    plan.missed()
                    return result
            return body(context, *args)
        return memoised

    def call_procedure(self, name: str, args: list):
        return self.compiled.procedures[name][0](self.context, *args)

    def emit(self, name: str, args: dict, origin: ir.Origin | None = None) -> EventRecord:
        return self.compiled.emitters[name](self.context, args, origin)

    # ------------------------------------------------------------ dice, decisions, log
    def roll(self, count: int, die, origin: ir.Origin | None = None) -> list:
        if count <= 0:
            return []
        if count > MAX_LIST_ITEMS:  # before a single die is rolled
            raise RuleError(f"a roll of {count:,} dice is more than a game may hold ({MAX_LIST_ITEMS:,} items)",
                            origin, "roll fewer dice: a count computed from other values may have grown")
        budget = self.budget
        budget.left -= count  # budget.spend, its common case written out
        if budget.left < 0:
            budget.spend(0, origin)
        try:
            faces, forced = self.roller.roll(count, die)
        except ForcedRollError as exc:
            raise RuleError(str(exc)) from exc
        shown = self.events.shown  # (an undecided face of the odds engine is no FaceSpec: shown keeps it)
        entry = {"type": "roll", "die": die.name, "faces": [f.name if type(f) is FaceSpec else shown(f) for f in faces]}
        if forced:
            entry["forced"] = True
        self.events.record(entry, origin)
        return list(faces)

    def decide(self, name: str, side, options: list, scores, default, origin) -> int:
        if not isinstance(side, Side):
            raise RuleError(f"decision '{name}' needs a side to decide, got {side!r}", origin)
        events = self.events
        shown = events.shown
        if not self.script.answers:
            pick = self.policies[side.name].pick
            if pick is not None:  # a player that reads only the number of options: no Decision
                count = len(options)
                if count > 1:
                    self.asked += 1
                index = pick(count)
                if events.keep_offered and events.file is not None:
                    events.offered = [shown(o) for o in options]
                events.record_decision(name, side.name, shown(options[index]), count, False, origin)
                return index
        # the options are labelled only if a script or a player reads them; the log shows the choice
        decision = Decision(name, side, options, lambda: [shown(o) for o in options], scores, default)
        try:
            answered = self.script.answer(decision) if self.script.answers else None
        except ScriptError as exc:
            raise RuleError(str(exc), origin) from exc
        scripted = answered is not None
        if len(options) > 1:
            self.asked += 1
        index = answered if answered is not None else self.policies[side.name].choose(decision)
        choice = decision.labels[index] if decision.labelled else shown(options[index])
        if events.keep_offered and events.file is not None:  # a game being recorded, not a future
            events.offered = decision.labels if decision.labelled else [shown(o) for o in options]
        events.record_decision(name, side.name, choice, len(options), scripted, origin)
        return index

    # ------------------------------------------------------------ the game's API
    # What search, exact odds, replays of an action, sweeps and a stepping client (a browser
    # server) use instead of assigning the game's fields: tests/test_game_api.py fails when a
    # module outside the game's own assigns one (docs/architecture.md, "Game API").
    @property
    def over(self) -> bool:
        """Whether the game has ended (a side won, a draw, the round limit)."""
        return self.state.over

    @property
    def winner(self) -> str | None:
        """The winning side's name, once there is one."""
        return self.state.winner.name if self.state.winner is not None else None

    def seat(self, side: str, player: Policy) -> None:
        """Have ``player`` answer side ``side``'s decisions from now on (exact odds seat a
        player that branches on every option)."""
        if side not in self.policies:
            raise ValueError(f"no side named '{side}' in this game (sides: {', '.join(self.policies)})")
        self.policies[side] = player

    def use_dice(self, roller: DiceSource) -> None:
        """Roll the game's dice from ``roller`` from now on (exact odds deal every outcome)."""
        self.roller = roller

    def use_shuffler(self, rng) -> None:
        """Shuffle the rules' lists with ``rng.shuffle`` from now on (exact odds refuse to)."""
        self._policy_rng = rng

    def watch_rounds(self, watch: Callable[["Game"], None]) -> None:
        """Call ``watch(game)`` at the start of every round (a sweep follows who leads)."""
        self.round_watchers.append(watch)

    def keep_log(self, *, defer_labels: bool | None = None, rolls_only: bool | None = None) -> None:
        """How the log keeps entries when it writes no file: labelled only when read
        (``defer_labels``), or the rolls alone (``rolls_only``); None leaves a setting as it is."""
        if defer_labels is not None:
            self.events.defer_labels = defer_labels
        if rolls_only is not None:
            self.events.rolls_only = rolls_only

    def push_frame(self, frame: list) -> None:
        """Run ``frame`` (a frame of the resumable rules, or a driver's own: odds' actions) next."""
        self.context.stack.append(frame)

    def drop_frames(self) -> None:
        """Forget every frame running (an action given up: the game ended inside it)."""
        self.context.stack.clear()

    def begin_again(self, mark: int, shuffled: dict, seed: int, roller: DiceSource, script: Script,
                    policies: dict[str, str]) -> None:
        """Put the game back at ``mark`` of its journal as a new game of ``seed`` would stand
        there: the whole budget, ``roller`` and ``script``, fresh players, no log (a replayed
        action, :class:`~.snapshot.Replayer`)."""
        self.budget.reset()
        self.state.undo(mark)
        self.seed = seed
        self.roller = roller
        self._policy_rng = None  # seeded from the seed when first used
        self.shuffled = dict(shuffled)
        self.script = script
        self.policies = {name: make_policy(p, seed, name, self) for name, p in policies.items()}
        self.events.entries = []
        self.context.depth = 0

    def deal_again(self, rng: random.Random) -> None:
        """Shuffle every list the rules shuffled again from ``rng`` (journalled, so a restore
        puts the real order back): an order no player knows, guessed anew by a search."""
        state = self.state
        tokens: set = set()
        definition_lists = self.values.definition_lists
        for items in self.shuffled.values():
            if len(items) > 1:
                state.will_change(items)
                rng.shuffle(items)
                # what the memo knew of the list's order is stale: forgotten as the built-in
                # shuffle forgets it (Memo.list_changer)
                tokens.add(LISTS)
                if id(items) in definition_lists:
                    tokens.add(DEFINITION_LISTS)
        for token in (t for t in (LISTS, DEFINITION_LISTS) if t in tokens):
            forget = self.memo.forgetter(token)
            if forget is not None:
                forget()

    def answer(self, request: Roll | Choice):
        """What the game itself answers at a request of its resumable rules: its dice, or the
        side's player (which may fork the game while it decides: see :attr:`paused_at`)."""
        if isinstance(request, Choice):
            self.paused_at = request
            try:
                return request.options[self.decide(request.name, request.side, request.options, request.scores,
                                                   request.default, request.origin)]
            finally:
                self.paused_at = None
        return roll(self, request)

    # ------------------------------------------------------------ forks
    def fork(self, streams: bool = False) -> Fork:
        """The configuration of the game now (stopped at a request, or between actions), to
        :meth:`restore` later. ``streams``: keep the random streams too, so that the game
        restored and answered the same way plays the same (exact odds answer every chance
        point themselves and need not)."""
        context = self.context
        return Fork(self.state.mark(), [frame[:] for frame in context.stack], len(self.events),
                    self.budget.left_now(), context.depth,
                    {k: list(v) for k, v in self.script.answers.items()}, self._streams() if streams else None,
                    self._pending)

    def restore(self, point: Fork, memo_mark: int | None = None) -> None:
        """Put the game back at ``point``: the state from the journal, the frames, the log, the
        budget, the event depth, the scripted answers left, the random streams if the fork kept
        them, the request pending; and forget every memoised result, or with ``memo_mark`` (the
        memo's :meth:`~hexlore.runtime.engine.core.memo.Memo.mark` taken with the fork) only those
        that read what changed since."""
        self.state.undo(point.mark)
        context = self.context
        context.stack[:] = [frame[:] for frame in point.frames]
        self.events.truncate(point.log_length)
        self.budget.put_back(point.budget)
        context.depth = point.depth
        answers = self.script.answers
        for k, kept in point.script.items():
            answers[k].clear()
            answers[k].extend(kept)
        for owner, attribute, state in point.streams or ():
            if state is None:
                setattr(owner, attribute, None)
            else:
                getattr(owner, attribute).setstate(state)
        self._pending = point.pending
        if memo_mark is None:
            self.memo.clear()
        else:
            self.memo.back(memo_mark)

    def _streams(self) -> list:
        """The random streams the game draws from besides its requests' answers: the dice, the
        shuffles, each random player (a stream made at first use is None until then)."""
        owners = [(self.roller, "rng"), (self, "_policy_rng")] + [(p, "rng") for p in self.policies.values()]
        return [(owner, attribute, None if getattr(owner, attribute, None) is None else
                 getattr(owner, attribute).getstate()) for owner, attribute in owners if hasattr(owner, attribute)]

    @contextmanager
    def exploring(self, dice: DiceSource, shuffler: random.Random) -> Iterator["Exploration"]:
        """Play futures from where the game stands that the game never keeps: each rolls
        ``dice`` and shuffles from ``shuffler``, writes no file and keeps only its rolls, calls
        no watcher of the real game's and nobody's decision is paused. On leaving, the game is
        exactly as it was (state, frames, log, budget, streams, shuffled lists, watchers)."""
        events = self.events
        keeping = self.state.journal is not None
        start = self.fork()
        memo_mark = self.memo.mark()
        saved = (self.roller, self._policy_rng, events.file, events.rolls_only, events.defer_labels,
                 self.paused_at, dict(self.shuffled), self.round_watchers, self.turn_watchers)
        self.round_watchers, self.turn_watchers = [], []
        self.roller, self._policy_rng = dice, shuffler
        events.file, events.rolls_only, events.defer_labels = None, True, False
        self.paused_at = None
        try:
            yield Exploration(self, start, saved[6], memo_mark)
        finally:
            self.restore(start, memo_mark)
            (self.roller, self._policy_rng, events.file, events.rolls_only, events.defer_labels,
             self.paused_at, self.shuffled, self.round_watchers, self.turn_watchers) = saved
            if not keeping:
                self.state.journal = None

    # ------------------------------------------------------------ stepping (OpenSpiel's shape)
    def start(self, max_rounds: int | None = None, stop_at_rolls: bool = False) -> Roll | Choice | None:
        """Begin the game in its resumable form and run it to the first decision with more than
        one option (and, with ``stop_at_rolls``, the first roll): :attr:`pending`, then answered
        with :meth:`apply`. None when the game ran to its end without one."""
        if self.rules.game is None:
            raise ValueError("the packs declare no 'game': nothing to play")
        if self.compiled.not_resumable is not None:
            raise ValueError(f"these rules have no resumable form: {self.compiled.not_resumable}")
        if self.context.stack or self._stepping is not None:
            raise ValueError("the game is already under way")
        self._stepping = stop_at_rolls
        self.push_frame([play_frame, 0, self._round_limit(max_rounds)])
        return self._run_to_request(None)

    @property
    def pending(self) -> Roll | Choice | None:
        """The request the stepped game waits on (see :meth:`start`), None when none is."""
        return self._pending

    def legal_options(self) -> list:
        """The pending decision's options as the log labels them; :meth:`apply` takes an index."""
        request = self._pending
        if request.__class__ is not Choice:
            raise ValueError("no decision is pending" + (": a roll is" if request is not None else ""))
        return [self.events.shown(o) for o in request.options]

    def chance_outcomes(self, limit: int = MAX_CHANCE_OUTCOMES) -> list[tuple[list, Fraction]]:
        """Every distinct outcome of the pending roll (its faces, in the die's order) with its
        exact chance; :meth:`apply` takes one of the face lists. Refused past ``limit`` outcomes."""
        request = self._pending
        if not isinstance(request, Roll):
            raise ValueError("no roll is pending" + (": a decision is" if request is not None else ""))
        count, die = request.count, request.die
        if multiset_count(count, die) > limit:
            raise ValueError(f"a roll of {count} '{die.name}' dice has {multiset_count(count, die):,} outcomes, "
                             f"more than {limit:,}")
        return [(list(faces), chance) for faces, chance in multisets(count, die)]

    def apply(self, answer=None) -> Roll | Choice | None:
        """Answer the pending request and run to the next (returned, and :attr:`pending`).

        A decision takes an option's index (None: the side's own player chooses), logged as
        that side's choice; a roll takes its faces (None: the game's own dice roll them)."""
        request = self._pending
        if request is None:
            raise ValueError("nothing is pending: start the game, or it is over")
        if answer is None:
            return self._run_to_request(request, own=True)
        if isinstance(request, Choice):
            if answer.__class__ is not int or not 0 <= answer < len(request.options):
                raise ValueError(f"decision '{request.name}' has {len(request.options)} options: "
                                 f"give an index from 0 to {len(request.options) - 1}")
            given = _Given(answer, self.policies, request.side.name)
            self.policies[given.side] = given
            try:
                return self._run_to_request(request, own=True)
            finally:
                if self.policies[given.side] is given:  # not asked: a rule failed first
                    self.policies[given.side] = given.player
        faces = list(answer)
        if len(faces) != request.count or any(face not in request.die.faces for face in faces):
            raise ValueError(f"a roll of {request.count} '{request.die.name}' dice takes {request.count} of its "
                             "faces (see chance_outcomes)")
        dice = self.roller
        self.roller = _Dealt(faces)
        try:
            return self._run_to_request(request, own=True)
        finally:
            self.roller = dice

    def _run_to_request(self, request, own: bool = False) -> Roll | Choice | None:
        """Answer ``request`` as the game would (``own``), then drive to the next request that
        :meth:`start` said to stop at."""
        self._pending = None
        try:
            stopped = self.guarded(self._drive_on, request, own)
        except BaseException:
            self.drop_frames()
            raise
        if stopped is None or stopped.__class__ not in (Roll, Choice):
            self.drop_frames()
            return None
        self._pending = stopped
        return stopped

    def _drive_on(self, request, own: bool):
        x = self.answer(request) if own else None
        stop_at_rolls = self._stepping

        def ask(asked):
            if asked.__class__ is Choice:  # a decision the scenario's script answers is not the client's
                return asked if len(asked.options) > 1 and not self.script.answers.get(asked.name) \
                    else self.answer(asked)
            return asked if stop_at_rolls else self.answer(asked)
        return drive(self, x, ask=ask)

    # ------------------------------------------------------------ playing
    def run_block(self, name: str) -> None:
        block = self.compiled.blocks.get(name)
        if block is not None:
            block(self.context)

    def aftermath(self) -> None:
        """Run the game's ``aftermath`` block, once the game is over (a campaign does, before it
        writes its sheet; ``play`` does not). Rule failures raise :class:`RuntimeRuleError`."""
        if not self.state.over:
            raise ValueError("the aftermath comes after the game: play it first")
        self.guarded(self.run_block, "aftermath")

    def play(self, max_rounds: int | None = None, resumable: bool = False) -> GameResult:
        """Play to the end: setup, then rounds until a side wins or the round limit.

        ``resumable``: run the resumable form of the rules (hexlore/runtime/engine/resume.py),
        each roll and decision answered by the game as the direct form answers it: the same
        game, the same log (a test plays every recorded seed both ways)."""
        if self.rules.game is None:
            raise RuntimeRuleError(error(codes.RULE_ERROR, "the packs declare no 'game': nothing to play",
                                         self.scenario.path, Span(), "add 'game NAME { round { … } }'"))
        limit = self._round_limit(max_rounds)
        searchers = [p.name for p in self.policies.values() if getattr(p, "needs_forks", False)]
        if resumable or searchers:
            if self.compiled.not_resumable is not None:
                if searchers:
                    raise RuntimeRuleError(error(
                        codes.RULE_ERROR, f"the '{searchers[0]}' player needs rules it can stop and fork, but "
                        f"{self.compiled.not_resumable}", self.scenario.path, Span(),
                        "give the sides another player (greedy, random, first)"))
                raise ValueError(f"these rules have no resumable form: {self.compiled.not_resumable}")
            self.context.stack[:] = [[play_frame, 0, limit]]
            try:
                self.guarded(drive, self)
            finally:
                self.context.stack.clear()
        else:
            self.guarded(self._play, limit)
        return self.result()

    def _round_limit(self, max_rounds: int | None) -> int:
        """The last round: the caller's, else the scenario's, else the game's setting."""
        settings = self.rules.game.settings if self.rules.game is not None else {}
        return max_rounds or self.scenario.max_rounds or (
            self.const(settings["max_rounds"]) if "max_rounds" in settings else DEFAULT_MAX_ROUNDS)

    def _play(self, limit: int) -> None:
        try:
            self.run_block("setup")
            while not self.state.over and self.state.game["round"] < limit:
                self.state.write(self.state.game, "round", self.state.game["round"] + 1)
                self.forget_round()
                self.events.record({"type": "round"})
                for watch in self.round_watchers:
                    watch(self)
                self.run_block("round")
            if not self.state.over:
                self.run_block("end")
            if not self.state.over:
                self.state.set(self.state, "over", True)
                self.events.record({"type": "end", "winner": None, "reason": "round limit"})
        except GameOver:
            pass

    def guarded(self, fn, *args):
        """Run rules code, turning a rule failure into a located diagnostic.

        Function results are memoised only in here: the outermost call starts and ends with an
        empty memo, so whatever Python changes between two calls (a test's ``given``, a
        snapshot restored) is never answered from a stale memo.
        """
        outer = self.memo.on
        if not outer:
            self.memo.clear()
            self.memo.on = self.memoise
        try:
            return self._guarded(fn, args)
        finally:
            if not outer:
                self.memo.on = False
                self.memo.clear()

    def _guarded(self, fn, args):
        try:
            return fn(*args)
        except GameOver:
            return None
        except RuleError as exc:
            origin = (rule_error(exc) or exc).origin or ir.NOWHERE  # a RuleError comes back located, never None
            raise RuntimeRuleError(error(exc.code, str(exc), origin.file, origin.span, exc.hint)) from exc
        except RecursionError as exc:
            raise RuntimeRuleError(error(codes.RULE_ERROR, "rules nested too deeply", self.scenario.path,
                                         Span())) from exc
        except (TypeError, ValueError, KeyError, AttributeError, IndexError, ZeroDivisionError) as exc:
            found = rule_error(exc)
            if found is not None:  # a failure of the rules' own code, at the rule that failed
                origin = found.origin or ir.NOWHERE
                raise RuntimeRuleError(error(found.code, str(found), origin.file, origin.span,
                                             found.hint)) from exc
            # the compiler should have caught this; report it rather than crash
            raise RuntimeRuleError(error(codes.RULE_ERROR, f"rules failed at run time: {exc!r}",
                                         self.scenario.path, Span(),
                                         "please report this: the compiler let an ill-typed rule through"))\
                from exc

    def result(self) -> GameResult:
        eliminated: dict[str, list[str]] = {s.name: [] for s in self.state.sides}
        for u in self.state.units.values():
            if not u.alive:
                eliminated[u.side.name].append(u.id)
        winner = self.state.winner.name if self.state.winner else None
        search = {side: {"searches": p.cost.searches, "simulations": p.cost.simulations,
                         "decisions_in_futures": p.cost.decisions_played, "ms_per_decision": p.cost.per_search_ms()}
                  for side, p in self.policies.items() if isinstance(p, SearchPolicy)}
        return GameResult(winner, self.state.game["round"], self.state.game["turn"], eliminated,
                          self.events.entries, search)


@dataclass
class Fork:
    """Everything a game's rules could change between a chance point and the end of an action,
    taken so that the game can be put back there (:meth:`Game.fork`, :meth:`Game.restore`)."""

    mark: int
    frames: list
    log_length: int
    budget: tuple
    depth: int
    script: dict
    streams: list | None = None  # (owner, attribute, random state or None) of each random stream
    pending: Roll | Choice | None = None  # the request a stepped game waited on (Game.pending)


class Exploration:
    """Futures played from one point of a game (:meth:`Game.exploring`): :meth:`again` before
    each puts the game back at the point."""

    __slots__ = ("game", "start", "shuffled", "memo_mark")

    def __init__(self, game: Game, start: Fork, shuffled: dict, memo_mark: int | None = None):
        self.game, self.start, self.shuffled, self.memo_mark = game, start, shuffled, memo_mark

    def again(self) -> None:
        """Back at the point, every shuffled list in its real order (a list a future shuffled is
        not the next one's secret)."""
        game = self.game
        game.restore(self.start, self.memo_mark)
        game.shuffled = dict(self.shuffled)

    def on_turn(self, watch: Callable) -> None:
        """Call ``watch(side)`` at each turn begun in this future (its only turn watcher)."""
        self.game.turn_watchers = [watch]


class _Given(Policy):
    """The option a stepping client gave (:meth:`Game.apply`): that side's choice, once; the
    side's own player answers its next decisions."""

    name = "given"

    def __init__(self, index: int, policies: dict, side: str):
        self.index, self.policies, self.side = index, policies, side
        self.player = policies[side]

    def choose(self, decision: Decision) -> int:
        self.policies[self.side] = self.player
        return self.index


class _Dealt:
    """The faces a stepping client gave a roll (:meth:`Game.apply`)."""

    def __init__(self, faces: list):
        self.faces = faces

    def roll(self, count: int, die) -> tuple[list, bool]:
        return list(self.faces), False


def _nothing() -> None:
    """What a change forgets when nothing was memoised from it."""


def _evaluator(game: Game):
    """``evaluate(node)`` of constant expressions for the scenario's values, holding the game
    weakly (the values belong to the game)."""
    gref = weakref.ref(game)

    def evaluate(node: ir.X):
        held = gref()
        if held is None:  # the values outlived their game: nothing left to evaluate in
            raise ReferenceError("the game these scenario values belong to is gone")
        return held.const(node)
    return evaluate


def dump_log(log: list[dict]) -> str:
    return "".join(json.dumps(e, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n" for e in log)
