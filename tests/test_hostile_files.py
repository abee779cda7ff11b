"""Files hexlore must not read, and bytes it must not print (issue 13, items 4 and 5).

A secret outside the project (a file holding a unique marker) is reached every way a scenario
or a pack could name it: a link beside the scenario, an absolute path, ``..``, a link that a
``use`` finds in a pack folder, a link inside a checked folder. For every command and every
output format, no byte of it may appear in what hexlore prints. Each child runs under the
bounds of tests/bounded.py.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from bounded import assert_refused, run_bounded
from hexlore.output_formats import REPORT_FORMATS

MARKER = "TOP-SECRET-7f3a9c"
SCENARIO = ("hexlore: 1\nname: leak\npacks: [{packs}]\nboard: {{shape: rectangle, width: 3, height: 3}}\n"
            "sides:\n  - {{name: north, edge: top}}\n  - {{name: south, edge: bottom}}\nunits: []\n"
            "tests:\n  - name: nothing\n    do: [{{call: nothing}}]\n    expect: {{events: []}}\n")


@pytest.fixture
def project(tmp_path):
    """A project folder and, beside it (outside), a secret file that parses as nothing."""
    secret = tmp_path / "outside" / "passwd"
    secret.parent.mkdir()
    secret.write_text(f"root:x:0:0:{MARKER}:/root:/bin/bash\n{MARKER} = {{ \n", encoding="utf-8")
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "mine.lore").write_text('pack mine\nprocedure nothing() "Does nothing" {\n}\n', encoding="utf-8")
    return folder, secret


def _ways(folder, secret):
    """(scenario file, what it shows) for each way of naming the secret."""
    (folder / "passwd.lore").symlink_to(secret)
    (folder / "rules" / "evil").mkdir(parents=True)
    (folder / "rules" / "evil" / "pack.lore").symlink_to(secret)
    (folder / "user.lore").write_text('pack user\nuse evil.pack\nprocedure nothing() "x" {\n}\n', encoding="utf-8")
    ways = {
        "link beside the scenario": "passwd.lore",
        "absolute path": str(secret.with_suffix(".lore")),
        "dot-dot path": "../outside/passwd.lore",
        "use of a linked pack": "user.lore",
        "folder path": str(secret.parent),
    }
    secret.with_suffix(".lore").symlink_to(secret)
    files = {}
    for i, (name, entry) in enumerate(ways.items()):
        scenario = folder / f"leak{i}.yaml"
        scenario.write_text(SCENARIO.format(packs=entry), encoding="utf-8")
        files[name] = scenario
    return files


COMMANDS = {
    "check text": ["check", "--format", "text"],
    "check json": ["check", "--format", "json"],
    "check github": ["check", "--format", "github"],
    "check sarif": ["check", "--format", "sarif"],
    "run": ["run"],
    "test": ["test"],
    "odds": ["odds", "--action", "nothing()"],
}


@pytest.mark.slow  # tens of seconds: run by CI (.ci/run: -m slow)
def test_no_byte_of_a_secret_reaches_any_output(project):
    folder, secret = project
    ways = _ways(folder, secret)
    for way, scenario in ways.items():
        for command, args in COMMANDS.items():
            outcome = run_bounded(*args, str(scenario), cwd=folder)
            assert MARKER not in outcome.output, f"{way}, {command}:\n{outcome.describe()}"
            assert "root:x" not in outcome.output, f"{way}, {command}"
            assert_refused(outcome)
    outcome = run_bounded("check", str(folder), cwd=folder)  # a folder walk meets the links too
    assert MARKER not in outcome.output and "root:x" not in outcome.output, outcome.describe()
    assert "C019" in outcome.output and "S118" in outcome.output and "S119" in outcome.output


def test_a_declared_search_path_is_read(project, tmp_path):
    folder, _ = project
    shared = tmp_path / "shared"
    (shared / "house").mkdir(parents=True)
    (shared / "house" / "rules.lore").write_text('pack house.rules\nprocedure nothing() "x" {\n}\n',
                                                 encoding="utf-8")
    scenario = folder / "house.yaml"
    scenario.write_text(SCENARIO.format(packs="house.rules"), encoding="utf-8")
    assert_refused(run_bounded("test", str(scenario), cwd=folder), "S102")
    outcome = run_bounded("--packs-path", str(shared), "test", str(scenario), cwd=folder)
    assert outcome.returncode == 0, outcome.describe()
    outcome = run_bounded("test", str(scenario), cwd=folder, env={"HEXLORE_PATH": str(shared)})
    assert outcome.returncode == 0, outcome.describe()


def test_a_fifo_is_refused_without_blocking(tmp_path):  # check asks is_file first: S000, never a read
    fifo = tmp_path / "pipe.lore"
    os.mkfifo(fifo)
    assert_refused(run_bounded("check", str(fifo)), "S000")
    scenario = tmp_path / "s.yaml"
    scenario.write_text(SCENARIO.format(packs="pipe.lore"), encoding="utf-8")
    assert_refused(run_bounded("run", str(scenario)), "S102")  # a FIFO is no pack file
    yaml_fifo = tmp_path / "pipe.yaml"
    os.mkfifo(yaml_fifo)
    assert_refused(run_bounded("check", str(yaml_fifo)), "S000")


def test_a_use_of_a_very_long_name(tmp_path):
    pack = tmp_path / "long.lore"
    pack.write_text("pack long\nuse " + ".".join(["a" * 250] * 4) + "\n", encoding="utf-8")
    assert_refused(run_bounded("check", str(pack)), "C001")


def test_invalid_utf8_in_a_pack_is_located(tmp_path):
    pack = tmp_path / "bad.lore"
    pack.write_bytes(b"pack bad\n\n# Ch\xe2teau\n")
    outcome = run_bounded("check", str(pack))
    assert_refused(outcome, "P020")
    assert "bad.lore:3:5:" in outcome.output


def test_a_file_too_large_is_refused_before_reading(tmp_path):
    pack = tmp_path / "huge.lore"
    with open(pack, "wb") as stream:
        stream.truncate(3 * 1024 * 1024 * 1024)  # a sparse 3 GB file: reading it would blow the bound
    assert_refused(run_bounded("check", str(pack)), "P020")


ESCAPES = {
    "OSC 0 window title": "\x1b]0;owned\x07",
    "OSC 8 link": "\x1b]8;;http://x.example/\x1b\\click\x1b]8;;\x1b\\",
    "C1 CSI": "\x9b31m",
    "bidi override": "\u202eevil",
}


@pytest.mark.parametrize("fmt", ["text", "json", "github", "sarif"])
@pytest.mark.parametrize("name, sequence", ESCAPES.items(), ids=ESCAPES.keys())
def test_control_characters_are_escaped_in_every_format(tmp_path, fmt, name, sequence):
    folder = tmp_path / f"dir{sequence}" if "\x1b" not in sequence else tmp_path / "plain"
    folder.mkdir()
    pack = folder / f"x{sequence.replace('/', '_')}.lore"
    pack.write_text(f'pack x\nevent e() "{sequence}"\nprocedure p() {{ let {sequence} = 1 }}\n', encoding="utf-8")
    outcome = run_bounded("check", "--format", fmt, str(pack))
    assert_refused(outcome)
    for raw in ("\x1b", "\x07", "\x9b", "\u202e"):
        assert raw not in outcome.stdout + outcome.stderr, (name, fmt, outcome.describe())
    if fmt in ("json", "sarif"):
        json.loads(outcome.stdout)


# ---------------------------------------------------------------------------
# Issue 30, item 1: links committed in a project (folders, rules/, look.yaml, sheets, an
# editor's documents) lead nowhere outside it; hexlore/dsl/confine.py decides, once.
# ---------------------------------------------------------------------------

FORMATS = tuple(REPORT_FORMATS)  # every format of the report (hexlore/output_formats.py)


def _secrets(outside):
    """Files behind the links: a pack, a scenario-like YAML and a look, each holding the marker."""
    (outside / "leak.lore").write_text(f"pack leak\n{MARKER} = {{ \n", encoding="utf-8")
    (outside / "leak.yaml").write_text(f"hexlore: 1\nname: {MARKER}\n{MARKER}: [\n", encoding="utf-8")
    (outside / "look.yaml").write_text(f'terrain: {{plain: "{MARKER}"}}\n', encoding="utf-8")
    (outside / "sheet.yaml").write_text(f"hexlore_sheet: 1\n{MARKER}: [\n", encoding="utf-8")


def _no_secret(outcome, *codes):
    assert MARKER not in outcome.output and "root:x" not in outcome.output, outcome.describe()
    assert_refused(outcome, *codes)


@pytest.mark.parametrize("target", ["../outside", "/"], ids=["to ../outside", "to /"])
def test_a_linked_folder_checked_by_the_ci_recipe_is_not_read(project, target):
    folder, secret = project
    _secrets(secret.parent)
    (folder / "rules").symlink_to(target, target_is_directory=True)
    (folder / "scenarios").mkdir()
    for fmt in FORMATS:  # `hexlore check rules scenarios`, from the repository's top
        outcome = run_bounded("check", "--format", fmt, "rules", "scenarios", cwd=folder)
        _no_secret(outcome, "C023")
        if fmt in ("json", "sarif"):
            json.loads(outcome.stdout)
    outcome = run_bounded("check", ".", cwd=folder)  # a walk from above meets the link and leaves it
    _no_secret(outcome, "C019")
    outcome = run_bounded("--root", str(folder), "check", str(folder / "rules"), cwd=secret.parent)
    _no_secret(outcome, "C023")  # an explicit --root confines a path named from anywhere


def test_a_linked_rules_folder_above_a_scenario_is_not_searched(project):
    folder, secret = project
    _secrets(secret.parent)
    (folder / "rules").symlink_to("../outside", target_is_directory=True)
    (folder / "scenarios").mkdir()
    scenario = folder / "scenarios" / "leak.yaml"
    scenario.write_text(SCENARIO.format(packs="leak"), encoding="utf-8")
    for command, args in COMMANDS.items():
        _no_secret(run_bounded(*args, str(scenario), cwd=folder), "S120")


def test_a_linked_look_is_not_drawn_from_nor_quoted(project, tmp_path):
    folder, secret = project
    _secrets(secret.parent)
    (folder / "look.yaml").symlink_to(secret.parent / "look.yaml")
    scenario = folder / "drawn.yaml"
    scenario.write_text(SCENARIO.format(packs="mine.lore"), encoding="utf-8")
    page = tmp_path / "replay.html"
    for args in (["render", str(scenario)], ["run", str(scenario), "--html", str(page)], ["check", str(scenario)]):
        _no_secret(run_bounded(*args, cwd=folder), "S121")
    assert not page.exists() or MARKER not in page.read_text(encoding="utf-8")


def test_a_linked_sheet_is_not_read_nor_replaced(project):
    folder, secret = project
    _secrets(secret.parent)
    (folder / "sheet.yaml").symlink_to(secret.parent / "sheet.yaml")
    (folder / "played.yaml").write_text(SCENARIO.format(packs="mine.lore"), encoding="utf-8")
    campaign = folder / "campaign.yaml"
    campaign.write_text("hexlore_campaign: 1\nname: linked\nsheet: sheet.yaml\nadventures:\n"
                        "  - scenario: played.yaml\n", encoding="utf-8")
    for args in (["check", str(campaign)], ["campaign", str(campaign)]):
        _no_secret(run_bounded(*args, cwd=folder), "S122")
    assert (folder / "sheet.yaml").is_symlink()
    assert MARKER in (secret.parent / "sheet.yaml").read_text(encoding="utf-8")  # untouched


def test_links_inside_the_project_and_declared_folders_still_work(project, tmp_path):
    folder, _ = project
    (folder / "lib").mkdir()
    (folder / "lib" / "real.lore").write_text('pack real\nprocedure nothing() "x" {\n}\n', encoding="utf-8")
    (folder / "linked.lore").symlink_to("lib/real.lore")
    scenario = folder / "inside.yaml"
    scenario.write_text(SCENARIO.format(packs="linked.lore"), encoding="utf-8")
    outcome = run_bounded("test", str(scenario), cwd=folder)
    assert outcome.returncode == 0, outcome.describe()
    outcome = run_bounded("--root", str(folder), "test", str(scenario), cwd=tmp_path)
    assert outcome.returncode == 0, outcome.describe()
    outcome = run_bounded("--root", str(folder), "run", "battlelore/spider_ford", "--max-rounds", "1",
                          cwd=tmp_path)  # the bundled scenarios and rules are trusted under any root
    assert outcome.returncode == 0, outcome.describe()


def _published_until(client, uri: str) -> list[dict]:
    """Every diagnostics notification the server sends until (and with) the one for ``uri``."""
    seen = []
    end = time.monotonic() + 20
    while True:
        note = client._notes.get(timeout=max(end - time.monotonic(), 0.01))
        if note["method"] == "textDocument/publishDiagnostics":
            seen.append(note["params"])
            if note["params"]["uri"] == uri:
                return seen


def test_the_language_server_reads_nothing_outside_its_workspace(project):
    pytest.importorskip("pygls")
    from lsp_client import Client

    folder, secret = project
    _secrets(secret.parent)
    leak = secret.parent / "leak.lore"
    (folder / "evil.lore").symlink_to(leak)  # a linked file the editor opens, and a sibling of mine.lore
    client = Client(folder)
    try:
        client.start(folder)
        evil = Path(os.path.abspath(folder / "evil.lore")).as_uri()  # as the editor names it: the link
        client.notify("textDocument/didOpen", {"textDocument": {"uri": evil, "languageId": "lore", "version": 1,
                                                                "text": leak.read_text(encoding="utf-8")}})
        mine = client.open(folder / "mine.lore")  # its folder holds the link too
        published = _published_until(client, mine)
        assert MARKER not in json.dumps(published), published
        outside = [p["uri"] for p in published if not p["uri"].startswith(folder.as_uri() + "/")]
        assert outside == [], published  # no file outside the workspace was compiled
        codes = [d.get("code") for p in published if p["uri"] == evil for d in p["diagnostics"]]
        assert codes == ["C023"], published
        assert client.request("textDocument/hover", {"textDocument": {"uri": evil},
                                                     "position": {"line": 1, "character": 2}}) is None
    finally:
        client.stop()


def test_a_linked_variant_or_graph_path_is_refused(project):
    folder, secret = project
    _secrets(secret.parent)
    (folder / "variant.lore").symlink_to(secret.parent / "leak.lore")
    (folder / "rules").symlink_to("../outside", target_is_directory=True)
    _no_secret(run_bounded("sweep", "battlelore/spider_ford", "--games", "1", "--vs", "variant.lore", cwd=folder,
                           cpu_seconds=30), "C023")
    for path in ("variant.lore", "rules"):
        _no_secret(run_bounded("graph", path, cwd=folder), "C019")
