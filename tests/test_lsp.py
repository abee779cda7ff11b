"""The language server through a real client (issue 17): ``python -m hexlore lsp`` in a
subprocess, spoken to in JSON-RPC over stdio (tests/lsp_client.py), on the bundled packs.

The edits are sent as unsaved buffers: no file of rules/ or scenarios/ is written. What the
server says is compared with what ``hexlore check`` (the API under it) says of the same text,
so the two cannot drift apart unnoticed.
"""

from __future__ import annotations

import shutil

import pytest

from conftest import ROOT
from lsp_client import Client

pytest.importorskip("pygls")

from click.testing import CliRunner  # noqa: E402

from hexlore import api  # noqa: E402
from hexlore.cli import main  # noqa: E402
from hexlore.compiler import compile_packs  # noqa: E402

CORE = ROOT / "rules" / "battlelore" / "core.lore"
CREATURES = ROOT / "rules" / "battlelore" / "creatures.lore"
RIGHT = "h.terrain.impassable"
WRONG = "h.terrain.impassible"


@pytest.fixture
def client():
    c = Client(ROOT)
    c.start(ROOT)
    yield c
    c.stop()


def _apply(text: str, edits: list[dict]) -> str:
    """A text with LSP text edits applied (single-line, ASCII edits: what the quick fixes make)."""
    lines = text.split("\n")
    for e in sorted(edits, key=lambda e: (e["range"]["start"]["line"], e["range"]["start"]["character"]),
                    reverse=True):
        start, end = e["range"]["start"], e["range"]["end"]
        assert start["line"] == end["line"]
        line = lines[start["line"]]
        lines[start["line"]] = line[:start["character"]] + e["newText"] + line[end["character"]:]
    return "\n".join(lines)


def test_a_misspelt_field_is_reported_where_check_reports_it_and_its_quick_fix_clears_it(client, tmp_path):
    original = CORE.read_text(encoding="utf-8")
    assert original.count(RIGHT) == 1
    uri = client.open(CORE)
    assert client.diagnostics(uri) == []
    edited = original.replace(RIGHT, WRONG)
    client.change(uri, edited)
    found = client.diagnostics(uri)
    # hexlore check of the same text (a copy of the folder, as the server groups a folder)
    copy = tmp_path / "battlelore"
    shutil.copytree(CORE.parent, copy)
    (copy / "core.lore").write_text(edited, encoding="utf-8")
    expected = [d for d in api.check([str(copy)])[0] if d.file.endswith("core.lore")]
    assert [(d["code"], d["data"]["message"]) for d in found] == [(d.code, d.message) for d in expected]
    assert [d["code"] for d in found] == ["C005"]
    line = next(i for i, t in enumerate(edited.split("\n")) if WRONG in t)
    column = edited.split("\n")[line].index(WRONG)
    assert found[0]["range"] == {"start": {"line": line, "character": column},
                                 "end": {"line": line, "character": column + len(WRONG)}}
    assert (expected[0].span.line, expected[0].span.column) == (line + 1, column + 1)
    actions = client.request("textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": found[0]["range"], "context": {"diagnostics": found}})
    assert [a["title"] for a in actions] == ["Change to 'impassable'"]
    fixed = _apply(edited, actions[0]["edit"]["changes"][uri])
    assert fixed == original
    client.change(uri, fixed)
    assert client.diagnostics(uri) == []


def test_quick_changes_publish_the_diagnostics_of_the_last_text_only(client):
    original = CORE.read_text(encoding="utf-8")
    uri = client.open(CORE)
    client.diagnostics(uri)
    for n in range(5):  # typed faster than the debounce: only the last text is compiled
        client.change(uri, original.replace(RIGHT, WRONG[:-n] if n else WRONG))
    client.change(uri, original.replace(RIGHT, "h.terrain.impassabl"))
    found = client.diagnostics(uri)
    assert [d["data"]["message"] for d in found] == ["terrain has no field 'impassabl'"]


def test_completion_after_u_dot_lists_the_unit_fields(client):
    text = CORE.read_text(encoding="utf-8")
    lines = text.split("\n")
    line = next(i for i, t in enumerate(lines) if t.startswith("function melee_dice(u: unit)"))
    column = lines[line].index("u.melee_dice") + 2
    uri = client.open(CORE)
    items = client.request("textDocument/completion", {"textDocument": {"uri": uri},
                                                       "position": {"line": line, "character": column}})["items"]
    labels = {i["label"] for i in items}
    unit_fields = set(compile_packs([str(CORE.parent)]).kinds["unit"].fields)
    assert unit_fields <= labels
    assert "chests" not in labels  # a field of hex, not of unit
    assert "trigger" not in labels  # no keyword after a dot


