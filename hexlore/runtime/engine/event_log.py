"""The game's event log: JSON-lines entries kept in memory and written to a file as they come.

Every entry is made of labels (unit ids, hex labels, names), never of live objects, so the log
is the same bytes for the same rules, scenario, seed and decisions. Every entry spends the
game's budget (one event; its bytes when written).

With ``defer_labels`` (short runs played many times: exact odds, Monte Carlo, which read few
entries and read them through :attr:`EventLog.entries`) an event's arguments are labelled
only when the entries are read. A label never changes (a unit's id, a hex's label, a number);
a list may, so an event's lists are kept as tuples of what they hold when it happens.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Protocol

from hexlore.compiler.model import DefinitionSpec, FaceSpec, Symbol
from hexlore.runtime.engine.core.bounds import Budget
from hexlore.runtime.engine.core.face_classes import FaceClass
from hexlore.runtime.engine.core.state import GameState, Side, Unit, label
from hexlore.runtime.geometry.grid import Hex

#: what json.dumps(entry, sort_keys=True, separators=(",", ":"), ensure_ascii=False) uses,
#: made once (json.dumps builds a new encoder at each call when given options)
_LOG_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _log_encoder() -> Callable[[Any], str]:
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

    def encode(entry: Any) -> str:  # a dict, or any label (a text, a list)
        return join(encoder(entry, 0))
    return encode


_encode_entry = _log_encoder()
_encode_text = json.encoder.encode_basestring  # what the encoder writes a str with (ensure_ascii off)


def _encoded(value) -> str:
    """``_encode_entry(value)``, with a text and an int (the commonest labels) written out."""
    cls = value.__class__
    if cls is str:
        return _encode_text(value)
    if cls is int:
        return int.__repr__(value)  # what the encoder writes an int with
    return _encode_entry(value)


#: classes whose label is their name (state.label); exact classes, which label tests alike
_NAMED = frozenset({Side, DefinitionSpec, Symbol, FaceSpec})

#: what an entry kept as it came (EventLog.defer_labels) is, until the entries are read
_EVENT, _FIELDS = 0, 1


def _frozen(items: list) -> tuple:
    """A list as it is now, lists in it too (labelled later like the list: shown(tuple))."""
    return tuple(_frozen(v) if v.__class__ is list else v for v in items)


class LogSink(Protocol):
    """Where a log's lines go: an open text file, or anything that takes text as one does (a
    replay's recorder, hexlore/replay/record.py, passes the lines on to a file)."""

    def write(self, text: str, /) -> object: ...


