"""Kill a process in the middle of writing a sheet, for real.

A child Python process runs ``body`` after a prelude that makes the writer of every output
(sheets, logs, pages) stall once its first chunk is on disk (``output_files._write_chunk``), and signals the parent through a
file. The parent then SIGKILLs it, so the tests see exactly what a crash mid-write leaves.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from conftest import ROOT

CHUNK = 64

_PRELUDE = textwrap.dedent(f"""\
    import sys, time
    from pathlib import Path
    from hexlore.runtime.scenarios import campaign_files as cf
    from hexlore.dsl import output_files

    ready = sys.argv[1]
    output_files.CHUNK = {CHUNK}
    original = output_files._write_chunk

    def stalling(stream, data):
        original(stream, data)
        stream.flush()
        Path(ready).write_text("first chunk written")
        time.sleep(60)  # the parent kills the process here

    output_files._write_chunk = stalling
    """)


def kill_mid_write(workdir: Path, body: str, folder: Path, name: str, timeout: float = 60) -> int:
    """Run ``body`` (Python, after the prelude) in a child, kill it once the first chunk of the
    new sheet ``name`` is in ``folder``; return the size of the temporary file it left."""
    script, ready = workdir / "writer.py", workdir / "ready"
    script.write_text(_PRELUDE + textwrap.dedent(body), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    child = subprocess.Popen([sys.executable, str(script), str(ready)], env=env, cwd=workdir)
    try:
        deadline = time.monotonic() + timeout
        while not ready.exists():
            assert child.poll() is None, "the child ended before it wrote the sheet's first chunk"
            assert time.monotonic() < deadline, "the child never started writing the sheet"
            time.sleep(0.02)
        [partial] = folder.glob(f".{name}.*.tmp")
        size = partial.stat().st_size
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=10)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == -signal.SIGKILL
    return size
