"""Read a YAML file so that every problem can be shown at its line and column, and check it
against a JSON Schema in plain language.

Shared by the three YAML formats (scenarios, campaign sheets, campaigns): their loaders
compose the text (``S001`` on a syntax error), index where each node is, construct the
data, and turn jsonschema's errors into diagnostics on the offending node (``S003``).
The codes are those of docs/diagnostics.md: every format reports these problems alike.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

if TYPE_CHECKING:  # only the loaders that validate import jsonschema: the engine's models do not need it
    from jsonschema.exceptions import ValidationError

from hexlore.dsl.confine import Roots, command_line_root, confine, read_confined
from hexlore.diagnostics import codes, Diagnostic, Span, did_you_mean, error
from hexlore.dsl.limits import MAX_INT, MAX_YAML_DEPTH, MAX_YAML_NODES, int_in_bounds
from hexlore.dsl.text_safety import REFUSED, escaped, first_refused

JsonPath = tuple[Any, ...]

# Problems of any of the YAML files (the codes are stable: docs/diagnostics.md documents each).
_SURROGATE_FIX = ('write the character itself, or one "\\U0001F600" escape past U+FFFF: half of a surrogate '
                  "pair is no character")


# ---------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------

_LIBYAML_LOADER = getattr(yaml, "CSafeLoader", None)


def read_input(path: str | Path, what: str, roots: Roots | None = None) -> tuple[str | None, list[Diagnostic]]:
    """The text of a scenario, campaign or sheet file, or the diagnostic why not: ``S122`` when
    it leads, links followed, outside the project (``roots``; by default those of a path named
    on the command line, :func:`hexlore.dsl.confine.command_line_root`), naming only the path as
    given; ``S000`` when it cannot be read."""
    roots = roots if roots is not None else command_line_root(path)
    if confine(path, roots) is None:
        return None, [error(codes.OUTSIDE_PROJECT, f"'{path}' leads outside the project; the {what} is not read",
                            str(path), Span(), "copy the file into the project, or give the folder it lies in "
                            "with --root")]
    text, problem = read_confined(path, roots, what)
    if problem is not None:  # the text or the problem, never both
        return None, [error(codes.CANNOT_READ, problem.message, str(path), problem.span, problem.hint)]
    return text, []


def compose(text: str) -> yaml.Node | None:
    """The node tree, with libyaml when PyYAML was built with it (several times faster).

    The event stream is checked first (:func:`check_events`): the composer recurses once per
    level of nesting and expands nothing, but what reads the tree afterwards walks every alias
    again, so a deep or alias-bombed document is refused before it is composed. Both loaders
    mark lines and columns alike; on an error the pure-Python loader reads again, so messages
    do not depend on how PyYAML was built.
    """
    if _LIBYAML_LOADER is not None:
        try:
            check_events(yaml.parse(text, Loader=_LIBYAML_LOADER))
            return yaml.compose(text, Loader=_LIBYAML_LOADER)
        except YamlLimitError:
            raise
        except yaml.YAMLError:
            pass
    check_events(yaml.parse(text, Loader=yaml.SafeLoader))
    return yaml.compose(text, Loader=yaml.SafeLoader)


class YamlLimitError(yaml.YAMLError):
    """A document that breaks one of the bounds of hexlore/dsl/limits.py, at a mark."""

    def __init__(self, code: str, message: str, mark, hint: str):
        super().__init__(message)
        self.code, self.problem, self.problem_mark, self.hint = code, message, mark, hint


_RESOLVER = yaml.resolver.Resolver()
_INT_TAG = "tag:yaml.org,2002:int"


def check_events(events) -> None:
    """Raise :class:`YamlLimitError` at the first event past a bound: nesting deeper than
    MAX_YAML_DEPTH, more nodes than MAX_YAML_NODES once aliases are expanded (a "billion
    laughs" bomb is a few dozen aliases), or an integer beyond MAX_INT (Python's ``int()``
    refuses more than 4,300 digits; a deck of 10**20 cards is no game)."""
    open_sizes: list[list] = []  # [anchor, expanded nodes so far] of each open collection
    anchors: dict[str, int] = {}
    total = 0
    for event in events:
        kind = type(event)
        if kind is yaml.ScalarEvent:
            if event.implicit[0] and not event.style and event.value[:1] in "+-0123456789":
                _check_integer(event)
            size = 1
        elif kind is yaml.AliasEvent:
            size = anchors.get(event.anchor, 1)
        elif kind in (yaml.MappingStartEvent, yaml.SequenceStartEvent):
            open_sizes.append([event.anchor, 1])
            if len(open_sizes) > MAX_YAML_DEPTH:
                raise YamlLimitError(codes.YAML_TOO_DEEP, f"collections nested more than {MAX_YAML_DEPTH} levels deep",
                                     event.start_mark, "flatten the document: no scenario needs that depth")
            continue
        elif kind in (yaml.MappingEndEvent, yaml.SequenceEndEvent):
            anchor, size = open_sizes.pop()
            if anchor is not None:
                anchors[anchor] = size
            if open_sizes:
                open_sizes[-1][1] += size
            else:
                total += size
            _check_size(total + sum(s for _, s in open_sizes[-1:]), event)
            continue
        else:
            continue
        if kind is yaml.ScalarEvent and event.anchor is not None:
            anchors[event.anchor] = 1
        if open_sizes:
            open_sizes[-1][1] += size
            _check_size(total + open_sizes[-1][1], event)
        else:
            total += size
        _check_size(total, event)


def _check_size(size: int, event) -> None:
    if size > MAX_YAML_NODES:
        raise YamlLimitError(codes.YAML_TOO_LARGE, f"the document expands to more than {MAX_YAML_NODES:,} values "
                             "once its aliases (*name) are replaced", event.start_mark,
                             "write the values out, or use fewer aliases of aliases")


def _check_integer(event) -> None:
    value = event.value
    if _RESOLVER.resolve(yaml.ScalarNode, value, (True, False)) != _INT_TAG:
        return
    digits = sum(c.isdigit() for c in value)
    too_large = digits > len(str(MAX_INT))
    if not too_large and digits == len(str(MAX_INT)):
        try:
            too_large = not int_in_bounds(int(value.replace("_", ""), 0) if not value.isdigit() else int(value))
        except ValueError:  # sexagesimal and other YAML 1.1 forms: few digits, let the loader read them
            return
    if too_large:
        shown = value if len(value) <= 24 else f"{value[:12]}…{value[-6:]} ({len(value):,} characters)"
        raise YamlLimitError(codes.YAML_INT_TOO_LARGE, f"the number {shown} is larger than hexlore allows "
                             f"({MAX_INT:,})", event.start_mark,
                             "game values are small: check for a typo, or scale the value down")


def construct(root: yaml.Node) -> Any:
    """Python data from an already composed tree: parsing the text a second time costs as much again."""
    loader = yaml.SafeLoader("")
    try:
        return loader.construct_document(root)
    except (ValueError, OverflowError, RecursionError) as exc:  # a value the checks above let through
        mark = getattr(root, "start_mark", None)
        raise yaml.constructor.ConstructorError(None, None, f"a value cannot be read ({type(exc).__name__})",
                                                mark) from None
    finally:
        loader.dispose()


_SYNTAX_HINT = "check indentation and quoting near this line"


def syntax_error(exc: yaml.YAMLError, file: str) -> Diagnostic:
    """The diagnostic of a file PyYAML cannot read, at the mark of the problem (else of its context)."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    span = Span.at(mark.line + 1, mark.column + 1) if mark is not None else Span()
    if isinstance(exc, YamlLimitError):
        return error(exc.code, exc.problem, file, span, exc.hint)
    problem = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context", None)
    message = f"YAML syntax error: {problem}" + (f" ({context})" if context else "")
    return error(codes.YAML_SYNTAX, message, file, span, _SYNTAX_HINT)


