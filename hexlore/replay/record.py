"""The board after every log entry, noted while a game plays.

:class:`Recorder` stands where the game's log file would: the engine writes each entry's line
to it, and before taking the line it notes what changed on the board since the last line was
written. The position noted when entry ``k + 1`` arrives is the one after entry ``k`` (and the
one when the game ends is after the last), so every frame is a position the engine really
reached, read from its state and never worked out again from the events. Frames keep only the
units that changed (their hex, whether they are alive, their numeric fields), so a
2,000-entry game stays small.

Noting costs the board and the units before every entry, which a long game on a large board
multiplies far past the game's own budget; the recorder spends a
:class:`~hexlore.runtime.analysis.output_budget.RecordingBudget` as it goes (cells compared,
bytes of page). A board too large to draw, or a recording past its budget, is ``refused``: the
recorder drops what it holds and from then on only passes the lines to the real log, so the
game and its log are the same as without a recorder, and :func:`recording_of` raises the refusal.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from typing import IO

from ..runtime.analysis.output_budget import OutputTooLarge, RecordingBudget, too_large_to_draw
from ..runtime.engine.compiled.locate import current_origin
from ..runtime.engine.event_log import EventLog
from ..runtime.engine.core.state import GameState

#: one unit's part of a frame: its index, hex label (None: off the board), alive, changed numbers,
#: and, when the rules said which way it went (``move(u, h, via: path)``), the hexes it entered
UnitChange = list


def terrain_name(state: GameState, h) -> str:
    terrain = state.hex_fields.get(h, {}).get("terrain")
    return getattr(terrain, "name", None) or "none"


def numbers_of(fields: dict) -> dict[str, int]:
    """A unit's numeric fields (bools are flags, not numbers)."""
    return {k: v for k, v in fields.items() if isinstance(v, int) and not isinstance(v, bool)}


class Recorder:
    """A file-like target for the game's log that notes the board before each line it takes.

    ``inner``: the real log file, if any, which gets every line unchanged. :meth:`watch` must be
    called with the game's state before the game writes its first entry.
    """

    def __init__(self, inner: IO[str] | None = None):
        self.inner = inner
        self.lines: list[str] = []
        self.frames: list[list[UnitChange]] = []
        self.state: GameState | None = None
        self.unit_ids: list[str] = []
        self._last: list[tuple] = []
        #: per line: (file, line, column) of the rule that made the entry, or None
        self.origins: list[tuple | None] = []
        self.events: EventLog | None = None
        #: hex label -> terrain name before the first entry
        self.terrain_at_start: dict[str, str] = {}
        #: frame index -> [[hex label, terrain name], ...] of the hexes whose terrain changed
        self.terrain_changes: dict[int, list[list[str]]] = {}
        self._terrain: dict = {}
        #: line index -> the labels of the options a decision offered (the log has their number)
        self.offered: dict[int, list] = {}
        self.budget = RecordingBudget()
        #: why nothing is recorded any more (a board too large to draw, a budget spent), if so
        self.refused: OutputTooLarge | None = None

    def watch(self, state: GameState, events=None) -> None:
        """Follow ``state``; ``events`` (the game's EventLog) says where each entry comes from."""
        self.state = state
        self.events = events
        self.refused = too_large_to_draw(len(state.board))
        if self.refused is not None:  # nothing noted: the game plays as it would unrecorded
            return
        self.unit_ids = list(state.units)
        if events is not None:
            events.keep_for_replay()
        board = state.board
        self.terrain_at_start = {board.label(h): terrain_name(state, h) for h in board}
        self._terrain = {h: state.hex_fields.get(h, {}).get("terrain") for h in board}

    def _refuse(self, refused: OutputTooLarge) -> None:
        """Stop recording for good, and let go of what was recorded (it may be large)."""
        self.refused = refused
        self.lines, self.frames, self.origins, self._last = [], [], [], []
        self.terrain_changes, self.offered, self._terrain = {}, {}, {}
        if self.events is not None:
            self.events.paths = None
            self.events.keep_offered = False
            self.events.offered = None

    def _note(self) -> None:
        state = self.state
        assert state is not None, "Recorder.watch(state) first"
        board = state.board
        units = state.units
        self.budget.compare(len(self._terrain) + len(units), len(self.lines))
        if len(units) != len(self.unit_ids):  # units added while playing: appended, never reordered
            known = set(self.unit_ids)
            self.unit_ids.extend([uid for uid in units if uid not in known])
        changes: list[UnitChange] = []
        last = self._last
        paths = getattr(self.events, "paths", None) or {}
        for i, uid in enumerate(self.unit_ids):
            unit = units.get(uid)
            if unit is None:
                now: tuple = (None, False, {})
            else:
                where = board.label(unit.hex) if unit.hex is not None and unit.hex in board else None
                now = (where, unit.alive, numbers_of(unit.f))
            before = last[i] if i < len(last) else None
            if before is None:
                changes.append([i, now[0], now[1], now[2]])
            elif before != now:
                changed = {k: v for k, v in now[2].items() if before[2].get(k) != v}
                change = [i, now[0], now[1], changed]
                via = paths.get(uid)
                if via and now[0] is not None and now[0] != before[0] and board.label(via[-1]) == now[0]:
                    change.append([board.label(h) for h in via])
                changes.append(change)
            if i < len(last):
                last[i] = now
            else:
                last.append(now)
        if paths:
            paths.clear()
        self.budget.write(len(json.dumps(changes, separators=(",", ":"), ensure_ascii=False)) + 1)
        self.frames.append(changes)
        self._note_terrain(state)

    def _note_terrain(self, state: GameState) -> None:
        """Hexes whose terrain changed since the last line (a piece placed or removed in play)."""
        changed = []
        fields = state.hex_fields
        known = self._terrain
        for h, was in known.items():
            now = fields.get(h, {}).get("terrain")
            if now is not was:
                known[h] = now
                changed.append([state.board.label(h), terrain_name(state, h)])
        if changed:
            self.budget.write(len(json.dumps(changed, separators=(",", ":"), ensure_ascii=False)))
            self.terrain_changes[len(self.frames) - 1] = changed

    def write(self, text: str) -> int:
        """Take one entry's line (the engine writes whole lines); once refused, only pass it on."""
        if self.refused is None:
            try:
                self.budget.write(len(text))
                offered = getattr(self.events, "offered", None)
                if offered is not None:  # the options a decision offered go on the page too
                    self.budget.write(len(json.dumps(offered, separators=(",", ":"), ensure_ascii=False)))
                self._note()
            except OutputTooLarge as refused:
                self._refuse(refused)
        if self.refused is not None:
            if self.inner is not None:
                self.inner.write(text)
            return len(text)
        self.lines.append(text)
        origin = getattr(self.events, "origin", None)
        if origin is None:  # made by a built-in (a roll, a win): the rule that called it
            origin = current_origin(sys._getframe(1))
        span = getattr(origin, "span", None)
        self.origins.append((origin.file, span.line, span.column) if span is not None and origin is not None and origin.file else None)
        events = self.events
        if events is not None and events.offered is not None:
            self.offered[len(self.lines) - 1] = events.offered
            events.offered = None
        if self.inner is not None:
            self.inner.write(text)
        return len(text)

    def finish(self) -> None:
        """Note the position after the last entry."""
        if self.refused is None:
            try:
                self._note()
            except OutputTooLarge as refused:
                self._refuse(refused)

    def flush(self) -> None:
        if self.inner is not None:
            self.inner.flush()


