"""Name resolution across packs, type checks, overrides and the event-trigger graph."""

from __future__ import annotations

import json

import pytest

from conftest import compile_text


def codes(rules):
    return [(d.code, d.span.line, d.span.column) for d in rules.diagnostics if d.is_error]


def test_bundled_packs_compile_cleanly(battlelore):
    assert battlelore.packs == ["battlelore.core", "battlelore.creatures"]
    assert not [d for d in battlelore.diagnostics if d.severity.value != "note"]
    assert "giant_spider" in battlelore.definitions
    assert "creature" in battlelore.definitions["giant_spider"].traits


def test_misspelt_name_is_reported_with_a_did_you_mean_and_caret(tmp_path):
    rules = compile_text(tmp_path, """pack demo.typo
use battlelore.core
procedure p(u: unit) {
  let r = roll(2, battel)
}
""")
    [d] = [d for d in rules.diagnostics if d.is_error]
    assert (d.code, d.span.line, d.span.column) == ("C003", 4, 19)
    assert d.hint == "did you mean 'battle'?"
    text = d.render(rules.sources[d.file])
    assert "snippet.lore:4:19: error[C003]: undefined name 'battel'" in text
    assert text.splitlines()[2].endswith("^~~~~~")


def test_fields_declared_by_a_pack_need_that_pack(tmp_path):
    lonely = compile_text(tmp_path, "pack demo.lonely\nfunction f(h: hex) -> bool = h.terrain.blocks_sight\n",
                          "b.lore")
    # 'terrain' exists (built-in kind) but the field comes from battlelore.core, which is not used
    assert [d.code for d in lonely.diagnostics if d.is_error] == ["C005"]


def test_a_name_from_a_pack_not_used_is_not_visible(tmp_path):
    (tmp_path / "demo").mkdir()
    (tmp_path / "demo" / "base.lore").write_text("pack demo.base\noption size: int = 3\n")
    (tmp_path / "demo" / "other.lore").write_text("pack demo.other\nuse demo.base\n")
    (tmp_path / "demo" / "user.lore").write_text("pack demo.user\nuse demo.other\n"
                                                 "function f() -> int = size\n")
    from hexlore.compiler import compile_packs
    rules = compile_packs([str(tmp_path / "demo" / "user.lore")])
    assert rules.ok  # transitive use makes 'size' visible
    (tmp_path / "demo" / "stranger.lore").write_text("pack demo.stranger\nuse demo.base\n")
    (tmp_path / "demo" / "user2.lore").write_text("pack demo.user2\nfunction g() -> int = size\n")
    rules = compile_packs([str(tmp_path / "demo" / "stranger.lore"), str(tmp_path / "demo" / "user2.lore")])
    [d] = [d for d in rules.diagnostics if d.is_error]
    assert d.code == "C009" and d.hint == "add 'use demo.base' at the top of this file"


def test_unknown_pack_gets_a_did_you_mean(tmp_path):
    rules = compile_text(tmp_path, "pack demo.x\nuse battlelore.creaturs\n")
    [d] = [d for d in rules.diagnostics if d.is_error]
    assert d.code == "C001" and "battlelore.creatures" in d.hint


def test_duplicates_and_overrides(tmp_path):
    dup = compile_text(tmp_path, "pack demo.dup\nuse battlelore.core\noption banners_to_win: int = 3\n")
    [d] = [d for d in dup.diagnostics if d.is_error]
    # replacing a used pack's declaration needs 'override' (C012); a clash inside one pack is C002
    assert d.code == "C012" and "override" in d.hint
    twice = compile_text(tmp_path, "pack demo.twice\noption x: int = 3\noption x: int = 4\n", "twice.lore")
    assert [d.code for d in twice.diagnostics if d.is_error] == ["C002"]
    ok = compile_text(tmp_path, "pack demo.mod\nuse battlelore.core\noverride option banners_to_win: int = 3\n",
                      "mod.lore")
    assert ok.ok
    assert any(d.code == "N001" and "overridden" in d.message for d in ok.diagnostics)
    nothing = compile_text(tmp_path, "pack demo.none\noverride option zzz: int = 3\n", "none.lore")
    assert [d.code for d in nothing.diagnostics if d.is_error] == ["C012"]


