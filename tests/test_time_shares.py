"""The time-shares benchmark sorts every profiled function into a part of hexlore, and the
parts of a real game add up to the whole of its time."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("time_shares", ROOT / "benchmarks" / "time_shares.py")
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)


@pytest.mark.parametrize("filename, part", [
    ("<hexlore rules 3>", "rules"),
    ("<hexlore rules 0, resumable>", "rules"),
    ("/x/hexlore/runtime/geometry/movement.py", "geometry"),
    ("/x/hexlore/runtime/engine/event_log.py", "log"),
    ("/x/hexlore/runtime/engine/core/memo.py", "memo"),
    ("/x/hexlore/runtime/engine/builtins/moves.py", "primitives"),
    ("/x/hexlore/runtime/engine/builtins/geometry.py", "primitives"),
    ("/x/hexlore/runtime/engine/compiled/support.py", "primitives"),
    ("/x/hexlore/runtime/engine/game.py", "engine"),
    ("~", "Python"),
    ("/usr/lib/python3.11/random.py", "Python"),
])
def test_each_file_belongs_to_one_part(filename, part):
    assert bench.part_of(filename) == part


def test_the_parts_of_a_game_add_up_to_its_time_and_the_rules_take_some():
    found = bench.shares("skirmish/village_raid.yaml", games=2)
    assert set(found) == set(bench.PARTS)
    assert sum(found.values()) == pytest.approx(1.0)
    assert found["rules"] > 0 and found["log"] > 0
