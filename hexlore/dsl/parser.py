"""Parse Lore text into a :class:`~hexlore.dsl.ast.Module`.

Lark (LALR, contextual lexer) does the parsing; a Transformer builds the frozen AST with a
span on every node. Syntax errors become diagnostics with a code (P001…) and, for the
common mistakes — an unclosed brace, a misspelt keyword, a stray token — a message a
designer can act on without reading the grammar.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from dataclasses import dataclass

from lark import Lark, Token, Tree

from . import ast
from .diagnostics import Diagnostic, DiagnosticError, Span, error
from .limits import MAX_FACES
from .parser_cache import cached_parser
from .recovery import drop_deep_items, parse_recovering
from .token_limits import token_problems

GRAMMAR_PATH = Path(__file__).with_name("lore.lark")
FACE_RANGE_TOO_LARGE = "P012"

class _WholeWords:
    """Post-lexer that keeps NAME in every lexer state.

    Without it the contextual lexer, in a state where only keywords are allowed, would cut
    ``onn`` into the keyword ``on`` and a stray ``n``; with NAME always present, keywords
    only ever match whole words.
    """

    always_accept = ("NAME",)

    def process(self, stream):
        return stream


@functools.cache
def lark_parser(strict: bool = False) -> Lark:
    """The Lark parser, built once; tests build it with ``strict=True`` to prove LALR-cleanliness."""
    grammar = GRAMMAR_PATH.read_text(encoding="utf-8")
    options = dict(parser="lalr", lexer="contextual", propagate_positions=True, maybe_placeholders=True,
                   strict=strict, postlex=_WholeWords())
    if strict:  # the test that proves the grammar LALR-clean must really analyse it
        return Lark(grammar, **options)
    return cached_parser(grammar, options, lambda: Lark(grammar, **options))


@functools.cache
def keywords() -> frozenset[str]:
    from lark.lexer import PatternStr

    return frozenset(t.pattern.value for t in lark_parser().terminals
                     if isinstance(t.pattern, PatternStr) and t.pattern.value.isalpha())


def _span(meta_or_token) -> Span:
    if isinstance(meta_or_token, Token):
        end_col = meta_or_token.end_column or (meta_or_token.column + len(meta_or_token))
        return Span(meta_or_token.line, meta_or_token.column,
                    meta_or_token.end_line or meta_or_token.line, end_col)
    meta = meta_or_token
    if getattr(meta, "empty", True):
        return ast.NOWHERE
    return Span(meta.line, meta.column, meta.end_line, meta.end_column)


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"'}
_ESCAPE = re.compile(r"\\(u[0-9A-Fa-f]{4}|.)")


def _unquote(token: str) -> str:
    """The text of a string literal: \\n \\t \\r \\\\ \\" and \\uXXXX; any other backslash stays as written."""
    def one(m: re.Match) -> str:
        code = m.group(1)
        if len(code) == 5:
            return chr(int(code[1:], 16))
        return _ESCAPES.get(code, m.group(0))

    return _ESCAPE.sub(one, token[1:-1])


