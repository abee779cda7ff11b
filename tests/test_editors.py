"""The editor support of editors/vscode (issue 17): the TextMate grammar highlights every keyword
the Lore grammar has, the extension's files are where its manifest says, its schemas are
hexlore's own, and its client starts ``hexlore lsp`` (run under Node with VS Code stubbed)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from conftest import ROOT, need_program

from hexlore.compiler.builtins import BUILTINS

VSCODE = ROOT / "editors" / "vscode"
GRAMMAR = json.loads((VSCODE / "syntaxes" / "lore.tmLanguage.json").read_text(encoding="utf-8"))


def lark_keywords() -> set[str]:
    """The quoted words (keyword terminals) of every Lark grammar of the language."""
    words: set[str] = set()
    for grammar in (ROOT / "hexlore" / "dsl").glob("*.lark"):
        words |= set(re.findall(r'"([a-z_][a-z0-9_]*)"', grammar.read_text(encoding="utf-8")))
    return words


def patterns(node) -> list[tuple[str, str]]:
    """(regex, scope names) of every ``match`` of the TextMate grammar, captures' scopes included."""
    found = []
    if isinstance(node, dict):
        if "match" in node:
            scopes = [node.get("name", "")] + [c.get("name", "") for c in node.get("captures", {}).values()]
            found.append((node["match"], " ".join(scopes)))
        for value in node.values():
            found += patterns(value)
    elif isinstance(node, list):
        for value in node:
            found += patterns(value)
    return found


def covered(word: str, scope_prefixes: tuple[str, ...]) -> bool:
    """Whether some pattern with a scope of these kinds names ``word`` as an alternative."""
    return any(re.search(rf"(?<![\w\\]){word}(?!\w)", regex) and any(p in scopes for p in scope_prefixes)
               for regex, scopes in patterns(GRAMMAR))


def test_the_lark_grammar_has_keywords():
    assert {"trigger", "instead", "override", "mod", "none", "campaign"} <= lark_keywords()


def test_every_keyword_of_the_lark_grammar_is_highlighted():
    missing = sorted(w for w in lark_keywords()
                     if not covered(w, ("keyword.", "storage.", "constant.language")))
    assert missing == []


def test_every_builtin_is_highlighted_as_one():
    missing = sorted(b for b in BUILTINS if not covered(b, ("support.function",)))
    assert missing == []


def test_the_patterns_compile_and_match_what_they_should():
    for regex, _ in patterns(GRAMMAR):
        re.compile(regex)  # TextMate's Oniguruma reads these too: no syntax of Oniguruma alone
    control = next(r for r, s in patterns(GRAMMAR) if s.startswith("keyword.control.lore"))
    assert re.fullmatch(control, "while") and not re.search(control, "whiles")
    trigger = GRAMMAR["repository"]["trigger"]["match"]
    m = re.search(trigger, "trigger critical_hit instead of hit if target is creature {")
    assert m and m.group(2) == "critical_hit" and m.group(4) == "hit"


def test_the_manifest_names_files_that_exist():
    manifest = json.loads((VSCODE / "package.json").read_text(encoding="utf-8"))
    contributes = manifest["contributes"]
    assert (VSCODE / manifest["main"]).is_file()
    assert (VSCODE / contributes["grammars"][0]["path"]).is_file()
    config = json.loads((VSCODE / contributes["languages"][0]["configuration"]).read_text(encoding="utf-8"))
    assert config["comments"]["lineComment"] == "#"
    assert ["{", "}"] in config["brackets"] and ["(", ")"] in config["brackets"]
    for entry in contributes["yamlValidation"]:
        assert (VSCODE / entry["url"]).is_file()


@pytest.mark.parametrize("name", ["scenario", "campaign", "sheet"])
def test_the_extension_validates_yaml_with_hexlores_own_schemas(name):
    shipped = (VSCODE / "schemas" / f"{name}.schema.json").read_bytes()
    assert shipped == (ROOT / "scenarios" / "schema" / f"{name}.schema.json").read_bytes(), \
        "copy scenarios/schema/*.schema.json to editors/vscode/schemas/"


#: loads extension.js with ``vscode`` and the language client replaced by recorders
STUBBED = r"""
const Module = require("module");
const made = [];
const stubs = {
  "vscode": {workspace: {getConfiguration: () => ({get: () => undefined})}},
  "vscode-languageclient/node": {
    TransportKind: {stdio: 0},
    LanguageClient: class { constructor(id, name, server, options) { made.push({id, server, options}); }
                            start() { return Promise.resolve(); } stop() {} },
  },
};
const load = Module._load;
Module._load = function (request, parent, isMain) {
  return request in stubs ? stubs[request] : load.call(this, request, parent, isMain);
};
const extension = require(process.argv[1]);
extension.activate({subscriptions: []});
console.log(JSON.stringify(made));
"""


def test_the_client_starts_hexlore_lsp_for_lore_files():
    node = shutil.which("node")
    need_program(node is not None, "Node.js", "apt-get install nodejs")
    done = subprocess.run([node, "-e", STUBBED, str(VSCODE / "extension.js")], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    [client] = json.loads(done.stdout)
    assert client["server"]["run"]["command"] == "hexlore" and client["server"]["run"]["args"] == ["lsp"]
    assert {"scheme": "file", "language": "lore"} in client["options"]["documentSelector"]
