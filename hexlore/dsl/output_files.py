"""Write an output file so that no failure can lose data: every file hexlore writes comes here.

Logs, replay pages, SVG pictures, sweep and odds reports, campaign sheets and the parser cache
are written through :class:`AtomicOutput` (issue 30): the bytes go to a temporary file in the
target's own folder (``os.replace`` is atomic only within one file system), which is flushed,
synced and then renamed over the target. Whatever happens before the rename — a full disk, a
quota, a file-size limit, text that cannot be encoded, a kill — the previous file is left as it
was, byte for byte; the temporary file is removed on every error path, and one a killed process
left behind is removed by the next write to the same target (:func:`remove_stale_temporaries`).

A failure becomes an :class:`OutputError` naming the file and saying what to do (``S130``), never
a traceback. A target that is a link is written through: the link's target is replaced and the
link stays a link. A target that is a device or a pipe (``/dev/null``, ``/dev/stdout``) cannot be
replaced and is written in place. It lives at the bottom of the import graph so that the CLI,
the campaign runner and the parser cache share it.
"""

from __future__ import annotations

import errno
import fcntl
import os
import re
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ..diagnostics import Diagnostic, Span, codes, error


#: bytes written at a time; tests/midwrite.py stops the writer between two of them
CHUNK = 64 * 1024

#: what a failed write means, said the way a user can act on it
_REASONS = {
    errno.ENOSPC: ("the disk is full", "free some space, or write the file elsewhere"),
    errno.EDQUOT: ("the disk quota is used up", "free some space, or write the file elsewhere"),
    errno.EFBIG: ("the file grew beyond the size this system allows", "write a smaller output, or raise the limit"),
    errno.EROFS: ("the file system is read-only", "write the file elsewhere"),
    errno.EACCES: ("permission denied", "choose a folder you can write to"),
    errno.EPERM: ("permission denied", "choose a folder you can write to"),
    errno.ENOENT: ("its folder does not exist", "create the folder first, or write the file elsewhere"),
    errno.EISDIR: ("it is a folder", "name a file, not a folder"),
    errno.ENOTDIR: ("a part of its path is not a folder", "check the path"),
}


class OutputError(Exception):
    """An output file could not be written; the previous file, if any, is untouched."""

    def __init__(self, path: str | Path, reason: str, hint: str):
        self.path, self.reason, self.hint = str(path), reason, hint
        super().__init__(f"cannot write '{self.path}': {reason}")

    def diagnostic(self) -> Diagnostic:
        """The error as a diagnostic (``S130``), for the command's report."""
        return error(codes.CANNOT_WRITE, f"cannot write '{self.path}': {self.reason}; "
                     "the file is left as it was", self.path, Span(), self.hint)


def output_error(path: str | Path, exc: BaseException) -> OutputError:
    """``exc`` (an ``OSError`` or an encoding error) as an :class:`OutputError` about ``path``."""
    if isinstance(exc, UnicodeEncodeError):
        return OutputError(path, f"the text holds a character that cannot be written as UTF-8 "
                           f"(U+{ord(exc.object[exc.start]):04X})", "remove the character from the pack or scenario")
    code = getattr(exc, "errno", None)
    reason, hint = _REASONS.get(code if isinstance(code, int) else -1, (getattr(exc, "strerror", None) or str(exc) or type(exc).__name__,
                                       "check the path and the disk"))
    return OutputError(path, reason, hint)


def _temporary_pattern(name: str) -> re.Pattern:
    """Names of the temporary files written for the target ``name``: ``.NAME.PID.RANDOM.tmp``."""
    return re.compile(rf"\.{re.escape(name)}\.(\d+)\.[0-9a-f]+\.tmp")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: alive
        return True
    return True


def remove_stale_temporaries(target: str | Path) -> int:
    """Remove the temporary files that writers of ``target`` left when they were killed.

    A temporary file is stale when the process named in it is gone and no one holds its lock
    (a live writer locks its file for as long as it writes), so a concurrent writer's file is
    never touched. Returns how many were removed; a folder that cannot be listed removes none.
    """
    target = Path(target)
    folder = target.parent
    pattern = _temporary_pattern(target.name)
    removed = 0
    try:
        names = [n for n in os.listdir(folder or ".") if pattern.fullmatch(n)]
    except OSError:
        return 0
    for name in names:
        pid = int(name.split(".")[-3])  # .NAME.PID.RANDOM.tmp
        if pid != os.getpid() and _alive(pid):  # this process's own files are kept by their locks
            continue
        path = folder / name
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
        except OSError:
            continue
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                continue
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # raises while a writer holds it
            os.unlink(path)
            removed += 1
        except OSError:
            continue
        finally:
            os.close(fd)
    return removed


