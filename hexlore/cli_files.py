"""The files a command names on its command line: outputs that must not be inputs, and logs
read back by ``replay`` (issue 30).

Every command with an output option (``--log``, ``--html``, ``-o``, ``--plot``) asks
:func:`refuse_outputs_over_inputs` before it writes, so a typo such as ``--log rules/x.lore``
cannot replace a pack, the scenario, a sheet or a log being read: paths are compared with their
links followed (and, for files that exist, as the same file on disk, so a hard link counts).
The writes themselves go through :mod:`hexlore.dsl.output_files`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from pathlib import Path

import click

from .diagnostics import Diagnostic, Span, codes, error


#: where a problem with the command line itself is reported
COMMAND_LINE = "<command line>"


def _same_file(a: str, b: str) -> bool:
    """Whether two paths name one file: equal once links are followed, or one inode."""
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def clashes(outputs: dict[str, str | None], inputs: Iterable[str]) -> list[Diagnostic]:
    """An ``S131`` for each output (option -> path; None or ``-`` for none) that is one of the
    ``inputs`` the command reads, or the same file as an earlier output."""
    inputs = [i for i in dict.fromkeys(str(i) for i in inputs) if not i.startswith("<")]
    found: list[Diagnostic] = []
    named: list[tuple[str, str]] = []
    for option, path in outputs.items():
        if not path or path == "-":
            continue
        read = next((i for i in inputs if _same_file(path, i)), None)
        twice = next((o for o, p in named if _same_file(path, p)), None)
        if read is not None:
            found.append(error(codes.OUTPUT_IS_INPUT, f"{option} '{path}' is a file this command reads "
                               f"('{read}'); it is not overwritten", COMMAND_LINE, Span(),
                               f"write the output to another file, e.g. '{Path(path).stem}.out{Path(path).suffix}'"))
        elif twice is not None:
            found.append(error(codes.OUTPUT_IS_INPUT, f"{option} '{path}' is the file {twice} writes too",
                               COMMAND_LINE, Span(), "give each output a file of its own"))
        named.append((option, path))
    return found


def refuse_outputs_over_inputs(outputs: dict[str, str | None], inputs: Iterable[str]) -> None:
    """Exit with the usage code (2) and an ``S131`` report if an output is an input, before
    anything is written."""
    from .cli_output import USAGE, print_diagnostics

    found = clashes(outputs, inputs)
    if found:
        print_diagnostics(found, {}, "text", output=sys.stderr)
        sys.exit(USAGE)


def scenario_inputs(sources: Iterable[str]) -> list[str]:
    """The files a command on a scenario reads: its sources (scenario and packs) and the
    ``look.yaml`` files beside them (read for pictures and pages)."""
    from .look import LOOK_FILE

    files = [str(s) for s in sources if not str(s).startswith("<")]
    looks = {str(Path(f).parent / LOOK_FILE) for f in files}
    return files + sorted(p for p in looks if os.path.isfile(p))


def read_log_lines(path: str) -> tuple[list[str] | None, Diagnostic | None]:
    """The lines of an event log, or an ``S132`` at the line and column of its first byte that
    is not UTF-8 (a log hexlore wrote is always UTF-8), or naming why it cannot be read. A log
    that leads outside the project root is not read (a log may be larger than a rules file, so
    it is confined here rather than read through ``read_confined``'s size bound)."""
    from .dsl.confine import command_line_root, confine

    if confine(path, command_line_root(path)) is None:
        return None, error(codes.LOG_NOT_TEXT, f"the log '{path}' leads outside the project root; it is not read", path,
                           Span(), "copy the log into the project, or name the project with --root")
    try:
        with open(path, "rb") as stream:
            data = stream.read()
    except OSError as exc:
        return None, error(codes.LOG_NOT_TEXT, f"cannot read the log '{path}': {exc.strerror or exc}", path, Span(),
                           "name a log written by 'hexlore run --log'")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        return None, error(codes.LOG_NOT_TEXT, f"the log is not UTF-8 text: byte 0x{data[exc.start]:02x} at byte "
                           f"{exc.start + 1} cannot be decoded", path, Span.at(line, column),
                           "name a log written by 'hexlore run --log' (JSON lines, UTF-8)")
    return text.splitlines(), None


def report_output_error(exc) -> None:
    """Print an :class:`~hexlore.dsl.output_files.OutputError` as its ``S130`` diagnostic."""
    click.echo(exc.diagnostic().render(), err=True)


__all__ = ["clashes", "read_log_lines", "refuse_outputs_over_inputs",
           "report_output_error", "scenario_inputs"]
