"""mypy over the whole package, with a ratchet: the count of errors may only fall (issue 32).

Each part of the package has a recorded count of mypy errors (``tests/mypy_baseline.json``),
zero in every part since issue 32; a change that adds an error fails here, and one that removes
errors fails until the baseline is lowered to match, so the recorded figures are always the true
ones and can only go down.

Slow (mypy takes half a minute of CPU): deselected by default, run by CI.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BASELINE = Path(__file__).with_name("mypy_baseline.json")
#: the parts counted apart: the two that must reach zero, and everything else
PARTS = ("hexlore/runtime/engine", "hexlore/compiler")
ERROR = re.compile(r"^(hexlore/[^:]+\.py):\d+(?::\d+)?: error:", re.M)


def part_of(path: str) -> str:
    return next((part for part in PARTS if path.startswith(part + "/")), "elsewhere")


def mypy_counts() -> Counter:
    pytest.importorskip("mypy", reason="mypy is in the test extra: pip install '.[test]'")
    out = subprocess.run([sys.executable, "-m", "mypy", "hexlore"], cwd=ROOT, capture_output=True, text=True,
                         timeout=900)
    if out.returncode not in (0, 1) or "error: " in out.stderr:
        raise AssertionError(f"mypy did not run: {out.stderr or out.stdout}")
    return Counter(part_of(path) for path in ERROR.findall(out.stdout))


def test_the_parts_are_the_folders_the_goal_names():
    assert part_of("hexlore/compiler/declare.py") == "hexlore/compiler"
    assert part_of("hexlore/runtime/engine/compiled/program.py") == "hexlore/runtime/engine"
    assert part_of("hexlore/runtime/geometry/grid.py") == "elsewhere"
    assert part_of("hexlore/compiler_extra.py") == "elsewhere"
    counted = Counter(part_of(p) for p in ERROR.findall(
        "hexlore/compiler/a.py:3: error: x  [misc]\nhexlore/cli.py:4:7: error: y  [misc]\n"
        "hexlore/cli.py:5: note: z\n"))
    assert counted == {"hexlore/compiler": 1, "elsewhere": 1}


@pytest.mark.slow
def test_mypy_errors_only_ever_fall():
    baseline = json.loads(BASELINE.read_text(encoding="utf-8"))
    counts = mypy_counts()
    for part in (*PARTS, "elsewhere"):
        found, allowed = counts.get(part, 0), baseline[part]
        assert found <= allowed, (f"{part}: {found} mypy errors, {allowed} before: run "
                                  f"'python -m mypy hexlore' and fix the new ones")
        assert found == allowed, (f"{part}: {found} mypy errors, fewer than the {allowed} recorded: lower "
                                  f"its figure in {BASELINE.name} to {found} (the ratchet only turns one way)")
