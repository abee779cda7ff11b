"""Build the frozen AST from what a parse found, one method per grammar rule.

The same methods serve both ways of parsing (see :mod:`.parser`): the fast path calls them
while Lark reduces each rule (:mod:`.direct`), and after a syntax error they are run over the
tree that recovery produced (:func:`build_from_tree`). One set of methods keeps the two
paths' modules identical, spans included.

Each method is called as ``method(at, *children)``: ``at`` is the node's position as
``(line, column, end_line, end_column)``, or None when the rule matched no text, and the
children are those Lark keeps (anonymous tokens filtered out, ``[x]`` as None).
"""

from __future__ import annotations

import dataclasses
import re

from lark import Token, Tree

from . import ast
from ..diagnostics import Diagnostic, Span, codes, error
from .limits import MAX_FACES


#: a node's position: (line, column, end_line, end_column), or None for no text at all
At = tuple[int, int, int, int] | None


def _span(at: At) -> Span:
    """The span of a node's position (``ast.NOWHERE`` when the rule matched no text)."""
    return ast.NOWHERE if at is None else Span(*at)


def _token_span(token: Token) -> Span:
    line, column = token.line or 1, token.column or 1  # Lark types them Optional; its lexer sets them
    end_col = token.end_column or (column + len(token))
    return Span(line, column, token.end_line or line, end_col)


def meta_at(meta) -> At:
    """The position of a Lark tree node, from the metadata ``propagate_positions`` gave it."""
    if getattr(meta, "empty", True):
        return None
    return (meta.line, meta.column, meta.end_line, meta.end_column)


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"'}
_ESCAPE = re.compile(r"\\(u[0-9A-Fa-f]{4}|.)")


class Dotted(str):
    """A name as written, perhaps qualified (``bl.hit``), with the span it covers."""

    span: Span

    def __new__(cls, text: str, span: Span) -> "Dotted":
        self = super().__new__(cls, text)
        self.span = span
        return self


def _unquote(token: str) -> str:
    """The text of a string literal: \\n \\t \\r \\\\ \\" and \\uXXXX; any other backslash stays as written."""
    def one(m: re.Match) -> str:
        code = m.group(1)
        if len(code) == 5:
            return chr(int(code[1:], 16))
        return _ESCAPES.get(code, m.group(0))

    return _ESCAPE.sub(one, token[1:-1])


