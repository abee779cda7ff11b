"""Campaign files and sheet files: loading with located diagnostics, writing atomically.

A **sheet** (``hexlore_sheet: 1``) lists the units a campaign keeps from one game to the next,
with the values of their campaign fields, and the adventures played so far. A **campaign**
(``hexlore_campaign: 1``) names a sheet and the scenarios (adventures) to play in order, and
which sheet unit fights for which side in each. Formats: ``scenarios/schema/sheet.schema.json``,
``scenarios/schema/campaign.schema.json`` and docs/campaigns.md.

Both are checked like scenarios, every problem at its YAML line and column: syntax (``S001``),
shape (``S002``), schema (``S003``) and, for a sheet, unit ids given twice (``S005``). Checks
that need the packs are in :mod:`hexlore.campaign`.

A sheet is rewritten after every adventure, through :func:`hexlore.dsl.output_files.write_atomically`
(re-exported here): the new text goes to a temporary file beside the sheet's target (a sheet that
is a link stays a link), is flushed and synced to disk, then replaces the sheet in one
``os.replace``; a crash, a kill or a full disk at any moment leaves either the old sheet or the
new one, never a mixture or a truncated file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from hexlore.dsl.limits import MAX_INT
from hexlore.dsl.output_files import write_atomically
from hexlore.diagnostics import Diagnostic, Source, Span, codes, error
from hexlore.runtime.scenarios.located_yaml import (JsonPath, SchemaReporter, SpanIndexer, bad_paths,
                           cached_schema, compose, construct, nearest_span, node_span, read_input, sorted_diagnostics,
                           syntax_error)
from hexlore.runtime.scenarios.quick_schema import QuickCheck, quick_check

if TYPE_CHECKING:  # jsonschema is imported when a file fails the quick check (quick_schema.py)
    from jsonschema import Draft202012Validator


__all__ = ["Adventure", "Campaign", "Sheet", "SheetUnit", "dump_sheet", "file_kind", "load_campaign",
           "load_sheet", "load_sheet_text", "load_campaign_text", "next_revision", "write_atomically"]

SHEET_KEY = "hexlore_sheet"
CAMPAIGN_KEY = "hexlore_campaign"


@dataclass
class _Located:
    """A loaded YAML file that can point at its own nodes (what diagnostics need)."""

    path: str
    source: Source
    spans: dict[JsonPath, Span] = field(default_factory=dict, repr=False)
    key_spans: dict[JsonPath, Span] = field(default_factory=dict, repr=False)

    def span_of(self, *path: Any) -> Span:
        """Span of the YAML node at ``path``, else of its nearest existing parent."""
        return nearest_span(self.spans, tuple(path))

    def key_span_of(self, *path: Any) -> Span:
        """Span of the key that names the node at ``path`` (for names that are keys)."""
        return self.key_spans.get(tuple(path)) or self.span_of(*path)


@dataclass(frozen=True)
class SheetUnit:
    """One campaign unit: ``fields`` are the values as written (YAML scalars and lists)."""

    id: str
    type: str
    fields: dict
    index: int


@dataclass
class Sheet(_Located):
    units: list[SheetUnit] = field(default_factory=list)
    history: list[dict] = field(default_factory=list)
    revision: int = 0  # saves so far; a writer whose sheet changed since it read it refuses

    def unit(self, unit_id: str) -> SheetUnit | None:
        return next((u for u in self.units if u.id == unit_id), None)

    def played(self, names: dict[int, str]) -> set[int]:
        """Numbers of the adventures the history records.

        ``names``: adventure number -> name, for entries written without a ``number``
        (by hand): those count for every adventure of that name.
        """
        numbers = {h["number"] for h in self.history if isinstance(h.get("number"), int)}
        unnumbered = {h.get("adventure") for h in self.history if not isinstance(h.get("number"), int)}
        return numbers | {n for n, name in names.items() if name in unnumbered}


@dataclass(frozen=True)
class Adventure:
    """One adventure of a campaign; ``index`` is its position in ``adventures:`` (from 0)."""

    scenario: str
    units: dict[str, str]
    seed: int | None
    name: str | None
    index: int

    @property
    def number(self) -> int:
        return self.index + 1


@dataclass
class Campaign(_Located):
    name: str = ""
    description: str = ""
    sheet: str = ""
    adventures: list[Adventure] = field(default_factory=list)

    def sheet_path(self) -> Path:
        """The sheet, relative to the campaign file."""
        return Path(self.path).parent / self.sheet


# ---------------------------------------------------------------------------
# Which kind of YAML file
# ---------------------------------------------------------------------------


def file_kind(text: str) -> str:
    """``"sheet"``, ``"campaign"`` or ``"scenario"``, from the file's top-level format key.

    Cheap on purpose (``hexlore check`` asks it of every YAML file it is given): the key must
    be a top-level key of a block mapping, or the first key of a flow mapping.
    """
    for line in text.splitlines():
        stripped = line.lstrip("{ \t")
        for key, kind in ((SHEET_KEY, "sheet"), (CAMPAIGN_KEY, "campaign")):
            if (line.startswith(key) or (line.startswith("{") and stripped.startswith(key))) \
                    and stripped[len(key):].lstrip().startswith(":"):
                return kind
    return "scenario"


# ---------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------


@lru_cache(maxsize=2)
def _validator(name: str) -> Draft202012Validator:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(json.loads(cached_schema(name)))


@lru_cache(maxsize=2)
def _quick(name: str) -> QuickCheck | None:
    return quick_check(json.loads(cached_schema(name)))


def _read(path: str | Path, what: str) -> tuple[str | None, list[Diagnostic]]:
    return read_input(path, what)  # confined to the project (hexlore/dsl/confine.py)


def _parse(text: str, path: str, what: str, key: str, schema: str):
    """(data, index, diagnostics, bad paths) — data is None when the file is unusable."""
    try:
        root = compose(text)
    except yaml.YAMLError as exc:
        return None, None, [syntax_error(exc, path)], frozenset()
    if not isinstance(root, yaml.MappingNode):
        span = node_span(root) if root is not None else Span()
        return None, None, [error(codes.NOT_A_SCENARIO, f"a {what} must be a mapping of keys to values", path, span,
                                  f"start the file with '{key}: 1'")], frozenset()
    idx = SpanIndexer(path, text)
    idx.walk(root)
    try:
        data = construct(root)
    except yaml.YAMLError as exc:
        return None, None, [syntax_error(exc, path)], frozenset()
    diags = list(idx.diagnostics)
    reporter = SchemaReporter(path, idx, data, json.loads(cached_schema(schema)), what)
    quick = _quick(schema)
    errors = [] if quick is not None and quick(data) else list(_validator(schema).iter_errors(data))
    for err in errors:
        diags += reporter.report(err)
    return data, idx, diags, bad_paths(errors) | idx.refused


def _clean(bad: frozenset, *path: Any) -> bool:
    """No schema error at, inside or above ``path``."""
    n = len(path)
    return not any(b[:n] == path or path[:len(b)] == b for b in bad)


def load_sheet(path: str | Path, partial: bool = False) -> tuple[Sheet | None, list[Diagnostic]]:
    """Read and check a sheet file; never raises on bad input."""
    text, diags = _read(path, "sheet")
    return (None, diags) if text is None else load_sheet_text(text, str(path), partial)


def load_sheet_text(text: str, path: str = "<string>", partial: bool = False) -> tuple[Sheet | None, list[Diagnostic]]:
    """A sheet and every problem found, in file order.

    The sheet is None if an error was found, unless ``partial``: then it holds the units
    without schema errors, so the checks against the packs can still run over them.
    """
    data, idx, diags, bad = _parse(text, path, "sheet", SHEET_KEY, "sheet.schema.json")
    if data is None:
        return None, diags
    sheet = Sheet(path, Source(path, text), dict(idx.spans), dict(idx.key_spans))
    seen: set[str] = set()
    raw = data.get("units")
    for i, u in enumerate(raw if isinstance(raw, list) else []):
        if not isinstance(u, dict) or not _clean(bad, "units", i):
            continue
        if u["id"] in seen:  # the first keeps the id; the others are left out
            diags.append(error(codes.DUPLICATE_NAME, f"duplicate unit id {u['id']!r}", path, sheet.span_of("units", i, "id"),
                               "unit ids must be unique; rename one"))
            continue
        seen.add(u["id"])
        sheet.units.append(SheetUnit(u["id"], u["type"], dict(u.get("fields") or {}), i))
    if _clean(bad, "history"):
        sheet.history = [dict(h) for h in data.get("history") or []]
        first: dict[int, int] = {}
        for i, h in enumerate(sheet.history):
            number = h.get("number")
            if isinstance(number, int) and number in first:
                diags.append(error(codes.PLAYED_TWICE, f"the history records adventure {number} twice (entries "
                                   f"{first[number] + 1} and {i + 1})", path, sheet.span_of("history", i),
                                   "two campaign runs wrote the same sheet? keep the entry of the run whose "
                                   "results the units show, and remove the other"))
            elif isinstance(number, int):
                first[number] = i
    if _clean(bad, "revision") and isinstance(data.get("revision"), int):
        sheet.revision = data["revision"]
    diags = sorted_diagnostics(diags)
    return (None if any(d.is_error for d in diags) and not partial else sheet), diags


def load_campaign(path: str | Path, partial: bool = False) -> tuple[Campaign | None, list[Diagnostic]]:
    """Read and check a campaign file; never raises on bad input."""
    text, diags = _read(path, "campaign")
    return (None, diags) if text is None else load_campaign_text(text, str(path), partial)


def load_campaign_text(text: str, path: str = "<string>",
                       partial: bool = False) -> tuple[Campaign | None, list[Diagnostic]]:
    """A campaign and every problem found, in file order.

    The campaign is None if an error was found, unless ``partial``: then it holds what the
    schema found sound (adventures with errors left out), so the rest can still be checked.
    """
    data, idx, diags, bad = _parse(text, path, "campaign", CAMPAIGN_KEY, "campaign.schema.json")
    if data is None:
        return None, diags
    diags = sorted_diagnostics(diags)
    if any(d.is_error for d in diags) and not partial:
        return None, diags

    def sound(key: str, default):
        value = data.get(key)
        return value if value is not None and _clean(bad, key) else default

    campaign = Campaign(path, Source(path, text), dict(idx.spans), dict(idx.key_spans), name=sound("name", ""),
                        description=sound("description", ""), sheet=sound("sheet", ""))
    raw = data.get("adventures")
    for i, a in enumerate(raw if isinstance(raw, list) else []):
        if isinstance(a, dict) and _clean(bad, "adventures", i, "scenario") \
                and _clean(bad, "adventures", i, "units") and not any(b == ("adventures", i) for b in bad):
            seed = a.get("seed") if _clean(bad, "adventures", i, "seed") else None
            name = a.get("name") if _clean(bad, "adventures", i, "name") else None
            campaign.adventures.append(Adventure(a["scenario"], dict(a.get("units") or {}), seed, name, i))
    return campaign, diags


# ---------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------


def next_revision(revision: int) -> int:
    """The revision a save writes after ``revision``.

    Revisions count saves so that a runner can tell its sheet changed on disk (``S018``); only
    inequality matters. Integers in files are bounded by ``MAX_INT`` (``S012``), so the save after
    ``MAX_INT`` writes 1 rather than a number every later load would refuse.
    """
    return revision + 1 if 0 <= revision < MAX_INT else 1


def dump_sheet(units: list[dict], history: list[dict], revision: int = 0) -> str:
    """The text of a sheet: always the same keys in the same order, so equal sheets are equal bytes.

    ``units``: ``{"id", "type", "fields"}`` mappings in sheet order; ``fields`` are written in
    name order. ``history``: ``{"number", "adventure", "seed", "winner"}`` mappings.
    """
    data = {
        SHEET_KEY: 1,
        "revision": revision,
        "units": [{"id": u["id"], "type": u["type"], "fields": {k: u["fields"][k] for k in sorted(u["fields"])}}
                  for u in units],
        "history": [{k: h[k] for k in ("number", "adventure", "seed", "winner") if k in h} for h in history],
    }
    return yaml.safe_dump(data, sort_keys=False, default_flow_style=None, allow_unicode=True, width=100)
