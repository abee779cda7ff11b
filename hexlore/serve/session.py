"""One game on the server: rebuilt from its saved answers, stepped by people and players.

The game is driven through the Game API (``start``/``apply``/``legal_options``): a person's
answer is ``apply(index)``; a player's turn is ``apply()``, the side's own policy choosing
(seated behind :class:`_Noted`, which notes the index it chose, so that the answer is saved
like a person's). Rebuilding replays every saved answer with ``apply(index)``, which logs what
``apply()`` logged: the same log bytes, whoever chose. Undo is a rebuild with fewer answers.

The methods here are synchronous and may take long (a search thinks, a rebuild replays): the
app runs them in a worker thread, one at a time per game (its lock), and pages read only the
view made after each step (:meth:`GameSession.view_for`), never the game while it runs.
"""

from __future__ import annotations

import functools
import io
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, cast

from ..loading import Loaded
from ..look import Look, look_of
from ..play import _value, describe_entry
from ..play_view import decision_subjects
from ..render import side_colours, terrain_colours, unit_mark
from ..replay.record import Recorder, terrain_name
from ..runtime.engine.edits import EditError, apply_edit
from ..runtime.engine.game import Game, RuntimeRuleError, ScenarioError
from ..runtime.engine.policies import Decision, Policy
from ..runtime.engine.core.requests import Choice
from .odds import odds_table
from .seats import PERSON, Seat
from .store import GameRecord

#: log lines a page is sent (the newest); the whole log is an export
SHOWN_LOG = 400
#: the engine runs one game at a time in a process: games of a rule set share its compiled code,
#: which is not safe to run from two threads at once (a rebuild raced by another ran to its end);
#: every call that runs rules takes this lock (:func:`engine`), and players think in another
#: process (:func:`think_elsewhere`), so a long search holds it for no other game
ENGINE = threading.Lock()


def engine(fn: Callable, *args):
    """``fn(*args)`` with the engine to itself (call it in a worker thread, never on the loop)."""
    with ENGINE:
        return fn(*args)


@functools.cache
def _loaded(scenario: str) -> Loaded:
    from ..loading import open_scenario

    return open_scenario(scenario)


def think_elsewhere(scenario: str, seed: int, players: dict[str, str], answers: list[tuple[str, int]],
                    edits: list[tuple[int, dict]] | None = None) -> int:
    """In a worker process: the index the pending side's player chooses, in the game that the
    answers (and a designer's edits) give (rebuilt here: the server's game stays the server's)."""
    session = GameSession(GameRecord("worker", scenario, seed, players, "hot-seat", answers=list(answers),
                                     edits=list(edits or [])), _loaded(scenario))
    session.rebuild()
    if session.failure is not None:
        raise RuntimeError(session.failure)
    step = session.think()
    if step.error is not None or step.option is None:
        raise RuntimeError(step.error or "the player chose nothing")
    return step.option


class _Noted(Policy):
    """A side's own player, noting the index it chose for the decision a step answers."""

    def __init__(self, inner: Policy):
        self.inner = inner
        self.name = inner.name
        self.chosen: list[int] = []
        if inner.pick is not None:
            self.pick = self._pick

    def _pick(self, count: int) -> int:
        index = cast(Callable[[int], int], self.inner.pick)(count)
        self.chosen.append(index)
        return index

    def choose(self, decision: Decision) -> int:
        index = self.inner.choose(decision)
        self.chosen.append(index)
        return index


@dataclass
class Step:
    """What a step did: the side and index answered (saved), or why it failed."""

    side: str | None = None
    option: int | None = None
    error: str | None = None


