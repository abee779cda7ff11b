"""Names belong to their pack (issue 15, item 1 and defects 1 and 2).

Two mods that do not use each other may declare the same names; a pack that uses both
writes a name qualified (``mod.x`` or an alias) when both declare it, and an unqualified
ambiguous name is C020. Scenarios name things the same way. A name from a pack not used is
C009 whichever way the pack is reached, and the hint names the pack that declares it.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from hexlore import api
from hexlore.compiler import compile_packs

ROOT = Path(__file__).resolve().parent.parent

#: two independent mods that declare the same names, and a pack that uses both
MODS = {
    "mods/ogres.lore": """
        pack mods.ogres
        use battlelore.core

        fields unit { rage: int = 0 }
        trait big { figures: 2 }
        tag smash
        event roared(unit: unit, loud: int) "An ogre roars"
        option loudness: int = 3 "How loud an ogre roars"
        table rage_of: int -> int { 1: 10, 2: 20 }
        function strength(u: unit) -> int = 3
        procedure roar(u: unit) "An ogre roars" { emit roared(unit: u, loud: loudness) }
        unit ogre "Ogre" is big { banner: red  move: 1 }
        trigger enrage after roared { unit.rage += 1 }
    """,
    "mods/trolls.lore": """
        pack mods.trolls
        use battlelore.core

        trait big { figures: 3 }
        tag smash
        event roared(unit: unit, loud: int) "A troll roars"
        option loudness: int = 5 "How loud a troll roars"
        function strength(u: unit) -> int = 4
        procedure roar(u: unit) "A troll roars" { emit roared(unit: u, loud: loudness) }
        unit troll "Troll" is big { banner: blue  move: 1 }
        unit ogre "Troll in ogre's clothing" { banner: blue  move: 2 }
        trigger enrage after roared { unit.figures -= 0 }
    """,
}


def write(tmp_path: Path, files: dict[str, str]) -> list[str]:
    paths = []
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
        paths.append(str(path))
    return paths


def errors(rules) -> list[str]:
    return [f"{d.code} {d.message}" for d in rules.diagnostics if d.is_error]


def test_two_mods_declare_the_same_names_and_compile_together(tmp_path):
    rules = compile_packs(write(tmp_path, MODS))
    assert errors(rules) == []
    # a name two packs declare is kept under each full name; the others stay as written
    assert {"mods.ogres.strength", "mods.trolls.strength"} <= set(rules.functions)
    assert {"mods.ogres.roared", "mods.trolls.roared"} <= set(rules.events)
    assert "mods.ogres.ogre" in rules.definitions and "troll" in rules.definitions
    assert "rage_of" in rules.tables and "hit" in rules.events  # battlelore.core's, unchanged
    ogre = rules.definitions["mods.ogres.ogre"]
    assert ogre.traits == frozenset({"mods.ogres.big"}) and ogre.title == "Ogre"
    # each trigger listens to its own pack's event
    listens = {t.name: t.event for t in rules.triggers if t.name.endswith("enrage")}
    assert listens == {"mods.ogres.enrage": "mods.ogres.roared", "mods.trolls.enrage": "mods.trolls.roared"}


def test_a_pack_that_uses_both_qualifies_by_pack_or_alias(tmp_path):
    files = dict(MODS)
    files["mods/both.lore"] = """
        pack mods.both
        use mods.ogres as o
        use mods.trolls

        function total(u: unit) -> int = o.strength(u) + mods.trolls.strength(u)
        function louder() -> bool = o.loudness > mods.trolls.loudness
        function raged(n: int) -> int = rage_of[n] + o.rage_of[n]
        function hulking(u: unit) -> bool = u is o.big or u is mods.trolls.big or u is troll
        function smashing(f: face) -> bool = f is o.smash
        procedure both_roar(u: unit) "Both roar" {
          o.roar(u)
          mods.trolls.roar(u)
          emit o.roared(unit: u, loud: total(u))
        }
        trigger echo after mods.trolls.roared if loud > 1 { emit o.roared(unit: unit, loud: 0) }
        procedure typed(x: o.big_kind_missing) "" { stop }
    """
    rules = compile_packs(write(tmp_path, files))
    assert errors(rules) == ["C003 unknown type 'o.big_kind_missing'"]
    echo = next(t for t in rules.triggers if t.name == "echo")
    assert echo.event == "mods.trolls.roared"
    assert rules.procedures["both_roar"].body  # lowered: calls and emits resolved


def test_an_ambiguous_unqualified_name_lists_the_candidates(tmp_path):
    files = dict(MODS)
    files["mods/both.lore"] = """
        pack mods.both
        use mods.ogres
        use mods.trolls

        procedure go(u: unit) "Goes" {
          roar(u)
          emit roared(unit: u, loud: loudness)
          let b = u is big
        }
        trigger t after roared { stop }
    """
    rules = compile_packs(write(tmp_path, files))
    found = [e for e in errors(rules) if e.startswith("C020")]
    assert len(found) == 5, errors(rules)
    assert "'roar' is ambiguous" in found[0] and "(mods.ogres.roar, mods.trolls.roar)" in found[0]


def test_names_are_looked_up_by_sort(tmp_path):
    """A tag 'hit' of a mod does not make battlelore.core's event 'hit' ambiguous."""
    files = {
        "mods/tags.lore": "pack mods.tags\ntag hit\ntag fire\n",
        "mods/user.lore": """
            pack mods.user
            use battlelore.core
            use mods.tags

            trigger t after hit { stop }
            function burning(f: face) -> bool = f is fire or f is mods.tags.hit
        """,
    }
    rules = compile_packs(write(tmp_path, files))
    assert errors(rules) == []
    assert next(t for t in rules.triggers if t.name == "t").event == "battlelore.core.hit"