def test_completion_offers_keywords_names_and_builtins_with_signatures(client):
    uri = client.open(CREATURES)
    items = client.request("textDocument/completion", {"textDocument": {"uri": uri},
                                                       "position": {"line": 0, "character": 0}})["items"]
    by_label = {i["label"]: i for i in items}
    assert {"trigger", "instead", "giant_spider", "critical_roll", "creature"} <= set(by_label)
    assert by_label["roll"]["detail"] == "roll(count: int, die: die) -> list of face"


def test_go_to_definition_from_a_scenario_type_lands_on_the_unit_declaration(client):
    scenario = ROOT / "scenarios" / "battlelore" / "spider_ford.yaml"
    lines = scenario.read_text(encoding="utf-8").split("\n")
    line = next(i for i, t in enumerate(lines) if "type: giant_spider" in t)
    uri = client.open(scenario)
    assert client.diagnostics(uri) == []
    found = client.request("textDocument/definition", {"textDocument": {"uri": uri}, "position": {
        "line": line, "character": lines[line].index("giant_spider") + 4}})
    target = CREATURES.read_text(encoding="utf-8").split("\n")
    decl = next(i for i, t in enumerate(target) if t.startswith("unit giant_spider "))
    assert found == [{"uri": CREATURES.resolve().as_uri(), "range": {
        "start": {"line": decl, "character": 5}, "end": {"line": decl, "character": 5 + len("giant_spider")}}}]


def test_hover_shows_the_signature_and_description_and_a_builtins_doc(client):
    uri = client.open(CREATURES)
    lines = CREATURES.read_text(encoding="utf-8").split("\n")
    line = next(i for i, t in enumerate(lines) if t.startswith("event critical_roll"))
    hover = client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                  "position": {"line": line, "character": 8}})
    value = hover["contents"]["value"]
    assert "event critical_roll(creature: unit, faces: list of face, killed: bool)" in value
    assert "A creature's critical roll: the dice and whether it is killed" in value
    line = next(i for i, t in enumerate(lines) if "roll(" in t and not t.startswith("event"))
    hover = client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {
        "line": line, "character": lines[line].index("roll(") + 1}})
    value = hover["contents"]["value"]
    assert "roll(count: int, die: die) -> list of face" in value
    assert "(random)" in value  # the row of docs/language.md's table of built-ins


def test_the_outline_lists_the_declarations(client):
    uri = client.open(CREATURES)
    symbols = client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    names = [s["name"] for s in symbols]
    assert {"giant_spider", "critical_roll", "creature", "fields unit"} <= set(names)
    spider = symbols[names.index("giant_spider")]
    assert spider["detail"] == 'unit giant_spider "Araignée Géante" is creature'


def test_lsp_help_works():
    result = CliRunner().invoke(main, ["lsp", "--help"])
    assert result.exit_code == 0 and "language server" in result.output


# -- the quick fixes of override and use, in-process (the server's modules, no subprocess)

def _fixed_by(tmp_path, mod_text: str, title: str) -> list:
    """Compile a base pack and ``mod_text`` as the server does, apply the quick fix called
    ``title`` of the mod's first error, and return the errors left."""
    from hexlore.lsp.analysis import Documents
    from hexlore.lsp.convert import diagnostic
    from hexlore.lsp.quickfix import fixes

    (tmp_path / "base.lore").write_text("pack base\n\nfunction f(x: int) -> int = x\n", encoding="utf-8")
    mod = tmp_path / "mod.lore"
    mod.write_text(mod_text, encoding="utf-8")
    path = str(mod.resolve())
    documents = Documents()
    documents.set(path, mod_text)
    lines = mod_text.split("\n")
    errors = [d for d in documents.lore(path).diagnostics[path] if d.is_error]
    assert errors, "the mod should have an error to fix"
    actions = {a.title: a for a in fixes(mod.as_uri(), lines, diagnostic(errors[0], lines))}
    assert title in actions, list(actions)
    [edit] = actions[title].edit.changes[mod.as_uri()]
    fixed = _apply(mod_text, [{"range": {"start": {"line": edit.range.start.line, "character": edit.range.start.character},
                                         "end": {"line": edit.range.end.line, "character": edit.range.end.character}},
                               "newText": edit.new_text}])
    documents.set(path, fixed)
    return [d for d in documents.lore(path).diagnostics.get(path, []) if d.is_error]


def test_a_missing_override_is_written_by_its_quick_fix(tmp_path):
    assert _fixed_by(tmp_path, "pack mod\nuse base\n\nfunction f(x: int) -> int = x + 1\n", "Add 'override'") == []


