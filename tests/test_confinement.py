"""Every file hexlore opens goes through the one confinement (issue 30, item 1).

An AST scan of ``hexlore/`` finds each call that opens, reads or lists files (``open``,
``os.open``, ``read_text``, ``read_bytes``, ``Path.open``, ``glob``/``rglob``/``os.walk``…,
and the bounded reader ``read_text`` of ``hexlore/dsl/files.py``). Each must
be in ``hexlore/dsl/confine.py`` or ``hexlore/dsl/files.py`` (the confinement and the reader it
uses), or sit in a function that asks the confinement (``confine``, ``read_confined``, ``walk``,
``read_input``…), or be on the short list below, each with why it reads no project input.
Writes (``open(path, "w")``) are outputs, not reads, and are left to the atomic writers.
A new opener that skips the confinement fails here until it is routed or listed.
"""

from __future__ import annotations

import ast

from conftest import ROOT

PACKAGE = ROOT / "hexlore"
OWN = {"hexlore/dsl/confine.py", "hexlore/dsl/files.py"}
#: names whose call in a function confines what it opens there (hexlore/dsl/confine.py and its users)
CONFINERS = {"confine", "read_confined", "walk", "read_input", "_confined", "command_line_root"}
#: (file, function) -> why it may open without the confinement: hexlore's own shipped assets,
#: its private cache, and the write side (locks, fsync of a folder)
ALLOWED = {
    ("hexlore/dsl/parser.py", "lark_parser"): "the Lore grammar shipped in the package",
    ("hexlore/dsl/parser_cache.py", "_load"): "the parser tables in hexlore's private cache folder (O_NOFOLLOW)",
    ("hexlore/lsp/keywords.py", "keywords"): "the grammar shipped in the package",
    ("hexlore/compiler/builtin_docs.py", "regenerated"): "hexlore's own docs/language.md and editor grammar, "
                                                         "in its source checkout (a maintainer's generator)",
    ("hexlore/dsl/generated_files.py", "stale"): "the files those two generators write, in hexlore's source checkout",
    ("hexlore/diagnostic_docs.py", "regenerated"): "hexlore's own docs/diagnostics.md, in its source checkout "
                                                  "(a maintainer's generator)",
    ("hexlore/report.py", "_sections"): "docs/diagnostics.md shipped with hexlore",
    ("hexlore/runtime/scenarios/located_yaml.py", "cached_schema"): "the JSON Schemas shipped in the package",
    ("hexlore/replay/page.py", "_asset"): "the replay page's script and style shipped in the package",
    ("hexlore/serve/page.py", "_asset"): "the play page's script and style shipped in the package",
    ("hexlore/campaign.py", "_sheet_lock"): "creates the campaign's lock file (a write)",
    ("hexlore/dsl/output_files.py", "_sync_folder"): "opens an output's folder to flush a rename (a write)",
    ("hexlore/dsl/output_files.py", "remove_stale_temporaries"): "lists an output's folder for hexlore's own "
                                                                  "temporary files, opened O_NOFOLLOW (a write)",
    ("hexlore/dsl/output_files.py", "_new_file_mode"): "reads the process's umask from /proc/self/status",
    ("hexlore/dsl/output_files.py", "_create_temporary"): "creates an output's temporary file (a write)",
}
METHODS = {"read_text", "read_bytes", "open", "glob", "rglob", "iterdir", "fdopen", "walk", "scandir", "listdir"}
READERS = {"open", "read_text"}
WRITE_MODES = ("w", "a", "x")


def _is_write(call: ast.Call) -> bool:
    modes = [a for a in call.args[1:2]] + [k.value for k in call.keywords if k.arg == "mode"]
    return any(isinstance(m, ast.Constant) and isinstance(m.value, str) and m.value.startswith(WRITE_MODES)
               for m in modes)


def _opens(call: ast.Call) -> bool:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id in READERS and not (func.id == "open" and _is_write(call))
    if isinstance(func, ast.Attribute) and func.attr in METHODS:
        if func.attr == "walk" and not (isinstance(func.value, ast.Name) and func.value.id == "os"):
            return False
        return not (func.attr in ("open", "fdopen") and _is_write(call))
    return False


def _calls(node: ast.AST) -> set[str]:
    return {n.func.id for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}


def openers() -> list[tuple[str, str, int, bool]]:
    """(file, function, line, confined) of every call that opens, reads or lists a file."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and _opens(node)):
                continue
            enclosing = [f for f in functions if f.lineno <= node.lineno <= f.end_lineno]
            inner = max(enclosing, key=lambda f: f.lineno) if enclosing else None
            name = inner.name if inner else "<module>"
            confined = inner is not None and bool(_calls(inner) & CONFINERS)
            found.append((rel, name, node.lineno, confined))
    return found


def test_every_opener_goes_through_the_confinement():
    offenders = [f"{rel}:{line} in {name}()" for rel, name, line, confined in openers()
                 if rel not in OWN and not confined and (rel, name) not in ALLOWED]
    assert not offenders, "open files through hexlore/dsl/confine.py (or list them in ALLOWED, with why): " \
        + ", ".join(offenders)


def test_the_scan_finds_the_openers_it_is_about():
    found = {(rel, name) for rel, name, _, _ in openers()}
    # the openers of project files the issue names, each found and confined
    for where in [("hexlore/lsp/analysis.py", "lore"), ("hexlore/dsl/confine.py", "walk"),
                  ("hexlore/dsl/confine.py", "read_confined"), ("hexlore/cli_files.py", "read_log_lines")]:
        assert where in found, where
    assert all(confined for rel, name, _, confined in openers() if (rel, name) == ("hexlore/lsp/analysis.py", "lore"))


def test_the_allow_list_names_real_openers():
    found = {(rel, name) for rel, name, _, _ in openers()}
    stale = [where for where in ALLOWED if where not in found]
    assert not stale, f"ALLOWED lists functions that open nothing (any more): {stale}"
