"""hexlore/collector.py: fewer garbage collections while checking, none of the kept objects at exit."""

from __future__ import annotations

import gc
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from hexlore import collector
from hexlore.collector import CHECK_THRESHOLD, fewer_collections, no_collection_at_exit


@contextmanager
def kept_thresholds() -> Iterator[None]:
    """The tests set the interpreter's thresholds: what runs after them finds them as they were."""
    saved = gc.get_threshold()
    try:
        yield
    finally:
        gc.set_threshold(*saved)


def test_the_threshold_is_raised_inside_and_restored_after():
    with kept_thresholds():
        gc.set_threshold(700, 10, 10)
        with fewer_collections():
            assert gc.get_threshold() == (CHECK_THRESHOLD, 10, 10)
            with fewer_collections(10):  # nested: never lowered, and the outer one restores
                assert gc.get_threshold() == (CHECK_THRESHOLD, 10, 10)
            assert gc.get_threshold() == (CHECK_THRESHOLD, 10, 10)
        assert gc.get_threshold() == (700, 10, 10)


def test_restored_after_an_error():
    with kept_thresholds():
        gc.set_threshold(700, 10, 10)
        with pytest.raises(ValueError), fewer_collections():
            raise ValueError
        assert gc.get_threshold() == (700, 10, 10)


def test_a_higher_threshold_or_collection_turned_off_is_kept():
    with kept_thresholds():
        gc.set_threshold(10 * CHECK_THRESHOLD, 10, 10)
        with fewer_collections():
            assert gc.get_threshold()[0] == 10 * CHECK_THRESHOLD
        gc.set_threshold(0, 10, 10)
        with fewer_collections():
            assert gc.get_threshold()[0] == 0
        assert gc.get_threshold() == (0, 10, 10)


def test_threads_that_overlap_leave_the_thresholds_as_they_found_them():
    """This thread enters first and leaves first, while the other is still inside: a caller
    that restored what it saw would lower the threshold under the other, then leave it raised."""
    with kept_thresholds():
        gc.set_threshold(700, 10, 10)
        entered, leave = threading.Event(), threading.Event()

        def other():
            with fewer_collections():
                entered.set()
                leave.wait(timeout=60)

        thread = threading.Thread(target=other)
        with fewer_collections():
            thread.start()
            assert entered.wait(timeout=60)
        assert gc.get_threshold()[0] == CHECK_THRESHOLD  # the other thread is still checking
        leave.set()
        thread.join()
        assert gc.get_threshold() == (700, 10, 10)


def test_the_freeze_at_exit_is_registered_once(monkeypatch):
    registered = []
    monkeypatch.setattr(collector, "_freezing_at_exit", False)
    monkeypatch.setattr(collector.atexit, "register", registered.append)
    no_collection_at_exit()
    no_collection_at_exit()
    assert registered == [gc.freeze]


def test_a_process_that_froze_at_exit_exits_cleanly():
    program = ("from hexlore.collector import no_collection_at_exit\n"
               "import sys\nno_collection_at_exit()\nprint('done')\nsys.exit(3)\n")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    assert (done.returncode, done.stdout, done.stderr) == (3, "done\n", "")
