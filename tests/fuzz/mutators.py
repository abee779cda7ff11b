"""Mutations of rule files and scenarios for the fuzzing harness (issue 13).

Inputs are bytes (so invalid UTF-8 is reachable). A mutation is a plain function of
``(data, rng) -> data``; :func:`mutate` applies a few, chosen by a seeded ``random.Random``,
so a seed names an input exactly and every failure can be reproduced from it. The hostile
tokens are the shapes issue 13 found (huge numbers and ranges, megabyte names, deep nesting,
aliases, control characters, escapes that make lone surrogates, paths that leave the project)
and the bundled files (a pack's look among them) give the rest: a mutated real pack reaches
every stage of the compiler, not only the lexer.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: (seed file, kind) pairs: small packs and scenarios, so one input costs milliseconds
CORPUS = [
    ("scenarios/language/extend_base.lore", "lore"),
    ("scenarios/language/extend_mod.lore", "lore"),
    ("tests/fixtures/campaign/duel.lore", "lore"),
    ("rules/battlelore/veterans.lore", "lore"),
    ("rules/tickclock/clock.lore", "lore"),
    ("rules/westeros/additional.lore", "lore"),
    ("scenarios/geometry/sight.lore", "lore"),
    ("scenarios/battlelore/spider_ford.yaml", "yaml"),
    ("scenarios/language/extend.yaml", "yaml"),
    ("scenarios/tickclock/ruins.yaml", "yaml"),
    ("scenarios/westeros/skirmish.yaml", "yaml"),
    ("tests/fixtures/campaign/first_blood.yaml", "yaml"),
    ("tests/fixtures/campaign/duellists.sheet.yaml", "yaml"),
    ("tests/fixtures/campaign/two_fords.campaign.yaml", "yaml"),
    ("rules/tickclock/look.yaml", "yaml"),  # a pack's look: check reads it as render does (issue 30)
]

HOSTILE = [
    b"99999999999999999999999", b"9" * 5000, b"a" * 2000, b'"' + b"s" * 3000 + b'"', b"-0", b"1..1000000000",
    b"faces 1..999999999", b"{" * 150, b"(" * 150, b"[" * 150, b"}" * 50, b"if true {" * 120,
    b"\x00", b"\xff\xfe", b"\xc3", b"\x1b]0;owned\x07", b"\x9b31m", "\u202e".encode(), b"\t", b"\r",
    b"\xef\xbb\xbf", b"use ../../etc/passwd", b"use " + b"x" * 300, b"/etc", b"../../secret.lore",
    b"super(", b"emit", b"override", b"each", b"none", b"true", b"mod 0", b"/ 0", b"*", b"&a",
    b"*a", b"&a [1, 2]", b"!!python/object/apply:os.system ['true']", b"? [1, 2]", b"{1: 2}",
    b"[", b"]", b"- ", b": ", b"key: key: key", b"<<: *a", b"!!binary AAAA", b"2001-01-01",
    b"0x1F", b"0o17", b"1_000", b"190:20:30", b".inf", b"~", b"null", b"yes", b"hex: Z99",
    b"id: 1", b"type: []", b"side: {}", b"packs: [/etc]", b"seed: -99999999999999999999",
    # escapes that make text no output can hold (issue 30): lone surrogates, NUL, ESC, C1, bidi
    b'"\\ud800"', b'"x\\udfff"', b'"\\0"', b'"pack\\0.lore"', b'"\\x1b]0;t\\x07"', b'"\\N"',
    b'"\\U0000202e"', b'"\\u202e"', b'"\\u001b"', b'packs: ["a\\0b"]', b'name: "\\ud800"',
    b'marks: {giant_spider: "\\ud800"}', b"terrain: " + b"[" * 5000,
]
_TOKEN = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*|\d+|\S")


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def delete_line(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    del lines[rng.randrange(len(lines))]
    return b"\n".join(lines)


def duplicate_line(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    i = rng.randrange(len(lines))
    lines.insert(rng.randrange(len(lines) + 1), lines[i])
    return b"\n".join(lines)


def swap_lines(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return b"\n".join(lines)


def _token_spans(data: bytes) -> list[tuple[int, int]]:
    return [m.span() for m in _TOKEN.finditer(data)] or [(0, 0)]


def delete_token(data: bytes, rng: random.Random) -> bytes:
    a, b = rng.choice(_token_spans(data))
    return data[:a] + data[b:]


def duplicate_token(data: bytes, rng: random.Random) -> bytes:
    a, b = rng.choice(_token_spans(data))
    return data[:b] + b" " + data[a:b] + data[b:]


def swap_tokens(data: bytes, rng: random.Random) -> bytes:
    spans = _token_spans(data)
    (a, b), (c, d) = sorted(rng.sample(spans, 2)) if len(spans) > 1 else (spans[0], spans[0])
    if c < b:
        return data
    return data[:a] + data[c:d] + data[b:c] + data[a:b] + data[d:]


def replace_token(data: bytes, rng: random.Random) -> bytes:
    a, b = rng.choice(_token_spans(data))
    return data[:a] + rng.choice(HOSTILE) + data[b:]


def insert_hostile(data: bytes, rng: random.Random) -> bytes:
    at = rng.randrange(len(data) + 1)
    return data[:at] + rng.choice(HOSTILE) + data[at:]


def flip_byte(data: bytes, rng: random.Random) -> bytes:
    if not data:
        return data
    at = rng.randrange(len(data))
    return data[:at] + bytes([rng.randrange(256)]) + data[at + 1:]


def truncate(data: bytes, rng: random.Random) -> bytes:
    return data[: rng.randrange(len(data) + 1)]


def deep_nesting(data: bytes, rng: random.Random) -> bytes:
    depth = rng.choice([70, 200, 1000, 20_000])
    opener, closer = rng.choice([(b"[", b"]"), (b"{", b"}"), (b"(", b")")])
    at = rng.randrange(len(data) + 1)
    return data[:at] + opener * depth + closer * rng.choice([0, depth]) + data[at:]


MUTATIONS = [delete_line, duplicate_line, swap_lines, delete_token, duplicate_token, swap_tokens,
             replace_token, replace_token, insert_hostile, insert_hostile, flip_byte, truncate, deep_nesting]


def mutate(data: bytes, rng: random.Random, rounds: int | None = None) -> bytes:
    """``data`` after 1–4 (or ``rounds``) mutations chosen by ``rng``."""
    for _ in range(rounds or rng.randint(1, 4)):
        data = rng.choice(MUTATIONS)(data, rng)
    return data


def seed_files() -> list[tuple[Path, str, bytes]]:
    """(path, kind, bytes) of the corpus."""
    return [(ROOT / p, kind, (ROOT / p).read_bytes()) for p, kind in CORPUS]
