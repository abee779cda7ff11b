"""Coverage-guided fuzzing of the same harness with atheris (libFuzzer for Python).

    pip install 'hexlore[fuzz]'
    python tests/fuzz/atheris_entry.py -atheris_runs=100000 [corpus_dir]

The first byte of an input picks a corpus file of tests/fuzz/mutators.py; the rest replaces
its content, written over its own name in a copy of its folder, and goes through the same
``check_one`` as tests/fuzz/run.py. libFuzzer keeps inputs that reach new code, so it finds
its way into the compiler from the bundled files' shapes. An exception escaping hexlore's API
stops the run with the input saved by libFuzzer (crash-…).
"""

from __future__ import annotations

import importlib
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE.parent))

import atheris  # noqa: E402

with atheris.instrument_imports():
    importlib.import_module("hexlore.api")

from fuzz.mutators import seed_files  # noqa: E402
from fuzz.run import check_one  # noqa: E402

WORK = Path(tempfile.mkdtemp(prefix="hexlore-atheris-"))
COPIES = []
for k, (path, kind, data) in enumerate(seed_files()):
    shutil.copytree(path.parent, WORK / str(k), ignore=shutil.ignore_patterns("__pycache__"))
    COPIES.append((WORK / str(k) / path.name, kind, data))


def test_one_input(data: bytes) -> None:
    if not data:
        return
    target, kind, original = COPIES[data[0] % len(COPIES)]
    target.write_bytes(data[1:])
    try:
        check_one(target, kind, play=False)
    finally:
        target.write_bytes(original)


def seed_corpus(folder: Path) -> None:
    """An empty corpus folder starts from the bundled files themselves."""
    if folder.is_dir() and not any(folder.iterdir()):
        for k, (_, _, data) in enumerate(COPIES):
            (folder / f"seed-{k}").write_bytes(bytes([k]) + data)


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        if not arg.startswith("-"):
            seed_corpus(Path(arg))
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
