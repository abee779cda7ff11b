"""Load scenario YAML files into :class:`Scenario` objects, with located diagnostics.

A scenario is checked in three passes, each reporting every problem it finds rather
than stopping at the first, so an author fixes a file in one round trip:

1. YAML syntax (``S001``/``S002``), from ``yaml.compose`` so we keep line/column marks.
2. Structure, against ``scenarios/schema/scenario.schema.json`` (``S003``). jsonschema's
   messages are rewritten into plain language and pinned to the offending YAML node.
3. Meaning that needs no rules pack: hex labels (``S004``), duplicate names (``S005``),
   stacked units (``S006``), unknown sides (``S007``), unknown names in tests
   (``S008``), a hex given two terrains (``S009``).

Checks that need the compiled packs (does unit type ``giant_spider`` exist?) belong to
the runner, which can use :meth:`Scenario.span_of` to locate its own diagnostics.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from hexlore.dsl.diagnostics import Diagnostic, Source, Span, did_you_mean, error
from hexlore.runtime.grid import Board, Hex

__all__ = [
    "Action",
    "Scenario",
    "ScenarioTest",
    "SideSpec",
    "UnitPlacement",
    "load_scenario",
    "load_scenario_text",
    "scenario_schema",
]

JsonPath = tuple[Any, ...]


@dataclass(frozen=True)
class UnitPlacement:
    """A unit as the scenario places it; ``span`` covers its YAML mapping."""

    id: str
    type: str
    side: str
    hex: Hex
    fields: dict
    span: Span


@dataclass(frozen=True)
class SideSpec:
    """One side; ``edge`` is its own (home) edge, ``policy`` how it plays unscripted."""

    name: str
    edge: str
    policy: str
    fields: dict
    span: Span


@dataclass(frozen=True)
class Action:
    """One procedure call in a test's ``do`` list."""

    call: str
    args: dict
    span: Span


@dataclass(frozen=True)
class ScenarioTest:
    """A scripted rules test.

    ``given`` maps unit id -> overrides, and ``expect["units"][id]["hex"]`` is
    converted to a :class:`Hex` (``None`` stays ``None``); labels are case-insensitive,
    so comparing parsed hexes rather than strings avoids "f7" != "F7" surprises.
    """

    name: str
    given: dict
    actions: tuple[Action, ...]
    dice: tuple[tuple, ...]
    decisions: dict
    expect: dict
    span: Span


@dataclass
class Scenario:
    """A loaded, structurally valid scenario; pack-dependent checks happen later."""

    path: str
    name: str
    description: str
    packs: list[str]
    seed: int
    board: Board
    terrain: dict[Hex, str]
    sides: list[SideSpec]
    units: list[UnitPlacement]
    options: dict
    decks: dict
    max_rounds: int | None
    decisions: dict
    tests: list[ScenarioTest]
    source: Source
    spans: dict[JsonPath, Span] = field(default_factory=dict, repr=False)
    key_spans: dict[JsonPath, Span] = field(default_factory=dict, repr=False)

    def span_of(self, *path: Any) -> Span:
        """Span of the YAML node at ``path`` (e.g. ``("units", 0, "hex")``).

        Falls back to the nearest existing parent so later stages (the runner, the
        pack checker) can always point somewhere sensible, even at keys that are absent.
        """
        return _lookup(self.spans, tuple(path))


# ---------------------------------------------------------------------------
# Schema
# ---------------------------------------------------------------------------


def _schema_path() -> Path:
    """The installed wheel ships scenarios as ``hexlore.scenarios``; a checkout has them at the root."""
    import hexlore

    candidates: list[Path] = []
    pkg_file = getattr(hexlore, "__file__", None)
    if pkg_file:
        candidates.append(Path(pkg_file).parent / "scenarios" / "schema" / "scenario.schema.json")
    # Namespace package (no __init__.py): look at each of its directories.
    for entry in getattr(hexlore, "__path__", []):
        candidates.append(Path(entry) / "scenarios" / "schema" / "scenario.schema.json")
    candidates.append(Path(__file__).resolve().parents[2] / "scenarios" / "schema" / "scenario.schema.json")
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    return candidates[-1]


@lru_cache(maxsize=1)
def _cached_schema() -> str:
    return _schema_path().read_text(encoding="utf-8")


def scenario_schema() -> dict:
    """The scenario JSON Schema (a fresh copy, so callers cannot corrupt the cache)."""
    return json.loads(_cached_schema())


@lru_cache(maxsize=1)
def _validator() -> Draft202012Validator:
    return Draft202012Validator(scenario_schema())


