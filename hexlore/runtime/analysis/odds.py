"""Exact odds of one action, by running the compiled rules over every distinct dice outcome.

Once its dice and decisions are fixed, an action (a procedure call, as in a scenario test's
``do:``) is deterministic. So its exact distribution comes from running it in the resumable
form of the rules and **forking** the game at each chance point: each outcome continues from
the state reached, and configurations met again are merged (:mod:`.odds_tree`). Each path
ends in one leaf, weighed by the product of the chances chosen on its way, so rerolls and
rolls whose size depends on earlier rolls nest with no special case. (Rules with no
resumable form are enumerated by replaying the action once per outcome.)

A roll of ``n`` dice branches over the **multisets** of faces (``C(n+g-1, g-1)`` for ``g``
distinct faces), not the ``g**n`` sequences, with multinomial weights in exact
:class:`~fractions.Fraction`. That is sound because the runtime hands the rules every random
pool in canonical face order (:mod:`hexlore.runtime.engine.dice`): rules cannot see the order of a
throw. Decisions follow a named policy; a side playing ``random`` is one more chance point
(each option equally likely). Anything else random inside the action (``shuffle``) cannot
be enumerated and is reported; ``samples=N`` estimates by seeded Monte Carlo instead.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Sequence

import yaml

from hexlore.compiler.model import DieSpec, FaceSpec, RuleSet
from hexlore.diagnostics import Diagnostic, Span, codes, did_you_mean, error
from hexlore.runtime.engine.dice import Roller, chances, multiset_count, multisets
from hexlore.runtime.engine.core.face_classes import FaceClass
from hexlore.runtime.engine.game import Game, RuntimeRuleError
from hexlore.runtime.engine.policies import Decision, Policy
from hexlore.runtime.engine.snapshot import Replayer, copy_value
from hexlore.runtime.engine.core.state import label
from hexlore.runtime.analysis.odds_tree import TooManyOutcomes, Tree
from hexlore.runtime.analysis.stats import derive_seed, wilson
from hexlore.runtime.analysis.scenario_tests import event_matches, action_args, apply_given


POLICIES = ("first", "greedy", "random", "scenario")
DEFAULT_BUDGET = 50_000


class OddsError(Exception):
    """A question that cannot be answered; carries a located :class:`Diagnostic`."""

    def __init__(self, code: str, message: str, hint: str | None = None, file: str = "<odds>",
                 span: Span = Span()):
        super().__init__(message)
        self.diagnostic: Diagnostic = error(code, message, file, span, hint)


# ---------------------------------------------------------------- the question
@dataclass(frozen=True)
class ActionCall:
    """One action: a procedure and its arguments, exactly a scenario test's ``do:`` item."""

    call: str
    args: dict = field(default_factory=dict)


@dataclass
class Question:
    """What to run: the rules, the scenario's start, ``given`` changes, actions, decisions."""

    rules: RuleSet
    scenario: Any
    actions: list[ActionCall]
    given: dict = field(default_factory=dict)
    decisions: dict = field(default_factory=dict)
    policy: str = "first"
    outcome: list[str] = field(default_factory=list)


def parse_actions(text: str, source: str = "--action") -> list[ActionCall]:
    """Actions from text: a ``do:`` item or list in YAML flow form, or ``NAME(key: value, …)``.

    ``{call: attack, with: {attacker: a1, target: b2}}`` and ``attack(attacker: a1, target: b2)``
    mean the same; a YAML list of items runs them in order.
    """
    text = text.strip()
    short = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)\s*\((.*)\)", text, re.S)
    if short:
        text = f"{{call: {short.group(1)}, with: {{{short.group(2)}}}}}"
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        span = Span.at(1, mark.column + 1) if mark is not None else Span()
        raise OddsError(codes.BAD_ACTION, f"the action is not valid YAML: {getattr(exc, 'problem', exc)}",
                        "write it as a scenario test's do: item, e.g. "
                        "'{call: melee_attack, with: {attacker: a, target: b}}'", source, span) from None
    return actions_from(data, source)


