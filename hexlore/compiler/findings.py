"""The diagnostics the passes of :func:`.declare.declare` report, each with the names it is about."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ..diagnostics import Diagnostic


@dataclass
class Findings:
    """The diagnostics the passes report, each with the names it is about.

    A name that syntax-error recovery dropped (``Lowerer.skipped``) is a consequence of the
    syntax error, not a new mistake: a diagnostic about such a name is left out. Which names a
    diagnostic is about is said where it is made (``about``), since the set of dropped names
    is complete only once every pass has run (a ``fields`` block of an unknown kind adds its
    fields to it).
    """

    _found: list[tuple[Diagnostic, tuple[str, ...]]] = field(default_factory=list)

    def add(self, diagnostic: Diagnostic, about: Iterable[str] = ()) -> None:
        self._found.append((diagnostic, tuple(about)))

    def kept(self, skipped: set[str]) -> list[Diagnostic]:
        """The diagnostics, less those about a name in ``skipped``."""
        return [d for d, about in self._found if skipped.isdisjoint(about)]