def test_a_missing_use_is_written_by_its_quick_fix(tmp_path):
    assert _fixed_by(tmp_path, "pack mod\n\noverride function f(x: int) -> int = x + 1\n", "Add 'use base'") == []


def test_an_override_of_nothing_is_removed_by_its_quick_fix(tmp_path):
    assert _fixed_by(tmp_path, "pack mod\n\noverride function g(x: int) -> int = x + 1\n", "Remove 'override'") == []


def test_scenario_yaml_completes_unit_types_and_goes_from_call_to_the_procedure(client):
    scenario = ROOT / "scenarios" / "battlelore" / "spider_ford.yaml"
    lines = scenario.read_text(encoding="utf-8").split("\n")
    uri = client.open(scenario)
    line = next(i for i, t in enumerate(lines) if "type: giant_spider" in t)
    column = lines[line].index("type: ") + len("type: ")
    items = client.request("textDocument/completion", {"textDocument": {"uri": uri},
                                                       "position": {"line": line, "character": column}})["items"]
    labels = {i["label"] for i in items}
    assert "giant_spider" in labels and "foot_red" in labels
    assert "melee_attack" not in labels  # a procedure, not a unit type
    line = next(i for i, t in enumerate(lines) if "dice: [[" in t)
    items = client.request("textDocument/completion", {"textDocument": {"uri": uri}, "position": {
        "line": line, "character": lines[line].index("[[") + 2}})["items"]
    assert {"blue_helmet", "flag", "lore", "bonus_strike"} <= {i["label"] for i in items}
    line = next(i for i, t in enumerate(lines) if "type: giant_spider" in t)
    items = client.request("textDocument/completion", {"textDocument": {"uri": uri}, "position": {
        "line": line, "character": lines[line].index("hex: ") + 5}})["items"]
    assert {"A1", "G4", "M9"} <= {i["label"] for i in items} and "N1" not in {i["label"] for i in items}
    line = next(i for i, t in enumerate(lines) if "call: melee_attack" in t)
    found = client.request("textDocument/definition", {"textDocument": {"uri": uri}, "position": {
        "line": line, "character": lines[line].index("melee_attack") + 3}})
    core = CORE.read_text(encoding="utf-8").split("\n")
    decl = next(i for i, t in enumerate(core) if t.startswith("procedure melee_attack("))
    assert [(f["uri"], f["range"]["start"]["line"]) for f in found] == [(CORE.resolve().as_uri(), decl)]


def test_workspace_symbols_find_the_declarations_of_open_rule_sets(client):
    uri = client.open(CREATURES)
    client.diagnostics(uri)
    found = client.request("workspace/symbol", {"query": "giant_sp"})
    assert {(s["name"], s["location"]["uri"]) for s in found} == {
        ("giant_spider", CREATURES.resolve().as_uri()), ("giant_spider_card", CREATURES.resolve().as_uri())}


def test_references_of_a_trait_leave_out_parameters_of_the_same_name(client):
    import re

    uri = client.open(CREATURES)
    lines = CREATURES.read_text(encoding="utf-8").split("\n")
    line = next(i for i, t in enumerate(lines) if t.startswith("trait creature"))
    found = client.request("textDocument/references", {"textDocument": {"uri": uri}, "context": {
        "includeDeclaration": True}, "position": {"line": line, "character": 8}})
    expected = set()
    for pack in CORE.parent.glob("*.lore"):
        for i, text in enumerate(pack.read_text(encoding="utf-8").split("\n")):
            code = text.split("#")[0]
            for m in re.finditer(r"\b(?:is|trait) (creature)\b", code):
                expected.add((pack.resolve().as_uri(), i, m.start(1)))
    assert {(f["uri"], f["range"]["start"]["line"], f["range"]["start"]["character"]) for f in found} == expected
    assert len(expected) == 9  # 'event creature_lore(creature: unit, …)' names a parameter, not the trait