def actions_from(data, source: str = "--action") -> list[ActionCall]:
    """Actions from data already parsed: a ``do:`` item (``call``, ``with``) or a list of them."""
    items = data if isinstance(data, list) else [data]
    actions = []
    for item in items:
        if isinstance(item, str):
            item = {"call": item}
        if not isinstance(item, dict) or not isinstance(item.get("call"), str) or \
                not isinstance(item.get("with") or {}, dict) or set(item) - {"call", "with"}:
            raise OddsError(codes.BAD_ACTION, f"an action is a mapping with 'call' and 'with', got {item!r}",
                            "e.g. '{call: melee_attack, with: {attacker: a, target: b}}'", source)
        actions.append(ActionCall(item["call"], dict(item.get("with") or {})))
    if not actions:
        raise OddsError(codes.BAD_ACTION, "no action given", "name a procedure to call", source)
    return actions


def parse_mapping(text: str | None, source: str) -> dict:
    """A YAML flow mapping from the command line (``--given``, ``--decisions``)."""
    if not text:
        return {}
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise OddsError(codes.BAD_ACTION, f"{source} is not valid YAML: {getattr(exc, 'problem', exc)}",
                        "write a flow mapping, e.g. '{a1: {hex: F5}}'", source) from None
    if not isinstance(data, dict):
        raise OddsError(codes.BAD_ACTION, f"{source} must be a mapping, got {data!r}",
                        "write a flow mapping, e.g. '{a1: {hex: F5}}'", source)
    return data


# ---------------------------------------------------------------- outcome specs
@dataclass(frozen=True)
class OutcomeSpec:
    """One column of the outcome: a value read from the game after the action.

    kinds: ``event`` (how many matching events, or a combined argument), ``unit``, ``side``,
    ``game`` (a field, read at the end), ``winner``.
    """

    text: str
    kind: str
    name: str = ""  # event name, unit id, side name
    field: str = ""  # field or event argument
    filters: tuple[tuple[str, Any], ...] = ()
    combine: str = "last"  # an event argument over the matching events: sum (int), any (bool), last

    def value(self, game: Game, since: int = 0):
        """The value now; ``since``: events count from this log entry on (odds from a game
        under way read only what the option led to, not the events before it)."""
        return _hashable(self._read(game, since))

    def _read(self, game: Game, since: int = 0):
        st = game.state
        if self.kind == "winner":
            return st.winner.name if st.winner else None
        if self.kind == "event":
            wanted = {"event": self.name, **dict(self.filters)}
            hits = [e for e in game.log[since:] if e["type"] == "event" and event_matches(e, wanted)]
            if not self.field:
                return len(hits)
            values = [e["args"].get(self.field) for e in hits]
            if self.combine == "sum":
                return sum(values)
            if self.combine == "any":
                return any(values)
            return values[-1] if values else None
        if self.kind == "unit":
            u = st.units[self.name]
            if self.field == "alive":
                return u.alive
            if self.field == "hex":
                return label(u.hex, st.board)
            return label(u.f.get(self.field), st.board)
        if self.kind == "side":
            side = st.side(self.name)
            if side is None:  # the spec was read against this scenario's sides
                raise KeyError(f"no side named {self.name!r}")
            return label(side.f.get(self.field), st.board)
        return label(st.game.get(self.field), st.board)


def _hashable(value):
    return tuple(_hashable(v) for v in value) if isinstance(value, list) else value


_EVENT = re.compile(r"event:\s*([A-Za-z_]\w*)\s*(?:\((.*)\))?\s*(?:\.\s*([A-Za-z_]\w*))?\s*")
_DOTTED = re.compile(r"([^.()\s]+)\.([A-Za-z_]\w*)")
_CALLED = re.compile(r"([A-Za-z_]\w*)\(\s*([^()\s]+)\s*\)")