@dataclass
class GameSession:
    """A game being played: its record, the rebuilt Game, its log and the latest view."""

    record: GameRecord
    loaded: Loaded
    game: Game | None = None
    log: io.StringIO = field(default_factory=io.StringIO)
    failure: str | None = None
    look: Look = field(default_factory=Look)
    base_view: dict = field(default_factory=dict)
    noted: dict[str, _Noted] = field(default_factory=dict)
    #: a replay recorder (hexlore/replay/record.py) noting every position, for an export
    recorder: Recorder | None = None
    #: unit id -> (its field values, their view): a unit's view is made again only when one changed
    shown_units: dict = field(default_factory=dict)
    #: unit id -> its fields as the game was set up: a page is sent what changed since
    start_fields: dict = field(default_factory=dict)
    #: the log's entries described so far (the page is sent the newest)
    described: list = field(default_factory=list)
    read: int = 0
    #: hex label -> terrain as the game was set up, and the fill of each terrain (the board's)
    start_terrain: dict = field(default_factory=dict)
    terrain_fills: dict = field(default_factory=dict)
    #: option -> its odds table, for the decision pending now (emptied whenever the game moves)
    odds_asked: dict = field(default_factory=dict)

    # ------------------------------------------------------------ building
    def rebuild(self, answers: list[tuple[str, int]] | None = None) -> None:
        """Build the game afresh and replay ``answers`` (the record's, by default)."""
        if answers is not None:
            self.record.answers = list(answers)
            self.record.edits = [(at, edit) for at, edit in self.record.edits if at <= len(answers)]
        self.failure = None
        self.shown_units, self.described, self.read = {}, [], 0
        self.odds_asked = {}
        self.log = io.StringIO()
        rules, scenario = self.loaded.rules, self.loaded.scenario
        policies: dict[str, str | Policy] = {
            side: ("first" if player == PERSON else player) for side, player in self.record.players.items()}
        try:
            assert rules is not None and scenario is not None, "rebuilt only from a playable scenario"
            self.look = look_of(rules)
            recorder = self.recorder
            if recorder is not None:
                recorder.inner = self.log
            target: IO[str] = cast(IO[str], recorder) if recorder is not None else self.log  # file-like
            game = self.game = Game(rules, scenario, seed=self.record.seed, policies=policies, log_file=target)
            if recorder is not None:
                recorder.watch(game.state, game.events)
            self.start_fields = {uid: dict(unit.f) for uid, unit in game.state.units.items()}
            self.start_terrain = {game.state.board.label(h): terrain_name(game.state, h) for h in game.state.board}
            self.terrain_fills = terrain_colours(game.state, self.look)
            self.noted = {}
            for side, player in self.record.players.items():
                if player != PERSON:
                    self.noted[side] = _Noted(game.policies[side])
                    game.seat(side, self.noted[side])
            game.start()
            self._edits_at(0)
            for number, (side, option) in enumerate(self.record.answers):
                pending = self.pending
                if pending is None or pending.side.name != side:
                    raise ValueError(f"saved answer {number + 1} is for '{side}', but the game asks "
                                     f"{'nobody' if pending is None else pending.side.name}")
                game.apply(option)
                self._edits_at(number + 1)
            if recorder is not None:
                recorder.finish()
        except (RuntimeRuleError, ScenarioError, ValueError) as exc:
            self.failure = _headline(exc)
        self.base_view = self._view()

    def _edits_at(self, answered: int) -> None:
        """Replay the designer's edits made after ``answered`` answers (a bad one fails the rebuild)."""
        for at, edit in self.record.edits:
            if at == answered:
                apply_edit(self._game(), edit)

    # ------------------------------------------------------------ stepping
    @property
    def pending(self) -> Choice | None:
        pending = self.game.pending if self.game is not None and self.failure is None else None
        return pending if isinstance(pending, Choice) else None

    @property
    def seq(self) -> int:
        """How many decisions were answered: the number a page's answer must carry."""
        return len(self.record.answers)

    def person_to_answer(self) -> str | None:
        pending = self.pending
        return pending.side.name if pending is not None and self.record.players[pending.side.name] == PERSON \
            else None

    def player_to_answer(self) -> str | None:
        pending = self.pending
        return pending.side.name if pending is not None and self.record.players[pending.side.name] != PERSON \
            else None

    def answer(self, option: int) -> Step:
        """Apply an answer (a person's, checked against the pending decision; or what a player
        chose in another process, for the decision pending when it was asked)."""
        pending = self.pending
        if pending is None:
            return Step(error="no decision is pending")
        return self._apply(pending.side.name, option)

    def fail(self, message: str) -> None:
        """The game cannot go on (a player failed in its worker): say so on every page."""
        self.failure = message
        self.base_view = self._view()

    def think(self) -> Step:
        """Let the pending side's player choose and apply its choice (a search may take long)."""
        side = self.player_to_answer()
        if side is None:
            return Step(error="no player is to answer")
        noted = self.noted[side]
        noted.chosen = []
        return self._apply(side, None, noted)

    def _apply(self, side: str, option: int | None, noted: _Noted | None = None) -> Step:
        try:
            self._game().apply(option)
        except (RuntimeRuleError, ValueError) as exc:
            self.failure = _headline(exc)
            self.base_view = self._view()
            return Step(error=self.failure)
        self.odds_asked = {}
        if option is None:
            option = noted.chosen[0] if noted is not None and noted.chosen else 0
        self.record.answers.append((side, option))
        self.base_view = self._view()
        return Step(side, option)

    def edit(self, edit: dict) -> str | None:
        """Apply a designer's edit (checked by the engine: hexlore/runtime/engine/edits.py) and note
        it in the record; returns why it was refused, or None. A refused edit changes nothing."""
        if self.pending is None:
            return "edit the game at a decision (none is pending)"
        try:
            apply_edit(self._game(), edit)
        except EditError as exc:
            return str(exc)
        self.record.edits.append((self.seq, edit))
        self.odds_asked = {}
        self.base_view = self._view()
        return None

    def position_yaml(self, name: str) -> dict:
        """The position as a scenario test (hexlore/runtime/analysis/position_test.py): the
        scenario's YAML with that test, for the page to download, and what it could not say."""
        from ..runtime.analysis.position_test import position_test, scenario_with_test

        if self.game is None or self.failure is not None:
            return {"refused": "the game failed: there is no position to save"}
        game = self.game
        try:
            found = position_test(game, name)
            text = scenario_with_test(game, found.test, game.scenario.path)
        except (ValueError, RuntimeRuleError, ScenarioError, OSError) as exc:
            return {"refused": _headline(exc)}
        return {"name": name, "yaml": text, "notes": found.notes}

    def odds(self, option: int) -> dict:
        """The odds table of an option of the pending decision (:mod:`.odds`), worked out once
        per decision and option (a page asking again is answered from memory). The game, its
        log and its saved answers are left exactly as they were."""
        if option not in self.odds_asked:
            self.odds_asked[option] = odds_table(self._game(), option)
        return self.odds_asked[option]

    def _game(self) -> Game:
        assert self.game is not None, "the game is built before it is stepped or shown"
        return self.game

    def undo_point(self) -> int | None:
        """How many answers to keep to stand at a person's previous decision; None if none."""
        answers = self.record.answers
        for k in range(len(answers) - 1, -1, -1):
            if self.record.players.get(answers[k][0]) == PERSON:
                return k
        return None

    # ------------------------------------------------------------ what pages see
    def _view(self) -> dict:
        game = self.game
        if game is None:
            return {"failure": self.failure, "seq": self.seq, "sides": [], "units": [], "log": [], "pending": None,
                    "over": False, "winner": None}
        shown = game.events.shown
        state = game.state
        colours = side_colours(state, self.look)
        strength = self.look.strength or []
        units = []
        for unit in state.units.values():
            values = (unit.hex, unit.alive, tuple(unit.f.values()))
            known = self.shown_units.get(unit.id)
            if known is not None and known[0] == values:
                units.append(known[1])
                continue
            numbers = {k: v for k, v in unit.f.items() if isinstance(v, int) and not isinstance(v, bool)}
            units.append({"id": unit.id, "type": unit.definition.name, "side": unit.side.name,
                          "hex": state.board.label(unit.hex) if unit.hex is not None else None,
                          "alive": unit.alive, "mark": unit_mark(unit.definition.name, self.look),
                          "colour": colours.get(unit.side.name, "#000"),
                          "strength": [[k, numbers[k]] for k in strength if k in numbers],
                          "changed": {k: _plain(shown(v)) for k, v in sorted(unit.f.items())
                                      if self.start_fields.get(unit.id, {}).get(k, v) != v}})
            self.shown_units[unit.id] = (values, units[-1])
        sides = []
        for side in state.sides:
            fields, hands = {}, {}
            for name, value in side.f.items():
                if isinstance(value, list) and value and all(getattr(v, "kind", None) for v in value):
                    hands[name] = [_card(card, shown) for card in value]
                else:
                    fields[name] = _plain(shown(value))
            sides.append({"name": side.name, "player": self.record.players.get(side.name, "?"),
                          "fields": fields, "hands": hands})
        entries = game.log
        self.described.extend(line for line in (describe_entry(e) for e in entries[self.read:]) if line is not None)
        self.read = len(entries)
        log = self.described[-SHOWN_LOG:]
        return {"failure": self.failure, "seq": self.seq, "over": bool(state.over),
                "winner": getattr(state.winner, "name", state.winner),
                "sides": sides, "units": units, "log": log, "log_start": len(self.described) - len(log) + 1,
                "terrain": self._terrain_changed(), "pending": self._pending_view()}

    def _terrain_changed(self) -> dict[str, list[str]]:
        """Hex label -> [terrain, fill] of each hex whose terrain is not the one it began with
        (the page's board was drawn as the game began)."""
        state = self._game().state
        board, start, fills = state.board, self.start_terrain, self.terrain_fills
        changed = {}
        for h in state.board:
            here = board.label(h)
            name = terrain_name(state, h)
            if start.get(here, name) != name:
                if name not in fills:
                    fills[name] = self.look.terrain_colour(name, len(fills))
                changed[here] = [name, fills[name]]
        return changed

    def _pending_view(self) -> dict | None:
        pending = self.pending
        if pending is None:
            return None
        game = self._game()
        labels = [_value(label) for label in game.legal_options()]
        hexes: dict[str, list[int]] = {}
        units: dict[str, list[int]] = {}
        board_labels = {game.state.board.label(h) for h in game.state.board}
        for i, label in enumerate(labels):
            if label in board_labels:
                hexes.setdefault(label, []).append(i)
            elif label in game.state.units:
                units.setdefault(label, []).append(i)
        scores = self._scores(pending)
        preferred = [i for i, s in enumerate(scores) if s == max(scores)] \
            if scores and len(set(scores)) > 1 else []
        board = game.state.board
        about = [{"id": u.id, "type": u.definition.name, "hex": board.label(u.hex) if u.hex is not None else None}
                 for u in decision_subjects(game)]
        return {"name": pending.name, "side": pending.side.name,
                "player": self.record.players.get(pending.side.name, "?"), "options": labels,
                "default": pending.default, "preferred": preferred, "hexes": hexes, "units": units,
                "about": about}

    def _scores(self, pending: Choice) -> list | None:
        """The rules' 'prefer' scores of the pending options, worked out on a fork (so the
        game's budget and memo are as they were: the log stays the same bytes)."""
        scores = pending.scores
        if not callable(scores):
            return scores
        game = self._game()
        point = game.fork()
        try:
            return list(game.guarded(scores))
        except (RuntimeRuleError, TypeError):
            return None
        finally:
            game.restore(point)

    def view_for(self, seat: Seat | None, mode: str) -> dict:
        """The view a seat is sent: the hands of sides it does not play are counted, not shown, until
        the game is over (a person does not see a player's or another person's cards, nor does a
        spectator's link, which any player may open); a designer's game shows every hand."""
        view = dict(self.base_view)
        view["you"] = list(seat.sides) if seat is not None else []
        view["mode"] = mode
        view["scenario"] = self.loaded.scenario.name if self.loaded.scenario is not None else self.record.scenario
        if not self.record.designer and not view.get("over"):
            sides = seat.sides if seat is not None else ()
            view["sides"] = [side if side["name"] in sides else
                             {**side, "hands": {k: {"hidden": len(v)} for k, v in side["hands"].items()}}
                             for side in view["sides"]]
        return view


def _card(card, shown) -> dict:
    """A card as a page shows it: its name, title and the values it declares."""
    values = ", ".join(f"{name}: {_value(_plain(shown(getattr(v, 'value', v))))}" for name, v in card.values)
    return {"name": card.name, "title": card.title or card.name, "text": values}


def _plain(value):
    """A shown value as JSON: lists stay lists, anything else not JSON becomes its text."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, (bool, int, str)):
        return value
    name = getattr(value, "name", None)
    return name if isinstance(name, str) else str(value)


def _headline(exc: Exception) -> str:
    diagnostic = getattr(exc, "diagnostic", None)
    if diagnostic is not None:
        return diagnostic.headline()
    diagnostics = getattr(exc, "diagnostics", None)
    if diagnostics:
        return "; ".join(d.headline() for d in diagnostics[:3])
    return str(exc)
