"""Diagnostics, the bottom layer every stage stands on: the parser, the compiler, the runtime,
the CLI and the language server all report problems as :class:`Diagnostic` values.

It lives below ``hexlore.dsl`` (and imports nothing else of hexlore) so that no layer has to
reach into another stage to say what went wrong. :mod:`.model` holds the types and helpers,
:mod:`.codes` the registry of every code (one entry each, docs generated from it by
:mod:`.docs`).
"""

from __future__ import annotations

from .model import (EXCERPT, MAX_GUESSED, Diagnostic, DiagnosticError, Severity, Source, Span,
                    did_you_mean, dumps_json, error, json_safe, printable, warning)

__all__ = ["EXCERPT", "MAX_GUESSED", "Diagnostic", "DiagnosticError", "Severity", "Source", "Span",
           "did_you_mean", "dumps_json", "error", "json_safe", "printable", "warning"]