def parse_outcome(text: str, game: Game) -> OutcomeSpec:
    """Resolve one outcome spec against a game set up for the action (before it runs).

    ``event:NAME``, ``event:NAME(arg=value, …)``, ``event:NAME(…).ARG``; ``SUBJECT.FIELD``
    (also written ``FIELD(SUBJECT)``) where SUBJECT is a unit id, a hex label (the unit on it
    when the action starts), a side name or ``game``; ``winner``.
    """
    rules, st = game.rules, game.state
    raw = text.strip()

    def bad(message, hint=None):
        return OddsError(codes.BAD_OUTCOME, message, hint, "--outcome", Span.at(1, 1, len(raw)))

    if raw == "winner":
        return OutcomeSpec(raw, "winner")
    m = _EVENT.fullmatch(raw)
    if m:
        name, filters_text, arg = m.group(1), m.group(2), m.group(3) or ""
        name = rules.find(rules.events, name) or name  # a qualified name (pack.name) means its key
        spec = rules.events.get(name)
        if spec is None:
            guess = did_you_mean(name, rules.events)
            raise bad(f"no event named '{name}'", f"did you mean '{guess}'?" if guess else
                      f"events: {', '.join(sorted(rules.events))}")
        params = [p.name for p in spec.params]
        filters = []
        for part in (filters_text or "").split(","):
            if not part.strip():
                continue
            key, sep, value = part.partition("=")
            if not sep:
                key, sep, value = part.partition(":")
            key = key.strip()
            if not sep or key not in params:
                raise bad(f"'{part.strip()}' is not a filter on an argument of '{name}'",
                          f"write ARG=VALUE with ARG one of: {', '.join(params)}")
            filters.append((key, yaml.safe_load(value.strip()) if value.strip() else None))
        if arg and arg not in params:
            raise bad(f"event '{name}' has no argument '{arg}'", f"arguments: {', '.join(params)}")
        kind = next((p.type.name for p in spec.params if p.name == arg), "")
        combine = {"int": "sum", "bool": "any"}.get(kind, "last")
        return OutcomeSpec(raw, "event", name, arg, tuple(filters), combine)
    m = _DOTTED.fullmatch(raw)
    subject, fname = (m.group(1), m.group(2)) if m else (None, None)
    if not m:
        m = _CALLED.fullmatch(raw)
        if m:
            subject, fname = m.group(2), m.group(1)
    if subject is None or fname is None:  # both or neither
        raise bad(f"cannot read the outcome '{raw}'",
                  "write event:NAME, event:NAME(arg=value).ARG, UNIT.FIELD, HEX.FIELD, SIDE.FIELD, "
                  "game.FIELD or winner")
    if subject == "game":
        fields = set(rules.kinds["game"].fields) | {"round", "turn"}
        if fname not in fields:
            raise bad(f"the game has no field '{fname}'", _fields_hint(fname, fields))
        return OutcomeSpec(raw, "game", "game", fname)
    side = st.side(subject)
    if side is not None:
        fields = set(rules.kinds["side"].fields)
        if fname not in fields:
            raise bad(f"sides have no field '{fname}'", _fields_hint(fname, fields))
        return OutcomeSpec(raw, "side", side.name, fname)
    unit = st.units.get(subject)
    if unit is None:
        try:
            h = st.board.parse_label(subject)
        except ValueError:
            h = None
        here = st.units_at(h) if h is not None else []
        if h is not None and not here:
            raise bad(f"no unit on {subject} when the action starts", "name a hex with a unit, or a unit id")
        unit = here[0] if here else None
    if unit is None:
        names = list(st.units) + [s.name for s in st.sides] + ["game"]
        guess = did_you_mean(subject, names)
        raise bad(f"'{subject}' is not a unit, a hex, a side or 'game'",
                  f"did you mean '{guess}'?" if guess else f"units: {', '.join(st.units)}")
    fields = set(rules.kinds["unit"].fields) | {"alive", "hex"}
    if fname not in fields:
        raise bad(f"units have no field '{fname}'", _fields_hint(fname, fields))
    return OutcomeSpec(raw, "unit", unit.id, fname)


def _fields_hint(name: str, fields) -> str:
    guess = did_you_mean(name, fields)
    return f"did you mean '{guess}'?" if guess else f"fields: {', '.join(sorted(fields))}"


def default_outcome(game: Game, question: Question) -> list[OutcomeSpec]:
    """Every field of every unit the actions name; columns that never change are dropped later."""
    ids: list[str] = []
    for a in question.actions:
        for value in a.args.values():
            for v in value if isinstance(value, list) else [value]:
                if isinstance(v, str) and v in game.state.units and v not in ids:
                    ids.append(v)
    fields = ["alive", "hex"] + list(game.rules.kinds["unit"].fields)
    return [OutcomeSpec(f"{u}.{f}", "unit", u, f) for u in ids for f in fields]


# ---------------------------------------------------------------- results
@dataclass
class OddsRow:
    values: tuple
    probability: Fraction
    count: int | None = None  # samples only
    low: float | None = None  # 95% Wilson interval, samples only
    high: float | None = None


