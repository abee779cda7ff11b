"""The one table of output formats: what each ``--format`` choice is called, says and renders with.

``hexlore check`` reports in one of :data:`REPORT_FORMATS`; ``run``, ``odds`` and ``sweep``
print their answer in one of :data:`ANSWER_FORMATS`. The CLI builds its ``--format`` choices
and help from these tables, and :func:`hexlore.report.render` dispatches through them, so a
format is added in one entry plus its renderer (docs/architecture.md). This module imports
nothing: ``hexlore --help`` reads it without loading the report's renderers, which are
imported only when a report is rendered (:meth:`OutputFormat.renderer`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class OutputFormat:
    """A format of ``hexlore check``'s report."""

    name: str
    #: what ``--help`` says of it
    description: str
    #: ``module:function`` that renders it, called as ``f(diagnostics, sources, colour, root)``
    renders_with: str

    def renderer(self) -> Callable[..., str]:
        """The function that renders the format, imported now (it may import heavy things)."""
        module, function = self.renders_with.split(":")
        return getattr(importlib.import_module(module), function)


REPORT_FORMATS: dict[str, OutputFormat] = {f.name: f for f in (
    OutputFormat("text", "gcc style, with the source line and a caret", "hexlore.report:text_report"),
    OutputFormat("json", "a stable structure for scripts", "hexlore.report:json_report"),
    OutputFormat("github", "GitHub Actions annotations", "hexlore.report:github_report"),
    OutputFormat("sarif", "SARIF 2.1.0, for code scanning", "hexlore.report:sarif_report"),
)}

#: the choice that picks a format from the environment (:func:`hexlore.report.choose_format`)
AUTO = "auto"
#: ``--format`` of ``hexlore check``: auto, then every report format
REPORT_CHOICES: tuple[str, ...] = (AUTO, *REPORT_FORMATS)

#: ``--format`` of the commands that print an answer (``run``, ``odds``, ``sweep``): a table for
#: people, or the same answer as JSON for scripts
ANSWER_FORMATS: tuple[str, ...] = ("text", "json")


def report_help() -> str:
    """``hexlore check --format``'s help, from the table."""
    listed = ", ".join(f"{f.name} ({f.description})" for f in REPORT_FORMATS.values())
    return f"Output format: {listed}; {AUTO} is github on GitHub Actions, else text."