def test_rename_of_an_event_edits_every_use_and_the_result_compiles(client, tmp_path):
    uri = client.open(CREATURES)
    lines = CREATURES.read_text(encoding="utf-8").split("\n")
    line = next(i for i, t in enumerate(lines) if t.startswith("event critical_roll"))
    refused = client.answer("textDocument/rename", {"textDocument": {"uri": uri}, "newName": "hero",
                                                    "position": {"line": line, "character": 8}})
    assert "error" in refused and "already declared" in refused["error"]["message"]
    edit = client.request("textDocument/rename", {"textDocument": {"uri": uri}, "newName": "critical_dice",
                                                  "position": {"line": line, "character": 8}})
    copy = tmp_path / "battlelore"
    shutil.copytree(CORE.parent, copy)
    for target, edits in edit["changes"].items():
        name = target.rsplit("/", 1)[1]
        (copy / name).write_text(_apply((CORE.parent / name).read_text(encoding="utf-8"), edits), encoding="utf-8")
    assert sum(len(e) for e in edit["changes"].values()) == 2  # the declaration and its one emit
    renamed = (copy / "creatures.lore").read_text(encoding="utf-8")
    assert "critical_roll" not in renamed and "emit critical_dice(" in renamed
    assert [d.headline() for d in api.check([str(copy)])[0] if d.is_error] == []


def test_an_unsaved_scenario_is_checked_as_typed_and_its_quick_fix_applies(client, tmp_path):
    scenario = ROOT / "scenarios" / "battlelore" / "spider_ford.yaml"
    original = scenario.read_text(encoding="utf-8")
    uri = client.open(scenario)
    assert client.diagnostics(uri) == []
    edited = original.replace("type: giant_spider", "type: giant_spidr", 1)
    client.change(uri, edited)
    found = client.diagnostics(uri)
    copy = tmp_path / "spider_ford.yaml"  # hexlore check of the same text, saved beside its packs' folder
    shutil.copytree(scenario.parent, tmp_path, dirs_exist_ok=True)
    copy.write_text(edited, encoding="utf-8")
    expected = api.check([str(copy)])[0]
    assert [(d["code"], d["data"]["message"], d["range"]["start"]["line"] + 1, d["range"]["start"]["character"] + 1)
            for d in found] == [(d.code, d.message, d.span.line, d.span.column) for d in expected]
    assert found and "giant_spider" in found[0]["data"]["hint"]
    actions = client.request("textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": found[0]["range"], "context": {"diagnostics": found[:1]}})
    fixed = _apply(edited, actions[0]["edit"]["changes"][uri])
    assert fixed == original
    client.change(uri, fixed)
    assert client.diagnostics(uri) == []


def test_definition_of_a_parameter_is_its_binding_and_of_a_triggers_parameter_its_event(client):
    lines = CORE.read_text(encoding="utf-8").split("\n")
    uri = client.open(CORE)
    line = next(i for i, t in enumerate(lines) if t.startswith("function melee_dice(u: unit)"))
    found = client.request("textDocument/definition", {"textDocument": {"uri": uri}, "position": {
        "line": line, "character": lines[line].index("u.melee_dice")}})
    at = lines[line].index("(u: unit") + 1
    assert found == [{"uri": uri, "range": {"start": {"line": line, "character": at},
                                            "end": {"line": line, "character": at + 1}}}]
    line = next(i for i, t in enumerate(lines) if t.startswith("trigger figure_losses on hit"))
    use = next(i for i in range(line, line + 10) if "target" in lines[i])
    found = client.request("textDocument/definition", {"textDocument": {"uri": uri}, "position": {
        "line": use, "character": lines[use].index("target") + 1}})
    event = next(i for i, t in enumerate(lines) if t.startswith("event hit("))
    assert [(f["uri"], f["range"]["start"]["line"]) for f in found] == [(uri, event)]


def test_semantic_tokens_tell_events_traits_parameters_and_variables_apart(client):
    uri = client.open(CREATURES)
    token_types = client.capabilities["semanticTokensProvider"]["legend"]["tokenTypes"]
    data = client.request("textDocument/semanticTokens/full", {"textDocument": {"uri": uri}})["data"]
    lines = CREATURES.read_text(encoding="utf-8").split("\n")
    decoded, line, column = {}, 0, 0
    for i in range(0, len(data), 5):
        delta_line, delta_start, length, kind, _ = data[i:i + 5]
        line += delta_line
        column = column + delta_start if delta_line == 0 else delta_start
        decoded[(line, lines[line][column:column + length])] = token_types[kind]
    trigger = next(i for i, t in enumerate(lines) if t.startswith("trigger critical_hit instead of hit"))
    assert decoded[(trigger, "hit")] == "event"
    assert decoded[(trigger, "creature")] == "interface"
    assert decoded[(trigger, "target")] == "parameter"
    emit = next(i for i in range(trigger, trigger + 10) if "emit critical_roll" in lines[i])
    assert decoded[(emit, "critical_roll")] == "event"
    assert decoded[(emit, "faces")] == "variable"  # a let of the trigger, not a parameter of its event


