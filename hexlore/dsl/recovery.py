"""Syntax errors: messages a designer can act on, and recovery so one run reports them all.

The parser is driven token by token (Lark's interactive LALR parser). At an error we
report it, then resynchronise the way yacc does: we skip to a *sync point* — a ``{`` or
``}`` later on the same line, else the first word of a following line — and pop parser
states (or close open blocks with virtual ``}``) until that word can be read. A broken
statement is dropped but its procedure survives; a broken declaration is dropped but the
declarations after it are parsed. Names mentioned in dropped text are kept
(``skipped``) so the compiler does not report them as undefined or unused: they are
consequences of the syntax error, not new mistakes.
"""

from __future__ import annotations

import bisect
import contextvars
import functools
import re
from collections.abc import Sequence
from copy import copy
from dataclasses import dataclass, field

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken
from lark.lexer import PatternStr

from ..diagnostics import codes, Diagnostic, Severity, Source, Span, did_you_mean, error

# Codes of syntax diagnostics, documented in docs/diagnostics.md.

#: the deepest parse tree a declaration may have; every later stage recurses over the tree,
#: so this bounds their recursion too (real packs stay under 20)
MAX_DEPTH = 100

#: after this many syntax errors in one file the rest of the file is skipped
MAX_ERRORS = 50
#: the most virtual '}' recovery inserts to close open blocks
MAX_CLOSING = 8
#: the most trial parses recovery may run for one file. Each candidate resync point costs a
#: few; a hostile line of 50,000 '{}' pairs would otherwise cost minutes. The bundled error
#: fixtures need at most a few hundred. Past it the rest of the file is skipped (P013).
MAX_TRIALS = 20_000

DECLARATION_KEYWORDS = ("pack", "use", "override", "enum", "tag", "die", "kind", "fields",
                        "trait", "option", "table", "function", "procedure", "event",
                        "trigger", "game")
STATEMENT_KEYWORDS = ("let", "if", "else", "for", "each", "repeat", "while", "require", "break", "stop",
                      "return", "emit", "choose", "ask")
#: words that may start a line after which parsing can resume
_SYNC_KEYWORDS = frozenset(DECLARATION_KEYWORDS + ("let", "if", "else", "for", "repeat", "while", "require", "break",
                                                   "stop", "return", "emit", "face", "faces",
                                                   "campaign"))
#: sync words that are also ordinary names where the grammar does not expect them
_NAME_TOO = ("face", "faces", "campaign")
_PUNCTUATION = {"LBRACE": "'{'", "RBRACE": "'}'", "LPAR": "'('", "RPAR": "')'", "LSQB": "'['",
                "RSQB": "']'", "NAME": "a name", "INT": "a number", "STRING": "a string",
                "$END": "end of file", "ASSIGN_OP": "'=', '+=' or '-='", "COMP_OP": "a comparison",
                "ADD_OP": "'+' or '-'", "MUL_OP": "'*' or '/'"}
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_STRING = re.compile(r'"([^"\\\n]|\\.)*"')
_LIST = re.compile(r"__\w+_star_\d+$")  # Lark's accumulator of an 'item*' list
#: a resync point must let the parser read this many tokens after it without a new error
LOOKAHEAD = 3
_CLOSERS = {"LPAR": "RPAR", "LSQB": "RSQB"}


@dataclass
class ParseOutcome:
    """The parse tree (None only if nothing could be recovered) and what went wrong."""

    tree: Tree | None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    skipped: set[str] = field(default_factory=set)  # names in text that recovery dropped


@functools.cache
def _terminals(parser: Lark) -> dict[str, str]:
    """Terminal name -> its literal text, for literal terminals ('let', '{', '->', …)."""
    return {t.name: t.pattern.value for t in parser.terminals if isinstance(t.pattern, PatternStr)}


@functools.cache
def keyword_terminals(parser: Lark) -> dict[str, str]:
    """Keyword text -> terminal name ('let' -> 'LET')."""
    return {text: name for name, text in _terminals(parser).items() if text.isalpha()}


def describe_expected(parser: Lark, expected) -> str:
    literal = _terminals(parser)
    names = sorted({_PUNCTUATION.get(e) or (f"'{literal[e]}'" if e in literal else e.lower())
                    for e in expected})
    if len(names) > 6:
        names = names[:6] + ["…"]
    return ", ".join(names)


