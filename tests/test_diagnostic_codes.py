"""The registry of diagnostic codes (hexlore/diagnostics/codes.py) is the one place a code is spelt.

Each test enumerates the registry: every entry is well formed, used by some module at the
severity it is registered with, documented (docs/diagnostics.md is regenerated from it and
must match), and no module of hexlore spells a code anywhere else.
"""

from __future__ import annotations

import ast
import pickle
import re
import shutil

import pytest

from conftest import ROOT
from hexlore import diagnostic_docs
from hexlore.diagnostics import Severity, Span, codes, error
from hexlore.diagnostics.codes import CODES, FAMILIES, Code

PACKAGE = ROOT / "hexlore"
REGISTRY = PACKAGE / "diagnostics" / "codes.py"
CODE_TEXT = re.compile(r"[PCWNSRO]\d{3}")
FIXTURES = ROOT / "tests" / "fixtures" / "errors"


def _modules() -> dict[str, ast.Module]:
    """Every module of hexlore but the registry, parsed."""
    return {path.relative_to(ROOT).as_posix(): ast.parse(path.read_text(encoding="utf-8"))
            for path in sorted(PACKAGE.rglob("*.py")) if path != REGISTRY}


MODULES = _modules()


def _entry_named(node: ast.AST) -> Code | None:
    """The registry entry a ``codes.NAME`` expression names, else None."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "codes":
        entry = getattr(codes, node.attr, None)
        assert isinstance(entry, Code), f"codes.{node.attr} is not an entry of the registry"
        return entry
    return None


def test_each_entry_is_registered_once_under_its_own_name():
    entries = [value for value in vars(codes).values() if isinstance(value, Code)]
    assert len(entries) == len(CODES) >= 100
    for code, entry in CODES.items():
        assert getattr(codes, entry.name) is entry and entry == code and entry.code == code
        assert entry.summary and entry.summary == entry.summary.strip() and "|" not in entry.summary
        assert entry.family is FAMILIES[code[0]]
    assert len({e.name for e in CODES.values()}) == len(CODES)


def test_severities_follow_the_families():
    """W codes warn, N codes note, the rest are errors, but for the two the docs explain."""
    unusual = {c: e.severity for c, e in CODES.items()
               if e.severity is not {"W": Severity.WARNING, "N": Severity.NOTE}.get(c[0], Severity.ERROR)}
    assert unusual == {"P013": Severity.NOTE, "S127": Severity.WARNING}


def test_a_second_entry_with_one_code_is_refused(monkeypatch):
    monkeypatch.setitem(vars(codes), "AGAIN", Code("C014", Severity.ERROR, "bad game again"))
    with pytest.raises(RuntimeError, match="C014 is registered twice: BAD_GAME and AGAIN"):
        codes._registry()


@pytest.mark.parametrize("text", ["C14", "X001", "c014", "C0141"])
def test_a_malformed_code_is_refused(text):
    with pytest.raises(ValueError, match="is not a diagnostic code"):
        Code(text, Severity.ERROR, "title")


def test_an_entry_stays_its_string_in_diagnostics_and_pickles():
    d = error(codes.BAD_GAME, "no round", "a.lore", Span.at(1, 1))
    assert d.code == "C014" and d.to_json()["code"] == "C014" and "error[C014]" in d.headline()
    again = pickle.loads(pickle.dumps(codes.BAD_GAME))
    assert again is codes.BAD_GAME
    assert codes.BAD_GAME.anchor == "c014--bad-game"


def test_no_module_spells_a_code_outside_the_registry():
    """A string that is a whole code ("C014") anywhere in hexlore/ but the registry; prose
    that mentions codes (docstrings, comments) is not a string of its own and is allowed."""
    spelt = [f"{name}:{node.lineno}: {node.value!r}" for name, tree in MODULES.items() for node in ast.walk(tree)
             if isinstance(node, ast.Constant) and isinstance(node.value, str) and CODE_TEXT.fullmatch(node.value)]
    assert spelt == []


def test_every_entry_is_used_by_some_module():
    used = {entry for tree in MODULES.values() for node in ast.walk(tree)
            if (entry := _entry_named(node)) is not None}
    assert sorted(set(CODES) - used) == []


#: functions that report their code argument at one severity: error() and warning(), and the
#: helpers of the compiler and the scenario checks that call error() (Lowerer.err, fail, _err)
_REPORTERS = {"error": Severity.ERROR, "warning": Severity.WARNING, "err": Severity.ERROR,
              "_err": Severity.ERROR, "fail": Severity.ERROR}


def _reported(tree: ast.Module):
    """(severity, entry, line) of each ``error(codes.X, …)``, ``warning(codes.X, …)``, helper
    call (``self.err(ctx, codes.X, …)``) and ``Diagnostic(Severity.S, codes.X, …)`` of a module."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        name = getattr(node.func, "id", getattr(node.func, "attr", None))
        if name in _REPORTERS:
            entry = next((e for e in map(_entry_named, node.args[:2]) if e is not None), None)
            if entry is not None:
                yield _REPORTERS[name], entry, node.lineno
        elif name == "Diagnostic" and len(node.args) > 1 and (entry := _entry_named(node.args[1])) is not None:
            severity = node.args[0]
            if isinstance(severity, ast.Attribute) and isinstance(severity.value, ast.Name) \
                    and severity.value.id == "Severity":
                yield Severity[severity.attr], entry, node.lineno


