"""The event log's short ways write what the general way writes.

``EventLog.record_decision`` writes a decision's line around its few varying values rather
than encoding the whole entry (hexlore/runtime/engine/event_log.py): its lines and entries must
be those of ``EventLog.record`` with the same entry, whatever the choice's label is.
"""

from __future__ import annotations

import io
import json

import pytest

from hexlore.runtime.engine.event_log import EventLog

CHOICES = ["B4", "naïve \"quoted\" \\ text\n", "", 0, 7, -3, 10**20, True, False, None, 1.5,
           ["B4", "C5"], [], [1, ["x", None]], {"b": 1, "a": "z"}]


class _State:
    """What EventLog reads of a game's state: the round and the turn."""

    def __init__(self, rnd=3, turn=5):
        self.game = {"round": rnd, "turn": turn}
        self.board = None


def _written(write, rnd=3, turn=5) -> tuple[str, list]:
    out = io.StringIO()
    log = EventLog(_State(rnd, turn), out)
    write(log)
    return out.getvalue(), log.entries


@pytest.mark.parametrize("choice", CHOICES)
@pytest.mark.parametrize("scripted", [False, True])
def test_decision_line_is_the_entry_encoded(choice, scripted):
    def general(log):
        log.record({"type": "decision", "decision": "order", "by": "north", "choice": choice, "options": 4})
        entry = {"type": "decision", "decision": "pick \"é\"", "by": "south", "choice": choice, "options": 2}
        if scripted:
            entry["scripted"] = True
        log.record(entry)

    def short(log):
        log.record_decision("order", "north", choice, 4, False)
        log.record_decision("pick \"é\"", "south", choice, 2, scripted)

    text, entries = _written(short)
    assert (text, entries) == _written(general)
    for line, entry in zip(text.splitlines(), entries):
        assert line == json.dumps(entry, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        assert list(entry)[:4] == ["seq", "round", "turn", "type"]


def test_decision_without_a_file_or_with_odd_numbers_takes_the_general_way():
    for rnd, turn in ((3, 5), (True, 5), (3, 2.5)):
        texts = []
        for write in (lambda log: log.record_decision("order", "north", "B4", 4, False),
                      lambda log: log.record({"type": "decision", "decision": "order", "by": "north",
                                              "choice": "B4", "options": 4})):
            texts.append(_written(write, rnd, turn))
        assert texts[0] == texts[1]
    log = EventLog(_State())
    log.record_decision("order", "north", "B4", 4, True)
    assert log.entries == [{"seq": 1, "round": 3, "turn": 5, "type": "decision", "decision": "order",
                            "by": "north", "choice": "B4", "options": 4, "scripted": True}]


def test_event_arguments_are_labelled_as_label_does():
    """record_event labels a side, a definition, a symbol and a face by name without going
    through shown/label (their commonest cases written out): the same labels."""
    from hexlore.compiler.model import DefinitionSpec, FaceSpec, Symbol
    from hexlore.runtime.engine.core.state import Side, label

    values = {"side": Side("north", "bottom", 0, {}),
              "card": DefinitionSpec("card", "probe", "Probe", frozenset(), (), None, "demo"),
              "tag": Symbol("zoc", "stop"), "face": FaceSpec("d6", "sword", 1, frozenset()),
              "n": 3, "t": "x", "b": False, "none": None, "list": [Symbol("zoc", "enter"), 2]}
    log = EventLog(_State())
    assert log._labelled(values) == {k: label(v) for k, v in values.items()}