class _OutOfTrials(Exception):
    pass


class _Trials:
    """What is left of one file's MAX_TRIALS."""

    def __init__(self, limit: int):
        self.left = limit

    def spend(self) -> None:
        self.left -= 1
        if self.left < 0:
            raise _OutOfTrials()


_TRIALS: contextvars.ContextVar[_Trials] = contextvars.ContextVar("recovery_trials")


# ---------------------------------------------------------------- the driver
def parse_recovering(parser: Lark, text: str, path: str) -> ParseOutcome:
    """Parse ``text``, reporting every syntax error and recovering after each."""
    token = _TRIALS.set(_Trials(MAX_TRIALS))
    try:
        return _parse_recovering(parser, text, path)
    finally:
        _TRIALS.reset(token)


def _parse_recovering(parser: Lark, text: str, path: str) -> ParseOutcome:
    source = Source(path, text)
    outcome = ParseOutcome(None)
    interactive = parser.parse_interactive(text)
    state, thread = interactive.parser_state, interactive.lexer_thread
    last: Token | None = None
    while True:
        try:
            for token in thread.lex(state):
                state.feed_token(token)
                last = token
            end = Token.new_borrow_pos("$END", "", last) if last is not None else Token("$END", "", 0, 1, 1)
            outcome.tree = state.feed_token(end, True)
            return outcome
        except UnexpectedInput as exc:
            swallowed = _swallowed_keyword(state, text, _error_offset(exc, text))
            diagnostic = describe(parser, exc, source, state, swallowed)
            outcome.diagnostics.append(diagnostic)
            if diagnostic.code == codes.UNKNOWN_KEYWORD:  # the misspelt word may survive as a name
                outcome.skipped.update(re.findall(r"'(\w+)'", diagnostic.message)[:1])
            give_up = len(outcome.diagnostics) >= MAX_ERRORS
            try:
                if swallowed is None and not give_up and _repair(exc, state, thread, text):
                    continue
                resumed = _resynchronise(parser, exc, source, state, thread, outcome.skipped, give_up, swallowed)
            except _OutOfTrials:
                outcome.diagnostics.append(_stopped(diagnostic))
                _TRIALS.set(_Trials(MAX_TRIALS))  # enough to close what is open at the end of the file
                resumed = _resynchronise(parser, exc, source, state, thread, outcome.skipped, True, swallowed)
            if not resumed:
                return outcome


def _stopped(at: Diagnostic) -> Diagnostic:
    return Diagnostic(Severity.NOTE, codes.RECOVERY_STOPPED, "too hard to recover from this syntax error: "
                      "the rest of the file is not checked", at.file, at.span,
                      "fix this error first, then check the file again")


#: one-token repairs for common slips: (what was written, what was meant as (type, text))
_REPAIRS = {"=": ("COMP_OP", "==")}


def _repair(exc: UnexpectedInput, state, thread, text: str) -> bool:
    """Read a slip (``=`` in a comparison) as what was meant, if the next tokens then parse.

    The error is still reported; the repair only keeps the statement, so the compiler
    checks it as meant instead of reporting knock-on errors.
    """
    token = getattr(exc, "token", None)
    if not isinstance(exc, UnexpectedToken) or token is None or str(token) not in _REPAIRS:
        return False
    kind, value = _REPAIRS[str(token)]
    meant = Token.new_borrow_pos(kind, value, token)
    depth = len(state.state_stack)
    if not _feeds(state, depth, 0, [meant]):
        return False
    end = token.end_pos if token.end_pos is not None else token.start_pos + len(token)
    if not _holds(state, thread, text, end, depth, [meant]):
        return False
    state.feed_token(meant)
    _move(thread, text, end)
    return True