def test_modules_report_each_code_at_its_registered_severity():
    reported = [(name, line, entry, severity) for name, tree in MODULES.items()
                for severity, entry, line in _reported(tree)]
    assert len(reported) > 150  # the scan sees the reports (it would pass vacuously otherwise)
    wrong = [f"{name}:{line}: {entry} reported as {severity.value}, registered as {entry.severity.value}"
             for name, line, entry, severity in reported if severity is not entry.severity]
    assert wrong == []


def test_fixtures_expect_each_code_at_its_registered_severity():
    expected = [m for path in sorted(FIXTURES.glob("*.expected"))
                for m in re.finditer(r"\b(error|warning|note)\[([A-Z]\d{3})\]", path.read_text(encoding="utf-8"))]
    assert len(expected) > 100
    wrong = {(code, severity) for severity, code in (m.groups() for m in expected)
             if code not in CODES or CODES[code].severity.value != severity}
    assert wrong == set()


def test_the_docs_are_what_the_registry_says():
    assert diagnostic_docs.stale() == [], "run python -m hexlore.diagnostic_docs --write"


def test_every_entry_has_a_written_section():
    text = (ROOT / diagnostic_docs.DIAGNOSTICS).read_text(encoding="utf-8")
    for entry in CODES.values():
        assert f"\n### {entry.heading}\n" in text, entry
        assert f"[{entry}](#{entry.anchor})" in text, entry
    assert diagnostic_docs.TO_WRITE not in text


def _copy_docs(tmp_path):
    (tmp_path / "docs").mkdir()
    shutil.copy(ROOT / diagnostic_docs.DIAGNOSTICS, tmp_path / diagnostic_docs.DIAGNOSTICS)


def test_a_new_or_retitled_code_makes_the_docs_stale_until_written(tmp_path, monkeypatch):
    _copy_docs(tmp_path)
    monkeypatch.setattr(codes.BAD_GAME, "summary", "a game declaration that cannot be played")
    new = Code("C099", Severity.ERROR, "a code added today")
    new.name = "ADDED_TODAY"
    monkeypatch.setitem(CODES, "C099", new)
    assert diagnostic_docs.stale(tmp_path) == [diagnostic_docs.DIAGNOSTICS]
    text = diagnostic_docs.regenerated(tmp_path)[diagnostic_docs.DIAGNOSTICS]
    assert "\n### C014 — a game declaration that cannot be played\n" in text
    assert "| [C014](#c014--a-game-declaration-that-cannot-be-played) | error |" in text
    section = text.split("\n### C099 — a code added today\n", 1)[1]
    assert section.lstrip().startswith(diagnostic_docs.TO_WRITE)
    # after the last C code, before the warnings of its part of the page
    assert text.index("### C025") < text.index("### C099") < text.index("### W001")
    (tmp_path / diagnostic_docs.DIAGNOSTICS).write_text(text, encoding="utf-8")
    assert diagnostic_docs.stale(tmp_path) == []


@pytest.mark.parametrize("change, problem", [
    (lambda t: t.replace("### C014 — bad game", "### C914 — bad game"), "codes the registry lacks: C914"),
    (lambda t: t + "\n### C014 — bad game\n\nagain\n", "codes with two sections: C014"),
    (lambda t: t.replace(diagnostic_docs.END, ""), "markers of the generated index"),
])
def test_a_page_the_generator_cannot_mend_is_refused_with_why(tmp_path, change, problem):
    _copy_docs(tmp_path)
    page = tmp_path / diagnostic_docs.DIAGNOSTICS
    page.write_text(change(page.read_text(encoding="utf-8")), encoding="utf-8")
    with pytest.raises(ValueError, match=problem):
        diagnostic_docs.regenerated(tmp_path)


def test_the_generator_checks_from_the_command_line():
    assert diagnostic_docs.main(["--check"]) == 0
