"""The Lore parser's tables, analysed once per machine instead of at every start.

Building the LALR tables and the contextual lexer of ``lore.lark`` costs about 0.4 s, more
than everything else ``hexlore check`` does on a small pack; loading them saved costs 15 ms.
They are saved with Lark's own ``save`` (a pickle) under the user's cache folder, named by a
digest of the grammar, the options and the Lark and Python versions, so a changed grammar or
an upgraded Lark never meets stale tables.

A pickle runs code when loaded, so the cache is only used where no one else can write: the
folder and the file must belong to the current user and be writable by no one else, and the
file is opened without following links. Anything unexpected (a read-only or absent home, a
foreign folder, a damaged file) falls back to building the parser, which is always correct.
Where the home folder cannot hold a cache (no home, a read-only one, as in many CI
containers), a private folder in the temporary directory (``hexlore-<uid>``, same checks)
serves instead. Nothing is ever written beside the installed package: a read-only install
works the same. ``HEXLORE_NO_CACHE=1`` turns the cache off; ``HEXLORE_CACHE_DIR`` moves it.

Why a user cache rather than the alternatives issue 19 names (measured on the 2-CPU machine
of the README, CPython 3.11, Lark 1.3):

- A standalone parser (``python -m lark.tools.standalone``) is a 380 kB module: importing it
  and building its parser takes 35 ms, more than the 15 ms of loading saved tables, and it
  would be paid on top of importing Lark, which the front end needs anyway (the error
  recovery drives Lark's interactive parser, and the parser and recovery test tokens and trees
  against Lark's own classes, which a standalone module duplicates).
- Tables generated at build time and shipped in the wheel load exactly as these do
  (``Lark.load``, 15 ms): they would save only the first 0.4 s on a machine, at the cost of a
  build step that imports Lark, and they are Lark's internal format, valid for the one Lark
  version the wheel was built with while hexlore accepts any Lark from 1.1.9; after an upgrade
  they would go unused. The user cache is built by the Lark that reads it, so it is never stale.
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
    """Where the tables are kept, or None when caching is off or there is no home to keep them in.

    ``XDG_CACHE_HOME`` counts only when absolute (as its specification says), and so does the
    home folder: without a ``HOME`` and a password entry, ``expanduser`` gives back ``~``, and
    a cache relative to the working directory would scatter folders named ``~`` in projects.
    """
    if os.environ.get("HEXLORE_NO_CACHE"):
        return None
    chosen = os.environ.get("HEXLORE_CACHE_DIR")
    if chosen:
        return Path(chosen)
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if os.path.isabs(xdg):
        return Path(xdg) / "hexlore"
    home = os.path.expanduser("~")
    if not os.path.isabs(home):
        return None
    return Path(home) / ".cache" / "hexlore"


def fallback_folder() -> Path | None:
    """The private folder in the temporary directory used when the home cannot hold a cache.

    Named after the user, so that users sharing a machine never share (or fight over) one; a
    folder someone else created there fails the checks of :func:`_private_folder` and is not used.
    """
    if os.environ.get("HEXLORE_NO_CACHE") or os.environ.get("HEXLORE_CACHE_DIR"):
        return None  # turned off, or the user chose the place: nowhere else
    owner = str(os.getuid()) if hasattr(os, "getuid") else "user"
    try:
        return Path(tempfile.gettempdir()) / f"hexlore-{owner}"
    except OSError:  # no usable temporary directory at all
        return None


def _private(info: os.stat_result) -> bool:
    mine = not hasattr(os, "getuid") or info.st_uid == os.getuid()
    return mine and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def _private_folder(folder: Path) -> bool:
    """Whether ``folder`` exists, is a real folder (not a link) and is private to this user."""
    try:
        info = os.lstat(folder)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and _private(info)


def _usable_folder(folder: Path) -> bool:
    """Like :func:`_private_folder`, creating the folder (private) first if need be."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError:
        return False
    return _private_folder(folder)


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


def _save(parser: Lark, folder: Path, path: Path) -> bool:
    """Write the tables atomically (a concurrent start reads the old file or the new), private
    to this user; False when the folder would not take them."""
    from .output_files import AtomicOutput, OutputError  # only when tables are built, not at each start

    try:
        with AtomicOutput(path, mode=0o600) as out:
            parser.save(out)
        return True
    except OutputError:
        return False


def cached_parser(grammar: str, options: dict, build: Callable[[], Lark]) -> Lark:
    """The parser of ``grammar`` with ``options``, loaded from the cache or built (and saved).

    The user's cache is tried first, then the private temporary folder: a read-only home that
    holds no tables yet still lets the second start load what the first saved. A parser that
    had to be built is saved in the first folder that takes it; where none does, every start
    builds it again, which costs time and nothing else.
    """
    name = f"lore-{_digest(grammar, options)}.lark"
    folders = [f for f in (cache_folder(), fallback_folder()) if f is not None]
    for folder in folders:  # loading creates nothing
        if _private_folder(folder):
            parser = _load(folder / name)
            if parser is not None:
                return parser
    parser = build()
    for folder in folders:
        if _usable_folder(folder) and _save(parser, folder, folder / name):
            break
    return parser


__all__ = ["cache_folder", "cached_parser", "fallback_folder"]