def _swallowed_keyword(state, text: str, offset: int) -> Token | None:
    """A declaration keyword, first on the error's line, that the parser read as a name.

    Keywords are reserved only where the grammar expects them, so after an unfinished
    expression (``= 1 +``) the next line's ``function`` is read as a name and the error only
    shows a few tokens later. The real problem is just before that keyword.
    """
    found: list[Token] = []
    _tokens_in(state.value_stack, found)
    for token in reversed(found):
        if token.start_pos is None or token.start_pos >= offset:
            continue
        if text.count("\n", token.start_pos, offset):
            return None
        if token.type == "NAME" and str(token) in DECLARATION_KEYWORDS and _first_on_line(text, token.start_pos):
            return token
    return None


def _tokens_in(value, out: list[Token]) -> None:
    """Every token in a stack value, in text order (iterative: values may be deep)."""
    stack = [value]
    while stack:
        current = stack.pop()
        if isinstance(current, Token):
            out.append(current)
        elif isinstance(current, Tree):
            stack.extend(reversed(current.children))
        elif isinstance(current, (list, tuple)):
            stack.extend(reversed(current))


def _error_offset(exc: UnexpectedInput, text: str) -> int:
    if isinstance(exc, UnexpectedToken):
        if exc.token.type == "$END":
            return len(text)
        return exc.token.start_pos if exc.token.start_pos is not None else len(text)
    pos = getattr(exc, "pos_in_stream", None)
    return len(text) if pos is None else pos


def _start(token: Token) -> int:
    """Where ``token`` starts in the text. Lark types a token's places Optional (a token made
    by hand may have none); every token its lexer hands over has them, so 0 is never used."""
    return token.start_pos or 0


def _place(token: Token) -> tuple[int, int]:
    """``token``'s line and column (1-based; see :func:`_start` for why they are never None)."""
    return token.line or 1, token.column or 1


def _line_start(text: str, offset: int) -> int:
    return text.rfind("\n", 0, offset) + 1


@functools.lru_cache(maxsize=8)
def _line_starts(text: str) -> list[int]:
    """Offsets where each line starts, computed once per text (str caches its own hash)."""
    starts = [0]
    find = text.find
    at = find("\n")
    while at != -1:
        starts.append(at + 1)
        at = find("\n", at + 1)
    return starts


def _position(text: str, offset: int) -> tuple[int, int]:
    """(line, column) of an offset: a binary search, not a count from the start of the text
    (recovery asks at every candidate resync point, and counting made it quadratic)."""
    starts = _line_starts(text)
    index = bisect.bisect_right(starts, offset) - 1
    return index + 1, offset - starts[index] + 1


def _sync_points(text: str, offset: int, at_error: bool):
    """Offsets where parsing may resume, in order; the caller stops at the first that works."""
    if at_error:
        yield offset
    end_of_line = text.find("\n", offset)
    end_of_line = len(text) if end_of_line == -1 else end_of_line
    for i, ch in _code(text, offset + 1, end_of_line):
        if ch in "{}":
            yield i
    line = end_of_line + 1
    while line < len(text):
        nxt = text.find("\n", line)
        nxt = len(text) if nxt == -1 else nxt
        stripped = text[line:nxt].lstrip()
        if stripped and not stripped.startswith("#"):
            yield line + (len(text[line:nxt]) - len(stripped))
        line = nxt + 1


def _token_at(parser: Lark, text: str, offset: int) -> list[Token]:
    """The tokens the text at ``offset`` may be read as, if it is a plausible place to resume."""
    line, column = _position(text, offset)

    def make(kind: str, value: str) -> Token:
        return Token(kind, value, offset, line, column, line, column + len(value), offset + len(value))

    ch = text[offset]
    if ch in "{}":
        return [make("LBRACE" if ch == "{" else "RBRACE", ch)]
    match = _WORD.match(text, offset)
    if not match:
        return []
    word = match.group()
    out = []
    if word in _SYNC_KEYWORDS and word in keyword_terminals(parser):
        out.append(make(keyword_terminals(parser)[word], word))
    if word not in _SYNC_KEYWORDS or word in _NAME_TOO:
        out.append(make("NAME", word))
    return out


def _trial(state, depth: int):
    _TRIALS.get().spend()
    conf = copy(state.parse_conf)
    conf.callbacks = {}
    return type(state)(conf, state.lexer, list(state.state_stack[:depth]), list(state.value_stack[:depth - 1]))


