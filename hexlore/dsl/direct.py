"""Parse a file with no syntax error straight into the AST, while Lark reduces each rule.

Building Lark's tree (a ``Tree`` and a ``Meta`` per node, positions copied attribute by
attribute) and then walking it again cost more than the LALR parse itself. Here Lark's own
parser runs with callbacks of ours: each reduction calls the :class:`AstBuilder` method of
its rule with the children Lark would have kept and the position Lark's
``propagate_positions`` would have given the node, so the module is the one the tree walk
builds, spans included.

What Lark keeps and where a node is are Lark's rules, followed here exactly:

- children: anonymous tokens are dropped (all tokens kept in ``!rule``), ``[x]`` that matched
  nothing is None, and the children of an inlined ``_rule`` take its place;
- a ``?rule`` with one child left is replaced by that child;
- a node runs from the first to the last of all its children that has a position, anonymous
  tokens included. A child replaced into its parent (``"(" expr ")"``) keeps its own span
  but stands for the wider text of the rule it replaced (Lark's *container*): a parent it
  begins or ends reaches the brackets.

Each value on the parser's stack is a token or ``(value, line, column, end_line,
end_column, height)``; line is None when the rule matched no text, and height is the depth
of the subtree Lark would have built, so that a file nested deeper than recovery allows
(P009) takes the slow path, which reports it. Anything this module does not expect
(a syntax error, an unknown rule shape) raises, and the caller parses the slow way.
"""

from __future__ import annotations

import functools
import weakref
from operator import itemgetter
from typing import Callable

from lark import Lark, Tree
from lark.grammar import Terminal

from . import ast
from .ast_builder import RULE_METHODS, AstBuilder
from .recovery import MAX_DEPTH

_TOKEN, _NODE, _SPLICE = 0, 1, 2


class Unsupported(Exception):
    """The file needs the slow path: Lark would build something the fast path cannot match."""


def _follows(parser: Lark) -> bool:
    """Whether ``parser`` shapes its tree the way this module follows: positions propagated,
    ``[x]`` kept as None, anonymous tokens dropped, Lark's own Tree, no transformer."""
    options = parser.options
    return (options.propagate_positions is True and options.maybe_placeholders is True
            and not options.keep_all_tokens and options.tree_class in (None, Tree)
            and options.transformer is None and options.parser == "lalr")


@functools.cache
def _plans(parser: Lark) -> tuple[tuple, ...]:
    """Per rule of the grammar, what its callback needs, worked out once per parser."""
    if not _follows(parser):
        raise Unsupported("a parser configured otherwise than this module follows")
    plans = []
    for rule in parser.rules:
        options = rule.options
        keep_all = options.keep_all_tokens
        empty = options.empty_indices
        # how many None placeholders come before each symbol, and after the last one
        nones = [0] * (len(rule.expansion) + 1)
        if empty:
            ones = "".join(str(int(b)) for b in empty).split("0")
            nones = [len(run) for run in ones]
        include = []
        pending = 0
        for i, sym in enumerate(rule.expansion):
            pending += nones[i]
            if isinstance(sym, Terminal):  # is_term: what a Terminal says it is
                if keep_all or not sym.filter_out:
                    include.append((i, _TOKEN, pending))
                    pending = 0
            else:
                include.append((i, _SPLICE if sym.name.startswith("_") else _NODE, pending))
                pending = 0
        trailing = pending + nones[len(rule.expansion)]
        name = rule.alias or rule.options.template_source or rule.origin.name
        expand = bool(options.expand1 and not rule.alias)
        inline = rule.origin.name.startswith("_")
        plans.append((rule, name, tuple(include), trailing, expand, inline))
    return tuple(plans)


