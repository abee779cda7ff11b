"""Scenario tests: given a state, do these actions with these dice, expect these events.

This is how designers test their own rules, and how hexlore's own acceptance tests are
written. Tests do not run the game's ``setup`` block; undecided choices fall back to the
rules' defaults (the ``first`` policy) so a test depends only on what it states.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hexlore.compiler.model import RuleSet
from hexlore.diagnostics import Diagnostic, Span, did_you_mean
from hexlore.runtime.engine.game import Game, RuntimeRuleError, ScenarioError
from hexlore.runtime.engine.dice import Roller
from hexlore.runtime.geometry.grid import Hex
from hexlore.runtime.engine.core.state import label


@dataclass
class TestOutcome:
    """How one scenario test went; ``diagnostics`` holds rules that failed while it ran (``R001``)."""

    scenario: str
    name: str
    passed: bool
    failures: list[str] = field(default_factory=list)
    span: Span = field(default_factory=Span)
    log: list[dict] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)


def _same(actual, expected) -> bool:
    if isinstance(actual, list) and isinstance(expected, list):
        return len(actual) == len(expected) and all(_same(a, e) for a, e in zip(actual, expected))
    if isinstance(actual, bool) or isinstance(expected, bool):
        return actual is expected
    if isinstance(actual, str) and isinstance(expected, str):
        return actual.lower() == expected.lower()
    return actual == expected


def event_matches(entry: dict, expected: dict) -> bool:
    if entry.get("event") != expected.get("event"):
        return False
    args = entry.get("args", {})
    return all(k in args and _same(args[k], v) for k, v in expected.items() if k != "event")


def run_test(rules: RuleSet, scenario, test) -> TestOutcome:
    outcome = TestOutcome(scenario.path, test.name, True, span=test.span)
    fail = outcome.failures.append
    try:
        game = Game(rules, scenario, decisions=dict(test.decisions or {}), forced_dice=[list(r) for r in test.dice],
                    policies={s.name: "first" for s in scenario.sides})
    except ScenarioError as exc:
        outcome.passed = False
        outcome.failures.extend(d.headline() for d in exc.diagnostics)
        outcome.diagnostics.extend(exc.diagnostics)
        return outcome
    state = game.state
    base = ("tests", getattr(test, "index", -1))
    apply_given(game, test.given, fail, base)
    for j, action in enumerate(test.actions):
        if outcome.failures:
            break
        # a scenario may write a procedure's name qualified (pack.name)
        call = rules.find(rules.procedures, action.call) or action.call
        args = action_args(game, call, action.args, fail, base + ("do", j, "with"))
        if args is None:
            break
        try:
            game.guarded(game.call_procedure, call, args)
        except RuntimeRuleError as exc:
            fail(exc.diagnostic.headline())
            outcome.diagnostics.append(exc.diagnostic)
        if state.over:
            break
    outcome.log = game.log
    if not outcome.failures:
        roller = game.roller  # the game's own Roller: a test forces its dice, never deals them
        if isinstance(roller, Roller) and roller.forced:
            fail(f"{len(roller.forced)} forced roll(s) were never used: {list(roller.forced)}")
        leftover = game.script.leftover()
        if leftover:
            fail(f"scripted decisions never asked: {leftover}")
        _check_expectations(game, test.expect or {}, fail)
    outcome.passed = not outcome.failures
    return outcome


def _unit_named(state, uid: str, where: str, fail):
    """The unit a test names, or None after reporting that there is none."""
    unit = state.units.get(uid)
    if unit is None:
        fail(f"{where}: no unit '{uid}'")
    return unit


def apply_given(game: Game, given: dict | None, fail, base: tuple = ("tests",)) -> None:
    """Apply a test's ``given:`` (unit id -> field overrides, ``hex`` moves) to a fresh game.

    ``base`` is the YAML path of the test, so a badly typed value is located at its own line.
    """
    state = game.state
    unit_kind = game.rules.kinds["unit"]
    problems: list = []
    for uid, overrides in (given or {}).items():
        unit = _unit_named(state, uid, "given", fail)
        if unit is None:
            continue
        for key, value in overrides.items():
            if key == "hex":
                try:
                    state.place(unit, value if isinstance(value, Hex) or value is None else
                                state.board.parse_label(str(value)))
                except ValueError as exc:
                    fail(f"given: {exc}")
            elif key in unit_kind.fields:
                unit.f[key] = game.values.convert(value, unit_kind.fields[key].type, problems, base + ("given", uid, key))
            else:
                fail(f"given: units have no field '{key}'")
    for d in problems:
        fail(d.message)
    for h, here in state.occupants.items():
        if len(here) > 1:
            fail(f"given: {len(here)} units on {label(h, state.board)} ({', '.join(u.id for u in here)})")


def action_args(game: Game, call: str, given: dict | None, fail, base: tuple = ("tests",)) -> list | None:
    """The runtime arguments of one ``do:`` action, or None (after ``fail``) when they are wrong."""
    rules = game.rules
    proc = rules.procedures.get(call)
    if proc is None:
        guess = did_you_mean(call, rules.procedures)
        fail(f"no procedure '{call}'" + (f" (did you mean '{guess}'?)" if guess else ""))
        return None
    problems: list = []
    failed = False
    args = []
    for extra in sorted(set(given or {}) - {p.name for p in proc.params}):
        fail(f"procedure '{call}' has no parameter '{extra}'")
        failed = True
    for p in proc.params:
        if p.name in (given or {}):
            args.append(game.values.convert((given or {})[p.name], p.type, problems, base + (p.name,)))
        elif p.default is not None:
            args.append(game.const(p.default))
        else:
            fail(f"procedure '{call}' needs argument '{p.name}'")
            failed = True
    for d in problems:
        fail(d.message)
    return None if failed or problems else args


def _keyed(rules: RuleSet, wanted: dict) -> dict:
    """An expected event with its name as the log prints it (a scenario may qualify it)."""
    name = wanted.get("event")
    key = rules.find(rules.events, name) if isinstance(name, str) else None
    return {**wanted, "event": key} if key is not None and key != name else wanted


def _check_expectations(game: Game, expect: dict, fail) -> None:
    state = game.state
    events = [e for e in game.log if e["type"] == "event"]
    position = 0
    expect = {**expect, **{part: [_keyed(game.rules, w) for w in expect.get(part) or []]
                           for part in ("events", "absent") if part in expect}}
    for wanted in expect.get("events", []):
        for i in range(position, len(events)):
            if event_matches(events[i], wanted):
                position = i + 1
                break
        else:
            seen = [e for e in events if e["event"] == wanted.get("event")]
            detail = f"; '{wanted.get('event')}' events seen: {[e['args'] for e in seen]}" if seen else \
                f"; no '{wanted.get('event')}' event at all"
            fail(f"expected event {wanted} (in order){detail}")
            return
    for unwanted in expect.get("absent", []):
        for e in events:
            if event_matches(e, unwanted):
                fail(f"event {unwanted} should not happen, but did: {e['args']}")
                break
    for uid, fields in (expect.get("units") or {}).items():
        unit = _unit_named(state, uid, "expect", fail)
        if unit is None:
            continue
        for key, wanted in fields.items():
            if key == "alive":
                actual = unit.alive
            elif key == "hex":
                actual = unit.hex
                if isinstance(wanted, str):
                    wanted = state.board.parse_label(wanted)
                if actual != wanted:
                    fail(f"{uid}.hex: expected {label(wanted, state.board)}, got {label(actual, state.board)}")
                continue
            elif key in unit.f:
                actual = label(unit.f[key], state.board)
            else:
                fail(f"expect: units have no field '{key}'")
                continue
            if not _same(actual, wanted):
                fail(f"{uid}.{key}: expected {wanted!r}, got {actual!r}")
    for sname, fields in (expect.get("sides") or {}).items():
        side = state.side(sname)
        if side is None:
            fail(f"expect: no side '{sname}'")
            continue
        for key, wanted in fields.items():
            actual = label(side.f.get(key), state.board)
            if not _same(actual, wanted):
                fail(f"{sname}.{key}: expected {wanted!r}, got {actual!r}")
    if "winner" in expect:
        actual = state.winner.name if state.winner else None
        if actual != expect["winner"]:
            fail(f"winner: expected {expect['winner']!r}, got {actual!r}")


def run_scenario_tests(rules: RuleSet, scenario) -> list[TestOutcome]:
    return [run_test(rules, scenario, t) for t in scenario.tests]