def _new_file_mode() -> int:
    """The mode ``open(path, "w")`` would give a new file (0666 less the umask): a temporary
    file is created private, and the output must not stay so."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return 0o666 & ~int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def _create_temporary(target: Path) -> tuple[int, Path]:
    """A new private file beside ``target``, named so :func:`remove_stale_temporaries` can tell
    whose it is (a separate function so a test can make a folder refuse files)."""
    while True:
        temporary = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
        try:
            return os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0),
                           0o600), temporary
        except FileExistsError:
            continue


def _write_chunk(stream: IO[bytes], data: bytes) -> None:
    """One write; a separate function so a test can stop the writer between two chunks."""
    stream.write(data)


@dataclass
class AtomicOutput:
    """An output file being written: opened on the first write, renamed over the target by
    :meth:`commit`, removed by :meth:`abort`. As a context manager it commits when the block
    ends normally and aborts when it raises. ``write`` takes text (written as UTF-8 with the
    line ends given) or bytes. ``mode``: the new file's permissions (default: the old file's,
    else what ``open`` would give)."""

    path: str | Path
    mode: int | None = None
    _stream: IO[bytes] | None = None
    _temporary: Path | None = None
    _target: Path | None = None
    _failed: bool = False

    def write(self, data: str | bytes) -> int:
        if self._failed:
            raise OutputError(self.path, "an earlier write failed", "see the error above")
        try:
            stream = self._stream or self._open()
            encoded = data.encode("utf-8") if isinstance(data, str) else bytes(data)
            for start in range(0, len(encoded), CHUNK):
                _write_chunk(stream, encoded[start:start + CHUNK])
        except (OSError, UnicodeEncodeError) as exc:
            self.abort()
            self._failed = True
            raise output_error(self.path, exc) from None
        return len(data)

    def flush(self) -> None:
        """Hand what is buffered to the file now, so a full disk is known before the caller
        records something that depends on it (a campaign flushes its log before its sheet)."""
        if self._stream is None or self._failed:
            return
        try:
            self._stream.flush()
        except OSError as exc:
            self.abort()
            self._failed = True
            raise output_error(self.path, exc) from None

    @property
    def opened(self) -> bool:
        return self._stream is not None

    def _open(self) -> IO[bytes]:
        target = Path(os.path.realpath(self.path))  # a link is written through: the link stays
        self._target = target
        try:
            info = os.stat(target)
        except FileNotFoundError:
            info = None
        if info is not None and stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(errno.EISDIR, "is a folder")
        if info is not None and not os.access(target, os.W_OK):  # a rename would replace a file kept read-only
            raise PermissionError(errno.EACCES, "the file is read-only")
        if info is not None and not stat.S_ISREG(info.st_mode):  # a device or a pipe: no rename
            self._stream = open(target, "wb")
            return self._stream
        remove_stale_temporaries(target)
        fd, self._temporary = _create_temporary(target)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # held while writing: never taken for stale
            os.fchmod(fd, self.mode if self.mode is not None else
                      stat.S_IMODE(info.st_mode) if info is not None else _new_file_mode())
        except OSError:
            pass
        self._stream = os.fdopen(fd, "wb")
        return self._stream

    def commit(self) -> None:
        """Make the written bytes the target's content (an empty file if nothing was written)."""
        if self._failed:
            return
        try:
            stream = self._stream or self._open()
            stream.flush()
            if self._temporary is not None:
                os.fsync(stream.fileno())
            stream.close()
            if self._temporary is not None and self._target is not None:
                os.replace(self._temporary, self._target)
                self._temporary = None
                _sync_folder(self._target.parent)
        except OSError as exc:
            self.abort()
            self._failed = True
            raise output_error(self.path, exc) from None
        finally:
            self._stream = None

    def abort(self) -> None:
        """Leave the target as it was and remove the temporary file."""
        stream, self._stream = self._stream, None
        if stream is not None:
            try:
                stream.close()
            except OSError:
                pass
        temporary, self._temporary = self._temporary, None
        if temporary is not None:
            try:
                os.unlink(temporary)
            except OSError:
                pass

    def __enter__(self) -> AtomicOutput:
        return self

    def __exit__(self, kind, value, traceback) -> None:
        if kind is None:
            self.commit()
        else:
            self.abort()


def write_atomically(path: str | Path, data: str | bytes) -> None:
    """Replace the file at ``path`` with ``data``; on failure the old file is untouched and
    an :class:`OutputError` says why."""
    with AtomicOutput(path) as out:
        out.write(data)


def _sync_folder(folder: Path) -> None:
    """Make the rename durable; some systems (Windows) cannot open a folder, and need not."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


__all__ = ["CHUNK", "AtomicOutput", "OutputError", "output_error", "remove_stale_temporaries",
           "write_atomically"]