class _Reducers:
    """The callbacks of one parse at a time, each building with :attr:`builder`.

    Making the 247 callbacks cost as much as parsing a small file, so a set is made once
    and kept in a pool (:func:`_borrow`); a parse sets the builder it builds with.
    """

    def __init__(self, parser: Lark):
        self.builder: AstBuilder | None = None
        self.table: dict = {}
        for rule, name, include, trailing, expand, inline in _plans(parser):
            if expand and len(rule.expansion) == 1 and len(include) == 1 and include[0][1] == _NODE:
                self.table[rule] = itemgetter(0)  # a chain rule (?expr: or_expr): the child is the node
                continue
            method = None if inline else RULE_METHODS.get(name)
            if method is not None and not expand and not trailing and len(rule.expansion) == 1:
                if include == ((0, _TOKEN, 0),):
                    self.table[rule] = self._one_token(method)
                    continue
                if include == ((0, _NODE, 0),):
                    self.table[rule] = self._one_node(method)
                    continue
            self.table[rule] = self._any(method, include, trailing, expand, inline)

    def _one_token(self, method) -> Callable[[list], tuple]:
        """``name_ref: NAME`` and the like: the node is where its one token is."""
        def reduce(raw: list) -> tuple:
            token = raw[0]
            at = (token.line, token.column, token.end_line, token.end_column)
            return (method(self.builder, at, token), *at, 2)

        return reduce

    def _one_node(self, method) -> Callable[[list], tuple]:
        """``arg: expr`` and the like: the node is where its one child is."""
        def reduce(raw: list) -> tuple:
            child = raw[0]
            if child.__class__ is not tuple:  # a token a ?rule left in place of itself
                at = (child.line, child.column, child.end_line, child.end_column)
                return (method(self.builder, at, child), *at, 2)
            where = None if child[1] is None else child[1:5]
            return (method(self.builder, where, child[0]), *child[1:5], child[5] + 1)

        return reduce

    def _any(self, method, include: tuple, trailing: int, expand: bool,
             inline: bool) -> Callable[[list], object]:
        """Any other rule, followed step by step."""
        def reduce(raw: list):
            # the node's position: from the first and last children that have one
            line = column = end_line = end_column = None
            for v in raw:
                if v.__class__ is tuple:
                    if v[1] is not None:
                        line, column = v[1], v[2]
                        break
                else:
                    line, column = v.line, v.column
                    break
            if line is not None:
                for v in reversed(raw):
                    if v.__class__ is tuple:
                        if v[1] is not None:
                            end_line, end_column = v[3], v[4]
                            break
                    else:
                        end_line, end_column = v.end_line, v.end_column
                        break
            children: list = []
            height = 1 if trailing else 0
            for i, mode, nones in include:
                if nones:
                    children.extend([None] * nones)
                    height = height or 1
                v = raw[i]
                if mode == _TOKEN:
                    children.append(v)
                    height = height or 1
                elif v.__class__ is not tuple:  # a token that a ?rule left in place of itself
                    children.append(v)
                    height = height or 1
                elif mode == _NODE:
                    children.append(v[0])
                    if v[5] > height:
                        height = v[5]
                else:
                    children.extend(v[0])
                    if v[5] > height:
                        height = v[5]
            if trailing:
                children.extend([None] * trailing)
            if inline:
                return (children, line, column, end_line, end_column, height)
            if expand and len(children) == 1:
                return _replace(raw, include, trailing, line, column, end_line, end_column)
            if method is None:
                raise Unsupported("a rule with no AST method of its own")
            at = None if line is None else (line, column, end_line, end_column)
            return (method(self.builder, at, *children), line, column, end_line, end_column, height + 1)

        return reduce


#: parser -> callback sets not in use (a list's pop and append are atomic: threads may parse at once)
_POOLS: weakref.WeakKeyDictionary[Lark, list[_Reducers]] = weakref.WeakKeyDictionary()


def _borrow(parser: Lark) -> tuple[_Reducers, list[_Reducers]]:
    """A callback set for ``parser`` and the pool to give it back to."""
    pool = _POOLS.setdefault(parser, [])
    try:
        return pool.pop(), pool
    except IndexError:
        return _Reducers(parser), pool


def _replace(raw: list, include: tuple, trailing: int, line, column, end_line, end_column):
    """The one child a ?rule leaves in its place, standing for the rule's whole text."""
    if len(include) != 1 or include[0][1] == _SPLICE or include[0][2] or trailing:
        raise Unsupported("a ?rule whose only child is a placeholder or came from an inlined rule")
    child = raw[include[0][0]]
    if child.__class__ is not tuple:
        return child  # Lark gives a token no container
    if child[1] is None:  # Lark would give the node itself the position: the tree walk would see it
        raise Unsupported("a replaced child without a position")
    return (child[0], line, column, end_line, end_column, child[5])


def parse_direct(parser: Lark, text: str, path: str) -> tuple[ast.Module, AstBuilder]:
    """The module of ``text`` and the builder that made it (its ``problems``).

    Raises Lark's ``UnexpectedInput`` at a syntax error and :class:`Unsupported` when the
    file must take the slow path (too deep, or a shape this module does not build).
    """
    builder = AstBuilder(path)
    reducers, pool = _borrow(parser)
    reducers.builder = builder
    try:
        interactive = parser.parse_interactive(text)
        interactive.parser_state.parse_conf.callbacks = reducers.table
        module, *_, height = interactive.resume_parse()
    finally:
        reducers.builder = None
        pool.append(reducers)
    if height > MAX_DEPTH:  # an item of the file is deeper than recovery allows (P009)
        raise Unsupported("nested too deep")
    return module, builder


__all__ = ["Unsupported", "parse_direct"]
