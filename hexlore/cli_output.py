"""What every terminal command prints through: text from files made safe for rich, and the
diagnostics report with its exit code. Shared by ``cli``, ``cli_analysis`` and ``play`` so
that none of them imports another for it."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from .diagnostics import Diagnostic
    from .dsl.output_files import AtomicOutput


def escape(text: str) -> str:
    """Text from packs and files, safe to print with rich: markup escaped, and every control
    character a terminal would act on shown as an escape (docs/diagnostics.md, issue 13)."""
    from rich.markup import escape as _markup_escape  # here: a check that prints no rich text never loads rich

    from .diagnostics import printable

    return _markup_escape(printable(str(text), newlines=True))


def print_diagnostics(diagnostics: list[Diagnostic], sources: dict, fmt: str, strict: bool = False,
                      output=None) -> int:
    """Print (or write to ``output``) the report; return the exit code it calls for."""
    from . import report

    fmt = report.choose_format(fmt)
    stream = output or sys.stdout
    text = report.render(diagnostics, sources, fmt, colour=output is None and report.use_colour(stream))
    if text or fmt in ("json", "sarif"):
        click.echo(text, file=output)
    if fmt == "text" and diagnostics:
        sys.stdout.flush()  # the summary comes after the report even when both go to one pipe
        click.echo(report.summary(diagnostics), err=True)
    return report.exit_code(diagnostics, strict)


#: the exit code of a command misused: an unknown option, or a file, scenario or pack named on
#: the command line that does not exist (click's own code for its usage errors)
USAGE = 2


def exit_if_no_scenario(name: str) -> None:
    """Exit with :data:`USAGE` after the located report when ``name`` is neither a file nor a bundled
    scenario: a missing file is the same misuse for ``run`` as for ``check`` (issue 15)."""
    from .loading import open_scenario, resolve_scenario

    if resolve_scenario(name) is None:
        loaded = open_scenario(name)  # the S000 diagnostic, with where bundled scenarios are
        print_diagnostics(loaded.diagnostics, loaded.sources, "text")
        sys.exit(USAGE)


#: the log path that means standard output (the command's messages then go to standard error)
STDOUT = "-"


class LogFile:
    """A log file opened only when the first entry is written: a run or a campaign refused
    before its first entry leaves an existing log as it was and makes no empty one. The
    entries go to a temporary file that :meth:`close` renames over the log
    (:class:`~hexlore.dsl.output_files.AtomicOutput`), so a full disk or a kill mid-game leaves
    the previous log whole. The path ``-`` is standard output, so a log can be piped (``| jq``)."""

    def __init__(self, path: str):
        self.path = path
        self._file: _StandardOutput | AtomicOutput | None = None

    @property
    def shown(self) -> str:
        return "standard output" if self.path == STDOUT else self.path

    def write(self, text: str) -> int:
        if self._file is None:
            from .dsl.output_files import AtomicOutput

            self._file = _StandardOutput() if self.path == STDOUT else AtomicOutput(self.path)
        return self._file.write(text)

    @property
    def written(self) -> bool:
        return self._file is not None

    def flush(self) -> None:
        if self._file is not None:
            self._file.flush()

    def close(self) -> None:
        """Put the entries written so far in place (a game abandoned keeps its log so far)."""
        if self._file is not None:
            self._file.commit()


class _StandardOutput:
    """Standard output as a log file: written as UTF-8 with '\\n' line ends whatever the
    terminal's settings (the bytes a file would hold), flushed but never closed."""

    def __init__(self):
        self._out = sys.stdout.buffer if hasattr(sys.stdout, "buffer") else None

    def write(self, text: str) -> int:
        try:
            if self._out is None:
                return sys.stdout.write(text)
            self._out.write(text.encode("utf-8"))
        except (OSError, UnicodeEncodeError) as exc:
            from .dsl.output_files import output_error

            raise output_error("standard output", exc) from None
        return len(text)

    def flush(self) -> None:
        self.commit()

    def commit(self) -> None:
        try:
            (self._out or sys.stdout).flush()
        except OSError as exc:
            from .dsl.output_files import output_error

            raise output_error("standard output", exc) from None
