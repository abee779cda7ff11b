"""The registry of diagnostic codes: one entry per code, the one place a code is spelt.

Every module that reports a problem names its code here (``codes.UNDEFINED_NAME``), so a
code cannot be mistyped, given twice or left undocumented: ``tests/test_diagnostic_codes.py``
enumerates :data:`CODES` (each documented, used by some module, with a fixture where the
error tests demand one, at the severity the modules report it) and scans ``hexlore/`` for a
code spelt anywhere else. The headings and the index of ``docs/diagnostics.md`` are generated
from the entries (``python -m hexlore.diagnostic_docs --write``); the prose, examples and fixes
stay written by hand there, and SARIF output takes each code's title and link from here.

A :class:`Code` *is* its string (``"C014"``): a diagnostic's ``code``, its JSON and every
comparison stay plain text, while the entry also knows its severity, title and doc anchor.

To add a code: one line below in its family (the next free number), a section in
docs/diagnostics.md (``python -m hexlore.diagnostic_docs --write`` writes its heading), and a
fixture under ``tests/fixtures/errors/`` (see docs/architecture.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .model import Severity

ERROR, WARNING, NOTE = Severity.ERROR, Severity.WARNING, Severity.NOTE


@dataclass(frozen=True)
class Family:
    """The letter a code starts with: what kind of problem, and the docs section it is in."""

    letter: str
    #: what one problem of the family is, for SARIF tags ("Lore syntax error")
    kind: str
    #: the section of docs/diagnostics.md whose codes these are
    section: str


FAMILIES: dict[str, Family] = {f.letter: f for f in (
    Family("P", "Lore syntax error", "Syntax errors (P)"),
    Family("C", "Lore compile error", "Compile errors, warnings and notes (C, W, N)"),
    Family("W", "Lore compile warning", "Compile errors, warnings and notes (C, W, N)"),
    Family("N", "Lore compile note", "Compile errors, warnings and notes (C, W, N)"),
    Family("S", "scenario problem", "Scenario problems (S)"),
    Family("R", "rule failure at run time", "Rule failures at run time (R)"),
    Family("O", "odds or sweep problem", "Odds and sweeps (O)"),
)}

_CODE = re.compile(r"[PCWNSRO]\d{3}")


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a Markdown heading: lower case, punctuation dropped, spaces to '-'."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


class Code(str):
    """One diagnostic code: the string itself, with its severity, title and registry name.

    ``severity`` is what ``hexlore check`` reports (and SARIF's default level): a command may
    report a code more severely when it cannot go on (``S127``, a board too large to draw, is
    a warning for ``check`` and an error for ``render``), and a problem inside a scenario's
    ``tests:`` is a warning for commands that play without its tests.
    """

    severity: Severity
    #: the title of its section in the docs ("bad game"; not ``title``, which str has)
    summary: str
    #: the entry's name in this module (``"BAD_GAME"``), set when the registry is built
    name: str

    def __new__(cls, code: str, severity: Severity, summary: str) -> "Code":
        if not _CODE.fullmatch(code):
            raise ValueError(f"{code!r} is not a diagnostic code (a letter of {''.join(FAMILIES)} and 3 digits)")
        self = super().__new__(cls, code)
        self.severity, self.summary, self.name = severity, summary, ""
        return self

    @property
    def code(self) -> str:
        return str(self)

    @property
    def family(self) -> Family:
        return FAMILIES[self[0]]

    @property
    def heading(self) -> str:
        """The text of its ``###`` heading in docs/diagnostics.md."""
        return f"{self} — {self.summary}"

    @property
    def anchor(self) -> str:
        """Its section's anchor in docs/diagnostics.md (``c014--bad-game``)."""
        return github_anchor(self.heading)

    def __reduce__(self):  # pickled (to a sweep's workers) as the registry's own entry
        return (lookup, (str(self),))

# P: Lore syntax errors, found by the parser (hexlore/dsl/)

UNEXPECTED_TOKEN = Code("P001", ERROR, "unexpected token")
UNEXPECTED_CHARACTER = Code("P002", ERROR, "unexpected character")
UNCLOSED_BRACE = Code("P003", ERROR, "a `{` is never closed")
UNKNOWN_KEYWORD = Code("P004", ERROR, "unknown keyword")
UNEXPECTED_END = Code("P005", ERROR, "unexpected end of file")
UNMATCHED_BRACE = Code("P006", ERROR, "a `}` closes nothing")
UNCLOSED_BRACKET = Code("P007", ERROR, "a `(` or `[` is never closed")
UNCLOSED_STRING = Code("P008", ERROR, "a string is never closed")
TOO_DEEP = Code("P009", ERROR, "nested too deeply")
TOKEN_TOO_LONG = Code("P010", ERROR, "a name or string too long")
INTEGER_TOO_LARGE = Code("P011", ERROR, "a number too large")
FACE_RANGE_TOO_LARGE = Code("P012", ERROR, "a face range too large")
RECOVERY_STOPPED = Code("P013", NOTE, "syntax-error recovery stopped")
CANNOT_READ_PACK = Code("P020", ERROR, "cannot read a pack file")

# C: Lore compile errors (hexlore/compiler/; C023 also where a path is read)

PACK_NOT_FOUND = Code("C001", ERROR, "no such pack")
DECLARED_TWICE = Code("C002", ERROR, "declared twice")
UNDEFINED_NAME = Code("C003", ERROR, "undefined name")
TYPE_MISMATCH = Code("C004", ERROR, "type mismatch")
UNKNOWN_FIELD = Code("C005", ERROR, "unknown field")
BAD_CALL = Code("C006", ERROR, "bad call")
IMPURE = Code("C007", ERROR, "effect in a pure place")
BAD_ASSIGN = Code("C008", ERROR, "bad assignment")
NOT_VISIBLE = Code("C009", ERROR, "name from a pack not used")
USE_CYCLE = Code("C010", ERROR, "packs use each other")
PACK_NAME_MISMATCH = Code("C011", ERROR, "pack name does not match its file")
BAD_OVERRIDE = Code("C012", ERROR, "override mismatch")
MISSING_FIELD = Code("C013", ERROR, "field not set")
BAD_GAME = Code("C014", ERROR, "bad game")
RECURSION = Code("C015", ERROR, "recursion")
ENDLESS_CYCLE = Code("C016", ERROR, "endless event cycle")
NO_SUBJECT = Code("C017", ERROR, "no such subject here")
CAMPAIGN_KIND = Code("C018", ERROR, "campaign fields of a kind other than unit")
PACK_OUTSIDE_ROOTS = Code("C019", ERROR, "a pack that leads outside the rules roots")
AMBIGUOUS = Code("C020", ERROR, "ambiguous name")
NOT_IN_ORIGINAL = Code("C021", ERROR, "override names a field the original lacks")
HOOK_SIGNATURE = Code("C022", ERROR, "a runtime hook with the wrong signature")
PATH_OUTSIDE_ROOT = Code("C023", ERROR, "a path that leads outside the project root")
STRING_NOT_UTF8 = Code("C024", ERROR, "a string that cannot be written as UTF-8")
STRING_CONTROL = Code("C025", ERROR, "a control or bidirectional character in a string")

# W: Lore compile warnings (hexlore/compiler/, and W005 in the language server)

NEVER_FIRES = Code("W001", WARNING, "trigger can never fire")
EVENT_CYCLE = Code("W002", WARNING, "event cycle not shown to end")
UNHEARD_EVENT = Code("W003", WARNING, "event nobody listens to")
UNUSED = Code("W004", WARNING, "unused declaration")
CUT_SHORT = Code("W005", WARNING, "an analysis was cut short")

# N: Lore compile notes

OVERRIDDEN = Code("N001", NOTE, "override")

# S: scenario, campaign, sheet, look and output problems (hexlore/runtime/scenarios/, hexlore/loading.py, ...)

CANNOT_READ = Code("S000", ERROR, "cannot read the file")
YAML_SYNTAX = Code("S001", ERROR, "YAML syntax error or duplicate key")
NOT_A_SCENARIO = Code("S002", ERROR, "not a scenario")
SCHEMA_VIOLATION = Code("S003", ERROR, "not what the scenario schema allows")
HEX_NOT_ON_BOARD = Code("S004", ERROR, "hex not on the board")
DUPLICATE_NAME = Code("S005", ERROR, "duplicate name")
STACKED = Code("S006", ERROR, "two units on one hex")
UNKNOWN_SIDE = Code("S007", ERROR, "unit of an unknown side")
UNKNOWN_IN_TEST = Code("S008", ERROR, "unknown unit or side")
TWO_TERRAINS = Code("S009", ERROR, "a hex with two terrains")
NO_OWN_EDGE = Code("S010", ERROR, "a side without an own edge")
MISSING_FILE = Code("S011", ERROR, "a campaign names a file that does not exist")
YAML_INT_TOO_LARGE = Code("S012", ERROR, "a number too large")
YAML_TOO_DEEP = Code("S013", ERROR, "YAML nested too deeply")
YAML_TOO_LARGE = Code("S014", ERROR, "aliases that expand too far")
TOO_MANY_CARDS = Code("S015", ERROR, "too many cards")
PLAYED_TWICE = Code("S016", ERROR, "an adventure recorded twice")
SHEET_BUSY = Code("S017", ERROR, "the sheet is busy")
SHEET_CHANGED = Code("S018", ERROR, "the sheet changed while an adventure was played")
WRONG_VALUE = Code("S101", ERROR, "a value of the wrong type")
UNKNOWN_PACK = Code("S102", ERROR, "unknown pack")
UNKNOWN_UNIT_TYPE = Code("S103", ERROR, "unknown unit type")
UNKNOWN_TERRAIN = Code("S104", ERROR, "unknown terrain")
UNKNOWN_DEFINITION = Code("S105", ERROR, "unknown card (or other definition)")
NO_DECK_FIELD = Code("S106", ERROR, "a deck the game cannot hold")
UNIT_MAY_NOT_OCCUPY = Code("S107", ERROR, "a unit on a hex it may not occupy")
UNKNOWN_OPTION = Code("S108", ERROR, "unknown option")
UNKNOWN_SCENARIO_FIELD = Code("S109", ERROR, "unknown field")
UNKNOWN_EVENT = Code("S110", ERROR, "a test expects an unknown event")
UNKNOWN_EVENT_ARGUMENT = Code("S111", ERROR, "a test expects an argument the event does not have")
UNKNOWN_PROCEDURE = Code("S112", ERROR, "a test calls an unknown procedure")
BAD_ARGUMENTS = Code("S113", ERROR, "wrong arguments to a procedure")
UNKNOWN_FACE = Code("S114", ERROR, "a forced roll names an unknown face")
NOT_A_CAMPAIGN_FIELD = Code("S115", ERROR, "a sheet sets a field that is not a campaign field")
ID_TAKEN = Code("S116", ERROR, "a campaign unit's id is already a scenario unit's")
NOT_ON_SHEET = Code("S117", ERROR, "an adventure brings in a unit the sheet does not have")
PACK_OUTSIDE_TREE = Code("S118", ERROR, "a pack file outside the scenario's folder")
NOT_A_PACK = Code("S119", ERROR, "a packs: entry that is no pack")
RULES_LINK_OUTSIDE = Code("S120", ERROR, "the project's rules folder is a link leading out")
LOOK_OUTSIDE = Code("S121", ERROR, "a look file that leads outside its pack's folder")
OUTSIDE_PROJECT = Code("S122", ERROR, "a scenario, campaign or sheet outside the project")
TEXT_NOT_UTF8 = Code("S125", ERROR, "text that cannot be written as UTF-8")
TEXT_CONTROL = Code("S126", ERROR, "a control or bidirectional character in text")
BOARD_TOO_LARGE_TO_DRAW = Code("S127", WARNING, "a board too large to draw")
REPLAY_TOO_LARGE = Code("S128", ERROR, "a replay past its budget")
TOO_MANY_GAMES = Code("S129", ERROR, "a sweep of too many games")
CANNOT_WRITE = Code("S130", ERROR, "an output cannot be written")
OUTPUT_IS_INPUT = Code("S131", ERROR, "an output is a file the command reads")
LOG_NOT_TEXT = Code("S132", ERROR, "the log given to replay is not text")

# R: rule failures at run time (hexlore/runtime/engine/)

RULE_ERROR = Code("R001", ERROR, "a rule failed while playing")
NUMBER_OUT_OF_RANGE = Code("R002", ERROR, "a number out of range")
PRECONDITION_FAILED = Code("R003", ERROR, "an action the rules do not allow here")

# O: odds and sweep questions (hexlore/runtime/analysis/odds.py, hexlore/api.py)

BUDGET_EXCEEDED = Code("O001", ERROR, "more outcomes than the budget")
BAD_ACTION = Code("O002", ERROR, "a bad action, position or policy")
BAD_OUTCOME = Code("O003", ERROR, "a bad outcome spec")
NOT_ENUMERABLE = Code("O004", ERROR, "randomness that cannot be enumerated")
BACKEND_CANNOT_START = Code("O005", ERROR, "a sweep backend that cannot start")
BAD_PLAYERS = Code("O006", ERROR, "a sweep's players")


def _registry() -> dict[str, Code]:
    """Code -> entry, in the order above; each entry learns its name. Two entries with one
    code would make the docs and the modules disagree about which is meant: refused here."""
    out: dict[str, Code] = {}
    for name, value in list(globals().items()):
        if isinstance(value, Code):
            if value in out:
                raise RuntimeError(f"{value} is registered twice: {out[value].name} and {name}")
            value.name = name
            out[str(value)] = value
    return out


#: every diagnostic code hexlore reports, by its string
CODES: dict[str, Code] = _registry()


def lookup(code: str) -> Code:
    """The registry's entry for ``code`` (KeyError if it has none)."""
    return CODES[code]
