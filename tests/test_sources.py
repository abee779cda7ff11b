"""The docs and pack READMEs cite their rule texts by title and point only at files that exist.

Issue 15: they pointed at the source texts by paths outside the repository and called them
"seed 000" without saying what that was. Each pack README now has a "Sources" section giving
each text's title; the numbers (000 … 004) the tests and notes use are explained there.
"""

from __future__ import annotations

import re

import pytest

from conftest import ROOT

PACK_READMES = sorted(ROOT.glob("rules/*/README.md"))
DOCS = [ROOT / "README.md", *sorted(ROOT.glob("docs/*.md")), *sorted(ROOT.glob("rules/*/*.md"))]
REPO_PATH = re.compile(r"`((?:rules|scenarios|tests|docs|hexlore|benchmarks)/[A-Za-z0-9_./-]*)`")
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


@pytest.mark.parametrize("readme", PACK_READMES, ids=lambda p: p.parent.name)
def test_every_pack_readme_cites_its_texts_by_title(readme):
    text = readme.read_text(encoding="utf-8")
    section = text.split("\n## Sources\n", 1)
    assert len(section) == 2, f"{readme}: no 'Sources' section"
    sources = section[1].split("\n## ", 1)[0]
    assert re.search(r"« [^»]+ »", sources), "each text is cited by its title, in « »"


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_doc_points_outside_the_repository_or_says_seed_without_a_title(doc):
    text = doc.read_text(encoding="utf-8")
    assert "/work/" not in text and "shared/seeds" not in text
    assert not re.search(r"\b[Ss]eeds? 00[0-4]\b", text), "cite the text by its title (see the pack's Sources)"
    assert "seeds README" not in text


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_paths_and_links_in_the_docs_exist(doc):
    text = doc.read_text(encoding="utf-8")
    missing = []
    for path in REPO_PATH.findall(text):
        if not any(c in path for c in "*?") and not (ROOT / path).exists() and not (doc.parent / path).exists():
            missing.append(path)
    for target in LINK.findall(text):
        if "://" not in target and not (doc.parent / target).exists():
            missing.append(target)
    assert not missing, missing
