"""The cache of the Lore parser's tables: used only when private, never trusted blindly."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from lark import Lark

import hexlore
from hexlore.dsl import output_files
from hexlore.dsl.parser_cache import cache_folder, cached_parser

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


# ---------------------------------------------------------------- homes that cannot hold a cache
@pytest.fixture
def elsewhere(tmp_path, monkeypatch):
    """No cache chosen: the home decides, and the temporary directory is a folder of the test's."""
    for name in ("HEXLORE_CACHE_DIR", "HEXLORE_NO_CACHE", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    return temporary / f"hexlore-{os.getuid()}"


def test_without_a_home_the_private_temporary_folder_serves(elsewhere, monkeypatch, tmp_path):
    monkeypatch.delenv("HOME", raising=False)
    monkeypatch.setattr(os.path, "expanduser", lambda path: path)  # no HOME and no password entry
    monkeypatch.chdir(tmp_path)
    assert cache_folder() is None
    build = Builds()
    cached_parser(GRAMMAR, OPTIONS, build)
    cached_parser(GRAMMAR, OPTIONS, build)
    assert build.count == 1
    assert len(_saved(elsewhere)) == 1 and elsewhere.stat().st_mode & 0o077 == 0
    assert not (tmp_path / "~").exists()  # never a cache relative to the working directory


def test_a_home_that_is_not_a_folder_falls_back_to_the_temporary_folder(elsewhere, monkeypatch, tmp_path):
    home = tmp_path / "home"
    home.write_text("a file where the home should be", encoding="utf-8")
    monkeypatch.setenv("HOME", str(home))
    build = Builds()
    cached_parser(GRAMMAR, OPTIONS, build)
    cached_parser(GRAMMAR, OPTIONS, build)
    assert build.count == 1 and len(_saved(elsewhere)) == 1


def test_a_read_only_cache_folder_leaves_the_tables_in_the_temporary_one(elsewhere, monkeypatch, tmp_path):
    """The home's cache folder exists and is private but takes no file (a read-only home)."""
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    own = home / ".cache" / "hexlore"
    own.mkdir(parents=True, mode=0o700)
    real_create = output_files._create_temporary  # every file is written through it

    def read_only(target):
        if Path(target).parent == own:
            raise PermissionError(30, "Read-only file system", str(target.parent))
        return real_create(target)

    monkeypatch.setattr(output_files, "_create_temporary", read_only)
    build = Builds()
    first = cached_parser(GRAMMAR, OPTIONS, build)
    second = cached_parser(GRAMMAR, OPTIONS, build)
    assert build.count == 1
    assert _saved(own) == [] and len(_saved(elsewhere)) == 1
    assert first.parse("ab cd") == second.parse("ab cd")


def test_the_home_cache_comes_first_and_the_temporary_folder_is_not_made(elsewhere, monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    build = Builds()
    cached_parser(GRAMMAR, OPTIONS, build)
    cached_parser(GRAMMAR, OPTIONS, build)
    assert build.count == 1
    assert len(_saved(tmp_path / "home" / ".cache" / "hexlore")) == 1
    assert not elsewhere.exists()


def test_a_temporary_folder_others_may_write_is_not_used(elsewhere, monkeypatch, tmp_path):
    home = tmp_path / "home"
    home.write_text("not a folder", encoding="utf-8")
    monkeypatch.setenv("HOME", str(home))
    elsewhere.mkdir()
    os.chmod(elsewhere, 0o777)  # someone else's, or left open: a pickle there could be anyone's
    build = Builds()
    cached_parser(GRAMMAR, OPTIONS, build)
    cached_parser(GRAMMAR, OPTIONS, build)
    assert build.count == 2 and _saved(elsewhere) == []


def test_a_relative_xdg_cache_home_is_ignored(elsewhere, monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")
    assert cache_folder() == tmp_path / "home" / ".cache" / "hexlore"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_folder() == tmp_path / "xdg" / "hexlore"


def test_check_with_an_unusable_home_caches_in_the_temporary_folder_and_never_in_the_package(tmp_path):
    """A read-only install and a home that cannot hold a cache (here: a file): the second
    start loads the tables the first saved in the private temporary folder, both answer
    the same, and nothing lands beside the installed package."""
    package = Path(hexlore.__file__).parent

    def files() -> set[Path]:
        return {p for p in package.rglob("*") if "__pycache__" not in p.parts}

    before = files()
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    pack = tmp_path / "small.lore"
    pack.write_text("pack small\n\nfunction double(x: int) -> int = x * 2\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HEXLORE_", "XDG_"))}
    env.update(HOME=str(blocker / "home"), TMPDIR=str(temporary))
    outputs = []
    for _ in range(2):
        out = subprocess.run([sys.executable, "-m", "hexlore", "check", str(pack)], capture_output=True,
                             text=True, env=env, cwd=tmp_path)
        assert out.returncode == 0, out.stderr
        outputs.append(out.stdout)
    assert "W004" in outputs[0] and outputs[0] == outputs[1]  # the pack was really parsed, alike
    assert len(_saved(temporary / f"hexlore-{os.getuid()}")) == 1
    assert files() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "small.lore", "tmp"]