class EventLog:
    """The entries of one game (``entries``) and the file they are written to, if any."""

    def __init__(self, state: GameState, file: LogSink | None = None, budget: Budget | None = None):
        """``budget``: the game's, which every entry spends (a log of its own when None)."""
        self.state = state
        self.budget = budget if budget is not None else Budget()
        self._file = file
        #: dicts, and tuples kept as they came (defer_labels) until the entries are read
        self._entries: list[Any] = []
        self._unlabelled = 0  # entries before this one have their arguments labelled
        self._defer_labels = False
        self._rolls_only = False
        self._deferring = False  # defer_labels, no file, every entry kept: the short way
        #: where in the rules the entry being recorded comes from (an ir.Origin, or None): read
        #: by whoever takes the lines (a replay page links each entry to its rule); not logged
        self.origin = None
        #: unit id -> the hexes its last move went through (``move(u, h, via: path)``), kept
        #: only while somebody reads them (a replay's recorder sets a dict); not logged
        self.paths: dict | None = None
        #: the options of the decision being recorded, labelled, when somebody reads them
        #: (``keep_offered``, a replay's recorder); the log keeps only their number
        self.keep_offered = False
        self.offered: list | None = None
        self._hex_labels: dict[Hex, str] = {}  # the board never changes during a game
        self._quoted: dict[str, str] = {}  # event names as JSON strings

    def keep_for_replay(self) -> None:
        """Keep, for whoever takes the lines (a replay's recorder), the hexes of each move and
        the labels of each decision's options, which the log itself does not hold."""
        self.paths = {}
        self.keep_offered = True

    @property
    def file(self) -> LogSink | None:
        """The file the entries are written to as they come, if any."""
        return self._file

    @file.setter
    def file(self, file: LogSink | None) -> None:
        self._file = file
        self._settle()

    @property
    def defer_labels(self) -> bool:
        """Label events when the entries are read rather than when they happen (no file only)."""
        return self._defer_labels

    @defer_labels.setter
    def defer_labels(self, on: bool) -> None:
        self._defer_labels = on
        self._settle()

    @property
    def rolls_only(self) -> bool:
        """Keep only the rolls (no file only): exact odds of a question that reads no event
        keep what a failure's hint shows, the dice, and nothing the question never reads."""
        return self._rolls_only

    @rolls_only.setter
    def rolls_only(self, on: bool) -> None:
        self._rolls_only = on
        self._settle()

    def _settle(self) -> None:
        # the one test the commonest entry of short runs (odds, Monte Carlo) needs
        self._deferring = self._defer_labels and self._file is None and not self._rolls_only

    @property
    def entries(self) -> list[dict]:
        """The entries so far, every argument labelled."""
        entries = self._entries
        if self._unlabelled < len(entries):
            labelled = self._labelled
            for i in range(self._unlabelled, len(entries)):
                entry = entries[i]
                if entry.__class__ is tuple:  # kept as it came (defer_labels): made an entry now
                    if entry[0] == _EVENT:
                        _, name, args, seq, rnd, turn = entry
                        entry = {"seq": seq, "round": rnd, "turn": turn, "type": "event", "event": name,
                                 "args": labelled(args)}
                    else:
                        _, fields, seq, rnd, turn = entry
                        entry = {"seq": seq, "round": rnd, "turn": turn, **fields}
                    entries[i] = entry
            self._unlabelled = len(entries)
        return entries

    @entries.setter
    def entries(self, entries: list[dict]) -> None:
        self._entries = entries
        self._unlabelled = 0

    def shown(self, value):
        """``label(value, board)``, with the common cases first and each hex's label kept (an
        undecided die face of the odds engine stays itself: labelling it is no look at it)."""
        cls = type(value)
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
        if cls is FaceSpec:
            return value.name
        if cls is FaceClass:
            return value
        return label(value, self.state.board)

    def _labelled(self, args: dict) -> dict:
        """``{k: shown(v)}``, with shown's commonest cases (a unit, a number, a hex already
        labelled, a side, a definition, a symbol) written out: an event's arguments are
        labelled at every logged event."""
        out = {}
        hex_labels, shown = self._hex_labels, self.shown
        for k, v in args.items():
            cls = v.__class__
            if cls is Unit:
                out[k] = v.id
            elif cls is int or cls is str or cls is bool or v is None:
                out[k] = v
            elif cls is Hex and v in hex_labels:
                out[k] = hex_labels[v]
            elif cls in _NAMED:  # what label gives them: their name
                out[k] = v.name
            else:
                out[k] = shown(v)
        return out

    def __len__(self) -> int:
        return len(self._entries)

    def truncate(self, length: int) -> None:
        """Forget the entries after the first ``length`` (a fork taken back; no file is written)."""
        del self._entries[length:]
        self._unlabelled = min(self._unlabelled, length)

    def record(self, entry: dict, origin=None) -> None:
        budget = self.budget
        budget.events -= 1  # budget.event(None), its common case written out
        if budget.events < 0:
            budget.event(None)
        self.origin = origin
        if self._file is None:
            if self._rolls_only and entry["type"] != "roll":
                return
            if self._defer_labels:  # made an entry when read (entry holds labels already)
                game = self.state.game
                self._entries.append((_FIELDS, entry, len(self._entries) + 1, game["round"], game["turn"]))
                return
        entry = {"seq": len(self._entries) + 1, "round": self.state.game["round"],
                 "turn": self.state.game["turn"], **entry}
        self._entries.append(entry)
        if self._file is not None:
            line = _encode_entry(entry) + "\n"
            self.budget.write(len(line))
            self._file.write(line)

    def record_decision(self, name: str, by: str, choice, count: int, scripted: bool, origin=None) -> None:
        """``record`` of a decision's entry (side ``by`` chose the label ``choice`` among
        ``count`` options), the commonest entry after events: written to a file, its line is
        made around the few values that vary rather than by sorting and encoding a whole entry.
        The same text and the same entry."""
        file = self._file
        game = self.state.game
        rnd, turn = game["round"], game["turn"]
        if file is None or rnd.__class__ is not int or turn.__class__ is not int or by.__class__ is not str \
                or count.__class__ is not int:  # no line to write, or one json must decide
            entry = {"type": "decision", "decision": name, "by": by, "choice": choice, "options": count}
            if scripted:
                entry["scripted"] = True
            self.record(entry, origin)
            return
        budget = self.budget
        budget.events -= 1  # budget.event(None), its common case written out
        if budget.events < 0:
            budget.event(None)
        self.origin = origin
        entries = self._entries
        seq = len(entries) + 1
        entry = {"seq": seq, "round": rnd, "turn": turn, "type": "decision", "decision": name, "by": by,
                 "choice": choice, "options": count}
        if scripted:
            entry["scripted"] = True
        entries.append(entry)
        quoted = self._quoted.get(name)
        if quoted is None:
            quoted = self._quoted[name] = _encode_entry(name)
        mark = '"scripted":true,' if scripted else ""
        line = (f'{{"by":{_encode_text(by)},"choice":{_encoded(choice)},"decision":{quoted},"options":{count},'
                f'"round":{rnd},{mark}"seq":{seq},"turn":{turn},"type":"decision"}}\n')
        budget = self.budget
        budget.log_bytes -= len(line)  # budget.write, its common case written out
        if budget.log_bytes < 0:
            budget.write(0)
        file.write(line)

    def record_event(self, name: str, args: dict, settled: bool = False, origin=None) -> None:
        """``record({"type": "event", "event": name, "args": labels of args})``, the commonest
        entry, with its line written around the encoded arguments: the same text (keys in sorted
        order: args, event, round, seq, turn, type) without sorting and encoding the frame each
        time. ``settled``: no argument's label can change (no list), so with no file the labels
        wait until the entries are read; ``args`` must then not change either."""
        if self._deferring:  # defer_labels with no file: labelled when the entries are read
            self.origin = origin
            game, entries = self.state.game, self._entries
            if not settled:  # a list may change after the event: keep what it holds now
                args = {k: (_frozen(v) if v.__class__ is list else v) for k, v in args.items()}
            entries.append((_EVENT, name, args, len(entries) + 1, game["round"], game["turn"]))
            return
        if self._rolls_only and self._file is None:
            return
        self.origin = origin
        game = self.state.game
        seq, rnd, turn = len(self._entries) + 1, game["round"], game["turn"]
        args = self._labelled(args)
        entry = {"seq": seq, "round": rnd, "turn": turn, "type": "event", "event": name, "args": args}
        self._entries.append(entry)
        if self._file is None:
            return
        if rnd.__class__ is not int or turn.__class__ is not int:  # never, but then json decides
            line = _encode_entry(entry) + "\n"
        else:
            quoted = self._quoted.get(name)
            if quoted is None:
                quoted = self._quoted[name] = _encode_entry(name)
            line = (f'{{"args":{_encode_entry(args)},"event":{quoted},"round":{rnd},"seq":{seq},'
                    f'"turn":{turn},"type":"event"}}\n')
        budget = self.budget
        budget.log_bytes -= len(line)  # budget.write, its common case written out
        if budget.log_bytes < 0:
            budget.write(0)
        self._file.write(line)