# ---------------------------------------------------------------------------
# YAML nodes -> spans
# ---------------------------------------------------------------------------


def node_span(node: yaml.Node) -> Span:
    """Where ``node`` stands; PyYAML counts from 0, diagnostics from 1."""
    start, end = node.start_mark, node.end_mark
    return Span(start.line + 1, start.column + 1, end.line + 1, end.column + 1)


def nearest_span(spans: dict[JsonPath, Span], path: JsonPath) -> Span:
    """The span at ``path``, else at its nearest parent that has one, so that a diagnostic
    about a key that is absent still points into the file."""
    while path and path not in spans:
        path = path[:-1]
    return spans.get(path, Span())


class SpanIndexer:
    """Walks a composed YAML tree recording the span of every node by JSON path.

    Keys are constructed with PyYAML's safe constructor so the paths use the same
    Python values ``yaml.safe_load`` produces (``1:`` is the int 1, ``no:`` is False),
    which is what jsonschema reports in ``error.absolute_path``.
    """

    def __init__(self, file: str, text: str | None = None):
        self.file = file
        self.text = text
        self.spans: dict[JsonPath, Span] = {}
        self.key_spans: dict[JsonPath, Span] = {}
        self.diagnostics: list[Diagnostic] = []
        #: paths whose key or value holds text check refuses (S125/S126): left out like schema errors
        self.refused: set[JsonPath] = set()
        self._constructor = yaml.constructor.SafeConstructor()
        self._active: set[int] = set()
        self._reported: set[int] = set()

    def walk(self, node: yaml.Node, path: JsonPath = ()) -> None:
        self.spans.setdefault(path, node_span(node))
        if isinstance(node, yaml.ScalarNode):
            self._check_text(node, path)
        if id(node) in self._active:  # recursive alias: stop rather than loop forever
            return
        self._active.add(id(node))
        try:
            if isinstance(node, yaml.MappingNode):
                seen: dict[Any, Span] = {}
                for key_node, value_node in node.value:
                    key = self._key(key_node)
                    key_span = node_span(key_node)
                    if key in seen and key != "<<":
                        # PyYAML keeps the last value silently; that hides real mistakes.
                        self.diagnostics.append(error(
                            codes.YAML_SYNTAX, f"duplicate key {key!r}", self.file, key_span,
                            f"the first {key!r} is on line {seen[key].line}; the later one "
                            "would silently replace it"))
                    seen[key] = key_span
                    self.key_spans.setdefault(path + (key,), key_span)
                    if isinstance(key_node, yaml.ScalarNode):
                        self._check_text(key_node, path + (key,))
                    self.walk(value_node, path + (key,))
            elif isinstance(node, yaml.SequenceNode):
                for i, item in enumerate(node.value):
                    self.walk(item, path + (i,))
        finally:
            self._active.discard(id(node))

    def _check_text(self, node: yaml.ScalarNode, path: JsonPath) -> None:
        """S125/S126 when the scalar's text holds a character no output can hold (hexlore/dsl/
        text_safety.py); once per node, however many aliases name it, at the character itself."""
        refused = first_refused(node.value)
        if refused is None:
            return
        self.refused.add(path)
        if id(node) in self._reported:
            return
        self._reported.add(id(node))
        code = codes.TEXT_NOT_UTF8 if not refused.encodable else codes.TEXT_CONTROL
        where = _shown_path(path) if path else "this text"
        self.diagnostics.append(error(code, f"{where} holds {refused.describe()}", self.file,
                                      refused_span(node, self.text),
                                      refused.hint(_SURROGATE_FIX)))

    def _key(self, node: yaml.Node) -> Any:
        if isinstance(node, yaml.ScalarNode):
            try:
                return self._constructor.construct_object(node, deep=True)
            except yaml.YAMLError:
                return node.value
        return repr(node)  # complex keys are invalid anyway; keep walking


