"""Golden tests: every named fixture under ``tests/fixtures/errors`` yields exactly its diagnostics.

A fixture is ``NAME.lore``, ``NAME.yaml`` or a folder ``NAME/`` (for problems that need several
files), with ``NAME.expected`` next to it: one line per diagnostic, in the order ``hexlore check``
prints them, as ``path:line:col: severity[CODE]`` with the path relative to the fixtures folder;
a line may go on with ``: message``, and then the message must be that one too.
Lines starting with ``#`` are comments (say what the fixture shows). A designer adding a
diagnostic (an entry of hexlore/diagnostics/codes.py) adds a fixture; the completeness test
below fails until they do.

Problems that only show when rules run (``R…``) have ``NAME.run.expected`` instead: the scenario
``NAME.yaml`` (or ``NAME/scenario.yaml``) is played with ``api.run`` and its tests are run with
``api.test``, and the diagnostics of both are compared the same way.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from hexlore import api
from hexlore.diagnostics.codes import CODES

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "errors"


def _subject(expected: Path) -> Path:
    for candidate in (expected.with_suffix(".lore"), expected.with_suffix(".yaml"), expected.with_suffix("")):
        if candidate.exists() or candidate.is_symlink():  # a link out of the project may dangle
            return candidate
    raise AssertionError(f"{expected.name}: no NAME.lore, NAME.yaml or NAME/ next to it")


def _expected_lines(expected: Path) -> list[str]:
    lines = expected.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def _relative(file: str) -> str:
    try:
        return Path(os.path.abspath(file)).relative_to(FIXTURES).as_posix()  # a link shows as itself
    except ValueError:
        return file


def _actual_lines(subject: Path) -> list[str]:
    diagnostics, _ = api.check([str(subject)])
    return _format(diagnostics)


def _run_lines(expected: Path) -> list[str]:
    name = expected.name[: -len(RUN_SUFFIX)]
    scenario = next((c for c in (FIXTURES / f"{name}.yaml", FIXTURES / name / "scenario.yaml") if c.is_file()),
                    None)
    assert scenario is not None, f"{expected.name}: no {name}.yaml or {name}/scenario.yaml next to it"
    _, played, _ = api.run(str(scenario))
    outcomes, loading, _ = api.test([str(scenario)])
    found = played + loading + [d for o in outcomes for d in o.diagnostics]
    unique = {(d.file, d.span, d.code, d.message): d for d in found}
    return _format(sorted(unique.values(), key=lambda d: d.sort_key()))


RUN_SUFFIX = ".run.expected"
EXPECTED = sorted(e for e in FIXTURES.glob("*.expected") if not e.name.endswith(RUN_SUFFIX))
RUN_EXPECTED = sorted(FIXTURES.glob("*" + RUN_SUFFIX))


def _format(diagnostics) -> list[str]:
    return [f"{_relative(d.file)}:{d.span.line}:{d.span.column}: {d.severity.value}[{d.code}]: {d.message}"
            for d in diagnostics]


def _compared(actual: list[str], expected: list[str]) -> list[str]:
    """``actual`` without the messages that ``expected`` leaves out (an expected line without one
    says only where and which code)."""
    return [a if e.count("]: ") else a.split("]: ", 1)[0] + "]" for a, e in zip(actual, expected)] + \
        [a.split("]: ", 1)[0] + "]" for a in actual[len(expected):]]


@pytest.mark.parametrize("expected", EXPECTED, ids=[e.stem for e in EXPECTED])
def test_fixture_diagnostics_match(expected: Path) -> None:
    wanted = _expected_lines(expected)
    assert _compared(_actual_lines(_subject(expected)), wanted) == wanted


@pytest.mark.parametrize("expected", RUN_EXPECTED, ids=[e.name[: -len(RUN_SUFFIX)] for e in RUN_EXPECTED])
def test_run_fixture_diagnostics_match(expected: Path) -> None:
    wanted = _expected_lines(expected)
    assert _compared(_run_lines(expected), wanted) == wanted


def test_there_are_enough_fixtures() -> None:
    assert len(EXPECTED) + len(RUN_EXPECTED) >= 40


#: every code hexlore reports: the registry (tests/test_diagnostic_codes.py checks each is
#: documented and used; here, that each has a fixture where `hexlore check` can show it)
SOURCE_CODES = sorted(CODES)


# O codes (odds and sweeps) are not problems of `hexlore check`: tests/test_odds_*.py trigger them.
# S017 and S018 need two campaign runs at once: tests/test_campaign_lock.py triggers them.
# S130-S132 are about a command's output files and the log given to replay, not about a file
# check reads: tests/test_writes.py triggers them.
CONCURRENT = {"S017", "S018", "S130", "S131", "S132"}
# S128 and S129 refuse an output (a replay past its budget, a sweep of too many games), which
# `hexlore check` cannot see: tests/test_output_budget.py triggers them.
OUTPUTS = {"S128", "S129"}


@pytest.mark.parametrize("code", [c for c in SOURCE_CODES
                                  if not c.startswith("O") and c not in CONCURRENT | OUTPUTS])
def test_every_code_has_a_fixture(code: str) -> None:
    covered = {m for e in EXPECTED + RUN_EXPECTED
               for m in re.findall(r"\[([A-Z]\d{3})\]", e.read_text(encoding="utf-8"))}
    assert code in covered, f"no fixture in tests/fixtures/errors expects {code}"
