"""The quick clearance of token_limits never lets through what the token-by-token scan refuses.

``token_problems`` first tries to clear a file without a Python loop (``clearly_fine``) and
only scans it token by token when that fails; the clearance may be cautious, never wrong.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import ROOT
from hexlore.dsl.limits import MAX_INT, MAX_NESTING, MAX_TOKEN_CHARS
from hexlore.dsl.token_limits import clearly_fine, scan, token_problems

_PIECES = ["{", "}", "(", ")", "[", "]", "#", '"', "\\", "\n", " ", "a", "7", "9" * 8, "x" * 300, "{" * 40]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=120))
def test_a_cleared_text_has_no_problem_the_scan_would_find(pieces):
    text = "".join(pieces)
    if clearly_fine(text):
        assert scan(text, "t.lore") == []


EDGES = {
    "the longest name allowed": ("a" * MAX_TOKEN_CHARS, []),
    "a name one longer": ("a" * (MAX_TOKEN_CHARS + 1), ["P010"]),
    "a long comment": ("# " + "a" * 5000, []),
    "the largest integer": (str(MAX_INT), []),
    "one more": (str(MAX_INT + 1), ["P011"]),
    "digits inside a name": ("x" + "9" * 30, []),
    "nesting at the limit": ("(" * MAX_NESTING + ")" * MAX_NESTING, []),
    "one level deeper": ("(" * (MAX_NESTING + 1), ["P009"]),
    "closers in a comment do not count": ("(" * 60 + "# " + ")" * 60 + "\n" + "(" * 60, ["P009"]),
    "openers in a string do not count": ('"' + "(" * 200 + '"', []),
    "stray closers first": (")" * 50 + "(" * MAX_NESTING, []),
}


@pytest.mark.parametrize("text, codes", EDGES.values(), ids=EDGES.keys())
def test_edges_agree_with_the_scan(text, codes):
    assert [d.code for d in token_problems(text, "t.lore")] == codes
    assert [d.code for d in scan(text, "t.lore")] == codes


def test_the_bundled_packs_are_cleared_without_a_scan():
    for path in (ROOT / "rules").rglob("*.lore"):
        assert clearly_fine(path.read_text(encoding="utf-8")), path
