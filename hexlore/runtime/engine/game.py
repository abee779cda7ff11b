"""A game: a compiled rule set played on a scenario, with seeded dice and policies.

The game owns the state, the event bus (dispatch of compiled triggers), the dice, the
decisions and the JSON-lines event log. Same rules + scenario + seed + decisions give the
same log, byte for byte: the only randomness is the seeded dice and policy streams.
"""

from __future__ import annotations

import json
import random
import weakref
from dataclasses import dataclass, field
from typing import IO, Callable

from hexlore.compiler import ir
from hexlore.compiler.model import DefinitionSpec, RuleSet
from hexlore.compiler.types import Type
from hexlore.dsl.diagnostics import Diagnostic, Span, did_you_mean, error
from hexlore.runtime.engine.builtins import make_builtins
from hexlore.runtime.engine.cast import Cast, add_campaign_units
from hexlore.runtime.engine.dice import DiceSource, ForcedRollError, Roller
from hexlore.runtime.geometry.grid import Hex
from hexlore.runtime.engine.interpreter import Linker
from hexlore.runtime.engine.link_statements import run_body
from hexlore.runtime.engine.linked import BUDGET, MAX_LIST_ITEMS, GameOver, RuleError
from hexlore.runtime.engine.memo import EVENT, MISS, SKIP, Memo, Plan
from hexlore.runtime.engine.policies import Decision, Policy, Script, ScriptError, make_policy
from hexlore.runtime.scenarios.model import (HEX_NOT_ON_BOARD, NO_DECK_FIELD, UNKNOWN_DEFINITION, UNKNOWN_FIELD, UNKNOWN_IN_TEST,
                             UNKNOWN_OPTION, UNKNOWN_SIDE, UNKNOWN_TERRAIN, UNKNOWN_UNIT_TYPE, WRONG_VALUE,
                             unknown_side_message)
from hexlore.runtime.engine.state import EventRecord, GameState, Side, Unit, label

#: what json.dumps(entry, sort_keys=True, separators=(",", ":"), ensure_ascii=False) uses,
#: made once (json.dumps builds a new encoder at each call when given options)
_LOG_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _log_encoder() -> Callable[[dict], str]:
    """``_LOG_ENCODER.encode``, cheaper: the C encoder it makes at every call, made once, and
    made without the check for circular lists (a log entry is built afresh from labels, so it
    holds none). The same text: the same C encoder with the same settings."""
    c_make_encoder = getattr(json.encoder, "c_make_encoder", None)
    if c_make_encoder is None:  # a Python without the C accelerator
        return _LOG_ENCODER.encode
    e = _LOG_ENCODER
    encoder = c_make_encoder(None, e.default, json.encoder.encode_basestring, e.indent, e.key_separator,
                             e.item_separator, e.sort_keys, e.skipkeys, e.allow_nan)
    join = "".join

    def encode(entry: dict) -> str:
        return join(encoder(entry, 0))
    return encode


_encode_entry = _log_encoder()

MAX_EVENT_DEPTH = 64
DEFAULT_MAX_ROUNDS = 100

RULE_ERROR = "R001"


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

    def summary(self) -> dict:
        return {"winner": self.winner, "rounds": self.rounds, "turns": self.turns,
                "eliminated": self.eliminated}