# ---------------------------------------------------------------------------
# YAML nodes -> spans
# ---------------------------------------------------------------------------

_SYNTAX_HINT = "check indentation and quoting near this line"


def _node_span(node: yaml.Node) -> Span:
    start, end = node.start_mark, node.end_mark
    return Span(start.line + 1, start.column + 1, end.line + 1, end.column + 1)


def _lookup(spans: dict[JsonPath, Span], path: JsonPath) -> Span:
    while path and path not in spans:
        path = path[:-1]
    return spans.get(path, Span())


class _SpanIndexer:
    """Walks a composed YAML tree recording the span of every node by JSON path.

    Keys are constructed with PyYAML's safe constructor so the paths use the same
    Python values ``yaml.safe_load`` produces (``1:`` is the int 1, ``no:`` is False),
    which is what jsonschema reports in ``error.absolute_path``.
    """

    def __init__(self, file: str):
        self.file = file
        self.spans: dict[JsonPath, Span] = {}
        self.key_spans: dict[JsonPath, Span] = {}
        self.diagnostics: list[Diagnostic] = []
        self._constructor = yaml.constructor.SafeConstructor()
        self._active: set[int] = set()

    def walk(self, node: yaml.Node, path: JsonPath = ()) -> None:
        self.spans.setdefault(path, _node_span(node))
        if id(node) in self._active:  # recursive alias: stop rather than loop forever
            return
        self._active.add(id(node))
        try:
            if isinstance(node, yaml.MappingNode):
                seen: dict[Any, Span] = {}
                for key_node, value_node in node.value:
                    key = self._key(key_node)
                    key_span = _node_span(key_node)
                    if key in seen and key != "<<":
                        # PyYAML keeps the last value silently; that hides real mistakes.
                        self.diagnostics.append(error(
                            "S001", f"duplicate key {key!r}", self.file, key_span,
                            f"the first {key!r} is on line {seen[key].line}; the later one "
                            "would silently replace it"))
                    seen[key] = key_span
                    self.key_spans.setdefault(path + (key,), key_span)
                    self.walk(value_node, path + (key,))
            elif isinstance(node, yaml.SequenceNode):
                for i, item in enumerate(node.value):
                    self.walk(item, path + (i,))
        finally:
            self._active.discard(id(node))

    def _key(self, node: yaml.Node) -> Any:
        if isinstance(node, yaml.ScalarNode):
            try:
                return self._constructor.construct_object(node, deep=True)
            except yaml.YAMLError:
                return node.value
        return repr(node)  # complex keys are invalid anyway; keep walking


def _syntax_error(exc: yaml.YAMLError, file: str) -> Diagnostic:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    span = Span.at(mark.line + 1, mark.column + 1) if mark is not None else Span()
    problem = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context", None)
    message = f"YAML syntax error: {problem}" + (f" ({context})" if context else "")
    return error("S001", message, file, span, _SYNTAX_HINT)


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
        for sub in schema.get("anyOf", schema.get("oneOf")):
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


