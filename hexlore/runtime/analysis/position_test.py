"""A game's position saved as a scenario test a designer can keep (issue 31, designer mode).

A designer playtesting finds a position worth keeping ("this unit at F5, weakened, attacked
from F6"): :func:`position_test` writes it as a scenario test — ``given:`` every
unit whose hex or fields differ from the scenario's start, then optionally ``do:`` an action
with ``dice:`` forced faces and ``decisions:``, and ``expect:`` of what happened: the events
and the values of the units and sides that changed. The expectation is found by running the
test exactly as ``hexlore test`` runs it (:func:`~.scenario_tests.run_test`'s way: a fresh
game, ``first`` players, the forced dice), so the saved test passes when run, and fails the day
the rules change what that position gives. :func:`save_position_test` writes the scenario
with that test as a new YAML file (atomically, :mod:`hexlore.dsl.output_files`).

What a test's ``given:`` cannot say is reported, not silently dropped (``notes``): sides'
fields (a test's ``given`` sets units only), units that were not in the
scenario's list, and units eliminated (given as set aside, ``hex: null``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from hexlore.dsl.confine import command_line_root, read_confined

from hexlore.dsl.output_files import write_atomically
from hexlore.runtime.analysis.scenario_tests import action_args, apply_given
from hexlore.runtime.engine.game import Game, RuntimeRuleError
from hexlore.runtime.engine.core.state import label


@dataclass
class PositionTest:
    """A scenario test (the mapping a scenario's ``tests:`` holds) and what it could not say."""

    test: dict
    notes: list[str] = field(default_factory=list)


def position_given(game: Game) -> tuple[dict, list[str]]:
    """The ``given:`` that sets a fresh game of the same scenario at this position (units only),
    and notes on what it cannot set."""
    start = Game(game.rules, game.scenario, seed=0, policies={s.name: "first" for s in game.scenario.sides})
    board = game.state.board
    given: dict = {}
    notes: list[str] = []
    for uid, unit in game.state.units.items():
        fresh = start.state.units.get(uid)
        if fresh is None:
            notes.append(f"unit '{uid}' was not in the scenario's list: a test's given cannot add it")
            continue
        changed: dict = {}
        here = label(unit.hex, board) if unit.alive else None
        if here != label(fresh.hex, board):
            changed["hex"] = here
        if not unit.alive:
            notes.append(f"unit '{uid}' was eliminated: given as set aside (hex: null)")
        for name, value in unit.f.items():
            if label(value, board) != label(fresh.f.get(name), board):
                changed[name] = label(value, board)
        if changed:
            given[uid] = changed
    for side in game.state.sides:
        fresh_side = start.state.side(side.name)
        started = fresh_side.f if fresh_side is not None else {}
        differ = [n for n, v in side.f.items() if label(v, board) != label(started.get(n), board)]
        if differ:
            notes.append(f"side '{side.name}' fields {', '.join(sorted(differ))} differ from the start: "
                         "a test's given sets units only")
    return given, notes


def position_test(game: Game, name: str, *, do: list[dict] | None = None, dice: list[list] | None = None,
                  decisions: dict | None = None) -> PositionTest:
    """The position as a scenario test named ``name``; with ``do`` (a test's ``do:`` items,
    ``{call: …, with: {…}}``), ``dice`` and ``decisions``, the test acts and expects what
    happened. Raises ValueError when the actions cannot run (a bad call, unused dice)."""
    given, notes = position_given(game)
    test: dict = {"name": name, "given": given}
    do = [dict(item) for item in do or []]
    if do:
        test["do"] = do
    if dice:
        test["dice"] = [list(faces) for faces in dice]
    if decisions:
        test["decisions"] = {k: list(v) for k, v in decisions.items()}
    expect = _what_happens(game, test)
    test.pop("expect", None)
    test["expect"] = expect  # last, as tests are written
    return PositionTest(test, notes)


def _what_happens(game: Game, test: dict) -> dict:
    """Run the test as ``hexlore test`` would and read what it did: its events, the units and
    sides whose values changed, the winner once there is one."""
    rules, scenario = game.rules, game.scenario
    played = Game(rules, scenario, decisions=dict(test.get("decisions") or {}),
                  forced_dice=[list(r) for r in test.get("dice") or []],
                  policies={s.name: "first" for s in scenario.sides})
    failures: list[str] = []
    apply_given(played, test["given"], failures.append)
    board = played.state.board
    before_units = {uid: (u.alive, label(u.hex, board), {k: label(v, board) for k, v in u.f.items()})
                    for uid, u in played.state.units.items()}
    before_sides = {s.name: {k: label(v, board) for k, v in s.f.items()} for s in played.state.sides}
    for item in test.get("do") or []:
        call = rules.find(rules.procedures, item.get("call", "")) or item.get("call", "")
        args = action_args(played, call, item.get("with") or {}, failures.append)
        if args is None or failures:
            break
        try:
            played.guarded(played.call_procedure, call, args)
        except RuntimeRuleError as exc:
            failures.append(exc.diagnostic.headline())
        if played.state.over:
            break
    unused = getattr(played.roller, "forced", None)  # the forced dice left (a test's roller has them)
    if not failures and unused:
        failures.append(f"{len(unused)} forced roll(s) were never used")
    if failures:
        raise ValueError("; ".join(failures))
    rolled = [list(e["faces"]) for e in played.log if e["type"] == "roll"]
    if rolled:  # the dice the test did not force are forced as they fell: it is self-contained
        test["dice"] = rolled
    expect = _expectation(played, before_units, before_sides)
    if not expect:  # nothing happened (no action): the test checks the position it sets up
        expect["units"] = {uid: {"alive": before_units[uid][0], **fields} for uid, fields in test["given"].items()}
    return expect


def _expectation(played: Game, before_units: dict, before_sides: dict) -> dict:
    board = played.state.board
    expect: dict = {}
    events = [{"event": e["event"], **e["args"]} for e in played.log if e["type"] == "event"]
    if events:
        expect["events"] = events
    units: dict = {}
    for uid, u in played.state.units.items():
        alive, hex_label, fields = before_units[uid]
        now = {k: label(v, board) for k, v in u.f.items()}
        changed = {k: v for k, v in now.items() if fields.get(k) != v}
        if u.alive != alive:
            changed["alive"] = u.alive
        if label(u.hex, board) != hex_label:
            changed["hex"] = label(u.hex, board)
        if changed:
            units[uid] = changed
    sides = {}
    for s in played.state.sides:
        now = {k: label(v, board) for k, v in s.f.items()}
        changed = {k: v for k, v in now.items() if before_sides[s.name].get(k) != v}
        if changed:
            sides[s.name] = changed
    if units:
        expect["units"] = units
    if sides:
        expect["sides"] = sides
    if played.state.winner is not None:
        expect["winner"] = played.state.winner.name
    return expect


def scenario_with_test(game: Game, test: dict, target: str | Path) -> str:
    """The scenario's YAML with ``test`` as its only test, to be written at ``target``: its
    other tests dropped, its packs given by file found from ``target``'s folder."""
    source = Path(game.scenario.path)
    text, problem = read_confined(source, command_line_root(source), "scenario")
    if text is None:
        raise ValueError(f"{source}: {problem.message if problem else 'cannot be read'}")
    data = yaml.safe_load(text)
    if not isinstance(data, dict):
        raise ValueError(f"{source} is not a scenario mapping")
    folder = Path(target).resolve().parent
    packs = []
    for pack in data.get("packs") or []:
        if isinstance(pack, str) and pack.endswith(".lore") and not os.path.isabs(pack):
            pack = os.path.relpath(source.resolve().parent / pack, folder)
        packs.append(pack)
    if packs:
        data["packs"] = packs
    data["tests"] = [test]
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)


def save_position_test(game: Game, target: str | Path, name: str, **actions) -> PositionTest:
    """Write the scenario with the position as its test (:func:`position_test`) to ``target``
    (atomically: an existing file is replaced whole, or left as it was)."""
    found = position_test(game, name, **actions)
    write_atomically(target, scenario_with_test(game, found.test, target))
    return found