def _shown_path(path: JsonPath) -> str:
    """``units[2].id``: where a value is, as its author reads it (refused characters escaped)."""
    out = ""
    for step in path:
        out += f"[{step}]" if isinstance(step, int) else (("." if out else "") + escaped(str(step)))
    return f"'{out}'"


# a double-quoted scalar's escapes (YAML 1.1 as PyYAML reads them) or one character
_QUOTED_PIECE = re.compile(r"\\(?:x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)|.", re.DOTALL)
_ESCAPED = {"0": "\0", "a": "\a", "b": "\b", "t": "\t", "n": "\n", "v": "\v", "f": "\f", "r": "\r",
            "e": "\x1b", "N": "\x85", "_": "\xa0", "L": "\u2028", "P": "\u2029"}


def _piece_refused(piece: str) -> bool:
    if piece[0] != "\\" or len(piece) == 1:
        return REFUSED.match(piece) is not None
    if piece[1] in "xuU" and len(piece) > 2:
        return REFUSED.match(chr(int(piece[2:], 16))) is not None
    return REFUSED.match(_ESCAPED.get(piece[1], " ")) is not None


def refused_span(node: yaml.ScalarNode, text: str | None) -> Span:
    """Where in the file the scalar's first refused character is written: the character
    itself, or the escape (``\\ud800``) that makes it; the scalar's start when unknown."""
    start, end = node.start_mark, node.end_mark
    if text is None or start.index is None or end.index is None or end.index > len(text):
        return Span.at(start.line + 1, start.column + 1)
    raw = text[start.index:end.index]
    if node.style == '"':
        at = next((m for m in _QUOTED_PIECE.finditer(raw) if _piece_refused(m.group())), None)
        offset, length = (at.start(), len(at.group())) if at else (None, 1)
    else:
        at = REFUSED.search(raw)
        offset, length = (at.start(), 1) if at else (None, 1)
    if offset is None:
        return Span.at(start.line + 1, start.column + 1)
    newlines = raw.count("\n", 0, offset)
    column = start.column + offset if not newlines else offset - raw.rfind("\n", 0, offset) - 1
    return Span.at(start.line + 1 + newlines, column + 1, length)