@dataclass
class OddsResult:
    """The distribution of the outcome: exact (enumerated) or estimated (sampled)."""

    columns: list[str]
    rows: list[OddsRow]
    exact: bool
    enumerated: int  # runs of the action: leaves of the enumeration, or samples
    policy: str
    seed: int | None = None

    @property
    def distribution(self) -> dict[tuple, Fraction]:
        return {r.values: r.probability for r in self.rows}

    def marginal(self, column: str) -> dict[Any, Fraction]:
        """Chance of each value of one column (exact, or the sampled frequency)."""
        i = self.columns.index(column)
        out: dict[Any, Fraction] = {}
        for r in self.rows:
            out[r.values[i]] = out.get(r.values[i], Fraction(0)) + r.probability
        return dict(sorted(out.items(), key=lambda kv: _order(kv[0])))

    def chance(self, column: str, predicate) -> Fraction:
        """Chance that one column's value satisfies ``predicate`` (a value or a callable)."""
        test = predicate if callable(predicate) else (lambda v: v == predicate)
        return sum((p for v, p in self.marginal(column).items() if test(v)), Fraction(0))

    def mean(self, column: str) -> Fraction | None:
        m = self.marginal(column)
        if not all(isinstance(v, (int, bool)) for v in m):
            return None
        return sum((Fraction(int(v)) * p for v, p in m.items()), Fraction(0))

    def to_json(self) -> dict:
        def prob(p: Fraction, count=None, low=None, high=None) -> dict:
            out = {"probability": f"{p.numerator}/{p.denominator}", "p": float(p)}
            if count is not None:
                out.update({"count": count, "low": low, "high": high})
            return out

        marginals = {}
        for c in self.columns:
            entries = []
            for v, p in self.marginal(c).items():
                extra = {}
                if not self.exact:
                    k = round(p * self.enumerated)
                    lo, hi = wilson(k, self.enumerated)
                    extra = {"count": k, "low": lo, "high": hi}
                entries.append({"value": v, **prob(p), **extra})
            mean = self.mean(c)
            marginals[c] = {"values": entries,
                            "mean": None if mean is None else
                            {"exact": f"{mean.numerator}/{mean.denominator}", "value": float(mean)}}
        return {"exact": self.exact, "enumerated" if self.exact else "samples": self.enumerated,
                "policy": self.policy, "seed": self.seed, "columns": self.columns,
                "rows": [{"outcome": dict(zip(self.columns, r.values)),
                          **prob(r.probability, r.count, r.low, r.high)} for r in self.rows],
                "marginals": marginals}


def _order(value) -> tuple:
    if value is None:
        return (0, 0, "")
    if isinstance(value, bool):
        return (1, int(value), "")
    if isinstance(value, int):
        return (2, value, "")
    return (3, 0, str(value))


# ---------------------------------------------------------------- running one branch
class _BudgetExceeded(Exception):
    pass


class _NotEnumerable(Exception):
    pass


class _Explorer:
    """Answers chance points from a prefix of choices, then takes the first option of each."""

    def __init__(self, prefix: tuple, budget: int):
        self.prefix = prefix
        self.budget = budget
        self.path: list[tuple[int, tuple]] = []  # (choice, key) per chance point
        self.options: list[int] = []
        self.weight = Fraction(1)

    def choose(self, key: tuple, chances: Sequence[Fraction]) -> int:
        i = len(self.path)
        if i < len(self.prefix):
            choice, expected = self.prefix[i]
            if expected != key:
                raise _NotEnumerable(
                    f"the action did not replay the same way: chance point #{i + 1} was {expected} "
                    f"and is now {key}; something besides the dice and the policy is random")
        else:
            choice = 0
        self.path.append((choice, key))
        self.options.append(len(chances))
        self.weight *= chances[choice]
        return choice


class _EnumRoller:
    def __init__(self, explorer: _Explorer, cache: dict):
        self.explorer = explorer
        self.cache = cache  # (die name, count) -> chance point, outcomes, chances; names are unique

    def roll(self, count: int, die: DieSpec) -> tuple[list[FaceSpec], bool]:
        if count <= 0:
            return [], False
        key = (die.name, count)
        cached = self.cache.get(key)
        if cached is None:
            if multiset_count(count, die) > self.explorer.budget:
                raise _BudgetExceeded(f"one roll of {count} '{die.name}' dice alone has "
                                      f"{multiset_count(count, die)} outcomes")
            cached = self.cache[key] = (("roll",) + key, multisets(count, die), chances(count, die))
        point, options, weights = cached
        return list(options[self.explorer.choose(point, weights)][0]), False