def test_an_alias_or_pack_that_is_not_known_is_reported(tmp_path):
    files = {"mods/user.lore": """
        pack mods.user
        use battlelore.core as bl

        function a(u: unit) -> int = bl.melee_dice(u)
        function b(u: unit) -> int = xx.melee_dice(u)
        function c() -> int = battlelore.creatures.nothing
    """}
    rules = compile_packs(write(tmp_path, files))
    assert errors(rules) == ["C009 'xx' in 'xx.melee_dice' is neither a pack nor an alias this pack knows",
                             "C003 undefined name 'battlelore'"]


def test_overrides_work_across_namespaced_packs(tmp_path):
    files = dict(MODS)
    files["mods/patch.lore"] = """
        pack mods.patch
        use mods.ogres

        override function strength(u: unit) -> int = super(u) + 1
        override option loudness: int = 9 "Louder"
    """
    rules = compile_packs(write(tmp_path, files))
    assert errors(rules) == []
    assert "mods.ogres.strength@mods.ogres" in rules.functions  # the replaced body, for super
    assert rules.options["mods.ogres.loudness"].doc == "Louder"
    assert rules.options["mods.trolls.loudness"].doc == "How loud a troll roars"
    # the override pack's name qualifies the name it overrides too
    assert rules.qualified["mods.patch.loudness"] == "mods.ogres.loudness"


def test_a_forgotten_override_is_still_c012(tmp_path):
    files = {"mods/mod.lore": "pack mods.mod\nuse battlelore.core\noption banners_to_win: int = 6 \"More\"\n"}
    assert [d.code for d in compile_packs(write(tmp_path, files)).diagnostics if d.is_error] == ["C012"]


def test_a_trait_from_a_pack_not_used_is_c009_alone_and_through_a_scenario():
    """Defects 1 and 2: the same diagnostic both ways, and the hint names the declaring pack."""
    folder = ROOT / "tests" / "fixtures" / "errors" / "trait_of_pack_not_used"
    alone, _ = api.check([str(folder / "wolf.lore")])
    through, _ = api.check([str(folder / "scenario.yaml")])
    shown = [(d.code, d.message, d.hint, d.span) for d in alone]
    assert shown == [(d.code, d.message, d.hint, d.span) for d in through]
    assert shown[0][:3] == ("C009", "'creature' is declared in pack 'battlelore.creatures', which this pack "
                            "does not use", "add 'use battlelore.creatures' at the top of this file")
    outcomes, diagnostics, _ = api.test([str(folder / "scenario.yaml")])
    assert any(d.code == "C009" for d in diagnostics)