# ---------------------------------------------------------------------------
# Schemas
# ---------------------------------------------------------------------------


def _schema_path(name: str = "scenario.schema.json") -> Path:
    """The installed wheel ships scenarios as ``hexlore.scenarios``; a checkout has them at the root.

    ``name``: the schema file (scenarios, campaign sheets and campaigns each have one).
    """
    package = next(p for p in Path(__file__).resolve().parents if p.name == "hexlore")  # the package
    candidates = [package / "scenarios" / "schema" / name, package.parent / "scenarios" / "schema" / name]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    return candidates[-1]


@lru_cache(maxsize=4)
def cached_schema(name: str = "scenario.schema.json") -> str:
    """The schema's text, read once; each caller parses its own copy, which it may change."""
    return _schema_path(name).read_text(encoding="utf-8")


def _wanted(err: ValidationError) -> Any:
    """The value of the keyword ``err`` broke (``required``'s keys, ``enum``'s choices):
    jsonschema types it as possibly unset, which an error from a validation never is."""
    return err.validator_value


def _schema_of(err: ValidationError) -> Mapping[str, Any]:
    """The subschema ``err`` broke: jsonschema types it as possibly unset or a bool schema,
    which one that holds the failing keyword never is."""
    schema = err.schema
    return schema if isinstance(schema, Mapping) else {}


def bad_paths(errors: list[ValidationError]) -> frozenset[JsonPath]:
    """Where schema errors sit, narrowed to the key at fault for missing and unknown keys."""
    bad: set[JsonPath] = set()
    for err in errors:
        path = tuple(err.absolute_path)
        if err.validator == "required" and isinstance(err.instance, dict):
            bad.update(path + (k,) for k in _wanted(err) if k not in err.instance)
        elif err.validator == "additionalProperties" and isinstance(err.instance, dict):
            allowed = _schema_of(err).get("properties", {})
            bad.update(path + (k,) for k in err.instance if k not in allowed)
        else:
            bad.add(path)
    return frozenset(bad)


# ---------------------------------------------------------------------------
# Schema errors -> human diagnostics
# ---------------------------------------------------------------------------

_TYPE_WORDS = {
    "integer": "an integer", "number": "a number", "string": "a string",
    "boolean": "true or false", "array": "a list", "object": "a mapping", "null": "null",
}


def _describe(value: Any) -> str:
    """How a YAML value reads to its author ("the string 'three'", "a list")."""
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"the boolean {'true' if value else 'false'}"
    if isinstance(value, int):
        return f"the integer {value}"
    if isinstance(value, float):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return f"the {type(value).__name__} {value}"