@dataclass
class Recording:
    """A played game: its log lines and the board after each (``frames[k]``: after entry k,
    ``frames[0]`` before the first entry), with what the page needs to draw it."""

    title: str
    lines: list[str]
    frames: list[list[UnitChange]]
    units: list[dict] = field(default_factory=list)  # id, type, side of each unit, by index
    state: GameState | None = None  # the state at the end (the board, sides and terrain)
    origins: list[tuple | None] = field(default_factory=list)  # per line: (file, line, column)
    terrain_at_start: dict[str, str] = field(default_factory=dict)  # hex label -> terrain name
    terrain_changes: dict[int, list] = field(default_factory=dict)  # frame -> [[hex, terrain], ...]
    offered: dict[int, list] = field(default_factory=dict)  # line -> the options a decision offered


def recording_of(recorder: Recorder, title: str) -> Recording:
    """What ``recorder`` noted, as a recording (its refusal, OutputTooLarge, if it stopped)."""
    state = recorder.state
    assert state is not None
    if recorder.refused is not None:
        raise recorder.refused
    units = []
    for uid in recorder.unit_ids:
        unit = state.units.get(uid)
        units.append({"id": uid, "type": unit.definition.name if unit else "?",
                      "side": unit.side.name if unit else "?"})
    return Recording(title, recorder.lines, recorder.frames, units, state, recorder.origins,
                     recorder.terrain_at_start, recorder.terrain_changes, recorder.offered)


def positions(recording: Recording) -> list[dict[str, tuple]]:
    """Every frame as a whole position: unit id -> (hex, alive, numbers). For tests and checks:
    the page rebuilds the same from the same frames."""
    out = []
    now: dict[str, tuple] = {}
    for changes in recording.frames:
        for i, where, alive, numbers, *_ in changes:
            uid = recording.units[i]["id"]
            old = now.get(uid, (None, False, {}))
            now[uid] = (where, alive, {**old[2], **numbers})
        out.append(dict(now))
    return out
