"""The cache of the Lore parser's tables: used only when private, never trusted blindly."""

from __future__ import annotations

import os

import pytest
from lark import Lark

from hexlore.dsl.parser_cache import cached_parser

GRAMMAR = 'start: WORD+\nWORD: /[a-z]+/\n%ignore " "\n'
OPTIONS = dict(parser="lalr", lexer="contextual", propagate_positions=True)


class Builds:
    def __init__(self):
        self.count = 0

    def __call__(self) -> Lark:
        self.count += 1
        return Lark(GRAMMAR, **OPTIONS)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("HEXLORE_CACHE_DIR", str(folder))
    monkeypatch.delenv("HEXLORE_NO_CACHE", raising=False)
    return folder


def _saved(folder):
    return sorted(folder.glob("lore-*.lark"))


def test_the_second_start_loads_what_the_first_built(cache):
    build = Builds()
    first = cached_parser(GRAMMAR, OPTIONS, build)
    second = cached_parser(GRAMMAR, OPTIONS, build)
    assert build.count == 1
    assert len(_saved(cache)) == 1
    tree = second.parse("ab cd")
    assert tree == first.parse("ab cd")
    assert (tree.meta.line, tree.meta.column, tree.meta.end_column) == (1, 1, 6)


def test_the_folder_and_file_are_private(cache):
    cached_parser(GRAMMAR, OPTIONS, Builds())
    assert cache.stat().st_mode & 0o077 == 0
    assert _saved(cache)[0].stat().st_mode & 0o077 == 0


def test_another_grammar_gets_its_own_file(cache):
    build = Builds()
    cached_parser(GRAMMAR, OPTIONS, build)
    cached_parser(GRAMMAR + "// changed\n", OPTIONS, lambda: Lark(GRAMMAR + "// changed\n", **OPTIONS))
    assert len(_saved(cache)) == 2


def test_a_file_others_may_write_is_not_loaded(cache):
    build = Builds()
    cached_parser(GRAMMAR, OPTIONS, build)
    saved = _saved(cache)[0]
    os.chmod(saved, 0o666)
    cached_parser(GRAMMAR, OPTIONS, build)
    assert build.count == 2


def test_a_folder_others_may_write_is_not_used(cache):
    cache.mkdir(mode=0o700)
    os.chmod(cache, 0o777)
    build = Builds()
    cached_parser(GRAMMAR, OPTIONS, build)
    cached_parser(GRAMMAR, OPTIONS, build)
    assert build.count == 2
    assert _saved(cache) == []


def test_a_damaged_file_is_built_again_and_replaced(cache):
    build = Builds()
    cached_parser(GRAMMAR, OPTIONS, build)
    saved = _saved(cache)[0]
    saved.write_bytes(b"not a pickle at all")
    parser = cached_parser(GRAMMAR, OPTIONS, build)
    assert build.count == 2
    assert parser.parse("x").children
    assert cached_parser(GRAMMAR, OPTIONS, build) is not None and build.count == 2


def test_a_link_in_place_of_the_file_is_not_followed(cache, tmp_path):
    build = Builds()
    cached_parser(GRAMMAR, OPTIONS, build)
    saved = _saved(cache)[0]
    elsewhere = tmp_path / "elsewhere.lark"
    saved.rename(elsewhere)
    saved.symlink_to(elsewhere)
    cached_parser(GRAMMAR, OPTIONS, build)
    assert build.count == 2


def test_the_cache_can_be_turned_off(cache, monkeypatch):
    monkeypatch.setenv("HEXLORE_NO_CACHE", "1")
    build = Builds()
    cached_parser(GRAMMAR, OPTIONS, build)
    cached_parser(GRAMMAR, OPTIONS, build)
    assert build.count == 2
    assert not cache.exists()


def test_an_unwritable_place_still_parses(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    monkeypatch.setenv("HEXLORE_CACHE_DIR", str(blocker / "cache"))
    parser = cached_parser(GRAMMAR, OPTIONS, Builds())
    assert parser.parse("ab").children