def _feeds(state, depth: int, closing: int, tokens: list[Token]) -> bool:
    trial = _trial(state, depth)
    try:
        for token in tokens[:closing]:
            trial.feed_token(token)
        for token in tokens[closing:]:
            trial.feed_token(token, token.type == "$END")
    except UnexpectedInput:
        return False
    return True


def _boundaries(state) -> list[int]:
    """Stack depths just after a '{' or a completed list of items, deepest first.

    Popping to one of them drops the whole statement (or declaration) the error is in.
    """
    out = []
    for depth in range(len(state.state_stack), 1, -1):
        value = state.value_stack[depth - 2]
        if (isinstance(value, Token) and value.type == "LBRACE") or \
                (isinstance(value, Tree) and _LIST.match(str(value.data))):
            out.append(depth)
    return out + [1]


def _plan(state, token: Token) -> tuple[int, int] | None:
    """The deepest stack depth, and fewest virtual '}', at which ``token`` can be read.

    A word (the start of a statement or declaration) is only read at a boundary — after a
    '{' or a complete item, where the list could also end — so the statement the error is
    in is dropped whole and a word on the next line is never read as the rest of a broken
    expression. Braces and the end of file keep as much as they can.
    """
    rbrace = Token.new_borrow_pos("RBRACE", "}", token)
    depths: Sequence[int]
    word = token.type not in ("RBRACE", "LBRACE", "$END", "ELSE")
    if word:
        depths = _boundaries(state)
    else:
        # a brace never pops an open '{': that would reopen or drop a block already read
        opened = _open_tokens(state, ("LBRACE",))
        at = next((i for i, v in enumerate(state.value_stack) if v is opened[-1]), None) if opened else None
        floor = at + 2 if at is not None and token.type != "$END" else 1
        depths = range(len(state.state_stack), floor - 1, -1)
    for depth in depths:
        for closing in range(MAX_CLOSING + 1):
            braces = [rbrace] * closing
            if closing and not _feeds(state, depth, closing, braces):
                break
            if not _feeds(state, depth, closing, braces + [token]):
                continue
            return depth, closing
    return None


def _holds(state, thread, text: str, sync: int, depth: int, first: list[Token]) -> bool:
    """Does parsing resumed at stack ``depth``, fed ``first``, then the text at ``sync``,
    read the next few tokens without a new error?"""
    trial = _trial(state, depth)
    lexer = copy(thread)
    _move(lexer, text, sync)
    try:
        for token in first:
            trial.feed_token(token)
        for i, next_token in enumerate(lexer.lex(trial)):
            trial.feed_token(next_token)
            if i + 1 >= LOOKAHEAD:
                break
    except UnexpectedInput:
        return False
    return True


def _move(thread, text: str, offset: int) -> None:
    counter = thread.state.line_ctr
    counter.char_pos = offset
    counter.line, counter.column = _position(text, offset)
    counter.line_start_pos = _line_start(text, offset)


def _code(text: str, start: int, end: int):
    """(offset, character) of text[start:end] outside comments and closed strings.

    A '"' with no closing '"' on its line is not a string (the lexer could not read one
    either), so a brace after a broken string still counts.
    """
    i = start
    end = min(end, len(text))
    while i < end:
        ch = text[i]
        if ch == "#":
            newline = text.find("\n", i)
            i = end if newline == -1 else newline
            continue
        if ch == '"':
            match = _STRING.match(text, i)
            if match:
                i = match.end()
                continue
        yield i, ch
        i += 1


class _OpenedSince:
    """'{' minus '}' from ``start`` up to growing ends, outside strings and comments.

    The candidate resync points come in order, so one pass over the text counts for all of
    them; counting from ``start`` again for each point was quadratic in the dropped text.
    """

    def __init__(self, text: str, start: int):
        self._code = _code(text, start, len(text))
        self._pending: tuple[int, str] | None = None
        self.opened = 0

    def up_to(self, end: int) -> int:
        if self._pending is not None:
            if self._pending[0] >= end:
                return self.opened
            self._count(self._pending[1])
            self._pending = None
        for i, ch in self._code:
            if i >= end:
                self._pending = (i, ch)
                break
            self._count(ch)
        return self.opened

    def _count(self, ch: str) -> None:
        if ch == "{":
            self.opened += 1
        elif ch == "}":
            self.opened -= 1


