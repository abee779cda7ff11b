"""Fewer cyclic garbage collections while a command builds large, long-lived object graphs.

Checking packs and scenarios allocates hundreds of thousands of small objects (syntax
nodes, IR, YAML nodes, diagnostics) that mostly live until the command ends. Python's
cyclic collector runs after every 700 net allocations, and each of its full passes walks
everything alive: ``hexlore check rules scenarios`` spent a quarter of its CPU time (1.3 of
5 s, 949 collections) in the collector, which found little to free. Raising the first
threshold, as mypy does for the same reason (``gc.set_threshold`` in mypy's main), leaves
reference counting, which frees nearly everything, as it is; cycles are still collected, in
fewer and larger passes (a few megabytes of garbage at most between two).

The thresholds are the interpreter's, one for all threads: the first caller in raises them,
the last one out puts back what was there (the language server checks from several threads).

At exit the interpreter collects again, walking every rule set and scenario the command kept
(the compile and parse caches): 0.6 s of the bundled files' 6. A command that is done with
them freezes what is alive first (:func:`no_collection_at_exit`), so those passes skip it;
the memory goes back to the system with the process, as it would anyway.
"""

from __future__ import annotations

import atexit
import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

#: allocations between two collections of the youngest generation while checking (Python: 700)
CHECK_THRESHOLD = 50_000

_lock = threading.Lock()
_inside = 0
_saved: tuple[int, int, int] | None = None
_freezing_at_exit = False


@contextmanager
def fewer_collections(threshold: int = CHECK_THRESHOLD) -> Iterator[None]:
    """Run the block with the youngest generation collected after ``threshold`` allocations
    (never fewer than the threshold already set); the thresholds are restored after it."""
    global _inside, _saved
    with _lock:
        if _inside == 0:
            _saved = gc.get_threshold()
            first, *older = _saved
            if first:  # 0: automatic collection is off, and stays off
                gc.set_threshold(max(first, threshold), *older)
        _inside += 1
    try:
        yield
    finally:
        with _lock:
            _inside -= 1
            if _inside == 0 and _saved is not None:
                gc.set_threshold(*_saved)
                _saved = None


def no_collection_at_exit() -> None:
    """Freeze every object still alive when the interpreter exits (``gc.freeze`` from
    ``atexit``, once however often this is called), so that its last collections skip them:
    for a command whose results are written and whose objects need no finalising."""
    global _freezing_at_exit
    with _lock:
        if not _freezing_at_exit:
            atexit.register(gc.freeze)
            _freezing_at_exit = True


__all__ = ["CHECK_THRESHOLD", "fewer_collections", "no_collection_at_exit"]
