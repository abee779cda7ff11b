"""Diagnostics after a keystroke in the language server, against a cold ``hexlore check``.

    python benchmarks/bench_lsp.py [--rounds 21]

The open document is ``rules/battlelore/core.lore`` (576 lines); the language server compiles
it with the rest of its folder (8 packs, 2,552 lines), as ``hexlore check rules/battlelore``
does. Measured in one process, the two taking turns round by round:

- a cold check: ``api.check`` of the folder with the parser's per-text cache emptied, so that
  every pack is parsed and compiled (the parser's tables are built once, before timing: a
  language server pays that at its start, not at a keystroke);
- a keystroke: one character typed into ``core.lore`` (an unsaved buffer), then the
  diagnostics of its rule set, as the server computes them before publishing
  (:class:`hexlore.lsp.analysis.Documents`); the characters typed alternate between the two
  halves of a name, so that every round's text is new to the parser's cache.

Then the same keystrokes through the real server (``python -m hexlore lsp`` in a subprocess,
tests/lsp_client.py): the time from sending ``didChange`` to receiving the diagnostics, less
the server's debounce (:data:`hexlore.lsp.server.DEBOUNCE`), which an editor adds on top.

Printed: the median of each and their ratio (the issue asks under 200 ms a keystroke).
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from pathlib import Path

from hexlore import api
from hexlore.dsl import parser
from hexlore.lsp.analysis import Documents
from hexlore.lsp.server import DEBOUNCE

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "rules" / "battlelore"
OPEN = (FOLDER / "core.lore").resolve()


def cold_check() -> float:
    parser._parse_cached.cache_clear()
    start = time.perf_counter()
    api.check([str(FOLDER)])
    return time.perf_counter() - start


def keystroke(documents: Documents, text: str, n: int) -> float:
    """Type one character into a comment line at the end (a new text each round)."""
    edited = text + f"# edit {n}{'x' * (n % 7)}\n"
    start = time.perf_counter()
    documents.set(str(OPEN), edited)
    analysis = documents.lore(str(OPEN))
    assert analysis.rules is not None and str(OPEN) in analysis.modules
    return time.perf_counter() - start


def through_server(text: str, rounds: int) -> list[float]:
    """Change → diagnostics through the subprocess server, less its debounce, per keystroke."""
    sys.path.insert(0, str(ROOT / "tests"))
    from lsp_client import Client

    client = Client(ROOT)
    try:
        client.start(ROOT)
        uri = client.open(OPEN)
        client.diagnostics(uri)
        times = []
        for n in range(rounds):
            start = time.perf_counter()
            client.change(uri, text + f"# edit {n}{'y' * (n % 7)}\n")
            client.diagnostics(uri)
            times.append(time.perf_counter() - start - DEBOUNCE)
        return times
    finally:
        client.stop()


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    options.add_argument("--rounds", type=int, default=21)
    rounds = options.parse_args().rounds
    text = OPEN.read_text(encoding="utf-8")
    documents = Documents()
    cold_check()  # the parser's tables and every module imported, before timing
    keystroke(documents, text, -1)
    colds, keys = [], []
    for n in range(rounds):
        colds.append(cold_check())
        keys.append(keystroke(documents, text, n))
    cold, key = statistics.median(colds), statistics.median(keys)
    lines = sum(len(f.read_text(encoding="utf-8").split("\n")) for f in FOLDER.glob("*.lore"))
    print(f"{platform.python_implementation()} {platform.python_version()}, {rounds} rounds, "
          f"{len(text.splitlines())}-line pack open, {lines} lines in its folder")
    print(f"cold hexlore check of the folder: {cold * 1000:.0f} ms (median)")
    print(f"diagnostics after a keystroke:    {key * 1000:.0f} ms (median), max {max(keys) * 1000:.0f} ms")
    print(f"ratio keystroke / cold check:     {key / cold:.2f}")
    served = through_server(text, rounds)
    print(f"through the server (change -> diagnostics, less the {DEBOUNCE} s debounce): "
          f"{statistics.median(served) * 1000:.0f} ms (median), max {max(served) * 1000:.0f} ms; "
          f"ratio to the cold check {statistics.median(served) / cold:.2f}")


if __name__ == "__main__":
    main()
