"""Read an untrusted text file: bounded, never blocking, every failure a located problem.

Every ``.lore`` pack, scenario, campaign and sheet goes through :func:`read_text`, so one
place guarantees what issue 13 asks of them all: a file larger than
:data:`~hexlore.dsl.limits.MAX_FILE_BYTES` is refused before it is read whole; a FIFO, a
device or a folder is refused without blocking (the file is opened non-blocking and checked
to be a regular file on the open descriptor, so nothing can be swapped in between); bytes
that are not UTF-8 are reported at the line and column of the first bad byte; and every
``OSError`` (a name too long, a loop of links, no permission) becomes a message naming the
file instead of a traceback. The caller turns a :class:`ReadProblem` into a diagnostic with
its own code (P020 for packs, S000 for YAML files).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from ..diagnostics import Span
from .limits import MAX_FILE_BYTES


@dataclass(frozen=True)
class ReadProblem:
    """Why a file could not be read, where (a span for bad bytes), and what to do."""

    message: str
    span: Span
    hint: str


def read_text(path: str | Path, what: str = "file") -> tuple[str | None, ReadProblem | None]:
    """The text of ``path`` (UTF-8, a BOM dropped), or ``None`` and why not."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        return None, _os_problem(exc, what)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file"
            return None, ReadProblem(f"cannot read {what}: it is {kind}", Span(),
                                     f"name a {what} saved as an ordinary file")
        if info.st_size > MAX_FILE_BYTES:
            return None, _too_large(info.st_size, what)
        chunks, size = [], 0
        while size <= MAX_FILE_BYTES:
            chunk = os.read(fd, MAX_FILE_BYTES + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > MAX_FILE_BYTES:  # it grew after fstat
            return None, _too_large(size, what)
        data = b"".join(chunks)
    except OSError as exc:
        return None, _os_problem(exc, what)
    finally:
        os.close(fd)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[: exc.start]
        line = before.count(b"\n") + 1
        column = len(before[before.rfind(b"\n") + 1:].decode("utf-8", errors="replace")) + 1
        return None, ReadProblem(f"cannot read {what}: byte 0x{data[exc.start]:02x} is not UTF-8 text",
                                 Span.at(line, column),
                                 f"save the {what} as UTF-8 (most editors have it under 'Save with encoding')")
    return text.removeprefix("\ufeff"), None


def _too_large(size: int, what: str) -> ReadProblem:
    return ReadProblem(f"cannot read {what}: it holds {size:,} bytes, more than the {MAX_FILE_BYTES:,} "
                       "hexlore reads from one file", Span(), f"split the {what} into several smaller ones")


def _os_problem(exc: OSError, what: str) -> ReadProblem:
    reason = exc.strerror or type(exc).__name__
    return ReadProblem(f"cannot read {what}: {reason.lower()}", Span(),
                       f"check that the {what} exists and can be read")


def is_file(path: str | Path) -> bool:
    """``Path.is_file`` that answers False instead of raising (a name too long, no permission)."""
    try:
        return Path(path).is_file()
    except (OSError, ValueError):
        return False


def is_dir(path: str | Path) -> bool:
    """``Path.is_dir`` that answers False instead of raising."""
    try:
        return Path(path).is_dir()
    except (OSError, ValueError):
        return False


__all__ = ["ReadProblem", "is_dir", "is_file", "read_text"]
