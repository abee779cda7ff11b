"""The quick schema check (hexlore/runtime/scenarios/quick_schema.py) gives jsonschema's verdict.

The loaders skip jsonschema when jsonschema-rs finds a document valid, so a document the
quick check accepts and jsonschema refuses would lose its diagnostics. These tests hold the
two to the same verdict on every YAML document the project ships or tests with, on valid
documents changed at one place (the near misses where two implementations could differ), and
on values that only YAML has.
"""

from __future__ import annotations

import copy
import datetime
import json
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from hexlore.runtime.scenarios import campaign_files, loader
from hexlore.runtime.scenarios.located_yaml import cached_schema, compose, construct
from hexlore.runtime.scenarios.quick_schema import quick_check

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = ("scenario.schema.json", "campaign.schema.json", "sheet.schema.json")
DOCUMENTS = sorted(p for folder in ("rules", "scenarios", "tests/fixtures") for suffix in ("*.yaml", "*.yml")
                   for p in (ROOT / folder).rglob(suffix))


def _data(path: Path):
    """The document as the loaders build it (bounded: the fixtures hold alias bombs), or None."""
    if path.is_symlink():  # the fixtures' links out of the project: not documents of ours
        return None
    try:
        root = compose(path.read_text(encoding="utf-8"))
        return construct(root) if root is not None else None
    except (yaml.YAMLError, UnicodeDecodeError):
        return None


def _checks(name: str):
    schema = json.loads(cached_schema(name))
    quick = quick_check(schema)
    assert quick is not None, "jsonschema-rs is a declared dependency (pyproject.toml)"
    return quick, Draft202012Validator(schema)


CHECKS = {name: _checks(name) for name in SCHEMAS}


def _same_verdict(name: str, data) -> None:
    """What the quick check accepts, jsonschema accepts. The other way round it may refuse
    more (a name 'north\\n': Python's '$' matches before a last newline, ECMA's does not);
    such a document goes to jsonschema, whose verdict stands."""
    quick, full = CHECKS[name]
    if quick(data):
        errors = list(full.iter_errors(data))
        assert errors == [], (name, [e.message for e in errors][:3])


def test_a_refusal_of_the_quick_check_goes_to_jsonschema():
    """The one disagreement known: jsonschema accepts a name with a last newline, jsonschema-rs
    does not; the loader asks jsonschema then, so the document stays valid."""
    _, document = VALID[0]
    changed = _replaced(document, ("sides", 0, "name"), "north\n")
    quick, full = CHECKS["scenario.schema.json"]
    assert not quick(changed) and list(full.iter_errors(changed)) == []
    assert loader._schema_errors(changed) == []


def test_the_documents_are_there():
    assert len(DOCUMENTS) > 100
    valid = [p for p in DOCUMENTS if CHECKS["scenario.schema.json"][0](_data(p))]
    assert len(valid) > 40  # the bundled scenarios, at least: the quick path is the common one


@pytest.mark.parametrize("name", SCHEMAS)
def test_every_document_gets_the_same_verdict(name):
    quick, full = CHECKS[name]
    for path in DOCUMENTS:  # none of them has a name with a last newline: here the verdicts are equal
        data = _data(path)
        assert quick(data) == (not list(full.iter_errors(data))), (name, path)


#: values where validators are known to differ: strings a Python '$' accepts, numbers that
#: are integers or not, booleans, keys that are not strings, YAML's dates, huge and odd floats
ODD_VALUES = ["north\n", "north ", "", "1abc", "é", 1, 1.0, 1.5, -1, 0, True, False, None, 10**18, 2**70,
              float("nan"), float("inf"), [], {}, {1: "x"}, datetime.date(2020, 1, 1), ["a", "a"], [1, 1.0]]


def _paths(data, prefix=()):
    """Every place in ``data``: (path, value)."""
    yield prefix, data
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _paths(value, prefix + (key,))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from _paths(value, prefix + (i,))


def _replaced(data, path, value):
    changed = copy.deepcopy(data)
    if not path:
        return value
    holder = changed
    for step in path[:-1]:
        holder = holder[step]
    holder[path[-1]] = value
    return changed


VALID = [(p, d) for p in DOCUMENTS for d in [_data(p)]
         if isinstance(d, dict) and CHECKS["scenario.schema.json"][0](d)]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_valid_scenario_changed_at_one_place(data):
    _, document = data.draw(st.sampled_from(VALID))
    places = list(_paths(document))
    path, _ = data.draw(st.sampled_from(places))
    value = data.draw(st.sampled_from(ODD_VALUES))
    _same_verdict("scenario.schema.json", _replaced(document, path, value))


def test_the_loaders_use_the_quick_check():
    assert loader._quick() is not None
    assert campaign_files._quick("campaign.schema.json") is not None
