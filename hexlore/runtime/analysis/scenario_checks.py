"""Scenario checks against the compiled packs, every problem at its YAML line and column.

The loader (:mod:`.scenario`) checks what needs no packs. With the rule set, setting the game
up finds unknown unit types (``S103``), terrains (``S104``), cards and other definitions
(``S105``), decks (``S106``), options (``S108``), fields (``S109``) and values of the wrong type
(``S101``); the set-up runs without a game (:func:`~hexlore.runtime.engine.setup.check_set_up`):
a check needs the rule set's names and types, not its executable form. Then this module checks:

- occupancy (``S107``): when the packs declare ``function may_occupy(u: unit, h: hex) -> bool``,
  every unit must be allowed on its hex, at the start and after each test's ``given``. The
  rule is the pack's, so the engine knows no terrain or unit by name; it is the one check that
  runs a rule, so it alone builds a :class:`~hexlore.runtime.engine.game.Game`;
- each test: procedures it calls exist (``S112``) and get the parameters they take (``S113``),
  forced faces belong to some die (``S114``), expected events exist (``S110``) with the
  arguments they have (``S111``), and the units, sides, hexes and values it names fit the
  types the packs declare (``S008``, ``S004``, ``S101``, ``S109``).

A pure rule that fails while being evaluated here is reported as at run time (``R001``).
A board too large to draw is a warning (``S127``, hexlore/runtime/analysis/output_budget.py):
the game plays, but ``render``, ``run --html`` and ``replay`` will refuse to draw it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hexlore.compiler.model import RuleSet
from hexlore.compiler.types import Type
from hexlore.compiler.usage import OCCUPANCY_RULE
from hexlore.diagnostics import Diagnostic, codes, did_you_mean, error
from hexlore.runtime.analysis.output_budget import board_problem
from hexlore.runtime.engine.setup import CheckedSetUp, check_set_up
from hexlore.runtime.geometry.grid import Hex
from hexlore.runtime.scenarios.model import Scenario, ScenarioTest

if TYPE_CHECKING:
    from hexlore.runtime.engine.game import Game

__all__ = ["OCCUPANCY_RULE", "check_against_rules"]


#: The function a pack declares to say which unit may stand on which hex.

# Expected values of these types are compared as labels the scenario cannot check here
# (faces are whatever was rolled; text and any are free).
_UNCHECKED_TYPES = {"face", "die", "text", "any", "fn", "game", "none"}


def check_against_rules(rules: RuleSet, scenario: Scenario) -> list[Diagnostic]:
    """Every problem of ``scenario`` that needs ``rules`` (which must compile cleanly).

    The scenario is set up as a game sets it up, but without a game (:func:`check_set_up`):
    no rule runs and the rules' executable form is never asked for, so checking costs what
    reading the names and values costs (issue 32). One check needs a game: the packs'
    occupancy rule (S107) is a function of theirs, run on each unit's hex; only when the packs
    declare it, and the scenario places a unit, is a :class:`Game` built, and only for it.
    """
    checked = check_set_up(rules, scenario)
    problems = list(checked.problems)
    too_large = board_problem(scenario)  # a warning: the game plays, but is not drawn
    if too_large is not None:
        problems.append(too_large)
    problems += occupancy_problems(rules, scenario)
    for test in scenario.tests:
        problems += _TestChecker(checked, scenario, test).run()
    return problems


def _hint(name: str, pool, listing: str | None = None) -> str | None:
    # str(): a YAML key may load as a bool or a number (`on:` is true in YAML 1.1)
    guess = did_you_mean(str(name), [str(n) for n in pool])
    if guess:
        return f"did you mean '{guess}'?"
    return listing


# ---------------------------------------------------------------------------
# Occupancy
# ---------------------------------------------------------------------------


def _is_occupancy_rule(spec) -> bool:
    params = [p.type.required() for p in spec.params]
    return params == [Type("unit"), Type("hex")] and spec.returns.required() == Type("bool")


def occupancy_problems(rules: RuleSet, scenario: Scenario) -> list[Diagnostic]:
    """Units on hexes the packs' occupancy rule forbids, at the start and after each ``given``.

    The rule is the packs' own function: it runs in a game set up from the scenario, built
    here only when there is a rule to run and a unit on the board to run it on."""
    spec = rules.functions.get(OCCUPANCY_RULE)
    if spec is None:
        return []
    if not _is_occupancy_rule(spec):
        return [error(codes.UNIT_MAY_NOT_OCCUPY, f"'{OCCUPANCY_RULE}' is the occupancy rule, but it does not take "
                      "a unit and a hex and return a bool", spec.origin.file, spec.origin.span,
                      f"declare it as 'function {OCCUPANCY_RULE}(u: unit, h: hex) -> bool = …', "
                      "or rename it if it means something else")]
    if not any(u.hex is not None for u in scenario.units) and not any(
            isinstance(o.get("hex"), Hex) for t in scenario.tests for o in t.given.values()):
        return []  # no unit on a hex: nothing to run the rule on
    from hexlore.runtime.engine.game import Game

    game = Game(rules, scenario, tolerate_problems=True)  # its problems: those check_set_up found
    st = game.state
    out: list[Diagnostic] = []
    for n, placement in enumerate(scenario.units):
        unit = st.units.get(placement.id)
        if unit is None or placement.hex is None or unit.hex != placement.hex:
            continue
        index = placement.index if placement.index >= 0 else n
        out += _occupy(game, unit, placement.hex, scenario, ("units", index, "hex"))
    for test in scenario.tests:
        moves = {uid: o["hex"] for uid, o in test.given.items()
                 if isinstance(o.get("hex"), Hex) and uid in st.units}
        if not moves:
            continue
        before = {uid: st.units[uid].hex for uid in moves}
        for uid, h in moves.items():
            st.place(st.units[uid], h)
        try:
            for uid, h in moves.items():
                out += _occupy(game, st.units[uid], h, scenario, ("tests", test.index, "given", uid, "hex"))
        finally:
            for uid, h in before.items():
                st.place(st.units[uid], h)
    return out


def _occupy(game: Game, unit, h: Hex, scenario: Scenario, path: tuple) -> list[Diagnostic]:
    from hexlore.runtime.engine.game import RuntimeRuleError

    try:
        allowed = game.guarded(game.call_function, OCCUPANCY_RULE, [unit, h])
    except RuntimeRuleError as exc:
        return [exc.diagnostic]
    if allowed is not False:
        return []
    where = game.state.board.label(h)
    terrain = game.state.hex_fields.get(h, {}).get("terrain")
    what = f" ({terrain.name})" if terrain is not None else ""
    return [error(codes.UNIT_MAY_NOT_OCCUPY,
                  f"unit '{unit.id}' ({unit.definition.name}) may not occupy {where}{what}",
                  scenario.path, scenario.span_of(*path),
                  f"the packs' rule {OCCUPANCY_RULE}({unit.definition.name}, {where}) is false: "
                  "place the unit on another hex")]


# ---------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------


class _TestChecker:
    """The problems of one scenario test that the packs reveal before it runs."""

    def __init__(self, game: CheckedSetUp, scenario: Scenario, test: ScenarioTest):
        self.game, self.rules, self.scenario, self.test = game, game.rules, scenario, test
        self.base = ("tests", test.index)
        self.out: list[Diagnostic] = []

    def fail(self, code: str, message: str, path: tuple, hint: str | None = None, key: bool = False) -> None:
        sc = self.scenario
        span = sc.key_span_of(*path) if key else sc.span_of(*path)
        self.out.append(error(code, message, sc.path, span, hint))

    def value(self, value, t: Type, path: tuple) -> None:
        """A value the test states must fit the declared type (the game converts it the same way)."""
        if t.name in _UNCHECKED_TYPES or (t.name == "list" and t.item is not None
                                          and t.item.name in _UNCHECKED_TYPES):
            return
        if not self.checkable(value, t.item if t.name == "list" and t.item is not None else t):
            return
        self.game.values.convert(value, t, self.out, path)

    def checkable(self, value, t: Type) -> bool:
        """False for a unit or side the file declares but the game could not set up.

        Such a unit (of an unknown type, say) or side (with an error of its own) was
        reported already; naming it in a test is no second mistake.
        """
        items = value if isinstance(value, list) else [value]
        names = [v for v in items if isinstance(v, str)]
        if t.name == "unit":
            return all(v in self.game.state.units or self.scenario.lacks_unit(v) for v in names)
        if t.name == "side":
            return all(self.game.state.side(v) is not None or self.scenario.lacks_side(v) for v in names)
        return True

    def run(self) -> list[Diagnostic]:
        self.given()
        self.actions()
        self.dice()
        self.events()
        self.fields()
        return self.out

    def given(self) -> None:
        unit_fields = self.rules.kinds["unit"].fields
        for uid, overrides in self.test.given.items():
            for key, value in overrides.items():
                path = self.base + ("given", uid, key)
                if key == "hex":
                    continue
                if key not in unit_fields:
                    self.fail(codes.UNKNOWN_SCENARIO_FIELD, f"units have no field '{key}'", path,
                              _hint(key, unit_fields, "unit fields: " + ", ".join(sorted(unit_fields))), key=True)
                else:
                    self.value(value, unit_fields[key].type, path)

    def actions(self) -> None:
        procedures = self.rules.procedures
        for j, action in enumerate(self.test.actions):
            path = self.base + ("do", j)
            proc = procedures.get(self.rules.find(procedures, action.call) or "")
            if proc is None:
                self.fail(codes.UNKNOWN_PROCEDURE, f"no procedure '{action.call}' in the packs", path + ("call",),
                          self.rules.name_hint(procedures, action.call) or _hint(action.call, procedures))
                continue
            params = {p.name: p for p in proc.params}
            for arg, value in action.args.items():
                if arg not in params:
                    listing = f"its parameters: {', '.join(params) or 'none'}"
                    self.fail(codes.BAD_ARGUMENTS, f"procedure '{action.call}' has no parameter '{arg}'",
                              path + ("with", arg), _hint(arg, params, listing), key=True)
                else:
                    self.value(value, params[arg].type, path + ("with", arg))
            for p in proc.params:
                if p.name not in action.args and p.default is None:
                    self.fail(codes.BAD_ARGUMENTS, f"procedure '{action.call}' needs argument '{p.name}'",
                              path + ("call",), f"add '{p.name}: …' under 'with:'")

    def dice(self) -> None:
        faces = {f.name for d in self.rules.dice.values() for f in d.faces}
        for k, roll in enumerate(self.test.dice):
            for m, face in enumerate(roll):
                if str(face) not in faces:
                    self.fail(codes.UNKNOWN_FACE, f"no die of the packs has a face '{face}'",
                              self.base + ("dice", k, m), _hint(str(face), faces))

    def events(self) -> None:
        events = self.rules.events
        for part in ("events", "absent"):
            for k, wanted in enumerate(self.test.expect.get(part) or []):
                path = self.base + ("expect", part, k)
                name = str(wanted.get("event"))
                spec = events.get(self.rules.find(events, name) or "")
                if spec is None:
                    self.fail(codes.UNKNOWN_EVENT, f"no event '{name}' in the packs", path + ("event",),
                              self.rules.name_hint(events, name) or _hint(name, events))
                    continue
                params = {p.name: p.type for p in spec.params}
                for arg, value in wanted.items():
                    if arg == "event":
                        continue
                    if arg not in params:
                        listing = f"its arguments: {', '.join(params) or 'none'}"
                        self.fail(codes.UNKNOWN_EVENT_ARGUMENT, f"event '{name}' has no argument '{arg}'",
                                  path + (arg,), _hint(str(arg), params, listing), key=True)
                    else:
                        self.value(value, params[arg], path + (arg,))

    def fields(self) -> None:
        kinds = self.rules.kinds
        for owner, kind, special in (("units", "unit", ("alive", "hex")), ("sides", "side", ())):
            declared = kinds[kind].fields
            for name, fields in (self.test.expect.get(owner) or {}).items():
                for key, value in fields.items():
                    path = self.base + ("expect", owner, name, key)
                    if key in special:
                        continue
                    if key not in declared:
                        listing = f"{kind} fields: " + ", ".join(sorted(declared))
                        self.fail(codes.UNKNOWN_SCENARIO_FIELD, f"{owner} have no field '{key}'", path,
                                  _hint(key, declared, listing), key=True)
                    else:
                        self.value(value, declared[key].type, path)
