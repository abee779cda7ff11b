"""The protocol side: pygls wiring of the features, and debounced diagnostics.

Every handler is a thin call into a module that knows Lore (:mod:`.analysis`,
:mod:`.completion`, :mod:`.navigation`, :mod:`.quickfix`). Diagnostics are recompiled
``DEBOUNCE`` seconds after the last change of a document, not at every keystroke: typing a
word costs one compile, and a compile never runs on a text the editor has already replaced.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Protocol

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from .analysis import Analysis, Documents
from ..dsl.confine import Roots, trusted_roots
from ..dsl import ast
from .completion import complete, in_yaml
from .convert import cursor, diagnostic, position
from .index import enclosing, word_at
from .navigation import definition, hover, lookup, outline, workspace_symbols
from .quickfix import fixes
from .references import bound, local_binding, references, rename_problem
from .scheduling import Scheduler, cap_seconds, cut_short
from .semantic import LEGEND, tokens

#: seconds of quiet after a change before the document is compiled again
DEBOUNCE = 0.15
YAML = (".yaml", ".yml")


class LoreServer(LanguageServer):
    """The language server and the documents it has compiled."""

    def __init__(self) -> None:
        super().__init__("hexlore", "0.1.0", text_document_sync_kind=types.TextDocumentSyncKind.Full)
        self.documents = Documents()
        self._pending: dict[str, asyncio.TimerHandle] = {}
        #: files that were last published with diagnostics
        self._published: set[str] = set()
        self.scheduler = Scheduler(self._analyse, self.documents.key)
        #: the latest publish asked for, per document: an older one still computing is dropped
        self._rounds: dict[str, int] = {}
        self._tasks: set[asyncio.Task] = set()
        #: documents outside the workspace -> the URI the editor named them by
        self._uris: dict[str, str] = {}

    # -- documents
    def path(self, uri: str) -> str:
        """The document's resolved path (the key of every table), confined to the workspace
        folders (hexlore/dsl/confine.py): a link leading out is noted, never read."""
        if self.documents.roots is None and self.workspace_folders():
            self.documents.roots = Roots.of(self.workspace_folders()) + trusted_roots()
        written = to_fs_path(uri) or uri
        path = str(Path(written).resolve())
        self.documents.admit(written, path)
        if path in self.documents.outside:
            self._uris[path] = uri  # its C023 goes to the document the editor shows, not the link's target
        return path

    def workspace_folders(self) -> list[str]:
        """The folders the editor opened (the roots), as paths."""
        try:
            workspace = self.workspace
        except RuntimeError:  # not initialised yet
            return []
        folders = [to_fs_path(f.uri) for f in (workspace.folders or {}).values()]
        if not folders and workspace.root_path:
            folders = [workspace.root_path]
        return [f for f in folders if f]

    def lines(self, path: str) -> list[str]:
        return self.documents.text(path).split("\n")

    def _analyse(self, path: str) -> Analysis | None:
        """The compile of ``path`` (on a worker thread: lsp/scheduling.py)."""
        if path.endswith(".lore"):
            return self.documents.lore(path)
        if path.endswith(YAML):
            return self.documents.scenario(path)
        return None

    async def analysis(self, path: str) -> Analysis | None:
        """The analysis of ``path``, computed off the loop; None past the time cap."""
        if not path.endswith((".lore", *YAML)):
            return None
        analysis, _ = await self.scheduler.within_cap(self.scheduler.submit(path))
        return analysis

    def publish(self, path: str) -> None:
        """Compile the document's rule set off the loop, and publish the diagnostics of each of
        its files when it is done (a W005 first if that takes longer than the cap)."""
        if not path.endswith((".lore", *YAML)):
            return
        self._rounds[path] = round_ = self._rounds.get(path, 0) + 1
        task = asyncio.get_running_loop().create_task(self._publish(path, round_))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _publish(self, path: str, round_: int) -> None:
        future = self.scheduler.submit(path)
        analysis, in_time = await self.scheduler.within_cap(future)
        if not in_time:
            if self._rounds.get(path) == round_:
                self._send(path, [cut_short(path, cap_seconds())])
            analysis = await asyncio.wrap_future(future)
        if analysis is None or self._rounds.get(path) != round_:
            return
        # files this compile covers that had problems before and may have none now get an empty list
        files = set(analysis.diagnostics) | {path} | (self._published & set(analysis.modules))
        for file in sorted(files):
            self._send(file, analysis.diagnostics.get(file, []))

    def _send(self, file: str, found: list) -> None:
        lines = self.lines(file)
        uri = self._uris.get(file) if file in self.documents.outside else None
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=uri or from_fs_path(file) or Path(file).as_uri(), diagnostics=[diagnostic(d, lines) for d in found]))
        if found:
            self._published.add(file)
        else:
            self._published.discard(file)

    def schedule(self, path: str) -> None:
        """Publish after ``DEBOUNCE`` seconds unless the document changes again first."""
        pending = self._pending.pop(path, None)
        if pending is not None:
            pending.cancel()
        self._pending[path] = asyncio.get_running_loop().call_later(DEBOUNCE, self._due, path)

    def _due(self, path: str) -> None:
        self._pending.pop(path, None)
        self.publish(path)


server = LoreServer()


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def on_open(ls: LoreServer, params: types.DidOpenTextDocumentParams) -> None:
    path = ls.path(params.text_document.uri)
    ls.documents.set(path, params.text_document.text)
    ls.publish(path)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def on_change(ls: LoreServer, params: types.DidChangeTextDocumentParams) -> None:
    path = ls.path(params.text_document.uri)
    ls.documents.set(path, ls.workspace.get_text_document(params.text_document.uri).source)
    ls.schedule(path)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def on_save(ls: LoreServer, params: types.DidSaveTextDocumentParams) -> None:
    path = ls.path(params.text_document.uri)
    ls.documents.set(path, ls.workspace.get_text_document(params.text_document.uri).source)
    ls.publish(path)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def on_close(ls: LoreServer, params: types.DidCloseTextDocumentParams) -> None:
    ls.documents.close(ls.path(params.text_document.uri))


class AtCursor(Protocol):
    """A request made at the cursor (completion, hover, definition, references, rename):
    lsprotocol's classes for them share these fields but no base class."""

    @property
    def text_document(self) -> types.TextDocumentIdentifier: ...

    @property
    def position(self) -> types.Position: ...