class _Builder:
    """Builds AST nodes bottom-up; every node gets the span of its parse-tree node.

    One method per grammar rule, called as ``method(meta, *children)``. The tree is walked
    here rather than by Lark's Transformer with ``v_args``, whose wrapper made a new bound
    object (and copied its metadata) at every node: a third of the time the front end spent
    outside Lark's own parse.
    """

    def __init__(self, path: str):
        self.path = path
        self.problems: list[Diagnostic] = []  # limits found while building (face ranges)

    def transform(self, tree: Tree):
        children = [self.transform(c) if c.__class__ is Tree else c for c in tree.children]
        method = _RULE_METHODS.get(tree.data)
        if method is None:  # a rule with no method of its own stays a tree, as in Lark
            return Tree(tree.data, children, tree.meta)
        return method(self, tree.meta, *children)

    # -- top level
    def start(self, meta, *items):
        pack = None
        uses: list[ast.Use] = []
        decls: list[ast.Decl] = []
        for item in items:
            if isinstance(item, ast.Pack):
                pack = pack or item
            elif isinstance(item, ast.Use):
                uses.append(item)
            elif isinstance(item, list):
                decls.extend(item)
            else:
                decls.append(item)
        return ast.Module(self.path, pack, tuple(uses), tuple(decls), span=_span(meta))

    def dotted(self, meta, *names):
        return ".".join(str(n) for n in names)

    def pack_decl(self, meta, name):
        return ast.Pack(name, span=_span(meta))

    def use_decl(self, meta, name):
        return ast.Use(name, span=_span(meta))

    def override_item(self, meta, decl):
        if isinstance(decl, list):
            return [_with_override(d) for d in decl]
        return _with_override(decl)

    def name_list(self, meta, *names):
        return list(names)

    def enum_decl(self, meta, name, values):
        return ast.EnumDecl(str(name), tuple(str(v) for v in values), span=_span(meta),
                            name_span=_span(name))

    def tag_decl(self, meta, names):
        return [ast.TagDecl(str(n), span=_span(n), name_span=_span(n)) for n in names]

    # -- dice
    def die_decl(self, meta, name, title, *faces):
        flat: list[ast.FaceDecl] = []
        for f in faces:
            flat.extend(f if isinstance(f, list) else [f])
        return ast.DieDecl(str(name), _unquote(title) if title else None, tuple(flat),
                           span=_span(meta), name_span=_span(name))

    def face(self, meta, label, value, tags):
        return ast.FaceDecl(label, value, tuple(str(t) for t in (tags or ())), span=_span(meta))

    def face_label(self, meta, token):
        return str(token)

    def face_value(self, meta, value):
        return value

    def face_tags(self, meta, names):
        return names

    def face_range(self, meta, low, high):
        span = _span(meta)
        low, high = int(low), int(high)
        if high - low + 1 > MAX_FACES:  # checked before the range is expanded face by face
            self.problems.append(error(FACE_RANGE_TOO_LARGE, f"'faces {low}..{high}' makes {high - low + 1:,} faces; "
                                       f"a die may have at most {MAX_FACES:,}", self.path, span,
                                       "a die with that many faces is a number: use a smaller range, "
                                       "or roll several dice"))
            high = low + MAX_FACES - 1  # keep checking the rest with a die of the largest size
        return [ast.FaceDecl(str(v), v, (), span=span) for v in range(low, high + 1)]

    def signed_int(self, meta, *parts):
        return -int(parts[-1]) if len(parts) == 2 else int(parts[0])

    # -- data
    def kind_decl(self, meta, name, *fields):
        return ast.KindDecl(str(name), tuple(fields), span=_span(meta), name_span=_span(name))

    def fields_decl(self, meta, name, *fields):
        return ast.FieldsDecl(str(name), tuple(fields), span=_span(meta), name_span=_span(name))

    def campaign_fields_decl(self, meta, name, *fields):
        return ast.FieldsDecl(str(name), tuple(fields), campaign=True, span=_span(meta), name_span=_span(name))

    def kind_name(self, meta, token):
        return token

    def field_decl(self, meta, name, type_, default):
        return ast.FieldDecl(str(name), type_, default, span=_span(name))

    def trait_decl(self, meta, name, traits, *props):
        return ast.TraitDecl(str(name), tuple(traits or ()), tuple(props), span=_span(meta),
                             name_span=_span(name))

    def definition(self, meta, kind, name, title, traits, *props):
        return ast.Definition(str(name), str(kind), _unquote(title) if title else None,
                              tuple(traits or ()), tuple(props), span=_span(meta),
                              name_span=_span(name), kind_span=_span(kind))

    def traits(self, meta, names):
        return tuple(str(n) for n in names)

    def prop(self, meta, name, value):
        return ast.Prop(str(name), value, span=_span(name))

    def option_decl(self, meta, name, type_, default, doc):
        return ast.OptionDecl(str(name), type_, default, _unquote(doc) if doc else None,
                              span=_span(meta), name_span=_span(name))

    def table_decl(self, meta, name, key_type, value_type, *entries):
        return ast.TableDecl(str(name), key_type, value_type, tuple(entries), span=_span(meta),
                             name_span=_span(name))

    def table_entry(self, meta, key, value):
        return (key, value)

    def table_key(self, meta, token):
        if token.type == "INT":
            return ast.Literal(int(token), span=_span(token))
        if token.type == "STRING":
            return ast.Literal(_unquote(token), span=_span(token))
        return ast.Name(str(token), span=_span(token))

    def named_type(self, meta, name):
        return ast.TypeRef(str(name), span=_span(meta))

    def list_type(self, meta, item):
        return ast.TypeRef("list", item, span=_span(meta))

    def optional_type(self, meta, inner):
        return ast.TypeRef(inner.name, inner.item, True, span=_span(meta))

    # -- behaviour
    def params(self, meta, *params):
        return tuple(params)

    def param(self, meta, name, type_, default):
        return ast.Param(str(name), type_, default, span=_span(meta))

    def function_decl(self, meta, name, params, returns, body):
        return ast.FunctionDecl(str(name), params or (), returns, body, span=_span(meta),
                                name_span=_span(name))

    def procedure_decl(self, meta, name, params, returns, doc, body):
        return ast.ProcedureDecl(str(name), params or (), returns, body, _unquote(doc) if doc else None,
                                 span=_span(meta), name_span=_span(name))

    def returns(self, meta, type_):
        return type_

    def event_decl(self, meta, name, params, doc):
        return ast.EventDecl(str(name), params or (), _unquote(doc) if doc else None, span=_span(meta),
                             name_span=_span(name))

    def trigger_decl(self, meta, name, timing, event, guard, *rest):
        *options, body = rest
        optional_by = None
        priority = 0
        for kind, value in options:
            if kind == "optional":
                optional_by = value
            else:
                priority = value
        return ast.TriggerDecl(str(name), timing, str(event), guard, optional_by, priority, body,
                               span=_span(meta), name_span=_span(name), event_span=_span(event))

    def timing(self, meta, *tokens):
        return "instead" if str(tokens[0]) == "instead" else str(tokens[0])

    def guard(self, meta, expr):
        return expr

    def optional_by(self, meta, expr):
        return ("optional", expr)

    def priority(self, meta, value):
        return ("priority", value)

    def game_decl(self, meta, name, title, *items):
        blocks = tuple(i[1:] for i in items if i[0] == "block")
        settings = tuple(i[1] for i in items if i[0] == "setting")
        return ast.GameDecl(str(name), _unquote(title) if title else None, blocks, settings,
                            span=_span(meta), name_span=_span(name))

    def game_block(self, meta, name, block):
        return ("block", str(name), block)

    def game_setting(self, meta, name, value):
        return ("setting", ast.Prop(str(name), value, span=_span(name)))

    # -- statements
    def block(self, meta, *stmts):
        return ast.Block(tuple(stmts), span=_span(meta))

    def let_stmt(self, meta, name, value):
        return ast.Let(str(name), value, span=_span(meta))

    def assign_stmt(self, meta, target, op, value):
        return ast.Assign(target, str(op), value, span=_span(meta))

    def target(self, meta, *names):
        return tuple(str(n) for n in names)

    def target_head(self, meta, token):
        return str(token)

    def game_ref(self, meta):
        return ast.Name("game", span=_span(meta))

    def if_stmt(self, meta, cond, block, *rest):
        branches = [(cond, block)]
        otherwise = None
        for item in rest:
            if item is None:
                continue
            if isinstance(item, tuple):
                branches.append(item)
            else:
                otherwise = item
        return ast.If(tuple(branches), otherwise, span=_span(meta))

    def elif_clause(self, meta, cond, block):
        return (cond, block)

    def else_clause(self, meta, block):
        return block

    def for_stmt(self, meta, var, source, body):
        return ast.ForEach(str(var), source, body, span=_span(meta))

    def repeat_stmt(self, meta, times, body):
        return ast.Repeat(times, body, span=_span(meta))

    def break_stmt(self, meta):
        return ast.Break(span=_span(meta))

    def stop_stmt(self, meta):
        return ast.Stop(span=_span(meta))

    def return_stmt(self, meta, value):
        return ast.Return(value, span=_span(meta))

    def expr_stmt(self, meta, expr):
        return ast.ExprStmt(expr, span=_span(meta))

    # -- expressions
    def int_lit(self, meta, token):
        return ast.Literal(int(token), span=_span(token))

    def str_lit(self, meta, token):
        return ast.Literal(_unquote(token), span=_span(token))

    def true_lit(self, meta):
        return ast.Literal(True, span=_span(meta))

    def false_lit(self, meta):
        return ast.Literal(False, span=_span(meta))

    def none_lit(self, meta):
        return ast.Literal(None, span=_span(meta))

    def name_ref(self, meta, token):
        return ast.Name(str(token), span=_span(token))

    def list_lit(self, meta, *items):
        return ast.ListExpr(tuple(i for i in items if i is not None), span=_span(meta))

    def field_op(self, meta, obj, name):
        return ast.Field(obj, str(name), span=_span(meta))

    def index_op(self, meta, obj, key):
        return ast.Index(obj, key, span=_span(meta))

    def call_expr(self, meta, name, args):
        return ast.Call(str(name), args or (), span=_span(meta))

    def aggregate(self, meta, name, var, source, where, mapped):
        return ast.Aggregate(str(name), str(var), source, where, mapped, span=_span(meta))

    def where(self, meta, expr):
        return expr

    def mapped(self, meta, expr):
        return expr

    def args(self, meta, *args):
        return tuple(args)

    def arg(self, meta, value):
        return ast.Arg(value, span=_span(meta))

    def named_arg(self, meta, name, value):
        return ast.Arg(value, str(name), span=_span(meta))

    def or_op(self, meta, left, right):
        return ast.Binary("or", left, right, span=_span(meta))

    def and_op(self, meta, left, right):
        return ast.Binary("and", left, right, span=_span(meta))

    def not_op(self, meta, operand):
        return ast.Unary("not", operand, span=_span(meta))

    def compare_op(self, meta, left, op, right):
        return ast.Binary(str(op), left, right, span=_span(meta))

    def is_op(self, meta, left, right):
        return ast.Binary("is", left, right, span=_span(meta))

    def is_not_op(self, meta, left, right):
        return ast.Unary("not", ast.Binary("is", left, right, span=_span(meta)), span=_span(meta))

    def in_op(self, meta, left, right):
        return ast.Binary("in", left, right, span=_span(meta))

    def binary_op(self, meta, left, op, right):
        return ast.Binary(str(op), left, right, span=_span(meta))

    def mod_op(self, meta, left, right):
        return ast.Binary("mod", left, right, span=_span(meta))

    def neg_op(self, meta, operand):
        return ast.Unary("-", operand, span=_span(meta))

    def cond_expr(self, meta, then, cond, otherwise):
        return ast.Conditional(then, cond, otherwise, span=_span(meta))

    def emit_expr(self, meta, name, args):
        return ast.Emit(str(name), args or (), span=_span(meta))

    def choose_expr(self, meta, decision, var, source, by, prefer, default):
        return ast.Choose(str(decision), str(var), source, by, prefer, default, span=_span(meta))

    def ask_expr(self, meta, decision, by, default):
        return ast.Ask(str(decision), by, default, span=_span(meta))

    def prefer(self, meta, expr):
        return expr

    def default(self, meta, expr):
        return expr


