"""The Lore parser's tables, analysed once per machine instead of at every start.

Building the LALR tables and the contextual lexer of ``lore.lark`` costs about 0.4 s, half
of what ``hexlore check`` on a small pack takes; loading them saved costs 20 ms. They are
saved with Lark's own ``save`` (a pickle) under the user's cache folder, named by a digest
of the grammar, the options and the Lark and Python versions, so a changed grammar or an
upgraded Lark never meets stale tables.

A pickle runs code when loaded, so the cache is only used where no one else can write: the
folder and the file must belong to the current user and be writable by no one else, and the
file is opened without following links. Anything unexpected (a read-only home, a foreign
folder, a damaged file) falls back to building the parser, which is always correct.
``HEXLORE_NO_CACHE=1`` turns the cache off; ``HEXLORE_CACHE_DIR`` moves it.
"""

from __future__ import annotations

import hashlib
import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import Callable

import lark
from lark import Lark


def cache_folder() -> Path | None:
    """Where the tables are kept, or None when caching is off."""
    if os.environ.get("HEXLORE_NO_CACHE"):
        return None
    chosen = os.environ.get("HEXLORE_CACHE_DIR")
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "hexlore"


def _private(info: os.stat_result) -> bool:
    mine = not hasattr(os, "getuid") or info.st_uid == os.getuid()
    return mine and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def _usable_folder(folder: Path) -> bool:
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.lstat(folder)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and _private(info)


def _digest(grammar: str, options: dict) -> str:
    key = repr((grammar, sorted((k, repr(v)) for k, v in options.items() if k != "postlex"),
                type(options.get("postlex")).__qualname__, lark.__version__, sys.version_info[:2]))
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


def _load(path: Path) -> Lark | None:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as file:
        info = os.fstat(file.fileno())
        if not (stat.S_ISREG(info.st_mode) and _private(info)):
            return None
        try:
            return Lark.load(file)
        except Exception:  # a damaged or foreign file: build afresh (and replace it)
            return None


def _save(parser: Lark, folder: Path, path: Path) -> None:
    try:
        fd, temporary = tempfile.mkstemp(dir=folder, prefix=".lore-", suffix=".tmp")
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as file:
            parser.save(file)
        os.replace(temporary, path)  # atomic: a concurrent start reads the old file or the new
    except OSError:
        try:
            os.unlink(temporary)
        except OSError:
            pass


def cached_parser(grammar: str, options: dict, build: Callable[[], Lark]) -> Lark:
    """The parser of ``grammar`` with ``options``, loaded from the cache or built (and saved)."""
    folder = cache_folder()
    if folder is None or not _usable_folder(folder):
        return build()
    path = folder / f"lore-{_digest(grammar, options)}.lark"
    parser = _load(path)
    if parser is None:
        parser = build()
        _save(parser, folder, path)
    return parser


__all__ = ["cache_folder", "cached_parser"]