class _SchemaReporter:
    def __init__(self, file: str, idx: _SpanIndexer, data: Any, root: dict):
        self.file, self.idx, self.data, self.root = file, idx, data, root

    def span(self, path: JsonPath) -> Span:
        return _lookup(self.idx.spans, path)

    def key_span(self, path: JsonPath) -> Span:
        return self.idx.key_spans.get(path) or self.span(path)

    def report(self, err: ValidationError) -> list[Diagnostic]:
        path = tuple(err.absolute_path)
        kind, want, value = err.validator, err.validator_value, err.instance
        where = self.span(path)
        hint: str | None = None
        if kind == "additionalProperties" and isinstance(value, dict):
            allowed = list(err.schema.get("properties", {}))
            out = []
            for key in value:
                if key in allowed:
                    continue
                guess = did_you_mean(str(key), allowed)
                hint = f"did you mean {guess!r}?" if guess else (
                    "allowed keys here: " + ", ".join(allowed) if allowed else None)
                out.append(error("S003", f"unknown key {key!r}", self.file,
                                 self.key_span(path + (key,)), hint))
            return out
        if kind == "required":
            missing = [k for k in want if isinstance(value, dict) and k not in value]
            return [error("S003", f"missing required key {k!r}", self.file, where,
                          self._required_hint(path, k)) for k in missing]
        if kind == "not" and isinstance(want, dict) and len(want.get("required", [])) == 1:
            key = want["required"][0]
            shape = value.get("shape") if isinstance(value, dict) else None
            what = f"a {shape!r} board" if shape else "this mapping"
            return [error("S003", f"key {key!r} is not used by {what}", self.file,
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
            if path == ("hexlore",):
                hint = "this version of hexlore reads scenario format 1"
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
        return [error("S003", message, self.file, where, hint)]

    def _required_hint(self, path: JsonPath, key: str) -> str | None:
        parent = _at_parent(path, self.data)
        if path == ("board",) and isinstance(parent, dict):
            return f"a {parent.get('shape')!r} board needs {key!r}"
        if isinstance(parent, dict):
            for other in parent:
                if did_you_mean(str(other), [key]) == key:
                    return f"is {other!r} a misspelling of {key!r}?"
        return None


# ---------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------


def load_scenario(path: str | Path) -> tuple[Scenario | None, list[Diagnostic]]:
    """Read and check a scenario file; never raises on bad input."""
    shown = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return None, [error("S000", f"cannot read scenario: {exc}", shown, Span())]
    return load_scenario_text(text, shown)


def load_scenario_text(text: str, path: str = "<string>") -> tuple[Scenario | None, list[Diagnostic]]:
    """Check scenario text; the scenario is ``None`` whenever any error was found."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        return None, [_syntax_error(exc, path)]
    if root is None:
        return None, [error("S002", "the scenario file is empty", path, Span(),
                            "a scenario is a mapping starting with 'hexlore: 1'")]
    if not isinstance(root, yaml.MappingNode) or not isinstance(data, dict):
        return None, [error("S002", "a scenario must be a mapping of keys to values",
                            path, _node_span(root), "start the file with 'hexlore: 1'")]

    idx = _SpanIndexer(path)
    idx.walk(root)
    diags = list(idx.diagnostics)

    schema = scenario_schema()
    reporter = _SchemaReporter(path, idx, data, schema)
    for err in _validator().iter_errors(data):
        diags += reporter.report(err)
    if any(d.is_error for d in diags):
        return None, _sorted(diags)

    builder = _Builder(path, data, idx)
    scenario = builder.build(Source(path, text))
    diags += builder.diagnostics
    if any(d.is_error for d in diags):
        return None, _sorted(diags)
    return scenario, _sorted(diags)


def _sorted(diags: list[Diagnostic]) -> list[Diagnostic]:
    unique = list(dict.fromkeys(diags))  # one jsonschema error can surface twice via allOf
    return sorted(unique, key=Diagnostic.sort_key)


class _Builder:
    """Turns schema-valid data into a :class:`Scenario`, collecting semantic errors."""

    def __init__(self, file: str, data: dict, idx: _SpanIndexer):
        self.file, self.data, self.idx = file, data, idx
        self.diagnostics: list[Diagnostic] = []

    def span(self, *path: Any) -> Span:
        return _lookup(self.idx.spans, path)

    def fail(self, code: str, message: str, path: JsonPath, hint: str | None = None,
             key: bool = False) -> None:
        span = self.idx.key_spans.get(path) if key else None
        self.diagnostics.append(error(code, message, self.file, span or self.span(*path), hint))

    def hex(self, board: Board, label: str, path: JsonPath) -> Hex | None:
        try:
            return board.parse_label(label)
        except ValueError as exc:
            hint = ("hexagon boards use axial 'q,r' labels, e.g. '0,0'" if board.parity is None
                    else "labels are a column letter then a row number, e.g. 'F5'")
            self.fail("S004", str(exc), path, hint)
            return None

    def board(self) -> Board:
        spec = self.data["board"]
        try:
            if spec["shape"] == "rectangle":
                return Board.rectangle(spec["width"], spec["height"], spec.get("parity", "odd"))
            if spec["shape"] == "hexagon":
                return Board.hexagon(spec["radius"])
            if spec["shape"] == "mask":
                board = Board.from_mask(spec["rows"], spec.get("parity", "odd"))
                if len(board):
                    return board
                self.fail("S004", "the mask has no hex", ("board", "rows"),
                          "draw each hex with a character other than a space or '-', e.g. 'x'")
        except ValueError as exc:  # the schema should prevent this; report, don't crash
            self.fail("S004", str(exc), ("board",))
        return Board.battlelore()

    def build(self, source: Source) -> Scenario:
        d = self.data
        board = self.board()

        terrain: dict[Hex, str] = {}
        for name, labels in (d["board"].get("terrain") or {}).items():
            for i, label in enumerate(labels):
                h = self.hex(board, label, ("board", "terrain", name, i))
                if h is None:
                    continue
                if h in terrain and terrain[h] != name:
                    self.fail("S009", f"hex {label} is both {terrain[h]!r} and {name!r}",
                              ("board", "terrain", name, i), "a hex has one terrain; remove one")
                terrain[h] = name

        sides: list[SideSpec] = []
        side_names: set[str] = set()
        for i, s in enumerate(d["sides"]):
            if s["name"] in side_names:
                self.fail("S005", f"duplicate side name {s['name']!r}", ("sides", i, "name"))
            side_names.add(s["name"])
            sides.append(SideSpec(s["name"], s["edge"], s.get("policy", "random"),
                                  dict(s.get("fields") or {}), self.span("sides", i)))

        units: list[UnitPlacement] = []
        unit_ids: set[str] = set()
        occupied: dict[Hex, str] = {}
        for i, u in enumerate(d["units"]):
            if u["id"] in unit_ids:
                self.fail("S005", f"duplicate unit id {u['id']!r}", ("units", i, "id"),
                          "unit ids must be unique; rename one")
            unit_ids.add(u["id"])
            if u["side"] not in side_names:
                guess = did_you_mean(u["side"], side_names)
                self.fail("S007", f"unit {u['id']!r} belongs to unknown side {u['side']!r}",
                          ("units", i, "side"),
                          f"did you mean {guess!r}?" if guess else
                          "sides are: " + ", ".join(sorted(side_names)))
            h = self.hex(board, u["hex"], ("units", i, "hex"))
            if h is None:
                continue
            if h in occupied:
                self.fail("S006", f"units {occupied[h]!r} and {u['id']!r} are both on {u['hex']}",
                          ("units", i, "hex"), "a hex holds at most one unit")
            else:
                occupied[h] = u["id"]
            units.append(UnitPlacement(u["id"], u["type"], u["side"], h,
                                       dict(u.get("fields") or {}), self.span("units", i)))

        tests = [self.test(board, t, i, unit_ids, side_names) for i, t in enumerate(d.get("tests") or [])]

        return Scenario(
            path=self.file, name=d["name"], description=d.get("description", ""),
            packs=list(d["packs"]), seed=d.get("seed", 0), board=board, terrain=terrain,
            sides=sides, units=units, options=dict(d.get("options") or {}),
            decks={k: dict(v) for k, v in (d.get("decks") or {}).items()},
            max_rounds=d.get("max_rounds"),
            decisions={k: list(v) for k, v in (d.get("decisions") or {}).items()},
            tests=tests, source=source, spans=dict(self.idx.spans),
            key_spans=dict(self.idx.key_spans),
        )

    def unknown(self, kind: str, name: str, known: set[str], path: JsonPath) -> None:
        guess = did_you_mean(name, known)
        hint = f"did you mean {guess!r}?" if guess else (
            f"known {kind}s: " + ", ".join(sorted(known)) if known else None)
        self.fail("S008", f"unknown {kind} {name!r}", path, hint, key=True)

    def test(self, board: Board, t: dict, i: int, unit_ids: set[str],
             side_names: set[str]) -> ScenarioTest:
        base = ("tests", i)
        given: dict = {}
        for uid, overrides in (t.get("given") or {}).items():
            if uid not in unit_ids:
                self.unknown("unit id", uid, unit_ids, base + ("given", uid))
            given[uid] = dict(overrides)
            if "hex" in overrides:
                given[uid]["hex"] = self.hex(board, overrides["hex"], base + ("given", uid, "hex"))

        expect = dict(t["expect"])
        if "units" in expect:
            expect["units"] = {}
            for uid, fields in t["expect"]["units"].items():
                if uid not in unit_ids:
                    self.unknown("unit id", uid, unit_ids, base + ("expect", "units", uid))
                fields = dict(fields)
                if isinstance(fields.get("hex"), str):
                    fields["hex"] = self.hex(board, fields["hex"], base + ("expect", "units", uid, "hex"))
                expect["units"][uid] = fields
        for side in (expect.get("sides") or {}):
            if side not in side_names:
                self.unknown("side", side, side_names, base + ("expect", "sides", side))
        winner = expect.get("winner")
        if winner is not None and winner not in side_names:
            guess = did_you_mean(winner, side_names)
            self.fail("S008", f"expected winner {winner!r} is not a side",
                      base + ("expect", "winner"), f"did you mean {guess!r}?" if guess else None)

        actions = tuple(Action(a["call"], dict(a.get("with") or {}), self.span(*base, "do", j))
                        for j, a in enumerate(t["do"]))
        return ScenarioTest(
            name=t["name"], given=given, actions=actions,
            dice=tuple(tuple(roll) for roll in t.get("dice") or []),
            decisions={k: list(v) for k, v in (t.get("decisions") or {}).items()},
            expect=expect, span=self.span(*base),
        )