def _names_in(value, out: set[str]) -> None:
    found: list[Token] = []
    _tokens_in(value, found)
    out.update(str(t) for t in found if t.type == "NAME")


def _resynchronise(parser: Lark, exc: UnexpectedInput, source: Source, state, thread,
                   skipped: set[str], give_up: bool, swallowed: Token | None = None) -> bool:
    text = source.text
    offset = _error_offset(exc, text)
    token = getattr(exc, "token", None) if isinstance(exc, UnexpectedToken) else None
    at_error = token is not None and token.type != "$END" and (
        token.type == "RBRACE" or not text[_line_start(text, offset):offset].strip())
    if swallowed is not None:
        offset, at_error = _start(swallowed), True
        skipped.add(str(swallowed))  # it may already be part of a finished declaration, as a name
    choice = fallback = None
    if not give_up and offset < len(text):
        top = len(state.state_stack)
        line_end = text.find("\n", offset)
        opened = _OpenedSince(text, offset)
        for sync in _sync_points(text, offset, at_error):
            if sync > line_end >= 0 and opened.up_to(sync) > 0:
                continue  # inside a block that opened in the dropped text
            for candidate in _token_at(parser, text, sync):
                plan = _plan(state, candidate)
                if plan is None or (sync == offset and plan == (top, 0)):
                    continue
                fallback = fallback or (sync, candidate, plan)
                if _holds(state, thread, text, sync, plan[0],
                          [Token.new_borrow_pos("RBRACE", "}", candidate)] * plan[1]):
                    choice = (sync, candidate, plan)
                    break
            if choice:
                break
    if choice is None:
        end = Token("$END", "", len(text), *_position(text, len(text)), *_position(text, len(text)), len(text))
        plan = _plan(state, end)
        if plan is not None:
            choice = (len(text), end, plan)
        elif fallback is not None:
            choice = fallback
        else:
            return False
    sync, candidate, (depth, closing) = choice
    _names_in(state.value_stack[depth - 1:], skipped)
    skipped.update(_WORD.findall(text[offset:sync]))
    del state.state_stack[depth:]
    del state.value_stack[depth - 1:]
    for _ in range(closing):
        state.feed_token(Token.new_borrow_pos("RBRACE", "}", candidate))
    _move(thread, text, sync)
    return True


# ---------------------------------------------------------------- messages
_PAIRS = {"RBRACE": "LBRACE", "RPAR": "LPAR", "RSQB": "LSQB"}


def _open_tokens(state, kinds: tuple[str, ...]) -> list[Token]:
    """Opening brackets on the parser's stack that no closing one follows yet."""
    stack: list[Token] = []
    for value in state.value_stack:
        if not isinstance(value, Token):
            continue
        if value.type in kinds:
            stack.append(value)
        elif _PAIRS.get(value.type) in kinds:
            for i in range(len(stack) - 1, -1, -1):
                if stack[i].type == _PAIRS[value.type]:
                    del stack[i]
                    break
    return stack


def _indent(text: str, offset: int) -> int:
    start = _line_start(text, offset)
    line = text[start:text.find("\n", start) if text.find("\n", start) != -1 else len(text)]
    return len(line) - len(line.lstrip())


def _first_on_line(text: str, offset: int) -> bool:
    return not text[_line_start(text, offset):offset].strip()


def _suspect_brace(text: str, outer: Token, stop: int) -> tuple[int, int]:
    """The '{' most likely missing its '}': one whose '}' is less indented than its own line.

    Scans from the outermost open brace to the error; falls back to the innermost open one.
    """
    stack: list[int] = []
    for i, ch in _code(text, _start(outer), stop):
        if ch == "{":
            stack.append(i)
        elif ch == "}" and stack:
            opened = stack.pop()
            if _first_on_line(text, i) and _indent(text, i) < _indent(text, opened):
                return _position(text, opened)
    return _position(text, stack[-1] if stack else _start(outer))