class Game:
    #: Memoise pure function calls while the rules run (see :meth:`_caller`); the benchmark
    #: turns this off to measure what it saves.
    memoise = True

    def __init__(self, rules: RuleSet, scenario, seed: int | None = None,
                 decisions: dict | None = None, forced_dice: list | None = None,
                 log_file: IO[str] | None = None, policies: dict[str, str | Policy] | None = None,
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
        self.policy_rng = random.Random(f"hexlore-game:{self.seed}")
        self.script = Script(decisions if decisions is not None else scenario.decisions)
        self.log: list[dict] = []
        self.log_file = log_file
        self.depth = 0
        self.state = GameState(scenario.board)
        # memoised results of pure functions (hexlore/runtime/engine/memo.py): filled only while
        # memo.on (inside guarded); linked code holds the memo's forgetters, so it is never replaced
        self.memo = Memo(rules)
        self._callers: dict = {}
        self._search_callers: dict = {}
        self._hex_labels: dict[Hex, str] = {}  # the board never changes during a game
        self._quoted: dict[str, str] = {}  # event names as JSON strings
        self.linker = Linker(self)
        self.builtins = make_builtins(self)
        self.def_values: dict[str, dict] = {}
        self.linked_functions: dict = {}
        self._procedures: dict = {}
        self._triggers: dict = {}
        self._blocks: dict = {}
        self._default_makers: dict[str, list] = {}
        self.options: dict = {}
        self.tables: dict = {}
        problems: list[Diagnostic] = []
        self._setup_constants(problems)
        self._setup_state(problems, policies or {})
        self.cast = cast
        if cast is not None:
            add_campaign_units(self, cast, problems)
        self.problems = problems
        if problems and not tolerate_problems:
            raise ScenarioError(problems)
        self._forget_event = self.memo.forgetter(EVENT)
        self._forget_round = self.memo.forgetter(("game", "round"))
        self.dispatch = rules.dispatch

    # ------------------------------------------------------------ construction
    def const(self, node: ir.X):
        return self.linker.x(node)({})

    def report_problem(self, problems, message, *path, hint=None, code=WRONG_VALUE, key=False, doc=None):
        """A problem at a YAML node of the scenario (at its key, for names that are keys).

        ``doc``: another loaded file the value comes from (a campaign sheet), else the scenario.
        """
        sc = self.scenario if doc is None else doc
        if key and hasattr(sc, "key_span_of"):
            span = sc.key_span_of(*path)
        else:
            span = sc.span_of(*path) if hasattr(sc, "span_of") else Span()
        problems.append(error(code, message, sc.path, span, hint))

    def _setup_constants(self, problems) -> None:
        rules = self.rules
        for name, table in rules.tables.items():
            self.tables[name] = {k: self.const(v) for k, v in table.entries}
        for name, option in rules.options.items():
            self.options[name] = self.const(option.default)
        for name, value in (self.scenario.options or {}).items():
            if name not in rules.options:
                guess = did_you_mean(name, rules.options)
                self.report_problem(problems, f"the packs have no option '{name}'", "options", name,
                              hint=f"did you mean '{guess}'?" if guess else
                              f"options: {', '.join(sorted(rules.options)) or 'none'}", code=UNKNOWN_OPTION,
                              key=True)
                continue
            converted = self.convert(value, rules.options[name].type, problems, ("options", name))
            self.options[name] = converted

    def field_defaults(self, kind: str) -> dict:
        """Fresh default values of a kind's fields (new lists each time: instances never share)."""
        makers = self._default_makers.get(kind)
        if makers is None:
            makers = self._default_makers[kind] = [
                (name, _literal_maker(spec.default) if spec.default is not None else
                 (list if spec.type.name == "list" else _none))
                for name, spec in self.rules.kinds[kind].fields.items()]
        # a maker is a callable (a literal, list, _none) or an expression to evaluate each time
        return {name: make() if callable(make) else self.const(make) for name, make in makers}

    def definition_values(self, d: DefinitionSpec) -> dict:
        values = self.def_values.get(d.name)
        if values is None:
            d = self.rules.definitions.get(d.name, d)  # the final spec (a table may hold the first)
            values = self.field_defaults(d.kind)
            for fname, x in d.values:
                values[fname] = self.const(x)
            self.def_values[d.name] = values
        return values

    def convert(self, value, t: Type, problems, path, key: bool = False, doc=None):
        """A scenario value (YAML scalar or list) as a runtime value of type ``t``.

        ``key``: the value is a mapping key (a card of a deck), so problems point at the key.
        ``doc``: the file the value was written in, when it is not the scenario (a sheet).
        """
        rules = self.rules
        if value is None:
            return None
        name = t.name
        if name == "list":
            if not isinstance(value, list):
                value = [value]
            return [self.convert(v, t.item or Type("any"), problems, path, key, doc) for v in value]

        def problem(message, **kw):
            self.report_problem(problems, message, *path, key=key, doc=doc, **kw)

        if name in ("int",):
            if isinstance(value, bool) or not isinstance(value, int):
                problem(f"expected an integer, got {value!r}")
            return value
        if name == "bool":
            if not isinstance(value, bool):
                problem(f"expected true or false, got {value!r}")
            return value
        if name in ("text", "any"):
            return value
        if name == "tag":
            sym = rules.symbols.get(str(value))
            if sym is None:
                guess = did_you_mean(str(value), rules.symbols)
                problem(f"no tag or enum value named '{value}' in the packs",
                        hint=f"did you mean '{guess}'?" if guess else None)
            return sym
        if name.startswith("enum:"):
            sym = rules.symbols.get(str(value))
            if sym is None or sym.group != name[5:]:
                options = [s.name for s in rules.enums.get(name[5:], ())]
                problem(f"'{value}' is not a value of {name[5:]}",
                        hint=f"one of: {', '.join(options)}")
            return sym
        if name == "hex":
            try:
                return self.state.board.parse_label(str(value))
            except ValueError as exc:
                problem(str(exc), code=HEX_NOT_ON_BOARD)
                return None
        if name == "side":
            side = self.state.side(str(value))
            if side is None:
                problem(f"no side named '{value}'", code=UNKNOWN_IN_TEST,
                        hint=_guess(str(value), [s.name for s in self.state.sides]))
            return side
        if name == "unit":
            unit = self.state.units.get(str(value))
            if unit is None:
                guess = did_you_mean(str(value), self.state.units)
                problem(f"no unit with id '{value}'", code=UNKNOWN_IN_TEST,
                        hint=f"did you mean '{guess}'?" if guess else None)
            return unit
        kind = "unit" if name == "unit_type" else name
        d = rules.definitions.get(str(value))
        if d is None or d.kind != kind:
            names = [x.name for x in rules.definitions_of(kind)]
            guess = did_you_mean(str(value), names)
            problem(f"no {kind} named '{value}' in the packs", code=UNKNOWN_DEFINITION,
                    hint=f"did you mean '{guess}'?" if guess else f"known: {', '.join(names[:12])}")
        return d

    def _setup_state(self, problems, policies: dict[str, str | Policy]) -> None:
        rules, sc, st = self.rules, self.scenario, self.state
        game = rules.game
        st.game.update({"round": 0, "turn": 0, "active": None})
        st.game.update(self.field_defaults("game"))
        for i, spec in enumerate(sc.sides):
            st.sides.append(Side(spec.name, spec.edge, i, self.field_defaults("side")))
        self.policies: dict[str, Policy] = {
            s.name: make_policy(policies.get(s.name, s.policy), self.seed, s.name) for s in sc.sides}
        for n, spec in enumerate(sc.sides):
            side, i = st.sides[n], _index(spec, n)
            for fname, value in (spec.fields or {}).items():
                fspec = rules.kinds["side"].fields.get(fname)
                if fspec is None:
                    self.report_problem(problems, f"sides have no field '{fname}'", "sides", i, "fields", fname,
                                  hint=_guess(fname, rules.kinds["side"].fields, "side fields: "),
                                  code=UNKNOWN_FIELD, key=True)
                    continue
                side.f[fname] = self.convert(value, fspec.type, problems, ("sides", i, "fields", fname))
        default_terrain = None
        if game and "default_terrain" in game.settings:
            default_terrain = self.const(game.settings["default_terrain"])
        elif rules.definitions_of("terrain"):
            default_terrain = rules.definitions_of("terrain")[0]
        for h in st.board:
            st.hex_fields[h] = {"terrain": default_terrain, **self.field_defaults("hex")}
        unknown_terrains: set[str] = set()
        for h, tname in sc.terrain.items():
            d = rules.definitions.get(tname)
            if d is None or d.kind != "terrain":
                if tname in unknown_terrains:
                    continue
                unknown_terrains.add(tname)
                names = [x.name for x in rules.definitions_of("terrain")]
                guess = did_you_mean(tname, names)
                self.report_problem(problems, f"no terrain named '{tname}' in the packs", "board", "terrain", tname,
                              hint=f"did you mean '{guess}'?" if guess else f"terrains: {', '.join(names)}",
                              code=UNKNOWN_TERRAIN, key=True)
                continue
            st.hex_fields[h]["terrain"] = d
        unit_kind = rules.kinds["unit"]
        for n, placement in enumerate(sc.units):
            i = _index(placement, n)
            d = rules.definitions.get(placement.type)
            if d is None or d.kind != "unit":
                names = [x.name for x in rules.definitions_of("unit")]
                guess = did_you_mean(placement.type, names)
                self.report_problem(problems, f"no unit type '{placement.type}' in the packs", "units", i, "type",
                              hint=f"did you mean '{guess}'?" if guess else f"unit types: {', '.join(names)}",
                              code=UNKNOWN_UNIT_TYPE)
                continue
            side = st.side(placement.side)
            if side is None:
                lacks = getattr(sc, "lacks_side", None)
                if lacks is None or lacks(placement.side):  # not a side with errors of its own
                    # the loader reports it too, in the same words: the two are merged
                    self.report_problem(problems, unknown_side_message(placement.id, placement.side), "units", i,
                                  "side", code=UNKNOWN_SIDE)
                continue
            if placement.id in st.units:  # a duplicate id (reported by the loader): keep the first
                continue
            fields = {k: (list(v) if isinstance(v, list) else v) for k, v in self.definition_values(d).items()}
            unit = Unit(placement.id, d, side, None, fields)
            st.units[placement.id] = unit
            st.place(unit, placement.hex)
        for n, placement in enumerate(sc.units):
            i = _index(placement, n)
            unit = st.units.get(placement.id)
            if unit is None or unit.hex != placement.hex:
                continue
            for fname, value in (placement.fields or {}).items():
                fspec = unit_kind.fields.get(fname)
                if fspec is None:
                    self.report_problem(problems, f"units have no field '{fname}'", "units", i, "fields", fname,
                                  hint=_guess(fname, unit_kind.fields, "unit fields: "), code=UNKNOWN_FIELD,
                                  key=True)
                    continue
                unit.f[fname] = self.convert(value, fspec.type, problems, ("units", i, "fields", fname))
        for fname, cards in (sc.decks or {}).items():
            fspec = rules.kinds["game"].fields.get(fname)
            if fspec is None or fspec.type.name != "list":
                decks = [n for n, f in rules.kinds["game"].fields.items() if f.type.name == "list"]
                guess = did_you_mean(fname, decks)
                self.report_problem(problems, f"the game has no list field '{fname}' to hold a deck", "decks", fname,
                              hint=f"did you mean '{guess}'?" if guess else
                              "declare it with 'fields game { NAME: list of card = [] }'", code=NO_DECK_FIELD,
                              key=True)
                continue
            pile = []
            for cname, n in cards.items():
                d = self.convert(cname, fspec.type.item or Type("card"), problems, ("decks", fname, cname), key=True)
                pile.extend([d] * int(n))
            st.game[fname] = pile

    # ------------------------------------------------------------ linking
    @property
    def memo_on(self) -> bool:
        """Whether function calls are memoised now (inside :meth:`guarded`)."""
        return self.memo.on

    @memo_on.setter
    def memo_on(self, on: bool) -> None:
        self.memo.on = on

    def linked_function(self, name: str):
        linked = self.linked_functions.get(name)
        if linked is None:
            spec = self.rules.functions[name]
            linked = ([p.name for p in spec.params], self.linker.x(spec.body))
            self.linked_functions[name] = linked
        return linked

    def _procedure(self, name: str):
        linked = self._procedures.get(name)
        if linked is None:
            spec = self.rules.procedures[name]
            linked = ([p.name for p in spec.params], self.linker.block(spec.body))
            self._procedures[name] = linked
        return linked

    def _trigger(self, t):
        linked = self._triggers.get(t.name)
        if linked is None:
            linked = (self.linker.x(t.guard) if t.guard else None,
                      self.linker.x(t.optional_by) if t.optional_by else None,
                      self.linker.block(t.body))
            self._triggers[t.name] = linked
        return linked

    # ------------------------------------------------------------ the bus
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

    def _caller(self, name: str, plan: Plan | None):
        """How Python calls function ``name`` (built-ins asking for a cost, a test…): through its
        memo while the rules run (hexlore/runtime/engine/memo.py) as ``plan`` says (None: not memoised).

        Lists are never memoised: each call must keep returning a list of its own. Calls with a
        list argument (unhashable) or a number that could equal one of another class are not
        memoised either.
        """
        # the callers live in the game: they hold it weakly (a game is freed once dropped)
        gref, memo = weakref.ref(self), self.memo
        linked = self.linked_functions

        if plan is None:
            params = [p.name for p in self.rules.functions[name].params]
            if len(params) == 2:  # a cost, a test of a hex for a unit: the usual callbacks
                p0, p1 = params

                def call2(args):
                    body = (linked.get(name) or gref().linked_function(name))[1]
                    if len(args) == 2:
                        return body({p0: args[0], p1: args[1]})
                    return body(dict(zip(params, args)))
                return call2

            def call(args):
                params, body = linked.get(name) or gref().linked_function(name)
                return body(dict(zip(params, args)))
            return call
        table, key_of, storable = plan.table, plan.key, plan.storable

        def memoised(args):
            params, body = linked.get(name) or gref().linked_function(name)
            if memo.on and plan.active:
                key = key_of(args)
                if key is not SKIP:
                    try:
                        result = table.get(key, MISS)
                    except TypeError:  # an unhashable argument (a list)
                        return body(dict(zip(params, args)))
                    if result is not MISS:
                        plan.hits += 1
                        return result
                    result = body(dict(zip(params, args)))
                    if result.__class__ is not list and (storable is None or storable(args)):
                        table[key] = result
                    plan.missed()
                    return result
            return body(dict(zip(params, args)))
        return memoised

    def call_procedure(self, name: str, args: list):
        params, body = self._procedure(name)
        return run_body(body, dict(zip(params, args)))

    def emit(self, name: str, args: dict, origin: ir.Origin | None = None) -> EventRecord:
        BUDGET.event(origin)
        if self.depth >= MAX_EVENT_DEPTH:
            raise RuleError(f"events nested deeper than {MAX_EVENT_DEPTH} while emitting '{name}': "
                            "a cycle of triggers never ends", origin)
        self.depth += 1
        try:
            record = EventRecord(name, args)
            table = self.dispatch.get(name)
            if table:
                for t in table.before:
                    self._run_trigger(t, record, write_back=True)
            shown = self.shown
            self._record_event(name, {k: shown(v) for k, v in record.args.items()})
            if table:
                for t in table.instead:
                    if self._run_trigger(t, record):
                        record.replaced = True
                        self._forget_event()
                        break
                if not record.replaced:
                    for t in table.on:
                        self._run_trigger(t, record)
                for t in table.after:
                    self._run_trigger(t, record)
            return record
        finally:
            self.depth -= 1

    def _run_trigger(self, t, record: EventRecord, write_back: bool = False) -> bool:
        guard, optional_by, body = self._trigger(t)
        env = dict(record.args)
        if guard is not None and not guard(env):
            return False
        if optional_by is not None:
            side = optional_by(env)
            if not [True, False][self.decide(t.name, side, [True, False], None, 0, t.origin)]:
                return False
        run_body(body, env)
        if write_back:
            for p in t.params:
                record.args[p] = env[p]
            self._forget_event()
        return True

    # ------------------------------------------------------------ dice, decisions, log
    def roll(self, count: int, die, origin: ir.Origin | None = None) -> list:
        if count <= 0:
            return []
        if count > MAX_LIST_ITEMS:  # before a single die is rolled
            raise RuleError(f"a roll of {count:,} dice is more than a game may hold ({MAX_LIST_ITEMS:,} items)",
                            origin, "roll fewer dice: a count computed from other values may have grown")
        BUDGET.spend(count, origin)
        try:
            faces, forced = self.roller.roll(count, die)
        except ForcedRollError as exc:
            raise RuleError(str(exc)) from exc
        entry = {"type": "roll", "die": die.name, "faces": [f.name for f in faces]}
        if forced:
            entry["forced"] = True
        self.record(entry)
        return list(faces)

    def decide(self, name: str, side, options: list, scores, default, origin) -> int:
        if not isinstance(side, Side):
            raise RuleError(f"decision '{name}' needs a side to decide, got {side!r}", origin)
        shown = self.shown
        labels = [shown(o) for o in options]
        decision = Decision(name, side, options, labels, scores, default)
        try:
            index = self.script.answer(decision)
        except ScriptError as exc:
            raise RuleError(str(exc), origin) from exc
        scripted = index is not None
        if index is None:
            index = self.policies[side.name].choose(decision)
        entry = {"type": "decision", "decision": name, "by": side.name, "choice": labels[index],
                 "options": len(options)}
        if scripted:
            entry["scripted"] = True
        self.record(entry)
        return index

    def shown(self, value):
        """``label(value, board)``, with the common cases first and each hex's label kept."""
        cls = value.__class__
        if cls is Unit:
            return value.id
        if cls is int or cls is str or cls is bool or value is None:
            return value
        if cls is Hex:
            text = self._hex_labels.get(value)
            if text is None:
                text = self._hex_labels[value] = label(value, self.state.board)
            return text
        if cls is list or cls is tuple:  # as label does: a list of the items' labels
            shown = self.shown
            return [shown(v) for v in value]
        return label(value, self.state.board)

    def record(self, entry: dict) -> None:
        BUDGET.event(None)
        entry = {"seq": len(self.log) + 1, "round": self.state.game["round"],
                 "turn": self.state.game["turn"], **entry}
        self.log.append(entry)
        if self.log_file is not None:
            line = _encode_entry(entry) + "\n"
            BUDGET.write(len(line))
            self.log_file.write(line)

    def _record_event(self, name: str, args: dict) -> None:
        """``record({"type": "event", "event": name, "args": args})``, the commonest entry, with
        its line written around the encoded arguments: the same text (keys in sorted order:
        args, event, round, seq, turn, type) without sorting and encoding the frame each time."""
        game = self.state.game
        seq, rnd, turn = len(self.log) + 1, game["round"], game["turn"]
        entry = {"seq": seq, "round": rnd, "turn": turn, "type": "event", "event": name, "args": args}
        self.log.append(entry)
        if self.log_file is None:
            return
        if rnd.__class__ is not int or turn.__class__ is not int:  # never, but then json decides
            line = _encode_entry(entry) + "\n"
        else:
            quoted = self._quoted.get(name)
            if quoted is None:
                quoted = self._quoted[name] = _encode_entry(name)
            line = (f'{{"args":{_encode_entry(args)},"event":{quoted},"round":{rnd},"seq":{seq},'
                    f'"turn":{turn},"type":"event"}}\n')
        BUDGET.write(len(line))
        self.log_file.write(line)

    # ------------------------------------------------------------ playing
    def run_block(self, name: str) -> None:
        game = self.rules.game
        if game is None or name not in game.blocks:
            return
        block = self._blocks.get(name)
        if block is None:  # linked once: the round block runs every round
            block = self._blocks[name] = self.linker.block(game.blocks[name])
        run_body(block, {})

    def aftermath(self) -> None:
        """Run the game's ``aftermath`` block, once the game is over (a campaign does, before it
        writes its sheet; ``play`` does not). Rule failures raise :class:`RuntimeRuleError`."""
        if not self.state.over:
            raise ValueError("the aftermath comes after the game: play it first")
        self.guarded(self.run_block, "aftermath")

    def play(self, max_rounds: int | None = None) -> GameResult:
        """Play to the end: setup, then rounds until a side wins or the round limit."""
        rules = self.rules
        if rules.game is None:
            raise RuntimeRuleError(error(RULE_ERROR, "the packs declare no 'game': nothing to play",
                                         self.scenario.path, Span(), "add 'game NAME { round { … } }'"))
        limit = max_rounds or self.scenario.max_rounds or (
            self.const(rules.game.settings["max_rounds"]) if "max_rounds" in rules.game.settings
            else DEFAULT_MAX_ROUNDS)
        self.guarded(self._play, limit)
        return self.result()

    def _play(self, limit: int) -> None:
        try:
            self.run_block("setup")
            while not self.state.over and self.state.game["round"] < limit:
                self.state.game["round"] += 1
                self._forget_round()
                self.record({"type": "round"})
                self.run_block("round")
            if not self.state.over:
                self.run_block("end")
            if not self.state.over:
                self.state.over = True
                self.record({"type": "end", "winner": None, "reason": "round limit"})
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
            origin = exc.origin or ir.NOWHERE
            raise RuntimeRuleError(error(exc.code, str(exc), origin.file, origin.span, exc.hint)) from exc
        except RecursionError as exc:
            raise RuntimeRuleError(error(RULE_ERROR, "rules nested too deeply", self.scenario.path,
                                         Span())) from exc
        except (TypeError, ValueError, KeyError, AttributeError, IndexError, ZeroDivisionError) as exc:
            # the compiler should have caught this; report it rather than crash
            raise RuntimeRuleError(error(RULE_ERROR, f"rules failed at run time: {exc!r}",
                                         self.scenario.path, Span(),
                                         "please report this: the compiler let an ill-typed rule through"))\
                from exc

    def result(self) -> GameResult:
        eliminated: dict[str, list[str]] = {s.name: [] for s in self.state.sides}
        for u in self.state.units.values():
            if not u.alive:
                eliminated[u.side.name].append(u.id)
        winner = self.state.winner.name if self.state.winner else None
        return GameResult(winner, self.state.game["round"], self.state.game["turn"], eliminated, self.log)


class _Literal:
    """A field default written as a literal (a constant, or a list of literals), made without
    linking it again for every instance: the same constant object, or a new list of them,
    exactly what evaluating the expression gives each time."""

    __slots__ = ("value", "items")

    def __init__(self, value, items=None):
        self.value = value
        self.items = items

    def __call__(self):
        if self.items is None:
            return self.value
        return [make() for make in self.items]


def _literal_maker(node: ir.X):
    """A _Literal for a constant or a list of literals, else the node itself (evaluated each
    time, as it may call functions)."""
    if node.__class__ is ir.Const:
        return _Literal(node.value)
    if node.__class__ is ir.MakeList:
        items = [_literal_maker(i) for i in node.items]
        if all(i.__class__ is _Literal for i in items):
            return _Literal(None, items)
    return node


def _none():
    return None


def _index(spec, position: int) -> int:
    """Where a side or unit sits in the YAML list (a partial scenario may have left items out)."""
    index = getattr(spec, "index", -1)
    return position if index < 0 else index


def _guess(name, pool, listing: str | None = None) -> str | None:
    """A did-you-mean, else (with ``listing``) the names there are."""
    g = did_you_mean(name, list(pool))
    if g:
        return f"did you mean '{g}'?"
    return listing + ", ".join(sorted(pool)) if listing and pool else None


def dump_log(log: list[dict]) -> str:
    return "".join(json.dumps(e, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n" for e in log)
