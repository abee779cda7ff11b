"""Run the hexlore CLI on hostile input in a child process held to a time and memory bound.

Regression tests for untrusted input (issue 13) must show that a file is *refused* within the
promised bounds, not merely that it is refused eventually. The bound is enforced by the
kernel, not measured by the test: the child runs under ``RLIMIT_CPU`` (CPU seconds, so a busy
CI machine does not make the test flaky) and ``RLIMIT_AS`` (address space). A child that
exceeds either is killed by the kernel (SIGXCPU/SIGKILL) or gets a MemoryError, and
:func:`run_bounded` reports that as a failure with what the child printed.

A generous wall-clock timeout only guards the test suite against a child that sleeps.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CPU_SECONDS = 5
MEMORY_BYTES = 500 * 1024 * 1024
WALL_SECONDS = 120


@dataclass(frozen=True)
class Outcome:
    """What a bounded child did: its exit status and its two output streams."""

    returncode: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr

    def describe(self) -> str:
        return f"exit {self.returncode}\n--- stdout ---\n{self.stdout[-4000:]}\n--- stderr ---\n{self.stderr[-4000:]}"


def _limits(cpu_seconds: int, memory_bytes: int):
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    return apply


def run_bounded(*args: str, cwd: Path | None = None, stdin: str | None = None,
                cpu_seconds: int = CPU_SECONDS, memory_bytes: int = MEMORY_BYTES,
                env: dict[str, str] | None = None) -> Outcome:
    """``python -m hexlore ARGS`` under the bounds; the outcome, whatever the exit code."""
    child_env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1", "COLUMNS": "120",
                 **(env or {})}
    child_env.pop("GITHUB_ACTIONS", None)
    completed = subprocess.run(
        [sys.executable, "-m", "hexlore", *args], cwd=cwd, input=stdin, capture_output=True,
        text=True, encoding="utf-8", errors="replace", timeout=WALL_SECONDS,
        preexec_fn=_limits(cpu_seconds, memory_bytes), env=child_env)
    return Outcome(completed.returncode, completed.stdout, completed.stderr)


def assert_refused(outcome: Outcome, *codes: str) -> None:
    """The child ended by itself with a diagnostic (exit 1 or 2), no traceback, no kill.

    ``codes``: diagnostic codes (``"P010"``) of which at least one must be printed.
    """
    killed = outcome.returncode < 0 and -outcome.returncode in (signal.SIGXCPU, signal.SIGKILL,
                                                               signal.SIGSEGV, signal.SIGABRT)
    assert not killed, f"killed by the bound (signal {-outcome.returncode}):\n{outcome.describe()}"
    assert "Traceback (most recent call last)" not in outcome.output, outcome.describe()
    assert "MemoryError" not in outcome.output, outcome.describe()
    assert outcome.returncode in (1, 2), outcome.describe()
    if codes:
        assert any(code in outcome.output for code in codes), \
            f"expected one of {codes}:\n{outcome.describe()}"