def describe(parser: Lark, exc: UnexpectedInput, source: Source, state,
             swallowed: Token | None = None) -> Diagnostic:
    """One diagnostic for a syntax error, with the most specific message we can give."""
    text = source.text
    if isinstance(exc, UnexpectedCharacters):
        return _bad_character(exc, source)
    assert isinstance(exc, UnexpectedToken)
    token = exc.token
    expected = {e for e in exc.expected if not e.startswith("__")} or set(exc.expected)
    braces = _open_tokens(state, ("LBRACE",))
    if swallowed is not None:
        if braces:
            line, column = _suspect_brace(text, braces[0], _start(swallowed))
            return error(codes.UNCLOSED_BRACE, "this '{' is never closed", source.path, Span.at(line, column),
                         f"add the missing '}}' before '{swallowed}' on line {swallowed.line}")
        return error(codes.UNEXPECTED_TOKEN, f"'{swallowed}' starts a new declaration, but the one before it is "
                     "unfinished", source.path, Span.at(*_place(swallowed), len(swallowed)),
                     "complete the previous declaration: a value, a ')' or a ']' is missing before this line")
    brackets = [t for t in _open_tokens(state, ("LPAR", "LSQB"))
                if not braces or _start(t) > _start(braces[-1])]
    at_end = token.type == "$END"
    if brackets and (at_end or (token.line > brackets[-1].line and _CLOSERS[brackets[-1].type] in expected)):
        opener = brackets[-1]
        closer = ")" if opener.type == "LPAR" else "]"
        return error(codes.UNCLOSED_BRACKET, f"this '{opener}' is never closed", source.path,
                     Span.at(*_place(opener)), f"add the missing '{closer}'")
    starts_declaration = not at_end and str(token) in DECLARATION_KEYWORDS and _first_on_line(text, token.start_pos)
    if braces and (at_end or (starts_declaration and "RBRACE" in expected)):
        line, column = _suspect_brace(text, braces[0], _error_offset(exc, text))
        return error(codes.UNCLOSED_BRACE, "this '{' is never closed", source.path, Span.at(line, column),
                     "add the missing '}' at the end of the block")
    if at_end:
        line, column = _position(text, len(text.rstrip()))
        return error(codes.UNEXPECTED_END, "unexpected end of file", source.path, Span.at(line, column),
                     f"expected {describe_expected(parser, expected)}")
    if token.type == "RBRACE" and not braces:
        return error(codes.UNMATCHED_BRACE, "this '}' closes nothing", source.path, Span.at(token.line, token.column),
                     "remove it, or add the '{' it was meant to close")
    if str(token) == "/" and text[token.start_pos:token.start_pos + 2] == "//":
        return error(codes.UNEXPECTED_CHARACTER, "'//' does not start a comment in Lore", source.path,
                     Span.at(token.line, token.column, 2), "comments start with '#'")
    keyword = _misspelt_keyword(parser, token, expected, text, source.path)
    if keyword:
        return keyword
    span = Span(token.line, token.column, token.end_line or token.line,
                token.end_column or token.column + len(token))
    shown = "a string" if token.type == "STRING" else repr(str(token))
    hint = f"expected {describe_expected(parser, expected)}"
    if str(token) == "=" and "COMP_OP" in expected:
        hint = "to compare two values write '=='; a single '=' assigns"
    elif token.type == "NAME" and "COMMA" in expected and ("RPAR" in expected or "RSQB" in expected):
        hint = "separate arguments and list items with ','"
    return error(codes.UNEXPECTED_TOKEN, f"unexpected {shown}", source.path, span, hint)


def _bad_character(exc: UnexpectedCharacters, source: Source) -> Diagnostic:
    text = source.text
    pos = exc.pos_in_stream or 0  # set on every UnexpectedCharacters (Lark types it Optional)
    char = text[pos] if pos < len(text) else "?"
    span = Span.at(exc.line, exc.column)
    if char == '"':
        return error(codes.UNCLOSED_STRING, "this string is never closed", source.path, span,
                     "end it with '\"' on the same line (strings cannot span lines)")
    hints = {"'": "strings use double quotes: \"…\"", ";": "Lore needs no ';': end a statement with a new line",
             "/": "comments start with '#'" if text[pos:pos + 2] == "//" else "'/' divides two numbers",
             "&": "write 'and'", "|": "write 'or'", "!": "write 'not', or '!=' for 'not equal'"}
    return error(codes.UNEXPECTED_CHARACTER, f"unexpected character {char!r}", source.path, span,
                 hints.get(char, "Lore uses '#' for comments and double quotes for strings"))


