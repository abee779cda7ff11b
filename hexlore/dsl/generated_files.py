"""The ``--write``/``--check`` command of a maintainer's docs generator.

Parts of hexlore's own files are generated from a registry (the built-ins' table and editor
grammar from their records, ``hexlore/compiler/builtin_docs.py``; the diagnostics page's
headings and index from the codes, ``hexlore/diagnostic_docs.py``). Each generator supplies
``regenerated()`` (path → the file's text as it should be); this module compares it with the
files and rewrites them, so that both generators behave, fail and print alike.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from .output_files import OutputError, write_atomically


def stale(regenerated: Mapping[Path, str], root: Path) -> list[Path]:
    """The generated files whose committed text differs from what the generator gives."""
    return [path for path, text in regenerated.items() if (root / path).read_text(encoding="utf-8") != text]


def main(prog: str, what: str, argv: list[str] | None, regenerated: Callable[[], Mapping[Path, str]],
         find_stale: Callable[[], list[Path]], root: Path) -> int:
    """``--write`` rewrites every generated part (exit 0); ``--check`` exits 1 when one is out of
    date; a file that cannot be read or written, or a page the generator cannot fix, exits 2."""
    parser = argparse.ArgumentParser(prog=prog, description=what)
    parser.add_argument("--write", action="store_true", help="rewrite the generated parts of the files")
    parser.add_argument("--check", action="store_true", help="exit 1 if a generated part is out of date")
    args = parser.parse_args(argv)
    try:
        if args.write:
            for path, text in regenerated().items():
                write_atomically(root / path, text)
            return 0
        out_of_date = find_stale()
    except (OSError, OutputError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for path in out_of_date:
        print(f"{path}: out of date; run {prog} --write", file=sys.stderr)
    return 1 if out_of_date and args.check else 0
