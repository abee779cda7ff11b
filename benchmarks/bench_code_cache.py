"""Would a disk cache of the generated code pay? ``hexlore run`` with a warm cache against cold.

    python benchmarks/bench_code_cache.py [SCENARIO] [--rounds N]

Issue 32 asks whether the rules' generated code should be cached on disk by content hash, as
the parser's tables are (``hexlore/dsl/parser_cache.py``). What such a cache can keep is the
code objects (``marshal``): CPython's ``compile`` of the generated ``ast``. It cannot keep the
rest of generation without a second, serialisable naming of every constant and IR node the
code refers to (the constants are the rule set's own objects: origins, faces, definitions;
the line table is IR nodes), so a warm start would still build the ``ast``.

This measures the best such a cache could do, in one process and one run, alternating round
by round so that a load that comes and goes weighs on both sides: each round does what
``hexlore run SCENARIO --seed N`` does after start-up (open the scenario, compile its packs,
build the game, play it to the end, the log written to memory):

- *cold*: as today;
- *warm*: CPython's ``compile`` of the generated module replaced by ``marshal.loads`` of the
  code it made before (what a cache hit costs at best: no file opened, no digest checked).

It prints the CPU seconds of each (medians), the shares of a run that compiling the
generated code and building its ``ast`` are, and the ratio warm / cold. Measured on the
2-core machine of the README, CPython 3.11, shared with other jobs (load 10-16),
spider_ford.yaml, 9 rounds: cold 0.440 s, warm 0.372 s (0.85; 0.75-0.86 over three runs:
the ratio is noisy), compiling 10.7% of a run (the steadier figure: 10.0-10.9%), the ast
17.1%. So a perfect hit saves 0.05-0.07 s of a ``hexlore run`` whose start-up alone is
1.2-1.5 s: 3-4% of the command. Not shipped, as it does not pay for what it needs: a cache
that runs code read from a file must prove the file is the code generated for this exact
input, and the key cannot be the pack sources alone, since the code refers to constants by
the numbers (``k0, k1…``) this process's generation gave them; it would have to be a digest
of the generated module itself, or a naming of constants and line tables stable across
processes (a walk of every IR node), and every code object's file name must be renamed (line
tables are per process), the files guarded like the parser's pickles, all for 3-4%. A
process that plays or checks many scenarios already generates each rule set's code once: it
is kept on the rule set, which the compile cache (``hexlore/loading.py``) shares.
"""

from __future__ import annotations

import argparse
import builtins
import io
import marshal
import statistics
import time
from pathlib import Path

from hexlore.api import COMPILE_CACHE, open_scenario
from hexlore.compiler.backend import program as backend
from hexlore.dsl.parser import _parse_cached
from hexlore.runtime.engine.game import Game

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = ROOT / "scenarios" / "battlelore" / "spider_ford.yaml"


def run_once(scenario: Path, seed: int) -> None:
    """What ``hexlore run`` does after start-up: every stage made afresh (no cached rule set)."""
    COMPILE_CACHE.clear()
    _parse_cached.cache_clear()
    loaded = open_scenario(str(scenario))
    assert loaded.ok, [d.headline() for d in loaded.diagnostics]
    Game(loaded.rules, loaded.scenario, seed=seed, log_file=io.StringIO()).play(None)


class WarmCompile:
    """``compile`` as a cache hit would be: the first call of each file name compiles and keeps
    the marshalled code; later ones with the same generated module only load it."""

    def __init__(self) -> None:
        self.kept: dict[str, bytes] = {}

    def __call__(self, tree, filename, mode, *args, **kwargs):
        key = "resumable" if "resumable" in filename else "direct"  # one rule set, made again each round
        if key in self.kept:
            return marshal.loads(self.kept[key])
        code = builtins.compile(tree, filename, mode, *args, **kwargs)
        self.kept[key] = marshal.dumps(code)
        return code


def cpu(fn) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenario", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    warm = WarmCompile()
    compiling: list[float] = []

    def timed_compile(tree, filename, mode, *rest, **kwargs):
        start = time.process_time()
        try:
            return builtins.compile(tree, filename, mode, *rest, **kwargs)
        finally:
            compiling.append(time.process_time() - start)

    generating: list[float] = []
    generate = backend.Program.generate

    def timed_generate(self):
        start = time.process_time()
        try:
            return generate(self)
        finally:
            generating.append(time.process_time() - start)

    backend.Program.generate = timed_generate  # type: ignore[method-assign]
    cold_times, warm_times, shares, ast_shares = [], [], [], []
    run_once(args.scenario, 0)  # imports and the parser's tables, outside the rounds
    backend.compile = warm  # type: ignore[attr-defined]  (the module's global shadows the builtin)
    run_once(args.scenario, 0)  # fills the warm "cache"
    for seed in range(args.rounds):
        backend.compile = timed_compile  # type: ignore[attr-defined]
        compiling.clear()
        generating.clear()
        cold_times.append(cpu(lambda: run_once(args.scenario, seed)))
        shares.append(sum(compiling) / cold_times[-1])
        ast_shares.append(sum(generating) / cold_times[-1])
        backend.compile = warm  # type: ignore[attr-defined]
        warm_times.append(cpu(lambda: run_once(args.scenario, seed)))
    del backend.compile  # type: ignore[attr-defined]
    backend.Program.generate = generate  # type: ignore[method-assign]
    cold, hot = statistics.median(cold_times), statistics.median(warm_times)
    print(f"{args.scenario.name}: {args.rounds} rounds, CPU seconds (medians)")
    print(f"  cold (compile the generated code)       {cold:.3f}")
    print(f"  warm (code objects from a perfect cache) {hot:.3f}")
    print(f"  compiling the generated code: {statistics.median(shares):.1%} of a run")
    print(f"  warm / cold: {hot / cold:.2f}")
    print(f"  building the ast (what no code-object cache skips): {statistics.median(ast_shares):.1%} of a run")


if __name__ == "__main__":
    main()