def _misspelt_keyword(parser: Lark, token: Token, expected: set[str], text: str, path: str) -> Diagnostic | None:
    """A misspelt keyword (``procedur``, ``triger``, ``lett``, ``onn``) — P004 with a did-you-mean."""
    keywords = keyword_terminals(parser)
    known = DECLARATION_KEYWORDS + STATEMENT_KEYWORDS
    start = _line_start(text, _start(token))
    indent = start + _indent(text, _start(token))
    first = _WORD.match(text, indent)
    between = text[first.end():_start(token)] if first and first.end() <= _start(token) else None
    if first and first.group() not in keywords and between is not None \
            and re.fullmatch(r"[ \t]*([A-Za-z_]\w*[ \t]*)?", between):
        guess = did_you_mean(first.group(), known)
        if guess:
            line, column = _position(text, indent)
            return error(codes.UNKNOWN_KEYWORD, f"unknown keyword '{first.group()}'", path,
                         Span.at(line, column, len(first.group())), f"did you mean '{guess}'?")
    if token.type != "NAME":
        return None
    word = str(token)
    pool = [k for k, name in keywords.items() if name in expected] or list(known)
    guess = did_you_mean(word, pool)
    if guess and guess != word:
        return error(codes.UNKNOWN_KEYWORD, f"unknown keyword '{word}'", path,
                     Span.at(*_place(token), len(word)), f"did you mean '{guess}'?")
    previous_start, previous = _word_before(text, _start(token))
    if previous and previous not in keywords:
        guess = did_you_mean(previous, known)
        if guess and guess != previous:
            line, column = _position(text, previous_start)
            return error(codes.UNKNOWN_KEYWORD, f"unknown keyword '{previous}'", path,
                         Span.at(line, column, len(previous)), f"did you mean '{guess}'?")
    return None


def _word_before(text: str, offset: int) -> tuple[int, str]:
    """The word that ends just before ``offset`` (spaces between allowed), read backwards.

    A backwards scan costs the length of that word; a regular expression anchored at the end
    of the text before (``\\w+$``) retries from every start and is quadratic in a long word.
    """
    end = offset
    while end > 0 and text[end - 1].isspace():
        end -= 1
    start = end
    while start > 0 and (text[start - 1] == "_" or (text[start - 1].isascii() and text[start - 1].isalnum())):
        start -= 1
    while start < end and text[start].isdigit():  # a word starts with a letter or '_'
        start += 1
    return start, text[start:end]


# ---------------------------------------------------------------- depth
def drop_deep_items(tree: Tree, path: str, skipped: set[str]) -> list[Diagnostic]:
    """Remove (and report) top-level declarations nested deeper than :data:`MAX_DEPTH`."""
    out = []
    kept = []
    for item in tree.children:
        deep = _too_deep(item)
        if deep is None:
            kept.append(item)
            continue
        _names_in(item, skipped)
        line, column = deep
        out.append(error(codes.TOO_DEEP, f"nested more than {MAX_DEPTH} levels deep", path, Span.at(line, column),
                         "split it up: name parts with 'let', or move them into functions"))
    tree.children[:] = kept
    return out


def _too_deep(node) -> tuple[int, int] | None:
    """Where a tree first goes deeper than MAX_DEPTH (iteratively: the tree may be very deep)."""
    stack = [(node, 1)]
    while stack:
        current, depth = stack.pop()
        if depth > MAX_DEPTH:
            meta = getattr(current, "meta", None)
            if meta is not None and not getattr(meta, "empty", True):
                return meta.line, meta.column
            found: list[Token] = []
            _first_token(current, found)
            return _place(found[0]) if found else (1, 1)
        if isinstance(current, Tree):
            stack.extend((child, depth + 1) for child in current.children)
    return None


def _first_token(node, out: list[Token]) -> None:
    stack = [node]
    while stack and not out:
        current = stack.pop()
        if isinstance(current, Token):
            out.append(current)
        elif isinstance(current, Tree):
            stack.extend(reversed(current.children))