def _at(ls: LoreServer, params: AtCursor) -> tuple[str, list[str], int, int]:
    path = ls.path(params.text_document.uri)
    lines = ls.lines(path)
    line, column = cursor(lines, params.position)
    return path, lines, line, column


@server.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=["."]))
async def on_completion(ls: LoreServer, params: types.CompletionParams) -> types.CompletionList:
    path, lines, line, column = _at(ls, params)
    if path.endswith(YAML):
        analysis = await ls.analysis(path)
        text = lines[line][:column] if line < len(lines) else ""
        return types.CompletionList(is_incomplete=False, items=in_yaml(analysis.rules if analysis else None, text,
                                                                        analysis.hexes if analysis else ()))
    analysis = await ls.analysis(path) if path.endswith(".lore") else None
    rules = analysis.rules if analysis else None
    module = analysis.modules.get(path) if analysis else None
    return types.CompletionList(is_incomplete=False, items=complete(rules, module, lines, line, column))


@server.feature(types.TEXT_DOCUMENT_HOVER)
async def on_hover(ls: LoreServer, params: types.HoverParams) -> types.Hover | None:
    path, lines, line, column = _at(ls, params)
    analysis = await ls.analysis(path)
    return hover(analysis, lines[line], column) if analysis and line < len(lines) else None


@server.feature(types.TEXT_DOCUMENT_DEFINITION)
async def on_definition(ls: LoreServer, params: types.DefinitionParams) -> list[types.Location]:
    path, lines, line, column = _at(ls, params)
    analysis = await ls.analysis(path)
    if analysis is None or line >= len(lines):
        return []
    word = word_at(lines[line], column)
    module = analysis.modules.get(path)
    decl = enclosing(module, line + 1) if module is not None else None
    if word is not None and not word.after_dot and decl is not None and word.text in bound(decl, analysis.rules):
        at = local_binding(decl, lines, word.text)
        if at is not None:  # a local name: its binding in this declaration
            return [types.Location(uri=params.text_document.uri, range=types.Range(
                start=position(lines, at.line + 1, at.start + 1), end=position(lines, at.line + 1, at.end + 1)))]
        if isinstance(decl, ast.TriggerDecl):  # a trigger's event parameter: the event's declaration
            event = decl.event.rpartition(".")[2]
            return definition(analysis, ls.documents.texts, event, 0)
    return definition(analysis, ls.documents.texts, lines[line], column)


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
async def on_document_symbol(ls: LoreServer, params: types.DocumentSymbolParams) -> list[types.DocumentSymbol]:
    path = ls.path(params.text_document.uri)
    analysis = await ls.analysis(path) if path.endswith(".lore") else None
    module = analysis.modules.get(path) if analysis else None
    return outline(module, ls.lines(path)) if module is not None else []