class _ChancePolicy(Policy):
    """A side playing ``random`` during enumeration: each option is one more branch."""

    name = "random"

    def __init__(self, explorer: _Explorer):
        self.explorer = explorer

    def choose(self, decision: Decision) -> int:
        n = len(decision.options)
        if n <= 1:
            return 0
        return self.explorer.choose(("decision", decision.name, n), [Fraction(1, n)] * n)


class _NoShuffle:
    def shuffle(self, items) -> None:
        raise _NotEnumerable("the action shuffles a list: exact odds enumerate dice and random "
                             "decisions only")


def _side_policies(q: Question) -> dict[str, str]:
    return {s.name: (s.policy if q.policy == "scenario" else q.policy) for s in q.scenario.sides}


class _Runner:
    """The question set up once (one linked game, ``given`` applied, arguments converted)."""

    def __init__(self, q: Question):
        if q.policy not in POLICIES:
            raise OddsError(codes.BAD_ACTION, f"no policy named '{q.policy}'", f"policies: {', '.join(POLICIES)}",
                            "--policy")
        self.policies = _side_policies(q)
        game = Game(q.rules, q.scenario, seed=0, decisions={}, policies=self.policies)
        failures: list[str] = []
        apply_given(game, q.given, failures.append)
        if failures:
            raise OddsError(codes.BAD_ACTION, "; ".join(failures), "check the units and fields of --given", "--given")
        self.calls = []
        for action in q.actions:
            args = action_args(game, action.call, action.args, failures.append)
            if args is None:
                raise OddsError(codes.BAD_ACTION, "; ".join(failures), "an action is a procedure of the packs "
                                "and its arguments, as in a scenario test's do:", "--action")
            self.calls.append((action.call, args))
        self.specs = [parse_outcome(t, game) for t in q.outcome] if q.outcome else default_outcome(game, q)
        self.replayer = Replayer(game, q.decisions, self.policies)

    def run(self, roller, seed: int = 0, explorer: _Explorer | None = None) -> Game:
        game = self.replayer.reset(roller, seed)
        if explorer is not None:
            chance = _ChancePolicy(explorer)
            for side, name in self.policies.items():
                if name not in ("first", "greedy", "scripted"):
                    game.seat(side, chance)
            game.use_shuffler(_NoShuffle())
        for call, args in self.calls:
            game.guarded(game.call_procedure, call, copy_value(args))
            if game.state.over:
                break
        return game

    def outcome(self, game: Game) -> tuple:
        return tuple(s.value(game) for s in self.specs)


def _rows(specs: list[OutcomeSpec], tally: dict[tuple, Any], chosen: bool) -> tuple[list[str], dict]:
    """Drop default columns that never vary, merging the rows that become equal."""
    if chosen or not tally:
        return [s.text for s in specs], tally
    keep = [i for i in range(len(specs)) if len({k[i] for k in tally}) > 1]
    if not keep:
        keep = [i for i, s in enumerate(specs) if s.field == "alive"][:1] or [0][:len(specs)]
    merged: dict[tuple, Any] = {}
    for k, v in tally.items():
        key = tuple(k[i] for i in keep)
        merged[key] = merged.get(key, 0) + v
    return [specs[i].text for i in keep], merged


def _face_text(face) -> str:
    """A face of a rolled pool as the log shows it; one still undecided as its possible faces."""
    if type(face) is FaceClass:
        return " or ".join(m.name for m in face.members)
    return str(face)


def _located(exc: RuntimeRuleError, game: Game) -> RuntimeRuleError:
    """The rule failure, with the dice of the branch that led to it (the rules fail only there)."""
    rolls = "; ".join(f"{e['die']} [{', '.join(map(_face_text, e['faces']))}]" for e in game.log
                      if e["type"] == "roll")
    hint = f"the dice showed: {rolls}" if rolls else "before any dice were rolled"
    if exc.diagnostic.hint:
        hint = f"{exc.diagnostic.hint}; {hint}"
    return RuntimeRuleError(dataclasses.replace(exc.diagnostic, hint=hint))


