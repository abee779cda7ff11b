"""A quick first look at a document against a bundled JSON Schema, before jsonschema's own.

Validating the bundled scenarios with jsonschema took a quarter of a second of the half a
second their YAML took (``hexlore check rules scenarios``, benchmarks/README.md): its
validator builds a new validator object at every step down the schema. jsonschema-rs (a
compiled validator of the same drafts) says whether a document is valid a hundred times
faster. Nearly every document is, and then there is nothing to report; a document it finds
invalid, or cannot judge, is validated again by jsonschema, whose errors the loaders turn
into diagnostics (:class:`~hexlore.runtime.scenarios.located_yaml.SchemaReporter`), so every
message stays jsonschema's, word for word.

That is sound as long as jsonschema-rs never accepts what jsonschema refuses: the bundled
schemas use the plain keywords both implement alike (types, properties, items, lengths,
enums, ``$ref``s inside the document, and one ASCII ``pattern``, which a Python regular
expression matches wherever ECMA's does; Python's ``$`` also matches before a last newline,
so jsonschema-rs refuses a name ``"north\\n"`` that jsonschema accepts, and jsonschema, asked
then, has the last word). ``tests/test_quick_schema.py`` checks that on every bundled and
fixture document and on valid scenarios changed at one place. Without the package (it is a declared
dependency, but a wheel may be missing on some platform) every document goes to jsonschema.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: a quick validator: True when the document is certainly valid
QuickCheck = Callable[[Any], bool]


def quick_check(schema: dict) -> QuickCheck | None:
    """The quick verdict on documents against ``schema``, or None without jsonschema-rs.

    Build it once per schema (the loaders keep it with ``lru_cache``) and call it per document.
    """
    try:
        import jsonschema_rs
    except ImportError:
        return None
    validator = jsonschema_rs.validator_for(schema)

    def certainly_valid(data: Any) -> bool:
        try:
            return bool(validator.is_valid(data))
        except Exception:  # values JSON has no form for (YAML dates, keys that are not strings): jsonschema judges
            return False

    return certainly_valid


__all__ = ["QuickCheck", "quick_check"]
