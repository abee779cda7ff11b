"""No input makes ``hexlore check`` crash: property tests on random text and on broken packs.

Inputs are random Lore-ish text and mutations of the real packs (``rules/battlelore/*.lore``):
lines or tokens deleted, duplicated or swapped. Whatever the input, ``api.check`` returns
diagnostics (never raises), each located at a real line and column with a code, and the
CLI exits 0 or 1 without printing a Python traceback.

Budget: the ``lore-fuzz`` settings profile below — 40 examples per test (150 for the cheap
random-text tests, 15 for the CLI, and 12 per pack for the mutated packs: the BattleLore
folder now holds eight packs, about 100 mutated folders in all, each re-parsing one pack of
up to 500 lines with recovery), derandomized so every run (and CI) tries the same inputs, no
deadline. About 60 s of CPU in all. To hunt for new failures locally, raise
``max_examples`` and drop ``derandomize``; add any failure found as a fixture.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hexlore import api
from hexlore.cli import main
from hexlore.diagnostics.codes import CODES

# minutes of CPU in all: deselected by default, run by CI (.ci/run: -m slow)
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
PACKS = {p.name: p.read_text(encoding="utf-8") for p in sorted((ROOT / "rules" / "battlelore").glob("*.lore"))}

settings.register_profile("lore-fuzz", max_examples=40, deadline=None, derandomize=True, database=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
FUZZ = settings.get_profile("lore-fuzz")

# Random text that looks like Lore often enough to reach the compiler, not just the lexer.
WORDS = ["pack", "use", "override", "enum", "tag", "die", "face", "faces", "kind", "fields", "trait",
         "option", "table", "function", "procedure", "event", "trigger", "game", "on", "before",
         "after", "instead", "of", "if", "else", "for", "each", "in", "repeat", "let", "emit", "return",
         "stop", "break", "choose", "ask", "by", "is", "not", "and", "or", "none", "true", "false",
         "list", "int", "bool", "unit", "hex", "side", "u", "x", "n", "hit", "battle", "roll", "count"]
PUNCT = ["{", "}", "(", ")", "[", "]", ":", ",", ".", "=", "==", "+=", "-", "+", "*", "->", "..",
         "?", "\n", "\n  ", " ", '"t"', "1", "42", "#c\n", "'", "@", ";", '"', "\\"]
lore_text = st.lists(st.sampled_from(WORDS + PUNCT), max_size=60).map(" ".join)


def _mutate(text: str, data) -> str:
    """Delete, duplicate or swap lines or tokens of a real pack."""
    unit = data.draw(st.sampled_from(["line", "token"]))
    parts = text.splitlines(keepends=True) if unit == "line" else re.findall(r"\w+|\s+|.", text)
    for _ in range(data.draw(st.integers(1, 4))):
        if len(parts) < 2:
            break
        i = data.draw(st.integers(0, len(parts) - 1))
        j = data.draw(st.integers(0, len(parts) - 1))
        action = data.draw(st.sampled_from(["delete", "duplicate", "swap"]))
        if action == "delete":
            del parts[i]
        elif action == "duplicate":
            parts.insert(j, parts[i])
        else:
            parts[i], parts[j] = parts[j], parts[i]
    return "".join(parts)


def _assert_well_formed(diagnostics) -> None:
    for d in diagnostics:
        assert d.code in CODES, d  # a code of the registry (hexlore/diagnostics/codes.py)
        assert d.span.line >= 1 and d.span.column >= 1, d
        assert d.message, d


def _check_folder(tmp_path: Path, files: dict[str, str]):
    folder = tmp_path / "battlelore"
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return api.check([str(folder / name) for name in files])


@settings(FUZZ, max_examples=150)
@given(text=lore_text)
def test_random_text_never_crashes_check(tmp_path_factory, text):
    file = tmp_path_factory.mktemp("fuzz") / "random.lore"
    file.write_text(text, encoding="utf-8")
    diagnostics, _ = api.check([str(file)])
    _assert_well_formed(diagnostics)


@settings(FUZZ, max_examples=150)
@given(text=st.text(max_size=200))
def test_arbitrary_unicode_never_crashes_check(tmp_path_factory, text):
    file = tmp_path_factory.mktemp("fuzz") / "unicode.lore"
    file.write_text(text, encoding="utf-8")
    diagnostics, _ = api.check([str(file)])
    _assert_well_formed(diagnostics)


@pytest.mark.parametrize("pack", sorted(PACKS))
@settings(FUZZ, max_examples=12)
@given(data=st.data())
def test_a_mutated_pack_never_crashes_check(tmp_path_factory, pack, data):
    files = dict(PACKS)
    files[pack] = _mutate(files[pack], data)
    diagnostics, _ = _check_folder(tmp_path_factory.mktemp("fuzz"), files)
    _assert_well_formed(diagnostics)


@settings(FUZZ, max_examples=15)
@given(data=st.data())
def test_the_cli_never_prints_a_traceback(tmp_path_factory, data):
    folder = tmp_path_factory.mktemp("fuzz") / "battlelore"
    folder.mkdir()
    name = data.draw(st.sampled_from(sorted(PACKS)))
    for other, text in PACKS.items():
        (folder / other).write_text(_mutate(text, data) if other == name else text, encoding="utf-8")
    result = CliRunner().invoke(main, ["check", "--format", "text", str(folder)])
    assert result.exit_code in (0, 1), (result.exit_code, result.output, result.exception)
    assert "Traceback" not in result.output
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit)
