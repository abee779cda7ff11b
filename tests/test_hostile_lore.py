"""Hostile `.lore` text is refused with a located diagnostic inside 5 CPU s and 500 MB (issue 13).

Each input is written to a temporary folder and checked by ``python -m hexlore`` in a child
process that the kernel holds to the bounds (tests/bounded.py): a hang or a memory blow-up
kills the child and fails the test, whatever the machine's speed.
"""

from __future__ import annotations

import random

import pytest

from bounded import assert_refused, run_bounded

HEAD = "pack hostile.text\n"


def _write(tmp_path, body: str, name: str = "hostile.lore"):
    file = tmp_path / name
    file.write_text(HEAD + body, encoding="utf-8")
    return file


def _scenario(tmp_path, pack):
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(f"format: 1\nname: hostile\npacks: [{pack.name}]\nboard: {{shape: rectangle, width: 3, height: 3}}\n"
                        "sides:\n  - {name: north, edge: top}\n  - {name: south, edge: bottom}\nunits: []\n",
                        encoding="utf-8")
    return scenario


CASES = {
    "a face range of a billion": ('die d "D" { faces 1..1000000000 }\n', "P012"),
    "a 5,000-digit integer": ("function f() -> int = " + "9" * 5000 + "\n", "P011"),
    "a 20-digit integer in a face range": ('die d "D" { faces 1..99999999999999999999 }\n', "P011"),
    "a 100,000-character name before a syntax error": ("function f() -> int = " + "a" * 100_000 + " +\n", "P010"),
    "a 100,000-character string": ('event e() "' + "s" * 100_000 + '"\n', "P010"),
    "a megabyte name at the top level": ("a" * 1_000_000 + " b\n", "P010"),
}


@pytest.mark.parametrize("body, code", CASES.values(), ids=CASES.keys())
def test_check_refuses(tmp_path, body, code):
    assert_refused(run_bounded("check", str(_write(tmp_path, body))), code)


@pytest.mark.parametrize("body, code", [CASES["a face range of a billion"], CASES["a 5,000-digit integer"]],
                         ids=["faces", "integer"])
def test_run_refuses_the_same_way(tmp_path, body, code):
    scenario = _scenario(tmp_path, _write(tmp_path, body))
    assert_refused(run_bounded("run", str(scenario)), code)


@pytest.mark.parametrize("depth", [9_000, 50_000])
def test_deeply_nested_blocks_with_an_error_inside(tmp_path, depth):
    body = "procedure p() {\n" + "if true {\n" * depth + " let x = (\n" + "}\n" * depth + "}\n"
    assert_refused(run_bounded("check", str(_write(tmp_path, body))), "P009")


@pytest.mark.parametrize("opener", ["{", "[", "("])
def test_brackets_nested_deep_on_the_last_line(tmp_path, opener):
    # found by the fuzzing harness: the brackets after the file's last word were not counted
    body = "function f() -> bool = any(each e in xs where adjacent(e.h" + opener * 20_000 + "}" * 400
    assert_refused(run_bounded("check", str(_write(tmp_path, body))), "P009")


def test_recovery_stops_when_resuming_costs_too_much(tmp_path):
    # every '{' and '}' on the line is a place parsing might resume: 100,000 of them, none good
    body = "procedure f() {\n  let x = 1 +\n" + "{}" * 50_000 + "\n}\n"
    outcome = run_bounded("check", str(_write(tmp_path, body)))
    assert_refused(outcome, "P001")
    assert "note[P013]" in outcome.output


def test_a_long_name_just_before_each_of_many_errors(tmp_path):
    # the word before an error is read backwards: no regular expression anchored at its end
    line = "x" * 999 + " )\n"
    body = line * 1000
    assert_refused(run_bounded("check", str(_write(tmp_path, body))), "P001", "P002", "P004")


def test_a_megabyte_of_lore_shaped_junk(tmp_path):
    rng = random.Random(13)
    words = ["if", "{", "}", "(", ")", "let", "x", "=", "procedure", "p", "emit", "e", "1", "+", "\n",
             '"s"', "for", "each", "in", "trigger", "on", "[", "]", ",", ".", "->", "#"]
    body = " ".join(rng.choice(words) for _ in range(250_000))[:1_000_000]
    assert_refused(run_bounded("check", str(_write(tmp_path, body))))


def test_a_long_source_line_is_shown_cut(tmp_path):
    outcome = run_bounded("check", str(_write(tmp_path, "function f() -> int = " + "a" * 5000 + "\n")))
    assert_refused(outcome, "P010")
    assert max(len(line) for line in outcome.output.splitlines()) < 400
