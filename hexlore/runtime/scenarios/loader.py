"""Load scenario YAML files into :class:`Scenario` objects, with located diagnostics.

A scenario is checked in three passes, each reporting every problem it finds rather
than stopping at the first, so an author fixes a file in one round trip:

1. YAML syntax (``S001``/``S002``), from ``yaml.compose`` so we keep line/column marks.
2. Structure, against ``scenarios/schema/scenario.schema.json`` (``S003``). jsonschema's
   messages are rewritten into plain language and pinned to the offending YAML node.
3. Meaning that needs no rules pack: hex labels (``S004``), duplicate names (``S005``),
   stacked units, at the start or after a test's ``given`` (``S006``), unknown sides
   (``S007``), unknown names in tests (``S008``), a hex given two terrains (``S009``),
   sides without an edge of their own (``S010``). This pass also runs on files with
   schema errors, over the parts the schema found sound.

This module runs the passes: the first two with :mod:`hexlore.runtime.scenarios.located_yaml`, which
campaign files share, the third in :mod:`hexlore.runtime.scenarios.builder`; what it builds
is in :mod:`hexlore.runtime.scenarios.model`. Checks that need the compiled packs (does unit
type ``giant_spider`` exist?) are in :mod:`hexlore.runtime.analysis.scenario_checks`; they locate
their diagnostics with :meth:`Scenario.span_of`.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import yaml

from hexlore.diagnostics import Diagnostic, Source, Span, codes, error
from hexlore.runtime.scenarios.located_yaml import (SchemaReporter, SpanIndexer, bad_paths,
                                          cached_schema, compose, construct, node_span, read_input, sorted_diagnostics,
                                          syntax_error)
from hexlore.runtime.scenarios.builder import ScenarioBuilder
from hexlore.runtime.scenarios.model import Action, NameSet, Scenario, ScenarioTest, SideSpec, UnitPlacement
from hexlore.runtime.scenarios.quick_schema import QuickCheck, quick_check

if TYPE_CHECKING:  # jsonschema is imported when a file fails the quick check (quick_schema.py)
    from jsonschema import Draft202012Validator, ValidationError

__all__ = [
    "Action",
    "NameSet",
    "Scenario",
    "ScenarioTest",
    "SideSpec",
    "UnitPlacement",
    "load_scenario",
    "load_scenario_text",
    "scenario_schema",
]


def scenario_schema() -> dict:
    """The scenario JSON Schema (a fresh copy, so callers cannot corrupt the cache)."""
    return json.loads(cached_schema())


@lru_cache(maxsize=1)
def _schema() -> dict:
    """The schema the validator holds, parsed once; read, never changed (the reporter reads it)."""
    return scenario_schema()


@lru_cache(maxsize=1)
def _validator() -> Draft202012Validator:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(_schema())


@lru_cache(maxsize=1)
def _quick() -> QuickCheck | None:
    return quick_check(_schema())


def _full_errors(data) -> list[ValidationError]:
    """jsonschema's errors of ``data``, asked only when the quick check cannot vouch for it."""
    quick = _quick()
    if quick is not None and quick(data):
        return []
    return list(_validator().iter_errors(data))


def _schema_errors(data) -> list[ValidationError]:
    """Schema errors of ``data``; a top-level list longer than its ``maxItems`` is reported
    without validating each of its items (20,000 units would cost seconds for one error)."""
    if not isinstance(data, dict):
        return _full_errors(data)
    schema = _schema()  # the validator's own (jsonschema's type allows a bool; the bundled one is a mapping)
    properties = schema.get("properties", {}) if isinstance(schema, dict) else {}
    checked, too_long = data, []
    for key, schema in properties.items():
        limit, value = schema.get("maxItems"), data.get(key)
        if limit is None or not isinstance(value, list) or len(value) <= limit:
            continue
        if checked is data:
            checked = dict(data)
        checked[key] = value[:schema.get("minItems", 0)]
        too_long.append(_too_long(key, value, limit, schema))
    return too_long + _full_errors(checked)


def _too_long(key: str, value: list, limit: int, schema: dict) -> ValidationError:
    """The error of a top-level list past its ``maxItems``, as jsonschema would word it."""
    from jsonschema import ValidationError  # imported on demand: a valid file never needs jsonschema

    return ValidationError(f"{key!r} has {len(value):,} items; at most {limit:,} are allowed",
                           validator="maxItems", validator_value=limit, instance=value,
                           schema=schema, path=[key], schema_path=["properties", key, "maxItems"])


def load_scenario(path: str | Path, partial: bool = False) -> tuple[Scenario | None, list[Diagnostic]]:
    """Read and check a scenario file; never raises on bad input (see :func:`load_scenario_text`)."""
    text, problems = read_input(path, "scenario")
    if text is None:
        return None, problems
    return load_scenario_text(text, str(path), partial)


def load_scenario_text(text: str, path: str = "<string>",
                       partial: bool = False) -> tuple[Scenario | None, list[Diagnostic]]:
    """Check scenario text, reporting the problems of every pass at once.

    The scenario is ``None`` whenever an error was found, unless ``partial`` is set: then it
    is what could be built around the errors (items with schema errors left out, hexes that do
    not parse as ``None``) so the checks against the packs can still run and report in the
    same round. It is ``None`` even then if the board or the ``packs`` list is unusable.
    """
    try:
        root = compose(text)
    except yaml.YAMLError as exc:
        return None, [syntax_error(exc, path)]
    if root is None:
        return None, [error(codes.NOT_A_SCENARIO, "the scenario file is empty", path, Span(),
                            "a scenario is a mapping starting with 'hexlore: 1'")]
    if not isinstance(root, yaml.MappingNode):
        return None, [error(codes.NOT_A_SCENARIO, "a scenario must be a mapping of keys to values",
                            path, node_span(root), "start the file with 'hexlore: 1'")]

    idx = SpanIndexer(path, text)
    idx.walk(root)  # before constructing: the constructor flattens merge keys in place
    try:
        data = construct(root)
    except yaml.YAMLError as exc:
        return None, [syntax_error(exc, path)]
    diags = list(idx.diagnostics)

    errors = _schema_errors(data)
    if errors:  # the reporter reads the validator's own copy of the schema, never changing it
        reporter = SchemaReporter(path, idx, data, _schema())
        for err in errors:
            diags += reporter.report(err)

    # text no output can hold (S125/S126) is left out like a schema error: the rest is still checked
    builder = ScenarioBuilder(path, data, idx, bad_paths(errors) | idx.refused)
    scenario = builder.build(Source(path, text))
    diags += builder.diagnostics
    if any(d.is_error for d in diags) and not (partial and builder.usable):
        return None, sorted_diagnostics(diags)
    return scenario, sorted_diagnostics(diags)
