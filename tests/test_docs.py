"""docs/language.md stays true: every ```lore block is a complete pack that compiles.

Blocks fenced as ```lore are written to a temporary file and compiled with the bundled packs
on the search path; any error diagnostic fails the test and is printed rendered. Fragments
that are not complete packs are fenced as ```text and are not compiled.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hexlore.compiler import compile_packs
from hexlore.compiler.builtins import BUILTINS

DOC = Path(__file__).resolve().parent.parent / "docs" / "language.md"
TEXT = DOC.read_text(encoding="utf-8")
#: other pages whose ```lore blocks must compile too
PAGES = [DOC.parent / "players.md"]

FENCE = re.compile(r"^```(\w*)[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)
HEADING = re.compile(r"^(#{2,4})\s+(.*?)\s*$", re.M)
SEEDS = ("000", "001", "002", "003", "004")


def _heading_before(text: str, pos: int) -> str:
    title = "top"
    for m in HEADING.finditer(text, 0, pos):
        title = m.group(2)
    return title


def _lore_blocks() -> list[tuple[str, str]]:
    blocks = []
    for page in [DOC, *PAGES]:
        text = page.read_text(encoding="utf-8")
        prefix = "" if page == DOC else f"{page.stem} "
        for i, m in enumerate(m for m in FENCE.finditer(text) if m.group(1) == "lore"):
            blocks.append((f"{prefix}{i:02d} {_heading_before(text, m.start())}", m.group(2)))
    return blocks


BLOCKS = _lore_blocks()


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_")[:60]


@pytest.mark.parametrize("code", [b[1] for b in BLOCKS], ids=[_slug(b[0]) for b in BLOCKS])
def test_lore_block_compiles(code: str, tmp_path: Path) -> None:
    assert re.match(r"\s*(#[^\n]*\n\s*)*pack\s+\w", code), "a ```lore block must be a complete pack"
    file = tmp_path / "block.lore"
    file.write_text(code, encoding="utf-8")
    rules = compile_packs([str(file)])
    errors = [d for d in rules.diagnostics if d.is_error]
    rendered = "\n".join(d.render(rules.sources.get(d.file)) for d in errors)
    assert not errors, f"the doc block does not compile:\n{rendered}"


def test_doc_pack_names_are_unique() -> None:
    names = [re.search(r"pack\s+([\w.]+)", code).group(1) for _, code in BLOCKS]
    assert len(names) == len(set(names)), names
    assert all(n.startswith("docs.") for n in names), names


def test_every_seed_has_a_worked_example() -> None:
    worked = TEXT.split("## 13. Worked examples", 1)
    assert len(worked) == 2, "the doc has a 'Worked examples' section"
    section = worked[1]
    blocks = [m for m in FENCE.finditer(section) if m.group(1) == "lore"]
    assert len(blocks) >= 5
    for seed in SEEDS:
        heading = re.search(rf"^###\s+{seed}\b.*$", section, re.M)
        assert heading, f"no worked-example heading for seed {seed}"
        after = section[heading.end():]
        nxt = re.search(r"^###\s", after, re.M)
        body = after[: nxt.start()] if nxt else after
        assert "```lore" in body, f"the worked example of seed {seed} has no ```lore block"


def test_every_builtin_is_documented() -> None:
    missing = [name for name in BUILTINS if f"`{name}(" not in TEXT]
    assert not missing, f"built-ins missing from docs/language.md: {missing}"


def test_the_reference_points_at_the_diagnostics_catalogue() -> None:
    # every code is documented in docs/diagnostics.md (tests/test_diagnostic_codes.py checks that)
    assert "(diagnostics.md)" in TEXT
