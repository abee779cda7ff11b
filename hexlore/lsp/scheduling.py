"""Analyses off the message loop, each waited for at most a time cap.

Why: the server answers every request on one asyncio loop. A compile run on that loop (a
large or hostile pack took minutes before the cycle check was made linear) kept every other
answer waiting, about every other file. Here a compile runs on a worker thread; the loop
awaits it for at most :func:`cap_seconds`. Past the cap the loop goes on: the document gets a
W005 diagnostic saying its analysis was cut short, requests about it answer empty, and
everything about other files is answered meanwhile. A thread cannot be stopped from outside,
so the compile finishes in the background; if its document has not changed since, its
diagnostics then replace the W005.

Compiles of one key (a folder of packs, a scenario) are shared: a request arriving while
the document's compile runs waits for that one rather than starting another.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future

from ..diagnostics import Diagnostic, Span, codes, warning
from .analysis import Analysis


#: seconds the loop waits for one analysis, unless HEXLORE_LSP_ANALYSIS_SECONDS says otherwise
DEFAULT_CAP = 10.0
#: worker threads: a slow folder keeps one busy, the other still serves the other files
WORKERS = 2


def cap_seconds() -> float:
    """The time cap, from the environment (a test or a slow machine may change it)."""
    try:
        value = float(os.environ.get("HEXLORE_LSP_ANALYSIS_SECONDS", DEFAULT_CAP))
    except ValueError:
        return DEFAULT_CAP
    return value if value > 0 else DEFAULT_CAP


def cut_short(path: str, cap: float) -> Diagnostic:
    """The diagnostic a document gets while its analysis runs past the cap."""
    return warning(codes.CUT_SHORT, f"the analysis of this file took longer than {cap:g} s and was cut short: its "
                   "diagnostics, completion and hover are not available until it finishes", path, Span(),
                   "split a very large pack into several files, or look for a generated or hostile file in "
                   "its folder (hexlore check FOLDER reports what is slow to check)")


class Scheduler:
    """Runs ``compute(path)`` on worker threads, one run per key at a time.

    The threads are daemons, started per run and at most :data:`WORKERS` computing at once:
    a run past the cap must not keep the server from exiting when the editor says exit (a
    pool's threads are joined at exit).
    """

    def __init__(self, compute: Callable[[str], Analysis | None], key: Callable[[str], str]) -> None:
        self._compute = compute
        self._key = key
        self._slots = threading.BoundedSemaphore(WORKERS)
        self._running: dict[str, Future] = {}

    def submit(self, path: str) -> Future:
        """The run computing ``path``'s analysis: the one under way for its key, or a new one."""
        key = self._key(path)
        running = self._running.get(key)
        if running is not None and not running.done():
            return running
        future: Future = Future()
        self._running = {k: f for k, f in self._running.items() if not f.done()}
        self._running[key] = future
        threading.Thread(target=self._run, args=(path, future), daemon=True, name="hexlore-analysis").start()
        return future

    def _run(self, path: str, future: Future) -> None:
        with self._slots:
            if not future.set_running_or_notify_cancel():
                return
            try:
                future.set_result(self._compute(path))
            except BaseException as exc:  # noqa: BLE001 — handed to the awaiting handler, as on the loop
                future.set_exception(exc)

    @staticmethod
    async def within_cap(future: Future) -> tuple[Analysis | None, bool]:
        """(the run's analysis, True) if it ends within the cap, else (None, False); the run
        goes on in the background either way."""
        try:
            return await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(future)), cap_seconds()), True
        except asyncio.TimeoutError:
            return None, False