#: rule name -> the _Builder method that builds it
_RULE_METHODS = {name: fn for name, fn in vars(_Builder).items()
                 if callable(fn) and not name.startswith("_") and name != "transform"}


def _with_override(decl: ast.Decl) -> ast.Decl:
    import dataclasses

    return dataclasses.replace(decl, override=True)


# ---------------------------------------------------------------- entry points
@dataclass(frozen=True)
class ParsedFile:
    """A parsed file: its module (possibly partial), its syntax diagnostics, and the names
    mentioned in text that recovery had to drop (see :mod:`.recovery`)."""

    module: ast.Module
    diagnostics: tuple[Diagnostic, ...]
    skipped: frozenset[str]


def parse_source(text: str, path: str = "<string>") -> ParsedFile:
    """Parse one Lore file, recovering after each syntax error; never raises on bad input.

    Results are cached by (text, path): a ParsedFile is immutable (frozen nodes, tuples), and
    checking many scenarios or a folder whose packs change one at a time parses each file once.
    """
    return _parse_cached(text, path)


@functools.lru_cache(maxsize=256)
def _parse_cached(text: str, path: str) -> ParsedFile:
    module = ast.Module(path, None, (), ())
    refused = token_problems(text, path)
    if refused:
        return ParsedFile(module, tuple(refused), frozenset())
    outcome = parse_recovering(lark_parser(), text, path)
    if outcome.tree is not None:
        outcome.diagnostics.extend(drop_deep_items(outcome.tree, path, outcome.skipped))
        builder = _Builder(path)
        module = builder.transform(outcome.tree)
        outcome.diagnostics.extend(builder.problems)
    return ParsedFile(module, tuple(sorted(outcome.diagnostics, key=Diagnostic.sort_key)),
                      frozenset(outcome.skipped))


def parse(text: str, path: str = "<string>") -> ast.Module:
    """Parse one Lore file; raise :class:`DiagnosticError` carrying the syntax diagnostics."""
    parsed = parse_source(text, path)
    if parsed.diagnostics:
        raise DiagnosticError(list(parsed.diagnostics))
    return parsed.module


def parse_with_diagnostics(text: str, path: str = "<string>") -> tuple[ast.Module, list[Diagnostic]]:
    """Parse, returning the module and every syntax diagnostic found.

    After a syntax error the parser resynchronises (at the next statement or declaration)
    and keeps going, so one run reports every error; the module holds what could be parsed.
    """
    parsed = parse_source(text, path)
    return parsed.module, list(parsed.diagnostics)