@pytest.mark.parametrize("body, code", [
    ("function f(u: unit) -> int = u.banner", "C004"),           # colour where int expected
    ("function f(u: unit) -> int = u.figurs", "C005"),           # unknown field
    ("function f(h: hex) -> bool = occupied(1)", "C004"),        # int where hex expected
    ("function f(u: unit) -> int = distance(u.hex)", "C006"),    # arity
    ("function f(u: unit) -> int = count(roll(2, battle))", "C007"),  # dice in a pure function
    ("procedure p(u: unit) { u.hex = u.hex }", "C008"),          # runtime-managed field
    ("procedure p(u: unit) { forest.max_dice = 3 }", "C003"),    # definitions are constants
    ("procedure p(u: unit) { emit hti(target: u, count: 1) }", "C003"),
    ("procedure p(u: unit) { p(u) }", "C015"),                    # unbounded recursion
    ("unt wolf { banner: green }", "C003"),                       # unknown kind
    ("fields unit { pack_size: int }\nunit wolf { move: 2 }", "C013"),  # required field missing
    ("trait odd { figures: true }\nunit wolf is odd { banner: green }", "C004"),  # trait value type
    ("procedure p() { let z = 1 + [2] }", "C004"),               # list joined with a number
])
def test_static_checks(tmp_path, body, code):
    rules = compile_text(tmp_path, f"pack demo.check\nuse battlelore.core\n{body}\n")
    assert code in [d.code for d in rules.diagnostics if d.is_error], \
        [d.headline() for d in rules.diagnostics]


def test_event_trigger_graph(battlelore):
    graph = battlelore.graph
    data = json.loads(graph.dumps())
    edges = {(e["from"], e["to"], e["kind"]) for e in data["edges"]}
    assert ("trigger:critical_hit", "event:hit", "listens") in edges
    assert ("trigger:critical_hit", "event:critical_roll", "emits") in edges
    assert ("trigger:trample", "event:hit", "emits") in edges
    assert ("procedure:strike", "procedure:strike_dice", "calls") in edges
    assert ("procedure:strike_dice", "event:attack", "emits") in edges
    assert ("procedure:strike", "event:flags", "emits") in edges
    assert ("procedure:melee_attack", "procedure:strike", "calls") in edges
    assert data["dispatch"]["hit"]["instead"] == ["critical_hit"]
    assert data["dispatch"]["hit"]["on"] == ["figure_losses"]
    assert "critical_roll" in graph.emitted_by("procedure:melee_attack") or \
        "hit" in graph.emitted_by("procedure:melee_attack")


def test_trigger_that_can_never_fire_is_a_warning(tmp_path):
    rules = compile_text(tmp_path, "pack demo.deaf\nevent never()\ntrigger t on never { stop }\n")
    assert rules.ok
    assert [d.code for d in rules.diagnostics] == ["W001"]


def test_event_cycles_are_reported(tmp_path):
    rules = compile_text(tmp_path, "pack demo.loop\nevent ping()\nevent pong()\n"
                                   "trigger a on ping { emit pong() }\ntrigger b on pong { emit ping() }\n"
                                   "procedure start() { emit ping() }\n")
    # nothing can stop this cycle: an error naming the triggers in order (was a W002 warning)
    assert any(d.code == "C016" and "'a' emits 'pong' → 'b' emits 'ping' → 'a'" in d.message
               for d in rules.diagnostics)


def test_a_pack_found_by_name_must_declare_that_name(tmp_path):
    (tmp_path / "demo").mkdir()
    (tmp_path / "demo" / "base.lore").write_text("pack demo.elsewhere\noption size: int = 3\n")
    (tmp_path / "demo" / "user.lore").write_text("pack demo.user\nuse demo.base\n")
    from hexlore.compiler import compile_packs
    rules = compile_packs([str(tmp_path / "demo" / "user.lore")])
    [d] = [d for d in rules.diagnostics if d.is_error]
    assert d.code == "C011" and "declares 'pack demo.elsewhere'" in d.message and d.span.line == 1
