"""The interpreter benchmark's check that two revisions played the same game (``--packs each``):
renamed events, decisions and choices are the same game; anything else that differs is not."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("bench_interpreter", ROOT / "benchmarks" / "bench_interpreter.py")
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)


def log(*entries: dict) -> str:
    return "\n".join(json.dumps(e) for e in entries) + "\n"


OLD = log(
    {"type": "decision", "decision": "sk_act", "choice": "sk_attack", "options": 3, "round": 1, "turn": 1},
    {"type": "roll", "die": "bow_die", "faces": ["hit", "miss"], "round": 1, "turn": 1},
    {"type": "decision", "decision": "sk_act", "choice": "sk_attack", "options": 2, "round": 1, "turn": 2},
    {"type": "end", "winner": "north", "round": 1, "turn": 2},
)


def test_renamed_events_decisions_dice_and_choices_are_the_same_game():
    new = OLD.replace("sk_", "").replace("bow_die", "combat_die")
    assert bench.same_game(new, OLD)


def test_a_different_choice_roll_count_or_winner_is_another_game():
    for before, after in (('"choice": "sk_attack", "options": 2', '"choice": "sk_move", "options": 2'),
                          ('["hit", "miss"]', '["miss", "hit"]'),
                          ('"options": 3', '"options": 4'),
                          ('"winner": "north"', '"winner": "south"')):
        changed = OLD.replace(before, after)
        assert changed != OLD
        assert not bench.same_game(changed, OLD), after


def test_two_choices_renamed_to_one_are_not_the_same_game():
    # the second attack is a move in the other log: a renaming must be one to one both ways
    other = OLD.replace('"choice": "sk_attack", "options": 2', '"choice": "sk_move", "options": 2')
    assert not bench.same_game(other, OLD)
    assert not bench.same_game(OLD, other)


def test_a_game_cut_short_is_another_game():
    assert not bench.same_game(OLD, OLD.rsplit("\n", 2)[0] + "\n")