# ---------------------------------------------------------------- the two ways to answer
def enumerate_odds(q: Question, budget: int = DEFAULT_BUDGET) -> OddsResult:
    """The exact distribution: every distinct outcome of the action's chance points.

    The game is forked at each chance point and each outcome followed from the state reached,
    equal configurations merged (:mod:`.odds_tree`); rules whose resumable form cannot be made
    are enumerated by replaying the action once per outcome instead. Raises
    :class:`OddsError` (``O001``) as soon as the branches exceed ``budget``, and (``O004``)
    when the action uses randomness it cannot branch on.
    """
    runner = _Runner(q)
    if runner.replayer.game.compiled.not_resumable is not None:
        return _replayed(q, runner, budget)
    game = runner.replayer.reset(None)
    game.use_shuffler(_NoShuffle())
    random_sides = {side for side, name in runner.policies.items() if name not in ("first", "greedy", "scripted")}
    tree = Tree(game, runner.calls, runner.outcome, random_sides,
                {s.name for s in runner.specs if s.kind == "event"}, budget)
    try:
        tally = game.guarded(tree.run)
    except TooManyOutcomes as exc:
        raise _too_many(budget, exc) from None
    except _NotEnumerable as exc:
        raise OddsError(codes.NOT_ENUMERABLE, str(exc), "estimate instead with --samples N") from None
    except RuntimeRuleError as exc:
        raise _located(exc, game) from None
    return _result(q, runner.specs, tally, tree.ends)


def _too_many(budget: int, exc: Exception) -> OddsError:
    return OddsError(codes.BUDGET_EXCEEDED, f"more than {budget} dice outcomes to enumerate ({exc})",
                     "estimate instead with --samples N (seeded Monte Carlo with a 95% interval), "
                     "or raise --budget")


def _result(q: Question, specs: list[OutcomeSpec], tally: dict[tuple, Fraction], runs: int) -> OddsResult:
    total = sum(tally.values(), Fraction(0))
    if total != 1:  # by construction; a failure here means the runs were not deterministic
        raise OddsError(codes.NOT_ENUMERABLE, f"the enumerated chances add up to {total}, not 1")
    columns, merged = _rows(specs, tally, bool(q.outcome))
    rows = [OddsRow(k, p) for k, p in sorted(merged.items(), key=lambda kv: tuple(map(_order, kv[0])))]
    return OddsResult(columns, rows, True, runs, q.policy)


def _replayed(q: Question, runner: "_Runner", budget: int) -> OddsResult:
    """Replay enumeration: run the action on a fresh game whose dice are answered from a
    *prefix* of choices; at the first roll past the prefix take the first outcome and remember
    how many there were; afterwards enumerate every sibling of every new chance point."""
    specs = runner.specs
    tally: dict[tuple, Fraction] = {}
    stack: list[tuple] = [()]
    rolls: dict = {}
    runs = 0
    try:
        while stack:
            prefix = stack.pop()
            explorer = _Explorer(prefix, budget)
            game = runner.run(_EnumRoller(explorer, rolls), explorer=explorer)
            runs += 1
            key = runner.outcome(game)
            tally[key] = tally.get(key, Fraction(0)) + explorer.weight
            path = explorer.path
            for j in range(len(prefix), len(path)):
                for alt in range(explorer.options[j] - 1, 0, -1):
                    stack.append(tuple(path[:j]) + ((alt, path[j][1]),))
            if runs + len(stack) > budget:
                raise _BudgetExceeded(f"{runs} outcomes enumerated and {len(stack)} more branches waiting")
    except _BudgetExceeded as exc:
        raise _too_many(budget, exc) from None
    except _NotEnumerable as exc:
        raise OddsError(codes.NOT_ENUMERABLE, str(exc), "estimate instead with --samples N") from None
    except RuntimeRuleError as exc:
        raise _located(exc, runner.replayer.game) from None
    return _result(q, specs, tally, runs)


def sample_odds(q: Question, samples: int, seed: int = 0) -> OddsResult:
    """A Monte Carlo estimate from ``samples`` seeded runs, each value with a 95% Wilson interval."""
    if samples <= 0:
        raise OddsError(codes.BAD_ACTION, "samples must be positive", "e.g. --samples 10000", "--samples")
    runner = _Runner(q)
    specs = runner.specs
    tally: dict[tuple, int] = {}
    for k in range(samples):
        s = derive_seed(seed, k, "odds")
        try:
            game = runner.run(Roller(s), seed=s)
        except RuntimeRuleError as exc:
            raise _located(exc, runner.replayer.game) from None
        key = runner.outcome(game)
        tally[key] = tally.get(key, 0) + 1
    columns, merged = _rows(specs, tally, bool(q.outcome))
    rows = []
    for k, n in sorted(merged.items(), key=lambda kv: tuple(map(_order, kv[0]))):
        lo, hi = wilson(n, samples)
        rows.append(OddsRow(k, Fraction(n, samples), n, lo, hi))
    return OddsResult(columns, rows, False, samples, q.policy, seed)
