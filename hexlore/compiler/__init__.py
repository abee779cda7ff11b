"""The Lore compiler: packs in, a checked :class:`RuleSet` out.

Stages, each a plain function: :func:`load_packs` (find, parse, order by ``use``),
:func:`declare` (names, types, lowering to IR), :func:`build_graph` (the event-trigger
graph and its checks).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ..diagnostics import Diagnostic
from .declare import declare
from .hooks import check_hooks
from .graph import EventTriggerGraph, build_graph
from .model import RuleSet, dispatch_table
from .packs import bundled_rules_root, load_packs
from .usage import check_usage

__all__ = ["compile_packs", "RuleSet", "EventTriggerGraph", "bundled_rules_root"]


def compile_packs(requests: list[str], search_paths: list[Path] | None = None,
                  names_only: bool = False, overlay: Mapping[str, str] | None = None) -> RuleSet:
    """Compile the named packs (names, directories or ``.lore`` files) and what they use.

    Never raises on bad input: problems are in ``rules.diagnostics``; ``rules.ok`` tells
    whether the result can be run. ``overlay`` maps resolved file paths to the text to compile
    instead of the file's (the language server's unsaved buffers).
    """
    loaded = load_packs(requests, search_paths, names_only, overlay)
    rules = declare(loaded)
    rules.dispatch = dispatch_table(rules.triggers)
    graph, graph_diags = build_graph(rules, loaded.skipped)
    rules.graph = graph
    rules.visible = loaded.visible
    usage = check_usage(loaded, rules, loaded.diagnostics + rules.diagnostics)
    rules.diagnostics = sorted(loaded.diagnostics + rules.diagnostics + graph_diags + usage + check_hooks(rules),
                               key=Diagnostic.sort_key)
    rules.freeze()  # the last stage: what is derived from the rules from now on stays true
    return rules
