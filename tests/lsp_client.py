"""A language-server client for the tests: ``python -m hexlore lsp`` in a subprocess, spoken to
in JSON-RPC over its standard input and output, as an editor does.

A reader thread collects every message the server sends; the tests wait for a response by id
or for the next diagnostics of a document, with a deadline (a hung server fails, not hangs).
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

DEADLINE = 20.0


class Client:
    def __init__(self, cwd: Path) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "hexlore", "lsp"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd, env=dict(os.environ))
        self._next = 0
        self._responses: dict[int, dict] = {}
        self._notes: queue.Queue[dict] = queue.Queue()
        self._lock = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.versions: dict[str, int] = {}
        #: what the server said it can do, in its answer to initialize
        self.capabilities: dict = {}

    # -- wire
    def _send(self, message: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        self.proc.stdin.write(f"Content-Length: {len(body)}\r\n\r\n".encode("ascii") + body)
        self.proc.stdin.flush()

    def _read(self) -> None:
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            message = json.loads(out.read(length))
            if "id" in message and "method" not in message:
                with self._lock:
                    self._responses[message["id"]] = message
                    self._lock.notify_all()
            elif "method" in message:
                if "id" in message:  # a request of the server (registrations…): acknowledged
                    self._send({"id": message["id"], "result": None})
                self._notes.put(message)

    def request(self, method: str, params: dict) -> object:
        answer = self.answer(method, params)
        assert "error" not in answer, answer
        return answer["result"]

    def answer(self, method: str, params: dict) -> dict:
        """The whole response to a request: its result, or its error."""
        self._next += 1
        ident = self._next
        self._send({"id": ident, "method": method, "params": params})
        with self._lock:
            if not self._lock.wait_for(lambda: ident in self._responses, timeout=DEADLINE):
                raise TimeoutError(f"no answer to {method}")
            return self._responses.pop(ident)

    def notify(self, method: str, params: dict) -> None:
        self._send({"method": method, "params": params})

    def diagnostics(self, uri: str) -> list[dict]:
        """The next diagnostics published for ``uri`` (others are skipped)."""
        end = time.monotonic() + DEADLINE
        while True:
            note = self._notes.get(timeout=max(end - time.monotonic(), 0.01))
            if note["method"] == "textDocument/publishDiagnostics" and note["params"]["uri"] == uri:
                return note["params"]["diagnostics"]

    # -- the protocol's life
    def start(self, root: Path) -> dict:
        result = self.request("initialize", {"processId": os.getpid(), "rootUri": root.as_uri(),
                                             "capabilities": {}})
        self.notify("initialized", {})
        self.capabilities = result["capabilities"]
        return result

    def open(self, path: Path, text: str | None = None) -> str:
        uri = path.resolve().as_uri()
        self.versions[uri] = 1
        language = "lore" if path.suffix == ".lore" else "yaml"
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": language, "version": 1,
            "text": path.read_text(encoding="utf-8") if text is None else text}})
        return uri

    def change(self, uri: str, text: str) -> None:
        self.versions[uri] += 1
        self.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": self.versions[uri]},
                                               "contentChanges": [{"text": text}]})

    def stop(self) -> None:
        try:
            self.request("shutdown", {})
            self.notify("exit", {})
            self.proc.wait(timeout=5)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()
            for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
                stream.close()