class AstBuilder:
    """Builds AST nodes bottom-up; every node gets the span of its parse-tree node.

    Plain methods, not a Lark Transformer: ``v_args`` wrapped every call in a new bound object
    that copied the node's metadata, and a Transformer cannot be called during the parse
    with the positions of the tokens it filters out.
    """

    def __init__(self, path: str):
        self.path = path
        self.problems: list[Diagnostic] = []  # limits found while building (face ranges)

    # -- top level
    def start(self, at, *items):
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
        return ast.Module(self.path, pack, tuple(uses), tuple(decls), span=_span(at))

    def dotted(self, at, *names):
        return Dotted(".".join(str(n) for n in names), _span(at))

    def pack_decl(self, at, name):
        return ast.Pack(str(name), span=_span(at))

    def use_decl(self, at, name, alias):
        return ast.Use(str(name), str(alias) if alias is not None else None, span=_span(at))

    def override_item(self, at, decl):
        if isinstance(decl, list):
            return [_with_override(d) for d in decl]
        return _with_override(decl)

    def name_list(self, at, *names):
        return list(names)

    def qual_list(self, at, *names):
        return list(names)

    def enum_decl(self, at, name, values):
        return ast.EnumDecl(str(name), tuple(str(v) for v in values), span=_span(at),
                            name_span=_token_span(name))

    def tag_decl(self, at, names):
        return [ast.TagDecl(str(n), span=_token_span(n), name_span=_token_span(n)) for n in names]

    # -- dice
    def die_decl(self, at, name, title, *faces):
        flat: list[ast.FaceDecl] = []
        for f in faces:
            flat.extend(f if isinstance(f, list) else [f])
        return ast.DieDecl(str(name), _unquote(title) if title else None, tuple(flat),
                           span=_span(at), name_span=_token_span(name))

    def face(self, at, label, value, tags):
        return ast.FaceDecl(label, value, tuple(str(t) for t in (tags or ())), span=_span(at))

    def face_label(self, at, token):
        return str(token)

    def face_value(self, at, value):
        return value

    def face_tags(self, at, names):
        return names

    def face_range(self, at, low, high):
        span = _span(at)
        low, high = int(low), int(high)
        if high - low + 1 > MAX_FACES:  # checked before the range is expanded face by face
            self.problems.append(error(codes.FACE_RANGE_TOO_LARGE, f"'faces {low}..{high}' makes {high - low + 1:,} faces; "
                                       f"a die may have at most {MAX_FACES:,}", self.path, span,
                                       "a die with that many faces is a number: use a smaller range, "
                                       "or roll several dice"))
            high = low + MAX_FACES - 1  # keep checking the rest with a die of the largest size
        return [ast.FaceDecl(str(v), v, (), span=span) for v in range(low, high + 1)]

    def signed_int(self, at, *parts):
        return -int(parts[-1]) if len(parts) == 2 else int(parts[0])

    # -- data
    def kind_decl(self, at, name, *fields):
        return ast.KindDecl(str(name), tuple(fields), span=_span(at), name_span=_token_span(name))

    def fields_decl(self, at, name, *fields):
        return ast.FieldsDecl(str(name), tuple(fields), span=_span(at), name_span=_token_span(name))

    def campaign_fields_decl(self, at, name, *fields):
        return ast.FieldsDecl(str(name), tuple(fields), campaign=True, span=_span(at), name_span=_token_span(name))

    def kind_name(self, at, token):
        return token

    def field_decl(self, at, name, type_, default):
        return ast.FieldDecl(str(name), type_, default, span=_token_span(name))

    def trait_decl(self, at, name, traits, *props):
        return ast.TraitDecl(str(name), tuple(traits or ()), tuple(props), span=_span(at),
                             name_span=_token_span(name))

    def definition(self, at, kind, name, title, traits, *props):
        return ast.Definition(str(name), str(kind), _unquote(title) if title else None,
                              tuple(traits or ()), tuple(props), span=_span(at),
                              name_span=_token_span(name), kind_span=_token_span(kind))

    def traits(self, at, names):
        return tuple(str(n) for n in names)

    def prop(self, at, name, value):
        return ast.Prop(str(name), value, span=_token_span(name))

    def option_decl(self, at, name, type_, default, doc):
        return ast.OptionDecl(str(name), type_, default, _unquote(doc) if doc else None,
                              span=_span(at), name_span=_token_span(name))

    def table_decl(self, at, name, key_type, value_type, *entries):
        return ast.TableDecl(str(name), key_type, value_type, tuple(entries), span=_span(at),
                             name_span=_token_span(name))

    def table_entry(self, at, key, value):
        return (key, value)

    def table_key(self, at, token):
        if token.type == "INT":
            return ast.Literal(int(token), span=_token_span(token))
        if token.type == "STRING":
            return ast.Literal(_unquote(token), span=_token_span(token))
        return ast.Name(str(token), span=_token_span(token))

    def named_type(self, at, name):
        return ast.TypeRef(str(name), span=_span(at))

    def list_type(self, at, item):
        return ast.TypeRef("list", item, span=_span(at))

    def optional_type(self, at, inner):
        return ast.TypeRef(inner.name, inner.item, True, span=_span(at))

    # -- behaviour
    def params(self, at, *params):
        return tuple(params)

    def param(self, at, name, type_, default):
        return ast.Param(str(name), type_, default, span=_span(at))

    def function_decl(self, at, name, params, returns, body):
        return ast.FunctionDecl(str(name), params or (), returns, body, span=_span(at),
                                name_span=_token_span(name))

    def procedure_decl(self, at, name, params, returns, doc, body):
        return ast.ProcedureDecl(str(name), params or (), returns, body, _unquote(doc) if doc else None,
                                 span=_span(at), name_span=_token_span(name))

    def returns(self, at, type_):
        return type_

    def event_decl(self, at, name, params, doc):
        return ast.EventDecl(str(name), params or (), _unquote(doc) if doc else None, span=_span(at),
                             name_span=_token_span(name))

    def trigger_decl(self, at, name, timing, event, guard, *rest):
        *options, body = rest
        optional_by = optional_prefer = None
        priority = 0
        for kind, value in options:
            if kind == "optional":
                optional_by, optional_prefer = value
            else:
                priority = value
        return ast.TriggerDecl(str(name), timing, str(event), guard, optional_by, priority, body,
                               span=_span(at), name_span=_token_span(name), event_span=event.span,
                               optional_prefer=optional_prefer)

    def timing(self, at, *tokens):
        return "instead" if str(tokens[0]) == "instead" else str(tokens[0])

    def guard(self, at, expr):
        return expr

    def optional_by(self, at, expr, prefer):
        return ("optional", (expr, prefer))

    def priority(self, at, value):
        return ("priority", value)

    def game_decl(self, at, name, title, *items):
        blocks = tuple(i[1:] for i in items if i[0] == "block")
        settings = tuple(i[1] for i in items if i[0] == "setting")
        return ast.GameDecl(str(name), _unquote(title) if title else None, blocks, settings,
                            span=_span(at), name_span=_token_span(name))

    def game_block(self, at, name, block):
        return ("block", str(name), block)

    def game_setting(self, at, name, value):
        return ("setting", ast.Prop(str(name), value, span=_token_span(name)))

    # -- statements
    def block(self, at, *stmts):
        return ast.Block(tuple(stmts), span=_span(at))

    def let_stmt(self, at, name, value):
        return ast.Let(str(name), value, span=_span(at))

    def assign_stmt(self, at, target, op, value):
        return ast.Assign(target, str(op), value, span=_span(at))

    def target(self, at, *names):
        return tuple(str(n) for n in names)

    def target_head(self, at, token):
        return str(token)

    def game_ref(self, at):
        return ast.Name("game", span=_span(at))

    def if_stmt(self, at, cond, block, *rest):
        branches = [(cond, block)]
        otherwise = None
        for item in rest:
            if item is None:
                continue
            if isinstance(item, tuple):
                branches.append(item)
            else:
                otherwise = item
        return ast.If(tuple(branches), otherwise, span=_span(at))

    def elif_clause(self, at, cond, block):
        return (cond, block)

    def else_clause(self, at, block):
        return block

    def for_stmt(self, at, var, source, body):
        return ast.ForEach(str(var), source, body, span=_span(at))

    def repeat_stmt(self, at, times, body):
        return ast.Repeat(times, body, span=_span(at))

    def while_stmt(self, at, cond, body):
        return ast.While(cond, body, span=_span(at))

    def require_stmt(self, at, cond, message):
        return ast.Require(cond, _unquote(message) if message else None, span=_span(at))

    def break_stmt(self, at):
        return ast.Break(span=_span(at))

    def stop_stmt(self, at):
        return ast.Stop(span=_span(at))

    def return_stmt(self, at, value):
        return ast.Return(value, span=_span(at))

    def expr_stmt(self, at, expr):
        return ast.ExprStmt(expr, span=_span(at))

    def call_stmt(self, at, target, args):
        return ast.ExprStmt(ast.Call(".".join(target), args or (), span=_span(at)), span=_span(at))

    # -- expressions
    def int_lit(self, at, token):
        return ast.Literal(int(token), span=_token_span(token))

    def str_lit(self, at, token):
        return ast.Literal(_unquote(token), span=_token_span(token))

    def true_lit(self, at):
        return ast.Literal(True, span=_span(at))

    def false_lit(self, at):
        return ast.Literal(False, span=_span(at))

    def none_lit(self, at):
        return ast.Literal(None, span=_span(at))

    def name_ref(self, at, token):
        return ast.Name(str(token), span=_token_span(token))

    def list_lit(self, at, *items):
        return ast.ListExpr(tuple(i for i in items if i is not None), span=_span(at))

    def typed_list_lit(self, at, item_type):
        return ast.ListExpr((), item_type, span=_span(at))

    def field_op(self, at, obj, name):
        return ast.Field(obj, str(name), span=_span(at))

    def index_op(self, at, obj, key):
        return ast.Index(obj, key, span=_span(at))

    def call_expr(self, at, name, args):
        return ast.Call(str(name), args or (), span=_span(at))

    def qualified_call(self, at, obj, name, args):
        """``bl.heal(u)``: a call qualified by a pack or an alias. The compiler tells a qualifier
        from anything else; here a call on any other value keeps the text, to be reported."""
        parts = [str(name)]
        while isinstance(obj, ast.Field):
            parts.append(obj.name)
            obj = obj.obj
        head = obj.name if isinstance(obj, ast.Name) else "(…)"
        return ast.Call(".".join([head, *reversed(parts)]), args or (), span=_span(at))

    def aggregate(self, at, name, var, source, where, mapped):
        return ast.Aggregate(str(name), str(var), source, where, mapped, span=_span(at))

    def where(self, at, expr):
        return expr

    def mapped(self, at, expr):
        return expr

    def args(self, at, *args):
        return tuple(args)

    def arg(self, at, value):
        return ast.Arg(value, span=_span(at))

    def named_arg(self, at, name, value):
        return ast.Arg(value, str(name), span=_span(at))

    def or_op(self, at, left, right):
        return ast.Binary("or", left, right, span=_span(at))

    def and_op(self, at, left, right):
        return ast.Binary("and", left, right, span=_span(at))

    def not_op(self, at, operand):
        return ast.Unary("not", operand, span=_span(at))

    def compare_op(self, at, left, op, right):
        return ast.Binary(str(op), left, right, span=_span(at))

    def is_op(self, at, left, right):
        return ast.Binary("is", left, right, span=_span(at))

    def is_not_op(self, at, left, right):
        return ast.Unary("not", ast.Binary("is", left, right, span=_span(at)), span=_span(at))

    def in_op(self, at, left, right):
        return ast.Binary("in", left, right, span=_span(at))

    def binary_op(self, at, left, op, right):
        return ast.Binary(str(op), left, right, span=_span(at))

    def mod_op(self, at, left, right):
        return ast.Binary("mod", left, right, span=_span(at))

    def neg_op(self, at, operand):
        return ast.Unary("-", operand, span=_span(at))

    def cond_expr(self, at, then, cond, otherwise):
        return ast.Conditional(then, cond, otherwise, span=_span(at))

    def emit_expr(self, at, name, args):
        return ast.Emit(str(name), args or (), span=_span(at))

    def choose_expr(self, at, decision, var, source, by, prefer, default):
        return ast.Choose(str(decision), str(var), source, by, prefer, default, span=_span(at))

    def ask_expr(self, at, decision, by, prefer, default):
        return ast.Ask(str(decision), by, prefer, default, span=_span(at))

    def prefer(self, at, expr):
        return expr

    def default(self, at, expr):
        return expr


#: rule name -> the AstBuilder method that builds it
RULE_METHODS = {name: fn for name, fn in vars(AstBuilder).items()
                if callable(fn) and not name.startswith("_")}


def _with_override(decl: ast.Decl) -> ast.Decl:
    return dataclasses.replace(decl, override=True)


def build_from_tree(builder: AstBuilder, tree: Tree):
    """Build the AST of a whole parse tree (the path taken after a syntax error).

    A rule with no method of its own stays a tree, as Lark would leave it.
    """
    children = [build_from_tree(builder, c) if c.__class__ is Tree else c for c in tree.children]
    method = RULE_METHODS.get(tree.data)
    if method is None:
        return Tree(tree.data, children, tree.meta)
    return method(builder, meta_at(tree.meta), *children)