def _join_or(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def _expected(schema: Any, root: dict, depth: int = 0) -> list[str]:
    """Plain-language list of what a (sub)schema accepts, for anyOf/type messages."""
    if not isinstance(schema, dict) or depth > 5:
        return []
    if "$ref" in schema and schema["$ref"].startswith("#/$defs/"):
        return _expected(root["$defs"].get(schema["$ref"][8:], {}), root, depth + 1)
    if "anyOf" in schema or "oneOf" in schema:
        out: list[str] = []
        for sub in schema.get("anyOf", schema.get("oneOf")) or ():
            out += [w for w in _expected(sub, root, depth + 1) if w not in out]
        return out
    if "enum" in schema:
        return [", ".join(json.dumps(v) for v in schema["enum"])]
    types = schema.get("type")
    if isinstance(types, str):
        types = [types]
    words = [_TYPE_WORDS.get(t, t) for t in types or []]
    if types == ["array"] and isinstance(schema.get("items"), dict):
        inner = _expected(schema["items"], root, depth + 1)
        if inner:
            words = ["a list of " + _join_or(inner).replace("a ", "", 1).replace("an ", "", 1) + "s"]
    return words


def _type_hint(value: Any, expected: list[str]) -> str | None:
    if isinstance(value, bool) and "a string" in expected:
        return "YAML reads unquoted yes/no/on/off/true/false as booleans; put the value in quotes"
    if isinstance(value, str) and value.strip().lstrip("-").isdigit() and "an integer" in expected:
        return "remove the quotes so YAML reads it as a number"
    if value is None:
        return "the key has no value; write one after the colon"
    return None


def _at_parent(path: JsonPath, data: Any) -> Any:
    for step in path:
        try:
            data = data[step]
        except (KeyError, IndexError, TypeError):
            return None
    return data


class SchemaReporter:
    """Rewrites jsonschema's errors for the author of the file: in plain words, at the node or
    key at fault, with a hint where a usual mistake explains the error (``what``: the kind of
    file, as the messages name it)."""

    def __init__(self, file: str, idx: SpanIndexer, data: Any, root: dict, what: str = "scenario"):
        self.file, self.idx, self.data, self.root, self.what = file, idx, data, root, what

    def span(self, path: JsonPath) -> Span:
        return nearest_span(self.idx.spans, path)

    def key_span(self, path: JsonPath) -> Span:
        return self.idx.key_spans.get(path) or self.span(path)

    def report(self, err: ValidationError) -> list[Diagnostic]:
        path = tuple(err.absolute_path)
        kind, want, value = err.validator, _wanted(err), err.instance
        where = self.span(path)
        hint: str | None = None
        if kind == "additionalProperties" and isinstance(value, dict):
            allowed = list(_schema_of(err).get("properties", {}))
            out = []
            for key in value:
                if key in allowed:
                    continue
                guess = did_you_mean(str(key), allowed)
                hint = f"did you mean {guess!r}?" if guess else (
                    "allowed keys here: " + ", ".join(allowed) if allowed else None)
                out.append(error(codes.SCHEMA_VIOLATION, f"unknown key {key!r}", self.file,
                                 self.key_span(path + (key,)), hint))
            return out
        if kind == "required":
            missing = [k for k in want if isinstance(value, dict) and k not in value]
            return [error(codes.SCHEMA_VIOLATION, f"missing required key {k!r}", self.file, where,
                          self._required_hint(path, k)) for k in missing]
        if kind == "not" and isinstance(want, dict) and len(want.get("required", [])) == 1:
            key = want["required"][0]
            shape = value.get("shape") if isinstance(value, dict) else None
            what = f"a {shape!r} board" if shape else "this mapping"
            return [error(codes.SCHEMA_VIOLATION, f"key {key!r} is not used by {what}", self.file,
                          self.key_span(path + (key,)), f"remove {key!r}")]
        if kind == "type":
            expected = _expected({"type": want}, self.root)
            message = f"expected {_join_or(expected)} here, got {_describe(value)}"
            hint = _type_hint(value, expected)
        elif kind in ("anyOf", "oneOf"):
            expected = _expected(err.schema, self.root)
            message = f"expected {_join_or(expected) if expected else 'a different value'} here, got {_describe(value)}"
            hint = _type_hint(value, expected)
        elif kind == "enum":
            choices = ", ".join(json.dumps(v) for v in want)
            message = f"expected one of {choices}; got {_describe(value)}"
            guess = did_you_mean(str(value), [str(v) for v in want])
            hint = f"did you mean {guess!r}?" if guess else None
        elif kind == "const":
            message = f"expected {json.dumps(want)} here, got {_describe(value)}"
            if len(path) == 1 and str(path[0]).startswith("hexlore"):  # the format key
                hint = f"this version of hexlore reads {self.what} format 1"
        elif kind == "minItems":
            count = len(value) if isinstance(value, list) else 0
            noun = "item" if want == 1 else "items"
            message = f"expected at least {want} {noun} here, got {count}"
            if path == ("sides",):
                hint = "a game needs at least two sides"
        elif kind == "minimum":
            message = f"expected a number >= {want}, got {_describe(value)}"
        elif kind == "minLength":
            message = "this must not be empty"
        elif kind == "pattern":
            message = f"{value!r} is not a valid name"
            hint = "use letters, digits and underscores, not starting with a digit"
        else:
            message = err.message
        return [error(codes.SCHEMA_VIOLATION, message, self.file, where, hint)]

    def _required_hint(self, path: JsonPath, key: str) -> str | None:
        parent = _at_parent(path, self.data)
        if path == ("board",) and isinstance(parent, dict):
            return f"a {parent.get('shape')!r} board needs {key!r}"
        if isinstance(parent, dict):
            for other in parent:
                if did_you_mean(str(other), [key]) == key:
                    return f"is {other!r} a misspelling of {key!r}?"
        return None


def sorted_diagnostics(diags: list[Diagnostic]) -> list[Diagnostic]:
    """Each diagnostic once, by file, line and column: the order in which an author reads them."""
    unique = list(dict.fromkeys(diags))  # one jsonschema error can surface twice via allOf
    return sorted(unique, key=Diagnostic.sort_key)