def test_a_missing_use_names_the_pack_that_declares_the_name(tmp_path):
    rules = compile_packs(write(tmp_path, {"mods/m.lore": """
        pack mods.m
        use battlelore.core

        function spidery(u: unit) -> bool = u is creature
        function t(u: unit) -> int = u.level
    """}))
    first = next(d for d in rules.diagnostics if d.is_error)
    assert (first.code, first.hint) == ("C009", "add 'use battlelore.creatures' at the top of this file")


SCENARIO = """
    hexlore: 1
    name: Two mods in one scenario
    packs: [{packs}]
    board: {{shape: rectangle, width: 4, height: 4}}
    options: {{mods.trolls.loudness: 7}}
    sides:
      - {{name: north, edge: top, policy: first}}
      - {{name: south, edge: bottom, policy: first}}
    units:
      - {{id: o, type: {ogre}, side: south, hex: B2}}
      - {{id: t, type: troll, side: north, hex: C3}}
    tests:
      - name: a qualified call, and qualified events in expect
        do: [{{call: {roar}, with: {{u: t}}}}]
        expect:
          events: [{{event: mods.trolls.roared, unit: t, loud: 7}}]
          absent: [{{event: mods.ogres.roared}}]
"""


def test_a_scenario_names_things_qualified_when_two_of_its_packs_declare_them(tmp_path):
    write(tmp_path, MODS)
    scenario = tmp_path / "mods" / "scenario.yaml"
    scenario.write_text(textwrap.dedent(SCENARIO.format(
        packs="ogres.lore, trolls.lore", ogre="mods.ogres.ogre", roar="mods.trolls.roar")), encoding="utf-8")
    outcomes, diagnostics, _ = api.test([str(scenario)])
    assert [d for d in diagnostics if d.is_error] == []
    assert [o.passed for o in outcomes] == [True], [o.failures for o in outcomes]


def test_a_scenario_name_two_packs_declare_is_ambiguous_unqualified(tmp_path):
    write(tmp_path, MODS)
    scenario = tmp_path / "mods" / "scenario.yaml"
    scenario.write_text(textwrap.dedent(SCENARIO.format(
        packs="ogres.lore, trolls.lore", ogre="ogre", roar="roar")), encoding="utf-8")
    diagnostics, _ = api.check([str(scenario)])
    hints = {d.code: d.hint for d in diagnostics if d.is_error}
    assert hints["S103"] == "several packs declare 'ogre': write one of mods.ogres.ogre, mods.trolls.ogre"
    assert "mods.ogres.roar, mods.trolls.roar" in [d.hint for d in diagnostics if "roar" in d.message][0]


def test_an_override_of_a_name_two_used_packs_declare_is_ambiguous(tmp_path):
    files = dict(MODS)
    files["mods/both.lore"] = """
        pack mods.both
        use mods.ogres
        use mods.trolls

        override function strength(u: unit) -> int = 5
        function loudness() -> int = 1
    """
    got = errors(compile_packs(write(tmp_path, files)))
    assert got[0].startswith("C020 the override of 'strength' is ambiguous: 2 packs this pack uses declare it"), got
    assert got[1].startswith("C012 'loudness' replaces the declaration of pack 'mods.ogres'"), got


def test_a_call_or_event_of_a_pack_not_used_names_that_pack(tmp_path):
    """Calls and events that no loaded pack declares are looked up in the packs on the roots."""
    rules = compile_packs(write(tmp_path, {"mods/m.lore": """
        pack mods.m
        use battlelore.core

        procedure p(u: unit) "Entry" { emit critical_roll(creature: u, faces: [], killed: false) }
        trigger t after trampled { stop }
    """}))
    shown = [(d.code, d.hint) for d in rules.diagnostics if d.is_error]
    assert shown == [("C009", "add 'use battlelore.creatures' at the top of this file")] * 2, shown