@server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
def on_code_action(ls: LoreServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    lines = ls.lines(ls.path(params.text_document.uri))
    return [a for d in params.context.diagnostics for a in fixes(params.text_document.uri, lines, d)]


async def _named_here(ls: LoreServer, params: AtCursor) -> tuple[Analysis, str] | None:
    """The analysis and the declared name at the cursor; None on a field, a local name or
    anything no declaration of the rule set has."""
    path, lines, line, column = _at(ls, params)
    analysis = await ls.analysis(path)
    word = word_at(lines[line], column) if line < len(lines) else None
    if analysis is None or word is None or word.after_dot:
        return None
    _, found = lookup(analysis, lines[line], column)
    if not any(isinstance(d.decl, ast.Decl) for d in found):
        return None
    module = analysis.modules.get(path)
    decl = enclosing(module, line + 1) if module is not None else None
    if decl is not None and word.text in bound(decl, analysis.rules):
        return None
    return analysis, word.text


def _places(ls: LoreServer, analysis: Analysis, name: str, declarations: bool) -> dict[str, list[types.Range]]:
    texts = {f: ls.lines(f) for f in analysis.modules}
    found: dict[str, list[types.Range]] = {}
    for p in references(analysis.modules, texts, analysis.rules, name, declarations):
        lines = texts[p.file]
        found.setdefault(from_fs_path(p.file) or Path(p.file).as_uri(), []).append(types.Range(
            start=position(lines, p.line + 1, p.start + 1), end=position(lines, p.line + 1, p.end + 1)))
    return found


@server.feature(types.TEXT_DOCUMENT_REFERENCES)
async def on_references(ls: LoreServer, params: types.ReferenceParams) -> list[types.Location]:
    named = await _named_here(ls, params)
    if named is None:
        return []
    places = _places(ls, *named, params.context.include_declaration)
    return [types.Location(uri=uri, range=r) for uri, ranges in places.items() for r in ranges]


@server.feature(types.TEXT_DOCUMENT_RENAME)
async def on_rename(ls: LoreServer, params: types.RenameParams) -> types.WorkspaceEdit | None:
    """Rename a declaration and every use of it in the packs of its rule set (not in YAML)."""
    named = await _named_here(ls, params)
    if named is None:
        return None
    analysis, old = named
    problem = rename_problem(analysis.modules, {f: ls.lines(f) for f in analysis.modules}, analysis.rules,
                             old, params.new_name)
    if problem:  # an error response the editor shows as it is: no traceback, the reason
        raise JsonRpcException(f"cannot rename '{old}': {problem}", code=types.LSPErrorCodes.RequestFailed)
    return types.WorkspaceEdit(changes={uri: [types.TextEdit(range=r, new_text=params.new_name) for r in ranges]
                                        for uri, ranges in _places(ls, analysis, old, True).items()})


@server.feature(types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, LEGEND)
async def on_semantic_tokens(ls: LoreServer, params: types.SemanticTokensParams) -> types.SemanticTokens:
    path = ls.path(params.text_document.uri)
    analysis = await ls.analysis(path) if path.endswith(".lore") else None
    module = analysis.modules.get(path) if analysis else None
    if analysis is None or module is None:
        return types.SemanticTokens(data=[])
    return types.SemanticTokens(data=tokens(module, ls.lines(path), analysis.rules))


@server.feature(types.WORKSPACE_SYMBOL)
def on_workspace_symbol(ls: LoreServer, params: types.WorkspaceSymbolParams) -> list[types.WorkspaceSymbol]:
    """The declarations of the rule sets compiled so far (those of the open documents) whose
    name contains the query."""
    return workspace_symbols(ls.documents.analyses(), params.query)


def serve() -> None:
    """Serve one editor on standard input and output until it says exit."""
    server.start_io()