def test_completion_offers_only_the_names_the_pack_at_the_cursor_sees(client):
    """core.lore is compiled with the rest of its folder, but battlelore.core uses no other pack:
    the creatures pack's names are no names there; in creatures.lore, which uses core, both are."""
    def labels(path):
        uri = client.open(path)
        return {i["label"] for i in client.request("textDocument/completion", {
            "textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}})["items"]}

    in_core, in_creatures = labels(CORE), labels(CREATURES)
    assert {"giant_spider", "creature"} & in_core == set()
    assert {"giant_spider", "creature", "melee_attack", "roll"} <= in_creatures
    assert {"melee_attack", "roll", "trigger"} <= in_core


# ---------------------------------------------------------------- issue 30: the two defects
def test_completion_after_call_in_a_scenario_lists_the_procedures_with_their_descriptions(client):
    """It failed with an internal error: a procedure had no description to show."""
    scenario = ROOT / "scenarios" / "battlelore" / "spider_ford.yaml"
    lines = scenario.read_text(encoding="utf-8").split("\n")
    uri = client.open(scenario)
    line = next(i for i, t in enumerate(lines) if "call: melee_attack" in t)
    answer = client.answer("textDocument/completion", {"textDocument": {"uri": uri}, "position": {
        "line": line, "character": lines[line].index("call: ") + len("call: ")}})
    assert "error" not in answer, answer
    items = {i["label"]: i for i in answer["result"]["items"]}
    rules = api.open_scenario(str(scenario)).rules
    described = {name: p.doc for name, p in rules.procedures.items() if p.doc}
    assert "melee_attack" in items and described  # the pack describes some procedures: shown as written
    assert {name: items[name].get("documentation") for name in described} == described


def test_a_refused_rename_is_an_error_response_with_the_reason_and_no_traceback(client):
    uri = client.open(CREATURES)
    lines = CREATURES.read_text(encoding="utf-8").split("\n")
    line = next(i for i, t in enumerate(lines) if t.startswith("event critical_roll"))
    refused = client.answer("textDocument/rename", {"textDocument": {"uri": uri}, "newName": "hero",
                                                    "position": {"line": line, "character": 8}})
    error = refused["error"]
    assert error["code"] == -32803  # LSP's RequestFailed: the request was valid, the rename is not
    assert error["message"].startswith("cannot rename 'critical_roll': 'hero' is already declared (")
    assert "Traceback" not in str(refused) and "traceback" not in str(error.get("data"))


def _drain(client: Client) -> list[dict]:
    """The notifications received so far, in order."""
    out = []
    while not client._notes.empty():
        out.append(client._notes.get_nowait())
    return out


def test_a_slow_folder_is_cut_short_and_other_files_are_answered_meanwhile(tmp_path, monkeypatch):
    """Analyses ran on the message loop: a slow pack kept every answer about every file
    waiting. Now it runs off the loop; past the cap (1.5 s here) the file gets W005, and a
    small pack opened after it gets its diagnostics and answers before the slow one is done."""
    from test_analysis_scaling import reversed_chain

    slow = tmp_path / "slow" / "chain.lore"
    slow.parent.mkdir()
    slow.write_text(reversed_chain(5000), encoding="utf-8")  # 370 KB: seconds to compile
    quick = tmp_path / "quick" / "small.lore"
    quick.parent.mkdir()
    quick.write_text("pack quick.one\n\nfunction f(n: int) -> int = m\n", encoding="utf-8")
    monkeypatch.setenv("HEXLORE_LSP_ANALYSIS_SECONDS", "1.5")
    c = Client(tmp_path)
    try:
        c.start(tmp_path)
        warm = c.open(quick)  # the first compile of a server imports and loads the parser: not timed here
        while any(d["code"] == "W005" for d in c.diagnostics(warm)):
            pass
        slow_uri, quick_uri = c.open(slow), c.open(quick)
        published: dict[str, list] = {}
        while not (slow_uri in published and quick_uri in published):
            note = c._notes.get(timeout=20)
            if note["method"] == "textDocument/publishDiagnostics":
                published[note["params"]["uri"]] = note["params"]["diagnostics"]
        [cut] = published[slow_uri]
        assert cut["code"] == "W005" and "cut short" in cut["message"]
        assert sorted(d["code"] for d in published[quick_uri]) == ["C003", "W004"]
        symbols = c.request("textDocument/documentSymbol", {"textDocument": {"uri": quick_uri}})
        assert [s["name"] for s in symbols] == ["f"]
        seen = _drain(c)
        assert not any(n["params"].get("uri") == slow_uri for n in seen), "the slow pack finished first"
        assert c.diagnostics(slow_uri) == []  # when it is done, its own diagnostics (none) replace the W005
    finally:
        c.stop()
